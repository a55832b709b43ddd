"""Ranked-retrieval jobs and their results, shaped for the views (no Qt here).

:func:`run_result` shapes one run's evaluation as the ranked workflow
(:mod:`evalgui.core.workflows.ranked`) hands it to the views; :func:`drill_down_job`
lines up two runs' rankings of one query. :func:`results_from_tidy` rebuilds
results saved in a project. The GUI thread only slices these arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from evalgui.core import tidy
from evalgui.core.data import byte_sorted
from evalgui.core.jobs import JobState


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
    pairs: pd.DataFrame = None  # its run × run rows with the runs evaluated before it (the workflow's RunPairs)
    # (the curves dict, its SAVED_CURVES rows as curve_table gives them): built with the curves on the worker,
    # so saving a project does not rebuild them curve by curve on the GUI thread; used while curves is that dict
    saved_curve_rows: tuple = None
    by_query: bool = False      # evaluated query by query (too large to hold): no ranking, no curves


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


CURVE_COLUMNS = ["run", "kind", "query", "recall", "precision"]
SAVED_CURVES = ("interpolated",)    # what a project keeps: 11 points a query (the uninterpolated are as long as the runs)


def curve_table(results, kinds: tuple[str, ...] = SAVED_CURVES) -> pd.DataFrame:
    """The ``kinds`` of curves of RunResults (those with curves) as one tidy table: run, kind, query, recall,
    precision (the ranked outcome's ``curves`` table); each curve's points together, as curve_index reads them.
    A run's rows built on the worker (``saved_curve_rows``) are taken as they are."""
    results = list(results)
    if kinds == SAVED_CURVES and results and all(
            r.saved_curve_rows is not None and r.saved_curve_rows[0] is r.curves for r in results if r.curves):
        parts = [r.saved_curve_rows[1] for r in results if r.curves]
        if parts:
            return pd.concat(parts, ignore_index=True)
    runs, kind_of, queries, recall, precision = [], [], [], [], []
    for result in results:
        for (kind, query), (r, p) in (result.curves or {}).items():
            if kind in kinds:
                runs.append(np.full(len(r), result.name, dtype=object))
                kind_of.append(np.full(len(r), kind, dtype=object))
                queries.append(np.full(len(r), query, dtype=object))
                recall.append(np.asarray(r, dtype=np.float64))
                precision.append(np.asarray(p, dtype=np.float64))
    if not runs:
        return pd.DataFrame({c: pd.Series(dtype=np.float64 if c in ("recall", "precision") else object)
                             for c in CURVE_COLUMNS})
    return pd.DataFrame(dict(zip(CURVE_COLUMNS, map(np.concatenate, (runs, kind_of, queries, recall, precision)))))


def saved_curve_rows(name: str, curves: dict, frame: pd.DataFrame) -> tuple:
    """A RunResult's ``saved_curve_rows`` from pr_curves' ``frame`` of its ``curves`` (on the worker)."""
    rows = frame[frame["kind"].isin(SAVED_CURVES)]
    table = pd.DataFrame({"run": np.full(len(rows), name, dtype=object),
                          "kind": rows["kind"].to_numpy(dtype=object), "query": rows["query"].to_numpy(dtype=object),
                          "recall": rows["recall"].to_numpy(np.float64),
                          "precision": rows["precision"].to_numpy(np.float64)})
    return curves, table


def curves_by_run(table: pd.DataFrame) -> dict[str, dict]:
    """A ``curves`` table (:func:`curve_table`) back as run -> curve_index."""
    return {str(run): curve_index(part) for run, part in table.groupby("run", sort=False)}


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


def results_from_tidy(frame: pd.DataFrame, measure_order: list[str]) -> list[RunResult]:
    """RunResults rebuilt from tidy rows (a project's saved results: no rankings, no curves)."""
    out = []
    for name in dict.fromkeys(frame[tidy.RUN]):
        rows = frame[frame[tidy.RUN] == name]
        summary_rows = rows[rows[tidy.QUERY] == tidy.ALL_QUERIES]
        per_query_rows = rows[rows[tidy.QUERY] != tidy.ALL_QUERIES]
        measures = [m for m in measure_order if m in set(summary_rows[tidy.MEASURE])]
        measures += [m for m in dict.fromkeys(summary_rows[tidy.MEASURE]) if m not in measures]
        queries = byte_sorted(set(per_query_rows[tidy.QUERY]))
        wide = per_query_rows.pivot_table(index=tidy.QUERY, columns=tidy.MEASURE, values=tidy.VALUE,
                                          aggfunc="first")
        wide = wide.reindex(index=queries)
        per_query = {m: wide[m].to_numpy(float) for m in measures if m in wide.columns}
        summary = dict(zip(summary_rows[tidy.MEASURE], summary_rows[tidy.VALUE].astype(float)))
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
        return pd.DataFrame({tidy.RUN: []})
    measures = list(dict.fromkeys(m for r in results for m in r.measures))
    data = {tidy.RUN: [r.name for r in results]}
    data.update({m: [r.summary.get(m, np.nan) for r in results] for m in measures})
    return pd.DataFrame(data)


def per_query_frame(results: list[RunResult], measure: str, queries: list[str]) -> pd.DataFrame:
    """Queries x runs for one measure (NaN where a run has no value for a query)."""
    columns = {tidy.QUERY: queries}
    for r in results:
        if measure in r.per_query:
            columns[r.name] = pd.Series(r.per_query[measure], index=r.query_ids).reindex(queries).to_numpy(float)
    return pd.DataFrame(columns)


def drill_down_job(a: RunResult, b: RunResult, query: str):
    def job(state: JobState):
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


RUN_MATRIX_COLUMNS = ("measure", "row", "column", "mean_row", "mean_column", "diff", "n_queries")


def run_matrix_rows(results: list[RunResult]) -> pd.DataFrame:
    """The run × run table: the ``pairs`` rows of the results, per measure (first-seen order), by row run
    and column run in the results' order. Rows naming a run not among ``results`` (removed since) are
    left out; nothing is computed but that order."""
    parts = [r.pairs for r in results if r.pairs is not None]
    if not parts:
        return pd.DataFrame({c: [] for c in RUN_MATRIX_COLUMNS})
    table = pd.concat(parts, ignore_index=True)
    order = {r.name: i for i, r in enumerate(results)}
    rows, columns = table["row"].map(order), table["column"].map(order)
    kept = (rows.notna() & columns.notna()).to_numpy()
    measures = {m: i for i, m in enumerate(dict.fromkeys(table["measure"].tolist()))}
    keys = np.lexsort((columns.to_numpy()[kept], rows.to_numpy()[kept],
                       table["measure"].map(measures).to_numpy()[kept]))
    return table[kept].iloc[keys].reset_index(drop=True)[list(RUN_MATRIX_COLUMNS)]


class ResultSet:
    """The runs evaluated so far in one workspace, in evaluation order, and every query any of them has."""

    def __init__(self):
        self.runs: dict[str, RunResult] = {}
        self.queries: list[str] = []          # byte order
        self._run_matrix: pd.DataFrame | None = None

    def __len__(self) -> int:
        return len(self.runs)

    def __contains__(self, name) -> bool:
        return name in self.runs

    def __getitem__(self, name: str) -> RunResult:
        return self.runs[name]

    def names(self) -> list[str]:
        return list(self.runs)

    def values(self) -> list[RunResult]:
        return list(self.runs.values())

    def add(self, result: RunResult) -> None:
        self.runs[result.name] = result
        self._run_matrix = None
        if not set(result.query_ids) <= set(self.queries):
            self.queries = byte_sorted(set(self.queries) | set(result.query_ids))

    def clear(self) -> None:
        self.runs.clear()
        self.queries = []
        self._run_matrix = None

    def run_matrix(self) -> pd.DataFrame:
        """The run × run table of these runs (:func:`run_matrix_rows`), as the workflow computed it."""
        if self._run_matrix is None:
            self._run_matrix = run_matrix_rows(self.values())
        return self._run_matrix

    def measure_info(self) -> dict[str, MeasureInfo]:
        info: dict[str, MeasureInfo] = {}
        for r in self.runs.values():
            for m, i in r.info.items():
                info.setdefault(m, i)
        return info

    def per_query_measures(self) -> list[str]:
        return list(dict.fromkeys(m for r in self.runs.values() for m in r.per_query))

    def tidy(self) -> pd.DataFrame:
        """Every result so far, tidy: run, query, measure, value."""
        frames = [r.frame for r in self.runs.values()]
        if not frames:
            return pd.DataFrame(columns=list(tidy.COLUMNS))
        return pd.concat(frames, ignore_index=True)

    def query_matrix(self, measure: str) -> pd.DataFrame:
        """Queries x runs of one measure, the queries in byte order (NaN where a run lacks a query)."""
        frame = per_query_frame(self.values(), measure, self.queries)
        return frame.set_index(tidy.QUERY)


def saved_results(state) -> list[RunResult] | None:
    """RunResults from a project's saved state (``{"rows": {...}, "measure_order": [...]}``); None if it is not ours."""
    rows = state.get("rows") if isinstance(state, dict) else None
    if not isinstance(rows, dict):
        return None
    try:
        frame = pd.DataFrame(rows)
    except ValueError:                       # columns of different lengths: not ours
        return None
    if not set(tidy.COLUMNS) <= set(frame.columns):
        return None
    frame = frame[list(tidy.COLUMNS)].astype({tidy.RUN: str, tidy.QUERY: str, tidy.MEASURE: str})
    frame[tidy.VALUE] = pd.to_numeric(frame[tidy.VALUE], errors="coerce")
    order = [str(m) for m in state.get("measure_order", [])]
    return results_from_tidy(frame, order)
