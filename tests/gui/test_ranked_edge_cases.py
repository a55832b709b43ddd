"""Ranked workspace edge cases a user can reach: repeated measure names, odd run and query names,
text measures, counts, the demo's second qrels, reopening a project mid-job, progress and cancel."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from tests.conftest import CANCEL_PROMPTLY
from tests.gui.conftest import (MEIC, SYNTHETIC, copy_synthetic, load, load_long_job, load_synthetic, not_busy,
                                open_demo_and_wait, run_and_wait)


def engine(qrels, runs, specs, **options):
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import EvalOptions, evaluate

    return evaluate(read_qrels(qrels), [read_run(r) for r in runs], specs, EvalOptions(**options))


def test_a_measure_asked_for_twice_is_shown_once(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25",))
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"P": "5,10", "ndcg_cut": ""})
    ranked.form.picker.add_custom("P.10")
    ranked.form.picker.add_custom("ndcg_cut.15")
    run_and_wait(qtbot, ranked)
    summary = ranked.summary.model.frame
    assert list(summary.columns).count("P_10") == 1 and list(summary.columns).count("ndcg_cut_15") == 1
    expected = engine(SYNTHETIC / "qrels.txt", [SYNTHETIC / "bm25.run"], ["P.10"])
    assert summary["P_10"].iloc[0] == expected.loc[expected["query"] == "all", "value"].iloc[0]
    assert not ranked.results.duplicated(["run", "query", "measure"]).any()


def test_runs_named_query_and_a_query_named_all(qtbot, window, tmp_path):
    (tmp_path / "qrels.txt").write_text("all 0 d1 1\nall 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "query.run").write_text("all Q0 d1 1 2.0 t\nall Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\nq2 Q0 d1 2 0.5 t\n")
    load(qtbot, window, [tmp_path / "qrels.txt", tmp_path / "query.run"])
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": ""})
    run_and_wait(qtbot, ranked)
    assert list(ranked.summary.model.frame["run"]) == ["query (run)"]
    assert ranked.summary.model.frame["map"].iloc[0] == pytest.approx(0.75)
    per_query = ranked.per_query.model.frame
    assert list(per_query["query"]) == ["all", "q2"]                 # the query "all" is a query here
    assert per_query["query (run)"].tolist() == [1.0, 0.5]


def test_text_measures_are_not_offered(window):
    names = {item.data(0, Qt.ItemDataRole.UserRole) for item in window.workspaces["ranked"].form.picker._items()}
    assert "runid" not in names and "relstring" not in names and "map" in names


def test_counts_show_without_decimals_and_are_never_bold(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25", "random"))
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"num_ret": "", "num_rel_ret": "", "map": "", "unj": "10"})
    run_and_wait(qtbot, ranked)
    model = ranked.summary.model
    columns = list(model.frame.columns)
    assert model.display_text(0, columns.index("num_ret")) == "5000"
    bold = lambda row, name: model.data(model.index(row, columns.index(name)), Qt.ItemDataRole.FontRole)  # noqa: E731
    assert all(bold(r, name) is None for r in range(2) for name in ("num_ret", "num_rel_ret", "unj_10"))
    assert isinstance(bold(0, "map"), QFont) and bold(1, "map") is None      # bm25 beats random


def test_the_demo_tutorial_runs_are_ticked_with_their_qrels(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    ranked.form.qrels_combo.setCurrentIndex(ranked.form.qrels_combo.findData(str(MEIC / "information_systems.qrels")))
    assert sorted(p.rsplit("/", 1)[-1] for p in ranked.form.checked_run_paths()) == ["base.run", "enhanced.run"]
    ranked.form.picker.set_checked({"map": ""})
    ranked.form.picker.add_custom("AP(norm=retrieved)")
    run_and_wait(qtbot, ranked)
    summary = ranked.summary.model.frame.set_index("run")
    assert summary.loc["base", "map"] == pytest.approx(0.7593, abs=5e-5)
    assert summary.loc["enhanced", "AP(norm=retrieved)"] == pytest.approx(1.0)


def test_opening_a_project_replaces_a_session_that_is_still_working(qtbot, make_window, tmp_path, big_collection):
    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    first = make_window()
    load(qtbot, first, [data / "qrels.txt", data / "bm25.run"])
    project = tmp_path / "small.evalgui"
    assert first.write_project(str(project), include_results=False)

    window = make_window()
    ranked = load_long_job(qtbot, window, big_collection, copies=12)
    with qtbot.waitSignal(ranked.busy_changed, timeout=10_000):
        ranked.run()                                      # an evaluation is running...
    window.load_files([(str(SYNTHETIC / "dense.run"), None)])   # ...and a load
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project))
    qtbot.waitUntil(lambda: not window._loaders and not ranked.is_busy(), timeout=20_000)
    names = sorted(i.name for i in window.session.items)
    assert names == ["bm25.run", "qrels.txt"]
    assert ranked.results.empty and ranked.summary.model.frame.empty


def test_progress_moves_within_one_run(qtbot, window, big_collection, monkeypatch):
    # Reports are throttled to 20 a second; this run may take less than one interval.
    monkeypatch.setattr("evalgui.core.jobs.MAX_REPORTS_PER_SECOND", 100_000)
    ranked = load_long_job(qtbot, window, big_collection, copies=1)
    ranked.form.picker.set_checked({"map": "", "P": "", "ndcg_cut": "", "recall": ""})
    seen = []
    ranked.progress.valueChanged.connect(seen.append)
    run_and_wait(qtbot, ranked)
    assert any(0 < v < 1000 for v in seen), seen


def test_cancel_is_quick_with_every_measure(qtbot, window, big_collection):
    ranked = load_long_job(qtbot, window, big_collection, copies=6)
    ranked.form.picker.set_checked({})
    ranked.form.picker.add_custom("all_trec")
    with qtbot.waitSignal(ranked.progress.valueChanged, timeout=20_000):
        ranked.run()
    qtbot.waitUntil(lambda: ranked.progress.value() > 30, timeout=20_000)
    with qtbot.waitSignal(ranked.busy_changed, check_params_cb=not_busy, timeout=10_000):
        start = time.perf_counter()
        qtbot.mouseClick(ranked.cancel_button, Qt.MouseButton.LeftButton)
    latency = time.perf_counter() - start
    print(f"cancel latency with all_trec: {latency * 1000:.0f} ms")
    assert latency < CANCEL_PROMPTLY


def test_choices_survive_a_second_run(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    ranked.curves.query.setCurrentIndex(ranked.curves.query.findData("110"))
    ranked.drill_down.query.setCurrentIndex(ranked.drill_down.query.findData("120"))
    ranked.differences.baseline.setCurrentIndex(ranked.differences.baseline.findData("random"))
    run_and_wait(qtbot, ranked)
    assert ranked.curves.query.currentData() == "110" and ranked.drill_down.query.currentData() == "120"
    assert ranked.differences.baseline.currentData() == "random"


def test_a_relevance_level_nothing_reaches_is_pointed_out(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25",))
    ranked = window.workspaces["ranked"]
    ranked.form.level_spin.setValue(7)
    run_and_wait(qtbot, ranked)
    assert "no document in the qrels has a grade of 7" in ranked.progress_label.text()


def test_difference_chart_says_what_it_left_out_and_names_bars(qtbot, window, tmp_path):
    lines = (SYNTHETIC / "dense.run").read_text().splitlines()
    (tmp_path / "partial.run").write_text("\n".join(l for l in lines if not l.startswith(("101 ", "102 "))) + "\n")
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run", tmp_path / "partial.run"])
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    ranked.differences.baseline.setCurrentIndex(ranked.differences.baseline.findData("bm25"))
    ranked.differences.run.setCurrentIndex(ranked.differences.run.findData("partial"))
    chart = ranked.differences.chart
    assert len(chart.frame) == 48
    assert "2 of 50 queries left out" in chart.getPlotItem().titleLabel.text
    first = chart.frame.iloc[0]
    assert chart.hover_text(0).startswith(f"query {first['query']}") and f"{first['difference']:+.4f}" in chart.hover_text(0)


def test_export_adds_the_chosen_formats_extension(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    ranked = open_demo_and_wait(qtbot, window)
    target = tmp_path / "summary"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "LaTeX (*.tex)"))
    ranked.summary.view.export_dialog()
    assert (tmp_path / "summary.tex").read_text().startswith("\\begin{tabular}")


def test_a_project_opened_while_the_demo_loads_is_not_evaluated_as_the_demo(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    first = make_window()
    load(qtbot, first, [data / "qrels.txt", data / "bm25.run"])
    project = tmp_path / "small.evalgui"
    assert first.write_project(str(project), include_results=False)

    window = make_window()
    errors = []
    window.error_shown.connect(lambda title, message: errors.append(title))
    window.open_demo()                        # its follow-up (evaluate the demo) must not run...
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project))     # ...once the project has replaced the session
    ranked = window.workspaces["ranked"]
    qtbot.waitUntil(lambda: not window._loaders and not ranked.is_busy(), timeout=20_000)
    assert sorted(i.name for i in window.session.items) == ["bm25.run", "qrels.txt"]
    assert errors == [] and ranked.results.empty
