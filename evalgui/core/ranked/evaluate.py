"""Evaluate runs against qrels: per-query values and summaries, as tidy tables.

:func:`evaluate_run` does one run and returns a :class:`RunEvaluation` (arrays,
used by the trec_eval printer and the GUI). :func:`evaluate` does several runs
and returns a tidy DataFrame with columns ``run, query, measure, value``
(``query == "all"`` for the summary rows); :func:`evaluate_columns` returns the
same table as four numpy columns, without importing pandas (the CLI's CSV path).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from evalgui.core import tidy
from evalgui.core.data import Qrels, Run
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.sums import column_sums, query_mean
from evalgui.core.ranked import measures as M
from evalgui.core.ranked.diversity import GROUP as DIVERSITY
from evalgui.core.ranked.ranking import Ranking, prepare
from evalgui.core.ranked.specs import MeasureRequest, parse_measures

# trec_eval -c scores a query without results on a one-document placeholder ranking, then
# zeroes the values whose *printed name* is one of these (unj: any name starting so); a
# parameterised utility or rbp_resid keeps the placeholder's value.
_ZEROED_FOR_MISSING = {"num_ret", "utility", "rbp_resid"}


def _zeroed_for_missing(column_name: str, measure: M.Measure) -> bool:
    if measure.name == "unj":
        return True
    if measure.name not in _ZEROED_FOR_MISSING:
        return False
    # trec_eval spellings start with the measure's name; an ir_measures one (NumRet) has no trec_eval
    # counterpart to copy, so it gets the plain measure's zero.
    return column_name == measure.name or not column_name.startswith(measure.name)


@dataclass(frozen=True)
class EvalOptions:
    relevance_level: int = 1          # trec_eval -l: minimum grade that counts as relevant
    complete: bool = False            # trec_eval -c: average over all qrels topics, missing ones score 0
    max_docs: int | None = None       # trec_eval -M: keep only the first N ranked documents per query
    judged_only: bool = False         # trec_eval -J: drop unjudged documents before evaluating
    num_docs_in_coll: int = 0         # trec_eval -N: collection size (utility's d coefficient)
    diversity_order: str = "score"    # ndeval: "score" (-traditional) or "rank" (its default: the rank column)


@dataclass(frozen=True)
class Column:
    name: str
    measure: M.Measure
    request: MeasureRequest


@dataclass
class RunEvaluation:
    run_name: str
    runid: str
    query_ids: np.ndarray
    columns: list[Column]
    per_query: np.ndarray              # (n_queries, n_columns)
    summary: np.ndarray                # (n_columns,) exact sums (math.fsum), for tables and exports
    text: dict[str, list[str]] = field(default_factory=dict)  # relstring columns, per query
    absent_topics: list[str] = field(default_factory=list)    # qrels topics with no results (skipped)
    ranking: Ranking | None = field(default=None, repr=False)
    trec_summary: np.ndarray | None = field(default=None, repr=False)  # summed in query order, as trec_eval

    def __post_init__(self):
        if self.trec_summary is None:
            self.trec_summary = self.summary

    def unique_columns(self) -> "RunEvaluation":
        """The same evaluation with each output name once (P.10 asked for next to P.5,10 gives P_10 twice)."""
        first: dict[str, int] = {}
        for i, column in enumerate(self.columns):
            first.setdefault(column.name, i)
        if len(first) == len(self.columns):
            return self
        keep = list(first.values())
        return replace(self, columns=[self.columns[i] for i in keep], per_query=self.per_query[:, keep],
                       summary=self.summary[keep], trec_summary=self.trec_summary[keep])

    def tidy_columns(self, per_query: bool = True) -> dict[str, np.ndarray]:
        """Tidy rows as four columns: run, query, measure, value. Summary rows have query 'all'.

        Text measures (runid, relstring) are left out; a repeated measure name appears once."""
        if len({c.name for c in self.columns}) < len(self.columns):
            return self.unique_columns().tidy_columns(per_query)
        numeric = [i for i, c in enumerate(self.columns) if c.measure.value_type != "text"]
        shown = [i for i in numeric if self.columns[i].measure.per_query] if per_query and len(self.query_ids) else []
        names = np.array([self.columns[i].name for i in numeric], dtype=object)
        shown_names = np.array([self.columns[i].name for i in shown], dtype=object)
        n_rows = len(self.query_ids) * len(shown)
        query = np.concatenate((np.repeat(self.query_ids, len(shown)).astype(object),
                                np.full(len(numeric), tidy.ALL_QUERIES, dtype=object)))
        return {
            "run": np.full(n_rows + len(numeric), self.run_name, dtype=object),
            "query": query,
            "measure": np.concatenate((np.tile(shown_names, len(self.query_ids) if shown else 0), names)),
            "value": np.concatenate((self.per_query[:, shown].ravel(), self.summary[numeric])).astype(np.float64),
        }

    def to_frame(self, per_query: bool = True):
        """Tidy rows: run, query, measure, value. Summary rows have query 'all'."""
        import pandas as pd

        return pd.DataFrame(self.tidy_columns(per_query))


def _aggregate(values: np.ndarray, how: str, n_queries: int, exact: bool = False) -> np.ndarray:
    """Summaries: as trec_eval computes them (sums accumulated in query order), or with exact sums."""
    if values.shape[0] == 0:
        return np.zeros(values.shape[1])
    if how == "gmean":
        logs = np.log(np.maximum(values, M.MIN_GEO_MEAN))
        return np.exp(column_sums(logs, exact) / n_queries)
    if how == "mean":
        return query_mean(values, n_queries, exact)
    if how in ("sum", "count"):
        return column_sums(values, exact)
    return np.zeros(values.shape[1])


def _level(request: MeasureRequest, options: EvalOptions) -> int:
    return options.relevance_level if request.relevance_level is None else request.relevance_level


def request_values(ranking: Ranking, request: MeasureRequest, options: EvalOptions = EvalOptions(),
                   by_level: dict[int, Ranking] | None = None) -> np.ndarray:
    """One request's per-query values on a prepared ranking: (n_queries, len(request.names)).

    ``by_level`` keeps the ranking at each relevance level between requests, so that their
    shared arrays (judged, relevant documents) are found once."""
    level = _level(request, options)
    by_level = {} if by_level is None else by_level
    r = by_level.setdefault(level, ranking.with_level(level))
    with np.errstate(all="ignore"):  # a NaN or an infinity is a value here (printed as trec_eval does)
        values = np.asarray(request.measure.kernel(r, request.params), dtype=np.float64)
    values = values.reshape(ranking.n_queries, len(request.names))
    if ranking.missing.any():
        for j, name in enumerate(request.names):
            if _zeroed_for_missing(name, request.measure):
                values[ranking.missing, j] = 0.0
    return values


def evaluate_run(qrels: Qrels, run: Run, requests: list[MeasureRequest], options: EvalOptions = EvalOptions(),
                 state: JobState | None = None) -> RunEvaluation:
    """Evaluate one run. ``state`` hears of each step (ranking, then each measure) and may cancel."""
    state = state_or_default(state)
    state.progress(0.0, "Ranking and joining with the qrels")
    ranking, absent = prepare(
        qrels, run,
        relevance_level=options.relevance_level, complete=options.complete, max_docs=options.max_docs,
        judged_only=options.judged_only, num_docs_in_coll=options.num_docs_in_coll,
        # tied documents of equal grade may cover different subtopics: the diversity measures see their order
        judgments_may_change=any(req.measure.group == DIVERSITY for req in requests),
    )
    if options.diversity_order != ranking.diversity_order:
        ranking = replace(ranking, diversity_order=options.diversity_order)
    n_q = ranking.n_queries
    by_level: dict[int, Ranking] = {}
    columns: list[Column] = []
    blocks: list[np.ndarray] = []
    text: dict[str, list[str]] = {}
    for i, req in enumerate(requests):
        state.check()
        state.progress(0.3 + 0.7 * i / max(len(requests), 1), f"Computing {req.measure.name}")
        values = request_values(ranking, req, options, by_level)
        if req.measure.name == "relstring":
            strings = M.relstrings(by_level[_level(req, options)], 10 if req.text_length is None else req.text_length)
            # trec_eval clears the placeholder's string only under the plain name "relstring".
            cleared = req.names[0] == "relstring"
            text[req.names[0]] = [("" if miss and cleared else s) for s, miss in zip(strings, ranking.missing)]
        blocks.append(values)
        columns.extend(Column(name, req.measure, req) for name in req.names)
    per_query = np.hstack(blocks) if blocks else np.zeros((n_q, 0))
    summary, trec_summary = _summaries(per_query, requests, options, qrels)
    return RunEvaluation(run.name, run.runid, ranking.query_ids, columns, per_query, summary, text, absent, ranking,
                         trec_summary)


def _summaries(per_query: np.ndarray, requests: list[MeasureRequest], options: EvalOptions,
               qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Each column's summary over the queries (rows in trec_eval's order): exact sums, and trec_eval's."""
    n_q = per_query.shape[0]
    summaries, start = [], 0
    for req in requests:
        values = per_query[:, start:start + len(req.names)]
        start += len(req.names)
        with np.errstate(all="ignore"):
            summary = [_aggregate(values, req.measure.aggregate, n_q, exact) for exact in (True, False)]
        if req.measure.name == "num_rel" and options.complete:
            # trec_eval -c sums num_rel over the whole qrels, counting every grade above 0 whatever -l says.
            summary = [np.array([float(np.count_nonzero(qrels.rel > 0))])] * 2
        summaries.append(summary)
    if not summaries:
        return np.zeros(0), np.zeros(0)
    return tuple(np.concatenate([s[i] for s in summaries]) for i in (0, 1))


def merge_evaluations(parts: list[RunEvaluation], run_name: str, runid: str, requests: list[MeasureRequest],
                      options: EvalOptions, qrels: Qrels) -> RunEvaluation:
    """One evaluation from evaluations of disjoint sets of queries of one run (by_query's partitions): the
    per-query rows in trec_eval's query order, and the summaries computed over them as for the whole run."""
    columns = parts[0].columns if parts else [Column(name, req.measure, req) for req in requests for name in req.names]
    query_ids = np.concatenate([p.query_ids for p in parts]) if parts else np.array([], dtype=object)
    order = np.argsort(query_ids.astype(str), kind="stable")       # code-point order: trec_eval's byte order
    per_query = (np.vstack([p.per_query for p in parts]) if parts else np.zeros((0, len(columns))))[order]
    text = {key: [s for p in parts for s in p.text[key]] for key in (parts[0].text if parts else {})}
    text = {key: [values[i] for i in order] for key, values in text.items()}
    absent = sorted(q for p in parts for q in p.absent_topics)
    summary, trec_summary = _summaries(per_query, requests, options, qrels)
    return RunEvaluation(run_name, runid, query_ids[order], columns, per_query, summary, text, absent, None,
                         trec_summary)


def shared_query_counts(qrels: Qrels, runs: list[Run]) -> list[int]:
    """How many of the qrels' queries each run has results for (0: the run cannot be scored)."""
    judged = set(qrels.query_ids.tolist())
    return [len(judged.intersection(run.query_ids.tolist())) for run in runs]


def runs_sharing_no_query(qrels: Qrels, runs: list[Run]) -> list[Run]:
    """The runs that have no result for any judged query (the CLI warns, the GUI greys them out)."""
    return [run for run, n in zip(runs, shared_query_counts(qrels, runs)) if n == 0]


def unique_run_names(runs: list[Run]) -> list[str]:
    """Run names, each once. Runs named after their files that share a name are told apart by
    their folders (a/bm25, b/bm25: :func:`evalgui.core.inputs.distinguishing_names`, as in the
    window); a name still repeated (the same file twice, runs in memory) gets -2, -3..."""
    import os
    from collections import defaultdict

    from evalgui.core.formats._text import file_stem
    from evalgui.core.inputs import distinguishing_names

    names = [run.name for run in runs]
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        by_name[name].append(i)
    for name, group in by_name.items():
        sources = [runs[i].source for i in group]
        if (len(group) > 1 and all(name == file_stem(s) for s in sources)
                and len({os.path.abspath(s) for s in sources}) == len(sources)):
            for i, distinct in zip(group, distinguishing_names(sources)):
                names[i] = distinct
    used: set[str] = set()
    out = []
    for base in names:
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out.append(name)
    return out


def evaluate_columns(qrels: Qrels, runs: list[Run] | Run, measures: list[str] | list[MeasureRequest],
                     options: EvalOptions = EvalOptions(), *, per_query: bool = True,
                     state: JobState | None = None,
                     on_absent: Callable[[Run, list[str]], None] | None = None,
                     on_evaluation: Callable[[str, RunEvaluation], None] | None = None,
                     on_part: Callable[[str, RunEvaluation], None] | None = None) -> dict[str, np.ndarray]:
    """:func:`evaluate`'s table as four columns (run, query, measure, value), without pandas. ``runs`` may be
    :class:`~evalgui.core.ranked.by_query.RunFile` s, each read when its turn comes.
    ``on_evaluation(name, evaluation)`` sees each run's evaluation (with its ranking, when it has one) before
    it is dropped; ``on_part(name, part)`` each part of a run evaluated by query, with the part's ranking."""
    state = state_or_default(state)
    runs = [runs] if isinstance(runs, Run) else list(runs)
    requests = parse_measures(measures) if measures and isinstance(measures[0], str) else list(measures)
    names = unique_run_names(runs)
    parts = []
    n = max(len(runs), 1)
    for i, (run, name) in enumerate(zip(runs, names)):
        state.check()
        step = state.scaled(i / n, (i + 1) / n, f"Evaluating {name}: ")
        # A by_query.RunFile evaluates itself here, read one at a time and let go: many runs never sit in memory
        # together.
        evaluate_itself = None if isinstance(run, Run) else getattr(run, "evaluate", None)
        part_seen = None if on_part is None else (lambda part, name=name: on_part(name, part))
        result = evaluate_itself(qrels, requests, options, step, on_part=part_seen) if evaluate_itself is not None else \
            evaluate_run(qrels, run, requests, options, step)
        if on_absent is not None and result.absent_topics:
            on_absent(run, result.absent_topics)
        result.run_name = name
        if on_evaluation is not None:
            on_evaluation(name, result)
        result.ranking = None             # it holds the run's arrays: let them go before the next run is read
        parts.append(result.tidy_columns(per_query=per_query))
    state.progress(1.0, "Done")
    if not parts:
        return {"run": np.empty(0, object), "query": np.empty(0, object), "measure": np.empty(0, object),
                "value": np.empty(0, np.float64)}
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def evaluate(qrels: Qrels, runs: list[Run] | Run, measures: list[str] | list[MeasureRequest],
             options: EvalOptions = EvalOptions(), *, per_query: bool = True,
             state: JobState | None = None, on_absent: Callable[[Run, list[str]], None] | None = None):
    """Evaluate each run; tidy DataFrame with columns run, query, measure, value.

    ``on_absent(run, topics)`` hears of judged topics a run has no results for
    (skipped unless ``options.complete``).
    """
    import pandas as pd

    return pd.DataFrame(evaluate_columns(qrels, runs, measures, options, per_query=per_query, state=state,
                                         on_absent=on_absent))
