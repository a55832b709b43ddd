"""Meta-evaluation: how good is each measure? Stability, discriminative power, robustness, agreement.

The form (:mod:`.form`) picks the qrels, the runs, the measures and the experiment
with its settings. Run starts the meta-evaluation workflow on the worker
(:func:`evalgui.core.workflows.metaeval.run_metaeval`: rank the runs, evaluate, run the
experiment) with the session's loaded data; its
outcome replaces the results only when it succeeds, so a failed or cancelled run keeps
the previous ones. Results the form or the files no longer describe (other runs, measures,
settings, a file read again...) say so in the shared stale banner until the next Run. Each
result tab is one module with the ranked workspace's small interface: ``page``, ``title``, ``refresh(outcome)``, ``choices()`` and
``export_targets()``, plus ``experiments``: the experiments whose results it shows
(the other tabs are hidden).
"""

from __future__ import annotations

import os

from PySide6.QtWidgets import QTabWidget

from evalgui.core.errors import EvalUsageError
from evalgui.gui.workspaces.base import EvaluationInputs, StaleBanner, ViewsWorkspace, changed_files, note_above
from evalgui.gui.workspaces.metaeval.agreement import AgreementView
from evalgui.gui.workspaces.metaeval.decisions import DecisionsView
from evalgui.gui.workspaces.metaeval.form import EXPERIMENT_LABELS, MetaevalForm
from evalgui.gui.workspaces.metaeval.power import PowerView
from evalgui.gui.workspaces.metaeval.robustness import RobustnessView
from evalgui.gui.workspaces.metaeval.set_size import SetSizeView
from evalgui.gui.workspaces.metaeval.table import TableView
from evalgui.gui.workspaces.metaeval.tradeoff import TradeoffView


class MetaevalWorkspace(ViewsWorkspace):
    key = "metaeval"
    title = "Meta-evaluation"
    idle_message = "Choose the runs, the measures and an experiment, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self._computed = None           # EvaluationInputs: the files and form the outcome was computed with

        self.form = MetaevalForm(session)

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

        self.stale_banner = StaleBanner()
        results_column = note_above(self.stale_banner, self.results_tabs)
        from evalgui.gui.caveats import CaveatStrip

        self.caveat_strip = CaveatStrip()            # things to watch in the results, their cells marked
        self.caveat_strip.mark(self.table.view)
        results_column = note_above(self.caveat_strip, results_column)

        self.lay_out(self.form, results_column)
        session.changed.connect(self.refresh_inputs)
        session.changed.connect(self._update_stale_banner)
        self.form.edited.connect(self.modified)
        self.form.changed.connect(self._update_stale_banner)
        self.refresh_inputs()
        self._refresh_views()

    # ------------------------------------------------------------ running
    def run(self) -> None:
        if self.is_busy():
            return
        from evalgui.core.workflows.metaeval import run_metaeval

        try:
            request, data = self.form.request()
        except EvalUsageError as exc:
            self.error.emit("Nothing to meta-evaluate", str(exc))
            return
        self.remember_view_choices()
        label = EXPERIMENT_LABELS[request.experiment]
        inputs = self._form_inputs()
        self.start_job(lambda state: run_metaeval(request, state, data),
                       f"{label}: {len(request.runs)} runs, {len(request.measures)} measure(s)…",
                       on_success=lambda outcome: self._show_finished(outcome, inputs),
                       on_cancelled=self._show_cancelled, failure_title="The meta-evaluation failed")

    def _form_inputs(self):
        """The files and settings the form describes now, each file as loaded now."""
        data = self.form.data
        qrels, runs = data.qrels_item(), data.checked_run_paths()
        inputs = EvaluationInputs(data.qrels_path or "", qrels.name if qrels is not None else "",
                                  tuple(zip(self.session.run_names(runs), runs)), tuple(self.form.picker.specs()),
                                  self.form.options(), judged_below=self.form.judged_spin.value())
        return inputs.loaded_in(self.session)

    def _show_finished(self, outcome, inputs) -> None:
        self.outcome = outcome
        self.caveat_strip.show_outcomes(outcome)
        self._computed = inputs
        self._update_stale_banner()
        self._refresh_views()
        self.modified.emit()
        message = (f"{EXPERIMENT_LABELS[outcome.experiment]}: {len(outcome.measures)} measure(s), "
                   f"{len(outcome.runs)} runs.")
        if outcome.query_report:
            message += " Some runs lack queries: see the report above the table."
        self.progress_label.setText(message)       # the status bar repeats it when the job is done

    def _refresh_views(self) -> None:
        experiment = self.outcome.experiment if self.outcome is not None else None
        for view in self.views:
            view.refresh(self.outcome)
            # Only the tabs of the experiment shown (the table alone before any result).
            self.results_tabs.setTabVisible(self.results_tabs.indexOf(view.page),
                                            view is self.table or experiment in view.experiments)
        self.update_export_buttons()

    def clear_results(self) -> None:
        self._computed = None
        self.caveat_strip.show_caveats(None)
        super().clear_results()
        self._update_stale_banner()

    # ------------------------------------------------------------ are the results current?
    def stale_reasons(self) -> list[str]:
        """What changed since the shown results were computed (empty: they are current, or unknown)."""
        inputs = self._computed
        if self.outcome is None or inputs is None:
            return []
        data, form = self.form.data, []
        if data.qrels_path != inputs.qrels:
            form.append("the qrels")
        loaded = {item.path for item in self.session.of_kind("run")}
        if [p for _, p in inputs.runs if p in loaded] != data.checked_run_paths():
            form.append("the runs ticked")
        if list(inputs.specs) != self.form.picker.specs():
            form.append("the measures")
        if inputs.options != self.form.options():
            form.append("the options")
        try:
            settings = self.form.settings()
        except EvalUsageError:              # a setting being typed: not what was run
            settings = None
        if settings is not None and settings.experiment != self.outcome.experiment:
            form.append("the experiment")
        elif settings != self.outcome.result.settings:
            form.append("the experiment's settings")
        reasons = [f"the form has changed since ({', '.join(form)})"] if form else []
        # every run counts: the experiment compared them all together
        reasons += changed_files(self.session, inputs.versions,
                                 {inputs.qrels: inputs.qrels_name, **{path: os.path.basename(path) for _, path in inputs.runs}})
        return list(dict.fromkeys(reasons + self.saved_files_stale_reasons()))

    def _update_stale_banner(self) -> None:
        reasons = self.stale_reasons()
        self.stale_banner.show_reasons(self._computed.qrels_name if reasons else "", reasons)

    # ------------------------------------------------------------ projects
    def _request(self):
        """The meta-evaluation request behind the shown results: the files and form they were computed with."""
        from evalgui.core.workflows.metaeval import request_of_settings
        from evalgui.core.workflows.params import RequestError

        inputs = self._computed
        if self.outcome is None or inputs is None:
            return None
        try:
            return request_of_settings(self.outcome.result.settings, qrels=inputs.qrels,
                                       runs=tuple(p for _, p in inputs.runs), measures=tuple(inputs.specs),
                                       level=inputs.options.relevance_level, complete=inputs.options.complete,
                                       judged_below=inputs.judged_below)
        except RequestError:
            return None

    def workflow_requests(self) -> dict:
        """The request behind the shown results (``evalgui-cli run`` re-runs it); none when it is not known."""
        request = self._request()
        return {"metaeval": request.to_json()} if request is not None else {}

    def workflow_outcomes(self) -> dict:
        """The outcome shown (reports are made of it), with the request behind it."""
        if self.outcome is None:
            return {}
        request = self._request()
        if request is not None:
            self.outcome.request = request
        return {"metaeval": self.outcome}

    def outcome_state(self, outcome) -> dict:
        from evalgui.gui.workspaces.metaeval.results import outcome_state

        state = outcome_state(outcome)
        if self._computed is not None:
            state["inputs"] = self._computed.to_json()
        return state

    def results_state_job(self):
        from evalgui.gui.workspaces.metaeval.results import outcome_state

        outcome = self.outcome
        if outcome is None:
            return lambda: None
        inputs = self._computed.to_json() if self._computed is not None else None     # the form's: read here

        def state():
            saved = outcome_state(outcome)
            if inputs is not None:
                saved["inputs"] = inputs
            return saved
        return state

    def outcome_from_state(self, state: dict):
        from evalgui.gui.workspaces.metaeval.results import outcome_from_state

        return outcome_from_state(state)

    def restore_results_state(self, state: dict) -> bool:
        if not super().restore_results_state(state):
            return False
        self.caveat_strip.show_outcomes(self.outcome)
        self._computed = EvaluationInputs.from_json(state.get("inputs"), self.session) if "inputs" in state else None
        self._update_stale_banner()
        return True
