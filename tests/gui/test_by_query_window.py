"""A run too large to hold, in the window (issue 37): loaded by one streaming pass, evaluated query by query.

EVALGUI_HOLD_AT_MOST is set low, so small generated runs take the by-query path."""

from __future__ import annotations

import os
import shutil
import threading
import time

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import SYNTHETIC, Heartbeat, load, not_busy, open_in_new_window, run_and_wait

HOLD_LOW = "1000"          # bytes: every run file is "too large to hold"


def _files(tmp_path):
    """The demo's qrels and two copies of one run: whole.run is read whole, big.run by query."""
    shutil.copy(SYNTHETIC / "qrels.txt", tmp_path / "qrels.txt")
    shutil.copy(SYNTHETIC / "bm25.run", tmp_path / "whole.run")
    shutil.copy(SYNTHETIC / "bm25.run", tmp_path / "big.run")
    return tmp_path / "qrels.txt", tmp_path / "whole.run", tmp_path / "big.run"


def _load_both(qtbot, window, monkeypatch, tmp_path):
    qrels, whole, big = _files(tmp_path)
    load(qtbot, window, [qrels, whole])
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", HOLD_LOW)
    load(qtbot, window, [big])
    return qrels, whole, big


def _row_of(window, path) -> int:
    return [item.path for item in window.session.items].index(str(path))


def test_a_run_too_large_to_hold_loads_as_a_file_with_its_counts(qtbot, window, monkeypatch, tmp_path):
    from evalgui.core.ranked.by_query import RunFile

    qrels, whole, big = _load_both(qtbot, window, monkeypatch, tmp_path)
    held, streamed = window.session.find(str(whole)), window.session.find(str(big))
    assert isinstance(streamed.data, RunFile) and streamed.data.by_query and streamed.by_query
    assert not held.by_query
    assert streamed.summary == held.summary                       # the same counts, from one streaming pass
    assert list(streamed.data.query_ids) == list(held.data.query_ids)
    model = window.data_panel.tree.model()
    row = _row_of(window, big)
    contents = model.data(model.index(row, 3))
    assert contents.startswith(held.record.describe(held.summary)) and "evaluated query by query" in contents
    tip = model.data(model.index(row, 1), Qt.ItemDataRole.ToolTipRole)
    assert "too large to hold in memory" in tip and "query by query" in tip
    assert model.data(model.index(row, 0)) == "⇶"                 # its own badge, the tooltip says why
    held_row = _row_of(window, whole)
    assert model.data(model.index(held_row, 0)) == "✔"
    assert "query by query" not in model.data(model.index(held_row, 3))


def test_evaluated_by_query_it_has_the_whole_runs_values_and_says_why_no_curves(qtbot, window, monkeypatch,
                                                                                 tmp_path):
    qrels, whole, big = _load_both(qtbot, window, monkeypatch, tmp_path)
    ranked = window.workspaces["ranked"]
    ranked.set_qrels(str(qrels))
    assert set(ranked.form.checked_run_paths()) == {str(whole), str(big)}   # not greyed: it shares queries
    run_and_wait(qtbot, ranked)
    results = ranked.results
    by_run = {run: rows.drop(columns="run").reset_index(drop=True) for run, rows in results.groupby("run")}
    assert set(by_run) == {"whole", "big"} and len(by_run["big"]) > 50
    pd.testing.assert_frame_equal(by_run["big"], by_run["whole"], check_exact=True)
    assert ranked.results_set["big"].by_query and not ranked.results_set["whole"].by_query
    assert ranked.results_set["big"].ranking is None
    # the per-query table and run × run have both runs
    assert {"whole", "big"} <= set(ranked.per_query.model.frame.columns)
    assert set(ranked.summary.model.frame["run"]) == {"whole", "big"}
    # curves and drill-down say plainly why this run has none
    for view in (ranked.curves, ranked.drill_down):
        ranked.results_tabs.setCurrentWidget(view.page)
        qtbot.waitUntil(lambda view=view: view.note.isVisibleTo(view.page))
        assert view.note.text().startswith("big was evaluated query by query, because it is too large to hold")
    assert "no precision-recall curves" in ranked.curves.note.text()
    assert "no ranking to show" in ranked.drill_down.note.text()
    assert [ranked.drill_down.run_a.itemData(i) for i in range(ranked.drill_down.run_a.count())] == ["whole"]


def test_cancel_while_evaluating_by_query_removes_the_scratch_folder(qtbot, window, monkeypatch, tmp_path):
    from evalgui.core.ranked import by_query

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("EVALGUI_SCRATCH", str(scratch))
    qrels, whole, big = _files(tmp_path)
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", HOLD_LOW)
    load(qtbot, window, [qrels, big])
    # Hold the job inside its first partition's evaluation, so Cancel comes mid-evaluation, every time.
    inside, release = threading.Event(), threading.Event()
    kernel = by_query.evaluate_run

    def held(*args, **kwargs):
        inside.set()
        release.wait(20)
        return kernel(*args, **kwargs)

    monkeypatch.setattr(by_query, "evaluate_run", held)
    ranked = window.workspaces["ranked"]
    ranked.set_qrels(str(qrels))
    cancelled = []
    with qtbot.waitSignal(ranked.busy_changed, timeout=5000):
        qtbot.mouseClick(ranked.run_button, Qt.MouseButton.LeftButton)
    ranked._worker.cancelled.connect(lambda: cancelled.append(True))
    qtbot.waitUntil(inside.is_set, timeout=20_000)
    assert os.listdir(scratch)                          # the partitions are there
    with qtbot.waitSignal(ranked.busy_changed, check_params_cb=not_busy, timeout=20_000):
        qtbot.mouseClick(ranked.cancel_button, Qt.MouseButton.LeftButton)
        release.set()
    assert cancelled == [True]
    assert os.listdir(scratch) == []
    assert ranked.results.empty


def test_the_window_answers_while_a_large_run_is_read_and_evaluated(qtbot, window, monkeypatch, big_collection):
    from evalgui.core.ranked import by_query

    monkeypatch.setattr(by_query, "_PIECE", 1 << 20)           # many pieces: progress all along the file
    monkeypatch.setattr(by_query, "PARTITION_BYTES", 1 << 20)
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", HOLD_LOW)
    qrels, run = big_collection
    load(qtbot, window, [qrels])
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        start = time.perf_counter()
        with qtbot.waitSignal(window.files_loaded, timeout=60_000):
            window.load_files([(str(run), None)])
        loaded = time.perf_counter()
        assert window.session.find(str(run)).by_query
        ranked = window.workspaces["ranked"]
        ranked.set_qrels(str(qrels))
        run_and_wait(qtbot, ranked, timeout=60_000)
        end = time.perf_counter()
    print("reading:", heartbeat.check(start, loaded))
    print("evaluating:", heartbeat.check(loaded, end))
    assert set(ranked.results["run"]) == {"big"}


def test_loading_it_reports_progress_along_the_file(monkeypatch, big_collection):
    from evalgui.core.inputs import LoadedInput, load_files_job
    from evalgui.core.jobs import JobState
    from evalgui.core.ranked import by_query

    monkeypatch.setattr(by_query, "_PIECE", 1 << 20)
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", HOLD_LOW)
    progress, loaded = [], []
    state = JobState(lambda fraction, message: progress.append((fraction, message)), loaded.append, min_interval=0)
    load_files_job([(str(big_collection[1]), None)], (), by_query.summarised_if_too_large)(state)
    assert isinstance(loaded[0], LoadedInput) and loaded[0].by_query
    reading = [f for f, message in progress if message == "Reading big.run (1 of 1): reading the run"]
    assert len(reading) >= 5 and reading == sorted(reading) and 0 < reading[0] < 0.5 < reading[-1]


def test_cancel_while_loading_a_large_run_leaves_the_session_as_it_was(qtbot, window, monkeypatch, tmp_path):
    from evalgui.core.ranked import by_query

    qrels, whole, big = _files(tmp_path)
    load(qtbot, window, [qrels])
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", HOLD_LOW)
    inside, release = threading.Event(), threading.Event()
    pieces = by_query.run_pieces

    def held(*args, **kwargs):
        for piece in pieces(*args, **kwargs):
            inside.set()
            release.wait(20)
            yield piece

    monkeypatch.setattr(by_query, "run_pieces", held)
    worker = window.load_files([(str(big), None)])
    qtbot.waitUntil(inside.is_set, timeout=20_000)
    with qtbot.waitSignal(worker.cancelled, timeout=20_000):
        window.cancel_action.trigger()
        release.set()
    qtbot.waitUntil(lambda: not window._loaders)
    assert [item.path for item in window.session.items] == [str(qrels)]


def test_compare_systems_uses_it(qtbot, window, monkeypatch, tmp_path):
    qrels, whole, big = _load_both(qtbot, window, monkeypatch, tmp_path)
    shutil.copy(SYNTHETIC / "dense.run", tmp_path / "dense.run")
    monkeypatch.delenv("EVALGUI_HOLD_AT_MOST")
    load(qtbot, window, [tmp_path / "dense.run"])
    compare = window.workspaces["compare"]
    compare.form.data.set_qrels(str(qrels))
    compare.form.data.set_run_checked(str(whole), False)
    compare.form.picker.set_checked(["map"])
    run_and_wait(qtbot, compare)
    assert compare.comparison is not None, compare.progress_label.text()
    table = compare.comparison.table
    assert {tuple(sorted(p)) for p in zip(table["run_a"], table["run_b"])} == {("big", "dense")}
    assert table["n_queries"].iloc[0] == 50


def test_preference_measures_refuse_it_by_name(qtbot, window, monkeypatch, tmp_path):
    qrels, whole, big = _load_both(qtbot, window, monkeypatch, tmp_path)
    compare = window.workspaces["compare"]
    compare.form.data.set_qrels(str(qrels))
    compare.form.picker.set_checked(["map"])
    compare.form.preference_list.set_checked("rpp", True)
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        qtbot.mouseClick(compare.run_button, Qt.MouseButton.LeftButton)
    assert str(big) in blocker.args[1] and "Preference measures compare the runs' rankings" in blocker.args[1]
    assert compare.comparison is None
    window.last_error_dialog.close()


@pytest.mark.parametrize("key", ["metaeval", "stability"])
def test_meta_evaluation_and_stability_refuse_it_with_one_dialog_naming_the_file(qtbot, window, monkeypatch,
                                                                                tmp_path, key):
    qrels, whole, big = _load_both(qtbot, window, monkeypatch, tmp_path)
    workspace = window.workspaces[key]
    if key == "stability":
        combo = workspace.form.source_combo
        combo.setCurrentIndex(combo.findData("trec"))
    else:
        workspace.form.picker.set_checked(["map"])
    workspace.form.data.set_qrels(str(qrels))
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        qtbot.mouseClick(workspace.run_button, Qt.MouseButton.LeftButton)
    message = blocker.args[1]
    assert str(big) in message and "too large to hold in memory" in message and "untick it" in message
    assert "Traceback" not in message
    assert workspace.outcome is None
    window.last_error_dialog.close()


def test_a_project_with_it_saves_and_reopens(qtbot, make_window, monkeypatch, tmp_path):
    first = make_window()
    qrels, whole, big = _load_both(qtbot, first, monkeypatch, tmp_path)
    ranked = first.workspaces["ranked"]
    ranked.set_qrels(str(qrels))
    run_and_wait(qtbot, ranked)
    shown = ranked.results
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))

    second = open_in_new_window(qtbot, make_window, project)
    item = second.session.find(str(big))
    assert item is not None and item.by_query and item.summary == first.session.find(str(big)).summary
    restored = second.workspaces["ranked"]
    qtbot.waitUntil(lambda: not restored.is_busy(), timeout=20_000)
    pd.testing.assert_frame_equal(restored.results.reset_index(drop=True), shown.reset_index(drop=True))
    assert restored.results_set["big"].by_query         # (whole.run too: EVALGUI_HOLD_AT_MOST is still low)
    restored.results_tabs.setCurrentWidget(restored.curves.page)
    qtbot.waitUntil(lambda: restored.curves.note.isVisibleTo(restored.curves.page))
