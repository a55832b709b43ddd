"""Projects: save -> open round trip in a fresh window, relative paths, a missing file, bad project files."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.gui.conftest import MEIC, copy_synthetic, load, run_and_wait


def _set_up_session(qtbot, window, data):
    """Two qrels (the second one chosen), four runs (one unticked), edited measures and options; evaluated."""
    load(qtbot, window, [MEIC / "information_systems.qrels"])
    load(qtbot, window, [data / "qrels.txt"] + [data / f"{r}.run" for r in ("bm25", "dense", "rerank", "random")])
    ranked = window.workspaces["ranked"]
    ranked.form.qrels_combo.setCurrentIndex(ranked.form.qrels_combo.findData(str(data / "qrels.txt")))
    for i in range(ranked.form.run_list.count()):
        if ranked.form.run_list.item(i).data(Qt.ItemDataRole.UserRole) == str(data / "dense.run"):
            ranked.form.run_list.item(i).setCheckState(Qt.CheckState.Unchecked)
    ranked.form.picker.set_checked({"map": "", "P": "5,20", "ndcg_cut": "10"})
    ranked.form.picker.add_custom("P(rel=2)@5")
    ranked.form.picker.add_custom("RBP(p=0.8)", checked=False)
    ranked.form.level_spin.setValue(2)
    ranked.form.complete_check.setChecked(True)
    ranked.form.max_docs_spin.setValue(50)
    run_and_wait(qtbot, ranked)
    assert list(ranked.summary.model.frame["run"]) == ["bm25", "rerank", "random"]
    return ranked


def _wait_restored(qtbot, window, timeout=20_000):
    qtbot.waitUntil(lambda: not window._loaders, timeout=timeout)


def test_project_round_trip_in_a_fresh_window(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    ranked = _set_up_session(qtbot, first, data)
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))
    assert first.project_path == str(project) and "study.evalgui" in first.windowTitle()

    text = project.read_text()
    saved = json.loads(text)
    paths = [f["path"] for f in saved["files"]]
    assert "data/qrels.txt" in paths and "data/bm25.run" in paths        # relative below the project folder
    assert str(tmp_path) not in text                                    # no absolute path to the folder
    assert str(MEIC / "information_systems.qrels") in paths                # far away: absolute
    assert saved["forms"]["ranked"]["qrels"] == "file:data/qrels.txt"
    assert saved["forms"]["ranked"]["runs"]["file:data/dense.run"] is False
    # The ranked workflow's request behind the results: evalgui-cli run re-runs it without the window.
    request = saved["requests"]["ranked"]
    assert request["runs"] == [f"file:data/{r}.run" for r in ("bm25", "rerank", "random")]
    assert (request["level"], request["complete"], request["max_docs"]) == (2, True, 50)
    assert request["measures"] == ranked.form.picker.specs()
    from evalgui.cli import main

    assert main(["run", str(project), "-o", str(tmp_path / "out"), "--no-plots"]) == 0
    rerun = pd.read_csv(tmp_path / "out" / "ranked-summary.csv")
    shown = ranked.results[ranked.results["query"] == "all"]
    assert rerun["value"].round(12).tolist() == shown["value"].round(12).tolist()

    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    _wait_restored(qtbot, second)
    restored = second.workspaces["ranked"]
    # the curves are read again from the files: then the status bar says so, not a bare "Done"
    qtbot.waitUntil(lambda: not restored.is_busy(), timeout=20_000)
    assert second.statusBar().currentMessage() == "Results restored from the project."

    assert [(i.path, i.kind) for i in second.session.items] == [(i.path, i.kind) for i in first.session.items]
    assert restored.form.qrels_combo.currentData() == str(data / "qrels.txt")
    assert restored.form.checked_run_paths() == [str(data / f"{r}.run") for r in ("bm25", "rerank", "random")]
    assert restored.form.picker.specs() == ranked.form.picker.specs()
    assert ("RBP(p=0.8)", False) in restored.form.picker.custom_specs()
    assert restored.form.level_spin.value() == 2
    assert restored.form.complete_check.isChecked()
    assert restored.form.max_docs_spin.value() == 50
    assert restored.form_state() == ranked.form_state()

    pd.testing.assert_frame_equal(restored.results.reset_index(drop=True), ranked.results.reset_index(drop=True),
                                  check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(restored.summary.model.frame, ranked.summary.model.frame, check_exact=True,
                                  check_dtype=False)
    pd.testing.assert_frame_equal(restored.per_query.model.frame, ranked.per_query.model.frame, check_exact=True,
                                  check_dtype=False)
    assert second.project_path == str(project)

    # Running again in the restored window gives the same numbers.
    run_and_wait(qtbot, restored)
    pd.testing.assert_frame_equal(restored.results.reset_index(drop=True), ranked.results.reset_index(drop=True),
                                  check_exact=True, check_dtype=False)


def test_project_folder_can_be_moved(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "a" / "data", runs=("bm25",))
    first = make_window()
    load(qtbot, first, [data / "qrels.txt", data / "bm25.run"])
    run_and_wait(qtbot, first.workspaces["ranked"])
    assert first.write_project(str(tmp_path / "a" / "p.evalgui"))
    os.rename(tmp_path / "a", tmp_path / "b")

    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(tmp_path / "b" / "p.evalgui"))
    _wait_restored(qtbot, second)
    assert [i.path for i in second.session.items] == [str(tmp_path / "b" / "data" / "qrels.txt"),
                                                     str(tmp_path / "b" / "data" / "bm25.run")]
    assert second.workspaces["ranked"].form.qrels_combo.currentData() == str(tmp_path / "b" / "data" / "qrels.txt")
    assert list(second.workspaces["ranked"].summary.model.frame["run"]) == ["bm25"]


def test_missing_file_is_reported_and_the_rest_loads(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    ranked = _set_up_session(qtbot, first, data)
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))
    os.remove(data / "rerank.run")

    second = make_window()
    errors = []
    second.error_shown.connect(lambda title, message: errors.append((title, message)))
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    _wait_restored(qtbot, second)
    assert len(errors) == 1
    title, message = errors[0]
    assert "missing" in title.lower() and str(data / "rerank.run") in message
    assert second.last_error_dialog.isVisible()
    names = [i.name for i in second.session.items]
    assert names == ["information_systems.qrels", "qrels.txt", "bm25.run", "dense.run", "random.run"]
    restored = second.workspaces["ranked"]
    assert restored.form.checked_run_paths() == [str(data / "bm25.run"), str(data / "random.run")]
    assert restored.form.picker.specs() == ranked.form.picker.specs() and restored.form.level_spin.value() == 2
    assert not restored.results.empty                         # saved results come back too


def test_save_project_as_through_the_dialog(qtbot, window, tmp_path, monkeypatch):
    data = copy_synthetic(tmp_path, runs=("bm25",))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run"])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "p"), "")))
    assert window.save_project()                               # no path yet: asks, adds the extension
    assert (tmp_path / "p.evalgui").exists()
    assert window.recent_files()[0] == str(tmp_path / "p.evalgui")
    os.remove(tmp_path / "p.evalgui")
    assert window.save_project()                               # then saves to the same file without asking
    assert (tmp_path / "p.evalgui").exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".evalgui-")] == []


def test_project_without_results_recomputes_nothing(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path, runs=("bm25",))
    first = make_window()
    load(qtbot, first, [data / "qrels.txt", data / "bm25.run"])
    run_and_wait(qtbot, first.workspaces["ranked"])
    assert first.write_project(str(tmp_path / "p.evalgui"), include_results=False)
    assert json.loads((tmp_path / "p.evalgui").read_text())["results"] == {}
    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(tmp_path / "p.evalgui"))
    _wait_restored(qtbot, second)
    assert second.workspaces["ranked"].results.empty
    assert len(second.session.items) == 2


@pytest.mark.parametrize("content, reason", [
    ("{not json", "not valid JSON"),
    ('{"format": "something-else"}', "not an evalgui project"),
    ('{"format": "evalgui-project", "version": 99}', "newer"),
])
def test_bad_project_file_gives_a_dialog_and_keeps_the_session(qtbot, window, tmp_path, content, reason):
    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run"])
    before = [i.path for i in window.session.items]
    bad = tmp_path / "bad.evalgui"
    bad.write_text(content)
    with qtbot.waitSignal(window.error_shown, timeout=2000) as shown:
        window.open_project(str(bad))
    assert reason in shown.args[1] and "bad.evalgui" in shown.args[1]
    assert [i.path for i in window.session.items] == before
    assert window.project_path is None


def test_project_save_into_a_missing_folder_reports_it(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.error_shown, timeout=2000) as shown:
        assert not window.write_project(str(tmp_path / "nowhere" / "p.evalgui"))
    assert "Could not save" in shown.args[0]
    assert window.project_path is None


def test_projects_leave_results_out_when_asked(qtbot, window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    _set_up_session(qtbot, window, data)
    window.include_results_action.setChecked(False)      # File > Save results in projects
    project = tmp_path / "light.evalgui"
    assert window.write_project(str(project))
    saved = json.loads(project.read_text())
    assert saved["results"] == {} and saved["forms"]["ranked"]["max_docs"] == 50
    window.include_results_action.setChecked(True)
    assert window.write_project(str(project))
    assert set(json.loads(project.read_text())["results"]) == {"ranked"}


def test_a_version_1_project_opens_with_its_comparison(qtbot, make_window, tmp_path):
    """A project saved by the previous release (format version 1, kept under tests/data) still opens: its
    files load and the compare workspace shows its saved comparison and preferences."""
    import shutil

    from tests.conftest import ROOT

    shutil.copytree(ROOT / "tests" / "data" / "projects" / "v1", tmp_path / "v1")
    window = make_window()
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(tmp_path / "v1" / "meic-v1.evalgui"))
    _wait_restored(qtbot, window)
    compare = window.workspaces["compare"]
    assert compare.comparison is not None and compare.preferences is not None
    assert set(compare.comparison.measures) == {"map", "P_5"} and compare.comparison.options.test == "randomization"
    assert compare.table.model.rowCount() > 0
    # its preference ticked by registered name ("rpp"), shown as papers name it
    assert compare.form.preference_measures() == ["rpp"] and compare.form.preference_list.item(0).text() == "RPP"
    assert compare.preference_view.measure.currentData() == "rpp"
    assert compare.preference_view.measure.currentText() == "RPP"


def test_a_project_saved_by_the_window_reruns_from_the_command_line(qtbot, make_window, tmp_path, capsys):
    """The window keeps the compare request in the project; evalgui-cli run re-runs it and --check agrees."""
    from evalgui.cli import main

    data = copy_synthetic(tmp_path / "data")
    window = make_window()
    load(qtbot, window, [data / "qrels.txt"] + [data / f"{r}.run" for r in ("bm25", "dense", "rerank")])
    compare = window.workspaces["compare"]
    compare.form.picker.set_checked({"map": "", "P": "10"})
    run_and_wait(qtbot, compare)
    project = tmp_path / "study.evalgui"
    assert window.write_project(str(project))
    saved = json.loads(project.read_text())
    assert saved["version"] == 2 and saved["requests"]["compare"]["runs"][0] == "file:data/bm25.run"
    assert all(f["hash"].startswith("sha256:") for f in saved["files"])
    status = main(["run", str(project), "-o", str(tmp_path / "out"), "--check", "--no-plots"])
    out, err = capsys.readouterr()
    assert status == 0 and out == "", (out, err)


def test_results_from_a_file_changed_since_the_project_was_saved_are_marked_stale(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    window = make_window()
    load(qtbot, window, [data / "qrels.txt"] + [data / f"{r}.run" for r in ("bm25", "dense", "rerank")])
    ranked, compare = window.workspaces["ranked"], window.workspaces["compare"]
    run_and_wait(qtbot, ranked)
    compare.form.picker.set_checked({"map": ""})
    run_and_wait(qtbot, compare)
    project = tmp_path / "study.evalgui"
    assert window.write_project(str(project))
    with open(data / "bm25.run", "a") as fh:
        fh.write("\n")
    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    _wait_restored(qtbot, second)
    for key in ("ranked", "compare"):
        workspace = second.workspaces[key]
        assert workspace.has_results()
        banner = workspace.stale_banner
        assert banner.isVisibleTo(workspace) and "bm25.run has changed since the project was saved" in banner.text(), \
            (key, banner.text())


def test_a_project_counts_as_loading_until_its_forms_and_results_are_restored(qtbot, window):
    # A project's files arrive together and its restoring follows a turn later: in between the window is
    # still loading, so nothing that waits for it to be idle (the self-test's exit, a test) acts too soon.
    restored, seen_at_done = [], []
    worker = window.load_files([(str(MEIC / "information_systems.qrels"), None)],
                               then=lambda: restored.append(True), remember=False, at_once=True)
    worker.done.connect(lambda: seen_at_done.append((bool(window._loaders), bool(restored))))
    qtbot.waitUntil(lambda: bool(restored), timeout=20_000)
    assert seen_at_done == [(True, False)]
    assert not window._loaders and not window.load_progress.isVisible()
