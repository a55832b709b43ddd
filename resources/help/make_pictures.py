"""Make the pictures of Help ▸ Getting started: each workspace's results after the demo (seeded data: the same
pictures every time, up to the fonts of the machine).

    QT_QPA_PLATFORM=offscreen python resources/help/make_pictures.py

The window is 1366×768; each workspace's results tabs are grabbed on the tab named in TABS and scaled to
WIDTH pixels wide, saved as resources/help/<key>.png.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDTH = 560
TABS = {"ranked": "Summary", "compare": "Matrix", "metaeval": "Power curves", "stability": "Error vs ties",
        "casebase": "Quality vs time"}


def main() -> int:
    sys.path.insert(0, str(HERE.parents[1]))
    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from evalgui.gui.mainwindow import MainWindow

    window = MainWindow()
    window.ask_before_discarding = False
    window.resize(1366, 768)
    window.show()

    def settle(ms: int = 300) -> None:
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    loop = QEventLoop()
    failed: list = []
    window.demo_finished.connect(lambda titles: (failed.extend(titles), loop.quit()))
    QTimer.singleShot(300_000, loop.quit)
    window.open_demo()
    loop.exec()
    if failed or not all(ws.has_results() for ws in window.workspaces.values()):
        print(f"the demo failed: {failed}", file=sys.stderr)
        return 1
    for key, tab in TABS.items():
        ws = window.workspaces[key]
        window.tabs.setCurrentWidget(ws)
        tabs = ws.results_tabs
        tabs.setCurrentIndex([tabs.tabText(i) for i in range(tabs.count())].index(tab))
        settle(800)
        picture = tabs.grab().scaledToWidth(WIDTH, Qt.TransformationMode.SmoothTransformation)
        path = HERE / f"{key}.png"
        picture.save(str(path), "PNG")
        print("wrote", path, f"{path.stat().st_size // 1024} kB")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
