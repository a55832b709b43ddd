"""The main window: menus, toolbar, status bar, the Data dock and one tab per workspace."""

from __future__ import annotations

import json
import os
import time

from PySide6.QtCore import QByteArray, QEventLoop, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCursor, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar,
                               QPushButton, QTabWidget, QVBoxLayout, QWidget)

from evalgui.gui.accessibility import name_controls
from evalgui.gui.datapanel import DataPanel
from evalgui.gui.docking import DockWidthKeeper
from evalgui.gui.naming import add_menu as measure_names_menu
from evalgui.core.inputs import LoadedInput, LoadFailure, kinds, load_files_job, open_dialog_filters
from evalgui.gui.session import Session
from evalgui.gui.settings import app_settings
from evalgui.gui.worker import Worker
from evalgui.gui.workspaces import workspace_classes

MAX_RECENT = 10
CLOSE_PATIENCE_MS = 3000       # how long closing the window waits for jobs to stop
SAVE_PATIENCE_MS = 10_000      # how long closing the window waits for a save before asking whether to stop it
BATCH_MS = 100                 # loaded files reach the session at most this often (more rarely when it is large)
PROJECT_FILTER = "evalgui project (*.evalgui)"
# The smallest window in which the form, Run and the results all fit side by side (parts scroll inside).
MIN_WINDOW_SIZE = (800, 480)       # fits 1366×768 at 150 % (911×512 device-independent pixels, title bar included)
DATA_DOCK_WIDTH = 300          # until the user drags it wider or narrower
DATA_DOCK_MIN_WIDTH = 180      # file names and kinds stay readable
WIDE_WINDOW = 1300             # narrower windows (a laptop's) narrow the Data dock and the forms
LAPTOP_WINDOW = 1000


def demo_files() -> list[tuple[str, str]]:
    """What the demo loads: every workspace's sample (evalgui.gui.first_steps)."""
    from evalgui.gui.first_steps import all_sample_files

    return all_sample_files()


def _answer(box: QMessageBox) -> QMessageBox.StandardButton:
    """Show a question and wait; closing it without a button counts as its escape button (No, Cancel)."""
    box.exec()
    clicked = box.clickedButton() or box.escapeButton()
    return box.standardButton(clicked) if clicked is not None else QMessageBox.StandardButton.Cancel


class WelcomePage(QWidget):
    def __init__(self, window: "MainWindow"):
        super().__init__(window)
        title = QLabel("<h1>evalgui</h1><p>Evaluate search engines, recommenders and case-based retrievers: "
                       "load TREC qrels and runs, tick measures, press Run.</p>")
        title.setWordWrap(True)
        demo = QPushButton("Open demo")
        demo.setObjectName("openDemoButton")
        demo.setMinimumHeight(36)
        demo.clicked.connect(lambda: window.open_demo())        # not clicked(checked) as `only`
        open_data = QPushButton("Open data…")
        open_data.clicked.connect(window.open_data_dialog)
        open_project = QPushButton("Open project…")
        open_project.clicked.connect(window.open_project_dialog)
        guide = QPushButton("Getting started")
        guide.setObjectName("gettingStartedButton")
        guide.clicked.connect(lambda: window.show_getting_started())
        hint = QLabel("The demo loads sample data for every workspace and evaluates it: a synthetic collection "
                      "(50 queries, graded judgments, four runs of different quality) ranked, compared and "
                      "meta-evaluated, a rank file's measures checked for stability, and used cars retrieved by "
                      "similarity. Help ▸ Getting started explains each workspace. "
                      "You can also drop files anywhere on this window.")
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        layout.addWidget(title)
        for button in (demo, open_data, open_project, guide):
            button.setMaximumWidth(260)
            layout.addWidget(button)
        layout.addWidget(hint)
        layout.addStretch(1)


class MainWindow(QMainWindow):
    files_loaded = Signal()          # a batch of files has been read (whatever the outcome)
    load_failed = Signal(list)       # LoadFailure list of the batch (the dialog shows them)
    error_shown = Signal(str, str)   # title, message of every error dialog
    demo_finished = Signal(list)     # the demo evaluated every workspace: the titles of those that failed
    sample_opened = Signal(str)      # an empty workspace's sample is loaded and set (its key)
    saved = Signal(str, bool)        # a save ended: the project's path, whether it was written
    report_done = Signal(str, bool)  # a report ended: its path, whether it was written

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("evalgui")
        self.setObjectName("mainWindow")
        self.setMinimumSize(*MIN_WINDOW_SIZE)
        self.setAcceptDrops(True)
        self.session = Session(self)
        self.project_path: str | None = None
        # Ask before unsaved changes or a running evaluation are thrown away (the smoke test never waits).
        self.ask_before_discarding = True
        self._loaders: list[Worker] = []
        self._generation = 0          # bumped when a project replaces the session
        self._opening: str | None = None   # the project being opened (read and checked on the worker)
        self.demo = None              # first_steps.DemoTour while (or since) the demo runs
        self.getting_started = None   # help.GettingStarted, once opened
        self._saver: Worker | None = None          # the save running on the worker
        self._next_save: tuple[str, bool] | None = None   # a save asked meanwhile: starts when that one ends
        self._saving: tuple | None = None          # (path, include_results, changes) of the running save
        self._last_save_ok = False
        self._changes = 0             # counted up by every change: a save knows whether any came after it
        self._reporter: Worker | None = None       # the report being written on the worker
        self._closing = False

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workspaceTabs")
        self.tabs.setDocumentMode(True)
        self.welcome = WelcomePage(self)
        self.tabs.addTab(self.welcome, "Welcome")
        self.workspaces = {}
        for cls in workspace_classes():
            ws = cls(self.session, self)
            ws.status_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
            ws.error.connect(self.show_error)
            ws.busy_changed.connect(self._busy_changed)
            ws.file_reader.connect(self.follow_reader)
            ws.modified.connect(self._mark_modified)
            ws.sample_requested.connect(lambda key=cls.key: self.open_sample(key))
            self.workspaces[cls.key] = ws
            self.tabs.addTab(ws, cls.title)
        self.setCentralWidget(self.tabs)

        self.data_panel = DataPanel(self.session, self)
        self.data_panel.reload_as.connect(lambda path, kind: self.load_files([(path, kind)]))
        self.data_panel.remove_requested.connect(self.session.remove)
        self.data_panel.open_requested.connect(self.open_data_dialog)
        self.data_dock = QDockWidget("Data", self)
        self.data_dock.setObjectName("dataDock")
        self.data_dock.setWidget(self.data_panel)
        self.data_panel.setMinimumWidth(DATA_DOCK_MIN_WIDTH)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.data_dock)
        self.data_dock_width = DockWidthKeeper(self, self.data_dock, DATA_DOCK_WIDTH, "window/data_dock_width",
                                               limit=data_dock_limit)

        self.load_progress = QProgressBar()
        self.load_progress.setMaximumWidth(180)
        self.load_progress.setRange(0, 1000)
        self.load_progress.hide()
        self.statusBar().addPermanentWidget(self.load_progress)
        self.statusBar().showMessage("Ready")

        self._build_actions()
        self._restore_settings()
        self.session.changed.connect(self._mark_modified)
        self._set_modified(False)      # restoring the last-used parameters changes nothing to save
        name_controls(self)            # every control a screen reader lands on says what it is

    # ================================================================ menus and toolbar
    def _build_actions(self) -> None:
        def action(text, slot, shortcut=None, tip=None):
            act = QAction(text, self)
            act.triggered.connect(slot)
            if shortcut is not None:
                act.setShortcut(shortcut)
            if tip:
                act.setStatusTip(tip)
            return act

        self.open_data_action = action("Open data…", self.open_data_dialog, QKeySequence.StandardKey.Open,
                                       "Load qrels and runs")
        self.open_project_action = action("Open project…", self.open_project_dialog, QKeySequence("Ctrl+Shift+O"))
        # The menu's saves run on the worker and return at once (save_project() waits, for its callers).
        self.save_project_action = action("Save project", lambda: self.save_project(wait=False),
                                          QKeySequence.StandardKey.Save)
        self.save_project_as_action = action("Save project as…", lambda: self.save_project_as(wait=False),
                                             QKeySequence.StandardKey.SaveAs)
        self.export_action = action("Export…", self.export_menu_popup, QKeySequence("Ctrl+E"),
                                    "Export a table or a plot of the current workspace")
        self.quit_action = action("Quit", self.close, QKeySequence.StandardKey.Quit)
        self.demo_action = action("Open demo", lambda: self.open_demo(),
                                  tip="Load every workspace's sample data and evaluate it")
        self.run_action = action("Run", self._run_current, QKeySequence("Ctrl+R"), "Evaluate with the form's settings")
        self.cancel_action = action("Cancel", self._cancel_current, QKeySequence("Esc"), "Stop the running job")
        self.cancel_action.setEnabled(False)

        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.open_data_action)
        file_menu.addAction(self.open_project_action)
        self.recent_menu = file_menu.addMenu("Recent")
        file_menu.addSeparator()
        file_menu.addAction(self.save_project_action)
        file_menu.addAction(self.save_project_as_action)
        self.include_results_action = QAction("Save results in projects", self)
        self.include_results_action.setCheckable(True)
        self.include_results_action.setStatusTip("Keep the result tables in the project file (otherwise only files "
                                                 "and settings; press Run after opening)")
        self.include_results_action.setChecked(app_settings().value("project/include_results", True, type=bool))
        self.include_results_action.toggled.connect(lambda on: app_settings().setValue("project/include_results", on))
        file_menu.addAction(self.include_results_action)
        file_menu.addSeparator()
        self.export_menu = file_menu.addMenu("Export…")
        self.export_menu.aboutToShow.connect(self._fill_export_menu)
        self.report_action = action("Export report…", self.export_report_dialog,
                                    tip="Write every workspace's results, plots and how they were made as one web page")
        file_menu.addAction(self.report_action)
        file_menu.addSeparator()
        file_menu.addAction(self.demo_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)

        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.data_dock.toggleViewAction())
        self.toolbar = self.addToolBar("Main")
        self.toolbar.setObjectName("mainToolbar")
        view_menu.addAction(self.toolbar.toggleViewAction())
        self.measure_names_menu = measure_names_menu(view_menu)
        view_menu.addSeparator()
        for i in range(self.tabs.count()):
            view_menu.addAction(action(self.tabs.tabText(i), lambda _=False, i=i: self.tabs.setCurrentIndex(i),
                                       QKeySequence(f"Ctrl+{i + 1}")))

        help_menu = self.menuBar().addMenu("&Help")
        self.getting_started_action = action("Getting started", self.show_getting_started,
                                             QKeySequence.StandardKey.HelpContents,
                                             "What each workspace needs, what it shows and how to read it")
        help_menu.addAction(self.getting_started_action)
        help_menu.addAction(action("Measures reference", self.show_measures_reference))
        help_menu.addAction(action("How many queries?", self.show_power_calculator,
                                   tip="How many queries a comparison needs, or the smallest difference it detects"))
        help_menu.addAction(action("About evalgui", self.show_about))

        for act in (self.open_data_action, self.open_project_action, self.save_project_action):
            self.toolbar.addAction(act)
        self.toolbar.addSeparator()
        self.toolbar.addAction(self.run_action)
        self.toolbar.addAction(self.cancel_action)
        self.toolbar.addSeparator()
        self.toolbar.addAction(self.export_action)
        self.toolbar.addAction(self.demo_action)
        self._refresh_recent_menu()

    def current_workspace(self):
        widget = self.tabs.currentWidget()
        return widget if widget in self.workspaces.values() else None

    def _workspace_for_actions(self):
        """The current tab's workspace; from the welcome page, the first workspace."""
        return self.current_workspace() or next(iter(self.workspaces.values()), None)

    def _run_current(self) -> None:
        ws = self._workspace_for_actions()
        if ws is not None:
            self.tabs.setCurrentWidget(ws)
            ws.run()

    def _cancel_current(self) -> None:
        if self.demo is not None:
            self.demo.stop()          # Cancel stops the demo's remaining steps too
        for ws in self.workspaces.values():
            ws.cancel()
        for loader in list(self._loaders):
            loader.cancel()
        for writer in (self._saver, self._reporter):
            if writer is not None:
                writer.cancel()

    def _progress_wanted(self) -> bool:
        """The status bar's progress bar shows while files are read, a project saved or a report written."""
        return bool(self._loaders) or self._saver is not None or self._reporter is not None

    def _show_progress(self, fraction: float, message: str) -> None:
        """A worker's progress (reading files, saving, a report) in the status bar."""
        self.load_progress.setValue(int(fraction * 1000))
        self.statusBar().showMessage(message)

    def _busy_changed(self, _busy: bool) -> None:
        busy = any(ws.is_busy() for ws in self.workspaces.values()) or self._progress_wanted()
        self.cancel_action.setEnabled(busy)
        self.run_action.setEnabled(not any(ws.is_busy() for ws in self.workspaces.values()))

    def _fill_export_menu(self) -> None:
        self.export_menu.clear()
        ws = self._workspace_for_actions()
        targets = ws.export_targets() if ws is not None else []
        for label, slot in targets:
            self.export_menu.addAction(label, slot)
        if not targets:
            self.export_menu.addAction("Nothing to export").setEnabled(False)

    def export_menu_popup(self) -> None:
        self._fill_export_menu()
        # Under the toolbar button when it was clicked; at the mouse pointer for the shortcut (Ctrl+E).
        button = self.toolbar.widgetForAction(self.export_action)
        if button is not None and button.isVisible() and button.rect().contains(button.mapFromGlobal(QCursor.pos())):
            self.export_menu.popup(button.mapToGlobal(button.rect().bottomLeft()))
        else:
            self.export_menu.popup(QCursor.pos())

    # ================================================================ loading data
    def open_data_dialog(self) -> None:
        settings = app_settings()
        start = str(settings.value("last_folder", os.path.expanduser("~")))
        paths, _ = QFileDialog.getOpenFileNames(self, "Open data", start, open_dialog_filters())
        if paths:
            settings.setValue("last_folder", os.path.dirname(paths[0]))
            self.load_files([(p, None) for p in paths], then=self.show_loaded_data)

    def load_files(self, requests: list[tuple[str, str | None]], then=None, remember: bool = True,
                   at_once: bool = False) -> Worker:
        """Read files on the worker; each appears in the Data dock as soon as it is read.

        Failures are collected and shown in one dialog when the batch ends; ``then()``
        runs after the batch, whatever happened. ``remember``: add the files to File > Recent.
        ``at_once``: the files join the session together when all are read (a project's: one refresh).
        """
        failures: list[LoadFailure] = []
        read: list[str] = []
        from evalgui.core.ranked.by_query import summarised_if_too_large

        # A run too large to hold stays on disk and is evaluated query by query (one reading pass for its counts).
        job = load_files_job(requests, [item.kind for item in self.session.items], summarised_if_too_large)
        if at_once:
            job = _naming_ahead(job, self.session.items)
        worker = Worker(job)
        self._loaders.append(worker)
        generation = self._generation
        # Files reach the session in batches: each batch refreshes the Data dock and the forms once,
        # and batches are further apart the longer a refresh takes (the window stays responsive
        # while a project of 20,000 files loads).
        pending: list[LoadedInput] = []
        batch_timer = QTimer(self)
        batch_timer.setSingleShot(True)
        batch_cost = [0.0]

        def flush():
            batch_timer.stop()
            if generation != self._generation:       # a project was opened meanwhile: not for this session
                pending.clear()
                return
            if not pending:
                return
            started = time.perf_counter()
            items = pending[:]
            pending.clear()
            self.session.add_many(items)
            if remember:
                for item in items[-MAX_RECENT:]:
                    self._add_recent(item.path)
            batch_cost[0] = time.perf_counter() - started

        batch_timer.timeout.connect(flush)

        def arrived(result):
            if generation != self._generation:       # a project was opened meanwhile: not for this session
                return
            if isinstance(result, LoadedInput):
                pending.append(result)
                read.append(result.path)
                if not batch_timer.isActive() and not at_once:
                    batch_timer.start(int(min(2000, max(BATCH_MS, 4000 * batch_cost[0]))) if read[1:] else 0)
            else:
                failures.append(result)

        def finished():
            flush()
            batch_timer.deleteLater()
            if at_once and generation == self._generation:
                # The views refreshed in this turn; what follows (restoring the forms) gets its own. The loader
                # counts as loading until then, so nothing waiting for the window to be idle acts in between.
                QTimer.singleShot(1, done_loading)
            else:
                done_loading()

        def done_loading():
            if worker in self._loaders:
                self._loaders.remove(worker)
            self.load_progress.setVisible(self._progress_wanted())
            self._busy_changed(False)
            if generation == self._generation:       # else replaced by a project: its follow-up is moot too
                follow_up()

        def follow_up():
            if failures:
                self.load_failed.emit(failures)
                self.show_error("Some files could not be read",
                                "\n\n".join(f.message for f in failures))
            self.statusBar().showMessage(loading_summary(len(read), failures), 8000)
            self.files_loaded.emit()
            if then is not None:
                then()

        worker.partial.connect(arrived)
        worker.progress.connect(self._show_progress)
        worker.failed.connect(lambda message, details: failures.append(LoadFailure("", message)))
        worker.done.connect(finished)
        self.load_progress.show()
        self._busy_changed(True)
        worker.start()
        return worker

    def open_demo(self, only=None) -> None:
        """Load every workspace's sample (or ``only`` those workspaces' keys) and evaluate each in turn
        (first_steps.DemoTour); show Ranked retrieval."""
        from evalgui.gui.first_steps import DemoTour, missing_sample_files

        missing = missing_sample_files()
        if missing:
            self.show_error("Demo data not found", "These sample files are missing:\n" + "\n".join(missing))
            return
        if self.demo is not None:
            self.demo.stop()
        self.demo = DemoTour(self)
        self.demo.finished.connect(self._demo_finished)
        self.tabs.setCurrentWidget(self.workspaces["ranked"])
        self.demo.start(only)

    def demo_running(self) -> bool:
        return self.demo is not None and self.demo.running

    def _demo_finished(self, failed: list) -> None:
        for ws in self.workspaces.values():
            ws.update_empty_hint()
        if failed:
            self.statusBar().showMessage(f"The demo could not evaluate: {', '.join(failed)}.", 8000)
        else:
            self.statusBar().showMessage("The demo evaluated the sample data in every workspace: "
                                         "see each tab.", 8000)
        self.demo_finished.emit(failed)

    def open_sample(self, key: str) -> None:
        """The empty-state button of a workspace: load its sample files (those not loaded yet), then set its form."""
        from evalgui.gui.first_steps import SAMPLES

        sample, ws = SAMPLES[key], self.workspaces[key]
        missing = [p for p, _ in sample.files() if not os.path.exists(p)]
        if missing:
            self.show_error("Sample data not found", "These sample files are missing:\n" + "\n".join(missing))
            return
        generation = self._generation

        def prepare():
            if generation != self._generation:
                return
            ws.reset_form()           # the sample as it is meant, not with earlier settings
            sample.prepare(ws)
            ws.sample_opened = True
            ws.update_empty_hint()
            self.tabs.setCurrentWidget(ws)
            self.sample_opened.emit(key)

        wanted = [(p, kind) for p, kind in sample.files() if self.session.find(p) is None]
        if wanted:
            self.load_files(wanted, then=prepare, remember=False)
        else:
            prepare()

    # ------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        projects = [p for p in paths if p.endswith(".evalgui")]
        if projects:
            self.open_project(projects[0])
        data = [(p, None) for p in paths if not p.endswith(".evalgui")]
        if data:
            self.load_files(data, then=self.show_loaded_data)
        event.acceptProposedAction()

    # ------------------------------------------------------------ the command line
    def open_command_line(self, paths: list[str], evaluate: bool = True) -> None:
        """Open what ``evalgui FILE...`` names: a project, data files, or both.

        Data files are shown in the ranked workspace with the first qrels chosen and the runs
        ticked, and evaluated when ``evaluate`` and the form then has a qrels and a ticked run.
        """
        projects = [p for p in paths if p.endswith(".evalgui")]
        data = [(p, None) for p in paths if not p.endswith(".evalgui")]
        if projects:
            self.open_project(projects[0])
        if data:
            self.load_files(data, then=lambda: self.show_loaded_data(evaluate=evaluate and not projects))

    def show_loaded_data(self, evaluate: bool = False) -> None:
        """After files were loaded from the Welcome page (or the command line): show the ranked workspace."""
        ranked = self.workspaces["ranked"]
        if not self.session.items:
            return
        if self.tabs.currentWidget() is self.welcome or evaluate:
            self.tabs.setCurrentWidget(ranked)
        if evaluate and ranked.form.qrels_item() is not None and ranked.form.checked_run_paths():
            ranked.run()

    # ================================================================ projects
    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project", str(app_settings().value("last_folder", "")),
                                              PROJECT_FILTER)
        if path:
            self.open_project(path)

    def save_project(self, wait: bool = True) -> bool:
        """File ▸ Save: into the project's file, or asking for one. ``wait``: return when the save has ended,
        whether it wrote the file (the window answers meanwhile); else at once (True: it started)."""
        if self.project_path is None:
            return self.save_project_as(wait)
        return self._save(self.project_path, None, wait)

    def save_project_as(self, wait: bool = True) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save project", self.project_path or "untitled.evalgui",
                                              PROJECT_FILTER)
        if not path:
            return False
        if not path.endswith(".evalgui"):
            path += ".evalgui"
        return self._save(path, None, wait)

    def write_project(self, path: str, include_results: bool | None = None) -> bool:
        """Save the project into ``path`` and wait for it (:meth:`start_saving`); whether the file was written."""
        return self._save(path, include_results, True)

    def _save(self, path: str, include_results: bool | None, wait: bool) -> bool:
        self.start_saving(path, include_results)
        return bool(self.wait_for_saving()) if wait else True

    def start_saving(self, path: str, include_results: bool | None = None) -> None:
        """Save the project into ``path`` on the worker (:func:`evalgui.core.project.saving_job`): the forms are
        read here, the results' JSON, the files' hashes, the encoding and the atomic write are the worker's;
        the status bar shows the progress and Cancel stops it (the file then stays as it was). :attr:`saved`
        says when it has ended.

        A save asked while another runs: the same save again (same file, nothing changed since) just waits for
        it; another one supersedes it: that one stops, leaving its file as it was, and this one starts when it
        has (never two writers of one file at once)."""
        path = os.path.abspath(path)
        if include_results is None:
            include_results = self.include_results_action.isChecked()
        if self._saver is not None:
            if self._next_save is None and self._saving == (path, include_results, self._changes):
                return
            self._next_save = (path, include_results)
            self._saver.cancel()
            return
        self._begin_save(path, include_results)

    def _begin_save(self, path: str, include_results: bool) -> None:
        from evalgui.core.project import saving_job

        # Gathered here (widgets, and references to the shown results: nothing copied, nothing encoded).
        files = [(item.path, item.kind) for item in self.session.items]
        forms = {key: ws.form_state() for key, ws in self.workspaces.items()}
        results = {key: ws.results_state_job() for key, ws in self.workspaces.items()} if include_results else {}
        requests = {key: request for ws in self.workspaces.values()
                    for key, request in ws.workflow_requests().items()}
        worker = Worker(saving_job(path, files, forms, results, requests, self.session.hashes))
        self._saver, self._saving = worker, (path, include_results, self._changes)
        changes, generation, name = self._changes, self._generation, os.path.basename(path)
        ok = [False]

        def succeeded(_):
            ok[0] = True
            self._add_recent(path)
            self.statusBar().showMessage(f"Saved {path}", 5000)
            if generation != self._generation:       # another project was opened meanwhile: it is not this one
                return
            self.project_path = path
            self._set_modified(self._changes != changes)     # a change made while saving is not saved

        def finished():
            self._saver = self._saving = None
            self._last_save_ok = ok[0]
            following, self._next_save = self._next_save, None
            if following is not None:
                self._begin_save(*following)
            self.load_progress.setVisible(self._progress_wanted())
            self._busy_changed(False)
            self.saved.emit(path, ok[0])

        worker.succeeded.connect(succeeded)
        worker.failed.connect(lambda message, details: self.show_error(
            "Could not save the project", message + (f"\n\n{details}" if details else "")))
        worker.cancelled.connect(lambda: self.statusBar().showMessage(
            f"Saving {name} was stopped; the file is as it was.", 8000))
        worker.progress.connect(self._show_progress)
        worker.done.connect(finished)
        self.load_progress.setValue(0)
        self.load_progress.show()
        self.statusBar().showMessage(f"Saving {name}…")
        self._busy_changed(True)
        worker.start()

    def is_saving(self) -> bool:
        return self._saver is not None

    def wait_for_saving(self, msecs: int | None = None) -> bool | None:
        """Turn the event loop (the window paints, answers and takes a Cancel) until no save runs; whether the
        last one wrote its file. None: still saving after ``msecs``."""
        if self._saver is not None:
            loop = QEventLoop()

            def ended(_path, _ok):
                if self._saver is None:
                    loop.quit()

            self.saved.connect(ended)
            if msecs is not None:
                patience = QTimer(loop)            # dies with the loop: no late quit on a loop that is gone
                patience.setSingleShot(True)
                patience.timeout.connect(loop.quit)
                patience.start(msecs)
            loop.exec()
            self.saved.disconnect(ended)
        return None if self._saver is not None else self._last_save_ok

    def follow_reader(self, worker: Worker, name: str) -> None:
        """A form reads a file on the worker (a case-base model): the status bar's progress bar shows it and
        Cancel stops it, as for data files."""
        self._loaders.append(worker)

        def finished():
            if worker in self._loaders:
                self._loaders.remove(worker)
            self.load_progress.setVisible(self._progress_wanted())
            self._busy_changed(False)

        worker.progress.connect(self._show_progress)
        worker.cancelled.connect(lambda: self.statusBar().showMessage(f"Reading {name} was cancelled.", 8000))
        worker.done.connect(finished)
        self.load_progress.setValue(0)
        self.load_progress.show()
        self.statusBar().showMessage(f"Reading {name}…")
        self._busy_changed(True)

    def open_project(self, path: str) -> Worker:
        """Restore a project in steps, reading nothing on this thread.

        1. The project file is read and checked on the worker: a bad one gives one dialog and leaves the
           session as it was.
        2. The user is asked: unsaved changes; files outside the project's folder, unless it is trusted
           (saved here, or asked before: :mod:`evalgui.core.trust`).
        3. The files are checked on the worker: only regular files are read; changed ones are named.
        4. They are loaded (a missing one is reported, the rest still load), then the forms and results
           are restored.
        """
        from evalgui.core.project import reading_job

        path = os.path.abspath(path)
        self._opening = path              # a later open supersedes this one
        return self._start_loader(reading_job(path), lambda project: self._project_read(path, project))

    def _start_loader(self, job, then) -> Worker:
        """Run one step of opening a project on the worker; ``then(result)`` if it succeeds and is still wanted."""
        worker = Worker(job)
        self._loaders.append(worker)
        path = self._opening

        def succeeded(result):
            if path == self._opening:
                then(result)

        def finished():
            self._loaders.remove(worker)
            self.load_progress.setVisible(self._progress_wanted())
            self._busy_changed(False)

        worker.succeeded.connect(succeeded)
        worker.failed.connect(lambda message, details: self.show_error("Could not open the project", message))
        worker.cancelled.connect(lambda: self.statusBar().showMessage("Opening the project was cancelled.", 8000))
        worker.progress.connect(self._show_progress)
        worker.done.connect(finished)
        self.load_progress.show()
        self._busy_changed(True)
        worker.start()
        return worker

    def _project_read(self, path: str, project: dict) -> None:
        from evalgui.core.project import checking_job, drop_form_files, form_files

        if not self.may_discard_session("open the project"):
            self._opening = None
            return
        outside, allowed, answer = project["outside"], project["trusted"], None
        if outside and allowed is None:
            if self.ask_before_discarding:
                allowed = answer = self.ask_trust(path, outside)
            else:               # nobody to ask (the self-test): not read, and nothing remembered
                allowed = False
        skipped = outside if outside and not allowed else []
        files = [f for f in project["files"] if f["path"] not in skipped]
        project = {**project, "forms": drop_form_files(project["forms"], skipped), "skipped": skipped}
        self._start_loader(checking_job(path, files, form_files(project["forms"]), answer, self.session.hashes),
                           lambda checked: self._apply_project(path, project, checked))

    def ask_trust(self, path: str, outside: list[str]) -> bool:
        """Read the files a project names outside its own folder? (Tests replace this method.)"""
        from evalgui.core.trust import where_it_leads

        shown = [where_it_leads(p) for p in outside[:15]] + ([f"… and {len(outside) - 15:,} more"]
                                                              if len(outside) > 15 else [])
        box = QMessageBox(QMessageBox.Icon.Question, "Files outside the project's folder",
                          f"{os.path.basename(path)} reads files outside its own folder. Read them?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("trustQuestion")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("A project from someone else could name any file of yours. Yes: read them, and do "
                               "not ask again for this project. No: open the project without them.")
        box.setDetailedText("\n".join(shown))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        return _answer(box) == QMessageBox.StandardButton.Yes

    def _apply_project(self, path: str, project: dict, checked: dict) -> None:
        from evalgui.core.project import MODEL_KIND, drop_form_files

        self._opening = None
        forms = drop_form_files(project["forms"], checked["missing"] + list(checked["refused"]))
        # A kind this evalgui does not know (a newer version's) is detected from the content instead.
        present = [(f["path"], f["kind"] if f["kind"] in kinds() else None) for f in checked["present"]
                   if f["kind"] != MODEL_KIND]          # models are the case-based form's, not data
        # The project replaces the session: stop what is running, forget files and results.
        self._generation += 1
        if self.demo is not None:
            self.demo.stop()
        for loader in list(self._loaders):
            loader.cancel()
        for ws in self.workspaces.values():
            ws.clear_results()
        self.session.clear()
        self.project_path = path
        self._add_recent(path)
        self._set_modified(False)

        def restore():
            # Exactly what the project says: what it does not say takes the default, not an earlier value.
            for ws in self.workspaces.values():
                ws.reset_form()
            for key, state in forms.items():
                if key in self.workspaces:
                    self.workspaces[key].restore_form_state(state)
            for key, state in project["results"].items():
                if key in self.workspaces and state:
                    self.workspaces[key].restore_results_state(state)
            for ws in self.workspaces.values():          # results computed from files changed since: stale
                ws.mark_changed_since_saved(checked["changed"])
            # The workspace holding the results (else the first) is what the user opened the project for.
            shown = [ws for ws in self.workspaces.values() if ws.has_results()] or list(self.workspaces.values())
            if shown:
                self.tabs.setCurrentWidget(shown[0])
            for ws in self.workspaces.values():
                ws.sample_opened = False
                ws.update_empty_hint()
            self._set_modified(False)      # as saved
            skipped = project["skipped"]
            self.statusBar().showMessage(f"Opened {path}" + (f", without the {len(skipped):,} file(s) outside its "
                                                             "folder" if skipped else ""), 8000)

        if checked["missing"]:
            self.show_error("Some files of the project are missing",
                            "These files were not found and are left out; the rest of the project is loaded:\n"
                            + "\n".join(checked["missing"]))
        if checked["refused"]:
            self.show_error("Some files of the project are not read",
                            "Only regular files are read; these are left out, the rest of the project is loaded:"
                            "\n" + "\n".join(checked["refused"].values()))
        if checked["changed"]:
            self.show_error("Some files changed since the project was saved",
                            "These files are not what they were when the project was saved, so the saved results "
                            "may no longer match them: press Run to compute them again.\n"
                            + "\n".join(checked["changed"]))
        # The project itself is the recent entry; its files arrive together (one refresh of the views).
        self.load_files(present, then=restore, remember=False, at_once=True)

    # ================================================================ settings
    def _add_recent(self, path: str) -> None:
        settings = app_settings()
        recent = [p for p in self.recent_files() if p != path]
        recent.insert(0, path)
        settings.setValue("recent_files", recent[:MAX_RECENT])
        self._refresh_recent_menu()

    def recent_files(self) -> list[str]:
        recent = app_settings().value("recent_files", []) or []
        return [recent] if isinstance(recent, str) else list(recent)

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for path in recent:
            if path.endswith(".evalgui"):
                self.recent_menu.addAction(path, lambda p=path: self.open_project(p))
            else:
                self.recent_menu.addAction(path, lambda p=path: self.load_files([(p, None)]))
        if not recent:
            self.recent_menu.addAction("No recent files").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear", lambda: (app_settings().setValue("recent_files", []),
                                                         self._refresh_recent_menu()))

    def _restore_settings(self) -> None:
        settings = app_settings()
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            screen = self.screen().availableGeometry() if self.screen() else None
            width, height = 1360, 860
            if screen is not None:
                width, height = min(width, int(screen.width() * 0.92)), min(height, int(screen.height() * 0.9))
            self.resize(width, height)
        state = settings.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
        for key, ws in self.workspaces.items():
            saved = settings.value(f"workspaces/{key}")
            if isinstance(saved, str):
                try:
                    form = json.loads(saved)
                except ValueError:
                    continue
                # Only the parameters seed the new session: no file of a past one (an older version kept them).
                ws.restore_form_state(ws.remembered_form_state(form))

    def save_settings(self) -> None:
        settings = app_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        for key, ws in self.workspaces.items():
            settings.setValue(f"workspaces/{key}", json.dumps(ws.remembered_form_state()))
        settings.sync()

    def closeEvent(self, event) -> None:
        if self._closing:             # asked again while a save or a question is pending: the first close decides
            event.ignore()
            return
        self._closing = True
        try:
            keep_open = not self._save_ended_before_closing() or not self.may_discard_session("quit")
        finally:
            self._closing = False
        if keep_open:
            event.ignore()
            return
        # Stop running jobs and wait for their threads, so the process exits cleanly.
        from evalgui.gui.worker import cancel_all, wait_all

        self._cancel_current()
        cancel_all()
        # A job blocked in a system call cannot see the cancel: wait a bounded time, then let the
        # window close; the application exits without waiting for it (app.main).
        wait_all(CLOSE_PATIENCE_MS)
        self.save_settings()
        super().closeEvent(event)

    # ================================================================ unsaved changes
    def _mark_modified(self) -> None:
        self._changes += 1
        self._set_modified(True)

    def _set_modified(self, modified: bool) -> None:
        """The title names the project (or "untitled" once there is something to save), with * when modified."""
        name = os.path.basename(self.project_path) if self.project_path else "untitled" if modified else None
        if name is not None:
            self.setWindowTitle(f"evalgui — {name}[*]")     # Qt shows [*] as * while modified
        self.setWindowModified(modified)
        if name is None:
            self.setWindowTitle("evalgui")

    def may_discard_session(self, then: str) -> bool:
        """Before the session is closed or replaced (``then``: "quit", "open the project"): stop a
        running evaluation? save the changes? False: the user cancelled, keep everything."""
        if not self.ask_before_discarding:
            return True
        if any(ws.work_in_progress() for ws in self.workspaces.values()) and not self.ask_stop_job(then):
            return False
        if self.isWindowModified():
            answer = self.ask_save_changes()
            if answer == QMessageBox.StandardButton.Save:
                return self.save_project()
            return answer == QMessageBox.StandardButton.Discard
        return True

    def _save_ended_before_closing(self) -> bool:
        """A save is running: wait for it (a bounded time, the window answering); still running then, ask whether
        to stop it (the file keeps its previous content). False: keep the window open, the save goes on."""
        if self._saver is None:
            return True
        self.statusBar().showMessage("Waiting for the project to be saved…")
        if self.wait_for_saving(SAVE_PATIENCE_MS) is not None:
            return True
        if self.ask_before_discarding and not self.ask_stop_saving():
            return False
        self._next_save = None
        if self._saver is not None:
            self._saver.cancel()
        return True

    def ask_stop_saving(self) -> bool:
        """The project is still being saved: stop it and quit? (Tests replace this method.)"""
        box = QMessageBox(QMessageBox.Icon.Question, "The project is being saved",
                          "The project is still being saved. Stop saving and quit?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("stopSavingQuestion")
        box.setInformativeText("Yes: the project file keeps what it held before this save. No: keep the window "
                               "open while the save goes on.")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return _answer(box) == QMessageBox.StandardButton.Yes

    def ask_stop_job(self, then: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "An evaluation is running",
                          f"An evaluation is running. Stop it and {then}?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("stopJobQuestion")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return _answer(box) == QMessageBox.StandardButton.Yes

    def save_changes_box(self) -> QMessageBox:
        if self.project_path:
            text = f"Save the changes to {os.path.basename(self.project_path)}?"
            detail = "The files, the form or the results have changed since the project was saved."
        else:
            text = "Save this session in a project?"
            detail = "The files, the form and the results are not saved yet."
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes", text,
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("saveChangesQuestion")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText(detail)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        return box

    def ask_open_report(self, path: str) -> bool:
        """Open the report just written in the browser? (tests replace this method)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Report written",
                          f"The report is in {path}.\n\nOpen it in your web browser?",
                          QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close, self)
        box.setTextFormat(Qt.TextFormat.PlainText)        # the path is text
        box.setDefaultButton(QMessageBox.StandardButton.Open)
        return _answer(box) == QMessageBox.StandardButton.Open

    # ================================================================ the report
    def workflow_outcomes(self) -> dict:
        """Workflow key -> the outcome each workspace shows (what a report is made of)."""
        return {key: outcome for ws in self.workspaces.values() for key, outcome in ws.workflow_outcomes().items()}

    def export_report_dialog(self) -> None:
        if not self.report_outcomes():
            self.show_error("Nothing to report yet", "Press Run in a workspace first: the report shows the results "
                                                     "of every workspace that has some.")
            return
        default = os.path.splitext(self.project_path or "report")[0] + ".html"
        path, _ = QFileDialog.getSaveFileName(self, "Export report", default, "Web page (*.html)")
        if not path:
            return
        if not path.lower().endswith((".html", ".htm")):
            path += ".html"
        self.start_report(path, then=self._offer_report)

    def _offer_report(self, path: str) -> None:
        if self.ask_open_report(path):
            from PySide6.QtCore import QUrl
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    def write_report(self, path: str) -> bool:
        """Write the report and wait for it (:meth:`start_report`); False (and a dialog) if it cannot be."""
        worker = self.start_report(path)
        if worker is None:
            return False
        ok = []
        loop = QEventLoop()

        def ended(_path, written):
            ok.append(written)
            loop.quit()

        self.report_done.connect(ended)
        if self._reporter is worker:
            loop.exec()
        self.report_done.disconnect(ended)
        return bool(ok and ok[0])

    def start_report(self, path: str, then=None) -> Worker | None:
        """The report of every workspace's results: its plots drawn here (they are the window's views), the
        page built and written atomically on the worker (:func:`evalgui.core.workflows.report.writing_job`),
        the progress in the status bar, Cancel leaving no file. ``then(path)`` once written; :attr:`report_done`
        says when it has ended. None: another report is being written."""
        from evalgui.core.workflows.report import Plot, Section, writing_job
        from evalgui.gui.outcome_plots import svg_plots

        if self._reporter is not None:
            self.statusBar().showMessage("A report is being written: wait for it, or press Cancel.", 8000)
            return None
        path = os.path.abspath(path)
        sections = [Section(key, outcome, [Plot(*plot) for plot in svg_plots(key, outcome)])
                    for key, outcome in self.report_outcomes().items()]
        title = os.path.splitext(os.path.basename(self.project_path))[0] if self.project_path else "Evaluation report"
        worker = Worker(writing_job(path, sections, title, self.project_path or "", self.session.hashes))
        self._reporter = worker
        ok = [False]

        def succeeded(_):
            ok[0] = True
            self.statusBar().showMessage(f"Report written to {path}", 5000)

        def finished():
            self._reporter = None
            self.load_progress.setVisible(self._progress_wanted())
            self._busy_changed(False)
            self.report_done.emit(path, ok[0])
            if ok[0] and then is not None:
                then(path)

        worker.succeeded.connect(succeeded)
        worker.failed.connect(lambda message, details: self.show_error(
            "Could not write the report", message + (f"\n\n{details}" if details else "")))
        worker.cancelled.connect(lambda: self.statusBar().showMessage("Writing the report was stopped.", 8000))
        worker.progress.connect(self._show_progress)
        worker.done.connect(finished)
        self.load_progress.setValue(0)
        self.load_progress.show()
        self.statusBar().showMessage(f"Writing {os.path.basename(path)}…")
        self._busy_changed(True)
        worker.start()
        return worker

    def report_outcomes(self) -> dict:
        """:meth:`workflow_outcomes` for a report: outcomes not stamped yet get their provenance (their inputs
        hashed) on the report's worker."""
        return {key: outcome for ws in self.workspaces.values() for key, outcome in ws.report_outcomes().items()}

    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save, Discard or Cancel (tests replace this method: a modal question would wait for a click)."""
        return _answer(self.save_changes_box())

    # ================================================================ dialogs
    def show_error(self, title: str, message: str) -> None:
        # The main text is one line (a list of files, a library's multi-line message: below it).
        first, _, rest = message.split("\n\nTraceback")[0].strip("\n").partition("\n")
        box = QMessageBox(QMessageBox.Icon.Warning, title, first, parent=self)
        if rest.strip():
            box.setInformativeText(rest.strip())
        if "Traceback" in message:
            box.setDetailedText(message)
        box.setObjectName("errorDialog")
        box.setTextFormat(Qt.TextFormat.PlainText)        # messages name files and runs: text, never markup
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.last_error_dialog = box
        self.error_shown.emit(title, message)

    def show_measures_reference(self) -> None:
        from evalgui.gui.help import MeasuresReference

        dialog = MeasuresReference(self)
        dialog.show()

    def show_power_calculator(self) -> None:
        """Help ▸ How many queries?, filled in from Compare's finished comparison when there is one."""
        from evalgui.gui.power_calculator import PowerCalculator

        compared = getattr(self.workspaces.get("compare"), "comparison_outcome", None)
        self.power_calculator = PowerCalculator(compared.tables.get("per_query") if compared is not None else None,
                                                self)
        self.power_calculator.show()

    def show_getting_started(self) -> None:
        """Help ▸ Getting started, open on the current workspace's page (the overview from the Welcome page)."""
        from evalgui.gui.help import OVERVIEW, GettingStarted

        current = self.current_workspace()
        start = current.key if current is not None else OVERVIEW
        if self.getting_started is None:
            self.getting_started = GettingStarted([(key, ws.title) for key, ws in self.workspaces.items()], self,
                                                  start=start)
        else:
            self.getting_started.show_page(start)
        self.getting_started.show()
        self.getting_started.raise_()

    def show_about(self) -> None:
        from evalgui.gui.about import AboutDialog

        dialog = AboutDialog(self)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.open()
        self.about_dialog = dialog


def _naming_ahead(job, items: list[LoadedInput]):
    """``job`` (reading files that join ``items`` at once), which then also works out, on the worker, the
    names the session will show (:func:`evalgui.gui.session.name_files_ahead`)."""
    from evalgui.core.jobs import JobState
    from evalgui.gui.session import name_files_ahead

    entries = {item.path: (item.path, item.kind, item.record.acts_as) for item in items}

    def naming(state):
        def arrived(value):
            if isinstance(value, LoadedInput):       # a file read again keeps its place, as in the session
                entries[value.path] = (value.path, value.kind, value.record.acts_as)
            state.partial(value)

        result = job(JobState(state.progress, arrived, state.cancelled, min_interval=0.0))
        if not state.cancelled():
            try:
                name_files_ahead(list(entries.values()))
            except ValueError:        # only a head start: the session names its files itself, and says what is wrong
                pass
        return result

    return naming


def data_dock_limit(window_width: int) -> int | None:
    """The widest the Data dock may be: any width in a wide window; a fifth of a laptop-sized one
    (but never narrower than its file names need), so the results keep most of the room."""
    if window_width >= WIDE_WINDOW:
        return None
    return max(DATA_DOCK_MIN_WIDTH, max(window_width, LAPTOP_WINDOW) // 5)


def loading_summary(read: int, failures: list[LoadFailure]) -> str:
    """What a batch of loads did, for the status bar: the files read, and those that could not be."""
    loaded = f"Loaded {read} file{'s' if read != 1 else ''}"
    if not failures:
        return loaded + "."
    names = [os.path.basename(f.path) for f in failures if f.path]
    failed = (f"could not read {names[0]}" if len(failures) == 1 and names else
              f"could not read {len(failures)} files")
    failed += " (see the message)"
    return f"{loaded}; {failed}." if read else failed[:1].upper() + failed[1:] + "."
