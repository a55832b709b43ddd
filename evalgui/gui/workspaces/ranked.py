"""Ranked retrieval: evaluate TREC runs against qrels with trec_eval's measures.

The form picks the qrels, the runs and the measures; Run evaluates on the
background worker, one run at a time, and each run's rows, curves and
rankings reach the views as soon as that run is done.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QProgressBar, QPushButton, QScrollArea, QSpinBox,
                               QSplitter, QTabWidget, QVBoxLayout, QWidget)

from evalgui.core.data import byte_sorted
from evalgui.gui.measurepicker import MeasurePicker
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.worker import Worker
from evalgui.gui.workspaces.base import Workspace

ALL_QUERIES = "all"
# Background of the drill-down's judgment cells: relevance at a glance.
JUDGMENT_BADGES = {"judgment": {"relevant": "#c8e6c9", "non-relevant": "#ffcdd2", "unjudged": "#eeeeee"}}


@dataclass
class MeasureInfo:
    help: str
    better: str | None          # "higher", "lower" or None: which value the tables mark in bold
    integer: bool               # counts: shown without decimals


@dataclass
class RunResult:
    """What the evaluation job hands over for one run (arrays, so the GUI thread only slices)."""

    name: str
    path: str
    query_ids: list             # evaluated queries, in trec_eval's (byte) order
    measures: list              # numeric output names, evaluation order, each once
    per_query: dict             # measure -> values per query (measures that have per-query values)
    summary: dict               # measure -> value over all queries
    info: dict                  # measure -> MeasureInfo
    frame: pd.DataFrame         # tidy: run, query, measure, value (query "all": summary)
    curves: dict = None         # (kind, query) -> (recall, precision), see curve_index
    ranking: object = None      # evalgui.core.ranked.ranking.Ranking (None when restored from a project)
    run: object = None          # evalgui.core.data.Run
    absent_topics: list = None


def curve_index(curves: pd.DataFrame) -> dict[tuple[str, str], tuple]:
    """(kind, query) -> (recall, precision) arrays; pr_curves keeps each curve's rows together."""
    kind = curves["kind"].to_numpy(dtype=object)
    query = curves["query"].to_numpy(dtype=object)
    if not len(kind):
        return {}
    change = np.flatnonzero((kind[1:] != kind[:-1]) | (query[1:] != query[:-1])) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(kind)]))
    recall, precision = curves["recall"].to_numpy(float), curves["precision"].to_numpy(float)
    return {(kind[a], query[a]): (recall[a:b], precision[a:b]) for a, b in zip(starts.tolist(), ends.tolist())}


def run_result(name: str, path: str, evaluation) -> RunResult:
    """Shape one RunEvaluation for the views (text measures left out, a repeated name kept once)."""
    evaluation = replace(evaluation.unique_columns(), run_name=name)
    numeric = [(i, c) for i, c in enumerate(evaluation.columns) if c.measure.value_type != "text"]
    measures = [c.name for _, c in numeric]
    info = {c.name: MeasureInfo(c.measure.help_text, c.measure.best_direction, c.measure.value_type == "int")
            for _, c in numeric}
    per_query = {c.name: evaluation.per_query[:, i] for i, c in numeric if c.measure.per_query}
    summary = {c.name: float(evaluation.summary[i]) for i, c in numeric}
    return RunResult(name, path, [str(q) for q in evaluation.query_ids], measures, per_query, summary, info,
                     evaluation.to_frame(per_query=True), absent_topics=list(evaluation.absent_topics))


def results_from_tidy(tidy: pd.DataFrame, measure_order: list[str]) -> list[RunResult]:
    """RunResults rebuilt from tidy rows (a project's saved results: no rankings, no curves)."""
    out = []
    for name in dict.fromkeys(tidy["run"]):
        rows = tidy[tidy["run"] == name]
        summary_rows = rows[rows["query"] == ALL_QUERIES]
        per_query_rows = rows[rows["query"] != ALL_QUERIES]
        measures = [m for m in measure_order if m in set(summary_rows["measure"])]
        measures += [m for m in dict.fromkeys(summary_rows["measure"]) if m not in measures]
        queries = byte_sorted(set(per_query_rows["query"]))
        wide = per_query_rows.pivot_table(index="query", columns="measure", values="value", aggfunc="first")
        wide = wide.reindex(index=queries)
        per_query = {m: wide[m].to_numpy(float) for m in measures if m in wide.columns}
        summary = dict(zip(summary_rows["measure"], summary_rows["value"].astype(float)))
        info = {m: _info_for(m) for m in measures}
        out.append(RunResult(name, "", queries, measures, per_query, summary, info, rows, curves={},
                             absent_topics=[]))
    return out


def _info_for(name: str) -> MeasureInfo:
    """Help and direction of a measure known only by its output name (results restored from a project)."""
    from evalgui.core.errors import EvalUsageError
    from evalgui.core.ranked.measures import REGISTRY
    from evalgui.core.ranked.specs import parse_measures

    # trec_eval output names are the measure's name, or "<name>_<parameters>" (P_10, ndcg_cut_10).
    known = [k for k in REGISTRY if name == k or name.startswith(k + "_")]
    if known:
        measure = REGISTRY[max(known, key=len)]
    else:
        try:
            measure = parse_measures([name])[0].measure       # ir_measures names: nDCG@10, P(rel=2)@5
        except (EvalUsageError, IndexError):
            return MeasureInfo("", "higher", False)
    return MeasureInfo(measure.help_text, measure.best_direction, measure.value_type == "int")


def summary_frame(results: list[RunResult]) -> pd.DataFrame:
    """Runs x measures, runs in evaluation order, measures in the first run's order."""
    if not results:
        return pd.DataFrame({"run": []})
    measures = list(dict.fromkeys(m for r in results for m in r.measures))
    data = {"run": [r.name for r in results]}
    data.update({m: [r.summary.get(m, np.nan) for r in results] for m in measures})
    return pd.DataFrame(data)


def per_query_frame(results: list[RunResult], measure: str, queries: list[str]) -> pd.DataFrame:
    """Queries x runs for one measure (NaN where a run has no value for a query)."""
    columns = {"query": queries}
    for r in results:
        if measure in r.per_query:
            columns[r.name] = pd.Series(r.per_query[measure], index=r.query_ids).reindex(queries).to_numpy(float)
    return pd.DataFrame(columns)


def evaluation_job(qrels, runs: list[tuple[str, str, object]], specs: list[str], options):
    """Evaluate each (name, path, Run) in turn; a RunResult per run as a partial result."""
    def job(state):
        from evalgui.core.errors import EvalUsageError
        from evalgui.core.ranked.curves import pr_curves
        from evalgui.core.ranked.evaluate import evaluate_run
        from evalgui.core.ranked.specs import parse_measures

        if not specs:
            raise EvalUsageError("no measure is ticked: choose at least one")
        requests = parse_measures(specs)
        n = len(runs)
        for i, (name, path, run) in enumerate(runs):
            state.check()
            label = f"Evaluating {name} ({i + 1} of {n}): "
            evaluation = evaluate_run(qrels, run, requests, options, state.scaled(i / n, (i + 0.9) / n, label))
            state.check()
            state.progress((i + 0.9) / n, f"{label}precision-recall curves")
            result = run_result(name, path, evaluation)
            result.curves = curve_index(pr_curves(evaluation.ranking, state=state))
            result.ranking, result.run = evaluation.ranking, run
            state.check()
            state.partial(result)
        state.progress(1.0, "Done")
        return n
    return job


def drill_down_job(a: RunResult, b: RunResult, query: str):
    def job(state):
        from evalgui.core.ranked.curves import drill_down_rankings

        pair = drill_down_rankings(a.ranking, a.run, b.ranking, b.run, query)
        # Grades and ranks are whole numbers: show "2", not "2.0000" (missing stays empty).
        sides = []
        for side, other in ((pair.a, "B"), (pair.b, "A")):
            side = side.astype({"relevance": "Int64", "rank_in_other": "Int64"})
            side = side[["rank", "doc", "judgment", "relevance", "score", "rank_in_other"]]
            sides.append(side.rename(columns={"relevance": "grade", "rank_in_other": f"rank in {other}"}))
        return query, tuple(sides)
    return job


class RankedWorkspace(Workspace):
    key = "ranked"
    title = "Ranked retrieval"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self._worker: Worker | None = None
        self._drill_worker: Worker | None = None
        self._results: dict[str, RunResult] = {}
        self._queries: list[str] = []                # every evaluated query, byte order
        self._shown_queries: list[str] | None = None
        self._refresh_pending = False
        self._preferred: dict[str, object] = {}      # combo name -> the user's last choice, kept across runs
        self._abandoned: set[Worker] = set()
        self._evaluated_level: int | None = None
        self._run_checks: dict[str, bool] = {}      # path -> ticked, remembered across refreshes
        self._qrels_path: str | None = None
        self._build_form()
        self._build_results()
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.form_scroll)
        splitter.addWidget(self.results_tabs)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([420, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        session.changed.connect(self.refresh_inputs)
        self.refresh_inputs()

    # ================================================================ form
    def _build_form(self) -> None:
        form = QWidget()
        form.setObjectName("rankedForm")
        data_box = QGroupBox("Data")
        self.qrels_combo = QComboBox()
        self.qrels_combo.setObjectName("qrelsCombo")
        self.qrels_combo.setToolTip("The relevance judgments to evaluate against")
        self.qrels_combo.currentIndexChanged.connect(self._qrels_changed)
        self.run_list = QListWidget()
        self.run_list.setObjectName("runList")
        self.run_list.setMaximumHeight(120)
        self.run_list.itemChanged.connect(self._run_check_changed)
        data_layout = QFormLayout(data_box)
        data_layout.addRow("Qrels", self.qrels_combo)
        data_layout.addRow("Runs", self.run_list)

        measure_box = QGroupBox("Measures")
        self.picker = MeasurePicker()
        self.picker.setMinimumHeight(300)
        QVBoxLayout(measure_box).addWidget(self.picker)

        options_box = QGroupBox("Options")
        self.level_spin = QSpinBox()
        self.level_spin.setObjectName("relevanceLevel")
        self.level_spin.setRange(-100, 100)
        self.level_spin.setValue(1)
        self.level_spin.setToolTip("Minimum grade that counts as relevant (trec_eval -l)")
        self.complete_check = QCheckBox("Score queries missing from a run as 0")
        self.complete_check.setObjectName("completeCheck")
        self.complete_check.setToolTip("Average over every judged query; a run's missing queries score 0 (trec_eval -c)")
        self.max_docs_spin = QSpinBox()
        self.max_docs_spin.setObjectName("maxDocs")
        self.max_docs_spin.setRange(0, 10_000_000)
        self.max_docs_spin.setSpecialValueText("all")
        self.max_docs_spin.setToolTip("Keep only the first N ranked documents of each query (trec_eval -M)")
        options_layout = QFormLayout(options_box)
        options_layout.addRow("Relevant from grade", self.level_spin)
        options_layout.addRow(self.complete_check)
        options_layout.addRow("Documents per query", self.max_docs_spin)

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
        self.progress_label = QLabel("Pick qrels, runs and measures, then press Run.")
        self.progress_label.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)

        layout = QVBoxLayout(form)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(data_box)
        layout.addWidget(measure_box, 1)
        layout.addWidget(options_box)
        scroll = QScrollArea()
        scroll.setWidget(form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # Run, Cancel and the progress stay in sight below the (scrollable) form.
        self.form_scroll = QWidget()
        self.form_scroll.setMinimumWidth(300)
        column = QVBoxLayout(self.form_scroll)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(scroll, 1)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.progress_label)

    def refresh_inputs(self) -> None:
        """Rebuild the qrels picker and run checklist from the session, keeping the user's choices."""
        qrels_items = self.session.of_kind("qrels")
        self.qrels_combo.blockSignals(True)
        self.qrels_combo.clear()
        for item in qrels_items:
            self.qrels_combo.addItem(item.name, item.path)
            self.qrels_combo.setItemData(self.qrels_combo.count() - 1, item.path, Qt.ItemDataRole.ToolTipRole)
        paths = [i.path for i in qrels_items]
        if self._qrels_path in paths:
            self.qrels_combo.setCurrentIndex(paths.index(self._qrels_path))
        elif paths:
            self.qrels_combo.setCurrentIndex(0)
            self._qrels_path = paths[0]
        self.qrels_combo.blockSignals(False)
        self._refresh_runs()

    def _qrels_changed(self) -> None:
        self._qrels_path = self.qrels_combo.currentData()
        self._refresh_runs()

    def _common_queries(self, run_item) -> int:
        qrels_item = self.session.find(self._qrels_path) if self._qrels_path else None
        if qrels_item is None:
            return -1
        return len(set(qrels_item.data.query_ids) & set(run_item.data.query_ids))

    def _refresh_runs(self) -> None:
        self.run_list.blockSignals(True)
        self.run_list.clear()
        for item in self.session.of_kind("run"):
            common = self._common_queries(item)
            row = QListWidgetItem(item.name)
            row.setData(Qt.ItemDataRole.UserRole, item.path)
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            # New runs are ticked, unless they share no query with the chosen qrels.
            default = common != 0
            ticked = self._run_checks.get(item.path, default)
            if common == 0:
                row.setText(f"{item.name}  (no query in common with the qrels)")
                row.setForeground(Qt.GlobalColor.gray)
            row.setToolTip(f"{item.path}\n{item.summary['queries']:,} queries, {item.summary['documents']:,} documents"
                           + ("" if common < 0 else f", {common:,} judged"))
            row.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            self.run_list.addItem(row)
        self.run_list.blockSignals(False)

    def _run_check_changed(self, row: QListWidgetItem) -> None:
        self._run_checks[row.data(Qt.ItemDataRole.UserRole)] = row.checkState() == Qt.CheckState.Checked

    def checked_run_paths(self) -> list[str]:
        return [self.run_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.run_list.count())
                if self.run_list.item(i).checkState() == Qt.CheckState.Checked]

    def set_run_checked(self, path: str, checked: bool) -> None:
        self._run_checks[path] = checked
        self._refresh_runs()

    def set_qrels(self, path: str) -> None:
        self._qrels_path = path
        self.refresh_inputs()

    def options(self):
        from evalgui.core.ranked.evaluate import EvalOptions

        return EvalOptions(relevance_level=self.level_spin.value(), complete=self.complete_check.isChecked(),
                           max_docs=self.max_docs_spin.value() or None)

    # ------------------------------------------------------------ form state
    def form_state(self) -> dict:
        return {
            "qrels": self._qrels_path,
            "runs": dict(self._run_checks),
            "measures": self.picker.state(),
            "relevance_level": self.level_spin.value(),
            "complete": self.complete_check.isChecked(),
            "max_docs": self.max_docs_spin.value(),
        }

    def restore_form_state(self, state: dict) -> None:
        if not isinstance(state, dict):
            return
        if isinstance(state.get("measures"), dict):
            self.picker.restore(state["measures"])
        if isinstance(state.get("relevance_level"), int):
            self.level_spin.setValue(state["relevance_level"])
        if isinstance(state.get("complete"), bool):
            self.complete_check.setChecked(state["complete"])
        if isinstance(state.get("max_docs"), int):
            self.max_docs_spin.setValue(state["max_docs"])
        if isinstance(state.get("runs"), dict):
            self._run_checks.update({str(k): bool(v) for k, v in state["runs"].items()})
        if isinstance(state.get("qrels"), str):
            self._qrels_path = state["qrels"]
        self.refresh_inputs()

    # ================================================================ running
    def is_busy(self) -> bool:
        return self._worker is not None

    def run(self) -> None:
        if self._worker is not None:
            return
        qrels_item = self.session.find(self._qrels_path) if self._qrels_path else None
        if qrels_item is None:
            self.error.emit("Nothing to evaluate", "Load a qrels file first (File ▸ Open data…).")
            return
        run_items = [self.session.find(p) for p in self.checked_run_paths()]
        run_items = [r for r in run_items if r is not None]
        if not run_items:
            self.error.emit("Nothing to evaluate", "Tick at least one run.")
            return
        from evalgui.core.ranked.evaluate import unique_run_names

        names = unique_run_names([r.data for r in run_items])
        names = [f"{n} (run)" if n == "query" else n for n in names]   # "query" names the per-query table's first column
        runs = [(name, item.path, item.data) for name, item in zip(names, run_items)]
        self._remember_choices()
        self._clear_results()
        self._evaluated_level = self.level_spin.value()
        job = evaluation_job(qrels_item.data, runs, self.picker.specs(), self.options())
        self._worker = worker = Worker(job)
        worker.progress.connect(self._on_progress)
        # A worker abandoned by clear_results() may still deliver: its results belong to no session.
        worker.partial.connect(lambda result, w=worker: None if w in self._abandoned else self._on_run_result(result))
        worker.succeeded.connect(lambda count, w=worker: None if w in self._abandoned else self._on_finished(count))
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(lambda w=worker: None if w in self._abandoned else self._on_cancelled())
        worker.done.connect(self._on_done)
        self._set_busy(True)
        self.progress_label.setText(f"Evaluating {len(runs)} run(s)…")
        worker.start()

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self.progress_label.setText("Cancelling…")

    def wait(self, msecs: int = 5000) -> bool:
        ok = True
        for worker in (self._worker, self._drill_worker):
            if worker is not None:
                ok &= worker.wait(msecs)
        return ok

    def _set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.busy_changed.emit(busy)

    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _on_run_result(self, result: RunResult) -> None:
        self._add_result(result)
        self.pr_plot.set_run(result.name, result.curves)
        # Runs finishing close together are shown in one refresh, so the GUI thread never queues up work.
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        if self._refresh_pending:
            self._refresh_pending = False
            self._refresh_views()

    def _add_result(self, result: RunResult) -> None:
        self._results[result.name] = result
        if not set(result.query_ids) <= set(self._queries):
            self._queries = byte_sorted(set(self._queries) | set(result.query_ids))

    def _on_finished(self, _count) -> None:
        self._deferred_refresh()          # the last run's rows are in the tables before "finished"
        absent = {name: r.absent_topics for name, r in self._results.items() if r.absent_topics}
        message = f"Evaluated {len(self._results)} run(s)."
        if absent:
            message += " Skipped judged queries a run has no results for: " + "; ".join(
                f"{name}: {len(t)}" for name, t in absent.items()) + " (tick 'Score queries missing from a run as 0' to count them)."
        qrels_item = self.session.find(self._qrels_path) if self._qrels_path else None
        if qrels_item is not None and self._evaluated_level is not None \
                and self._evaluated_level > qrels_item.summary.get("max_grade", 0):
            message += (f" Careful: no document in the qrels has a grade of {self._evaluated_level} or more, so "
                        f"nothing counts as relevant (see 'Relevant from grade').")
        self.progress_label.setText(message)
        self.status_message.emit(message)

    def _on_failed(self, message: str, details: str) -> None:
        self.progress_label.setText("Failed: " + message)
        self.error.emit("Evaluation failed", message + (f"\n\n{details}" if details else ""))

    def _on_cancelled(self) -> None:
        self.progress_label.setText(f"Cancelled. {len(self._results)} run(s) had finished; their results are shown.")
        self.status_message.emit("Cancelled")

    def _on_done(self) -> None:
        self._deferred_refresh()
        self._abandoned.discard(self._worker)
        self._worker = None
        self.progress.setValue(1000 if self._results else 0)
        self._set_busy(False)

    # ================================================================ results
    def _build_results(self) -> None:
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("resultsTabs")

        # Summary: runs x measures
        self.summary_model = DataFrameModel(best="column")
        self.summary_view = FrameTableView(self.summary_model, name="summary")
        self.summary_view.setObjectName("summaryTable")
        self.results_tabs.addTab(self._with_toolbar(self.summary_view, []), "Summary")

        # Per query: queries x runs for one measure
        self.per_query_measure = QComboBox()
        self.per_query_measure.setObjectName("perQueryMeasure")
        self.per_query_measure.currentTextChanged.connect(lambda _: self._refresh_per_query())
        self.per_query_filter = QLineEdit()
        self.per_query_filter.setObjectName("perQueryFilter")
        self.per_query_filter.setPlaceholderText("Filter queries…")
        self.per_query_filter.setClearButtonEnabled(True)
        self.per_query_model = DataFrameModel(best="row")
        self.per_query_view = FrameTableView(self.per_query_model, name="per_query")
        self.per_query_view.setObjectName("perQueryTable")
        self.per_query_view.proxy.filter_columns = [0]
        self.per_query_filter.textChanged.connect(self.per_query_view.proxy.set_filter_text)
        self.results_tabs.addTab(self._with_toolbar(self.per_query_view, [
            QLabel("Measure"), self.per_query_measure, self.per_query_filter]), "Per query")

        # Precision-recall curves
        from evalgui.gui.plots import DifferenceChart, PrecisionRecallPlot, export_plot_dialog

        self.pr_plot = PrecisionRecallPlot()
        self.pr_kind = QComboBox()
        self.pr_kind.setObjectName("prKind")
        self.pr_kind.addItem("Interpolated, 11 levels", "interpolated")
        self.pr_kind.addItem("Uninterpolated", "uninterpolated")
        self.pr_kind.setToolTip("Interpolated: the highest precision at or after each of the recall levels 0, 0.1, "
                                "..., 1 (trec_eval's iprec_at_recall). Uninterpolated: the precision after each "
                                "relevant document retrieved.")
        self.pr_kind.currentIndexChanged.connect(lambda _: self.pr_plot.show_curves(kind=self.pr_kind.currentData()))
        self.pr_query = QComboBox()
        self.pr_query.setObjectName("prQuery")
        self.pr_query.setMinimumContentsLength(6)
        self.pr_query.currentIndexChanged.connect(
            lambda _: self.pr_plot.show_curves(query=self.pr_query.currentData() or ALL_QUERIES))
        pr_export = QPushButton("Export…")
        pr_export.clicked.connect(lambda: export_plot_dialog(self, self.pr_plot, "precision_recall"))
        self.pr_plot.show_curves()
        self.results_tabs.addTab(self._with_toolbar(self.pr_plot, [
            self.pr_kind, QLabel("Query"), self.pr_query, pr_export]), "Precision-recall")

        # Differences against a baseline
        self.diff_chart = DifferenceChart()
        self.diff_measure = QComboBox()
        self.diff_measure.setObjectName("diffMeasure")
        self.diff_baseline = QComboBox()
        self.diff_baseline.setObjectName("diffBaseline")
        self.diff_run = QComboBox()
        self.diff_run.setObjectName("diffRun")
        for combo in (self.diff_measure, self.diff_baseline, self.diff_run):
            combo.currentIndexChanged.connect(lambda _: self._refresh_differences())
        diff_export = QPushButton("Export…")
        diff_export.clicked.connect(lambda: export_plot_dialog(self, self.diff_chart, "differences"))
        self.results_tabs.addTab(self._with_toolbar(self.diff_chart, [
            QLabel("Measure"), self.diff_measure, QLabel("Run"), self.diff_run, QLabel("vs baseline"),
            self.diff_baseline, diff_export]), "Differences")

        # Drill-down: two rankings of one query side by side
        self.drill_query = QComboBox()
        self.drill_query.setObjectName("drillQuery")
        self.drill_query.setMinimumContentsLength(6)
        self.drill_a = QComboBox()
        self.drill_a.setObjectName("drillRunA")
        self.drill_b = QComboBox()
        self.drill_b.setObjectName("drillRunB")
        for combo in (self.drill_query, self.drill_a, self.drill_b):
            combo.currentIndexChanged.connect(lambda _: self._request_drill_down())
        self.drill_model_a = DataFrameModel(best=None, precision=4, badges=JUDGMENT_BADGES)
        self.drill_model_b = DataFrameModel(best=None, precision=4, badges=JUDGMENT_BADGES)
        self.drill_view_a = FrameTableView(self.drill_model_a, name="ranking_a")
        self.drill_view_a.setObjectName("drillTableA")
        self.drill_view_b = FrameTableView(self.drill_model_b, name="ranking_b")
        self.drill_view_b.setObjectName("drillTableB")
        self.drill_label_a, self.drill_label_b = QLabel(), QLabel()
        sides = QSplitter(Qt.Orientation.Horizontal)
        for label, view in ((self.drill_label_a, self.drill_view_a), (self.drill_label_b, self.drill_view_b)):
            box = QWidget()
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.addWidget(label)
            box_layout.addWidget(view)
            sides.addWidget(box)
        self.results_tabs.addTab(self._with_toolbar(sides, [
            QLabel("Query"), self.drill_query, QLabel("Run A"), self.drill_a, QLabel("Run B"), self.drill_b]),
            "Drill-down")

    @staticmethod
    def _with_toolbar(view: QWidget, controls: list[QWidget]) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 4, 4, 4)
        if controls:
            bar = QHBoxLayout()
            for control in controls:
                if isinstance(control, QComboBox):
                    # Long entries must not set the window's minimum width (small screens), but the
                    # box grows to show them when there is room.
                    control.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                    control.setMinimumContentsLength(max(control.minimumContentsLength(), 6))
                    control.setMaximumWidth(max(control.sizeHint().width(), 300))
                    bar.addWidget(control, 1)
                else:
                    bar.addWidget(control)
            bar.addStretch(1)
            layout.addLayout(bar)
        layout.addWidget(view)
        return page

    def _clear_results(self) -> None:
        self._results.clear()
        self._queries = []
        self.pr_plot.clear_runs()
        self._refresh_views()

    def clear_results(self) -> None:
        """Forget the results (a new project is opened); a running evaluation is stopped and ignored."""
        if self._worker is not None:
            self._abandoned.add(self._worker)
        self.cancel()
        self._clear_results()
        self.progress.setValue(0)
        self.progress_label.setText("Pick qrels, runs and measures, then press Run.")

    @property
    def results(self) -> pd.DataFrame:
        """Every result so far, tidy: run, query, measure, value."""
        frames = [r.frame for r in self._results.values()]
        if not frames:
            return pd.DataFrame(columns=["run", "query", "measure", "value"])
        return pd.concat(frames, ignore_index=True)

    def summary_frame(self) -> pd.DataFrame:
        return self.summary_model.frame

    def _set_items(self, combo: QComboBox, items: list[tuple[str, str]], keep=None) -> None:
        """Refill a combo box, keeping the user's choice (even across runs) when it is still offered."""
        wanted = [keep, self._preferred.get(combo.objectName()), combo.currentData()]
        combo.blockSignals(True)
        combo.clear()
        for text, data in items:
            combo.addItem(text, data)
        index = next((i for i in (combo.findData(w) for w in wanted if w is not None) if i >= 0), 0 if items else -1)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def _remember_choices(self) -> None:
        for combo in self._result_combos():
            if combo.currentData() is not None:
                self._preferred[combo.objectName()] = combo.currentData()

    def _result_combos(self) -> list[QComboBox]:
        return [self.per_query_measure, self.diff_measure, self.diff_baseline, self.diff_run, self.pr_query,
                self.drill_query, self.drill_a, self.drill_b]

    def _measure_info(self) -> dict:
        info = {}
        for r in self._results.values():
            for m, i in r.info.items():
                info.setdefault(m, i)
        return info

    def _refresh_views(self) -> None:
        results = list(self._results.values())
        info = self._measure_info()
        self.summary_model.set_frame(summary_frame(results), directions={m: i.better for m, i in info.items()},
                                     integers={m for m, i in info.items() if i.integer})
        self.summary_model.set_header_tooltips({m: i.help for m, i in info.items()})
        per_query_measures = list(dict.fromkeys(m for r in results for m in r.per_query))
        for combo in (self.per_query_measure, self.diff_measure):
            self._set_items(combo, [(m, m) for m in per_query_measures])
        self._refresh_per_query()

        runs = list(self._results)
        self._set_items(self.diff_baseline, [(r, r) for r in runs])
        others = [r for r in runs if r != self.diff_baseline.currentData()] or runs
        self._set_items(self.diff_run, [(r, r) for r in others])
        self._refresh_differences()

        if self._queries != self._shown_queries:      # thousands of items: rebuild only on change
            self._shown_queries = self._queries
            self._set_items(self.pr_query, [("All queries (mean)", ALL_QUERIES)] + [(q, q) for q in self._queries])
            self._set_items(self.drill_query, [(q, q) for q in self._queries])
        self.pr_plot.show_curves(query=self.pr_query.currentData() or ALL_QUERIES)

        ranked = [name for name, r in self._results.items() if r.ranking is not None]
        self._set_items(self.drill_a, [(r, r) for r in ranked])
        keep_b = self.drill_b.currentData() or self._preferred.get(self.drill_b.objectName())
        if len(ranked) > 1 and (keep_b not in ranked or keep_b == self.drill_a.currentData()):
            keep_b = next(r for r in ranked if r != self.drill_a.currentData())   # two different runs to compare
        self._set_items(self.drill_b, [(r, r) for r in ranked], keep=keep_b)
        self._request_drill_down()

    def _refresh_per_query(self) -> None:
        measure = self.per_query_measure.currentData()
        if not measure:
            self.per_query_model.set_frame(pd.DataFrame({"query": []}))
            return
        info = self._measure_info().get(measure)
        self.per_query_model.set_frame(per_query_frame(list(self._results.values()), measure, self._queries),
                                       directions=info.better if info else "higher",
                                       integers=set(self._results) if info and info.integer else set())
        self.per_query_model.set_header_tooltips({"query": f"{measure}: {info.help}" if info else measure})

    def difference_frame(self) -> pd.DataFrame:
        """The chart's rows: the chosen run minus the baseline per query, most helped first."""
        from evalgui.core.ranked.curves import per_query_differences

        measure, baseline, run = (self.diff_measure.currentData(), self.diff_baseline.currentData(),
                                  self.diff_run.currentData())
        empty = pd.DataFrame(columns=["run", "query", "baseline_value", "value", "difference", "outcome"])
        if not measure or baseline not in self._results or run not in self._results or run == baseline:
            return empty
        pair = [self._results[baseline], self._results[run]]
        if any(measure not in r.per_query for r in pair):
            return empty
        tidy = pd.concat([pd.DataFrame({"run": r.name, "query": r.query_ids, "measure": measure,
                                        "value": r.per_query[measure]}) for r in pair], ignore_index=True)
        return per_query_differences(tidy, measure, baseline).reset_index(drop=True)

    def _refresh_differences(self) -> None:
        run, baseline = self.diff_run.currentData(), self.diff_baseline.currentData()
        frame = self.difference_frame()
        compared = None
        if run in self._results and baseline in self._results:
            compared = len(set(self._results[run].query_ids) | set(self._results[baseline].query_ids))
        self.diff_chart.set_differences(frame, run or "", baseline or "", self.diff_measure.currentData() or "",
                                        of_queries=compared)

    def _request_drill_down(self) -> None:
        query, a, b = self.drill_query.currentData(), self.drill_a.currentData(), self.drill_b.currentData()
        if not (query and a in self._results and b in self._results):
            self.drill_model_a.set_frame(pd.DataFrame())
            self.drill_model_b.set_frame(pd.DataFrame())
            self.drill_label_a.setText("")
            self.drill_label_b.setText("")
            return
        if self._drill_worker is not None:          # the latest choice wins
            self._drill_worker.cancel()
        worker = Worker(drill_down_job(self._results[a], self._results[b], query))
        self._drill_worker = worker
        worker.succeeded.connect(lambda result, a=a, b=b: self._show_drill_down(result, a, b))
        worker.failed.connect(lambda message, details: self.error.emit("Drill-down failed", message))
        worker.done.connect(lambda w=worker: self._drill_done(w))
        worker.start()

    def _drill_done(self, worker) -> None:
        if self._drill_worker is worker:
            self._drill_worker = None

    def _show_drill_down(self, result, a: str, b: str) -> None:
        query, (frame_a, frame_b) = result
        if query != self.drill_query.currentData():
            return
        self.drill_model_a.set_frame(frame_a)
        self.drill_model_b.set_frame(frame_b)
        for label, name, frame in ((self.drill_label_a, a, frame_a), (self.drill_label_b, b, frame_b)):
            text = f"<b>{html.escape(name)}</b>, query {html.escape(query)}"
            if frame.empty:
                text += " — <i>this run retrieved nothing for this query</i>"
            label.setText(text)

    # ------------------------------------------------------------ projects and export
    def results_state(self) -> dict | None:
        if not self._results:
            return None
        tidy = self.results
        return {"measure_order": list(self._measure_info()), "rows": tidy.to_dict(orient="list")}

    def restore_results_state(self, state: dict) -> None:
        rows = state.get("rows") if isinstance(state, dict) else None
        if not isinstance(rows, dict):
            return
        try:
            frame = pd.DataFrame(rows)
        except ValueError:                       # columns of different lengths: not ours
            return
        if not {"run", "query", "measure", "value"} <= set(frame.columns):
            return
        self._clear_results()
        frame = frame[["run", "query", "measure", "value"]].astype({"run": str, "query": str, "measure": str})
        frame["value"] = pd.to_numeric(frame["value"], errors="coerce")
        order = [str(m) for m in state.get("measure_order", [])]
        for result in results_from_tidy(frame, order):
            self._add_result(result)
        self._refresh_views()
        self.progress_label.setText("Results restored from the project. Press Run for the curves and the drill-down.")

    def export_targets(self):
        from evalgui.gui.plots import export_plot_dialog

        return [
            ("Summary table…", self.summary_view.export_dialog),
            ("Per-query table…", self.per_query_view.export_dialog),
            ("Precision-recall plot…", lambda: export_plot_dialog(self, self.pr_plot, "precision_recall")),
            ("Difference chart…", lambda: export_plot_dialog(self, self.diff_chart, "differences")),
            ("Drill-down, run A…", self.drill_view_a.export_dialog),
            ("Drill-down, run B…", self.drill_view_b.export_dialog),
        ]
