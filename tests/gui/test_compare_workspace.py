"""The Compare systems workspace: form, Run on the worker, table, matrix, scatter, exports, projects, sources."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QFileDialog

from tests.gui.conftest import (SYNTHETIC, SYNTHETIC_RUNS, Heartbeat, copy_synthetic, load, load_synthetic, not_busy,
                                open_in_new_window, run_and_wait)

MEASURES = {"map": "", "P": "10"}          # picker ticks -> output names map, P_10


# ---------------------------------------------------------------------------- helpers
def _workspace(window):
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    return compare


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def _synthetic_scores(measures=("map", "P.10"), runs=SYNTHETIC_RUNS) -> pd.DataFrame:
    """What the ranked engine computes for the sample runs: tidy, with the summary rows."""
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import evaluate

    return evaluate(read_qrels(SYNTHETIC / "qrels.txt"), [read_run(SYNTHETIC / f"{r}.run") for r in runs],
                    list(measures))


def _engine(scores, options, runs=SYNTHETIC_RUNS, measures=("map", "P_10")):
    """compare() as evalgui-cli compare calls it on runs + qrels: over the qrels' queries."""
    from evalgui.core.formats import read_qrels
    from evalgui.core.stats.compare import compare

    universe = [str(q) for q in read_qrels(SYNTHETIC / "qrels.txt").query_ids]
    return compare(scores[scores["query"] != "all"], list(runs), list(measures), options, universe)


def _compare_synthetic(qtbot, window, test="t", correction="holm", **form):
    """Load the demo's sample files, pick the runs and measures, choose the test, press Run and wait."""
    load_synthetic(qtbot, window)
    compare = _workspace(window)
    compare.form.picker.set_checked(MEASURES)
    _choose(compare.form.test_combo, test)
    _choose(compare.form.correction_combo, correction)
    for name, value in form.items():
        getattr(compare.form, name).setValue(value)
    run_and_wait(qtbot, compare)
    assert compare.comparison is not None, compare.progress_label.text()
    return compare


def _save_as(monkeypatch, path, chosen_filter=""):
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(path), chosen_filter)))


def _click(qtbot, button):
    """Click a radio button on its label (a click past the label's end would miss it)."""
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(10, button.height() // 2))


def _frame_equal(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True),
                                  check_dtype=False, check_exact=False, rtol=0, atol=1e-12)


def write_scores(path, n_runs=30, n_queries=500, measures=("AP", "nDCG@10"), seed=3, gaps=None):
    """A per-query scores CSV (run, query, measure, value) of runs of steadily rising quality; ``gaps``:
    {run index: queries it lacks}."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        for m in measures:
            values = np.clip(rng.normal(0.3 + 0.01 * r, 0.15, n_queries), 0, 1)
            lacking = set((gaps or {}).get(r, ()))
            rows += [(f"run{r:02d}", f"q{q:03d}", m, v) for q, v in enumerate(values) if f"q{q:03d}" not in lacking]
    pd.DataFrame(rows, columns=["run", "query", "measure", "value"]).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def big_scores(tmp_path_factory):
    """30 runs x 500 queries x 2 measures: the size the issue's responsiveness target names."""
    return write_scores(tmp_path_factory.mktemp("scores") / "big_scores.csv")


def _use_scores(qtbot, window, path):
    load(qtbot, window, [path])
    compare = _workspace(window)
    _choose(compare.form.source_combo, "scores")
    _choose(compare.form.scores_combo, str(path))
    return compare


# ---------------------------------------------------------------------------- the form
def test_the_tab_and_its_tooltips_come_from_the_registries(qtbot, window):
    from evalgui.core.stats.catalogue import CORRECTIONS, DEFAULT_SAMPLES, TESTS

    compare = _workspace(window)
    assert window.tabs.tabText(window.tabs.indexOf(compare)) == "Compare systems"
    form = compare.form
    for combo, registry in ((form.test_combo, TESTS), (form.correction_combo, CORRECTIONS)):
        assert [combo.itemData(i) for i in range(combo.count())] == list(registry)
        for i in range(combo.count()):
            assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == registry[combo.itemData(i)].help_text
    assert not window.isWindowModified()
    _choose(form.correction_combo, "bh")
    assert form.correction_combo.toolTip() == CORRECTIONS["bh"].help_text
    assert window.isWindowModified()                        # a changed setting is something to save
    _choose(form.test_combo, "wilcoxon")
    assert form.test_combo.toolTip() == TESTS["wilcoxon"].help_text
    assert not form.samples_spin.isEnabled() and not form.seed_spin.isEnabled()
    for test, default in DEFAULT_SAMPLES.items():
        _choose(form.test_combo, test)
        assert form.samples_spin.isEnabled() and form.samples_spin.value() == default
        assert f"{default:,}" in form.samples_spin.toolTip()
    # B is remembered per test; Tukey's HSD takes no correction
    _choose(form.test_combo, "randomization")
    form.samples_spin.setValue(2000)
    _choose(form.test_combo, "bootstrap")
    assert form.samples_spin.value() == 1000
    _choose(form.test_combo, "randomization")
    assert form.samples_spin.value() == 2000 and form.options().resamples == 2000
    _choose(form.test_combo, "tukey")
    assert not form.correction_combo.isEnabled() and "Tukey" in form.correction_combo.toolTip()
    for widget in (form.alpha_spin, form.seed_spin, form.fill_check, form.tie_spin, form.all_pairs_radio,
                   form.baselines_radio, form.baseline_list, form.source_combo):
        assert widget.toolTip() or widget.itemData(0, Qt.ItemDataRole.ToolTipRole)
    # baselines are chosen among the runs compared, only in "against baselines" mode
    assert not form.baseline_list.isEnabled()
    _click(qtbot, form.baselines_radio)
    assert form.baseline_list.isEnabled()


def test_the_ranked_form_keeps_its_pickers(qtbot, window):
    """The qrels and run pickers are shared with the ranked form: it still reads and remembers them."""
    load_synthetic(qtbot, window)
    ranked, compare = window.workspaces["ranked"], window.workspaces["compare"]
    paths = ranked.form.checked_run_paths()
    assert [p.rsplit("/", 1)[-1] for p in paths] == [f"{r}.run" for r in SYNTHETIC_RUNS]
    ranked.form.run_list.item(1).setCheckState(Qt.CheckState.Unchecked)
    assert len(ranked.form.checked_run_paths()) == 3
    assert len(compare.form.data.checked_run_paths()) == 4          # each form has its own ticks
    ranked.refresh_inputs()
    assert len(ranked.form.checked_run_paths()) == 3                # ...and keeps them
    assert ranked.form_state()["runs"] == {paths[1]: False}


# ---------------------------------------------------------------------------- runs + qrels
def test_t_test_on_runs_and_qrels_equals_the_engine_and_scipy(qtbot, window):
    from scipy import stats

    from evalgui.core.stats.compare import CompareOptions

    compare = _compare_synthetic(qtbot, window, test="t", correction="holm")
    table = compare.comparison.table
    expected = _engine(_synthetic_scores(), CompareOptions(test="t", correction="holm"))
    _frame_equal(table, expected.table)
    _frame_equal(compare.table.model.frame, expected.table)      # the view shows exactly that
    scores = _synthetic_scores()
    wide = scores[(scores["measure"] == "map") & (scores["query"] != "all")].pivot(
        index="query", columns="run", values="value")
    row = table[(table["measure"] == "map") & (table["run_a"] == "bm25") & (table["run_b"] == "dense")].iloc[0]
    assert row["p_value"] == pytest.approx(stats.ttest_rel(wide["bm25"], wide["dense"]).pvalue, rel=1e-12)
    assert row["n_queries"] == 50 and row["test"] == "t" and row["correction"] == "holm"
    # the query-set report above the table: describe() of each measure, and the provenance
    report = compare.table.report.text()
    for query_set in compare.comparison.query_sets.values():
        assert query_set.describe()[len(query_set.measure):] in report
    assert "Test: Paired t-test" in report and "correction: Holm" in report
    assert "Compared 4 runs on 2 measure(s)" in compare.progress_label.text()
    assert compare.progress.value() == compare.progress.maximum()


def test_bootstrap_with_bonferroni_and_a_seed(qtbot, window):
    from evalgui.core.stats.compare import CompareOptions

    compare = _compare_synthetic(qtbot, window, test="bootstrap", correction="bonferroni", samples_spin=500,
                                 seed_spin=7, alpha_spin=0.01)
    options = CompareOptions(test="bootstrap", correction="bonferroni", samples=500, seed=7, alpha=0.01)
    expected = _engine(_synthetic_scores(), options)
    _frame_equal(compare.comparison.table, expected.table)
    assert compare.comparison.difference_required == pytest.approx(expected.difference_required)
    assert set(compare.comparison.table["samples"]) == {500} and set(compare.comparison.table["seed"]) == {7}
    assert "Difference needed for significance" in compare.table.report.text()


def test_several_baselines(qtbot, window):
    from evalgui.core.stats.compare import pairs_of

    load_synthetic(qtbot, window)
    compare = _workspace(window)
    form = compare.form
    form.picker.set_checked(MEASURES)
    _click(qtbot, form.baselines_radio)
    # chosen with none ticked, the first run is the baseline: Run has what it needs
    assert form.baseline_list.keys() == list(SYNTHETIC_RUNS) and form.baseline_list.checked() == ["bm25"]
    form.baseline_list.set_checked("random", True)
    form.baseline_list.set_checked("bm25", True)
    run_and_wait(qtbot, compare)
    table = compare.comparison.table
    pairs = [(SYNTHETIC_RUNS[a], SYNTHETIC_RUNS[b]) for a, b in pairs_of(list(SYNTHETIC_RUNS), ("bm25", "random"))]
    assert list(zip(table["run_a"], table["run_b"]))[:len(pairs)] == pairs
    # dense and rerank were not compared with each other: their cells stay blank
    compare.results_tabs.setCurrentWidget(compare.matrix.page)
    model = compare.matrix.model
    runs = list(model.frame.index)
    assert model.display_text(runs.index("dense"), runs.index("rerank")) == ""
    assert model.display_text(runs.index("dense"), runs.index("bm25")) != ""


# ---------------------------------------------------------------------------- matrix
def test_matrix_cells_marks_tooltips_and_hover(qtbot, window):
    compare = _compare_synthetic(qtbot, window, test="t", correction="holm")
    view = compare.matrix
    compare.results_tabs.setCurrentWidget(view.page)
    assert [view.measure.itemData(i) for i in range(view.measure.count())] == ["map", "P_10"]
    _choose(view.measure, "P_10")
    table = compare.comparison.table
    row = table[(table["measure"] == "P_10") & (table["run_a"] == "bm25") & (table["run_b"] == "rerank")].iloc[0]
    runs = list(view.model.frame.index)
    a, b = runs.index("bm25"), runs.index("rerank")
    assert view.model.value(a, b) == pytest.approx(row["diff"], abs=1e-12)
    assert view.model.value(b, a) == pytest.approx(-row["diff"], abs=1e-12)
    assert view.model.display_text(a, b).endswith("*") == bool(row["significant"])
    assert view.model.value(a, a) is None                                   # the diagonal is masked
    lo, hi = view.model.levels
    assert view.model.diverging and lo == -hi
    marked = [view.model.display_text(r, c).endswith("*") for r in range(4) for c in range(4) if r != c]
    assert any(marked) and not all(marked)         # on P@10 some pairs are significant, some are not
    tip = view.model.tooltip(a, b)
    for text in (f"{row['mean_a']:.4f}", f"{row['mean_b']:.4f}", f"{row['diff']:+.4f}", f"{row['ci_low']:+.4f}",
                 f"{row['ci_high']:+.4f}", f"{row['wins']} / {row['ties']} / {row['losses']}", "adjusted p"):
        assert text in tip, (text, tip)
    # the same details from the heatmap, under the mouse pointer
    scene = view.heatmap.getPlotItem().vb.mapViewToScene(QPointF(b, a))
    view.heatmap.scene().sigMouseMoved.emit(scene)
    assert view.heatmap.toolTip() == tip
    # the cells show their values when there is room for them (else their marks)
    window.resize(1360, 860)
    qtbot.waitUntil(lambda: not view.heatmap.marks_only() and bool(view.heatmap.value_labels()))
    assert f"{row['diff']:.3f}"[:5] in " ".join(view.heatmap.value_labels())
    # adjusted p-values, then wins / ties / losses
    _choose(view.value, "p_adjusted")
    assert view.model.value(a, b) == pytest.approx(row["p_adjusted"]) and not view.model.diverging
    _choose(view.value, "wtl")
    assert view.model.display_text(a, b).startswith(f"{row['wins']}/{row['ties']}/{row['losses']}")
    assert view.model.display_text(b, a).startswith(f"{row['losses']}/{row['ties']}/{row['wins']}")
    assert view.model.value(a, b) == row["wins"] - row["losses"]
    assert view.heatmap.value_labels()                                       # written in the cells too


# ---------------------------------------------------------------------------- scatter
def test_scatter_points_diagonal_and_colours(qtbot, window):
    from evalgui.gui.workspaces.compare.scatter import A_HIGHER, B_HIGHER, COLOURS, TIED

    compare = _compare_synthetic(qtbot, window)
    view = compare.scatter
    compare.results_tabs.setCurrentWidget(view.page)
    _choose(view.measure, "P_10")
    _choose(view.run_a, "bm25")
    _choose(view.run_b, "dense")
    table = compare.comparison.table
    row = table[(table["measure"] == "P_10") & (table["run_a"] == "bm25") & (table["run_b"] == "dense")].iloc[0]
    counts = {key: len(points.data) for key, points in view.points.items()}
    assert sum(counts.values()) == row["n_queries"] == 50
    assert (counts[A_HIGHER], counts[TIED], counts[B_HIGHER]) == (row["wins"], row["ties"], row["losses"])
    assert counts[TIED] > 0                        # P@10 has ties: three colours
    per_query = compare.comparison.per_query["P_10"]
    for key, points in view.points.items():
        for spot in points.points():
            assert spot.brush().color().name() == COLOURS[key].lower()
            x, y = per_query.loc[spot.data(), "bm25"], per_query.loc[spot.data(), "dense"]
            assert (spot.pos().x(), spot.pos().y()) == (pytest.approx(x), pytest.approx(y))
            assert (key == A_HIGHER) == (x > y) and (key == B_HIGHER) == (y > x)
    xs, ys = view.diagonal.getData()
    assert list(xs) == list(ys) and len(xs) == 2                               # y = x
    assert "bm25 higher on" in view.plot.getPlotItem().titleLabel.text


# ---------------------------------------------------------------------------- exports
def test_exports_table_csv_with_provenance_paper_tables_and_plots(qtbot, window, tmp_path, monkeypatch):
    from evalgui.core.stats.compare import paper_table

    compare = _compare_synthetic(qtbot, window, test="randomization", samples_spin=2000)
    targets = dict(window.workspaces["compare"].export_targets())
    assert {"Comparison table…", "Paper table (LaTeX)…", "Paper table (Markdown)…", "Comparison heatmap…",
            "Comparison matrix table…", "Per-query scatter…"} <= set(targets)

    _save_as(monkeypatch, tmp_path / "comparison.csv")
    targets["Comparison table…"]()
    back = pd.read_csv(tmp_path / "comparison.csv")
    # the window's headers and words (evalgui-cli and the Python API keep the machine names)
    assert {"Test", "Resamples (B)", "Seed", "Correction", "α", "Query set"} <= set(back.columns)
    assert set(back["Test"]) == {"Randomization (permutation)"} and set(back["Resamples (B)"]) == {2000}
    assert set(back["Seed"]) == {42}
    expected = compare.comparison.table
    assert np.allclose(back["p"], expected["p_value"]) and np.allclose(back["Difference"], expected["diff"])

    _save_as(monkeypatch, tmp_path / "paper", "LaTeX (*.tex)")       # the extension comes from the format
    targets["Paper table (LaTeX)…"]()
    assert (tmp_path / "paper.tex").read_text() == paper_table(compare.comparison, "latex", naming="paper")
    assert "\\begin{tabular}" in (tmp_path / "paper.tex").read_text()
    _save_as(monkeypatch, tmp_path / "paper.md")
    targets["Paper table (Markdown)…"]()
    assert (tmp_path / "paper.md").read_text() == paper_table(compare.comparison, "markdown", naming="paper")

    for label, name in (("Comparison heatmap…", "heatmap"), ("Per-query scatter…", "scatter")):
        for ext in (".png", ".svg"):
            _save_as(monkeypatch, tmp_path / f"{name}{ext}")
            targets[label]()
            assert (tmp_path / f"{name}{ext}").stat().st_size > 1000
    _save_as(monkeypatch, tmp_path / "matrix.md")
    targets["Comparison matrix table…"]()
    assert "bm25" in (tmp_path / "matrix.md").read_text()


# ---------------------------------------------------------------------------- bad input
def test_bad_input_gives_a_dialog_and_keeps_the_previous_results(qtbot, window, tmp_path):
    compare = _compare_synthetic(qtbot, window)
    before = compare.comparison.table.copy()
    form = compare.form

    def refused(reason):
        with qtbot.waitSignal(window.error_shown, timeout=10_000) as blocker:
            qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
        assert reason in blocker.args[1], blocker.args
        qtbot.waitUntil(lambda: not compare.is_busy())
        pd.testing.assert_frame_equal(compare.comparison.table, before)
        window.last_error_dialog.close()

    # fewer than two runs
    for i in range(1, 4):
        form.data.run_list.item(i).setCheckState(Qt.CheckState.Unchecked)
    refused("at least two runs")
    for i in range(1, 4):
        form.data.run_list.item(i).setCheckState(Qt.CheckState.Checked)
    # no measure
    form.picker.set_checked({})
    refused("at least one measure")
    form.picker.set_checked(MEASURES)
    # a baseline that is no longer among the runs compared
    _click(qtbot, form.baselines_radio)
    form.baseline_list.set_checked(form.baseline_list.checked()[0], False)     # the one ticked for a start
    form.baseline_list.set_checked("dense", True)
    form.data.run_list.item(1).setCheckState(Qt.CheckState.Unchecked)
    assert "dense" not in form.baseline_list.keys()
    refused("The baseline dense is not among the runs compared")
    _click(qtbot, form.all_pairs_radio)
    # no query every run has (a scores table whose two runs share none), on the worker
    path = tmp_path / "disjoint.csv"
    pd.DataFrame({"run": ["a", "a", "b", "b"], "query": ["q1", "q2", "q3", "q4"], "measure": "AP",
                  "value": [0.1, 0.2, 0.3, 0.4]}).to_csv(path, index=False)
    _use_scores(qtbot, window, path)
    refused("no query is shared by every run")
    assert "Failed" in compare.progress_label.text() and compare.progress.value() == 0
    # ... which -c compares
    form.fill_check.setChecked(True)
    run_and_wait(qtbot, compare)
    assert compare.comparison.runs == ["a", "b"] and set(compare.comparison.table["n_queries"]) == {4}


# ---------------------------------------------------------------------------- cancel
def test_cancel_a_long_randomization_keeps_the_previous_results(qtbot, window, big_scores):
    compare = _use_scores(qtbot, window, big_scores)
    run_and_wait(qtbot, compare)                                   # a quick t-test first
    before = compare.comparison.table.copy()
    _choose(compare.form.test_combo, "randomization")
    compare.form.samples_spin.setValue(20_000)
    with qtbot.waitSignal(compare.busy_changed, timeout=5000):
        qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "pair" in compare.progress_label.text(), timeout=20_000)   # testing has begun
    assert compare.cancel_button.isEnabled() and not compare.run_button.isEnabled()
    with qtbot.waitSignal(compare.busy_changed, check_params_cb=not_busy, timeout=20_000):
        start = time.perf_counter()
        qtbot.mouseClick(compare.cancel_button, Qt.MouseButton.LeftButton)
    print(f"cancel latency: {1000 * (time.perf_counter() - start):.0f} ms")
    pd.testing.assert_frame_equal(compare.comparison.table, before)
    assert set(compare.table.model.frame["test"]) == {"t"}
    assert compare.progress.value() == 0
    assert "Cancelled" in compare.progress_label.text() and "previous results" in compare.progress_label.text()
    assert compare.run_button.isEnabled() and not compare.cancel_button.isEnabled()


# ---------------------------------------------------------------------------- projects
def test_project_round_trip_restores_the_form_and_the_views(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    load(qtbot, first, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    compare = _workspace(first)
    form = compare.form
    form.picker.set_checked(MEASURES)
    form.data.run_list.item(3).setCheckState(Qt.CheckState.Unchecked)       # random.run left out
    _choose(form.test_combo, "bootstrap")
    form.samples_spin.setValue(400)
    form.seed_spin.setValue(9)
    _choose(form.correction_combo, "bh")
    form.alpha_spin.setValue(0.1)
    form.tie_spin.setValue(0.01)
    form.fill_check.setChecked(True)
    _click(qtbot, form.baselines_radio)
    form.baseline_list.set_checked("bm25", True)
    run_and_wait(qtbot, compare)
    assert first.isWindowModified() and compare.has_results()
    compare.matrix.measure.setCurrentIndex(1)
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))

    second = open_in_new_window(qtbot, make_window, project)
    restored = second.workspaces["compare"]
    assert second.tabs.currentWidget() is restored            # the tab with results is shown
    assert not second.isWindowModified()
    assert restored.form_state() == compare.form_state()
    assert restored.form.data.checked_run_paths() == [str(data / f"{r}.run") for r in ("bm25", "dense", "rerank")]
    assert restored.form.samples_spin.value() == 400 and restored.form.baseline_list.checked() == ["bm25"]
    pd.testing.assert_frame_equal(restored.comparison.table, compare.comparison.table, check_dtype=False)
    assert restored.table.report.text() == compare.table.report.text()
    assert restored.comparison.options == compare.comparison.options
    for measure in compare.comparison.measures:
        pd.testing.assert_frame_equal(restored.comparison.per_query[measure], compare.comparison.per_query[measure])
    second.tabs.setCurrentWidget(restored)
    restored.results_tabs.setCurrentWidget(restored.scatter.page)          # views catch up when shown
    assert sum(len(p.data) for p in restored.scatter.points.values()) == 50
    restored.results_tabs.setCurrentWidget(restored.matrix.page)
    assert restored.matrix.model.frame.shape == (3, 3)
    from evalgui.core.stats.compare import paper_table

    assert paper_table(restored.comparison, "latex") == paper_table(compare.comparison, "latex")
    assert "restored" in restored.progress_label.text()


# ---------------------------------------------------------------------------- other sources
def test_a_per_query_scores_file_as_the_source(qtbot, window, tmp_path):
    from evalgui.core.stats.compare import CompareOptions, compare as engine_compare

    scores = _synthetic_scores(measures=("map", "P.10", "num_q"))
    path = tmp_path / "per_query.csv"
    scores.to_csv(path, index=False)                      # what evalgui-cli evaluate --per-query writes
    compare = _use_scores(qtbot, window, path)
    form = compare.form
    assert form.scores_runs.keys() == list(SYNTHETIC_RUNS)
    assert form.scores_measures.keys() == ["map", "P_10"]     # num_q has no per-query values
    form.scores_runs.set_checked("random", False)
    _choose(form.test_combo, "wilcoxon")
    run_and_wait(qtbot, compare)
    table = pd.read_csv(path)
    compared = table[(table["query"] != "all") & (table["run"] != "random")]
    expected = engine_compare(compared, ["bm25", "dense", "rerank"], ["map", "P_10"], CompareOptions(test="wilcoxon"))
    _frame_equal(compare.comparison.table, expected.table)
    assert form.baseline_list.keys() == ["bm25", "dense", "rerank"]


def test_the_query_set_report_names_the_dropped_queries(qtbot, window, tmp_path):
    path = write_scores(tmp_path / "gaps.csv", n_runs=3, n_queries=20, measures=("AP",),
                        gaps={1: ["q003", "q007"], 2: ["q007"]})
    compare = _use_scores(qtbot, window, path)
    run_and_wait(qtbot, compare)
    query_set = compare.comparison.query_sets["AP"]
    assert query_set.dropped == 2 and set(compare.comparison.table["n_queries"]) == {18}
    assert compare.table.report.text().splitlines()[1] == query_set.describe()
    assert "run01 lacks 2" in compare.table.report.text() and "lack queries" in compare.progress_label.text()
    compare.form.fill_check.setChecked(True)
    run_and_wait(qtbot, compare)
    assert set(compare.comparison.table["n_queries"]) == {20} and "score 0" in compare.table.report.text()


def test_the_ranked_tabs_results_as_the_source(qtbot, window):
    from evalgui.core.stats.compare import CompareOptions, compare as engine_compare

    load_synthetic(qtbot, window)
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": "", "ndcg_cut": "10"})
    run_and_wait(qtbot, ranked)
    compare = _workspace(window)             # coming into sight, it sees the ranked tab's new results
    _choose(compare.form.source_combo, "ranked")
    assert compare.form.ranked_runs.keys() == list(SYNTHETIC_RUNS)
    assert compare.form.ranked_measures.keys() == ["map", "ndcg_cut_10"]
    assert "4 run(s)" in compare.form.ranked_note.text()
    _choose(compare.form.test_combo, "sign")
    run_and_wait(qtbot, compare)
    results = ranked.results
    expected = engine_compare(results[results["query"] != "all"], list(SYNTHETIC_RUNS), ["map", "ndcg_cut_10"],
                              CompareOptions(test="sign"))
    _frame_equal(compare.comparison.table, expected.table)


def test_the_ranked_source_without_results_says_so(qtbot, window):
    compare = _workspace(window)
    _choose(compare.form.source_combo, "ranked")
    with qtbot.waitSignal(window.error_shown, timeout=5000) as blocker:
        qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
    assert "Ranked retrieval tab has no results" in blocker.args[1]
    assert compare.comparison is None


# ---------------------------------------------------------------------------- responsiveness
def test_heartbeat_keeps_firing_while_30_runs_are_compared(qtbot, window, big_scores):
    compare = _use_scores(qtbot, window, big_scores)
    _choose(compare.form.test_combo, "randomization")        # B = 10,000 over 435 pairs x 500 queries
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        with qtbot.waitSignal(compare.busy_changed, check_params_cb=not_busy, timeout=120_000):
            start = time.perf_counter()
            compare.run()
        end = time.perf_counter()
    assert compare.comparison is not None and len(compare.comparison.table) == 2 * 435   # it ran to the end
    assert end - start > 0.2                                   # long enough to mean something
    print(heartbeat.check(start, end))
    compare.results_tabs.setCurrentWidget(compare.matrix.page)           # the matrix catches up when shown
    assert compare.matrix.model.frame.shape == (30, 30)
