"""What the case-based retrieval views show, without Qt: the workflow's outcome as the views read it.

:func:`evaluation_job` runs the case-based workflow on the worker
(:func:`evalgui.core.workflows.casebase.run_casebase`, or ``run_similarity`` for imported
similarity files only) and hands the views a :class:`Results`: the tidy table (the means over
queries), the per-query values, the ground truth and every retriever's lists (for the
drill-down). :func:`shown_table`, :func:`per_query_frame`, :func:`drill_down` and :func:`preview`
shape results for the views; :func:`outcome_state` / :func:`outcome_from_state` keep them in a project.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalgui.core.cbr.evaluate import FILTER_SIZE, K, LINEAR, MACFAC, METRIC, QUERY, RETRIEVER, VALUE
from evalgui.core.errors import EvalUsageError
from evalgui.core.cbr.lists import RankedLists
from evalgui.core.jobs import JobState
from evalgui.core.tidy import ALL_QUERIES

SECONDS, SPEEDUP = "retrieval_seconds", "speedup"
TIMING = (SECONDS, "seconds_per_query", SPEEDUP)
# A project keeps the retrievers' lists up to this many (query, case) pairs in all, and the per-query values
# up to this many rows; beyond, only the table.
MAX_SAVED_PAIRS = 200_000
MAX_SAVED_PER_QUERY = 200_000


@dataclass
class Results:
    table: pd.DataFrame                  # the engine's tidy table (retriever, [filter_size,] k, metric, value)
    ground_truth: RankedLists | None
    lists: dict[str, RankedLists] = field(default_factory=dict)    # retriever label -> its lists
    warnings: list[str] = field(default_factory=list)
    per_query: pd.DataFrame | None = None   # the same columns and query before metric; None: not kept
    request: object = None                  # the workflow's request (None: an older project's results)
    outcome: object = None                  # the workflow's Outcome (None: an older project's, or too big to keep)


def split_queries(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The engine's table with per-query rows -> (the summary rows without the query column, the per-query rows)."""
    summary = table[QUERY] == ALL_QUERIES
    return (table[summary].drop(columns=QUERY).reset_index(drop=True),
            table[~summary].reset_index(drop=True))


def retriever_label(name: str, filter_size, k) -> str:
    """How the drill-down names a retriever configuration: "macfac 10/5", "linear", "bm25"."""
    if name == MACFAC:
        return f"{MACFAC} {filter_size}/{k}"
    return name


def results_of(outcome) -> Results:
    """The workflow's outcome (its engine objects at hand) as the views read it."""
    summary, per_query = split_queries(outcome.tables["results"])
    result = getattr(outcome, "result", None)
    if result is None:                                  # similarity files only
        return Results(summary, outcome.ground_truth, dict(outcome.lists), outcome.notes_for_window(), per_query,
                       outcome.request, outcome)
    lists = {LINEAR: result.ground_truth}              # the linear lists are the ground truth's (cut at k)
    for r in result.retrievals:
        if r.name != LINEAR:
            lists.setdefault(retriever_label(r.name, r.filter_size, r.k), r.lists)
    return Results(summary, result.ground_truth, lists, outcome.notes_for_window(), per_query, outcome.request,
                   outcome)


def evaluation_job(request, inputs):
    """``job(state) -> Results``: the case-based workflow of ``request`` (a CasebaseRequest or a
    SimilarityRequest) on the session's loaded data."""
    def job(state: JobState) -> Results:
        from evalgui.core.workflows import casebase
        from evalgui.core.workflows.params import RequestError

        try:
            if isinstance(request, casebase.SimilarityRequest):
                outcome = casebase.run_similarity(request, state, inputs, lists=True)
            else:
                outcome = casebase.run_casebase(request, state, inputs)
        except RequestError as exc:
            raise EvalUsageError(exc.problems[0].for_window()) from None
        return results_of(outcome)
    return job


def shown_table(table: pd.DataFrame) -> pd.DataFrame:
    """The quality rows with each configuration's retrieval time and speed-up as columns (when it was timed)."""
    keys = [c for c in (RETRIEVER, FILTER_SIZE, K) if c in table.columns]
    timing = table[METRIC].isin(TIMING)
    out = table[~timing].reset_index(drop=True)
    if not timing.any():                 # similarity files only: nothing was timed
        return out
    for name in (SECONDS, SPEEDUP):
        part = table[table[METRIC] == name][keys + [VALUE]].rename(columns={VALUE: name})
        # Merged on the configuration; pandas matches a missing filter_size / k with a missing one.
        out = out.merge(part, on=keys, how="left") if len(part) else out.assign(**{name: np.nan})
    return out


def configuration_label(name: str, filter_size, k) -> str:
    """A retriever configuration as a column of the per-query table: "macfac 10/5", "linear k=5", "bm25"."""
    if name == MACFAC:
        return retriever_label(name, filter_size, k)
    return name if k is None or k is pd.NA else f"{name} k={k}"


def per_query_frame(per_query: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Queries x retriever configurations for one metric (queries in the engine's order; an empty cell: the
    value is undefined for that query)."""
    rows = per_query[per_query[METRIC] == metric]
    if rows.empty:
        return pd.DataFrame({QUERY: []})
    keys = [c for c in (RETRIEVER, FILTER_SIZE, K) if c in rows.columns]
    queries = pd.unique(per_query[QUERY])
    out = pd.DataFrame({QUERY: queries})
    for values, group in rows.groupby(keys, dropna=False, sort=False):
        key = {k: None if pd.isna(v) else v for k, v in zip(keys, values)}
        label = configuration_label(key[RETRIEVER], key.get(FILTER_SIZE), key[K])
        out[label] = pd.Series(group[VALUE].to_numpy(), index=group[QUERY].to_numpy()).reindex(queries).to_numpy()
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


def preview(model, test, train, query_id: str, case_id: str, state: JobState | None = None) -> pd.DataFrame:
    """One query and one case under the model: each attribute's values, weight and local similarity,
    then the global similarity (the weighted mean over the attributes both have)."""
    from evalgui.core.cbr.model import Scorer

    qi, ci = int(np.flatnonzero(test.ids == query_id)[0]), int(np.flatnonzero(train.ids == case_id)[0])
    scorer = Scorer(model, test, train, pair=(qi, ci), check=state.check if state is not None else None)
    query, case = test.case(query_id), train.case(case_id)
    rows = [(name, _shown(query[name]), _shown(case[name]), weight, math.nan if local is None else local)
            for name, weight, local in scorer.explain(0, 0)]
    rows.append(("global", "", "", math.nan, float(scorer.pairs(np.array([0]), np.array([0]))[0])))
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


def _table_state(table: pd.DataFrame) -> dict:
    return {c: _plain(table[c]) for c in table.columns}


def _table_from_state(state: dict) -> pd.DataFrame:
    table = pd.DataFrame(state)
    for column in (FILTER_SIZE, K):
        if column in table.columns:
            table[column] = pd.array(table[column].tolist(), dtype="Int64")
    if QUERY in table.columns:
        table[QUERY] = table[QUERY].astype(object)
    table[VALUE] = table[VALUE].astype(np.float64)
    return table


def outcome_state(outcome: Results) -> dict:
    """The workflow's outcome under its key (what ``evalgui-cli run --check`` reads) while its per-query rows are
    few enough for a project file, else the table alone (and the request); the ground truth and lists when they
    are small enough."""
    per_query_rows = 0 if outcome.per_query is None else len(outcome.per_query)
    if outcome.outcome is not None and per_query_rows <= MAX_SAVED_PER_QUERY:
        state = {workflow_key(outcome.request): outcome.outcome.to_json()}
    else:
        state = {"table": _table_state(outcome.table), "warnings": outcome.warnings}
        if outcome.request is not None:
            state["request"] = {"workflow": workflow_key(outcome.request), **outcome.request.to_json()}
        if outcome.per_query is not None and per_query_rows <= MAX_SAVED_PER_QUERY:
            state["per_query"] = _table_state(outcome.per_query)
    every = [outcome.ground_truth, *outcome.lists.values()] if outcome.ground_truth is not None else []
    if every and sum(len(lists.cases) for lists in every) <= MAX_SAVED_PAIRS:
        state["ground_truth"] = _lists_state(outcome.ground_truth)
        state["lists"] = {label: _lists_state(lists) for label, lists in outcome.lists.items()}
    return state


def outcome_from_state(state) -> Results | None:
    """The outcome :func:`outcome_state` saved; None when ``state`` is not one."""
    try:
        truth = _lists_from_state(state["ground_truth"]) if "ground_truth" in state else None
        lists = {str(k): _lists_from_state(v) for k, v in state.get("lists", {}).items()}
        saved = next((key for key in ("casebase", "similarity") if key in state), None)
        if saved is not None:
            from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest
            from evalgui.core.workflows.outcome import Outcome

            outcome = Outcome.from_json(state[saved], SimilarityRequest if saved == "similarity" else CasebaseRequest)
            table = outcome.tables["results"]
            # without per-query rows (eg.casebase's default) the table is the summary alone
            summary, per_query = split_queries(table) if QUERY in table.columns else (table, None)
            return Results(summary, truth, lists, outcome.notes_for_window(), per_query, outcome.request, outcome)
        table = _table_from_state(state["table"])
        per_query = _table_from_state(state["per_query"]) if "per_query" in state else None
        return Results(table, truth, lists, [str(w) for w in state.get("warnings", [])], per_query,
                       _request(state.get("request")))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def workflow_key(request) -> str:
    """The workflow a request belongs to: "casebase" or "similarity"."""
    from evalgui.core.workflows.casebase import SimilarityRequest

    return "similarity" if isinstance(request, SimilarityRequest) else "casebase"


def _request(state):
    """The saved request (None when there is none, or it no longer reads)."""
    from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest
    from evalgui.core.workflows.params import RequestError

    if not isinstance(state, dict):
        return None
    kind = SimilarityRequest if state.get("workflow") == "similarity" else CasebaseRequest
    try:
        return kind.from_json({k: v for k, v in state.items() if k != "workflow"})
    except (RequestError, TypeError):
        return None
