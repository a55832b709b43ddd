"""Session state in the main window: unsaved changes (title, questions), results out of date, what opening
a project or the command line shows, and runs that share a file name."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from evalgui.gui.mainwindow import MainWindow
from tests.gui.conftest import (MEIC, SYNTHETIC, copy_synthetic, load, load_long_job, load_synthetic,
                                open_demo_and_wait, run_and_wait)

# The real questions (the suite answers them without asking, see conftest._questions_answered).
REAL_ASK_SAVE_CHANGES = MainWindow.ask_save_changes
REAL_ASK_STOP_JOB = MainWindow.ask_stop_job
Button = QMessageBox.StandardButton


class Answers:
    """Stands in for the window's questions: gives the answers set, records what was asked."""

    def __init__(self, window, monkeypatch, save=Button.Discard, stop=True):
        self.save, self.stop, self.asked = save, stop, []
        monkeypatch.setattr(window, "ask_save_changes", self._ask_save)
        monkeypatch.setattr(window, "ask_stop_job", self._ask_stop)

    def _ask_save(self):
        self.asked.append("save")
        return self.save

    def _ask_stop(self, then):
        self.asked.append(f"stop and {then}")
        return self.stop


def _runs_ticked(ranked) -> list[str]:
    return [ranked.form.run_list.item(i).text() for i in range(ranked.form.run_list.count())
            if ranked.form.run_list.item(i).checkState() == Qt.CheckState.Checked]


def _tick(ranked, path, checked: bool) -> None:
    for i in range(ranked.form.run_list.count()):
        row = ranked.form.run_list.item(i)
        if row.data(Qt.ItemDataRole.UserRole) == str(path):
            row.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)


def _open_project_and_wait(qtbot, window, project):
    ranked = window.workspaces["ranked"]
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project))
    qtbot.waitUntil(lambda: not window._loaders and not ranked.is_busy(), timeout=30_000)
    return ranked


def _saved_session(qtbot, make_window, tmp_path, runs=("bm25", "dense", "random")):
    """A window that evaluated copies of the synthetic data, saved as tmp_path/study.evalgui."""
    data = copy_synthetic(tmp_path / "data", runs=runs)
    window = make_window()
    load(qtbot, window, [data / "qrels.txt"] + [data / f"{r}.run" for r in runs])
    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)
    run_and_wait(qtbot, ranked)
    project = tmp_path / "study.evalgui"
    assert window.write_project(str(project))
    return window, ranked, data, project


def _legend(plot) -> list[str]:
    return [label.text for _, label in plot.legend.items]


# ============================================================================ 4. unsaved changes
def test_the_title_marks_unsaved_changes_and_saving_or_opening_clears_the_mark(qtbot, make_window, tmp_path):
    window = make_window()
    assert not window.isWindowModified() and window.windowTitle() == "evalgui"
    data = copy_synthetic(tmp_path / "data", runs=("bm25", "dense"))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run"])                   # adding files
    assert window.isWindowModified() and window.windowTitle() == "evalgui — untitled[*]"

    project = tmp_path / "p.evalgui"
    assert window.write_project(str(project))
    assert not window.isWindowModified() and window.windowTitle() == "evalgui — p.evalgui[*]"

    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)                                              # the form in sight
    ranked.form.level_spin.setValue(2)                                                # any form change
    assert window.isWindowModified()
    assert window.write_project(str(project))
    run_and_wait(qtbot, ranked)                                                       # new results
    assert window.isWindowModified()
    assert window.write_project(str(project))
    ranked.form.picker.set_checked({"map": ""})
    assert window.isWindowModified()
    assert window.write_project(str(project))
    qtbot.mouseClick(ranked.form.complete_check, Qt.MouseButton.LeftButton)
    assert ranked.form.complete_check.isChecked() and window.isWindowModified()
    assert window.write_project(str(project))
    window.data_panel.remove_requested.emit(str(data / "bm25.run"))                   # removing a file
    assert window.isWindowModified()
    assert window.write_project(str(project))
    ranked.form.picker.search.setText("ndcg")                                         # looking is no change
    assert not window.isWindowModified()

    other = make_window()
    _open_project_and_wait(qtbot, other, project)
    assert not other.isWindowModified() and other.windowTitle() == "evalgui — p.evalgui[*]"


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_everything(qtbot, window, monkeypatch, tmp_path):
    load_synthetic(qtbot, window, runs=("bm25",))
    answers = Answers(window, monkeypatch, save=Button.Cancel)
    window.quit_action.trigger()                                   # File ▸ Quit
    assert not window.close()                                      # the window's close button
    assert answers.asked == ["save", "save"] and window.isVisible() and len(window.session.items) == 2
    assert window.isWindowModified()

    # Save: the project dialog, then the window closes.
    answers.save = Button.Save
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "s"), "")))
    assert window.close()
    assert (tmp_path / "s.evalgui").exists() and not window.isVisible()


def test_save_cancelled_in_the_file_dialog_keeps_the_window_open(qtbot, window, monkeypatch):
    load_synthetic(qtbot, window, runs=("bm25",))
    Answers(window, monkeypatch, save=Button.Save)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    assert not window.close() and window.isVisible()


def test_discard_closes_and_an_unchanged_window_asks_nothing(qtbot, make_window, monkeypatch):
    window = make_window()
    load_synthetic(qtbot, window, runs=("bm25",))
    answers = Answers(window, monkeypatch, save=Button.Discard)
    assert window.close() and answers.asked == ["save"]

    untouched = make_window()
    answers = Answers(untouched, monkeypatch)
    assert untouched.close() and answers.asked == []


def test_opening_another_project_asks_first(qtbot, make_window, monkeypatch, tmp_path):
    window, ranked, data, project = _saved_session(qtbot, make_window, tmp_path)
    other = tmp_path / "other.evalgui"
    assert window.write_project(str(other), include_results=False)
    assert window.write_project(str(project))
    ranked.form.level_spin.setValue(3)
    answers = Answers(window, monkeypatch, save=Button.Cancel)

    window.open_project(str(other))                          # Cancel: nothing changes
    qtbot.waitUntil(lambda: answers.asked == ["save"] and not window._loaders, timeout=10_000)  # read on the worker
    assert window.project_path == str(project) and ranked.form.level_spin.value() == 3
    assert len(window.session.items) == 4 and not ranked.results.empty and window.isWindowModified()

    answers.save = Button.Save                               # Save: into study.evalgui, then open the other
    _open_project_and_wait(qtbot, window, other)
    assert json.loads(project.read_text())["forms"]["ranked"]["level"] == 3
    assert window.project_path == str(other) and ranked.results.empty and not window.isWindowModified()

    # The demo adds to the session and replaces nothing: no question.
    answers.asked.clear()
    ranked.form.level_spin.setValue(1)
    open_demo_and_wait(qtbot, window)
    assert answers.asked == []


def test_closing_while_evaluating_asks_to_stop_it(qtbot, window, monkeypatch, big_collection):
    ranked = load_long_job(qtbot, window, big_collection, copies=40)
    with qtbot.waitSignal(ranked.busy_changed, timeout=5000):
        ranked.run()
    answers = Answers(window, monkeypatch, stop=False)
    assert not window.close()
    assert answers.asked == ["stop and quit"] and ranked.is_busy() and window.isVisible()

    answers.stop = True
    assert window.close()
    assert answers.asked == ["stop and quit", "stop and quit", "save"] and not window.isVisible()
    qtbot.waitUntil(lambda: not ranked.is_busy(), timeout=5000)
    assert len(set(ranked.results["run"])) < 40                 # stopped, not run to the end


def test_the_questions_are_message_boxes_with_the_standard_buttons(qtbot, window, monkeypatch):
    monkeypatch.setattr(MainWindow, "ask_save_changes", REAL_ASK_SAVE_CHANGES)
    monkeypatch.setattr(MainWindow, "ask_stop_job", REAL_ASK_STOP_JOB)
    seen = []

    def answer_with(button):
        def click():
            box = QApplication.activeModalWidget()
            if not isinstance(box, QMessageBox):
                QTimer.singleShot(10, click)
                return
            seen.append((box.objectName(), box.text(), box.standardButtons()))
            box.button(button).click()
        QTimer.singleShot(0, click)

    answer_with(Button.Cancel)
    assert window.ask_save_changes() == Button.Cancel
    name, text, buttons = seen[-1]
    assert name == "saveChangesQuestion" and text == "Save this session in a project?"
    assert buttons == Button.Save | Button.Discard | Button.Cancel
    box = window.save_changes_box()
    assert box.defaultButton() is box.button(Button.Save) and box.escapeButton() is box.button(Button.Cancel)

    answer_with(Button.No)
    assert window.ask_stop_job("quit") is False
    assert seen[-1][:2] == ("stopJobQuestion", "An evaluation is running. Stop it and quit?")
    answer_with(Button.Yes)
    assert window.ask_stop_job("quit") is True


def _main(qtbot, monkeypatch, argv, smoke_env=True):
    """app.main(argv) as the smoke test runs it (EVALGUI_SMOKE_TEST=1 unless not ``smoke_env``);
    (exit status, the window)."""
    from evalgui.gui import app

    windows = []
    original = app.create_main_window

    def create():
        windows.append(original())
        qtbot.addWidget(windows[-1])
        return windows[-1]

    if smoke_env:
        monkeypatch.setenv("EVALGUI_SMOKE_TEST", "1")
    else:
        monkeypatch.delenv("EVALGUI_SMOKE_TEST", raising=False)
    monkeypatch.setattr(app, "create_main_window", create)
    status = app.main([str(a) for a in argv])
    return status, windows[0]


def test_the_smoke_test_never_asks(qtbot, monkeypatch):
    def never(*_):
        raise AssertionError("the smoke test asked a question")

    monkeypatch.setattr(MainWindow, "ask_save_changes", never)
    monkeypatch.setattr(MainWindow, "ask_stop_job", never)
    status, window = _main(qtbot, monkeypatch, ["--demo"])
    assert status == 0 and window.isWindowModified()
    assert window.close()


# ============================================================================ 5. results out of date
def test_results_the_form_no_longer_describes_say_so_until_run(qtbot, window, tmp_path):
    load(qtbot, window, [MEIC / "information_systems.qrels"])
    load_synthetic(qtbot, window, runs=("bm25", "dense"))
    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)
    ranked.set_qrels(str(SYNTHETIC / "qrels.txt"))
    banner = ranked.stale_banner
    run_and_wait(qtbot, ranked)
    assert banner.objectName() == "staleBanner" and banner.isHidden()

    combo = ranked.form.qrels_combo
    combo.setCurrentIndex(combo.findData(str(MEIC / "information_systems.qrels")))     # another qrels
    assert banner.isVisible()
    assert banner.text().startswith("⚠ Computed with qrels.txt; the form has changed since (the qrels")
    assert banner.text().endswith("press Run to update.")
    window.grab().save(str(tmp_path / "stale.png"))
    combo.setCurrentIndex(combo.findData(str(SYNTHETIC / "qrels.txt")))               # back: current again
    assert banner.isHidden()

    _tick(ranked, SYNTHETIC / "dense.run", False)
    assert "the runs ticked" in banner.text() and banner.isVisible()
    _tick(ranked, SYNTHETIC / "dense.run", True)
    assert banner.isHidden()
    ranked.form.picker.set_checked({"map": "", "P": "10"})
    assert "(the measures)" in banner.text() and banner.isVisible()
    ranked.form.complete_check.setChecked(True)
    assert "(the measures, the options)" in banner.text()
    run_and_wait(qtbot, ranked)
    assert banner.isHidden() and list(ranked.summary.model.frame.columns) == ["run", "map", "P_10"]


def test_a_file_read_again_or_removed_makes_results_stale(qtbot, window):
    load_synthetic(qtbot, window, runs=("bm25", "dense"))
    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)
    run_and_wait(qtbot, ranked)
    load(qtbot, window, [(SYNTHETIC / "bm25.run", "run")])                             # the same path again
    assert ranked.stale_banner.isVisible() and "bm25.run has been read again" in ranked.stale_banner.text()
    run_and_wait(qtbot, ranked)
    assert ranked.stale_banner.isHidden()
    window.data_panel.remove_requested.emit(str(SYNTHETIC / "qrels.txt"))
    assert "qrels.txt is no longer loaded" in ranked.stale_banner.text() and ranked.stale_banner.isVisible()


def test_removing_a_run_drops_it_from_every_view(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: ranked.drill_down.model_b.rowCount() > 0, timeout=5000)
    ranked.results_tabs.setCurrentWidget(ranked.run_matrix.page)
    assert "dense" in list(ranked.run_matrix.model.frame.index)

    window.data_panel.remove_requested.emit(str(SYNTHETIC / "dense.run"))
    left = ["bm25", "rerank", "random"]
    assert list(ranked.summary.model.frame["run"]) == left
    assert "dense" not in ranked.per_query.model.frame.columns and "dense" not in set(ranked.results["run"])
    assert ranked.curves.plot.runs() == left and _legend(ranked.curves.plot) == left
    for combo in (ranked.differences.baseline, ranked.drill_down.run_a, ranked.drill_down.run_b):
        assert "dense" not in [combo.itemData(i) for i in range(combo.count())]
    assert "dense" not in [ranked.differences.run.itemData(i) for i in range(ranked.differences.run.count())]
    assert list(ranked.run_matrix.model.frame.index) == left
    # What is left is what Run would show: not out of date.
    assert ranked.stale_banner.isHidden()


# ============================================================================ 7. projects and the command line
def test_opening_a_project_shows_its_results_with_curves_and_drill_down(qtbot, make_window, tmp_path):
    first, saved, data, project = _saved_session(qtbot, make_window, tmp_path)
    second = make_window()
    assert second.tabs.currentWidget() is second.welcome
    ranked = _open_project_and_wait(qtbot, second, project)

    assert second.tabs.currentWidget() is ranked                   # not the Welcome page
    pd.testing.assert_frame_equal(ranked.summary.model.frame, saved.summary.model.frame, check_exact=True,
                                  check_dtype=False)
    assert ranked.curves.plot.runs() == ["bm25", "dense", "random"]      # without pressing Run
    for run in ("bm25", "dense", "random"):
        np.testing.assert_array_equal(ranked.curves.plot.curve_points(run)[1], saved.curves.plot.curve_points(run)[1])
    qtbot.waitUntil(lambda: ranked.drill_down.model_a.rowCount() > 0 and ranked.drill_down.model_b.rowCount() > 0,
                    timeout=5000)
    assert ranked.drill_down.run_a.count() == 3
    assert ranked.progress_label.text() == "Results restored from the project."
    assert ranked.stale_banner.isHidden() and not second.isWindowModified()


def test_a_project_whose_results_are_out_of_date_opens_out_of_date(qtbot, make_window, tmp_path):
    first, saved, data, project = _saved_session(qtbot, make_window, tmp_path)
    saved.form.picker.set_checked({"map": ""})                      # saved with the form changed since Run
    assert saved.stale_banner.isVisible()
    assert first.write_project(str(project))
    ranked = _open_project_and_wait(qtbot, make_window(), project)
    assert ranked.stale_banner.isVisible() and "(the measures)" in ranked.stale_banner.text()
    pd.testing.assert_frame_equal(ranked.summary.model.frame, saved.summary.model.frame, check_dtype=False)
    assert ranked.curves.plot.runs() == ["bm25", "dense", "random"]


def test_a_run_file_changed_since_saving_keeps_the_saved_numbers_and_says_so(qtbot, make_window, tmp_path):
    first, saved, data, project = _saved_session(qtbot, make_window, tmp_path)
    shutil.copy(SYNTHETIC / "rerank.run", data / "dense.run")        # dense.run now holds other rankings
    ranked = _open_project_and_wait(qtbot, make_window(), project)
    pd.testing.assert_frame_equal(ranked.summary.model.frame, saved.summary.model.frame, check_exact=True,
                                  check_dtype=False)
    assert ranked.stale_banner.isVisible()
    assert "dense.run has changed since the project was saved" in ranked.stale_banner.text()
    assert "bm25.run has" not in ranked.stale_banner.text()


def test_a_project_saved_before_results_named_their_inputs_still_gets_its_curves(qtbot, make_window, tmp_path):
    first, saved, data, project = _saved_session(qtbot, make_window, tmp_path)
    state = json.loads(project.read_text())
    del state["results"]["ranked"]["inputs"]
    project.write_text(json.dumps(state))
    ranked = _open_project_and_wait(qtbot, make_window(), project)
    assert ranked.curves.plot.runs() == ["bm25", "dense", "random"] and ranked.stale_banner.isHidden()


def test_a_project_whose_files_are_gone_keeps_its_numbers(qtbot, make_window, tmp_path):
    first, saved, data, project = _saved_session(qtbot, make_window, tmp_path, runs=("bm25",))
    (data / "qrels.txt").unlink()
    ranked = _open_project_and_wait(qtbot, make_window(), project)
    assert list(ranked.summary.model.frame["run"]) == ["bm25"] and ranked.curves.plot.runs() == []
    assert "stay empty until you press Run" in ranked.progress_label.text()
    assert "qrels.txt is no longer loaded" in ranked.stale_banner.text()


def test_command_line_files_are_shown_and_evaluated_in_the_ranked_workspace(qtbot, monkeypatch):
    status, window = _main(qtbot, monkeypatch, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run",
                                                SYNTHETIC / "dense.run"])
    ranked = window.workspaces["ranked"]
    assert status == 0 and window.tabs.currentWidget() is ranked
    assert ranked.form.qrels_combo.currentData() == str(SYNTHETIC / "qrels.txt")
    assert _runs_ticked(ranked) == ["bm25.run", "dense.run"]
    assert list(ranked.summary.model.frame["run"]) == ["bm25", "dense"]
    assert ranked.curves.plot.runs() == ["bm25", "dense"]


def test_command_line_runs_without_qrels_are_shown_not_evaluated(qtbot, monkeypatch):
    status, window = _main(qtbot, monkeypatch, [SYNTHETIC / "bm25.run"])
    ranked = window.workspaces["ranked"]
    assert status == 0 and window.tabs.currentWidget() is ranked and ranked.results.empty


def test_a_project_on_the_command_line_opens_on_its_results(qtbot, make_window, monkeypatch, tmp_path):
    _saved_session(qtbot, make_window, tmp_path, runs=("bm25", "dense"))
    status, window = _main(qtbot, monkeypatch, [tmp_path / "study.evalgui"])
    ranked = window.workspaces["ranked"]
    assert status == 0 and window.tabs.currentWidget() is ranked
    assert ranked.curves.plot.runs() == ["bm25", "dense"] and not window.isWindowModified()


def test_data_opened_from_the_welcome_page_shows_the_workspace(qtbot, window, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(SYNTHETIC / "qrels.txt"), str(SYNTHETIC / "bm25.run")],
                                                      "")))
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_data_action.trigger()
    assert window.tabs.currentWidget() is window.workspaces["ranked"]
    assert window.workspaces["ranked"].results.empty            # opening data is not evaluating it


# ============================================================================ 11. runs sharing a file name
def test_runs_with_the_same_file_name_are_named_by_their_folders_everywhere(qtbot, window, tmp_path):
    copy_synthetic(tmp_path / "a", runs=("bm25",))
    (tmp_path / "b").mkdir()
    shutil.copy(SYNTHETIC / "dense.run", tmp_path / "b" / "bm25.run")
    load(qtbot, window, [tmp_path / "a" / "qrels.txt", tmp_path / "a" / "bm25.run", tmp_path / "b" / "bm25.run"])
    tree = window.data_panel.tree
    assert [tree.topLevelItem(i).text(1) for i in range(tree.topLevelItemCount())] == \
        ["qrels.txt", "a/bm25.run", "b/bm25.run"]
    ranked = window.workspaces["ranked"]
    assert _runs_ticked(ranked) == ["a/bm25.run", "b/bm25.run"]

    run_and_wait(qtbot, ranked)
    names = ["a/bm25", "b/bm25"]
    assert list(ranked.summary.model.frame["run"]) == names
    assert list(ranked.per_query.model.frame.columns)[1:] == names
    assert ranked.curves.plot.runs() == names and _legend(ranked.curves.plot) == names
    # The drill-down is filled on the worker, latest request winning: wait for the last one's lists.
    qtbot.waitUntil(lambda: ranked.drill_down.model_b.rowCount() > 0
                    and "b/bm25" in ranked.drill_down.label_b.text(), timeout=5000)
    assert [ranked.drill_down.run_a.itemText(i) for i in range(2)] == names
    assert ranked.differences.baseline.currentText() in names

    window.data_panel.remove_requested.emit(str(tmp_path / "a" / "bm25.run"))
    assert [tree.topLevelItem(i).text(1) for i in range(tree.topLevelItemCount())] == ["qrels.txt", "bm25.run"]
    assert list(ranked.summary.model.frame["run"]) == ["b/bm25"]



def test_a_project_opened_while_another_restores_gets_its_own_curves(qtbot, make_window, tmp_path, monkeypatch):
    import threading

    from evalgui.gui.workspaces import ranked as ranked_module

    first, _, _, project_a = _saved_session(qtbot, make_window, tmp_path / "a", runs=("bm25", "dense"))
    _saved_session(qtbot, make_window, tmp_path / "b", runs=("random",))
    # The first project's job stays in flight (held at its start) until the second project has loaded.
    gate, real_job = threading.Event(), ranked_module.evaluation_job
    monkeypatch.setattr(ranked_module, "evaluation_job",
                        lambda *args: (lambda job: lambda state: gate.wait(10) and job(state))(real_job(*args)))

    window = make_window()
    ranked = window.workspaces["ranked"]
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project_a))
    assert ranked.is_busy()
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(tmp_path / "b" / "study.evalgui"))
    assert ranked.is_busy() and ranked.curves.plot.runs() == []     # the first job has not stopped yet
    gate.set()
    qtbot.waitUntil(lambda: ranked.curves.plot.runs() == ["random"] and not ranked.is_busy(), timeout=20_000)
    assert list(ranked.summary.model.frame["run"]) == ["random"] and ranked.stale_banner.isHidden()
