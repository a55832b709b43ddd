"""Measure stability: the Ranking Evaluation Tool (Dunaiski et al. 2018) on ranks of test entities.

The form (:mod:`.form`) picks the ranks (a loaded rank file, or the ranks of the relevant
documents in TREC runs), the measures (the ``rankfile`` registry), the ranges and the
settings of ``evalgui-cli stability``. Run starts one job on the worker
(:func:`.engine.stability_job`); its outcome replaces the results only when it succeeds,
so a failed or cancelled run keeps the previous ones. Each result tab is one module with
the other workspaces' small interface: ``page``, ``title``, ``refresh(outcome)``,
``choices()``, ``shown()`` and ``export_targets()``; the plots draw only while in sight.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from evalgui.core.errors import EvalUsageError
from evalgui.gui.workspaces.base import Workspace
from evalgui.gui.workspaces.stability.actual import ActualView
from evalgui.gui.workspaces.stability.evaluation import EvaluationView
from evalgui.gui.workspaces.stability.form import StabilityForm
from evalgui.gui.workspaces.stability.significance import SignificanceView
from evalgui.gui.workspaces.stability.splits import SplitsView
from evalgui.gui.workspaces.stability.tradeoff import TradeoffView


class StabilityWorkspace(Workspace):
    key = "stability"
    title = "Measure stability"
    idle_message = "Choose a rank file (or qrels and runs), the measures and the ranges, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.outcome = None             # engine.Outcome shown in the views

        self.form = StabilityForm(session)

        self.evaluation = EvaluationView()
        self.actual = ActualView()
        self.tradeoff = TradeoffView()
        self.splits = SplitsView()
        self.significance = SignificanceView()
        self.views = [self.evaluation, self.actual, self.tradeoff, self.splits, self.significance]
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("stabilityResultsTabs")
        self.results_tabs.setMinimumWidth(300)
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        # Views that only keep up while in sight catch up when shown.
        self.results_tabs.currentChanged.connect(lambda index: self.views[index].shown() if index >= 0 else None)

        self.lay_out(self.form, self.results_tabs)
        session.changed.connect(self.refresh_inputs)
        self.form.edited.connect(self.modified)
        self.refresh_inputs()
        self._refresh_views()

    # ------------------------------------------------------------ the form
    def refresh_inputs(self) -> None:
        self.form.refresh_inputs()

    def form_state(self) -> dict:
        return self.form.state()

    def restore_form_state(self, state: dict) -> None:
        self.form.restore(state)

    # ------------------------------------------------------------ running
    def run(self) -> None:
        if self.is_busy():
            return
        from evalgui.gui.workspaces.stability.engine import stability_job

        try:
            request = self.form.request()
        except EvalUsageError as exc:
            self.error.emit("Nothing to evaluate", str(exc))
            return
        for view in self.views:
            for combo in view.choices():
                combo.remember()
        settings = request.settings
        what = f"{len(settings.measures)} measure(s)"
        if settings.experiments:
            what += f", {settings.iterations} iterations"
        self.start_job(stability_job(request), f"{request.source}: {what}…", on_success=self._show_finished,
                       on_cancelled=self._show_cancelled, failure_title="The measure-stability run failed")

    def _show_finished(self, outcome) -> None:
        self.outcome = outcome
        self._refresh_views()
        self.modified.emit()
        message = f"{outcome.source}: {len(outcome.measures)} measure(s), {len(outcome.systems)} systems."
        if outcome.warnings:
            message += " Warnings: see above the evaluation table."
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _show_cancelled(self) -> None:
        kept = "the previous results are still shown." if self.outcome is not None else "nothing to show."
        self.progress_label.setText(f"Cancelled; {kept}")

    def _refresh_views(self) -> None:
        for view in self.views:
            view.refresh(self.outcome)

    def clear_results(self) -> None:
        """Forget the results (another project is opened); a running job is stopped and ignored."""
        self.abandon_job()
        self.outcome = None
        self._refresh_views()

    # ------------------------------------------------------------ projects and export
    def has_results(self) -> bool:
        return self.outcome is not None

    def results_state(self) -> dict | None:
        from evalgui.gui.workspaces.stability.engine import outcome_state

        return outcome_state(self.outcome) if self.outcome is not None else None

    def restore_results_state(self, state: dict) -> None:
        from evalgui.gui.workspaces.stability.engine import outcome_from_state

        restored = outcome_from_state(state)
        if restored is None:
            return
        self.outcome = restored
        self._refresh_views()
        self.progress_label.setText("Results restored from the project.")

    def export_targets(self):
        return [target for view in self.views for target in view.export_targets()]
