"""Subtopic Recall-Paired Preference (ST-RPP): RPP per subtopic, summed over a query's subtopics.

From the Recall-Paired Preference slides: ST-RPP(pi, pi') = sum_t sum_i p(i, t) sgn(f'_(i,t) - f_(i,t)),
f_(i,t) the rank of the i-th relevant document of subtopic t. p(i, t) = p(t) p(i | t): within a
subtopic, uniform over its recall levels, as RPP's p(i) (graded: RPP's average over the grade
levels, on the subtopic's own documents); p(t) uniform over the subtopics with a relevant document
(``st_rpp``) or by their number of relevant documents (``st_rpp_rel``).

The engine is RPP's (:mod:`evalgui.core.ranked.preference`): a :class:`SubtopicLayout` has one
level per (query, subtopic[, grade]) instead of per (query[, grade]), and its weights carry p(t).
A document relevant to two subtopics fills a slot in each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.arrow import index_in, string_array
from evalgui.core.data import Run
from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.ranked.preference import (NOT_RETRIEVED, Layout, PreferenceResult, RelevanceVectors,
                                            compare_vectors)
from evalgui.core.ranked.ranking import prepare


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

    def vector(self, qrels, run: Run) -> tuple[np.ndarray, list[str]]:
        """The run's vectors: each relevant judgment's document's rank (NOT_RETRIEVED if missed), in
        every level of its subtopic up to its grade, ascending within a level."""
        ranking, _ = prepare(qrels, run, judgments_may_change=True)   # tied documents of one grade: subtopics differ
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
        return out, [q for q in self.query_ids.tolist() if q not in present]


def compare_with_subtopics(qrels, runs: Iterable, measures: list[str], subtopic: list[str], *,
                           binary_threshold: int | None, state: JobState | None, n_runs: int | None,
                           workers: int, on_run) -> PreferenceResult:
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
                                      workers=workers, on_run=on_run if i == 0 else None, layout=layout)
        if vectors.n_runs < 2:
            raise EvalUsageError(f"a preference compares two runs or more; {vectors.n_runs} given")
        results.append(compare_vectors(vectors, names, state=state.scaled((i + 0.5) * share, (i + 1) * share),
                                       workers=workers))
    first = results[0]
    for other in results[1:]:
        if list(other.query_ids) != list(first.query_ids):   # cannot happen: both are the queries with a relevant doc
            raise EvalUsageError("the subtopic and plain judgments give different queries")
        first.per_query.update(other.per_query)
    first.measures = [m for m in measures]
    first.__dict__.pop("means", None)
    return first
