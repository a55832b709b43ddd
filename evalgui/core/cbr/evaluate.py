"""Evaluation runs of case-based retrieval: retrievers against the ground truth, as one tidy table.

Two entries:

- :func:`evaluate_results`: similarity-results files only (a ground truth and the results
  of retrievers run elsewhere: ProCAKE, CBRkit, a neural model), no case base needed;
- :func:`run_casebase`: case bases and a model: the linear retriever computes the ground
  truth, MAC/FAC runs for each (filter size, k) pair, imported results are evaluated too,
  and every retrieval is timed (speed-up against the linear retriever at the same k).

The table has the columns ``retriever, filter_size, k, metric, value`` (``filter_size`` only
for retrieval runs; ``query`` before ``metric`` with per-query rows, whose summary rows have
query "all"). The ranked measures (nDCG@10, P@5, AP...) are computed by the ranked engine
on the ground truth made graded qrels (grade = how many thresholds the similarity reaches)
and the lists, cut at k as for the other metrics, made runs.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from evalgui.core.cbr import retrieval
from evalgui.core.cbr.catalogue import QUALITY_METRICS, is_metric
from evalgui.core.cbr.lists import RankedLists, aligned_lists, ground_truth_lists
from evalgui.core.cbr.metrics import MetricRequest, check_ks, mean_over_queries, parse_metrics, per_query_values
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.tidy import ALL_QUERIES

RETRIEVER, FILTER_SIZE, K, QUERY, METRIC, VALUE = "retriever", "filter_size", "k", "query", "metric", "value"
LINEAR, MACFAC = "linear", "macfac"


@dataclass
class Evaluated:
    """One retriever configuration's values: per metric, per query (NaN: undefined) and the summary."""

    retriever: str
    filter_size: int | None
    k: int | None
    metrics: list[str]
    per_query: np.ndarray               # (metrics, queries)
    summary: np.ndarray                 # (metrics,)


def check_thresholds(thresholds: Sequence[float]) -> tuple[float, ...]:
    """The relevance thresholds, ascending, each once; EvalUsageError for one outside (0, 1]."""
    thresholds = tuple(sorted(set(float(t) for t in thresholds)))
    if any(not 0 < t <= 1 for t in thresholds):
        raise EvalUsageError("relevance thresholds are similarities in (0, 1]")
    return thresholds


@dataclass
class MetricChoice:
    """The -m names split: the case-based metrics and the ranked measures (through graded qrels)."""

    metrics: list[MetricRequest]
    ranked: list[str]
    thresholds: tuple[float, ...] = ()

    @classmethod
    def of(cls, names: Sequence[str], thresholds: Sequence[float] = ()) -> "MetricChoice":
        names = list(names) or list(QUALITY_METRICS)
        metrics = parse_metrics([n for n in names if is_metric(n)])
        ranked = [n for n in names if not is_metric(n)]
        thresholds = check_thresholds(thresholds)
        if ranked:
            from evalgui.core.ranked.specs import parse_measures

            try:
                parse_measures(ranked)
            except EvalUsageError as exc:
                raise EvalUsageError(f"{exc} (the case-based metrics are {', '.join(QUALITY_METRICS)})") from None
            if not thresholds:
                raise EvalUsageError(f"the ranked measure{'s' if len(ranked) > 1 else ''} {', '.join(ranked)} "
                                     "need relevance thresholds: a case is relevant with grade g when its true "
                                     "similarity reaches the g-th threshold (e.g. 0.7,0.9)")
        return cls(metrics, ranked, thresholds)


@dataclass
class CaseBaseRun:
    """What a retrieval run needs (the GUI's form fills one, the command line too)."""

    train: object                              # CaseBase
    test: object                               # CaseBase
    model: object                              # SimilarityModel
    mac_model: object | None = None            # SimilarityModel of MAC's phase
    filter_sizes: tuple[int, ...] = ()
    ks: tuple[int, ...] = ()
    metrics: Sequence[str] = ()
    predicted: dict = field(default_factory=dict)   # name -> SimilarityResults (imported retrievers)
    exclude_self: bool | None = None           # None: when test and train are the same file
    ties: str = "case_id"
    per_query: bool = False
    relevance_thresholds: tuple[float, ...] = ()


@dataclass
class CaseBaseResult:
    table: object                              # pandas DataFrame, see the module docstring
    ground_truth: RankedLists
    retrievals: list                           # retrieval.Retrieval, in the table's order
    ground_truth_seconds: float
    exclude_self: bool
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- the table

def tidy_table(evaluated: list[Evaluated], query_ids: np.ndarray, per_query: bool, with_filter_size: bool):
    """One row per (configuration, metric), and per query too with ``per_query``."""
    import pandas as pd

    n_q = len(query_ids)
    parts = []
    for e in evaluated:
        n_m = len(e.metrics)
        names = np.array(e.metrics, dtype=object)
        block = {RETRIEVER: [], FILTER_SIZE: [], K: [], QUERY: [], METRIC: [], VALUE: []}
        if per_query and n_q:
            by_query = e.per_query.T.ravel()                        # query after query, as the ranked tables
            keep = ~np.isnan(by_query)                              # undefined values: no row
            block[QUERY].append(np.repeat(query_ids.astype(object), n_m)[keep])
            block[METRIC].append(np.tile(names, n_q)[keep])
            block[VALUE].append(by_query[keep])
        block[QUERY].append(np.full(n_m, ALL_QUERIES, dtype=object))
        block[METRIC].append(names)
        block[VALUE].append(e.summary.astype(np.float64))
        rows = sum(len(v) for v in block[VALUE])
        parts.append(pd.DataFrame({
            RETRIEVER: np.full(rows, e.retriever, dtype=object),
            FILTER_SIZE: pd.array([e.filter_size] * rows, dtype="Int64"),
            K: pd.array([e.k] * rows, dtype="Int64"),
            QUERY: np.concatenate(block[QUERY]), METRIC: np.concatenate(block[METRIC]),
            VALUE: np.concatenate(block[VALUE])}))
    columns = [RETRIEVER] + ([FILTER_SIZE] if with_filter_size else []) + [K] + ([QUERY] if per_query else []) \
        + [METRIC, VALUE]
    if not parts:
        return pd.DataFrame({c: [] for c in columns})
    return pd.concat(parts, ignore_index=True)[columns]


def _quality(ground_truth: RankedLists, lists: RankedLists, choice: MetricChoice, k: int | None, ties: str,
             state: JobState) -> tuple[list[str], np.ndarray, np.ndarray]:
    values = per_query_values(ground_truth, [lists], choice.metrics, [k], ties, state)[0, 0]
    return [m.label for m in choice.metrics], values, mean_over_queries(values)


# ---------------------------------------------------------------- ranked measures

def qrels_from_ground_truth(ground_truth: RankedLists, thresholds: Sequence[float]):
    """Graded qrels: a case's grade is how many of the (ascending) thresholds its similarity reaches;
    cases below the first are left out (unjudged: not relevant to every measure but bpref and infAP)."""
    import pyarrow as pa

    from evalgui.core.data import Qrels

    grades = np.searchsorted(np.asarray(sorted(thresholds)), ground_truth.sims, side="right")
    keep = grades > 0
    queries = np.repeat(ground_truth.query_ids.astype(object), ground_truth.lengths())[keep]
    cases = ground_truth.case_ids.astype(object)[ground_truth.cases[keep]]
    return Qrels(pa.array(queries.tolist(), pa.string()), pa.array(cases.tolist(), pa.string()), grades[keep])


def run_of_lists(lists: RankedLists, name: str):
    """A ranked run in the lists' order (score = minus the position: trec_eval's tie rule never applies)."""
    import pyarrow as pa

    from evalgui.core.data import Run

    lengths = lists.lengths()
    position = np.arange(len(lists.cases)) - np.repeat(lists.offsets[:-1], lengths)
    return Run(pa.array(np.repeat(lists.query_ids.astype(object), lengths).tolist(), pa.string()),
               pa.array(lists.case_ids.astype(object)[lists.cases].tolist(), pa.string()),
               -position.astype(np.float64), runid=name, name=name)


def ranked_values(ground_truth: RankedLists, lists: list[RankedLists], choice: MetricChoice,
                  warnings: list[str]) -> list[tuple[list[str], np.ndarray, np.ndarray]]:
    """For each lists: (measure names, per-query values (NaN: query not scored), summary)."""
    from evalgui.core.ranked.evaluate import evaluate_run
    from evalgui.core.ranked.specs import parse_measures

    qrels = qrels_from_ground_truth(ground_truth, choice.thresholds)
    judged = set(qrels.query_ids.tolist())
    unjudged = [q for q in ground_truth.query_ids.tolist() if q not in judged]
    if unjudged:
        warnings.append(f"{len(unjudged)} of {ground_truth.n_queries} queries have no case with a similarity of at "
                        f"least {choice.thresholds[0]:g}; the ranked measures leave them out")
    requests = parse_measures(choice.ranked)
    query_index = {q: i for i, q in enumerate(ground_truth.query_ids.tolist())}
    out = []
    for i, one in enumerate(lists):
        result = evaluate_run(qrels, run_of_lists(one, f"r{i}"), requests).unique_columns()
        numeric = [j for j, c in enumerate(result.columns) if c.measure.value_type != "text"]
        per_query = np.full((len(numeric), ground_truth.n_queries), np.nan)
        rows = [query_index[q] for q in result.query_ids.tolist()]
        for m, j in enumerate(numeric):
            if result.columns[j].measure.per_query:
                per_query[m, rows] = result.per_query[:, j]
        out.append(([result.columns[j].name for j in numeric], per_query, result.summary[numeric]))
    return out


# ---------------------------------------------------------------- similarity files only

def evaluate_results(ground_truth, predicted: list[tuple[str, object]], metrics: Sequence[str] = (),
                     ks: Sequence[int | None] = (None,), *, ties: str = "case_id", per_query: bool = False,
                     relevance_thresholds: Sequence[float] = (), state: JobState | None = None):
    """Retrievers' similarity results against a ground-truth similarity file.

    Returns (tidy table: retriever, k, [query,] metric, value; warnings)."""
    state = state_or_default(state)
    choice = MetricChoice.of(metrics, relevance_thresholds)
    ks = check_ks(ks)
    truth = ground_truth_lists(ground_truth)
    warnings: list[str] = []
    aligned = [(name, aligned_lists(results, truth, name)) for name, results in predicted]
    # The ranked measures see each list cut at k, as the case-based metrics do.
    ranked = ranked_values(truth, [lists.truncated(k) for _, lists in aligned for k in ks], choice, warnings) \
        if choice.ranked else None
    evaluated = []
    steps = max(len(aligned) * len(ks), 1)
    for i, (name, lists) in enumerate(aligned):
        for j, k in enumerate(ks):
            step = state.scaled((i * len(ks) + j) / steps, (i * len(ks) + j + 1) / steps, f"{name}: ")
            labels, values, means = _quality(truth, lists, choice, k, ties, step)
            evaluated.append(Evaluated(name, None, k, labels, values, means))
            if ranked:
                evaluated.append(Evaluated(name, None, k, *ranked[i * len(ks) + j]))
    return tidy_table(evaluated, truth.query_ids, per_query, with_filter_size=False), warnings


# ---------------------------------------------------------------- retrieval runs

def _same_file(a, b) -> bool:
    if a is b:
        return True
    try:
        return os.path.samefile(a.source, b.source)
    except OSError:
        return False


def check_pairs(filter_sizes: Sequence[int], ks: Sequence[int]) -> list[tuple[int, int]]:
    """ProCAKE's setFilterSizes / setKs: two equal-length lists whose same positions form pairs."""
    if len(filter_sizes) != len(ks) and filter_sizes:
        raise EvalUsageError(f"the filter sizes and ks pair up position by position, so the lists must be equally "
                             f"long ({len(filter_sizes)} filter sizes, {len(ks)} ks)")
    for f, k in zip(filter_sizes, ks):
        if f < 1 or k < 1:
            raise EvalUsageError(f"filter sizes and ks must be at least 1 (got {f} and {k})")
        if f < k:
            raise EvalUsageError(f"a filter size ({f}) smaller than its k ({k}) cannot return k cases")
    return list(zip(filter_sizes, ks))


def _mac_recall(ground_truth: RankedLists, candidates: RankedLists, k: int) -> np.ndarray:
    """Per query: the share of the true top K among MAC's candidates."""
    out = np.full(ground_truth.n_queries, np.nan)
    position = np.full(len(ground_truth.case_ids), -1, dtype=np.int64)
    for q in range(ground_truth.n_queries):
        gt_cases, _ = ground_truth.list(q)
        K = min(k, len(gt_cases))
        if K:
            position[gt_cases[:K]] = 1
            out[q] = np.count_nonzero(position[candidates.list(q)[0]] == 1) / K
            position[gt_cases[:K]] = -1
    return out


def run_casebase(request: CaseBaseRun, state: JobState | None = None) -> CaseBaseResult:
    """The linear retriever (the ground truth), MAC/FAC for each pair, imported results; all evaluated."""
    state = state_or_default(state)
    choice = MetricChoice.of(request.metrics, request.relevance_thresholds)
    pairs = check_pairs(request.filter_sizes, request.ks)
    ks = check_ks(list(request.ks)) if request.ks else [None]
    if pairs and request.mac_model is None:
        raise EvalUsageError("MAC/FAC needs a MAC model: its own model file, or a subset of the model's attributes")
    exclude_self = _same_file(request.test, request.train) if request.exclude_self is None else request.exclude_self
    bases = retrieval.CaseBases.of(request.test, request.train, exclude_self)
    full, mac = retrieval.scorers(request.model, request.mac_model if pairs else None, bases, state.check)
    truth, truth_seconds, top_seconds = retrieval.linear(full, bases, tuple(k for k in ks if k is not None),
                                                         state.scaled(0.0, 0.4 if pairs else 0.8))
    runs = [retrieval.Retrieval(LINEAR, truth.truncated(k), top_seconds[k] if k is not None else truth_seconds,
                                None, k) for k in ks]
    for i, (f, k) in enumerate(pairs):
        runs.append(retrieval.macfac(mac, full, bases, f, k,
                                     state.scaled(0.4 + 0.4 * i / len(pairs), 0.4 + 0.4 * (i + 1) / len(pairs))))
    for name, results in request.predicted.items():
        lists = aligned_lists(results, truth, name)
        runs.extend(retrieval.Retrieval(name, lists, None, None, k) for k in ks)
    warnings: list[str] = []
    ranked = ranked_values(truth, [r.lists.truncated(r.k) for r in runs], choice, warnings) if choice.ranked else None
    linear_seconds = {r.k: r.total_seconds for r in runs if r.name == LINEAR}
    evaluated = []
    scoring = state.scaled(0.8, 1.0)
    for i, r in enumerate(runs):
        step = scoring.scaled(i / len(runs), (i + 1) / len(runs), f"Scoring {r.name}: ")
        labels, values, means = _quality(truth, r.lists, choice, r.k, request.ties, step)
        if r.seconds is not None:
            speedup = linear_seconds[r.k] / r.total_seconds if r.total_seconds > 0 else math.nan
            labels = labels + ["retrieval_seconds", "seconds_per_query", "speedup"]
            values = np.vstack((values, r.seconds, r.seconds, np.full(len(r.seconds), np.nan)))
            means = np.concatenate((means, [r.total_seconds, float(np.mean(r.seconds)) if len(r.seconds) else
                                            math.nan, speedup]))
        if r.candidates is not None:
            recall = _mac_recall(truth, r.candidates, r.k)
            labels = labels + ["mac_recall"]
            values = np.vstack((values, recall))
            means = np.concatenate((means, mean_over_queries(recall[None, :])))
        evaluated.append(Evaluated(r.name, r.filter_size, r.k, labels, values, means))
        if ranked:
            evaluated.append(Evaluated(r.name, r.filter_size, r.k, *ranked[i]))
    state.progress(1.0, "Done")
    table = tidy_table(evaluated, truth.query_ids, request.per_query, with_filter_size=True)
    return CaseBaseResult(table, truth, runs, float(truth_seconds.sum()), exclude_self, warnings)
