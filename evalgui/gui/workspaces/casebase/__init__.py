"""Case-based retrieval: retrievers against the ground truth of an exhaustive (linear) retriever.

The form (:mod:`.form`) picks the case bases and edits the similarity model (with a live
preview of one query against one case, computed on the worker), the retrievers (MAC/FAC
filter sizes and ks, imported similarity results) and the metrics. Run starts one job
(:func:`.results.evaluation_job`, on the case-based workflow); its outcome replaces the results only when it succeeds,
so a failed or cancelled run keeps the previous ones. Result tabs, one module each, follow
the compare workspace's interface (``page``, ``title``, ``refresh``, ``choices``,
``export_targets``): the table, the per-query values, the quality-versus-time chart and the drill-down.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTabWidget

from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.gui.workspaces.base import ViewsWorkspace
from evalgui.gui.workspaces.casebase.chart import ChartTab
from evalgui.gui.workspaces.casebase.drill_down import DrillDownTab
from evalgui.gui.workspaces.casebase.form import CaseBaseForm
from evalgui.gui.workspaces.casebase.per_query import PerQueryTab
from evalgui.gui.workspaces.casebase.table import TableView


class CaseBaseWorkspace(ViewsWorkspace):
    key = "casebase"
    title = "Case-based retrieval"
    idle_message = "Choose the case bases and the model (or similarity files), the retrievers and metrics, then Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)

        self.form = CaseBaseForm(session)

        self.table = TableView()
        self.per_query = PerQueryTab()
        self.chart = ChartTab()
        self.drill_down = DrillDownTab()
        self.views = [self.table, self.per_query, self.chart, self.drill_down]
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("cbrResultsTabs")
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        self.results_tabs.currentChanged.connect(lambda index: getattr(self.views[index], "shown", lambda: None)())

        self.lay_out(self.form, self.results_tabs, form_min_width=320, sizes=(530, 830))
        session.changed.connect(self.form.refresh_inputs)
        self.form.edited.connect(self.modified)
        self.form.error.connect(self.error)
        self.form.reading.connect(self.file_reader)
        self._run_waiting = False      # Run was pressed while a model file is read: it starts when it arrives
        self.form.editor.save_failed.connect(self.error)
        # One preview job per turn of the event loop: a new case base changes the model and both ids at once.
        self.preview_timer = QTimer(self)
        self.preview_timer.setSingleShot(True)
        self.preview_timer.setInterval(0)
        self.preview_timer.timeout.connect(self._start_preview)
        self.form.preview_wanted.connect(self.update_preview)
        self.update_preview()
        self.update_export_buttons()

    # ------------------------------------------------------------ the preview
    def _preview_request(self):
        """(the model, test, train, query id, case id) to preview, or the reason there is no preview ("": no
        case base or ids yet)."""
        box = self.form.preview
        test, train = self.form.test(), self.form.train()
        query, case = box.query.currentData(), box.case.currentData()
        problem = self.form.editor.problem()
        if test is None or train is None or query is None or case is None or problem:
            return problem or ""
        return self.form.editor.model(), test, train, query, case

    def update_preview(self) -> None:
        """Recompute the preview on the worker (the latest request wins); a model the engine would refuse
        says why at once."""
        request = self._preview_request()
        if isinstance(request, str):
            self.preview_timer.stop()
            self.form.preview.show_problem(request)
        else:
            self.preview_timer.start()

    def preview_pending(self) -> bool:
        """A preview is asked for or being computed."""
        return self.preview_timer.isActive() or "preview" in self._side_workers

    def _start_preview(self) -> None:
        from evalgui.gui.workspaces.casebase.results import preview

        box = self.form.preview
        request = self._preview_request()
        if isinstance(request, str):
            box.show_problem(request)
            return

        def job(state):
            # A value that does not fit its attribute's type is the model being edited, not a failure:
            # the preview says so in place (Run refuses it with a dialog).
            try:
                return preview(*request, state)
            except (EvalInputError, EvalUsageError) as exc:
                return str(exc)

        def show(result) -> None:
            if isinstance(result, str):
                box.show_problem(result)
            else:
                box.show_frame(result)

        self.start_side_job("preview", job, show, "The preview failed")

    # ------------------------------------------------------------ running
    def cancel(self) -> None:
        """Cancel stops the evaluation, the model files being read, and a Run waiting for them."""
        if self._run_waiting:
            self._run_waiting = False
            self.progress_label.setText("Cancelled.")
        self.form.cancel_reading()
        super().cancel()

    def run(self) -> None:
        self._run_waiting = False
        if self.is_busy():
            return
        if self.form.reading_files():
            # A model file is still being read: Run now would evaluate the model shown before it.
            self.progress_label.setText("Reading the model file; the evaluation starts when it has arrived…")
            self._run_waiting = True
            QTimer.singleShot(50, lambda: self.run() if self._run_waiting else None)
            return
        from evalgui.gui.workspaces.casebase.results import evaluation_job

        try:
            request, inputs = self.form.request()
        except (EvalUsageError, EvalInputError) as exc:
            self.error.emit("Nothing to evaluate", str(exc))
            return
        self.remember_view_choices()
        self.start_job(evaluation_job(request, inputs), "Retrieving…", on_success=self._show_finished,
                       on_cancelled=self._show_cancelled, failure_title="The evaluation failed")

    def _show_finished(self, outcome) -> None:
        self.outcome = outcome
        self._refresh_views()
        self.modified.emit()
        configurations = len(outcome.table.drop_duplicates([c for c in ("retriever", "filter_size", "k")
                                                            if c in outcome.table.columns]))
        message = " ".join([f"Evaluated {configurations} retriever configuration(s).", *outcome.warnings])
        self.progress_label.setText(message)       # the status bar repeats it when the job is done

    # ------------------------------------------------------------ projects
    def workflow_outcomes(self) -> dict:
        from evalgui.gui.workspaces.casebase.results import workflow_key

        outcome = getattr(self.outcome, "outcome", None)
        return {} if outcome is None else {workflow_key(outcome.request): outcome}

    def outcome_state(self, outcome) -> dict:
        from evalgui.gui.workspaces.casebase.results import outcome_state

        return outcome_state(outcome)

    def outcome_from_state(self, state: dict):
        from evalgui.gui.workspaces.casebase.results import outcome_from_state

        return outcome_from_state(state)
