"""The Compare systems workspace's preferences: the form's picks, the job on the worker, the Preferences tab
(heatmap, ranking, pairs), exports, bad input, projects and responsiveness with 30 runs."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPointF, Qt

from evalgui.core.ranked import preference as P
from tests.gui.conftest import (SYNTHETIC, SYNTHETIC_RUNS, Heartbeat, copy_synthetic, load, load_synthetic, not_busy,
                                run_and_wait)
from tests.gui.test_compare_workspace import _choose, _click, _save_as, _workspace

TICKED = ("rpp", "lexiprecision")


def _engine(measures=TICKED, runs=SYNTHETIC_RUNS, folder=SYNTHETIC, binary_threshold=None, **options):
    """What the workspace should show: the engine on the same files, tested the same way."""
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.stats.compare import CompareOptions, compare_preferences

    result = P.compare(read_qrels(folder / "qrels.txt"), [read_run(folder / f"{r}.run") for r in runs],
                       list(measures), binary_threshold=binary_threshold)
    return compare_preferences(result, CompareOptions(**options))


def _prefer(qtbot, window, measures=TICKED, test="t", with_measures=True, **form):
    """Load the sample runs, tick the preferences (and P@10 unless not ``with_measures``), Run, wait."""
    load_synthetic(qtbot, window)
    compare = _workspace(window)
    f = compare.form
    f.picker.set_checked({"P": "10"} if with_measures else {})
    for name in measures:
        f.preference_list.set_checked(name, True)
    _choose(f.test_combo, test)
    for name, value in form.items():
        getattr(f, name).setValue(value)
    run_and_wait(qtbot, compare)
    assert compare.preferences is not None, compare.progress_label.text()
    return compare


def _frames_equal(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False,
                                  check_exact=False, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- the form
def test_before_any_preference_the_tab_says_what_to_do(qtbot, window):
    compare = _workspace(window)
    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    # not a blank matrix under a 0–1 colour bar: what to tick, and Run
    assert view.hint.isVisible() and "RPP" in view.hint.text() and "press Run" in view.hint.text()
    assert not view.heatmap.colour_bar.isVisible()
    _prefer(qtbot, window, test="bootstrap", samples_spin=100)
    assert not view.hint.isVisible() and view.heatmap.colour_bar.isVisible()


def test_the_form_offers_every_preference_with_its_description(qtbot, window):
    compare = _workspace(window)
    f = compare.form
    assert f.preference_list.keys() == list(P.REGISTRY) and f.preference_list.checked() == []
    for i in range(f.preference_list.count()):
        item = f.preference_list.item(i)
        record = P.REGISTRY[item.data(Qt.ItemDataRole.UserRole)]
        # as papers name it (RPP, DCGPP, Lexiprecision), the registered name (what files and projects keep) below
        assert item.text() == record.paper_name
        assert item.toolTip() == f"{record.help_text}\n\nName in evalgui-cli's files and in projects: {record.name}"
    assert "binary" in f.binary_check.toolTip().lower() or "grade" in f.binary_check.toolTip()
    assert not f.binary_spin.isEnabled() and f.binary_threshold() is None
    f.binary_check.setChecked(True)
    f.binary_spin.setValue(2)
    assert f.binary_threshold() == 2
    assert window.isWindowModified()
    window.setWindowModified(False)
    f.preference_list.item(0).setCheckState(Qt.CheckState.Checked)            # as a click does
    assert window.isWindowModified() and f.preference_measures() == ["rpp"]


# ---------------------------------------------------------------------------- the results
def test_preferences_equal_the_engine_in_every_view(qtbot, window):
    compare = _prefer(qtbot, window, test="randomization", samples_spin=2000, seed_spin=5)
    expected = _engine(test="randomization", samples=2000, seed=5)
    shown = compare.preferences
    _frames_equal(shown.table, expected.table)
    _frames_equal(shown.ranking, expected.ranking)
    assert shown.runs == list(SYNTHETIC_RUNS) and compare.comparison is not None      # P@10 was compared too
    assert "Preferences (RPP, Lexiprecision) between 4 runs" in compare.progress_label.text()

    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    assert [view.measure.itemData(i) for i in range(view.measure.count())] == list(TICKED)
    _choose(view.measure, "lexiprecision")
    matrix = expected.matrices["lexiprecision"]
    runs = list(view.model.frame.index)
    assert runs == list(SYNTHETIC_RUNS)
    for r, a in enumerate(runs):
        for c, b in enumerate(runs):
            if a != b:
                assert view.model.value(r, c) == pytest.approx(matrix.loc[a, b], abs=1e-12)
    table = expected.table
    row = table[(table["measure"] == "lexiprecision") & (table["run_a"] == "bm25") & (table["run_b"] == "dense")]
    row = row.iloc[0]
    a, b = runs.index("bm25"), runs.index("dense")
    assert view.model.display_text(a, b).endswith("*") == bool(row["significant"])
    assert view.model.value(b, a) == pytest.approx(-row["preference"])
    tip = view.model.tooltip(a, b)
    for text in (f"{row['preference']:+.4f}", f"{row['ci_low']:+.4f}", "adjusted p",
                 f"{row['wins']} / {row['ties']} / {row['losses']}", "bm25 over dense"):
        assert text in tip, (text, tip)
    reverse = view.model.tooltip(b, a)
    assert f"{-row['preference']:+.4f}" in reverse and f"{row['losses']} / {row['ties']} / {row['wins']}" in reverse
    # hovering the heatmap's cell shows the same
    scene = view.heatmap.getPlotItem().vb.mapViewToScene(QPointF(b, a))
    view.heatmap.scene().sigMouseMoved.emit(scene)
    assert view.heatmap.toolTip() == tip
    # the ranking and the tested pairs of the measure shown, below
    ranking = expected.ranking[expected.ranking["measure"] == "lexiprecision"]
    assert view.ranking_model.frame["run"].tolist() == ranking["run"].tolist()
    assert view.ranking_model.frame["mean_preference"].tolist() == pytest.approx(ranking["mean_preference"].tolist())
    assert "significant_wins" in view.ranking_model.frame.columns and "test" not in view.ranking_model.frame.columns
    assert view.pairs_model.frame.empty                # filled when its tab is shown
    view.lower.setCurrentWidget(view.pairs_view)
    assert len(view.pairs_model.frame) == 6 and set(view.pairs_model.frame["run_a"]) <= set(SYNTHETIC_RUNS)
    # adjusted p-values (small ones dark) and wins / ties / losses
    _choose(view.value, "p_adjusted")
    assert view.model.value(a, b) == pytest.approx(row["p_adjusted"]) and view.model.reverse
    _choose(view.value, "wtl")
    assert view.model.display_text(a, b).startswith(f"{row['wins']}/{row['ties']}/{row['losses']}")
    assert "mean preference" in view.caption.text().lower() or "preferred" in view.caption.text()


def test_preferences_alone_with_a_binary_threshold(qtbot, window):
    compare = _prefer(qtbot, window, measures=("invrpp",), with_measures=False, test="wilcoxon")
    assert compare.comparison is None and compare.table.model.frame.empty
    assert compare.results_tabs.currentWidget() is compare.preference_view.page       # where the results are
    _frames_equal(compare.preferences.table, _engine(("invrpp",), test="wilcoxon").table)
    compare.form.binary_check.setChecked(True)
    compare.form.binary_spin.setValue(2)
    run_and_wait(qtbot, compare)
    expected = _engine(("invrpp",), test="wilcoxon", binary_threshold=2)
    _frames_equal(compare.preferences.table, expected.table)
    assert set(compare.preferences.table["binary_threshold"]) == {2}
    assert "relevant from grade 2" in compare.preference_view.caption.text()


def test_against_baselines_only_their_pairs_are_tested(qtbot, window):
    load_synthetic(qtbot, window)
    compare = _workspace(window)
    f = compare.form
    f.preference_list.set_checked("rpp", True)
    f.picker.set_checked({})
    _click(qtbot, f.baselines_radio)
    assert f.baseline_list.checked() == ["bm25"]          # choosing baselines ticks the first run: Run works
    f.baseline_list.set_checked("bm25", False)
    f.baseline_list.set_checked("random", True)
    run_and_wait(qtbot, compare)
    table = compare.preferences.table
    assert list(zip(table["run_a"], table["run_b"])) == [("random", r) for r in SYNTHETIC_RUNS[:3]]
    view = compare.preference_view
    compare.results_tabs.setCurrentWidget(view.page)
    runs = list(view.model.frame.index)
    untested = runs.index("bm25"), runs.index("dense")
    assert view.model.value(*untested) is not None and not view.model.display_text(*untested).endswith("*")
    assert "not tested" in view.model.tooltip(*untested)
    _choose(view.value, "p_adjusted")
    assert view.model.value(*untested) is None                                  # no p for a pair not tested


# ---------------------------------------------------------------------------- exports
def test_view_measure_names_shows_the_papers_or_the_registered_names(qtbot, window):
    # View ▸ Measure names: "as in papers" (RPP, Lexiprecision) or the registered names (rpp, lexiprecision), in the
    # form's check boxes, the matrix's combo, its caption and tooltips; the ticks and the results stay.
    from evalgui.core import display
    from evalgui.gui import naming

    compare = _prefer(qtbot, window)
    view, f = compare.preference_view, compare.form
    compare.results_tabs.setCurrentWidget(view.page)
    _choose(view.measure, "lexiprecision")

    runs = view.runs()
    view.show_pair("lexiprecision", runs[0], runs[1])

    def shown():
        return ([f.preference_list.item(i).text() for i in range(2)], view.measure.currentText(),
                "Lexiprecision" in view.caption.text(), "· Lexiprecision (" in view.model.tooltip(0, 1),
                view.pair_view.windowTitle().endswith("· Lexiprecision"))

    assert shown() == (["RPP", "DCGPP"], "Lexiprecision", True, True, True)
    try:
        naming.set_current(display.TREC_EVAL)
        assert shown() == (["rpp", "dcgrpp"], "lexiprecision", False, False, False)
        assert view.pair_view.windowTitle().endswith("· lexiprecision")
        assert "lexiprecision" in view.caption.text() and view.measure.currentData() == "lexiprecision"
        assert f.preference_measures() == list(TICKED)
        assert "Preferences (rpp, lexiprecision) between 4 runs" in compare.progress_label.text()
    finally:
        naming.set_current(display.PAPER)
    assert shown() == (["RPP", "DCGPP"], "Lexiprecision", True, True, True)
    assert "Preferences (RPP, Lexiprecision) between 4 runs" in compare.progress_label.text()


def test_a_project_keeps_the_registered_names_and_opens_on_them(qtbot, make_window, tmp_path):
    import json

    from tests.gui.test_projects import _wait_restored

    window = make_window()
    compare = _prefer(qtbot, window)
    project = tmp_path / "prefs.evalgui"
    assert window.write_project(str(project))
    saved = json.loads(project.read_text())
    assert {k for k, v in saved["forms"]["compare"]["preferences"].items() if v} == set(TICKED)
    assert saved["requests"]["preference"]["measures"] == list(TICKED)
    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    _wait_restored(qtbot, second)
    reopened = second.workspaces["compare"]
    assert reopened.form.preference_measures() == list(TICKED)
    assert reopened.preferences is not None and list(reopened.preferences.measures) == list(TICKED)
    assert [reopened.preference_view.measure.itemText(i) for i in range(2)] == ["RPP", "Lexiprecision"]


def test_exports_tables_and_heatmap(qtbot, window, tmp_path, monkeypatch):
    compare = _prefer(qtbot, window, test="bootstrap", samples_spin=300)
    targets = dict(compare.export_targets())
    assert {"Preference heatmap…", "Preference matrix table…", "Preference ranking…", "Preference tests…"} <= set(targets)
    for ext in (".png", ".svg"):
        _save_as(monkeypatch, tmp_path / f"heatmap{ext}")
        targets["Preference heatmap…"]()
        assert (tmp_path / f"heatmap{ext}").stat().st_size > 1000
    assert "rerank" in (tmp_path / "heatmap.svg").read_text()
    _save_as(monkeypatch, tmp_path / "ranking.csv")
    targets["Preference ranking…"]()
    ranking = pd.read_csv(tmp_path / "ranking.csv")
    # every measure; what the window shows: its headers, the measures as papers write them, a test's name
    from evalgui.gui.tables import as_shown

    expected = as_shown(compare.preferences.ranking, "json", compare.preference_view.ranking_model.headers)
    _frames_equal(ranking[expected.columns[:4]], expected[expected.columns[:4]])
    assert list(dict.fromkeys(ranking["Measure"])) == ["RPP", "Lexiprecision"]
    assert set(ranking["Test"]) == {"Bootstrap (Sakai)"} and set(ranking["Resamples (B)"]) == {300}
    _save_as(monkeypatch, tmp_path / "tests.csv")
    targets["Preference tests…"]()
    tests = pd.read_csv(tmp_path / "tests.csv")
    assert len(tests) == 12 and set(tests["Query set"]) == {"With a relevant document"}
    for ext, marker in ((".tex", "\\begin{tabular}"), (".md", "| bm25 |"), (".csv", "bm25,")):
        _save_as(monkeypatch, tmp_path / f"matrix{ext}")
        targets["Preference matrix table…"]()
        assert marker in (tmp_path / f"matrix{ext}").read_text()


# ---------------------------------------------------------------------------- bad input
def test_tukey_or_nothing_ticked_gives_a_dialog_and_keeps_the_results(qtbot, window):
    compare = _prefer(qtbot, window)
    before = compare.preferences.table.copy()
    f = compare.form

    def refused(reason):
        with qtbot.waitSignal(window.error_shown, timeout=10_000) as blocker:
            qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
        assert reason in blocker.args[1], blocker.args
        qtbot.waitUntil(lambda: not compare.is_busy())
        pd.testing.assert_frame_equal(compare.preferences.table, before)
        window.last_error_dialog.close()

    _choose(f.test_combo, "tukey")
    refused("untick the preferences")
    _choose(f.test_combo, "t")
    f.picker.set_checked({})
    for name in TICKED:
        f.preference_list.set_checked(name, False)
    refused("at least one measure (or preference)")
    # a threshold no grade reaches: the engine's message, on the worker
    f.preference_list.set_checked("rpp", True)
    f.binary_check.setChecked(True)
    f.binary_spin.setValue(50)
    refused("no query has a relevant document")


# ---------------------------------------------------------------------------- projects
def test_project_round_trip_keeps_the_preferences(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    load(qtbot, first, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    compare = _workspace(first)
    f = compare.form
    f.picker.set_checked({})
    f.preference_list.set_checked("dcgrpp", True)
    f.binary_check.setChecked(True)
    f.binary_spin.setValue(1)
    _choose(f.test_combo, "sign")
    _choose(f.correction_combo, "bh")
    run_and_wait(qtbot, compare)
    project = tmp_path / "prefs.evalgui"
    assert first.write_project(str(project))

    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    qtbot.waitUntil(lambda: not second._loaders, timeout=20_000)
    restored = second.workspaces["compare"]
    assert restored.form_state() == compare.form_state()
    assert restored.form.preference_measures() == ["dcgrpp"] and restored.form.binary_threshold() == 1
    assert restored.comparison is None and restored.preferences is not None
    for name in ("table", "ranking"):
        pd.testing.assert_frame_equal(getattr(restored.preferences, name), getattr(compare.preferences, name),
                                      check_dtype=False)
    pd.testing.assert_frame_equal(restored.preferences.matrices["dcgrpp"], compare.preferences.matrices["dcgrpp"])
    assert restored.preferences.options == compare.preferences.options
    second.tabs.setCurrentWidget(restored)
    restored.results_tabs.setCurrentWidget(restored.preference_view.page)
    assert restored.preference_view.model.frame.shape == (4, 4)
    assert len(restored.preference_view.ranking_model.frame) == 4


# ---------------------------------------------------------------------------- 30 runs: responsiveness, cancel
def write_runs(folder, n_runs=30, n_queries=100, n_docs=300, seed=2):
    """Graded qrels and ``n_runs`` runs of rising quality (numpy-generated, seeded)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    quality = np.linspace(0.2, 1.5, n_runs)
    qrels, runs = [], [[] for _ in range(n_runs)]
    for q in range(n_queries):
        pool = rng.choice(10 * n_docs, size=n_docs, replace=False)
        grades = rng.choice(4, size=60, p=[0.5, 0.25, 0.15, 0.1])
        qrels += [f"q{q} 0 d{d} {g}\n" for d, g in zip(pool[:60], grades)]
        for r in range(n_runs):
            scores = np.concatenate((grades * quality[r], np.zeros(n_docs - 60))) + rng.normal(0, 1, n_docs)
            runs[r] += [f"q{q} Q0 d{d} 0 {s:.5f} r\n" for d, s in zip(pool, scores)]
    (folder / "qrels.txt").write_text("".join(qrels))
    for r, lines in enumerate(runs):
        (folder / f"system{r:02d}.run").write_text("".join(lines))
    return [folder / "qrels.txt"] + [folder / f"system{r:02d}.run" for r in range(n_runs)]


@pytest.fixture(scope="module")
def thirty_runs(tmp_path_factory):
    return write_runs(tmp_path_factory.mktemp("thirty"))


def test_heartbeat_while_30_runs_are_preferred_and_the_tab_is_drawn(qtbot, window, thirty_runs):
    load(qtbot, window, thirty_runs)
    compare = _workspace(window)
    f = compare.form
    f.picker.set_checked({})
    for name, record in P.REGISTRY.items():
        f.preference_list.set_checked(name, not record.subtopics)   # plain qrels: ST-RPP would be rpp again
    _choose(f.test_combo, "randomization")              # B = 10,000 over 435 pairs x 100 queries x 5 measures
    compare.results_tabs.setCurrentWidget(compare.preference_view.page)
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        with qtbot.waitSignal(compare.busy_changed, check_params_cb=not_busy, timeout=120_000):
            start = time.perf_counter()
            compare.run()
        # the tab in sight draws the 30 x 30 heatmap, its marks and the tables when the results come,
        # and paints them (a few beats more: the paint events ahead of them are done)
        qtbot.waitUntil(lambda: compare.preference_view.model.rowCount() == 30, timeout=5000)
        drawn = len(heartbeat.beats)
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= drawn + 5, timeout=5000)
        end = time.perf_counter()
    assert compare.preferences is not None and len(compare.preferences.table) == 5 * 435
    assert end - start > 0.2
    print(heartbeat.check(start, end))
    assert len(compare.preference_view.ranking_model.frame) == 30


def test_cancel_keeps_the_previous_preferences(qtbot, window, thirty_runs):
    load(qtbot, window, thirty_runs)
    compare = _workspace(window)
    f = compare.form
    f.picker.set_checked({})
    f.preference_list.set_checked("rpp", True)
    run_and_wait(qtbot, compare)                       # a quick t-test first
    before = compare.preferences.table.copy()
    for name in P.REGISTRY:
        f.preference_list.set_checked(name, True)
    _choose(f.test_combo, "randomization")
    f.samples_spin.setValue(200_000)
    with qtbot.waitSignal(compare.busy_changed, timeout=5000):
        qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "pair" in compare.progress_label.text(), timeout=30_000)      # testing has begun
    with qtbot.waitSignal(compare.busy_changed, check_params_cb=not_busy, timeout=20_000):
        qtbot.mouseClick(compare.cancel_button, Qt.MouseButton.LeftButton)
    pd.testing.assert_frame_equal(compare.preferences.table, before)
    assert "Cancelled" in compare.progress_label.text()
