"""What every workspace offers the main window, and the job plumbing they all share.

A workspace is a form plus result views. The base class owns Run, Cancel, the
progress bar and its label, and the worker: a subclass builds its form, calls
:meth:`Workspace.run_controls` to place the buttons, and starts its engine job
with :meth:`Workspace.start_job`. A job that was replaced or abandoned (another
project opened) never reaches the views.

Results that the form or the files no longer describe say so in a :class:`StaleBanner` above
them until the next Run; :func:`changed_files` gives the reasons the files give.

:class:`ViewsWorkspace`: a form plus views showing one engine outcome (compare, meta-evaluation,
measure stability, case-based retrieval): what they would otherwise each repeat.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QProgressBar, QPushButton, QScrollArea, QSplitter,
                               QVBoxLayout, QWidget)

from evalgui.core.ranked.evaluate import EvalOptions
from evalgui.gui.forms import StatusLine
from evalgui.gui.toolbar import export_buttons
from evalgui.gui.worker import Worker

STALE_STYLE = ("QLabel#staleBanner { background: #fff4ce; color: #4d3800; border: 1px solid #e0c060; "
               "border-radius: 3px; padding: 5px 8px; }")


class StaleBanner(QLabel):
    """Above a workspace's results: why they are out of date (hidden while they are current)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("staleBanner")
        self.setTextFormat(Qt.TextFormat.PlainText)       # it names the qrels file
        self.setStyleSheet(STALE_STYLE)
        self.setWordWrap(True)
        self.hide()

    def show_reasons(self, computed_with: str, reasons: list[str]) -> None:
        """Show the reasons (the results were computed with ``computed_with``, e.g. the qrels' name), or hide."""
        if reasons:
            self.setText(f"⚠ Computed with {computed_with}; {'; '.join(reasons)} — press Run to update.")
        self.setVisible(bool(reasons))


@dataclass(frozen=True)
class EvaluationInputs:
    """What the shown results were computed with: the form's settings, and which load of each file."""

    qrels: str
    qrels_name: str
    runs: tuple[tuple[str, str], ...]        # (name in the results, path)
    specs: tuple[str, ...]
    options: EvalOptions
    versions: tuple[tuple[str, int | None], ...] = ()   # (path, Session.version) when evaluated
    judged_below: float = 90.0                           # the advisor's judged-share threshold, in %

    def to_json(self) -> dict:
        """For a project (paths become relative there; versions mean nothing in another session)."""
        return {"qrels": self.qrels, "qrels_name": self.qrels_name, "runs": [list(r) for r in self.runs],
                "measures": list(self.specs), "options": asdict(self.options), "judged_below": self.judged_below}

    @classmethod
    def from_json(cls, data, session) -> "EvaluationInputs | None":
        try:
            runs = tuple((str(name), str(path)) for name, path in data["runs"])
            options = EvalOptions(**data["options"])
            inputs = cls(str(data["qrels"]), str(data.get("qrels_name", "")), runs,
                         tuple(str(s) for s in data["measures"]), options,
                         judged_below=float(data.get("judged_below", 90.0)))
        except (KeyError, TypeError, ValueError):
            return None
        return inputs.loaded_in(session)

    def loaded_in(self, session) -> "EvaluationInputs":
        """The same inputs, as the files are loaded in ``session`` now."""
        paths = [self.qrels] + [path for _, path in self.runs]
        return EvaluationInputs(self.qrels, self.qrels_name, self.runs, self.specs, self.options,
                                tuple((p, session.version(p)) for p in paths), self.judged_below)


@dataclass(frozen=True)
class InputsSnapshot:
    """What a workspace's results were computed with: its form's settings (as JSON text) and which
    load of each file the form names."""

    form: str
    versions: tuple[tuple[str, int | None], ...]
    names: tuple[str, ...]


def note_above(note: QWidget, results: QWidget) -> QWidget:
    """``results`` with ``note`` (a stale banner, an empty workspace's hint) in a line above them."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    layout.addWidget(note)
    layout.addWidget(results, 1)
    return column


def json_text(state) -> str:
    import json

    return json.dumps(state, sort_keys=True, default=str)


def _strings(value):
    """Every string in a JSON-like value (file paths among them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def changed_files(session, versions, required: dict[str, str]) -> list[str]:
    """Why results computed from the files at ``versions`` ((path, Session.version) pairs) are out of
    date: a file read again since, or one of ``required`` (path -> name) no longer loaded."""
    reasons = []
    for path, version in versions:
        item = session.find(path)
        if item is None:
            if path in required:
                reasons.append(f"{required[path]} is no longer loaded")
        elif version is not None and session.version(path) != version:
            reasons.append(f"{item.name} has been read again")
    return reasons


FORM_SHARE = 0.33      # at most this share of a workspace's width goes to its form (unless dragged wider)


class Workspace(QWidget):
    """A tab of the main window. Subclasses set ``key`` (project files, settings) and ``title``."""

    key = "workspace"
    title = "Workspace"
    idle_message = "Fill in the form, then press Run."

    status_message = Signal(str)
    busy_changed = Signal(bool)
    error = Signal(str, str)        # title, message: the window shows the dialog
    file_reader = Signal(object, str)   # a Worker reading a file the form names, its name: the window's
                                        # progress bar and Cancel follow it, as for data files
    modified = Signal()             # the user changed the form, or new results came: the session needs saving
    sample_requested = Signal()     # the empty-state hint's button: the window opens this workspace's sample

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self._worker: Worker | None = None
        self._side_workers: dict[str, Worker] = {}    # small jobs where the latest request wins
        self._abandoned: set[Worker] = set()
        self._last_job_succeeded = False
        self._job_inputs: InputsSnapshot | None = None        # what the running job was started with
        self._shown_inputs: InputsSnapshot | None = None      # what the shown results were computed with
        self._last_run_failed = False
        self.changed_since_saved: list[str] = []     # files changed since the opened project was saved
        self.empty_hint = None          # first_steps.EmptyHint above the results, for the workspaces with a sample
        self.sample_opened = False      # the sample was loaded and set in the form (the hint then says: Run)
        from evalgui.gui.naming import NAMING

        NAMING.changed.connect(self.naming_changed)

    # ------------------------------------------------------------ layout
    def lay_out(self, form: QWidget, results: QWidget, *, form_min_width: int = 290,
                sizes: tuple[int, int] = (420, 900)) -> None:
        """The form (scrollable) with Run, Cancel and the progress in sight below it, on the left;
        the results on the right. Sets ``self.form_column``."""
        from evalgui.gui.narrow import fit_narrow

        fit_narrow(form)                 # no sideways scrolling in a laptop's narrow column
        scroll = QScrollArea()
        scroll.setWidget(form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.form_column = QWidget()
        self.form_column.setMinimumWidth(form_min_width)    # the form's widest row and a scroll bar
        column = QVBoxLayout(self.form_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(scroll, 1)
        column.addWidget(self.run_controls())

        if self.tracks_inputs():
            # Above the results: why they no longer match the form or the files (hidden while they do).
            self.stale_banner = StaleBanner()
            results = note_above(self.stale_banner, results)
            self.session.changed.connect(self.update_inputs_banner)
            for signal in ("edited", "changed"):
                if hasattr(getattr(self, "form", None), signal):
                    getattr(self.form, signal).connect(self.update_inputs_banner)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.form_column)
        splitter.addWidget(self._with_empty_hint(results))
        splitter.setChildrenCollapsible(False)     # dragging the handle must not hide the form or Run
        splitter.setStretchFactor(0, 0)            # a wider window widens the results, not the form
        splitter.setStretchFactor(1, 1)
        splitter.setSizes(list(sizes))
        self.splitter = splitter
        self._form_width = sizes[0]             # the form's width when the window is wide enough for it
        self._form_min_width = form_min_width
        self._form_dragged = False
        splitter.splitterMoved.connect(self._form_width_dragged)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def form_width_for(self, total: int) -> int:
        """The form's width in a splitter ``total`` pixels wide: the width it was given (by its
        declaration or a drag), but at most a third of the room (two thirds for a width the user
        dragged), so the results keep the larger part on a laptop."""
        share = 0.6 if self._form_dragged else FORM_SHARE
        return max(self._form_min_width, min(self._form_width, int(total * share)))

    def _form_width_dragged(self, *_) -> None:
        self._form_width = self.splitter.sizes()[0]
        self._form_dragged = True

    def fit_form(self) -> None:
        splitter = getattr(self, "splitter", None)
        if splitter is None or splitter.count() != 2:
            return
        total = sum(splitter.sizes())
        if total <= 0:
            return
        form = self.form_width_for(total)
        if splitter.sizes()[0] != form:
            splitter.blockSignals(True)          # not a drag: the kept width stays
            splitter.setSizes([form, total - form])
            splitter.blockSignals(False)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_form()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit_form()

    def _with_empty_hint(self, results: QWidget) -> QWidget:
        """The results under the hint an empty workspace shows (what to load, a button opening the sample)."""
        from evalgui.gui.first_steps import SAMPLES, EmptyHint

        sample = SAMPLES.get(self.key)
        if sample is None:
            return results
        self.empty_hint = EmptyHint(sample)
        self.empty_hint.open_sample.connect(self.sample_requested)
        self.busy_changed.connect(lambda _busy: self.update_empty_hint())
        self.modified.connect(self.update_empty_hint)
        column = note_above(self.empty_hint, results)
        self.update_empty_hint()
        return column

    def update_empty_hint(self) -> None:
        if self.empty_hint is not None:
            self.empty_hint.show_for(self.has_results(), self.sample_opened)

    # ------------------------------------------------------------ Run, Cancel, progress
    def run_controls(self) -> QWidget:
        """Run and Cancel, the progress bar and the status line, to place below the form."""
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setObjectName("progressBar")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.progress_label = StatusLine(self.idle_message)
        self.progress_label.setObjectName("statusLine")
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.progress_label)
        return box

    def start_job(self, job: Callable, message: str, *, on_partial: Callable[[Any], None] | None = None,
                  on_success: Callable[[Any], None] | None = None, on_cancelled: Callable[[], None] | None = None,
                  failure_title: str = "The job failed") -> Worker | None:
        """Run ``job(state)`` on the worker; at most one main job at a time (None if one is running)."""
        if self._worker is not None:
            return None
        self._worker = worker = Worker(job)

        def live(handler):
            # A worker abandoned by clear_results() may still deliver: its results belong to no session.
            return lambda *args: None if worker in self._abandoned or handler is None else handler(*args)

        worker.progress.connect(live(self._report_progress))
        worker.partial.connect(live(on_partial))
        worker.succeeded.connect(live(lambda result: self._handle_success(on_success, result)))
        worker.failed.connect(live(lambda text, details: self._handle_failure(failure_title, text, details)))
        worker.cancelled.connect(live(lambda: self._handle_cancel(on_cancelled)))
        worker.done.connect(lambda: self._handle_done(worker))
        self._last_job_succeeded = False
        self._job_inputs = self.inputs_snapshot() if self.tracks_inputs() else None
        self.progress.setValue(0)
        self._set_busy(True)
        self.progress_label.setText(message)
        worker.start()
        return worker

    def start_side_job(self, key: str, job: Callable, on_success: Callable[[Any], None],
                       failure_title: str) -> None:
        """A small job (e.g. one drill-down): a newer request with the same key replaces it."""
        old = self._side_workers.get(key)
        if old is not None:
            old.cancel()
            self._abandoned.add(old)
        worker = Worker(job)
        self._side_workers[key] = worker
        def deliver(result) -> None:
            if worker in self._abandoned:
                return
            try:
                on_success(result)
            except RuntimeError as exc:       # the window closed meanwhile: nobody to show it to
                if "already deleted" not in str(exc):
                    raise

        worker.succeeded.connect(deliver)
        worker.failed.connect(lambda text, details: None if worker in self._abandoned
                              else self.error.emit(failure_title, text))
        worker.done.connect(lambda: self._side_done(key, worker))
        worker.start()

    def _side_done(self, key: str, worker: Worker) -> None:
        self._abandoned.discard(worker)
        if self._side_workers.get(key) is worker:
            del self._side_workers[key]

    def is_busy(self) -> bool:
        return self._worker is not None

    def work_in_progress(self) -> bool:
        """A job the user started is running: closing the window would lose it (the window asks first)."""
        return self.is_busy()

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self.progress_label.setText("Cancelling…")

    def abandon_job(self) -> None:
        """Stop the running jobs and ignore whatever they still deliver (the session is being replaced)."""
        for worker in [self._worker, *self._side_workers.values()]:
            if worker is not None:
                self._abandoned.add(worker)
                worker.cancel()
        self.progress.setValue(0)
        self.progress_label.setText(self.idle_message)

    def wait(self, msecs: int = 5000) -> bool:
        ok = True
        for worker in [self._worker, *self._side_workers.values()]:
            if worker is not None:
                ok &= worker.wait(msecs)
        return ok

    def _set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.busy_changed.emit(busy)

    def _report_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _handle_success(self, then: Callable[[Any], None] | None, result) -> None:
        self._last_job_succeeded = True
        self._last_run_failed = False
        self.changed_since_saved = []
        self._shown_inputs = self._job_inputs
        if then is not None:
            then(result)
        self._shown_inputs = self._only_files_used(self._shown_inputs)
        self.update_inputs_banner()

    def _only_files_used(self, snapshot: "InputsSnapshot | None") -> "InputsSnapshot | None":
        """The snapshot's files narrowed to those the shown outcomes' requests read (the form may name
        others, e.g. qrels while ranks come from a rank file); unchanged when they do not say."""
        if snapshot is None:
            return None
        try:
            used = {os.path.abspath(path) for outcome in self.workflow_outcomes().values()
                    for path in outcome.request.files()}
        except (AttributeError, TypeError):      # a workspace whose outcomes cannot say
            return snapshot
        kept = [(v, n) for v, n in zip(snapshot.versions, snapshot.names) if os.path.abspath(v[0]) in used]
        if not kept:
            return snapshot
        return InputsSnapshot(snapshot.form, tuple(v for v, _ in kept), tuple(n for _, n in kept))

    def _handle_failure(self, title: str, message: str, details: str) -> None:
        self._last_run_failed = True
        self.update_inputs_banner()
        self.progress_label.setText("Failed: " + message)
        self.error.emit(title, message + (f"\n\n{details}" if details else ""))

    def _handle_cancel(self, then: Callable[[], None] | None) -> None:
        self.progress.setValue(0)
        self.progress_label.setText("Cancelled.")
        if then is not None:
            then()

    def _handle_done(self, worker: Worker) -> None:
        abandoned = worker in self._abandoned
        self._abandoned.discard(worker)
        if self._worker is worker:
            self._worker = None
            # A full bar means "done"; after a cancel or a failure it empties.
            self.progress.setValue(1000 if self._last_job_succeeded else 0)
            self._set_busy(False)
            if not abandoned:
                # The status bar's last word is what came of the job (the engine's last progress report is
                # a bare "Done", or the count it had reached when it failed): the status line says it.
                self.status_message.emit(self.progress_label.text())
            self.job_finished()

    # ------------------------------------------------------------ are the shown results current?
    def tracks_inputs(self) -> bool:
        """The base class tells whether the results match the form and the files (a StaleBanner above
        them), unless the workspace does it itself (it defines ``stale_reasons``: ranked, meta-evaluation)."""
        return getattr(self, "stale_reasons", None) is None and self.key != "workspace"

    def inputs_snapshot(self) -> "InputsSnapshot":
        """The form's settings and which load of every file they name, now."""
        form = getattr(self, "form", None)
        state = form.state() if form is not None and hasattr(form, "state") else self.form_state()
        paths = sorted({p for p in _strings(state) if self.session.find(p) is not None})
        return InputsSnapshot(json_text(state), tuple((p, self.session.version(p)) for p in paths),
                              tuple(self.session.find(p).name for p in paths))

    def mark_changed_since_saved(self, paths: list[str]) -> None:
        """A project was opened whose files ``paths`` changed since it was saved: the restored results that
        were computed from any of them are stale until the next Run."""
        used = {p for request in self.workflow_requests().values() for p in _strings(request)}
        used |= set(_strings(self.form_state()))
        self.changed_since_saved = [self.session.find(p).name if self.session.find(p) else os.path.basename(p)
                                    for p in paths if p in used]
        if hasattr(self, "stale_reasons") and hasattr(self, "_update_stale_banner"):
            self._update_stale_banner()
        else:
            self.update_inputs_banner()

    def saved_files_stale_reasons(self) -> list[str]:
        return [f"{name} has changed since the project was saved" for name in self.changed_since_saved]

    def inputs_stale_reasons(self) -> list[str]:
        """Why the shown results no longer match the form or the files (empty: they do, or unknown)."""
        shown = self._shown_inputs
        if not self.has_results():
            return []
        if shown is None:
            return self.saved_files_stale_reasons()
        reasons = self.saved_files_stale_reasons()
        if self._last_run_failed:
            reasons.append("the last Run failed, so these are the earlier results")
        if shown.form != self.inputs_snapshot().form:
            reasons.append("the form has changed since")
        reasons += changed_files(self.session, shown.versions, dict(zip((p for p, _ in shown.versions), shown.names)))
        return reasons

    def update_inputs_banner(self, *_args) -> None:
        banner = getattr(self, "stale_banner", None)
        if banner is None or not self.tracks_inputs():
            return
        reasons = self.inputs_stale_reasons()
        shown = self._shown_inputs
        names = ", ".join(shown.names) if reasons and shown is not None and shown.names else \
            ", ".join(self.changed_since_saved) if reasons and self.changed_since_saved else "other settings"
        banner.show_reasons(names, reasons)

    def naming_changed(self, _naming: str) -> None:
        """View ▸ Measure names changed: redraw what shows measure names (tables follow by themselves)."""
        if self.has_results():
            for view in getattr(self, "views", ()):
                for combo in getattr(view, "choices", list)():
                    combo.remember()
            self._refresh_views()

    def _refresh_views(self) -> None:
        pass

    def job_finished(self) -> None:
        """Called on the GUI thread after the main job ended, whatever the outcome."""

    # ------------------------------------------------------------ what the main window asks
    # The form's settings, as plain JSON-able values (projects and QSettings keep them).
    def form_state(self) -> dict:
        return {}

    def restore_form_state(self, state: dict) -> None:
        pass

    def _form_bindings(self):
        form = getattr(self, "form", None)
        return getattr(form, "bindings", None)

    def reset_form(self) -> None:
        """The form at its defaults (a project or the demo then sets what it says; the rest stays so)."""
        bindings = self._form_bindings()
        if bindings is not None:
            bindings.reset()

    def remembered_form_state(self, state: dict | None = None) -> dict:
        """What of the form's state (or of ``state``, remembered earlier) seeds the next new session: its
        settings, never its files nor what describes the loaded data."""
        state = self.form_state() if state is None else state
        bindings = self._form_bindings()
        return bindings.remembered(state) if bindings is not None else {}

    # Results for a project file (None: nothing to keep).
    def results_state(self) -> dict | None:
        return None

    def results_state_job(self):
        """What a project save needs of the results, as a callable the save's worker calls to get
        :meth:`results_state`: it holds references to the shown results (taken now, on the window's thread),
        and turns them into JSON there. This default works it out here (workspaces with little to save)."""
        state = self.results_state()
        return lambda: state

    def restore_results_state(self, state: dict) -> None:
        pass

    def workflow_requests(self) -> dict:
        """Workflow key -> the JSON of the request behind the shown results (projects keep them for
        ``evalgui-cli run``)."""
        return {key: outcome.request.to_json() for key, outcome in self.workflow_outcomes().items()
                if not any(path.startswith("<") for path in outcome.request.files())}

    def workflow_outcomes(self) -> dict:
        """Workflow key -> the workflow outcome shown (reports are made of them); {} while there is none."""
        return {}

    def report_outcomes(self) -> dict:
        """:meth:`workflow_outcomes` for a report, which stamps those without provenance on its worker (their
        inputs hashed there, not on the window's thread)."""
        return self.workflow_outcomes()

    def has_results(self) -> bool:
        return False

    def clear_results(self) -> None:
        """Stop any job and forget the results (another project replaces the session)."""
        self.abandon_job()

    def run(self) -> None:
        pass

    def export_targets(self) -> list[tuple[str, object]]:
        """(label, callable that shows an export dialog) for File ▸ Export…"""
        return []


class ViewsWorkspace(Workspace):
    """A workspace whose ``form`` and result ``views`` show one engine outcome (``outcome``).

    What the compare, meta-evaluation, measure-stability and case-based workspaces share: the form's
    state, the views' remembered choices, refreshing and clearing the views, "Cancelled", exports, and
    the outcome in project files through :meth:`outcome_state` and :meth:`outcome_from_state`.
    A subclass sets ``self.form`` and ``self.views`` (objects with ``page``, ``title``,
    ``refresh(outcome)``, ``choices()`` and ``export_targets()``) and implements ``run``.
    """

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.outcome = None       # the engine's result the views show
        self.form = None
        self.views: list = []

    # ------------------------------------------------------------ the form
    def refresh_inputs(self) -> None:
        self.form.refresh_inputs()

    def form_state(self) -> dict:
        return self.form.state()

    def restore_form_state(self, state: dict) -> None:
        self.form.restore(state)

    def remember_view_choices(self) -> None:
        """Before a run: each view's combo boxes keep their choice when the new results arrive."""
        for view in self.views:
            for combo in view.choices():
                combo.remember()

    # ------------------------------------------------------------ results
    def _show_cancelled(self) -> None:
        kept = "the previous results are still shown." if self.has_results() else "nothing to show."
        self.progress_label.setText(f"Cancelled; {kept}")

    def _refresh_views(self) -> None:
        for view in self.views:
            view.refresh(self.outcome)
        self.update_export_buttons()

    def update_export_buttons(self) -> None:
        """A view's Export buttons work only while it has something to export: never an empty file."""
        for view in self.views:
            enabled = bool(view.export_targets())
            for button in export_buttons(view.page):
                button.setEnabled(enabled)

    def clear_results(self) -> None:
        """Forget the results (another project is opened); a running job is stopped and ignored."""
        self.abandon_job()
        self.outcome = None
        self._refresh_views()

    def has_results(self) -> bool:
        return self.outcome is not None

    # ------------------------------------------------------------ projects and export
    def outcome_state(self, outcome) -> dict:
        """The outcome as JSON-able values, for a project file."""
        raise NotImplementedError

    def outcome_from_state(self, state: dict):
        """The outcome a project file kept (None if it cannot be read)."""
        raise NotImplementedError

    def results_state(self) -> dict | None:
        return self.outcome_state(self.outcome) if self.outcome is not None else None

    def results_state_job(self):
        # outcome_state reads the outcome alone (the shown one, replaced, never changed, by a new run)
        outcome, state_of = self.outcome, self.outcome_state
        return lambda: state_of(outcome) if outcome is not None else None

    def restore_results_state(self, state: dict) -> bool:
        """Show the outcome a project kept; False (nothing changed) if it cannot be read."""
        restored = self.outcome_from_state(state)
        if restored is None:
            return False
        self.outcome = restored
        self._refresh_views()
        self.progress_label.setText("Results restored from the project.")
        return True

    def export_targets(self):
        if not self.has_results():
            return []
        return [target for view in self.views for target in view.export_targets()]
