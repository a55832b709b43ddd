"""Ranked retrieval: evaluate TREC runs against qrels with trec_eval's measures.

The form (:mod:`.form`) picks the qrels, the runs and the measures; Run
evaluates on the background worker, one run at a time, and each run's rows,
curves and rankings reach the views as soon as that run is done. Each result
tab is one module here with the same small interface: ``page`` (the widget),
``title``, ``refresh(results)``, ``choices()`` (combo boxes whose choice
survives a new run) and ``export_targets()``.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from evalgui.core.ranked.jobs import ResultSet, RunResult, evaluation_job, saved_results
from evalgui.gui.workspaces.base import Workspace
from evalgui.gui.workspaces.ranked.curves import CurvesView
from evalgui.gui.workspaces.ranked.differences import DifferencesView
from evalgui.gui.workspaces.ranked.drill_down import DrillDownView
from evalgui.gui.workspaces.ranked.form import RankedForm
from evalgui.gui.workspaces.ranked.per_query import PerQueryView
from evalgui.gui.workspaces.ranked.run_matrix import RunMatrixView
from evalgui.gui.workspaces.ranked.summary import SummaryView


class RankedWorkspace(Workspace):
    key = "ranked"
    title = "Ranked retrieval"
    idle_message = "Pick qrels, runs and measures, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.results_set = ResultSet()
        self._refresh_pending = False
        self._evaluated_level: int | None = None

        self.form = RankedForm(session)
        scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # Run, Cancel and the progress stay in sight below the (scrollable) form.
        self.form_column = QWidget()
        self.form_column.setMinimumWidth(300)
        column = QVBoxLayout(self.form_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(scroll, 1)
        column.addWidget(self.run_controls())

        self.summary = SummaryView()
        self.per_query = PerQueryView()
        self.curves = CurvesView()
        self.differences = DifferencesView()
        self.run_matrix = RunMatrixView()
        self.drill_down = DrillDownView(self.start_side_job)
        self.views = [self.summary, self.per_query, self.curves, self.differences, self.run_matrix, self.drill_down]
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("resultsTabs")
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        # Views that only keep up while in sight (see RunMatrixView.refresh) catch up when shown.
        self.results_tabs.currentChanged.connect(lambda index: getattr(self.views[index], "shown", lambda: None)())

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.form_column)
        splitter.addWidget(self.results_tabs)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([420, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        session.changed.connect(self.refresh_inputs)
        self.refresh_inputs()

    # ------------------------------------------------------------ the form
    def refresh_inputs(self) -> None:
        self.form.refresh_inputs()

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
        from evalgui.core.ranked.evaluate import unique_run_names

        names = unique_run_names([r.data for r in run_items])
        names = [f"{n} (run)" if n == "query" else n for n in names]   # "query" names the per-query table's first column
        runs = [(name, item.path, item.data) for name, item in zip(names, run_items)]
        for view in self.views:
            for combo in view.choices():
                combo.remember()
        self._clear_results()
        self._evaluated_level = self.form.level_spin.value()
        job = evaluation_job(qrels_item.data, runs, self.form.picker.specs(), self.form.options())
        self.start_job(job, f"Evaluating {len(runs)} run(s)…", on_partial=self._on_run_result,
                       on_success=self._show_finished, on_cancelled=self._show_cancelled,
                       failure_title="Evaluation failed")

    def _on_run_result(self, result: RunResult) -> None:
        self.results_set.add(result)
        self.curves.add_run(result.name, result.curves)
        # Runs finishing close together are shown in one refresh, so the GUI thread never queues up work.
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        if self._refresh_pending:
            self._refresh_pending = False
            self._refresh_views()

    def _show_finished(self, _count) -> None:
        self._deferred_refresh()          # the last run's rows are in the tables before "finished"
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
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _show_cancelled(self) -> None:
        self.progress_label.setText(f"Cancelled. {len(self.results_set)} run(s) had finished; their results are shown.")

    def job_finished(self) -> None:
        self._deferred_refresh()

    # ------------------------------------------------------------ results
    def _clear_results(self) -> None:
        self.results_set.clear()
        self.curves.clear()
        self._refresh_views()

    def clear_results(self) -> None:
        """Forget the results (a new project is opened); a running evaluation is stopped and ignored."""
        self.abandon_job()
        self._clear_results()

    def _refresh_views(self) -> None:
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
        return {"measure_order": list(self.results_set.measure_info()), "rows": self.results.to_dict(orient="list")}

    def restore_results_state(self, state: dict) -> None:
        restored = saved_results(state)
        if restored is None:
            return
        self._clear_results()
        for result in restored:
            self.results_set.add(result)
        self._refresh_views()
        self.progress_label.setText("Results restored from the project. Press Run for the curves and the drill-down.")

    def export_targets(self):
        return [target for view in self.views for target in view.export_targets()]
