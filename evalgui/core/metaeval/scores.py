"""What the experiments read: each measure's per-query evidence about the systems.

A :class:`MeasureScores` holds one measure, in one of two shapes:

* a queries x systems matrix, for a measure that scores each system (AP, nDCG@10...);
* a pairs x queries matrix, for a preference between two systems (rpp, lexiprecision...): row k
  is the pair ``pair_indices(systems)[k]`` (i < j) and a value > 0 prefers system i. This is the
  layout of the preference engine's per-query results; a preference is antisymmetric (the pair
  in the other order has the opposite value), so one order holds it all.

What the experiments read of either shape: the per-query differences of every pair (for a
preference, the per-query preferences themselves), the *pair decisions* (the sign of the mean
difference; of the mean preference) and the *system ordering* (by mean score; by mean
preference over the other systems, then by win rate, as the preference engine ranks runs).
For a scored measure the last two are the same thing.

:class:`RankedSource` ranks the runs once against the qrels (:func:`~evalgui.core.ranked.ranking.prepare`)
and gives ranked measures' scores, and preference measures' values
(:mod:`~evalgui.core.metaeval.preferences`), with full judgments, or with some judgments removed:
then only the prepared rankings' judgment codes change, and the measures run again on them, for
several repetitions at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from evalgui.core.arrow import index_in, string_array
from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.metaeval.judgments import Judgments
from evalgui.core.ranked.evaluate import Column, EvalOptions, request_values, unique_run_names
from evalgui.core.ranked.ranking import NONPOOL, PLACEHOLDER_DOCNO, Ranking, prepare
from evalgui.core.ranked.specs import MeasureRequest, parse_measures
from evalgui.core.stats.compare import SHARED, ZERO_FILLED, QuerySet
from evalgui.core.stats.significance import NOISE
from evalgui.core.stats.stability import pair_differences, pair_indices

# Rankings stacked for one re-evaluation hold about this many documents (R copies of a run).
_STACK_DOCUMENTS = 4_000_000


def is_preference_measure(name) -> bool:
    """Whether ``name`` is a preference measure (family ``preference``: rpp, lexiprecision...)."""
    from evalgui.core.ranked.preference import REGISTRY

    return isinstance(name, str) and name in REGISTRY


def signs(values: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 per value; within NOISE of 0 is 0 (equal means computed in another order)."""
    return np.where(values > NOISE, 1, np.where(values < -NOISE, -1, 0)).astype(np.int8)


def pair_signs(values: np.ndarray) -> np.ndarray:
    """(..., pairs): sgn(v_i − v_j) for every pair i < j of the last axis (systems)."""
    first, second = pair_indices(values.shape[-1])
    return signs(values[..., first] - values[..., second])


def kendall_tau(x_signs: np.ndarray, y_signs: np.ndarray) -> np.ndarray:
    """Kendall's τ_b from pair signs (..., pairs), as scipy.stats.kendalltau computes it:
    (concordant − discordant) / √(pairs untied in x · pairs untied in y); NaN when either has no order."""
    x = x_signs.astype(np.float64)
    y = y_signs.astype(np.float64)
    agreement = (x * y).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return agreement / np.sqrt(np.abs(x).sum(axis=-1) * np.abs(y).sum(axis=-1))


@dataclass(eq=False)
class MeasureScores:
    """One measure's per-query values: ``scores`` (queries x systems) or ``pair_values`` (pairs x queries)."""

    measure: str
    systems: list[str]
    queries: list[str]
    scores: np.ndarray | None = None
    pair_values: np.ndarray | None = None
    higher_better: bool = True
    query_set: QuerySet | None = field(default=None, repr=False)   # how the queries were chosen

    def __post_init__(self):
        if (self.scores is None) == (self.pair_values is None):
            raise ValueError(f"{self.measure}: give per-query scores or per-pair values, one of the two")
        n, s = len(self.queries), len(self.systems)
        if self.scores is not None:
            self.scores = np.asarray(self.scores, dtype=np.float64)
            if self.scores.shape != (n, s):
                raise ValueError(f"{self.measure}: scores are {self.scores.shape}, not queries x systems ({n}, {s})")
        else:
            self.pair_values = np.asarray(self.pair_values, dtype=np.float64)
            if self.pair_values.shape != (s * (s - 1) // 2, n):
                raise ValueError(f"{self.measure}: pair values are {self.pair_values.shape}, not pairs x queries "
                                 f"({s * (s - 1) // 2}, {n})")

    @classmethod
    def of_matrix(cls, measure: str, matrix, systems, queries=None, higher_better: bool = True) -> "MeasureScores":
        """From a queries x systems matrix (a DataFrame gives its own labels)."""
        if hasattr(matrix, "columns"):
            systems = [str(c) for c in matrix.columns] if systems is None else systems
            queries = [str(q) for q in matrix.index] if queries is None else queries
        matrix = np.asarray(matrix, dtype=np.float64)
        queries = [str(q) for q in range(matrix.shape[0])] if queries is None else list(queries)
        return cls(measure, list(systems), queries, scores=matrix, higher_better=higher_better)

    @property
    def is_preference(self) -> bool:
        return self.scores is None

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @cached_property
    def differences(self) -> np.ndarray:
        """pairs x queries: > 0 where the pair's first system is the better one."""
        if self.pair_values is not None:
            return self.pair_values
        return pair_differences(self.scores, self.higher_better)

    def pair_rows(self, rows: slice) -> np.ndarray:
        """Some rows of :attr:`differences`, without building the others."""
        if self.pair_values is not None or "differences" in self.__dict__:
            return self.differences[rows]
        first, second = pair_indices(len(self.systems))
        diffs = (self.scores[:, first[rows]] - self.scores[:, second[rows]]).T
        return diffs if self.higher_better else -diffs

    @cached_property
    def system_values(self) -> np.ndarray:
        """One value per system, higher = better: the mean score (negated when lower is better), or for
        a preference the mean preference of the system over the others."""
        return ordering_values(self.scores, self.pair_values, self.higher_better, len(self.systems))

    @cached_property
    def ordering(self) -> np.ndarray:
        """(pairs,) the system ordering as pair signs (:func:`ordering_signs`): what Kendall's τ compares."""
        return ordering_signs(self.scores, self.pair_values, self.higher_better, len(self.systems))

    @cached_property
    def decisions(self) -> np.ndarray:
        """(pairs,) each pair's decision over all the queries (:func:`pair_decisions`)."""
        return pair_decisions(self.scores, self.pair_values, self.higher_better, len(self.systems))

    def restricted(self, queries: list[str]) -> "MeasureScores":
        """The same measure on a subset of its queries, in the order given."""
        if list(queries) == self.queries:
            return self
        at = {q: i for i, q in enumerate(self.queries)}
        rows = np.array([at[q] for q in queries], dtype=np.int64)
        if self.scores is not None:
            return replace(self, queries=list(queries), scores=self.scores[rows], query_set=None)
        return replace(self, queries=list(queries), pair_values=self.pair_values[:, rows], query_set=None)


def scores_from_tidy(frame, runs: list[str], measures: list[str], universe: list[str] | None = None,
                     fill_missing: bool = False) -> dict[str, MeasureScores]:
    """Measures from tidy per-query scores (run, query, measure, value; e.g. a per-query scores
    file), over the queries the comparison engine's policy gives (:func:`~evalgui.core.stats.compare.align`)."""
    from evalgui.core.stats.compare import align

    out = {}
    for measure in measures:
        matrix, query_set = align(frame, runs, measure, universe, fill_missing)
        out[measure] = MeasureScores(measure, list(runs), query_set.queries, scores=matrix,
                                     higher_better=_higher_better_named(measure), query_set=query_set)
    return out


def _higher_better_named(name: str) -> bool:
    """Whether a higher value is better for a measure known by name only (an unknown name: yes)."""
    try:
        return parse_measures([name])[0].measure.direction != "lower"
    except (EvalUsageError, IndexError):
        return True


def ordering_values(scores: np.ndarray | None, pair_values: np.ndarray | None, higher_better: bool,
                    systems: int) -> np.ndarray:
    """(..., systems) values that order the systems, higher = better, from scores (..., queries, systems)
    or pair values (..., pairs, queries)."""
    if scores is not None:
        means = scores.mean(axis=-2) if scores.shape[-2] else np.zeros(scores.shape[:-2] + (systems,))
        return means if higher_better else -means
    pair_means = pair_values.mean(axis=-1) if pair_values.shape[-1] else np.zeros(pair_values.shape[:-1])
    return _per_system(pair_means, systems)


def _per_system(pair_means: np.ndarray, systems: int) -> np.ndarray:
    """(..., systems) from (..., pairs) values of pairs i < j: each system's mean over its pairs, the
    pair's value counting for i and its opposite for j."""
    first, second = pair_indices(systems)
    totals = np.zeros(pair_means.shape[:-1] + (systems,))
    np.add.at(totals, (..., first), pair_means)
    np.add.at(totals, (..., second), -pair_means)
    return totals / max(systems - 1, 1)


def pair_decisions(scores: np.ndarray | None, pair_values: np.ndarray | None, higher_better: bool,
                   systems: int) -> np.ndarray:
    """(..., pairs) signs: which system of each pair i < j the measure prefers over all the queries
    (1: i). A score: the sign of the difference of the means; a preference: the sign of the mean
    preference of the pair itself."""
    if scores is not None:
        return pair_signs(ordering_values(scores, None, higher_better, systems))
    return signs(pair_values.mean(axis=-1) if pair_values.shape[-1] else np.zeros(pair_values.shape[:-1]))


def ordering_signs(scores: np.ndarray | None, pair_values: np.ndarray | None, higher_better: bool,
                   systems: int) -> np.ndarray:
    """(..., pairs) the system ordering as signs for every pair i < j (1: i ranked above j): by mean
    score; for a preference by mean preference over the other systems, ties broken by the win rate
    (the share of the others the system is preferred to), as the preference engine ranks runs."""
    by_mean = pair_signs(ordering_values(scores, pair_values, higher_better, systems))
    if scores is not None:
        return by_mean
    decided = pair_decisions(None, pair_values, True, systems)
    first, second = pair_indices(systems)
    wins = np.zeros(decided.shape[:-1] + (systems,))
    np.add.at(wins, (..., first), decided > 0)
    np.add.at(wins, (..., second), decided < 0)
    return np.where(by_mean != 0, by_mean, pair_signs(wins)).astype(np.int8)


# ---------------------------------------------------------------------------
# Runs ranked once; measures evaluated with full or reduced judgments
# ---------------------------------------------------------------------------

def measure_columns(measures: list[str] | list[MeasureRequest]) -> list[Column]:
    """The numeric, per-query outputs of the measures asked for (P.5,10 gives two), each name once."""
    requests = parse_measures(measures) if measures and isinstance(measures[0], str) else list(measures)
    columns: dict[str, Column] = {}
    for request in requests:
        m = request.measure
        if m.value_type == "text" or not m.per_query:
            raise EvalUsageError(f"'{request.names[0]}' has no per-query numbers to meta-evaluate")
        for name in request.names:
            columns.setdefault(name, Column(name, m, request))
    return list(columns.values())


def _value(column: Column, ranking: Ranking, options: EvalOptions, by_level: dict[int, Ranking]) -> np.ndarray:
    """One output's per-query values on a ranking."""
    return request_values(ranking, column.request, options, by_level)[:, column.request.names.index(column.name)]


def _higher_better(column: Column) -> bool:
    return column.measure.direction != "lower"


@dataclass(eq=False)
class _Prepared:
    ranking: Ranking
    rows: np.ndarray             # each ranked query's index in the universe
    judged_at: np.ndarray        # flat positions (into ranking.rel) of the judged documents
    judgment: np.ndarray         # the Judgments index of each


class RankedSource:
    """Runs ranked once against the qrels; ranked measures' per-query scores, and preference measures'
    per-query values of every pair, with full or reduced judgments.

    The queries are the qrels' topics. A measure is compared over the topics every run has
    results for (``shared``), or with ``options.complete`` (trec_eval -c) over every topic,
    0 where a run has none (``zero-filled``), as the comparison engine does; NaN values (a
    measure undefined on a query) count as missing there too. A preference compares runs on the
    topics with a relevant document only (as the preference engine), under the same policy: those
    every run has, or with -c all of them (a run without results there has retrieved nothing).
    """

    def __init__(self, qrels: Qrels, runs: list[Run], measures: list[str] | list[MeasureRequest],
                 options: EvalOptions = EvalOptions(), names: list[str] | None = None,
                 state: JobState | None = None):
        state = state_or_default(state)
        if len(runs) < 2:
            raise EvalUsageError(f"meta-evaluation compares systems: give two runs or more ({len(runs)} given)")
        self.qrels = qrels
        self.runs = list(runs)
        self.options = options
        self.columns: list[Column] = []       # the ranked measures' outputs
        self.preferences: list[str] = []      # the preference measures
        self._order: list[str] = []           # every output, in the order asked for
        for spec in measures:
            if is_preference_measure(spec):
                outputs = [] if spec in self.preferences else [spec]
                self.preferences += outputs
            else:
                known = {c.name for c in self.columns}
                new = [c for c in measure_columns([spec]) if c.name not in known]
                self.columns += new
                outputs = [c.name for c in new]
            self._order += outputs
        self.systems = list(names) if names is not None else unique_run_names(self.runs)
        self.universe = [str(q) for q in qrels.query_ids]
        self.absent: dict[str, list[str]] = {}
        self._prepared: list[_Prepared] = []
        self._by_level: list[dict[int, Ranking]] = []     # per run: its ranking at each relevance level
        index = {q: i for i, q in enumerate(self.universe)}
        for i, (run, name) in enumerate(zip(self.runs, self.systems)):
            state.check()
            state.progress(i / len(self.runs), f"Ranking {name}")
            ranking, absent = prepare(qrels, run, relevance_level=options.relevance_level, complete=options.complete,
                                      max_docs=options.max_docs, judged_only=options.judged_only,
                                      num_docs_in_coll=options.num_docs_in_coll, judgments_may_change=True)
            if absent:
                self.absent[name] = list(absent)
            rows = np.array([index[str(q)] for q in ranking.query_ids], dtype=np.int64)
            self._prepared.append(_Prepared(ranking, rows, np.empty(0, np.int64), np.empty(0, np.int64)))
            self._by_level.append({})
        state.progress(1.0, "Ranked")
        self._located = False

    @property
    def measures(self) -> list[str]:
        return list(self._order)

    # ------------------------------------------------------------ full judgments

    def _full_values(self, column: Column) -> np.ndarray:
        """universe x systems; NaN where a run has no value."""
        out = np.full((len(self.universe), len(self.systems)), np.nan)
        for j, p in enumerate(self._prepared):
            out[p.rows, j] = _value(column, p.ranking, self.options, self._by_level[j])
        return out

    def measure_scores(self, state: JobState | None = None) -> dict[str, MeasureScores]:
        """Every measure with the full judgments, over the queries the policy gives."""
        state = state_or_default(state)
        out = {}
        share = len(self.columns) / len(self._order)       # of the progress: the ranked measures
        for k, column in enumerate(self.columns):
            state.check()
            state.progress(share * k / len(self.columns), f"Evaluating {column.name}")
            out[column.name] = self._aligned(column, self._full_values(column))
        if self.preferences:
            step = state.scaled(share, 1.0, f"Comparing the runs on {', '.join(self.preferences)}: ")
            values = self._preference_values.values(np.ones((1, len(self.judgments)), dtype=bool), state=step)
            out.update({name: self._preference_aligned(name, values[name][:, 0, :]) for name in self.preferences})
        state.progress(1.0, "Evaluated")
        return {name: out[name] for name in self._order}

    def _aligned(self, column: Column, values: np.ndarray) -> MeasureScores:
        present = ~np.isnan(values)
        missing = {name: [q for q, ok in zip(self.universe, present[:, j]) if not ok]
                   for j, name in enumerate(self.systems) if not present[:, j].all()}
        if self.options.complete:
            rows, policy, matrix = np.arange(len(self.universe)), ZERO_FILLED, np.where(present, values, 0.0)
        else:
            rows = np.flatnonzero(present.all(axis=1))
            policy, matrix = SHARED, values[rows]
        queries = [self.universe[i] for i in rows]
        query_set = QuerySet(column.name, queries, policy, len(self.universe), missing)
        return MeasureScores(column.name, self.systems, queries, scores=matrix,
                             higher_better=_higher_better(column), query_set=query_set)

    @cached_property
    def _preference_values(self):
        from evalgui.core.metaeval.preferences import PreferenceValues

        self._locate()
        return PreferenceValues(self.preferences, self.judgments, [(p.ranking, p.judged_at, p.judgment)
                                                                  for p in self._prepared],
                                self.systems, self.options.relevance_level, self.options.judged_only)

    def _preference_aligned(self, name: str, values: np.ndarray) -> MeasureScores:
        """A preference's values (pairs x universe) over its queries: those with a relevant document,
        and of them those every run has (with -c: all of them)."""
        compared = self._preference_values.queries()
        if not len(compared):
            raise EvalUsageError(f"{name}: no query has a relevant document (grade >= "
                                 f"{self._preference_values.threshold}), so no run can be preferred")
        topics = {self.universe[i] for i in compared}
        missing = {run: [q for q in absent if q in topics] for run, absent in self.absent.items()}
        missing = {run: qs for run, qs in missing.items() if qs}
        if self.options.complete:
            rows, policy = compared, ZERO_FILLED
        else:
            lacking = {q for qs in missing.values() for q in qs}
            rows, policy = np.array([i for i in compared if self.universe[i] not in lacking], dtype=np.int64), SHARED
        queries = [self.universe[i] for i in rows]
        return MeasureScores(name, self.systems, queries, pair_values=values[:, rows],
                             query_set=QuerySet(name, queries, policy, len(compared), missing))

    # ------------------------------------------------------------ reduced judgments

    @cached_property
    def judgments(self) -> Judgments:
        return Judgments.of(self.qrels, self.universe)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Per judgment: relevant at the evaluation's relevance level."""
        return self.judgments.grade >= self.options.relevance_level

    def _locate(self) -> None:
        """Find, in each prepared ranking, the judged documents and the judgment each one is."""
        if self._located:
            return
        judgments = self.judgments
        for p, run in zip(self._prepared, self.runs):
            r = p.ranking
            at = np.flatnonzero(r.rel >= 0)
            seg = np.searchsorted(r.offsets, at, side="right") - 1
            rows = r.run_rows[at]
            docs = np.full(len(at), -1, dtype=np.int64)
            real = rows >= 0
            if real.any():
                by_row = np.argsort(rows[real], kind="stable")
                names = run.doc_codes.docnos(rows[real][by_row])
                found = np.empty(int(real.sum()), dtype=np.int64)
                found[by_row] = index_in(names, self.qrels.doc_dictionary.dictionary)
                docs[real] = found
            if (~real).any():
                place = index_in(string_array([PLACEHOLDER_DOCNO]), self.qrels.doc_dictionary.dictionary)[0]
                docs[~real] = place
            keys = p.rows[seg] * judgments.n_docs + docs
            hit = np.minimum(np.searchsorted(judgments.keys, keys), max(len(judgments) - 1, 0))
            if len(at) and not (judgments.keys[hit] == keys).all():    # every judged document is a judgment
                raise AssertionError("a judged document of the ranking is not in the qrels")
            p.judged_at, p.judgment = at, hit
        self._located = True

    def reduced_scores(self, removed: np.ndarray, queries: dict[str, list[str]],
                       state: JobState | None = None) -> dict[str, np.ndarray]:
        """Every measure on R reduced qrels at once: ``removed`` (R x judgments, bool) marks the
        judgments each repetition removes. Returns measure -> R x queries x systems (a preference:
        R x pairs x queries), over the queries given for each measure (those of its full-judgment
        scores); a value undefined on the reduced qrels (NaN) scores 0."""
        state = state_or_default(state)
        self._locate()
        removed = np.atleast_2d(removed)
        index = {q: i for i, q in enumerate(self.universe)}
        wanted = {name: np.array([index[q] for q in qs], dtype=np.int64) for name, qs in queries.items()}
        out = self._reduced_ranked(removed, wanted, state.scaled(0.0, len(self.columns) / len(self._order)))
        if self.preferences:
            union = np.unique(np.concatenate([wanted[name] for name in self.preferences]))
            step = state.scaled(len(self.columns) / len(self._order), 1.0,
                                f"Comparing the runs on {', '.join(self.preferences)}: ")
            values = self._preference_values.values(~removed, union, step)
            for name in self.preferences:
                out[name] = values[name][:, :, np.searchsorted(union, wanted[name])].transpose(1, 0, 2)
        state.progress(1.0, "Re-evaluated")
        return {name: out[name] for name in self._order if name in out}

    def _reduced_ranked(self, removed: np.ndarray, wanted: dict[str, np.ndarray],
                        state: JobState) -> dict[str, np.ndarray]:
        """:meth:`reduced_scores` of the ranked measures."""
        reps = removed.shape[0]
        judgments = self.judgments
        out = {c.name: np.zeros((reps, len(wanted[c.name]), len(self.systems))) for c in self.columns}
        if not self.columns:
            return out
        levels = max(int(judgments.grade.max()) + 1 if len(judgments) else 1, 1)
        # judgments removed per repetition, query and grade
        lost = np.zeros((reps, judgments.n_queries * levels), dtype=np.int64)
        rep, which = np.nonzero(removed)
        np.add.at(lost, (rep, judgments.query[which] * levels + judgments.grade[which]), 1)
        lost = lost.reshape(reps, judgments.n_queries, levels)
        for j, p in enumerate(self._prepared):
            state.check()
            state.progress(j / len(self._prepared), f"Re-evaluating {self.systems[j]}")
            n_docs = max(len(p.ranking.rel), 1)
            block = max(1, _STACK_DOCUMENTS // n_docs)
            for start in range(0, reps, block):
                stop = min(start + block, reps)
                stacked = _stacked(p, removed[start:stop], lost[start:stop], self.options.judged_only)
                by_level: dict[int, Ranking] = {}
                for column in self.columns:
                    values = _value(column, stacked, self.options, by_level).reshape(stop - start, p.ranking.n_queries)
                    full = np.zeros((stop - start, len(self.universe)))
                    full[:, p.rows] = np.nan_to_num(values, nan=0.0)
                    out[column.name][start:stop, :, j] = full[:, wanted[column.name]]
        return out


def _stacked(p: _Prepared, removed: np.ndarray, lost: np.ndarray, judged_only: bool) -> Ranking:
    """R copies of a prepared ranking, one after the other as R x n_q queries, the judgments
    ``removed`` (R x J) marked as never judged (NONPOOL) in each copy."""
    r = p.ranking
    reps, n = removed.shape[0], len(r.rel)
    rel = np.tile(r.rel, reps)
    copy, which = np.nonzero(removed[:, p.judgment])
    rel[copy * n + p.judged_at[which]] = NONPOOL
    counts = np.tile(np.diff(r.offsets), reps)
    levels = r.rel_levels.shape[1]
    rel_levels = (r.rel_levels[None] - lost[:, p.rows, :levels]).reshape(reps * r.n_queries, levels)
    if judged_only:
        # -J ranks only judged documents: the removed ones leave the ranking
        kept = rel != NONPOOL
        query = np.repeat(np.arange(reps * r.n_queries), counts)
        counts = np.bincount(query[kept], minlength=reps * r.n_queries)
        rel = rel[kept]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Ranking(query_ids=np.tile(r.query_ids, reps), offsets=offsets, rel=rel, rel_levels=rel_levels,
                   missing=np.tile(r.missing, reps), relevance_level=r.relevance_level,
                   num_docs_in_coll=r.num_docs_in_coll, run_rows=None)
