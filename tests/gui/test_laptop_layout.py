"""Issue 25, point 2: on a laptop's screen the results get the larger part of every workspace."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractScrollArea, QScrollArea, QTableView

from tests.gui.conftest import open_demo_and_wait

WORKSPACES = ["ranked", "compare", "metaeval", "stability", "casebase"]
FORM_TABLES = ("cbrModelTable", "cbrPreviewTable")      # tables in a form: they fit its column too


def rect_in(window, widget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def resize_and_wait(qtbot, window, width, height):
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.size().toTuple() == (width, height))
    qtbot.wait(20)      # the dock keeper and the splitters run on a zero timer


@pytest.mark.parametrize("size, share", [((1366, 768), 0.5), ((1024, 640), 0.45)])
@pytest.mark.parametrize("key", WORKSPACES)
def test_results_get_their_share_and_run_stays_in_view(qtbot, window, key, size, share):
    workspace = window.workspaces[key]
    window.tabs.setCurrentWidget(workspace)
    resize_and_wait(qtbot, window, *size)
    results = rect_in(window, workspace.results_tabs)
    assert results.width() >= share * size[0], (key, results.width())
    assert window.rect().contains(results)
    run = workspace.run_button
    assert run.isVisible() and run.visibleRegion().boundingRect() == run.rect()
    assert window.rect().contains(rect_in(window, run))


@pytest.mark.parametrize("key", WORKSPACES)
def test_no_scroll_area_inside_another(window, key):
    workspace = window.workspaces[key]
    for area in workspace.findChildren(QScrollArea):
        parent = area.parentWidget()
        while parent is not None and parent is not workspace:
            assert not isinstance(parent, QScrollArea), (key, area.objectName(), parent.objectName())
            parent = parent.parentWidget()


@pytest.mark.parametrize("key", ["ranked", "compare", "metaeval", "stability"])
def test_the_runs_list_shows_eight_rows(qtbot, key, window):
    open_demo_and_wait(qtbot, window)
    workspace = window.workspaces[key]
    window.tabs.setCurrentWidget(workspace)
    resize_and_wait(qtbot, window, 1366, 768)
    from evalgui.gui.workspaces.run_picker import Checklist

    run_list = next(c for c in workspace.form.findChildren(Checklist) if c.objectName().endswith("unList"))
    row = run_list.sizeHintForRow(0)
    assert row > 0
    assert run_list.viewport().height() >= 8 * row - 1, (run_list.viewport().height(), row)


@pytest.mark.parametrize("size", [(1366, 768), (1024, 640), (800, 480)])
def test_no_form_scrolls_sideways(qtbot, window, size):
    """Issue 25: with the demo's data in every workspace, no form needs a horizontal scroll bar (long rows put
    their field under their label, notes wrap), down to the window's minimum size. Nor do the case-based
    form's tables: the similarity model and the preview."""
    open_demo_and_wait(qtbot, window, only=None)
    resize_and_wait(qtbot, window, *size)
    for key in WORKSPACES:
        workspace = window.workspaces[key]
        window.tabs.setCurrentWidget(workspace)
        scroll = workspace.form_column.findChild(QScrollArea)
        qtbot.waitUntil(lambda: scroll.viewport().width() > 0)
        qtbot.wait(20)
        assert not scroll.horizontalScrollBar().isVisible(), (key, size, scroll.widget().minimumSizeHint().width(),
                                                              scroll.viewport().width())
        assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width(), (key, size)
        # nor does a list or the measure tree in it (long names are elided); tables of data may scroll as tables do
        for area in scroll.widget().findChildren(QAbstractScrollArea):
            if area.isVisible() and (not isinstance(area, QTableView) or area.objectName() in FORM_TABLES):
                assert not area.horizontalScrollBar().isVisible(), (key, size, area.objectName())
    # nor does the Data panel: its Contents column takes the room left and elides (the tooltip has it whole)
    tree = window.data_panel.tree
    if tree.isVisible():
        assert not tree.horizontalScrollBar().isVisible(), (size, [tree.columnWidth(c) for c in range(4)])
        assert tree.horizontalHeader().length() <= tree.viewport().width(), size
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    qtbot.waitUntil(lambda: not casebase.form.preview.model.frame.empty, timeout=10_000)
    qtbot.wait(20)
    for name in FORM_TABLES:
        table = casebase.form_column.findChild(QTableView, name)
        assert table.isVisible() and table.model().rowCount() > 1, (name, size)
        assert not table.horizontalScrollBar().isVisible(), (name, size)
        assert table.horizontalHeader().length() <= table.viewport().width(), (name, size)
