"""Measure stability: the Ranking Evaluation Tool (Dunaiski et al. 2018) on ranks of test entities.

The form (:mod:`.form`) picks the ranks (a loaded rank file, or the ranks of the relevant
documents in TREC runs), the measures (the ``rankfile`` registry), the ranges and the
settings of the stability workflow's request. Run starts the workflow on the worker
(:func:`.results.stability_job`); its outcome replaces the results only when it succeeds,
so a failed or cancelled run keeps the previous ones. Each result tab is one module with
the other workspaces' small interface: ``page``, ``title``, ``refresh(outcome)``,
``choices()``, ``shown()`` and ``export_targets()``; the plots draw only while in sight.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from evalgui.core.errors import EvalUsageError
from evalgui.gui.workspaces.base import ViewsWorkspace
from evalgui.gui.workspaces.stability.actual import ActualView
from evalgui.gui.workspaces.stability.evaluation import EvaluationView
from evalgui.gui.workspaces.stability.form import StabilityForm
from evalgui.gui.workspaces.stability.significance import SignificanceView
from evalgui.gui.workspaces.stability.splits import SplitsView
from evalgui.gui.workspaces.stability.tradeoff import TradeoffView


class StabilityWorkspace(ViewsWorkspace):
    key = "stability"
    title = "Measure stability"
    idle_message = "Choose a rank file (or qrels and runs), the measures and the ranges, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)

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

    # ------------------------------------------------------------ running
    def run(self) -> None:
        if self.is_busy():
            return
        from evalgui.gui.workspaces.stability.results import stability_job

        try:
            request, inputs = self.form.request()
        except EvalUsageError as exc:
            self.error.emit("Nothing to evaluate", str(exc))
            return
        self.remember_view_choices()
        what = f"{len(request.measures)} measure(s)"
        if request.experiments:
            what += f", {request.iterations} iterations"
        self.start_job(stability_job(request, inputs), f"{request.source(inputs)}: {what}…",
                       on_success=self._show_finished, on_cancelled=self._show_cancelled,
                       failure_title="The measure-stability run failed")

    def _show_finished(self, outcome) -> None:
        self.outcome = outcome
        self._refresh_views()
        self.modified.emit()
        message = f"{outcome.source}: {len(outcome.measures)} measure(s), {len(outcome.systems)} systems."
        if outcome.warnings:
            message += " Warnings: see above the evaluation table."
        self.progress_label.setText(message)       # the status bar repeats it when the job is done

    # ------------------------------------------------------------ projects
    def workflow_outcomes(self) -> dict:
        outcome = getattr(self.outcome, "outcome", None)
        return {} if outcome is None else {"stability": outcome}

    def outcome_state(self, outcome) -> dict:
        from evalgui.gui.workspaces.stability.results import outcome_state

        return outcome_state(outcome)

    def outcome_from_state(self, state: dict):
        from evalgui.gui.workspaces.stability.results import outcome_from_state

        return outcome_from_state(state)
