"""Render evalgui.svg into the icons next to it: python resources/icons/make_icons.py

The PNGs are the desktop's and the window's icons; evalgui.ico (Windows) and evalgui.icns
(macOS) are the bundle program's (packaging/pyinstaller/evalgui.spec). Run it after editing
the SVG and commit what it writes; a test checks the PNGs match the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = (48, 256)
PLATFORM_ICONS = ("evalgui.ico", "evalgui.icns")      # 256 px, written by Qt's image plugins


def render(size: int):
    """The SVG drawn on a transparent size × size image (QImage)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(HERE / "evalgui.svg")).render(painter)
    painter.end()
    return image


def make(folder: Path = HERE) -> list[Path]:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])    # QImage needs one for fonts
    written = []
    for size in SIZES:
        path = folder / f"evalgui-{size}.png"
        if not render(size).save(str(path)):
            raise OSError(f"could not write {path}")
        written.append(path)
    for name in PLATFORM_ICONS:
        path = folder / name
        if not render(256).save(str(path)):
            raise OSError(f"could not write {path}")
        written.append(path)
    del app
    return written


if __name__ == "__main__":
    for path in make():
        print(path)
