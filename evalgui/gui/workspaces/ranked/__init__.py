"""Ranked retrieval: evaluate TREC runs against qrels with trec_eval's measures.

The form (:mod:`.form`) picks the qrels, the runs and the measures; Run
starts the ranked workflow (:func:`evalgui.core.workflows.ranked.run_evaluate`) on the background
worker with the session's loaded data; it evaluates one run at a time, and each run's rows,
curves and rankings reach the views as soon as that run is done. Each result
tab is one module here with the same small interface: ``page`` (the widget),
``title``, ``refresh(results)``, ``choices()`` (combo boxes whose choice
survives a new run) and ``export_targets()``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTabWidget

from evalgui.core.ranked.jobs import ResultSet, RunResult
from evalgui.core.workflows.caveats import caveats_state, saved_caveats
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.params import RequestError
from evalgui.core.workflows.ranked import EvaluateRequest, restored_results, run_evaluate
from evalgui.gui.workspaces.base import EvaluationInputs, StaleBanner, Workspace, changed_files, note_above
from evalgui.gui.workspaces.ranked.curves import CurvesView
from evalgui.gui.workspaces.ranked.differences import DifferencesView
from evalgui.gui.workspaces.ranked.drill_down import DrillDownView
from evalgui.gui.workspaces.ranked.form import RankedForm
from evalgui.gui.workspaces.ranked.per_query import PerQueryView
from evalgui.gui.workspaces.ranked.run_matrix import RunMatrixView
from evalgui.gui.workspaces.ranked.summary import SummaryView


def _same_numbers(saved: RunResult, computed: RunResult) -> bool:
    """Whether a project's saved result and the one computed again from the files agree."""
    if saved.summary.keys() != computed.summary.keys() or saved.query_ids != computed.query_ids:
        return False
    summaries = np.array(list(saved.summary.values()), float), np.array(list(computed.summary.values()), float)
    return np.array_equal(*summaries, equal_nan=True) and all(
        m in saved.per_query and np.array_equal(saved.per_query[m], values, equal_nan=True)
        for m, values in computed.per_query.items())


def evaluate_request(qrels_path: str, run_paths: list[str], specs, options,
                     judged_below: float = 90.0) -> EvaluateRequest:
    """The ranked workflow's request for these files and the form's settings (RequestError says what is wrong)."""
    return EvaluateRequest(qrels=qrels_path, runs=tuple(run_paths), measures=tuple(specs), per_query=True,
                           level=options.relevance_level, complete=options.complete, max_docs=options.max_docs,
                           judged_only=options.judged_only, num_docs=options.num_docs_in_coll,
                           ndeval_rank_order=options.diversity_order == "rank", judged_below=judged_below)


def evaluation_job(qrels_path: str, qrels, runs: list[tuple[str, str, object]], specs, options,
                   judged_below: float = 90.0):
    """The ranked workflow on the session's loaded data, each (name, path, Run) named as the session names it;
    each run's RunResult reaches the views as a partial result."""
    request = evaluate_request(qrels_path, [path for _, path, _ in runs], specs, options, judged_below)
    inputs = Inputs(names={path: name for name, path, _ in runs})
    inputs.add(qrels_path, qrels)
    for _, path, run in runs:
        inputs.add(path, run)
    # The window keeps the RunResults, not the outcome's joined tables and hashes (they would only slow
    # the job down: a project or report makes them when it is written).
    return lambda state: run_evaluate(request, state, inputs, for_window=True)


class RankedWorkspace(Workspace):
    key = "ranked"
    title = "Ranked retrieval"
    idle_message = "Pick qrels, runs and measures, then press Run."

    def _select_queries(self, queries: list, row_run: str, column_run: str) -> None:
        self.select_queries(queries, row_run, column_run, self.run_matrix.measure.currentData())

    def select_queries(self, queries: list, row_run: str, column_run: str, measure: str | None = None) -> None:
        """Queries selected in a pair's view (Run × run's, or Compare's): selected in the per-query table
        (showing ``measure`` when it has it), the first in the drill-down for the two runs."""
        self.per_query.select_queries(queries, measure)
        if queries:
            self.drill_down.show_pair(queries[0], row_run, column_run)

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.results_set = ResultSet()
        self._refresh_pending = False
        self._views_due: list = []          # views not yet showing the latest results (refreshed a turn each)
        self._evaluated_level: int | None = None
        self._evaluated: EvaluationInputs | None = None    # what the shown results were computed with
        self._restoring = False             # re-deriving a project's rankings and curves (not the user's job)
        self._rederive_when_idle: EvaluationInputs | None = None
        self._changed_on_disk: list[str] = []   # run files that no longer give the project's numbers

        self.form = RankedForm(session)

        self.summary = SummaryView()
        self.per_query = PerQueryView()
        self.curves = CurvesView()
        self.differences = DifferencesView()
        self.run_matrix = RunMatrixView()
        self.drill_down = DrillDownView(self.start_side_job)
        self.views = [self.summary, self.per_query, self.curves, self.differences, self.run_matrix, self.drill_down]
        self.run_matrix.on_queries_selected = self._select_queries
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("resultsTabs")
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        # Views that only keep up while in sight (see RunMatrixView.refresh) catch up when shown.
        self.results_tabs.currentChanged.connect(lambda index: getattr(self.views[index], "shown", lambda: None)())
        # Results the form no longer describes say so above the tabs.
        self.stale_banner = StaleBanner()
        results_column = note_above(self.stale_banner, self.results_tabs)
        from evalgui.gui.caveats import CaveatStrip

        self.caveat_strip = CaveatStrip()            # things to watch in the results, their cells marked
        self.caveat_strip.mark(self.summary.view)
        results_column = note_above(self.caveat_strip, results_column)

        self.results_tabs.setMinimumWidth(300)
        self.lay_out(self.form, results_column)
        session.changed.connect(self._session_changed)
        form = self.form
        for edited in (form.qrels_combo.currentIndexChanged, form.run_list.itemChanged, form.picker.changed,
                       form.level_spin.valueChanged, form.complete_check.toggled, form.max_docs_spin.valueChanged):
            edited.connect(self._form_edited)
        self.refresh_inputs()

    # ------------------------------------------------------------ the form
    def refresh_inputs(self) -> None:
        self.form.refresh_inputs()

    def _session_changed(self) -> None:
        self.refresh_inputs()
        self._drop_removed_runs()
        self._update_stale_banner()

    def _form_edited(self, *_) -> None:
        self.modified.emit()
        self._update_stale_banner()

    def set_qrels(self, path: str) -> None:
        self.form.set_qrels(path)

    def set_run_checked(self, path: str, checked: bool) -> None:
        self.form.set_run_checked(path, checked)

    def form_state(self) -> dict:
        return self.form.state()

    def restore_form_state(self, state: dict) -> None:
        self.form.restore(state)

    # ------------------------------------------------------------ running
    def run(self) -> None:
        if self.is_busy():
            return
        # The measures are checked before anything is cleared: a run refused at the start keeps the results.
        if not self.form.picker.specs():
            self.error.emit("Nothing to evaluate", "Tick at least one measure.")
            return
        problem = self.form.picker.specs_problem()
        if problem is not None:
            self.error.emit("Cannot evaluate", problem)
            return
        qrels_item = self.form.qrels_item()
        if qrels_item is None:
            self.error.emit("Nothing to evaluate", "Load a qrels file first (File ▸ Open data…).")
            return
        run_items = [r for r in (self.session.find(p) for p in self.form.checked_run_paths()) if r is not None]
        if not run_items:
            self.error.emit("Nothing to evaluate", "Tick at least one run.")
            return
        inputs = self._form_inputs(qrels_item, run_items)
        try:
            evaluate_request(qrels_item.path, [p for _, p in inputs.runs], inputs.specs, inputs.options).check()
        except RequestError as exc:
            self.error.emit("Cannot evaluate", exc.problems[0].for_window())
            return
        for view in self.views:
            for combo in view.choices():
                combo.remember()
        self._clear_results()
        self._evaluated_level = self.form.level_spin.value()
        self._evaluated = inputs
        runs = [(name, item.path, item.data) for (name, _), item in zip(inputs.runs, run_items)]
        job = evaluation_job(qrels_item.path, qrels_item.data, runs, list(inputs.specs), inputs.options,
                             inputs.judged_below)
        self.start_job(job, f"Evaluating {len(runs)} run(s)…", on_partial=self._on_run_result,
                       on_success=self._show_finished, on_cancelled=self._show_cancelled,
                       failure_title="Evaluation failed")

    def _form_inputs(self, qrels_item, run_items) -> EvaluationInputs:
        """The form's settings for these files, with each run's name in the results."""
        names = self.session.run_names([r.path for r in run_items])
        names = [f"{n} (run)" if n == "query" else n for n in names]   # "query" names the per-query table's first column
        inputs = EvaluationInputs(qrels_item.path, qrels_item.name, tuple(zip(names, (r.path for r in run_items))),
                                  tuple(self.form.picker.specs()), self.form.options(),
                                  judged_below=self.form.judged_spin.value())
        return inputs.loaded_in(self.session)

    def _on_run_result(self, result: RunResult) -> None:
        if self.session.find(result.path) is None:      # removed from the Data dock while evaluating
            return
        self.results_set.add(result)
        self.curves.add_run(result.name, result.curves)
        self.modified.emit()
        self._refresh_soon()

    def _refresh_soon(self) -> None:
        # Runs finishing close together are shown in one refresh, so the GUI thread never queues up work;
        # each view (the tab in sight first) refreshes in a turn of its own, so the window never stalls for
        # all of them at once (2,000 queries: some 15 ms each).
        current = self.results_tabs.currentWidget()
        self._views_due = sorted(self.views, key=lambda view: view.page is not current)
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._refresh_next_view)

    def _refresh_next_view(self) -> None:
        if not self._refresh_pending:
            return
        if self._views_due:
            self._views_due.pop(0).refresh(self.results_set)
        if self._views_due:
            QTimer.singleShot(0, self._refresh_next_view)
        else:
            self._refresh_pending = False

    def _deferred_refresh(self) -> None:
        """The views still due a refresh, now."""
        if self._refresh_pending:
            self._refresh_pending = False
            due, self._views_due = self._views_due, []
            for view in due:
                view.refresh(self.results_set)

    def _show_finished(self, _count) -> None:
        self._deferred_refresh()          # the last run's rows are in the tables before "finished"
        self.caveat_strip.show_outcomes(_count if hasattr(_count, "tables") else None)
        absent = {name: r.absent_topics for name, r in self.results_set.runs.items() if r.absent_topics}
        message = f"Evaluated {len(self.results_set)} run(s)."
        if absent:
            message += " Skipped judged queries a run has no results for: " + "; ".join(
                f"{name}: {len(t)}" for name, t in absent.items()) + \
                " (tick 'Score queries missing from a run as 0' to count them)."
        qrels_item = self.form.qrels_item()
        if qrels_item is not None and self._evaluated_level is not None \
                and self._evaluated_level > qrels_item.summary.get("max_grade", 0):
            message += (f" Careful: no document in the qrels has a grade of {self._evaluated_level} or more, so "
                        f"nothing counts as relevant (see 'Relevant from grade').")
        self.progress_label.setText(message)       # the status bar repeats it when the job is done

    def _show_cancelled(self) -> None:
        self.progress_label.setText(f"Cancelled. {len(self.results_set)} run(s) had finished; their results are shown.")

    def job_finished(self) -> None:
        self._restoring = False
        self._deferred_refresh()
        self._update_stale_banner()
        pending, self._rederive_when_idle = self._rederive_when_idle, None
        if pending is not None:
            self._rederive(pending)

    def work_in_progress(self) -> bool:
        return self.is_busy() and not self._restoring     # re-deriving a project's curves loses nothing

    # ------------------------------------------------------------ results
    def _clear_results(self) -> None:
        self.results_set.clear()
        self.caveat_strip.show_caveats(None)
        self.curves.clear()
        self._evaluated = None
        self._changed_on_disk = []
        self._refresh_views()
        self._update_stale_banner()

    def _drop_removed_runs(self) -> None:
        """Results of runs no longer in the session (removed, or read as another kind) leave every view."""
        loaded = {item.path for item in self.session.of_kind("run")}
        kept = [r for r in self.results_set.values() if not r.path or r.path in loaded]
        if len(kept) == len(self.results_set):
            return
        self.results_set.clear()
        self.curves.clear()
        for result in kept:
            self.results_set.add(result)
            if result.curves:
                self.curves.add_run(result.name, result.curves)
        self._refresh_views()

    def has_results(self) -> bool:
        return len(self.results_set) > 0

    # ------------------------------------------------------------ are the results current?
    def stale_reasons(self) -> list[str]:
        """What changed since the shown results were computed (empty: they are current)."""
        inputs = self._evaluated
        if inputs is None or not len(self.results_set):
            return []
        loaded_runs = {item.path for item in self.session.of_kind("run")}
        form = []
        if self.form.qrels_path != inputs.qrels:
            form.append("the qrels")
        if [p for _, p in inputs.runs if p in loaded_runs] != self.form.checked_run_paths():
            form.append("the runs ticked")
        if list(inputs.specs) != self.form.picker.specs():
            form.append("the measures")
        if inputs.options != self.form.options():
            form.append("the options")
        reasons = [f"the form has changed since ({', '.join(form)})"] if form else []
        reasons += changed_files(self.session, inputs.versions, {inputs.qrels: inputs.qrels_name})
        reasons += [f"{name} has changed since the project was saved" for name in self._changed_on_disk]
        return list(dict.fromkeys(reasons + self.saved_files_stale_reasons()))

    def _update_stale_banner(self) -> None:
        reasons = self.stale_reasons()
        self.stale_banner.show_reasons(self._evaluated.qrels_name if reasons else "", reasons)

    def clear_results(self) -> None:
        """Forget the results (a new project is opened); a running evaluation is stopped and ignored."""
        self.abandon_job()
        self._rederive_when_idle = None
        self._clear_results()

    def _refresh_views(self) -> None:
        self._refresh_pending, self._views_due = False, []
        for view in self.views:
            view.refresh(self.results_set)

    @property
    def results(self) -> pd.DataFrame:
        """Every result so far, tidy: run, query, measure, value."""
        return self.results_set.tidy()

    def summary_frame(self) -> pd.DataFrame:
        return self.summary.model.frame

    # ------------------------------------------------------------ projects and export
    def results_state(self) -> dict | None:
        if not len(self.results_set):
            return None
        state = {"measure_order": list(self.results_set.measure_info()), "rows": self.results.to_dict(orient="list")}
        if any(r.curves for r in self.results_set.values()):      # what the report's precision-recall plot draws
            from evalgui.core.workflows.ranked import curves_state

            state["curves"] = curves_state(self.results_set.values())
        if self._evaluated is not None:
            state["inputs"] = self._evaluated.to_json()
        caveats = caveats_state(self.caveat_strip.frame)      # reopened, the strip shows them again
        if caveats is not None:
            state["caveats"] = caveats
        return state

    def results_state_job(self):
        """:meth:`results_state` worked out by the save's worker from the RunResults shown now (a run evaluated
        later replaces its RunResult in the set, never changes it)."""
        if not len(self.results_set):
            return lambda: None
        results = self.results_set.values()
        order = list(self.results_set.measure_info())
        inputs = self._evaluated.to_json() if self._evaluated is not None else None
        caveats = self.caveat_strip.frame

        def state():
            import pandas as pd

            rows = pd.concat([r.frame for r in results], ignore_index=True)
            saved = {"measure_order": order, "rows": rows.to_dict(orient="list")}
            if any(r.curves for r in results):
                from evalgui.core.workflows.ranked import curves_state

                saved["curves"] = curves_state(results)
            if inputs is not None:
                saved["inputs"] = inputs
            if caveats_state(caveats) is not None:
                saved["caveats"] = caveats_state(caveats)
            return saved
        return state

    def workflow_requests(self) -> dict:
        """The ranked workflow's request behind the shown results (``evalgui-cli run`` re-runs it)."""
        inputs = self._evaluated
        if inputs is None or not len(self.results_set):
            return {}
        try:
            request = evaluate_request(inputs.qrels, [p for _, p in inputs.runs], inputs.specs, inputs.options,
                                       inputs.judged_below)
        except RequestError:
            return {}
        return {"ranked": request.to_json()}

    def workflow_outcomes(self) -> dict:
        """The ranked workflow's outcome of the shown results (reports are made of it): the summary, the
        per-query rows and the run × run table, with its provenance (the inputs hashed)."""
        return {key: outcome.stamp() for key, outcome in self.report_outcomes().items()}

    def report_outcomes(self) -> dict:
        """:meth:`workflow_outcomes` without provenance yet: the report's worker hashes the inputs."""
        requests = self.workflow_requests()
        if not requests:
            return {}
        from evalgui.core import tidy
        from evalgui.core.workflows.outcome import Outcome

        rows = self.results
        is_summary = (rows[tidy.QUERY] == tidy.ALL_QUERIES).to_numpy()
        tables = {"summary": rows[is_summary].reset_index(drop=True),
                  "per_query": rows[~is_summary].reset_index(drop=True),
                  "run_matrix": self.results_set.run_matrix()}
        if any(r.curves for r in self.results_set.values()):
            from evalgui.core.ranked.jobs import curve_table

            tables["curves"] = curve_table(self.results_set.values())
        if self.caveat_strip.frame is not None:                 # the report's Things to watch
            tables["caveats"] = self.caveat_strip.frame
        return {"ranked": Outcome("ranked", EvaluateRequest.from_json(requests["ranked"]), tables)}

    def restore_results_state(self, state: dict) -> None:
        """Show a project's saved results (with its interpolated curves, when it keeps them, and their run × run
        rows, derived: projects do not keep them), then re-derive their rankings and curves from the files on
        the worker: the curves and the drill-down fill in without Run."""
        restored = restored_results(state)
        if restored is None:
            return
        from evalgui.core.ranked.jobs import curves_by_run
        from evalgui.core.workflows.ranked import saved_curves

        # The saved curves stay with the results (saved again, reported) without their files; the Curves tab
        # draws the files' own, re-derived with the rankings the drill-down needs.
        curves = saved_curves(state)
        curves = curves_by_run(curves) if curves is not None else {}
        for result in restored:
            result.curves = curves.get(result.name) or result.curves
        if "inputs" in state:
            inputs = EvaluationInputs.from_json(state.get("inputs"), self.session)
        elif isinstance(state.get("ranked"), dict):          # eg.save_project's outcome: its request
            inputs = self._inputs_of_saved_outcome(state["ranked"], [r.name for r in restored])
        else:
            inputs = self._inputs_of_older_project([r.name for r in restored])
        self._clear_results()
        # A run whose file is not loaded keeps its saved rows until the next Run (nothing to remove it by).
        paths = {name: path for name, path in inputs.runs if self.session.find(path)} if inputs is not None else {}
        for result in restored:
            result.path = paths.get(result.name, "")
            self.results_set.add(result)
        self._evaluated = inputs
        self.caveat_strip.show_caveats(saved_caveats(state))
        self._refresh_views()
        self._update_stale_banner()
        self._rederive(inputs)

    def _inputs_of_saved_outcome(self, saved: dict, names: list[str]) -> EvaluationInputs | None:
        """A project written by ``eg.save_project`` keeps the ranked outcome, not the tab's inputs: they are its
        request's, and the form (the project keeps none) is set to them, as the tab's own Run would have left it."""
        from evalgui.core.ranked.evaluate import EvalOptions

        try:
            request = EvaluateRequest.from_json(saved.get("request", {}))
        except (RequestError, ValueError, TypeError, KeyError):
            return None
        runs = []
        for path in request.runs:
            item = self.session.find(path)
            name = item.name if item is not None else os.path.splitext(os.path.basename(path))[0]
            if name in names:
                runs.append((name, path))
        qrels = self.session.find(request.qrels)
        options = EvalOptions(relevance_level=request.level, complete=request.complete, max_docs=request.max_docs,
                              judged_only=request.judged_only, num_docs_in_coll=request.num_docs,
                              diversity_order="rank" if request.ndeval_rank_order else "score")
        inputs = EvaluationInputs(request.qrels, qrels.name if qrels is not None else "", tuple(runs),
                                  tuple(request.measures), options,
                                  judged_below=request.judged_below).loaded_in(self.session)
        form = self.form
        form.set_qrels(request.qrels)
        for item in self.session.of_kind("run"):
            form.set_run_checked(item.path, item.path in {p for _, p in runs})
        form.picker.set_checked({})
        for spec in request.measures:
            form.picker.add_custom(spec)
        form.level_spin.setValue(request.level)
        form.complete_check.setChecked(request.complete)
        form.max_docs_spin.setValue(request.max_docs or 0)
        form.judged_spin.setValue(int(round(request.judged_below)))
        return inputs

    def _inputs_of_older_project(self, names: list[str]) -> EvaluationInputs | None:
        """Projects saved before results named their inputs: the form, if it names the same runs."""
        qrels_item = self.form.qrels_item()
        run_items = [self.session.find(p) for p in self.form.checked_run_paths()]
        if qrels_item is None or not run_items:
            return None
        inputs = self._form_inputs(qrels_item, run_items)
        return inputs if sorted(n for n, _ in inputs.runs) == sorted(names) else None

    def _rederive(self, inputs: EvaluationInputs | None) -> None:
        qrels_item = self.session.find(inputs.qrels) if inputs is not None else None
        runs = []
        if qrels_item is not None and "qrels" in (qrels_item.kind, qrels_item.record.acts_as):
            for name, path in inputs.runs:
                item = self.session.find(path)
                if item is not None and item.kind == "run" and name in self.results_set:
                    if item.by_query:       # no ranking nor curves to re-derive: not worth reading it again
                        self.results_set[name].by_query = True
                    else:
                        runs.append((name, path, item.data))
        if not runs and any(r.by_query for r in self.results_set.values()):
            self.progress_label.setText("Results restored from the project.")
            self._refresh_soon()
            return
        if not runs:
            self.progress_label.setText("Results restored from the project. Their files are not loaded, so the "
                                        "curves and the drill-down stay empty until you press Run.")
            return
        if self.is_busy():          # the replaced session's job is still stopping
            self._rederive_when_idle = inputs
            return
        try:
            evaluate_request(qrels_item.path, [p for _, p, _ in runs], inputs.specs, inputs.options).check()
        except RequestError as exc:
            self.progress_label.setText(f"Results restored from the project. Their curves cannot be drawn: "
                                        f"{exc.problems[0].for_window()}")
            return
        self._restoring = True
        job = evaluation_job(qrels_item.path, qrels_item.data, runs, list(inputs.specs), inputs.options)
        self.start_job(job, "Results restored from the project; reading the rankings for the curves and the "
                            "drill-down…", on_partial=self._on_rederived,
                       on_success=lambda _: self.progress_label.setText("Results restored from the project."),
                       on_cancelled=lambda: self.progress_label.setText(
                           "Results restored from the project. Press Run for the curves and the drill-down of "
                           "every run."),
                       failure_title="Could not restore the curves and the drill-down")

    def _on_rederived(self, computed: RunResult) -> None:
        """The project's numbers stay; the rankings and curves come from the files (a file that no longer
        gives the same numbers marks the results out of date)."""
        saved = self.results_set.runs.get(computed.name)
        if saved is None:
            return
        if not _same_numbers(saved, computed):
            self._changed_on_disk.append(self.session.find(computed.path).name)
        saved.curves, saved.ranking, saved.run = computed.curves, computed.ranking, computed.run
        saved.by_query = computed.by_query
        saved.absent_topics = computed.absent_topics
        self.curves.add_run(saved.name, saved.curves)
        self._refresh_soon()

    def export_targets(self):
        return [target for view in self.views for target in view.export_targets()]
