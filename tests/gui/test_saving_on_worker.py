"""Saving a project and writing a report read nothing on the window's thread (issue 23 point 2): the window
gathers the forms and references to the results, the worker hashes the files (once per file version),
encodes, builds and writes atomically; Cancel and errors leave the old file and no temporary file; closing
waits for a save."""

from __future__ import annotations

import os
import threading

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

import evalgui.core.hashing as hashing
import evalgui.core.project as project_module
from tests.gui.conftest import copy_synthetic, load, run_and_wait

Button = QMessageBox.StandardButton
GATE_TIMEOUT = 20


def _temp_files(folder) -> list[str]:
    return [n for n in os.listdir(folder) if n.startswith(".evalgui-")]


@pytest.fixture
def evaluated(qtbot, window, tmp_path):
    """The window with qrels and two runs (copies in tmp_path) evaluated in the ranked workspace."""
    data = copy_synthetic(tmp_path / "data", runs=("bm25", "dense"))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run", data / "dense.run"])
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": "", "P.10": ""})
    run_and_wait(qtbot, ranked)
    return window, data


@pytest.fixture
def hashed(monkeypatch):
    """Every file hashed: (path, the thread that hashed it). (The project itself is hashed too, by the trust
    store: see :func:`_data`.)"""
    seen = []
    original = hashing.content_hash

    def spy(path, check=None):
        seen.append((path, threading.current_thread()))
        return original(path, check)

    monkeypatch.setattr(hashing, "content_hash", spy)
    return seen


def _data(hashed) -> list[str]:
    """The names of the data files hashed, in order (not the projects)."""
    return [os.path.basename(p) for p, _ in hashed if not p.endswith(".evalgui")]


class Gate:
    """Holds the save's worker in make_project until opened (from the window's thread, by a signal or a timer)
    or until the save is cancelled."""

    def __init__(self, monkeypatch):
        self.reached, self.open_ = threading.Event(), threading.Event()
        self.calls = 0
        original = project_module.make_project

        def held(*args, **kwargs):
            self.calls += 1
            self.reached.set()
            state = kwargs["state"]
            for _ in range(GATE_TIMEOUT * 100):
                if self.open_.wait(0.01) or state.cancelled():
                    return original(*args, **kwargs)
            raise AssertionError("the gate was never opened")

        monkeypatch.setattr(project_module, "make_project", held)

    def release(self):
        self.open_.set()


def test_a_saves_hashing_and_encoding_run_on_the_worker(qtbot, evaluated, tmp_path, hashed, monkeypatch):
    window, data = evaluated
    import evalgui.core.workflows.ranked as ranked_flow

    encoded = []
    original = ranked_flow.curves_state
    monkeypatch.setattr(ranked_flow, "curves_state", lambda results: encoded.append(threading.current_thread())
                        or original(results))
    assert window.write_project(str(tmp_path / "p.evalgui"), include_results=True)
    assert sorted(_data(hashed)) == ["bm25.run", "dense.run", "qrels.txt"]
    assert all(thread is not threading.main_thread() for _, thread in hashed)
    assert encoded and all(thread is not threading.main_thread() for thread in encoded)

    hashed.clear()                      # the report's provenance: the inputs' hashes, known already
    assert window.write_report(str(tmp_path / "r.html"))
    assert _data(hashed) == [] and "sha256:" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_each_file_version_is_hashed_once(qtbot, evaluated, tmp_path, hashed):
    window, data = evaluated
    assert window.write_project(str(tmp_path / "p.evalgui"))
    assert window.write_project(str(tmp_path / "p.evalgui"))
    assert window.write_project(str(tmp_path / "q.evalgui"))
    assert sorted(_data(hashed)) == ["bm25.run", "dense.run", "qrels.txt"]
    with open(data / "bm25.run", "a", encoding="utf-8") as fh:       # a new version: hashed again
        fh.write("\n")
    hashed.clear()
    assert window.write_project(str(tmp_path / "p.evalgui"))
    assert _data(hashed) == ["bm25.run"]
    import json

    entries = {e["path"]: e for e in json.loads((tmp_path / "p.evalgui").read_text())["files"]}
    assert entries["data/bm25.run"]["hash"] == hashing.content_hash(str(data / "bm25.run"))


def test_a_reports_hashing_and_page_building_run_on_the_worker(qtbot, evaluated, tmp_path, hashed, monkeypatch):
    import evalgui.core.workflows.report as report

    window, _ = evaluated
    built = []
    original = report.build_report
    monkeypatch.setattr(report, "build_report", lambda *a, **k: built.append(threading.current_thread())
                        or original(*a, **k))
    assert window.write_report(str(tmp_path / "r.html"))
    assert sorted(_data(hashed)) == ["bm25.run", "dense.run", "qrels.txt"]
    assert all(thread is not threading.main_thread() for _, thread in hashed)
    assert len(built) == 1 and built[0] is not threading.main_thread()


def test_a_cancelled_report_leaves_no_file(qtbot, evaluated, tmp_path, monkeypatch):
    import evalgui.core.workflows.report as report

    window, _ = evaluated
    original = report.build_report
    reached, cancelled = threading.Event(), threading.Event()

    def held(*args, **kwargs):          # on the worker: waits for the cancel, then builds (and checks) as usual
        reached.set()
        assert cancelled.wait(GATE_TIMEOUT)
        return original(*args, **kwargs)

    monkeypatch.setattr(report, "build_report", held)
    with qtbot.waitSignal(window.report_done, timeout=20_000) as ended:
        assert window.start_report(str(tmp_path / "r.html")) is not None
        assert reached.wait(GATE_TIMEOUT) and window.cancel_action.isEnabled()
        window.cancel_action.trigger()
        cancelled.set()
    assert ended.args == [str(tmp_path / "r.html"), False]
    assert not (tmp_path / "r.html").exists() and _temp_files(tmp_path) == []


def test_a_cancelled_save_leaves_the_old_file_and_no_temporary_file(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    assert window.write_project(str(target))
    before = target.read_bytes()
    window.workspaces["ranked"].form.level_spin.setValue(3)
    assert window.isWindowModified()
    gate = Gate(monkeypatch)
    window.save_project(wait=False)                                 # File ▸ Save: returns at once
    assert window.is_saving() and window.cancel_action.isEnabled() and window.load_progress.isVisible()
    assert gate.reached.wait(GATE_TIMEOUT)
    with qtbot.waitSignal(window.saved, timeout=10_000) as ended:
        window.cancel_action.trigger()                              # Esc, or the toolbar's Cancel
    assert ended.args == [str(target), False]
    assert target.read_bytes() == before and _temp_files(tmp_path) == []
    assert window.isWindowModified() and not window.is_saving() and not window.load_progress.isVisible()


def test_a_cancel_after_the_temporary_file_is_written_keeps_the_old_file(tmp_path):
    from evalgui.core.export import write_atomic
    from evalgui.core.jobs import Cancelled

    target = tmp_path / "p.evalgui"
    target.write_text("old")

    def cancelled():
        assert len(_temp_files(tmp_path)) == 1          # written in full beside the target
        raise Cancelled()

    with pytest.raises(Cancelled):
        write_atomic(target, "new", check=cancelled)
    assert target.read_text() == "old" and _temp_files(tmp_path) == []


def test_a_failed_save_keeps_the_old_file_says_why_and_returns_false(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    assert window.write_project(str(target))
    before = target.read_bytes()
    window.workspaces["ranked"].form.level_spin.setValue(3)

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as shown:
        assert not window.write_project(str(target))
    assert shown.args == ["Could not save the project", f"{target}: No space left on device"]
    assert target.read_bytes() == before and _temp_files(tmp_path) == [] and window.isWindowModified()


def test_the_window_answers_while_saving_and_a_change_meanwhile_stays_unsaved(qtbot, evaluated, tmp_path,
                                                                            monkeypatch):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    gate = Gate(monkeypatch)
    level = window.workspaces["ranked"].form.level_spin
    changed_while_saving = []

    def change():           # runs on the window's thread while the worker is held: the window answers
        changed_while_saving.append(window.is_saving())
        level.setValue(2)
        gate.release()

    QTimer.singleShot(0, change)
    assert window.write_project(str(target))
    assert changed_while_saving == [True]
    assert target.exists() and window.project_path == str(target)
    assert window.isWindowModified()                     # the level changed after the forms were read
    assert '"level": 2' not in target.read_text()


def test_a_second_save_supersedes_the_first_and_the_same_save_waits(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    first, second = tmp_path / "first.evalgui", tmp_path / "second.evalgui"
    gate = Gate(monkeypatch)
    window.start_saving(str(first))
    assert gate.reached.wait(GATE_TIMEOUT)
    window.start_saving(str(first))                      # the same save, nothing changed: waits for it
    assert window._next_save is None

    ended = []
    window.saved.connect(lambda path, ok: ended.append((os.path.basename(path), ok)))
    window.start_saving(str(second))                     # another: the first stops, then this one runs
    gate.release()
    assert window.wait_for_saving() is True
    assert ended == [("first.evalgui", False), ("second.evalgui", True)]
    assert not first.exists() and second.exists() and window.project_path == str(second)
    assert gate.calls == 2 and _temp_files(tmp_path) == []


def test_save_then_close_closes_only_after_the_save(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    monkeypatch.setattr(window, "ask_save_changes", lambda: Button.Save)
    monkeypatch.setattr(window, "ask_before_discarding", True)
    window.project_path = str(target)
    gate = Gate(monkeypatch)
    during = []

    def look():             # on the window's thread, inside close(): the save is running, the window still open
        during.append((window.is_saving(), window.isVisible()))
        gate.release()

    QTimer.singleShot(0, look)
    assert window.close()
    assert during == [(True, True)]
    assert target.exists() and not window.isVisible() and not window.isWindowModified()


def test_save_then_close_keeps_the_window_when_the_save_fails(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    monkeypatch.setattr(window, "ask_save_changes", lambda: Button.Save)
    monkeypatch.setattr(window, "ask_before_discarding", True)
    window.project_path = str(tmp_path / "no such folder" / "p.evalgui")
    with qtbot.waitSignal(window.error_shown, timeout=10_000):
        assert not window.close()
    assert window.isVisible() and window.isWindowModified()
    window.last_error_dialog.close()


def test_closing_during_a_save_waits_for_it(qtbot, evaluated, tmp_path, monkeypatch):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    gate = Gate(monkeypatch)
    window.start_saving(str(target))
    assert gate.reached.wait(GATE_TIMEOUT)
    QTimer.singleShot(0, gate.release)
    assert window.close()                                # waited: the save finished, nothing left unsaved
    assert target.exists() and not window.is_saving()


def test_closing_during_a_save_too_slow_asks_and_stopping_keeps_the_old_file(qtbot, evaluated, tmp_path,
                                                                          monkeypatch):
    import evalgui.gui.mainwindow as mainwindow

    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    assert window.write_project(str(target))
    before = target.read_bytes()
    window.workspaces["ranked"].form.level_spin.setValue(3)
    monkeypatch.setattr(mainwindow, "SAVE_PATIENCE_MS", 50)
    monkeypatch.setattr(window, "ask_before_discarding", True)
    monkeypatch.setattr(window, "ask_save_changes", lambda: Button.Discard)
    gate = Gate(monkeypatch)
    answers = []

    def stop_saving(answer):
        def ask():
            answers.append(window.is_saving())
            return answer
        return ask

    monkeypatch.setattr(window, "ask_stop_saving", stop_saving(False))
    window.start_saving(str(target))
    assert gate.reached.wait(GATE_TIMEOUT)
    assert not window.close()                            # No: the window stays, the save goes on
    assert answers == [True] and window.isVisible() and window.is_saving()
    monkeypatch.setattr(window, "ask_stop_saving", stop_saving(True))
    assert window.close()                                # Yes: the save stops, the window closes
    qtbot.waitUntil(lambda: not window.is_saving(), timeout=10_000)
    assert target.read_bytes() == before and _temp_files(tmp_path) == []


def test_a_project_opened_then_saved_again_reads_none_of_its_files_again(qtbot, evaluated, make_window, tmp_path,
                                                                         hashed):
    window, _ = evaluated
    target = tmp_path / "p.evalgui"
    assert window.write_project(str(target))
    other = make_window()
    with qtbot.waitSignal(other.files_loaded, timeout=20_000):
        other.open_project(str(target))                  # checks each file against its saved hash (the worker)
    qtbot.waitUntil(lambda: not other._loaders, timeout=20_000)
    hashed.clear()
    assert other.write_project(str(target))
    assert _data(hashed) == []
