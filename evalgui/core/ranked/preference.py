"""Preference-based evaluation: two runs compared query by query, without a measure in between.

Recall-Paired Preference (Diaz & Ferraro, SIGIR 2022) and lexicographic recall and precision
(Diaz, Ekstrand & Mitra, "Recall, robustness and lexicographic evaluation"; Diaz, "Best-case
retrieval evaluation", EVIA 2023), as the reference implementation diazf/pref_eval computes them.

**Relevance vector.** For a query with m relevant documents, a run's vector holds the 1-based
rank (trec_eval's order: score descending, docno descending) of each relevant document it
retrieved, ascending, then "not retrieved" for each one it missed: x_1 <= ... <= x_m. x_i is how
far a user who wants i relevant documents reads. Two runs are compared level by level:
s_i = sgn(y_i - x_i) is +1 where x serves that user sooner, -1 where y does, 0 on a tie (a rank
beats "not retrieved"; two "not retrieved" tie).

- ``rpp``, ``dcgrpp``, ``invrpp``: RPP(x, y) = sum_i w_i s_i with the weights 1, 1/log2(i+1) or
  1/i normalised to sum to 1. Graded qrels: sum_g m_g RPP_g / sum_g m_g over the query's
  relevant grades g, RPP_g on the documents of grade >= g (m_g of them).
- ``lexiprecision``: s_i at the first i where s_i != 0 (0 if none): the run that shows the first
  relevant document sooner, ties broken by the second, and so on.
- ``lexirecall``: s_i at the last i where s_i != 0: the run that retrieves more relevant
  documents; with as many, the one whose last is ranked higher, then the one before it...
  (pref_eval: more relevant retrieved wins, else compare from the last retrieved backwards.)

Lexicographic preferences are binary: they read the vector of all relevant documents.

- ``st_rpp``, ``st_rpp_rel``: subtopic RPP (ST-RPP), RPP per subtopic of subtopic qrels, summed
  over the subtopics (see the end of this module).

**Queries.** The qrels queries with at least one relevant document; a run without results for
one has the all-"not retrieved" vector there. A pair's value is the mean over those queries.

**Layout.** Every run's vectors are one row of a (runs x slots) int32 array on a layout that
all runs share: query after query, each query's grade levels (lowest first, which is the vector
of all relevant documents), m_g slots each. A chunk of pairs is compared at once by
broadcasting, and per-query sums are ``np.add.reduceat`` over each query's slots: no Python
loop over pairs or queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core import tidy
from evalgui.core.arrow import index_in, string_array
from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.ranked.ranking import Positions, prepare
from evalgui.core.registry import Parameter, Record, Registry
from evalgui.core.sums import query_mean

RUN_A, RUN_B = tidy.RUN_A, tidy.RUN_B
PAIR_COLUMNS = (tidy.MEASURE, RUN_A, RUN_B, tidy.QUERY, tidy.VALUE)

NOT_RETRIEVED = np.iinfo(np.int32).max   # beyond any rank, so that a rank always beats it
_CHUNK_ELEMENTS = 1 << 21                # (pair, slot) cells compared at once: bounds the temporaries


# ---------------------------------------------------------------------------------------- records

@dataclass(frozen=True, kw_only=True)
class PreferenceMeasure(Record):
    """A preference between two runs: the family's record plus what the engine needs.

    ``weight(i)`` gives RPP's weight of recall level i (1-based, before normalising); a
    lexicographic preference has none and reads the ``first`` or ``last`` level that differs.
    """
    weight: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    lexicographic: str | None = None     # "first" | "last"
    subtopics: str | None = None         # ST-RPP's weights of subtopics: "uniform" | "relevant"

    @property
    def paper_name(self) -> str:
        """The name papers write (its ``paper`` alias): what the window shows; ``name`` is the one
        exported files, projects and pref_eval use. evalgui-cli and the API accept both."""
        return next((alias for where, alias in self.aliases if where == "paper"), self.name)


REGISTRY: Registry[PreferenceMeasure] = Registry(
    "preference", "Preferences between two runs",
    "Which of two runs a user would prefer, query by query, from where each ranks the relevant documents "
    "(Recall-Paired Preference, lexicographic recall and precision). A value compares a pair: positive when "
    "the first run (the row of a preference matrix) is preferred, negative when the second is, "
    "between -1 and 1; the value for a pair of runs is the mean over the queries with a relevant document.")

_THRESHOLD = Parameter(
    "binary threshold", "grade >= N is relevant and grades are not told apart; "
    "without it every grade >= 1 is relevant and RPP averages over the grade levels", "")
_VECTOR = ("x_i, y_i: the rank of the i-th relevant document each run retrieves (ascending), "
           "'not retrieved' (ranked below everything) for those it misses; s_i = sgn(y_i - x_i)")
_GRADED = ("Graded: RPP = sum_g m_g RPP_g / sum_g m_g over the relevant grades g of the query, RPP_g on the "
           "m_g documents of grade >= g.")
_RPP_NOTE = ("pref_eval (diazf/pref_eval) caches a run's relevance vector across grades, so with graded "
             "qrels it scores every grade level on the vector of all relevant documents (binary RPP); "
             "evalgui follows the paper's graded definition. With a binary threshold the two agree.")


def _register_rpp(name: str, paper: str, weight, weight_text: str, description: str):
    REGISTRY.add(PreferenceMeasure(
        name=name, family=REGISTRY.key, group="Recall-paired preference", description=description,
        formula=f"{paper}(x, y) = sum_i w_i s_i (i = 1..m), w_i = {weight_text}; {_VECTOR}. "
                f"{_GRADED}",
        parameters=(_THRESHOLD,), aliases=(("paper", paper),), notes=(_RPP_NOTE,),
        weight=weight))


def _register_lexicographic(name: str, paper: str, which: str, description: str, formula: str):
    REGISTRY.add(PreferenceMeasure(
        name=name, family=REGISTRY.key, group="Lexicographic", description=description,
        formula=f"{formula}; {_VECTOR}", parameters=(_THRESHOLD,), aliases=(("paper", paper),),
        notes=("Binary: reads the vector of all relevant documents (grade >= 1, or >= N with "
               "a binary threshold N).",),
        lexicographic=which))


_register_rpp(
    "rpp", "RPP", lambda i: np.ones(len(i)), "1/m",
    "Recall-Paired Preference (Diaz & Ferraro 2022). For each recall level i (users who want i relevant "
    "documents), the run that reaches the i-th relevant document sooner wins that level; RPP is the share of "
    "levels the first run wins minus the share it loses, every level weighted alike. An average-case preference, "
    "the preference-based analogue of average precision.")
_register_rpp(
    "dcgrpp", "DCGPP", lambda i: 1.0 / np.log2(i + 1.0), "(1/log2(i+1)) / sum_j 1/log2(j+1)",
    "Recall-Paired Preference with DCG weights: as RPP, but users who want few relevant documents count more "
    "(weight 1/log2(i+1) for recall level i).")
_register_rpp(
    "invrpp", "INVPP", lambda i: 1.0 / i, "(1/i) / sum_j 1/j",
    "Recall-Paired Preference with inverse weights: as RPP, with weight 1/i for recall level i, so the first "
    "relevant documents weigh most.")
_register_lexicographic(
    "lexirecall", "Lexirecall", "last",
    "Lexicographic recall (Diaz, Ekstrand & Mitra): the worst-case preference. The run that retrieves more "
    "relevant documents wins; with as many, the one that ranks its last relevant document higher, then the "
    "one before it, and so on: +1, -1 or 0 per query. Breaks the ties of recall and R-precision.",
    "Lexirecall(x, y) = s_k with k the largest i such that s_i != 0 (0 if none)")
_register_lexicographic(
    "lexiprecision", "Lexiprecision", "first",
    "Lexicographic precision (Diaz 2023): the best-case preference. The run that ranks its first relevant "
    "document higher wins; on a tie, the second, and so on: +1, -1 or 0 per query. Breaks the ties of "
    "reciprocal rank.",
    "Lexiprecision(x, y) = s_k with k the smallest i such that s_i != 0 (0 if none)")


# ST-RPP's paper (the RPP slides) writes one ST-RPP with weights p(t); "(rel)" names the weighting by
# relevant documents.
for _name, _paper, _subtopics, _share, _what in (
        ("st_rpp", "ST-RPP", "uniform", "1/T", "every subtopic weighs alike"),
        ("st_rpp_rel", "ST-RPP(rel)", "relevant", "m_t / sum_u m_u",
         "a subtopic weighs as many relevant documents as it has")):
    REGISTRY.add(PreferenceMeasure(
        name=_name, family=REGISTRY.key, group="Recall-paired preference",
        description=f"Subtopic Recall-Paired Preference (ST-RPP): RPP computed for each subtopic of a query on "
                    f"its own relevant documents, then summed over the subtopics with weights; {_what}. Within a "
                    f"subtopic every recall level weighs alike, as in RPP (graded: averaged over the grade levels "
                    f"as RPP does). Needs subtopic qrels; with plain qrels, or one subtopic, it is RPP.",
        formula=f"{_paper}(x, y) = sum_t p(t) RPP_t(x, y), RPP_t = sum_i (1/m_t) s_i on the m_t relevant documents "
                f"of subtopic t, p(t) = {_share} over the T subtopics with a relevant document; {_VECTOR}. "
                f"Graded: each RPP_t as RPP's.",
        parameters=(_THRESHOLD,), aliases=(("paper", _paper),), notes=("Not in pref_eval; from the Recall-Paired Preference slides' "
                                         "ST-RPP(pi, pi') = sum_t sum_i p(i, t) sgn(f'_(i,t) - f_(i,t)).",),
        weight=lambda i: np.ones(len(i)), subtopics=_subtopics))


def default_measures(qrels) -> list[str]:
    """Every preference; the subtopic ones (ST-RPP) only for subtopic qrels (on others they are rpp)."""
    subtopics = getattr(qrels, "lines", None) is not None
    return [name for name, r in REGISTRY.items() if subtopics or not r.subtopics]


def code_name(name: str) -> str | None:
    """The registered name of the preference spelt ``name``: its registered name or the name papers
    write (RPP, DCGPP, Lexiprecision, ST-RPP...), exactly or, when only one preference matches,
    in any case (``dcgpp``, ``LEXIRECALL``); None when none does. EvalUsageError when several do."""
    if name in REGISTRY:
        return name
    exact = [r.name for r in REGISTRY.values() if r.paper_name == name]
    if exact:
        return exact[0]
    folded = name.casefold()
    found = list(dict.fromkeys(r.name for r in REGISTRY.values()
                               if folded in (r.name.casefold(), r.paper_name.casefold())))
    if len(found) > 1:
        raise EvalUsageError(f"preference '{name}' is ambiguous: write one of {', '.join(found)}")
    return found[0] if found else None


def registered_names(names) -> tuple[str, ...]:
    """``names`` with each preference spelt otherwise (RPP, dcgpp) as registered; any other name (a ranked
    measure, an unknown or ambiguous one) as given, for the caller to judge."""
    def registered(name):
        try:
            return code_name(name) or name if isinstance(name, str) else name
        except EvalUsageError:
            return name

    return tuple(registered(name) for name in names)


def choices_text() -> str:
    """Every preference as papers write it, with its registered name: "RPP (rpp), DCGPP (dcgrpp), ..."."""
    return ", ".join(r.name if r.paper_name == r.name else f"{r.paper_name} ({r.name})" for r in REGISTRY.values())


def measure(name: str) -> PreferenceMeasure:
    """The record of the preference spelt ``name`` (either name, see :func:`code_name`)."""
    found = code_name(name)
    if found is None:
        raise EvalUsageError(f"unknown preference '{name}' (choose from {choices_text()})")
    return REGISTRY[found]


# ---------------------------------------------------------------------------------------- layout

@dataclass(frozen=True, eq=False)
class Layout:
    """The slots every run's relevance vectors fill: query after query, each query's grade levels
    (lowest grade first), one slot per relevant document of that level."""

    query_ids: np.ndarray      # (n_q,) object: qrels queries with a relevant document, in qrels order
    threshold: int             # lowest relevant grade
    binary: bool               # one level per query (grades not told apart)
    level_query: np.ndarray    # (n_levels,) query of each level
    level_grade: np.ndarray    # (n_levels,) its grade (documents of grade >= it count)
    level_size: np.ndarray     # (n_levels,) m_g: its number of slots
    query_levels: np.ndarray   # (n_q + 1,) where each query's levels start

    @classmethod
    def of(cls, qrels: Qrels, binary_threshold: int | None = None) -> "Layout":
        if binary_threshold is not None and binary_threshold < 0:
            raise EvalUsageError(f"the binary threshold must be a grade of 0 or more, not {binary_threshold}")
        threshold = 1 if binary_threshold is None else int(binary_threshold)
        relevant = qrels.rel >= threshold
        codes = qrels.query_codes[relevant]
        present = np.unique(codes)
        if not len(present):
            raise EvalInputError(qrels.source, f"no query has a relevant document (grade >= {threshold})")
        return cls.of_relevant(qrels.query_ids[present], np.searchsorted(present, codes), qrels.rel[relevant],
                               threshold, binary_threshold is not None)

    @classmethod
    def of_relevant(cls, query_ids: np.ndarray, query: np.ndarray, grade: np.ndarray, threshold: int,
                    binary: bool) -> "Layout":
        """From the relevant documents alone: each one's query (an index into ``query_ids``, every
        query having one) and grade (>= ``threshold``). For judgments that are not a Qrels, e.g.
        some removed (the meta-evaluation's robustness)."""
        grade = np.full(len(query), threshold) if binary else grade
        # One level per (query, grade) present, in that order; m_g counts the documents of grade >= g.
        keys, counts = np.unique(np.stack((query, grade)), axis=1, return_counts=True)
        level_query, level_grade = keys
        query_levels = np.searchsorted(level_query, np.arange(len(query_ids) + 1))
        after = np.concatenate((np.cumsum(counts[::-1])[::-1], [0]))
        level_size = after[:-1] - after[query_levels[level_query + 1]]
        return cls(query_ids, threshold, binary, level_query, level_grade, level_size, query_levels)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def level_starts(self) -> np.ndarray:
        """(n_levels + 1,) the first slot of each level."""
        return np.concatenate(([0], np.cumsum(self.level_size)))

    @property
    def n_slots(self) -> int:
        return int(self.level_starts[-1])

    @cached_property
    def query_starts(self) -> np.ndarray:
        """(n_q + 1,) the first slot of each query."""
        return self.level_starts[self.query_levels]

    @cached_property
    def slot_level(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.level_size)), self.level_size)

    @cached_property
    def slot_rank(self) -> np.ndarray:
        """Recall level of each slot in its level: 1, 2, ..., m_g."""
        return np.arange(self.n_slots) - self.level_starts[self.slot_level] + 1

    @cached_property
    def base(self) -> np.ndarray | slice:
        """The slots of each query's lowest level (all its relevant documents), query after query."""
        if len(self.level_size) == self.n_queries:
            return slice(None)
        first = self.query_levels[:-1]
        size = self.level_size[first]
        return np.repeat(self.level_starts[first], size) + np.arange(size.sum()) \
            - np.repeat(np.cumsum(size) - size, size)

    @cached_property
    def base_starts(self) -> np.ndarray:
        """(n_q + 1,) where each query starts among the :attr:`base` slots."""
        return np.concatenate(([0], np.cumsum(self.level_size[self.query_levels[:-1]])))

    @cached_property
    def base_rank(self) -> np.ndarray:
        """Recall level (1..m) of each :attr:`base` slot, as int32 (the lexicographic keys stay small)."""
        return self.slot_rank[self.base].astype(np.int32)

    def weights(self, weight: Callable[[np.ndarray], np.ndarray], subtopics: str | None = None) -> np.ndarray:
        """(n_slots,) RPP's weight of each slot: normalised within its level, times the level's share
        m_g / sum_g m_g of its query. ``subtopics`` (ST-RPP's) changes nothing here: without subtopics
        each query is one (see :class:`SubtopicLayout`)."""
        raw = np.asarray(weight(self.slot_rank.astype(np.float64)), dtype=np.float64)
        per_level = np.add.reduceat(raw, self.level_starts[:-1])
        per_query = np.add.reduceat(self.level_size, self.query_levels[:-1]).astype(np.float64)
        share = self.level_size / per_query[self.level_query]
        return raw * (share / per_level)[self.slot_level]

    def vector(self, qrels: Qrels, run: Run, check=None) -> tuple[np.ndarray, list[str], object]:
        """The run's relevance vectors: (n_slots,) int32 ranks, :data:`NOT_RETRIEVED` where missed;
        the compared queries it has no results for; and ``check(ranking)`` (None without a check)."""
        ranking, _ = prepare(qrels, run)
        checked = None if check is None else check(ranking)
        relevant = Positions.where(ranking.rel >= self.threshold, ranking.offsets)
        query = index_in(string_array(ranking.query_ids.tolist()), string_array(self.query_ids.tolist()))
        out = self.positions(query[relevant.seg], ranking.rel[relevant.idx], relevant.pos + 1)
        present = set(ranking.query_ids.tolist())
        return out, [q for q in self.query_ids.tolist() if q not in present], checked

    def positions(self, query: np.ndarray, grade: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """A run's relevance vectors, (n_slots,) int32, from the relevant documents it retrieved: each
        one's query (an index into ``query_ids``), grade and 1-based rank, in rank order within a query."""
        # A document of grade g counts in every level of its query up to g (binary: the one level).
        first = self.query_levels[query]
        if self.binary:
            n_levels = np.ones(len(query), dtype=np.int64)
        else:
            n_levels = np.searchsorted(self.level_query * _GRADE_SPAN + self.level_grade,
                                       query * _GRADE_SPAN + grade, side="right") - first
        doc = np.repeat(np.arange(len(query)), n_levels)
        level = first[doc] + np.arange(len(doc)) - np.repeat(np.cumsum(n_levels) - n_levels, n_levels)
        # Documents arrive in rank order within a query, so a stable sort by level keeps them ascending.
        order = np.argsort(level, kind="stable")
        level, rank = level[order], rank[doc[order]]
        slot = self.level_starts[level] + np.arange(len(level)) - np.searchsorted(level, level)
        out = np.full(self.n_slots, NOT_RETRIEVED, dtype=np.int32)
        out[slot] = rank
        return out


_GRADE_SPAN = 1 << 20     # > every grade (data.MAX_GRADE): (query, grade) as one sortable number


# ---------------------------------------------------------------------------------------- comparing

def _signs(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sgn(y - x) as int8: +1 where x ranks sooner."""
    return (x < y).view(np.int8) - (x > y).view(np.int8)


class _Chunk:
    """A chunk of pairs (a, b) of runs: their level-by-level signs, computed once for every measure."""

    def __init__(self, vectors: "RelevanceVectors", a: np.ndarray, b: np.ndarray):
        self.vectors, self.a, self.b = vectors, a, b

    @cached_property
    def signs(self) -> np.ndarray:
        p = self.vectors.positions
        return _signs(p[self.a], p[self.b])

    @cached_property
    def base_signs(self) -> np.ndarray:
        if isinstance(self.vectors.layout.base, slice):
            return self.signs
        p = self.vectors.base_positions
        return _signs(p[self.a], p[self.b])

    def rpp(self, weights: np.ndarray) -> np.ndarray:
        return np.add.reduceat(self.signs * weights, self.vectors.layout.query_starts[:-1], axis=1)

    def lexicographic(self, which: str) -> np.ndarray:
        """s_i at the first or last differing level of each query (0 if none)."""
        s = self.base_signs
        layout = self.vectors.layout
        rank = layout.base_rank
        priority = rank if which == "last" else rank.max() + 1 - rank
        # The highest priority among differing levels wins; its sign rides in the lowest bit.
        key = np.where(s != 0, priority * 2 + (s > 0), -1)
        best = np.maximum.reduceat(key, layout.base_starts[:-1], axis=1)
        return np.where(best < 0, 0.0, np.where(best % 2 == 1, 1.0, -1.0))


@dataclass(eq=False)
class RelevanceVectors:
    """Every run's relevance vectors on one :class:`Layout`."""

    layout: Layout
    run_names: list[str]
    positions: np.ndarray                  # (n_runs, n_slots) int32
    absent: list[list[str]] = field(default_factory=list)   # per run: compared queries without results
    checks: list = field(default_factory=list)              # per run: what ``check`` said of its ranking

    @classmethod
    def of(cls, qrels: Qrels, runs: Iterable[Run | Callable[[], Run]], *, binary_threshold: int | None = None,
           state: JobState | None = None, n_runs: int | None = None, workers: int = 1,
           on_run: Callable[[Run, list[str]], None] | None = None, layout: Layout | None = None,
           check: Callable | None = None) -> "RelevanceVectors":
        """Each run's vectors. ``runs`` holds runs or loaders (callables returning a run), which are
        called and dropped one at a time, so that only ``workers + 1`` runs are ever in memory; with
        ``workers`` > 1 that many are read and ranked at once on threads (reading and ranking are
        mostly numpy and pyarrow, which leave the GIL). ``n_runs`` is only for progress;
        ``on_run(run, absent)`` hears of each run, in order, on the calling thread; ``check(ranking)`` sees
        each run's ranking before it is dropped (the advisor's judged shares), its results kept in
        :attr:`checks`."""
        from evalgui.core.ranked.evaluate import unique_run_names

        state = state_or_default(state)
        layout = Layout.of(qrels, binary_threshold) if layout is None else layout
        qrels.doc_dictionary            # the qrels' lazy caches are filled here, not by racing threads

        def vector(item: Run | Callable[[], Run]):
            run = item() if callable(item) else item
            return run, *layout.vector(qrels, run, check)

        rows, names, absent, checks = [], [], [], []
        for i, (run, row, missing, checked) in enumerate(_in_order(vector, runs, workers, state)):
            state.progress((i + 1) / n_runs if n_runs else 0.0, f"Ranked {run.name}")
            rows.append(row)
            names.append(_RunLabel(run.name, run.source))    # all unique_run_names reads of a run
            absent.append(missing)
            checks.append(checked)
            if on_run is not None:
                on_run(run, missing)
            del run                           # freed before the next is read
        positions = np.vstack(rows) if rows else np.empty((0, layout.n_slots), dtype=np.int32)
        return cls(layout, unique_run_names(names), positions, absent, checks)

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @cached_property
    def base_positions(self) -> np.ndarray:
        base = self.layout.base
        return self.positions if isinstance(base, slice) else self.positions[:, base]


@dataclass(frozen=True)
class _RunLabel:
    name: str
    source: str


def _in_order(work: Callable, items: Iterable, workers: int, state: JobState):
    """``work(item)`` for each item, in order; with ``workers`` > 1 on a thread pool, at most
    ``workers + 1`` items taken (and their results held) at a time. Checks for cancel between items."""
    if workers <= 1:
        for item in items:
            state.check()
            yield work(item)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    items = iter(items)
    with ThreadPoolExecutor(workers, thread_name_prefix="preference") as pool:
        pending = deque()
        try:
            while True:
                while len(pending) <= workers:
                    item = next(items, _END)
                    if item is _END:
                        break
                    pending.append(pool.submit(work, item))
                if not pending:
                    return
                state.check()
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


_END = object()


# ---------------------------------------------------------------------------------------- results

@dataclass(eq=False)
class PreferenceResult:
    """Per-query preferences of every unordered pair of runs (a before b, in the order given)."""

    run_names: list[str]
    query_ids: np.ndarray
    measures: list[str]
    pair_a: np.ndarray                       # (n_pairs,) index of run a
    pair_b: np.ndarray                       # (n_pairs,) index of run b
    per_query: dict[str, np.ndarray]         # measure -> (n_pairs, n_queries)
    absent: list[list[str]] = field(default_factory=list)
    binary_threshold: int | None = None      # grade >= it relevant, grades not told apart (None: graded)
    checks: list = field(default_factory=list)   # per run: what the advisor's check said of its ranking

    @cached_property
    def means(self) -> dict[str, np.ndarray]:
        """measure -> (n_pairs,) mean over the queries (exact sums, as every summary in evalgui)."""
        return {m: query_mean(v.T, len(self.query_ids)) for m, v in self.per_query.items()}

    def matrix(self, measure: str) -> np.ndarray:
        """(runs x runs) mean preference of the row run over the column run: antisymmetric, 0 on the diagonal."""
        n = len(self.run_names)
        out = np.zeros((n, n))
        out[self.pair_a, self.pair_b] = self.means[measure]
        out[self.pair_b, self.pair_a] = -self.means[measure]
        return out + 0.0

    def tidy_columns(self, per_query: bool = False) -> dict[str, np.ndarray]:
        """Columns measure, run_a, run_b, query, value: for each measure and pair (in order), its
        per-query rows (with ``per_query``), then its mean (query 'all')."""
        n_pairs, n_q = len(self.pair_a), len(self.query_ids) if per_query else 0
        per_pair = n_q + 1
        names = np.array(self.run_names, dtype=object)
        queries = np.concatenate((self.query_ids[:n_q].astype(object), [tidy.ALL_QUERIES]))
        parts = []
        for m in self.measures:
            values = np.concatenate((self.per_query[m][:, :n_q], self.means[m][:, None]), axis=1)
            parts.append({
                tidy.MEASURE: np.full(n_pairs * per_pair, m, dtype=object),
                RUN_A: np.repeat(names[self.pair_a], per_pair),
                RUN_B: np.repeat(names[self.pair_b], per_pair),
                tidy.QUERY: np.tile(queries, n_pairs),
                tidy.VALUE: values.ravel().astype(np.float64),
            })
        if not parts:
            return {c: np.empty(0, dtype=np.float64 if c == tidy.VALUE else object) for c in PAIR_COLUMNS}
        return {c: np.concatenate([p[c] for p in parts]) for c in PAIR_COLUMNS}

    def pair_query_columns(self) -> dict[str, np.ndarray]:
        """Columns measure, run_a, run_b, query, preference: each pair's per-query preference of run_a over
        run_b, the values whose mean is the matrix's cell (measures, pairs and queries in order; no 'all' rows)."""
        n_pairs, n_q = len(self.pair_a), len(self.query_ids)
        names = np.array(self.run_names, dtype=object)
        queries = self.query_ids.astype(object)
        per_measure = n_pairs * n_q
        n_m = len(self.measures)
        return {
            tidy.MEASURE: np.repeat(np.array(self.measures, dtype=object), per_measure),
            RUN_A: np.tile(np.repeat(names[self.pair_a], n_q), n_m),
            RUN_B: np.tile(np.repeat(names[self.pair_b], n_q), n_m),
            tidy.QUERY: np.tile(queries, n_pairs * n_m),
            "preference": (np.concatenate([self.per_query[m].ravel() for m in self.measures]) if n_m else
                           np.empty(0)).astype(np.float64) + 0.0,
        }

    def pair_preferences(self, measure: str, row: str, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(queries, per-query preference of run ``row`` over run ``column``) on ``measure``."""
        where = {name: i for i, name in enumerate(self.run_names)}
        r, c = where[row], where[column]
        forward = np.flatnonzero((self.pair_a == r) & (self.pair_b == c))
        if len(forward):
            values = self.per_query[measure][forward[0]]
        else:
            values = -self.per_query[measure][np.flatnonzero((self.pair_a == c) & (self.pair_b == r))[0]]
        return self.query_ids.astype(object), values.astype(np.float64) + 0.0

    def to_frame(self, per_query: bool = False):
        """:meth:`tidy_columns` as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.tidy_columns(per_query))

    def matrix_frame(self, measure: str):
        """:meth:`matrix` as a DataFrame: index run_a, columns run_b."""
        import pandas as pd

        return pd.DataFrame(self.matrix(measure), index=pd.Index(self.run_names, name=RUN_A),
                            columns=pd.Index(self.run_names, name=RUN_B))

    def ranking_frame(self):
        """The systems ranked from the preference matrix, per measure: mean preference against the
        others, win rate (the share of the others it is preferred to), wins, ties, losses, rank
        (1 = best by mean preference, then win rate; tied runs share a rank)."""
        import pandas as pd

        frames = []
        n = len(self.run_names)
        for m in self.measures:
            mat = self.matrix(m)
            others = max(n - 1, 1)
            off = ~np.eye(n, dtype=bool)
            wins = ((mat > 0) & off).sum(axis=1)
            losses = ((mat < 0) & off).sum(axis=1)
            frame = pd.DataFrame({
                tidy.MEASURE: m, tidy.RUN: self.run_names,
                "mean_preference": mat.sum(axis=1) / others, "win_rate": wins / others,
                "wins": wins, "ties": n - 1 - wins - losses, "losses": losses})
            frame = frame.sort_values(["mean_preference", "win_rate"], ascending=False, kind="stable")
            key = frame[["mean_preference", "win_rate"]].to_numpy()
            new_key = np.r_[True, (key[1:] != key[:-1]).any(axis=1)]
            frame["rank"] = np.flatnonzero(new_key)[np.cumsum(new_key) - 1] + 1   # ties share the better rank
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def compare_vectors(vectors: RelevanceVectors, measures: list[str], *, state: JobState | None = None,
                    pairs: tuple[np.ndarray, np.ndarray] | None = None, workers: int = 1) -> PreferenceResult:
    """Per-query preferences of every unordered pair (or the given ``pairs``) for each measure,
    a chunk of pairs at a time (``workers`` chunks at once on threads: numpy leaves the GIL)."""
    state = state_or_default(state)
    records = [measure(m) for m in measures]
    a, b = pairs if pairs is not None else np.triu_indices(vectors.n_runs, 1)
    layout = vectors.layout
    weights = {r.name: layout.weights(r.weight, r.subtopics) for r in records if r.weight is not None}
    out = {r.name: np.empty((len(a), layout.n_queries)) for r in records}
    step = max(1, _CHUNK_ELEMENTS // max(layout.n_slots, 1))

    def one(start: int) -> int:
        chunk = _Chunk(vectors, a[start:start + step], b[start:start + step])
        for r in records:     # each chunk fills its own rows
            out[r.name][start:start + step] = \
                chunk.rpp(weights[r.name]) if r.weight is not None else chunk.lexicographic(r.lexicographic)
        return start

    for start in _in_order(one, range(0, len(a), step), workers, state):
        state.progress(min(start + step, len(a)) / max(len(a), 1),
                       f"Compared pairs 1-{min(start + step, len(a))} of {len(a)}")
    state.progress(1.0, "Done")
    return PreferenceResult(vectors.run_names, layout.query_ids, [r.name for r in records], np.asarray(a),
                            np.asarray(b), out, vectors.absent, layout.threshold if layout.binary else None)


def compare(qrels: Qrels, runs: Iterable[Run | Callable[[], Run]], measures: list[str] | None = None, *,
            binary_threshold: int | None = None, state: JobState | None = None, n_runs: int | None = None,
            workers: int = 1, on_run: Callable[[Run, list[str]], None] | None = None,
            check: Callable | None = None) -> PreferenceResult:
    """Every pair of ``runs`` (in the order given; runs or loaders, see :meth:`RelevanceVectors.of`)
    compared on ``measures`` (default: all of them).

    A job: ranking the runs is the first half of its progress, comparing the pairs the second."""
    state = state_or_default(state)
    # Either name, as registered from here on; an unknown one fails before any run is read.
    measures = list(dict.fromkeys(measure(m).name for m in measures)) if measures else default_measures(qrels)
    if n_runs is None and hasattr(runs, "__len__"):
        n_runs = len(runs)
    subtopic = [m for m in measures if REGISTRY[m].subtopics] if getattr(qrels, "lines", None) is not None else []
    if subtopic:
        return compare_with_subtopics(qrels, runs, measures, subtopic, binary_threshold=binary_threshold,
                                      state=state, n_runs=n_runs, workers=workers, on_run=on_run, check=check)
    vectors = RelevanceVectors.of(qrels, runs, binary_threshold=binary_threshold, state=state.scaled(0.0, 0.5),
                                  n_runs=n_runs, workers=workers, on_run=on_run, check=check)
    if vectors.n_runs < 2:
        raise EvalUsageError(f"a preference compares two runs or more; {vectors.n_runs} given")
    result = compare_vectors(vectors, measures, state=state.scaled(0.5, 1.0), workers=workers)
    result.checks = vectors.checks
    return result


# ---------------------------------------------------------------------------------------- ST-RPP
# Subtopic Recall-Paired Preference, from the Recall-Paired Preference slides:
# ST-RPP(pi, pi') = sum_t sum_i p(i, t) sgn(f'_(i,t) - f_(i,t)), f_(i,t) the rank of the i-th relevant
# document of subtopic t. p(i, t) = p(t) p(i | t): within a subtopic uniform over its recall levels, as
# RPP's p(i) (graded: RPP's average over the grade levels, on the subtopic's own documents); p(t) uniform
# over the subtopics with a relevant document (st_rpp) or by their number of relevant documents
# (st_rpp_rel). The engine is RPP's: a SubtopicLayout has one level per (query, subtopic[, grade]) instead
# of per (query[, grade]), and its weights carry p(t). A document relevant to two subtopics fills a slot
# in each.


@dataclass(frozen=True, eq=False)
class SubtopicLayout(Layout):
    """RPP's layout with one level per (query, subtopic, grade): each level's unit (query, subtopic),
    and the relevant judgments that fill its slots."""

    level_unit: np.ndarray = None       # (n_levels,) dense (query, subtopic) index
    unit_query: np.ndarray = None       # (n_units,) query of each unit
    line_query: np.ndarray = None       # relevant judgments: query index, doc, unit, grade
    line_doc: pa.Array = None
    line_unit: np.ndarray = None
    line_grade: np.ndarray = None

    @classmethod
    def of_subtopics(cls, qrels, binary_threshold: int | None = None) -> "SubtopicLayout":
        threshold = 1 if binary_threshold is None else int(binary_threshold)
        if binary_threshold is not None and binary_threshold < 0:
            raise EvalUsageError(f"the binary threshold must be a grade of 0 or more, not {binary_threshold}")
        lines = qrels.lines
        rel = np.asarray(lines.column("rel").to_numpy(), dtype=np.int64)
        keep = np.flatnonzero(rel >= threshold)
        if not len(keep):
            raise EvalInputError(qrels.source, f"no query has a relevant document (grade >= {threshold})")
        take = pa.array(keep)
        query = lines.column("query").combine_chunks().take(take)
        sub = lines.column("subtopic").combine_chunks().take(take)
        doc = lines.column("doc").combine_chunks().take(take)
        grade = rel[keep] if binary_threshold is None else np.full(len(keep), threshold)
        q_all = index_in(query, string_array(qrels.query_ids.tolist()))
        present = np.unique(q_all)
        q = np.searchsorted(present, q_all)
        s = index_in(sub, pc.unique(sub))
        _, unit = np.unique(q * (int(s.max()) + 1) + s, return_inverse=True)
        unit = unit.astype(np.int64)
        n_units = int(unit.max()) + 1
        unit_query = np.zeros(n_units, dtype=np.int64)
        unit_query[unit] = q
        # Levels: (unit, grade) present, units in query order; m_g counts the unit's documents of grade >= g.
        keys, counts = np.unique(np.stack((unit, grade)), axis=1, return_counts=True)
        level_unit, level_grade = keys
        unit_levels = np.searchsorted(level_unit, np.arange(n_units + 1))
        after = np.concatenate((np.cumsum(counts[::-1])[::-1], [0]))
        level_size = after[:-1] - after[unit_levels[level_unit + 1]]
        level_query = unit_query[level_unit]
        query_levels = np.searchsorted(level_query, np.arange(len(present) + 1))
        return cls(qrels.query_ids[present], threshold, binary_threshold is not None, level_query, level_grade,
                   level_size, query_levels, level_unit=level_unit, unit_query=unit_query, line_query=q,
                   line_doc=doc, line_unit=unit, line_grade=grade)

    def weights(self, weight: Callable[[np.ndarray], np.ndarray], subtopics: str | None = None) -> np.ndarray:
        """(n_slots,) p(i, t): the weight normalised within its level, times the level's share of its
        subtopic (m_g / sum_g m_g, graded RPP's), times the subtopic's share of its query p(t)."""
        raw = np.asarray(weight(self.slot_rank.astype(np.float64)), dtype=np.float64)
        per_level = np.add.reduceat(raw, self.level_starts[:-1])
        n_units = len(self.unit_query)
        per_unit = np.bincount(self.level_unit, weights=self.level_size, minlength=n_units)
        level_share = self.level_size / per_unit[self.level_unit]
        # m_t: the unit's relevant documents, the size of its lowest level
        first_level = np.searchsorted(self.level_unit, np.arange(n_units))
        m_t = self.level_size[first_level].astype(np.float64)
        unit_weight = m_t if subtopics == "relevant" else np.ones(n_units)
        unit_share = unit_weight / np.bincount(self.unit_query, weights=unit_weight)[self.unit_query]
        return raw * (level_share * unit_share[self.level_unit] / per_level)[self.slot_level]

    def vector(self, qrels, run: Run, check=None) -> tuple[np.ndarray, list[str], object]:
        """The run's vectors: each relevant judgment's document's rank (NOT_RETRIEVED if missed), in
        every level of its subtopic up to its grade, ascending within a level; and ``check(ranking)``."""
        ranking, _ = prepare(qrels, run, judgments_may_change=True)   # tied documents of one grade: subtopics differ
        checked = None if check is None else check(ranking)
        maybe = np.flatnonzero(ranking.rel >= self.threshold)
        seg = np.searchsorted(ranking.offsets, maybe, side="right") - 1
        rows = ranking.run_rows[maybe]
        by_row = np.argsort(rows, kind="stable")
        docs = run.doc_codes.docnos(rows[by_row])
        ranked_q = index_in(string_array(ranking.query_ids.tolist()), string_array(self.query_ids.tolist()))
        keys = pc.binary_join_element_wise(pa.array(ranked_q[seg[by_row]]).cast(pa.string()), docs, "\x00")
        line_keys = pc.binary_join_element_wise(pa.array(self.line_query).cast(pa.string()), self.line_doc, "\x00")
        where = index_in(line_keys, keys)
        flat = np.where(where >= 0, maybe[by_row][np.maximum(where, 0)], 0)
        rank = np.where(where >= 0, flat - ranking.offsets[seg[by_row][np.maximum(where, 0)]] + 1, NOT_RETRIEVED)
        # Each judgment in its unit's levels of grade <= its own (binary: the one level).
        first = np.searchsorted(self.level_unit, self.line_unit)
        n_levels = np.searchsorted(self.level_unit * (1 << 20) + self.level_grade,
                                   self.line_unit * (1 << 20) + self.line_grade, side="right") - first
        line = np.repeat(np.arange(len(rank)), n_levels)
        level = first[line] + np.arange(len(line)) - np.repeat(np.cumsum(n_levels) - n_levels, n_levels)
        order = np.lexsort((rank[line], level))
        level, ranks = level[order], rank[line][order]
        slot = self.level_starts[level] + np.arange(len(level)) - np.searchsorted(level, level)
        out = np.full(self.n_slots, NOT_RETRIEVED, dtype=np.int32)
        out[slot] = ranks
        present = set(ranking.query_ids.tolist())
        return out, [q for q in self.query_ids.tolist() if q not in present], checked


def compare_with_subtopics(qrels, runs: Iterable, measures: list[str], subtopic: list[str], *,
                           binary_threshold: int | None, state: JobState | None, n_runs: int | None,
                           workers: int, on_run, check=None) -> PreferenceResult:
    """:func:`~evalgui.core.ranked.preference.compare` when some measures read subtopics: those are compared
    on a :class:`SubtopicLayout`, the others on RPP's, and the results joined in the order asked."""
    state = state_or_default(state)
    runs = [r() if callable(r) else r for r in runs]     # each run is ranked twice: all are kept in memory
    plain = [m for m in measures if m not in subtopic]
    results = []
    passes = [(subtopic, SubtopicLayout.of_subtopics(qrels, binary_threshold))]
    if plain:
        passes.append((plain, None))
    for i, (names, layout) in enumerate(passes):
        share = 1.0 / len(passes)
        part = state.scaled(i * share, (i + 0.5) * share)
        vectors = RelevanceVectors.of(qrels, runs, binary_threshold=binary_threshold, state=part, n_runs=n_runs,
                                      workers=workers, on_run=on_run if i == 0 else None, layout=layout,
                                      check=check if i == 0 else None)
        if vectors.n_runs < 2:
            raise EvalUsageError(f"a preference compares two runs or more; {vectors.n_runs} given")
        results.append(compare_vectors(vectors, names, state=state.scaled((i + 0.5) * share, (i + 1) * share),
                                       workers=workers))
        results[-1].checks = vectors.checks
    first = results[0]
    for other in results[1:]:
        if list(other.query_ids) != list(first.query_ids):   # cannot happen: both are the queries with a relevant doc
            raise EvalUsageError("the subtopic and plain judgments give different queries")
        first.per_query.update(other.per_query)
    first.measures = [m for m in measures]
    first.__dict__.pop("means", None)
    return first
