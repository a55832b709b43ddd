"""The main window end to end: the demo, bad files, cancel, a responsive GUI thread, closing, settings, start-up."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from tests.conftest import CANCEL_PROMPTLY
from tests.gui.conftest import (MEIC, SYNTHETIC, SYNTHETIC_RUNS, Heartbeat, load, load_long_job, load_synthetic,
                                not_busy, open_demo_and_wait, run_and_wait)


def engine_results(specs, runs=SYNTHETIC_RUNS, options=None):
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import EvalOptions, evaluate

    qrels = read_qrels(SYNTHETIC / "qrels.txt")
    return evaluate(qrels, [read_run(SYNTHETIC / f"{r}.run") for r in runs], specs, options or EvalOptions())


# ---------------------------------------------------------------------------- the demo
def test_demo_summary_equals_the_engine_to_full_precision(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    assert window.tabs.currentWidget() is ranked
    summary = ranked.summary.model.frame
    assert list(summary["run"]) == list(SYNTHETIC_RUNS)

    specs = ranked.form.picker.specs()
    assert specs                                   # the default measures
    expected = engine_results(specs)
    rows = expected[expected["query"] == "all"]
    wide = rows.pivot(index="run", columns="measure", values="value")
    measures = list(dict.fromkeys(rows["measure"]))
    assert list(summary.columns) == ["run"] + measures
    for _, row in summary.iterrows():
        for m in measures:
            assert row[m] == wide.loc[row["run"], m], (row["run"], m)   # exact, not approximately

    # Every tidy row (per query too) is the engine's, bit for bit.
    got = ranked.results.reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected.reset_index(drop=True), check_exact=True, check_dtype=False)


def test_welcome_page_open_demo_button(qtbot, window):
    from PySide6.QtWidgets import QPushButton

    button = window.welcome.findChild(QPushButton, "openDemoButton")
    ranked = window.workspaces["ranked"]
    with qtbot.waitSignal(window.demo_finished, timeout=60_000):     # every workspace's sample, evaluated
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert list(ranked.summary.model.frame["run"]) == list(SYNTHETIC_RUNS)
    # The tutorial's example is loaded too, but not evaluated against the synthetic qrels.
    names = {item.name for item in window.session.items}
    assert {"information_systems.qrels", "base.run", "enhanced.run"} <= names


# ---------------------------------------------------------------------------- bad files
def _bad_score_run(tmp_path):
    path = tmp_path / "broken.run"
    path.write_text("101 Q0 D1 1 3.5 x\n101 Q0 D2 2 2.5 x\n101 Q0 D3 3 high x\n")
    return path


@pytest.mark.parametrize("case", ["non-numeric score", "binary", "missing"])
def test_bad_file_dialog_names_file_line_reason_and_session_is_untouched(qtbot, window, tmp_path, case):
    load_synthetic(qtbot, window, runs=("bm25", "dense"))
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    items_before = [(i.path, i.kind, id(i.data)) for i in window.session.items]
    results_before = ranked.results.copy()
    summary_before = ranked.summary.model.frame.copy()
    runs_before = ranked.form.checked_run_paths()

    if case == "non-numeric score":
        path, expect = _bad_score_run(tmp_path), ["broken.run", "line 3", "'high' is not a number"]
    elif case == "binary":
        path = tmp_path / "image.run"
        path.write_bytes(bytes(range(256)) * 8)
        expect = ["image.run", "line 1", "binary"]
    else:
        path, expect = tmp_path / "nowhere.run", ["nowhere.run", "no such file"]

    with qtbot.waitSignal(window.error_shown, timeout=10_000) as shown:
        window.load_files([(str(path), None)])
    title, message = shown.args
    dialog = window.last_error_dialog
    assert dialog.isVisible()
    for text in expect:
        assert text in message
        assert text in dialog.text()
    assert str(path) in dialog.text()              # the full path, so the user can find the file

    assert [(i.path, i.kind, id(i.data)) for i in window.session.items] == items_before
    pd.testing.assert_frame_equal(ranked.results, results_before)
    pd.testing.assert_frame_equal(ranked.summary.model.frame, summary_before)
    assert ranked.form.checked_run_paths() == runs_before
    assert ranked.run_button.isEnabled()


def test_good_and_bad_files_in_one_batch(qtbot, window, tmp_path):
    bad = _bad_score_run(tmp_path)
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as shown:
        window.load_files([(str(SYNTHETIC / "qrels.txt"), None), (str(bad), None),
                           (str(SYNTHETIC / "bm25.run"), None)])
    assert "broken.run" in shown.args[1] and "line 3" in shown.args[1]
    qtbot.waitUntil(lambda: not window._loaders)
    assert [i.name for i in window.session.items] == ["qrels.txt", "bm25.run"]


# ---------------------------------------------------------------------------- cancel
def test_cancel_a_long_job_stops_within_half_a_second_and_keeps_finished_runs(qtbot, window, big_collection):
    ranked = load_long_job(qtbot, window, big_collection, copies=40)
    finished_runs = []
    busy = []
    ranked.busy_changed.connect(busy.append)
    with qtbot.waitSignal(ranked.busy_changed, timeout=5000):
        qtbot.mouseClick(ranked.run_button, Qt.MouseButton.LeftButton)
    assert busy == [True] and not ranked.run_button.isEnabled() and ranked.cancel_button.isEnabled()
    worker = ranked._worker
    worker.partial.connect(lambda result: finished_runs.append(result.name))
    cancelled = []
    worker.cancelled.connect(lambda: cancelled.append(True))

    qtbot.waitUntil(lambda: not ranked.results.empty, timeout=20_000)   # the first run's rows arrived
    stopped_at = []
    ranked.busy_changed.connect(lambda b: stopped_at.append(time.perf_counter()) if not b else None)
    with qtbot.waitSignal(ranked.busy_changed, check_params_cb=not_busy, timeout=10_000):
        start = time.perf_counter()
        qtbot.mouseClick(ranked.cancel_button, Qt.MouseButton.LeftButton)
    latency = stopped_at[0] - start
    print(f"cancel latency: {latency * 1000:.1f} ms")
    assert latency < CANCEL_PROMPTLY, f"cancel took {latency:.3f} s"

    assert cancelled == [True]                     # the cancelled path, not a normal finish
    assert ranked.run_button.isEnabled() and not ranked.cancel_button.isEnabled()
    assert window.run_action.isEnabled() and not window.cancel_action.isEnabled()
    assert not ranked.is_busy()
    runs_in_results = list(dict.fromkeys(ranked.results["run"]))
    assert runs_in_results == finished_runs         # every finished run's rows are kept, nothing else
    assert 1 <= len(finished_runs) < 40
    assert list(ranked.summary.model.frame["run"]) == finished_runs
    assert "Cancelled" in ranked.progress_label.text()


# ---------------------------------------------------------------------------- heartbeat
def test_heartbeat_keeps_firing_during_a_long_evaluation(qtbot, window, big_collection):
    ranked = load_long_job(qtbot, window, big_collection, copies=8)
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        with qtbot.waitSignal(ranked.busy_changed, check_params_cb=not_busy, timeout=30_000):
            start = time.perf_counter()
            ranked.run()
        end = time.perf_counter()
    assert len(set(ranked.results["run"])) == 8    # the job did run to the end
    assert end - start > 0.2                        # long enough to mean something
    print(heartbeat.check(start, end))


# ---------------------------------------------------------------------------- closing
def test_closing_the_window_while_a_job_runs_cancels_it_cleanly(qtbot, make_window, big_collection):
    from evalgui.gui import worker as worker_module

    window = make_window()
    ranked = load_long_job(qtbot, window, big_collection, copies=40)
    with qtbot.waitSignal(ranked.busy_changed, timeout=5000):
        ranked.run()
    qtbot.waitUntil(lambda: not ranked.results.empty, timeout=20_000)
    job = ranked._worker
    assert job is not None and job.is_running()
    running = list(worker_module._RUNNING)

    start = time.perf_counter()
    assert window.close()
    took = time.perf_counter() - start
    print(f"close took {took * 1000:.1f} ms")
    assert took < 2.0
    assert not window.isVisible()
    for worker in running:                          # every thread has stopped, none was left behind
        assert not worker.is_running()
    qtbot.waitUntil(lambda: not worker_module._RUNNING, timeout=2000)
    assert len(set(ranked.results["run"])) < 40     # it was cancelled, not run to the end


def test_closing_an_idle_window(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25",))
    assert window.close()
    assert not window.isVisible()


# ---------------------------------------------------------------------------- settings
def test_form_parameters_persist_across_windows(qtbot, make_window):
    first = make_window()
    ranked = first.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": "", "P": "5,20", "ndcg_cut": "10"})
    ranked.form.level_spin.setValue(2)
    ranked.form.complete_check.setChecked(True)
    ranked.form.max_docs_spin.setValue(50)
    state = ranked.form_state()
    first.close()                                   # closeEvent saves the settings

    settings_file = os.environ["EVALGUI_SETTINGS"]
    assert os.path.exists(settings_file)
    second = make_window()
    restored = second.workspaces["ranked"]
    assert restored.form.picker.specs() == ["map", "P.5,20", "ndcg_cut.10"]
    assert restored.form.level_spin.value() == 2
    assert restored.form.complete_check.isChecked()
    assert restored.form.max_docs_spin.value() == 50
    assert restored.form_state()["measures"] == state["measures"]


def test_window_geometry_and_dock_layout_persist(qtbot, make_window):
    from PySide6.QtCore import QSettings

    first = make_window()
    first.data_dock.hide()
    first.toolbar.hide()
    first.close()
    settings = QSettings(os.environ["EVALGUI_SETTINGS"], QSettings.Format.IniFormat)
    assert not settings.value("window/geometry").isEmpty() and not settings.value("window/state").isEmpty()
    second = make_window()
    assert second.data_dock.isHidden() and second.toolbar.isHidden()
    # (The offscreen screen is 800 px wide, narrower than the window's minimum width, so Qt clamps a
    # restored size there: the size itself is not compared.)


def test_recent_files_updated_after_loading(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run"])
    recent = window.recent_files()
    assert recent[:2] == [str(SYNTHETIC / "bm25.run"), str(SYNTHETIC / "qrels.txt")]
    texts = [a.text() for a in window.recent_menu.actions()]
    assert str(SYNTHETIC / "bm25.run") in texts and str(SYNTHETIC / "qrels.txt") in texts
    # Loading one again moves it to the top without a duplicate.
    load(qtbot, window, [SYNTHETIC / "qrels.txt"])
    recent = window.recent_files()
    assert recent[0] == str(SYNTHETIC / "qrels.txt") and recent.count(str(SYNTHETIC / "qrels.txt")) == 1


def test_recent_files_survive_a_new_window(qtbot, make_window):
    first = make_window()
    load(qtbot, first, [SYNTHETIC / "bm25.run"])
    first.close()
    second = make_window()
    assert second.recent_files()[0] == str(SYNTHETIC / "bm25.run")


# ---------------------------------------------------------------------------- data panel
def test_data_panel_shows_kind_and_counts(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run"])
    tree = window.data_panel.tree
    assert tree.topLevelItemCount() == 2
    qrels_row, run_row = tree.topLevelItem(0), tree.topLevelItem(1)
    assert [qrels_row.text(c) for c in range(1, 4)] == ["qrels.txt", "qrels", "50 queries, 2,994 judged, 1,604 relevant"]
    assert [run_row.text(c) for c in range(1, 4)] == ["bm25.run", "run", "50 queries, 5,000 documents"]
    assert "max grade: 3" in qrels_row.toolTip(3)
    assert qrels_row.text(0) == "✔" and run_row.text(0) == "✔"
    assert not window.data_panel.hint.isVisible()


def test_read_as_changes_the_kind(qtbot, window, tmp_path):
    import json

    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"q1": {"d1": 3, "d2": 1}, "q2": {"d3": 2}}))
    load(qtbot, window, [path])
    assert window.session.find(str(path)).kind == "qrels"     # integers: read as judgments first
    with qtbot.waitSignal(window.files_loaded, timeout=10_000):
        window.data_panel.reload_as.emit(str(path), "run")
    item = window.session.find(str(path))
    assert item.kind == "run" and not item.kind_detected
    assert len(window.session.items) == 1                    # replaced, not added
    row = window.data_panel.tree.topLevelItem(0)
    assert row.text(2) == "run" and "kind chosen by you" in row.toolTip(1)
    assert window.workspaces["ranked"].form.run_list.count() == 1


def test_remove_from_data_panel(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run"])
    window.data_panel.remove_requested.emit(str(SYNTHETIC / "bm25.run"))
    assert [i.name for i in window.session.items] == ["qrels.txt"]
    assert window.workspaces["ranked"].form.run_list.count() == 0


def test_run_with_no_query_in_common_is_unticked_by_default(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run", MEIC / "base.run"])
    ranked = window.workspaces["ranked"]
    assert ranked.form.checked_run_paths() == [str(SYNTHETIC / "bm25.run")]
    row = ranked.form.run_list.item(1)
    assert row.checkState() == Qt.CheckState.Unchecked and "no query in common" in row.text()


def test_run_without_qrels_or_runs_reports_it(qtbot, window):
    ranked = window.workspaces["ranked"]
    with qtbot.waitSignal(window.error_shown, timeout=2000) as shown:
        qtbot.mouseClick(ranked.run_button, Qt.MouseButton.LeftButton)
    assert shown.args[0] == "Nothing to evaluate" and "qrels" in shown.args[1]
    load(qtbot, window, [SYNTHETIC / "qrels.txt"])
    with qtbot.waitSignal(window.error_shown, timeout=2000) as shown:
        ranked.run()
    assert "Tick at least one run" in shown.args[1]
    assert not ranked.is_busy() and ranked.run_button.isEnabled()


def test_no_measure_ticked_gives_a_dialog_not_a_crash(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25",))
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({})
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as shown:
        ranked.run()
    assert shown.args[0] == "Nothing to evaluate" and "measure" in shown.args[1]
    qtbot.waitUntil(lambda: ranked.run_button.isEnabled())


# ---------------------------------------------------------------------------- start-up
def test_main_demo_smoke_test_returns_zero(qtbot, monkeypatch, capsys):
    from evalgui.gui import app

    windows = []
    original = app.create_main_window

    def create():
        window = original()
        windows.append(window)
        qtbot.addWidget(window)
        return window

    monkeypatch.setenv("EVALGUI_SMOKE_TEST", "1")
    monkeypatch.setattr(app, "create_main_window", create)
    assert app.main(["--demo"]) == 0
    out = capsys.readouterr().out
    for run in SYNTHETIC_RUNS:
        assert run in out
    assert list(windows[0].workspaces["ranked"].summary.model.frame["run"]) == list(SYNTHETIC_RUNS)
    assert all(ws.has_results() for ws in windows[0].workspaces.values())     # the demo fills every workspace


def test_main_with_a_bad_file_exits_one(qtbot, monkeypatch, tmp_path, capsys):
    from evalgui.gui import app

    monkeypatch.setenv("EVALGUI_SMOKE_TEST", "1")
    monkeypatch.setattr(app, "create_main_window",
                        lambda original=app.create_main_window: _tracked(qtbot, original()))
    assert app.main([str(_bad_score_run(tmp_path))]) == 1
    assert "broken.run, line 3" in capsys.readouterr().err


def _tracked(qtbot, window):
    qtbot.addWidget(window)
    return window


# ---------------------------------------------------------------------------- drag and drop, command line
def _drop(window, paths):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(window.rect().center(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(window.rect().center()), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)


def test_dropped_files_are_loaded_with_their_kind_detected(qtbot, window):
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        _drop(window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run"])
    kinds = {os.path.basename(i.path): i.kind for i in window.session.items}
    assert kinds == {"qrels.txt": "qrels", "bm25.run": "run"}


def test_files_named_on_the_command_line_are_loaded(qtbot, monkeypatch):
    from evalgui.gui import app

    monkeypatch.setenv("EVALGUI_SMOKE_TEST", "1")
    shown = {}
    original = app.create_main_window

    def remember():
        shown["window"] = original()
        return shown["window"]

    monkeypatch.setattr(app, "create_main_window", remember)
    assert app.main([str(SYNTHETIC / "qrels.txt"), str(MEIC / "base.run")]) == 0
    window = shown["window"]
    assert sorted(os.path.basename(i.path) for i in window.session.items) == ["base.run", "qrels.txt"]
    window.close()


# ---------------------------------------------------------------------------- menus
def test_menus_have_what_the_issue_lists(window):
    titles = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    assert list(titles) == ["File", "View", "Help"]
    file_items = [a.text() for a in titles["File"].actions() if not a.isSeparator()]
    for wanted in ("Open data…", "Open project…", "Save project", "Save project as…", "Recent", "Export…", "Quit"):
        assert wanted in file_items
    assert [a.text() for a in titles["Help"].actions()] == ["Getting started", "Measures reference", "How many queries?",
                                                              "About evalgui"]


def test_measures_reference_shows_the_engines_help(qtbot, window):
    from evalgui.core.ranked.measures import REGISTRY
    from evalgui.core.registry import families
    from evalgui.gui.help import MeasuresReference

    dialog = MeasuresReference(window)
    qtbot.addWidget(dialog)
    assert len(list(dialog.record_items())) == sum(len(family) for family in families())
    dialog.search.setText("ndcg_cut")
    visible = {dialog.record_of(i).name: i for i in dialog.record_items() if not i.isHidden()}
    # gdeval's ndcg_exp_cut names ndcg_cut in its help too
    assert set(visible) <= {"ndcg_cut", "ndcg_exp_cut"} and "ndcg_cut" in visible
    dialog.tree.setCurrentItem(visible["ndcg_cut"])
    text = dialog.text.toPlainText()
    assert REGISTRY["ndcg_cut"].formula in text and "nDCG@k" in text


def test_export_menu_lists_the_workspace_tables_and_plots(qtbot, window):
    open_demo_and_wait(qtbot, window)
    window._fill_export_menu()
    labels = [a.text() for a in window.export_menu.actions()]
    assert labels == ["Summary table…", "Per-query table…", "Precision-recall plot…", "Difference chart…",
                      "Run × run table…", "Run × run heatmap…", "Drill-down, run A…", "Drill-down, run B…"]


def test_the_demo_and_projects_do_not_crowd_recent_files(qtbot, window, tmp_path):
    open_demo_and_wait(qtbot, window)
    assert window.recent_files() == []
    project = tmp_path / "p.evalgui"
    assert window.write_project(str(project))
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project))
    assert window.recent_files() == [str(project)]


def test_the_status_bar_says_which_files_were_read_and_which_not(qtbot, window, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 notanumber bad\n")
    errors = []
    window.error_shown.connect(lambda title, message: errors.append(title))
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run"])
    assert window.statusBar().currentMessage() == "Loaded 2 files."
    load(qtbot, window, [(bad, "run"), SYNTHETIC / "dense.run"])
    assert errors == ["Some files could not be read"]
    assert window.statusBar().currentMessage() == "Loaded 1 file; could not read bad.run (see the message)."
    window.last_error_dialog.close()
    load(qtbot, window, [(bad, "run")])
    assert window.statusBar().currentMessage() == "Could not read bad.run (see the message)."
    window.last_error_dialog.close()
