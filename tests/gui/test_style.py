"""Empty check boxes of lists and trees stay visible on a dark palette (Fusion draws them in the window's
shades, which a dark palette makes all but invisible); a light palette draws them as the platform does."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QStyle, QStyleOptionViewItem

from evalgui.gui.style import VisibleChecks


def _palette(dark: bool) -> QPalette:
    palette = QPalette()
    colours = {QPalette.ColorRole.Window: "#2b2b2b", QPalette.ColorRole.Base: "#1e1e1e",
               QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.WindowText: "#e6e6e6",
               QPalette.ColorRole.Button: "#353535"} if dark else \
        {QPalette.ColorRole.Window: "#efefef", QPalette.ColorRole.Base: "#ffffff", QPalette.ColorRole.Text: "#000000"}
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    return palette


def _box(qtbot, style, dark: bool):
    """An unticked run in a list, drawn with ``style``: the pixels of its check box, and the list's base colour."""
    listed = QListWidget()
    qtbot.addWidget(listed)
    listed.setStyle(style)
    listed.setPalette(_palette(dark))
    item = QListWidgetItem("base.run")
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(Qt.CheckState.Unchecked)
    listed.addItem(item)
    listed.resize(200, 60)
    listed.show()
    qtbot.waitExposed(listed)
    option = QStyleOptionViewItem()
    option.initFrom(listed.viewport())
    option.rect = listed.visualItemRect(item)
    option.features |= QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    check = style.subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, option, listed)
    image = listed.viewport().grab().toImage()
    pixels = [image.pixelColor(QPoint(x, y)).lightness() for x in range(check.left(), check.right() + 1)
              for y in range(check.top(), check.bottom() + 1)]
    return pixels, listed.palette().color(QPalette.ColorRole.Base).lightness()


def test_an_empty_check_box_in_a_list_stands_out_on_a_dark_palette(qtbot):
    plain, base = _box(qtbot, VisibleChecks("fusion"), dark=True)
    assert max(plain) - base > 80                  # an outline in the text colour, not a shade of the base


def test_on_a_light_palette_the_platform_draws_it_alone(qtbot):
    from PySide6.QtWidgets import QStyleFactory

    ours, _ = _box(qtbot, VisibleChecks("fusion"), dark=False)
    platform, _ = _box(qtbot, QStyleFactory.create("fusion"), dark=False)
    assert ours == platform


def test_evalgui_starts_with_it(qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from tests.gui.test_session_state import _main

    status, window = _main(qtbot, monkeypatch, ["--demo"])
    assert status == 0 and isinstance(QApplication.instance().style(), VisibleChecks)
    assert window.close()
