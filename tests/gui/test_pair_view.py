"""Issue 25, point 1: a cell of a run × run matrix opens its pair, query by query (from the outcome's
per-query values, not recomputed), and queries selected there are selected in the workspace's views."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPointF, Qt

from tests.gui.conftest import open_demo_and_wait
from tests.gui.test_compare_workspace import _compare_synthetic
from evalgui.gui.naming import label as shown_name


def test_pair_differences_are_sorted_by_size_and_skip_missing_queries():
    from evalgui.gui.pair_view import pair_differences

    values = pd.DataFrame({"a": [0.5, 0.1, 0.9, np.nan], "b": [0.4, 0.6, 0.9, 0.2]}, index=["q1", "q2", "q3", "q4"])
    frame = pair_differences(values, "a", "b")
    assert frame["query"].tolist() == ["q2", "q1", "q3"]              # |−0.5| > |+0.1| > 0; q4 lacks a
    assert frame["difference"].tolist() == pytest.approx([-0.5, 0.1, 0.0])


def _double_click_cell(qtbot, table, row, column):
    rect = table.visualRect(table.model().index(row, column))
    # as a real double click arrives: a press and release first (the view checks the pressed cell)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def assert_selected_in_ranked(qtbot, ranked, pair, picked, measure, runs):
    """Queries selected in ``pair`` are selected in Ranked ▸ Per query (showing ``measure``), the first in the
    drill-down for the pair's two ``runs``."""
    with qtbot.waitSignal(pair.queries_selected):
        pair.select_queries(picked)
    assert sorted(ranked.per_query.selected_queries()) == sorted(picked)
    assert measure is None or ranked.per_query.measure.currentData() == measure
    drill = ranked.drill_down
    assert drill.query.currentData() == pair.selected_queries()[0]
    assert (drill.run_a.currentData(), drill.run_b.currentData()) == runs


def test_a_compare_matrix_cell_opens_its_pair(qtbot, window):
    compare = _compare_synthetic(qtbot, window, test="t", correction="holm")
    view = compare.matrix
    compare.results_tabs.setCurrentWidget(view.page)
    index = view.measure.findData("P_10")
    view.measure.setCurrentIndex(index)
    runs = list(view.model.frame.index)
    a, b = runs.index("bm25"), runs.index("random")
    _double_click_cell(qtbot, view.table, a, b)
    pair = view.pair_view
    assert pair is not None and pair.isVisible()
    values = compare.comparison.per_query["P_10"]
    expected = (values["bm25"] - values["random"]).dropna()
    shown = pair.frame.set_index("query")["difference"]
    assert len(shown) == len(expected)
    assert shown.to_numpy() == pytest.approx(expected.reindex(shown.index).to_numpy(), abs=1e-12)
    magnitudes = np.abs(shown.to_numpy())
    assert (np.diff(magnitudes) <= 1e-12).all()                      # the largest disagreements first
    assert pair.table.item(0, 0).text() == shown.index[0]
    assert len(pair.bar_item.opts["width"]) == len(shown) and len(pair.points.data) == len(shown)
    # the diagonal opens nothing new
    pair.hide()
    _double_click_cell(qtbot, view.table, a, a)
    assert not pair.isVisible()
    # the heatmap's cells open their pair too
    scene = view.heatmap.getPlotItem().vb.mapViewToScene(QPointF(a, b))
    assert view.heatmap.cell_at(scene) == (b, a)
    with qtbot.waitSignal(view.heatmap.cell_activated):
        view.heatmap.cell_activated.emit(b, a)
    assert pair.isVisible() and (pair.row_run, pair.column_run) == ("random", "bm25")


def test_a_ranked_run_by_run_cell_opens_its_pair_and_selects_linked_queries(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    ranked.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    runs = list(view.model.frame.index)
    a, b = runs.index("bm25"), runs.index("random")
    _double_click_cell(qtbot, view.table, a, b)
    pair = view.pair_view
    assert pair is not None and pair.isVisible()
    per_query = ranked.results.copy()
    per_query = per_query[(per_query["measure"] == "P_10") & (per_query["query"] != "all")].pivot(
        index="query", columns="run", values="value")
    top = pair.frame.iloc[0]
    query = top["query"]
    assert top["difference"] == pytest.approx(per_query.loc[query, "bm25"] - per_query.loc[query, "random"])
    assert abs(top["difference"]) == pytest.approx((per_query["bm25"] - per_query["random"]).abs().max())
    # selecting two queries there selects them in the per-query table and shows the first in the drill-down
    assert_selected_in_ranked(qtbot, ranked, pair, pair.frame["query"].tolist()[:2], "P_10", ("bm25", "random"))
    # clicking a point of the scatter selects its query
    pair._pick(3, Qt.KeyboardModifier.NoModifier)
    assert pair.selected_queries() == [pair.frame["query"].iat[3]]


def test_an_exported_heatmap_has_a_title_and_square_proportions(qtbot, window, tmp_path):
    from PySide6.QtGui import QImage

    compare = _compare_synthetic(qtbot, window, test="t", correction="holm")
    view = compare.matrix
    compare.results_tabs.setCurrentWidget(view.page)
    window.resize(1366, 400)                 # a flat pane on screen: the export keeps its own proportions
    view.export_plot(str(tmp_path / "m.svg"))
    view.export_plot(str(tmp_path / "m.png"))
    svg = (tmp_path / "m.svg").read_text(encoding="utf-8")
    measure = view.measure.currentData()
    for text in (shown_name(measure), "Test: Paired t-test", "correction: Holm", "row minus column"):
        assert text in svg, text
    image = QImage(str(tmp_path / "m.png"))
    assert not image.isNull() and 0.7 <= image.width() / image.height() <= 1.4, image.size()


def test_a_ranked_heatmap_export_with_many_runs(qtbot, tmp_path):
    """50 runs: the export is titled, every label is written, and square cells keep it readable."""
    from evalgui.gui.matrix import MatrixModel, export_heatmap

    runs = [f"system_{i:02d}_with_a_long_name" for i in range(50)]
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(0, 0.05, (50, 50)), index=runs, columns=runs)
    marks = pd.DataFrame(np.where(rng.random((50, 50)) < 0.3, "*", ""), index=runs, columns=runs)
    model = MatrixModel(mask_diagonal=True, diverging=True)
    model.set_frame(frame, marks=marks)
    export_heatmap(model, str(tmp_path / "big.svg"), ["AP: mean difference", "Test: t", "row minus column"])
    svg = (tmp_path / "big.svg").read_text(encoding="utf-8")
    assert "AP: mean difference" in svg and "row minus column" in svg


@pytest.mark.parametrize("n", [30, 50])
def test_with_many_runs_every_label_and_every_mark_shows(qtbot, n):
    """In a pane too small for them, the heatmap scrolls rather than leave labels out."""
    from evalgui.gui.matrix import EveryLabelArea, HeatmapPlot, MatrixModel

    runs = [f"run_{i:02d}" for i in range(n)]
    rng = np.random.default_rng(n)
    frame = pd.DataFrame(rng.normal(0, 0.05, (n, n)), index=runs, columns=runs)
    marks = pd.DataFrame(np.where(rng.random((n, n)) < 0.3, "*", ""), index=runs, columns=runs)
    plot = HeatmapPlot(MatrixModel(mask_diagonal=True, diverging=True))
    area = EveryLabelArea(plot)
    qtbot.addWidget(area)
    plot.set_frame(frame, marks=marks)
    area.resize(600, 400)
    area.show()
    qtbot.waitExposed(area)
    qtbot.waitUntil(lambda: plot.shown_labels("top") == runs and plot.shown_labels("left") == runs)
    assert area.verticalScrollBar().maximum() > 0
    shown_marks = plot.value_labels()
    marked = int((marks.to_numpy() == "*").sum() - (np.diag(marks.to_numpy()) == "*").sum())
    assert plot.marks_only() or len(shown_marks) >= marked
    assert shown_marks.count("*") >= marked or len(shown_marks) == n * (n - 1)


def test_an_open_pair_follows_a_new_run_and_closes_when_the_results_lack_it(qtbot, window):
    from tests.gui.conftest import run_and_wait

    compare = _compare_synthetic(qtbot, window, test="t", correction="holm")
    view = compare.matrix
    compare.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    runs = list(view.model.frame.index)
    _double_click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))
    pair = view.pair_view
    shown_before = pair.frame
    assert pair.isVisible()
    # Compare has no per-query table or drill-down: the pair view promises no link to them
    assert "pick them out" in pair.caption.text() and "other views" not in pair.caption.text()

    run_and_wait(qtbot, compare)                                     # the same pair in the new results
    assert pair.isVisible() and pair.frame is not shown_before
    values = compare.comparison.per_query["P_10"]
    expected = (values["bm25"] - values["random"]).dropna()
    assert sorted(pair.frame["difference"]) == pytest.approx(sorted(expected), abs=1e-12)

    compare.form.picker.set_checked({"map": ""})
    run_and_wait(qtbot, compare)                                     # P@10 no longer compared: not shown stale
    assert "P_10" not in compare.comparison.measures and not pair.isVisible()


def test_a_ranked_pair_follows_the_results_and_says_where_its_queries_are_selected(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    ranked.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    runs = list(view.model.frame.index)
    _double_click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))
    pair = view.pair_view
    assert "select them in the per-query table and the drill-down too" in pair.caption.text()
    ranked.form.picker.set_checked({"map": ""})
    from tests.gui.conftest import run_and_wait

    run_and_wait(qtbot, ranked)                                      # P@10 no longer evaluated: not shown stale
    assert not pair.isVisible()
