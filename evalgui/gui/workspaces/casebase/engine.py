"""What the case-based retrieval workspace asks of the engines, without Qt.

:func:`evaluation_job` is the one job Run starts: a retrieval run on case bases
(:func:`evalgui.core.cbr.evaluate.run_casebase`) or imported similarity files only
(:func:`evalgui.core.cbr.evaluate.evaluate_results`). Its :class:`Outcome` keeps the
tidy table, the ground truth and every retriever's lists (for the drill-down).
:func:`shown_table`, :func:`drill_down` and :func:`preview` shape results for the
views; :func:`outcome_state` / :func:`outcome_from_state` keep an outcome in a project.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalgui.core.cbr.evaluate import FILTER_SIZE, K, LINEAR, MACFAC, METRIC, RETRIEVER, VALUE, CaseBaseRun
from evalgui.core.cbr.lists import RankedLists
from evalgui.core.jobs import JobState

SECONDS, SPEEDUP = "retrieval_seconds", "speedup"
TIMING = (SECONDS, "seconds_per_query", SPEEDUP)
# A project keeps the retrievers' lists up to this many (query, case) pairs in all; beyond, only the table.
MAX_SAVED_PAIRS = 200_000


@dataclass(frozen=True)
class FilesSource:
    """Imported similarity results: a ground truth and retrievers run elsewhere (no case base)."""

    ground_truth: object                 # SimilarityResults
    predicted: list                      # [(name, SimilarityResults)]
    metrics: list[str]
    ks: list                             # [int] or [None]
    ties: str = "case_id"


@dataclass
class Outcome:
    table: pd.DataFrame                  # the engine's tidy table (retriever, [filter_size,] k, metric, value)
    ground_truth: RankedLists | None
    lists: dict[str, RankedLists] = field(default_factory=dict)    # retriever label -> its lists
    warnings: list[str] = field(default_factory=list)


def retriever_label(name: str, filter_size, k) -> str:
    """How the drill-down names a retriever configuration: "macfac 10/5", "linear", "bm25"."""
    if name == MACFAC:
        return f"{MACFAC} {filter_size}/{k}"
    return name


def evaluation_job(source: CaseBaseRun | FilesSource):
    def job(state: JobState) -> Outcome:
        if isinstance(source, CaseBaseRun):
            from evalgui.core.cbr.evaluate import run_casebase

            result = run_casebase(source, state)
            lists = {LINEAR: result.ground_truth}          # the linear lists are the ground truth's (cut at k)
            for r in result.retrievals:
                if r.name != LINEAR:
                    lists.setdefault(retriever_label(r.name, r.filter_size, r.k), r.lists)
            return Outcome(result.table, result.ground_truth, lists, list(result.warnings))
        from evalgui.core.cbr.evaluate import evaluate_results
        from evalgui.core.cbr.lists import aligned_lists, ground_truth_lists

        table, warnings = evaluate_results(source.ground_truth, source.predicted, source.metrics, source.ks,
                                           ties=source.ties, state=state)
        truth = ground_truth_lists(source.ground_truth)
        lists = {name: aligned_lists(results, truth, name) for name, results in source.predicted}
        return Outcome(table, truth, lists, warnings)
    return job


def shown_table(table: pd.DataFrame) -> pd.DataFrame:
    """The quality rows with each configuration's retrieval time and speed-up as columns."""
    keys = [c for c in (RETRIEVER, FILTER_SIZE, K) if c in table.columns]
    timing = table[METRIC].isin(TIMING)
    out = table[~timing].reset_index(drop=True)
    for name in (SECONDS, SPEEDUP):
        part = table[table[METRIC] == name][keys + [VALUE]].rename(columns={VALUE: name})
        # Merged on the configuration; pandas matches a missing filter_size / k with a missing one.
        out = out.merge(part, on=keys, how="left") if len(part) else out.assign(**{name: np.nan})
    return out


def drill_down(truth: RankedLists, lists: RankedLists, query: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Query ``query``'s ground-truth list and the retriever's list, each case with its rank in the other."""
    def one(source: RankedLists):
        where = np.flatnonzero(source.query_ids == query)
        if not len(where):
            return np.zeros(0, dtype=object), np.zeros(0)
        cases, sims = source.list(int(where[0]))
        return source.case_ids[cases].astype(object), sims

    gt_ids, gt_sims = one(truth)
    rl_ids, rl_sims = one(lists)
    gt_index, rl_index = pd.Index(gt_ids), pd.Index(rl_ids)

    def ranks_in(index: pd.Index, ids) -> pd.array:
        found = index.get_indexer(ids) if len(ids) else np.zeros(0, dtype=np.int64)
        return pd.array([int(i) + 1 if i >= 0 else None for i in found], dtype="Int64")

    true_sim = gt_index.get_indexer(rl_ids) if len(rl_ids) else np.zeros(0, dtype=np.int64)
    gt = pd.DataFrame({"rank": pd.array(np.arange(1, len(gt_ids) + 1), dtype="Int64"), "case_id": gt_ids,
                       "similarity": gt_sims, "rank_in_retriever": ranks_in(rl_index, gt_ids)})
    rl = pd.DataFrame({"rank": pd.array(np.arange(1, len(rl_ids) + 1), dtype="Int64"), "case_id": rl_ids,
                       "similarity": rl_sims,
                       "true_similarity": np.where(true_sim >= 0, gt_sims[np.maximum(true_sim, 0)]
                                                   if len(gt_sims) else np.nan, np.nan),
                       "rank_in_ground_truth": ranks_in(gt_index, rl_ids)})
    return gt, rl


def preview(model, test, train, query_id: str, case_id: str) -> pd.DataFrame:
    """One query and one case under the model: each attribute's values, weight and local similarity,
    then the global similarity (the weighted mean over the attributes both have)."""
    from evalgui.core.cbr.model import Scorer

    scorer = Scorer(model, test, train)
    qi, ci = int(np.flatnonzero(test.ids == query_id)[0]), int(np.flatnonzero(train.ids == case_id)[0])
    query, case = test.case(query_id), train.case(case_id)
    rows = [(name, _shown(query[name]), _shown(case[name]), weight, math.nan if local is None else local)
            for name, weight, local in scorer.explain(qi, ci)]
    rows.append(("global", "", "", math.nan, float(scorer.pairs(np.array([qi]), np.array([ci]))[0])))
    return pd.DataFrame(rows, columns=["attribute", "query", "case", "weight", "similarity"])


def _shown(cell) -> str:
    from evalgui.core.inputs.case_base import is_missing

    return "" if is_missing(cell) else str(cell)


# ---------------------------------------------------------------------------- projects
def _plain(values) -> list:
    return [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
            for v in pd.Series(values, dtype=object).tolist()]


def _lists_state(lists: RankedLists) -> dict:
    return {"query_ids": lists.query_ids.tolist(), "case_ids": lists.case_ids.tolist(),
            "offsets": lists.offsets.tolist(), "cases": lists.cases.tolist(), "sims": lists.sims.tolist()}


def _lists_from_state(state: dict) -> RankedLists:
    return RankedLists(np.array(state["query_ids"], dtype=object), np.array(state["case_ids"], dtype=object),
                       np.asarray(state["offsets"], dtype=np.int64), np.asarray(state["cases"], dtype=np.int32),
                       np.asarray(state["sims"], dtype=np.float64))


def outcome_state(outcome: Outcome) -> dict:
    """The table always; the ground truth and lists when they are small enough for a project file."""
    state = {"table": {c: _plain(outcome.table[c]) for c in outcome.table.columns}, "warnings": outcome.warnings}
    every = [outcome.ground_truth, *outcome.lists.values()] if outcome.ground_truth is not None else []
    if every and sum(len(lists.cases) for lists in every) <= MAX_SAVED_PAIRS:
        state["ground_truth"] = _lists_state(outcome.ground_truth)
        state["lists"] = {label: _lists_state(lists) for label, lists in outcome.lists.items()}
    return state


def outcome_from_state(state) -> Outcome | None:
    """The outcome :func:`outcome_state` saved; None when ``state`` is not one."""
    try:
        table = pd.DataFrame(state["table"])
        for column in (FILTER_SIZE, K):
            if column in table.columns:
                table[column] = pd.array(table[column].tolist(), dtype="Int64")
        table[VALUE] = table[VALUE].astype(np.float64)
        truth = _lists_from_state(state["ground_truth"]) if "ground_truth" in state else None
        lists = {str(k): _lists_from_state(v) for k, v in state.get("lists", {}).items()}
        return Outcome(table, truth, lists, [str(w) for w in state.get("warnings", [])])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
