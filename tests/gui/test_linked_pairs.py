"""Issue 31, linked views: Compare's pair view selects in Ranked retrieval's per-query table and drill-down, as
Ranked ▸ Run × run does; one click on a matrix cell opens its pair; every bar of the pair view can be named."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt

from tests.gui.conftest import open_demo_and_wait
from tests.gui.test_pair_view import assert_selected_in_ranked


def _click_cell(qtbot, table, row, column):
    rect = table.visualRect(table.model().index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _compare_matrix(qtbot, window, measure="P_10"):
    """The demo's Ranked retrieval and Compare results; Compare's matrix tab in sight, showing ``measure``."""
    ranked = open_demo_and_wait(qtbot, window, only=("ranked", "compare"))
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    view = compare.matrix
    compare.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData(measure))
    return ranked, compare, view, list(view.model.frame.index)


def test_one_click_on_a_compare_matrix_cell_opens_its_pair_and_selects_in_ranked(qtbot, window):
    ranked, compare, view, runs = _compare_matrix(qtbot, window)
    _click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))     # one click, not two
    pair = view.pair_view
    assert pair is not None and pair.isVisible() and (pair.row_run, pair.column_run) == ("bm25", "random")
    assert "select them in Ranked retrieval's per-query table and drill-down too" in pair.caption.text()

    # queries selected there are selected in Ranked ▸ Per query (showing P@10) and the first in the drill-down
    ranked.per_query.measure.setCurrentIndex(ranked.per_query.measure.findData("map"))
    assert_selected_in_ranked(qtbot, ranked, pair, pair.frame["query"].tolist()[2:4], "P_10", ("bm25", "random"))

    # a bar clicked: its query, in Ranked too
    pair._pick(5, Qt.KeyboardModifier.NoModifier)
    assert ranked.per_query.selected_queries() == [pair.frame["query"].iat[5]]
    assert ranked.drill_down.query.currentData() == pair.frame["query"].iat[5]


def test_one_click_on_a_heatmap_cell_opens_its_pair(qtbot, window):
    _ranked, _compare, view, runs = _compare_matrix(qtbot, window)
    row, column = runs.index("dense"), runs.index("bm25")
    scene = view.heatmap.getPlotItem().vb.mapViewToScene(QPointF(column, row))
    where = view.heatmap.mapFromScene(scene)
    with qtbot.waitSignal(view.heatmap.cell_activated) as opened:
        qtbot.mouseClick(view.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args == [row, column]
    assert view.pair_view.isVisible() and (view.pair_view.row_run, view.pair_view.column_run) == ("dense", "bm25")


def test_a_preference_pair_selects_in_ranked_too(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window, only=("ranked", "compare"))
    compare = window.workspaces["compare"]
    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData("rpp"))
    runs = list(view.model.frame.index)
    _click_cell(qtbot, view.table, runs.index("rerank"), runs.index("dense"))
    pair = view.pair_view
    assert pair.isVisible() and pair.preferences
    assert "select them in Ranked retrieval's per-query table and drill-down too" in pair.caption.text()
    assert_selected_in_ranked(qtbot, ranked, pair, pair.frame["query"].tolist()[:3], None, ("rerank", "dense"))


def test_every_bar_of_the_pair_view_can_be_named(qtbot, window):
    _ranked, _compare, view, runs = _compare_matrix(qtbot, window)
    _click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))
    pair = view.pair_view
    queries = pair.frame["query"].tolist()
    axis = pair.bars.getPlotItem().getAxis("left")

    def named():
        return [label for _, label in axis._tickLevels[0]] if axis._tickLevels else []

    # tall enough: every query is named beside its bar
    pair.resize(900, 2400)
    qtbot.waitUntil(lambda: pair.bars_named_every() == 1 and len(named()) == len(queries))
    assert named() == queries

    # too short for every name: every n-th is named, and the pointer names any bar with its values
    pair.resize(900, 500)
    qtbot.waitUntil(lambda: pair.bars_named_every() > 1)
    assert 0 < len(named()) < len(queries)
    unnamed = next(i for i, q in enumerate(queries) if q not in named())
    scene = pair.bars.getPlotItem().vb.mapViewToScene(QPointF(0, unnamed))
    pair.bars.scene().sigMouseMoved.emit(scene)          # the pointer over that bar (as pyqtgraph tells it)
    row = pair.frame.iloc[unnamed]
    assert pair.bars.toolTip() == (f"Query {queries[unnamed]}: bm25 {row['bm25']:.4f}, random {row['random']:.4f}, "
                                   f"difference {row['difference']:+.4f}")
    # a point of the scatter names every query it stands for (equal scores share a point)
    x, y = row["random"], row["bm25"]
    pair.scatter.scene().sigMouseMoved.emit(pair.scatter.getPlotItem().vb.mapViewToScene(QPointF(x, y)))
    same = pair.frame[(pair.frame["random"] == x) & (pair.frame["bm25"] == y)].index
    assert 1 < len(same) and all(pair.bar_text(i) in pair.scatter.toolTip() for i in same[:5])
    # a bar clicked is named under the plots
    pair._pick(unnamed, Qt.KeyboardModifier.NoModifier)
    assert pair.selection_caption.text() == f"Selected: {pair.bars.toolTip()}."
    pair.select_queries(queries[:7])
    assert pair.selection_caption.text() == f"Selected 7 queries: {', '.join(queries[:5])} and 2 more."
