"""Issue 25, point 5: every control has an accessible name and can be reached with Tab."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QRadioButton, QWidget

WORKSPACES = ["ranked", "compare", "metaeval", "stability", "casebase"]


def _focusable(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


@pytest.mark.parametrize("key", WORKSPACES)
def test_every_focusable_control_has_an_accessible_name(window, key):
    from evalgui.gui.accessibility import current_name

    unnamed = [f"{type(w).__name__} {w.objectName()!r}" for w in window.workspaces[key].findChildren(QWidget)
               if _focusable(w) and not current_name(w).strip()]
    assert not unnamed, unnamed


def test_the_window_and_the_pair_view_name_their_controls(qtbot, window):
    from evalgui.gui.accessibility import current_name
    from evalgui.gui.pair_view import PairView

    pair = PairView()
    qtbot.addWidget(pair)
    for root in (window, pair):
        unnamed = [f"{type(w).__name__} {w.objectName()!r}" for w in root.findChildren(QWidget)
                   if _focusable(w) and not current_name(w).strip()]
        assert not unnamed, unnamed


def test_names_say_what_a_control_is(window):
    ranked = window.workspaces["ranked"]
    assert ranked.run_matrix.measure.accessibleName() == "Measure"          # its toolbar label
    assert ranked.per_query.filter.accessibleName().startswith("Filter queries")
    assert "heatmap" in ranked.run_matrix.heatmap.accessibleName().lower()


@pytest.mark.parametrize("key", WORKSPACES)
def test_tab_reaches_every_control_in_sight(qtbot, window, key):
    from tests.gui.conftest import open_demo_and_wait

    open_demo_and_wait(qtbot, window)         # tables with rows: Tab must still leave them
    workspace = window.workspaces[key]
    window.tabs.setCurrentWidget(workspace)
    window.resize(1366, 768)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow() or QApplication.platformName() == "offscreen")
    in_sight = {w for w in workspace.findChildren(QWidget)
                if _focusable(w) and w.isVisibleTo(window) and w.isEnabled() and w.isVisible()
                and w.focusProxy() is None
                # radio buttons: Tab lands on the chosen one, the arrow keys move between them
                and not (isinstance(w, QRadioButton) and w.autoExclusive() and not w.isChecked())}
    assert workspace.run_button in in_sight
    start = workspace.run_button
    start.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is start)
    reached = {start}
    for _ in range(2 * len(in_sight) + 20):      # real Tab presses: a table must not keep the focus
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.add(QApplication.focusWidget())
        if in_sight <= reached:
            break
    missing = [f"{type(w).__name__} {w.objectName()!r}" for w in in_sight - reached]
    assert not missing, missing


def test_a_plot_shows_its_focus(qtbot, window):
    from PySide6.QtGui import QColor

    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)
    ranked.results_tabs.setCurrentWidget(ranked.curves.page)
    plot = ranked.curves.plot if hasattr(ranked.curves, "plot") else ranked.findChild(QWidget, "prPlot")
    qtbot.waitUntil(plot.isVisible)
    highlight = plot.palette().color(plot.palette().ColorRole.Highlight)

    def edge() -> QColor:
        return plot.grab().toImage().pixelColor(plot.width() // 2, 0)

    before = edge()
    plot.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(plot.hasFocus)
    qtbot.waitUntil(lambda: edge() == highlight)
    assert before != highlight


def test_a_plot_deleted_while_it_has_the_focus_takes_its_focus_ring_quietly(qtbot):
    # (CI: "Internal C++ object (PlotWidget) already deleted" from the ring's event filter, at a teardown)
    import pyqtgraph as pg
    import shiboken6

    from evalgui.gui.accessibility import FocusRing

    top = QWidget()
    qtbot.addWidget(top)
    plot = pg.PlotWidget(top)
    FocusRing(plot)
    top.show()
    qtbot.waitExposed(top)
    top.activateWindow()
    plot.setFocus()
    qtbot.waitUntil(plot.hasFocus)
    shiboken6.delete(plot)              # its FocusOut reaches the ring while the plot is going
    assert not shiboken6.isValid(plot)
