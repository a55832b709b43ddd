"""Meta-evaluation: how good is each measure? Stability, discriminative power, robustness, agreement.

The form (:mod:`.form`) picks the qrels, the runs, the measures and the experiment
with its settings. Run starts one job on the worker (:func:`.engine.metaeval_job`:
rank the runs, evaluate, run the experiment of :mod:`evalgui.core.metaeval`); its
outcome replaces the results only when it succeeds, so a failed or cancelled run keeps
the previous ones. Each result tab is one module with the ranked workspace's small
interface: ``page``, ``title``, ``refresh(outcome)``, ``choices()`` and
``export_targets()``, plus ``experiments``: the experiments whose results it shows
(the other tabs are hidden).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from evalgui.core.errors import EvalUsageError
from evalgui.gui.workspaces.base import Workspace
from evalgui.gui.workspaces.metaeval.agreement import AgreementView
from evalgui.gui.workspaces.metaeval.decisions import DecisionsView
from evalgui.gui.workspaces.metaeval.form import EXPERIMENT_LABELS, MetaevalForm
from evalgui.gui.workspaces.metaeval.power import PowerView
from evalgui.gui.workspaces.metaeval.robustness import RobustnessView
from evalgui.gui.workspaces.metaeval.set_size import SetSizeView
from evalgui.gui.workspaces.metaeval.table import TableView
from evalgui.gui.workspaces.metaeval.tradeoff import TradeoffView


class MetaevalWorkspace(Workspace):
    key = "metaeval"
    title = "Meta-evaluation"
    idle_message = "Choose the runs, the measures and an experiment, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.outcome = None             # engine.Outcome shown in the views

        self.form = MetaevalForm(session)
        scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.form_column = QWidget()
        self.form_column.setMinimumWidth(290)       # with the results, within the window's minimum width
        column = QVBoxLayout(self.form_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(scroll, 1)
        column.addWidget(self.run_controls())

        self.table = TableView()
        self.tradeoff = TradeoffView()
        self.set_size = SetSizeView()
        self.decisions = DecisionsView()
        self.power = PowerView()
        self.robustness = RobustnessView()
        self.agreement = AgreementView()
        self.views = [self.table, self.tradeoff, self.set_size, self.decisions, self.power, self.robustness,
                      self.agreement]
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("metaevalResultsTabs")
        self.results_tabs.setMinimumWidth(300)
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        # Views that only keep up while in sight catch up when shown.
        self.results_tabs.currentChanged.connect(lambda index: self.views[index].shown() if index >= 0 else None)

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.form_column)
        splitter.addWidget(self.results_tabs)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([420, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
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
        from evalgui.gui.workspaces.metaeval.engine import metaeval_job

        try:
            request = self.form.request()
        except EvalUsageError as exc:
            self.error.emit("Nothing to meta-evaluate", str(exc))
            return
        for view in self.views:
            for combo in view.choices():
                combo.remember()
        label = EXPERIMENT_LABELS[request.settings.experiment]
        self.start_job(metaeval_job(request), f"{label}: {len(request.runs)} runs, {len(request.specs)} measure(s)…",
                       on_success=self._show_finished, on_cancelled=self._show_cancelled,
                       failure_title="The meta-evaluation failed")

    def _show_finished(self, outcome) -> None:
        self.outcome = outcome
        self._refresh_views()
        self.modified.emit()
        message = (f"{EXPERIMENT_LABELS[outcome.experiment]}: {len(outcome.measures)} measure(s), "
                   f"{len(outcome.runs)} runs.")
        if outcome.query_report:
            message += " Some runs lack queries: see the report above the table."
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _show_cancelled(self) -> None:
        kept = "the previous results are still shown." if self.outcome is not None else "nothing to show."
        self.progress_label.setText(f"Cancelled; {kept}")

    def _refresh_views(self) -> None:
        experiment = self.outcome.experiment if self.outcome is not None else None
        for view in self.views:
            view.refresh(self.outcome)
            # Only the tabs of the experiment shown (the table alone before any result).
            self.results_tabs.setTabVisible(self.results_tabs.indexOf(view.page),
                                            view is self.table or experiment in view.experiments)

    def clear_results(self) -> None:
        """Forget the results (another project is opened); a running job is stopped and ignored."""
        self.abandon_job()
        self.outcome = None
        self._refresh_views()

    # ------------------------------------------------------------ projects and export
    def has_results(self) -> bool:
        return self.outcome is not None

    def results_state(self) -> dict | None:
        from evalgui.gui.workspaces.metaeval.engine import outcome_state

        return outcome_state(self.outcome) if self.outcome is not None else None

    def restore_results_state(self, state: dict) -> None:
        from evalgui.gui.workspaces.metaeval.engine import outcome_from_state

        restored = outcome_from_state(state)
        if restored is None:
            return
        self.outcome = restored
        self._refresh_views()
        self.progress_label.setText("Results restored from the project.")

    def export_targets(self):
        return [target for view in self.views for target in view.export_targets()]
