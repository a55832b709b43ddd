"""Issue 25, point 5: with a dark palette the plots are dark too (background, axes, titles, legends); exports stay
black on white."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_demo_and_wait


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#e6e6e6"),
                         (QPalette.ColorRole.Button, "#353535"), (QPalette.ColorRole.ButtonText, "#e6e6e6")):
        palette.setColor(role, QColor(colour))
    return palette


@pytest.fixture
def dark_app():
    app = QApplication.instance()
    before = app.palette()
    app.setPalette(dark_palette())
    yield app
    app.setPalette(before)


def plots_of(window) -> list[pg.GraphicsView]:
    return [v for v in window.findChildren(pg.GraphicsView)]


def dark(colour: QColor) -> bool:
    return colour.lightness() < 80


def light(colour: QColor) -> bool:
    return colour.lightness() > 180


def test_plots_follow_a_dark_palette(qtbot, dark_app, window):
    open_demo_and_wait(qtbot, window)
    for workspace in window.workspaces.values():          # every results tab shown once: its plots drawn
        window.tabs.setCurrentWidget(workspace)
        for i in range(workspace.results_tabs.count()):
            workspace.results_tabs.setCurrentIndex(i)
            qtbot.wait(5)
    views = plots_of(window)
    assert len(views) >= 10
    assert all(getattr(view, "_palette_follower", None) is not None for view in views)    # every plot follows
    shown = [view for view in views if view._palette_follower.shown]
    assert len(shown) >= 10
    for view in shown:
        assert dark(view.backgroundBrush().color()), view.objectName()
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem):
                assert light(item.textPen().color()) and light(item.pen().color()), view.objectName()
            elif isinstance(item, pg.LabelItem):
                assert item.opts["color"] == "#e6e6e6", view.objectName()       # titles
            elif isinstance(item, pg.LegendItem):
                assert light(pg.mkColor(item.opts["labelTextColor"])), view.objectName()


def test_a_palette_changed_later_recolours_the_plots_and_exports_stay_white(qtbot, window, tmp_path):
    from PySide6.QtGui import QImage

    from evalgui.gui.plots import export_plot, svg_bytes

    open_demo_and_wait(qtbot, window)
    ranked = window.workspaces["ranked"]
    ranked.results_tabs.setCurrentWidget(ranked.curves.page)
    view = next(v for v in plots_of(ranked.curves.page) if v.isVisible())
    assert light(view.backgroundBrush().color())           # the default palette: white, as before
    app = QApplication.instance()
    before = app.palette()
    try:
        app.setPalette(dark_palette())
        qtbot.waitUntil(lambda: dark(view.backgroundBrush().color()))
        axis = view.getPlotItem().getAxis("bottom")
        assert light(axis.textPen().color())
        export_plot(view, str(tmp_path / "curves.png"))
        image = QImage(str(tmp_path / "curves.png"))
        assert light(image.pixelColor(2, 2)) and light(image.pixelColor(image.width() - 3, image.height() // 2))
        svg = svg_bytes(view).decode()
        assert "#ffffff" in svg.lower() and "#1e1e1e" not in svg.lower()
        assert dark(view.backgroundBrush().color()) and light(axis.textPen().color())    # the window's again
    finally:
        app.setPalette(before)
    qtbot.waitUntil(lambda: light(view.backgroundBrush().color()))


def test_point_labels_read_on_a_dark_plot():
    from evalgui.gui.plot_palette import readable_on_dark
    from evalgui.gui.plots import PALETTE

    for colour in PALETTE:
        assert readable_on_dark(colour).lightness() >= 170
    assert readable_on_dark("#E69F00").hue() == QColor("#E69F00").hue()       # the same hue, lighter
