"""Issue 25, point 1: a cell of Compare's preference matrix opens its pair, query by query, from the
preference workflow's per-query table (not recomputed), with the pair view's linked selection; results
without that table say why a cell opens nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from evalgui.gui.pair_view import PICKED
from tests.core.test_preference import reference
from tests.gui.conftest import SYNTHETIC
from tests.gui.test_compare_preferences import _prefer
from tests.gui.test_pair_view import _double_click_cell


def _read_columns(path, doc: int, value: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields:
            out.setdefault(fields[0], {})[fields[doc]] = float(fields[value])
    return out


def _by_hand(measure: str, row: str, column: str) -> dict[str, float]:
    """The per-query preference of run ``row`` over run ``column``, straight from the definitions
    (tests/core/test_preference.py's plain-Python reference) on the sample files."""
    qrels = {q: {d: int(g) for d, g in judged.items()} for q, judged in
             _read_columns(SYNTHETIC / "qrels.txt", 2, 3).items()}
    x, y = (_read_columns(SYNTHETIC / f"{run}.run", 2, 4) for run in (row, column))
    return {q: values[measure] for q, values in reference(qrels, x, y, None).items()}


def _preferences_tab(compare, measure="rpp"):
    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData(measure))
    return view, list(view.model.frame.index)


def test_a_preference_cell_opens_its_pair_with_the_per_query_preferences(qtbot, window):
    compare = _prefer(qtbot, window)
    view, runs = _preferences_tab(compare)
    a, b = runs.index("bm25"), runs.index("random")
    _double_click_cell(qtbot, view.table, a, b)
    pair = view.pair_view
    assert pair is not None and pair.isVisible() and pair.preferences
    assert (pair.row_run, pair.column_run, pair.measure) == ("bm25", "random", "rpp")
    expected = _by_hand("rpp", "bm25", "random")
    shown = pair.frame.set_index("query")["difference"]
    assert sorted(shown.index) == sorted(expected)
    assert shown.to_numpy() == pytest.approx([expected[q] for q in shown.index], abs=1e-12)
    assert (np.diff(np.abs(shown.to_numpy())) <= 1e-12).all()           # the strongest preferences first
    # their mean is the cell
    assert shown.mean() == pytest.approx(view.model.frame.loc["bm25", "random"], abs=1e-12)
    # one value per query and no scores: bars and a table, no scatter
    assert not pair.scatter.isVisible() and len(pair.bar_item.opts["width"]) == len(shown)
    headers = [pair.table.horizontalHeaderItem(c).text() for c in range(pair.table.columnCount())]
    assert headers == ["Query", "Preference", "Preferred"]
    top = shown.iloc[0]
    assert pair.table.item(0, 0).text() == shown.index[0] and pair.table.item(0, 1).text() == f"{top:+.4f}"
    assert pair.table.item(0, 2).text() == ("bm25" if top > 0 else "random" if top < 0 else "neither")
    assert pair.windowTitle() == "bm25 over random · RPP"          # the measure as papers name it

    # the other cell of the pair: the same queries, the preferences negated
    pair.hide()
    _double_click_cell(qtbot, view.table, b, a)
    assert pair.isVisible() and (pair.row_run, pair.column_run) == ("random", "bm25")
    back = pair.frame.set_index("query")["difference"]
    assert back.reindex(shown.index).to_numpy() == pytest.approx(-shown.to_numpy(), abs=1e-15)

    # another measure, from the heatmap: a real double click on the cell (row dense, column bm25)
    view.measure.setCurrentIndex(view.measure.findData("lexiprecision"))
    runs = list(view.model.frame.index)
    row, column = runs.index("dense"), runs.index("bm25")
    scene = view.heatmap.getPlotItem().vb.mapViewToScene(QPointF(column, row))
    assert view.heatmap.cell_at(scene) == (row, column)
    where = view.heatmap.mapFromScene(scene)
    with qtbot.waitSignal(view.heatmap.cell_activated) as opened:
        # as a real double click arrives: press, release, double click, release (QTest sends no last release)
        qtbot.mouseClick(view.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=where)
        qtbot.mouseDClick(view.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=where)
        qtbot.mouseRelease(view.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args == [row, column]
    expected = _by_hand("lexiprecision", "dense", "bm25")
    shown = pair.frame.set_index("query")["difference"]
    assert (pair.row_run, pair.column_run, pair.measure) == ("dense", "bm25", "lexiprecision")
    assert shown.to_dict() == pytest.approx(expected, abs=0)


def test_queries_selected_in_the_pair_are_picked_out_in_its_bars_and_told(qtbot, window):
    compare = _prefer(qtbot, window)
    view, runs = _preferences_tab(compare)
    _double_click_cell(qtbot, view.table, runs.index("rerank"), runs.index("dense"))
    pair = view.pair_view
    picked = pair.frame["query"].tolist()[:2]
    with qtbot.waitSignal(pair.queries_selected) as told:
        pair.select_queries(picked)
    assert sorted(told.args[0]) == sorted(picked) and sorted(pair.selected_queries()) == sorted(picked)
    brushes = pair.bar_item.opts["brushes"]
    assert [brushes[i].color().name() for i in range(3)] == [PICKED, PICKED, brushes[2].color().name()]
    assert brushes[2].color().name() != PICKED
    # a bar's click picks its query alone (as the pair view of Compare's matrix does)
    with qtbot.waitSignal(pair.queries_selected) as told:
        pair._pick(2, Qt.KeyboardModifier.NoModifier)
    assert told.args[0] == [pair.frame["query"].iat[2]]


def test_results_saved_without_per_query_preferences_say_why_a_cell_opens_nothing(qtbot, window):
    from evalgui.core.workflows.compare import PreferenceRequest
    from evalgui.core.workflows.outcome import Outcome

    compare = _prefer(qtbot, window)
    saved = compare.results_state()
    del saved["preference"]["tables"]["pair_queries"]         # as an older evalgui saved them
    assert compare.restore_results_state(json.loads(json.dumps(saved)))
    assert isinstance(compare.preference_outcome, Outcome)
    assert isinstance(compare.preference_outcome.request, PreferenceRequest)
    view, runs = _preferences_tab(compare)
    assert not view.pair_note.isVisible()
    _double_click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))
    assert view.pair_view is None or not view.pair_view.isVisible()
    assert view.pair_note.isVisible()
    assert "older version" in view.pair_note.text() and "Press Run" in view.pair_note.text()
    # a new Run brings them back, and the note goes
    from tests.gui.conftest import run_and_wait

    run_and_wait(qtbot, compare)
    view, runs = _preferences_tab(compare)
    assert not view.pair_note.isVisible()
    _double_click_cell(qtbot, view.table, runs.index("bm25"), runs.index("random"))
    assert view.pair_view.isVisible() and not view.pair_note.isVisible()


def test_a_version_1_project_opens_and_its_preference_cells_say_why_they_open_nothing(qtbot, make_window, tmp_path):
    import shutil

    from tests.conftest import ROOT
    from tests.gui.test_projects import _wait_restored

    shutil.copytree(ROOT / "tests" / "data" / "projects" / "v1", tmp_path / "v1")
    window = make_window()
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(tmp_path / "v1" / "meic-v1.evalgui"))
    _wait_restored(qtbot, window)
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    assert compare.preferences is not None
    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    assert view.model.rowCount() >= 2
    _double_click_cell(qtbot, view.table, 0, 1)
    assert view.pair_view is None or not view.pair_view.isVisible()
    assert view.pair_note.isVisible() and "older version" in view.pair_note.text()
