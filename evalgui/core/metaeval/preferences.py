"""Preference measures (rpp, dcgrpp, invrpp, lexirecall, lexiprecision) on the rankings the
meta-evaluation prepared once, with the full judgments or with some removed.

The preference engine (:mod:`evalgui.core.ranked.preference`) compares two runs query by query
from each run's relevance vector: the ranks of the query's relevant documents. Removing
judgments only shortens those vectors (a removed document is no longer relevant); the rank of
every document stays (under trec_eval -J, the removed ones leave the ranking, and the documents
below them move up). So R reduced qrels are R stacked copies of the queries, each copy with its
own relevant documents: one :class:`~evalgui.core.ranked.preference.Layout` for all of them,
and :func:`~evalgui.core.ranked.preference.compare_vectors` compares every pair of runs on
every copy at once. With nothing removed, the values are the preference engine's own.

Which documents are relevant: grade >= 1 with the grades told apart (graded RPP, as
``evalgui-cli preference``) at the default relevance level 1; at another level N, grade >= N
without the grades told apart (as ``--binary-threshold N``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.metaeval.judgments import Judgments
from evalgui.core.ranked import preference
from evalgui.core.ranked.ranking import Ranking


@dataclass(eq=False)
class _RunJudged:
    """One run's judged documents, in rank order: which judgment each is, and its rank."""

    judgment: np.ndarray     # index into the Judgments
    rank: np.ndarray         # 1-based rank in its query
    first: np.ndarray        # index (in these arrays) of the first judged document of the same query

    @classmethod
    def of(cls, ranking: Ranking, judged_at: np.ndarray, judgment: np.ndarray) -> "_RunJudged":
        seg = np.searchsorted(ranking.offsets, judged_at, side="right") - 1
        return cls(judgment, (judged_at - ranking.offsets[seg] + 1).astype(np.int64), np.searchsorted(seg, seg))

    def ranks(self, kept: np.ndarray) -> np.ndarray:
        """R x documents: each document's rank once the judgments not ``kept`` (R x judgments) have left
        the ranking (trec_eval -J ranks judged documents only)."""
        gone = (~kept[:, self.judgment]).astype(np.int64)
        before = np.cumsum(gone, axis=1) - gone                  # removed above it, in any query so far
        return self.rank[None, :] - (before - before[:, self.first])


class PreferenceValues:
    """The preference measures ``names`` of every pair of runs (i < j, in the runs' order; > 0: run i
    preferred), per query, from each run's judged documents (``judged``: one ``(ranking, judged_at,
    judgment)`` per run, as :class:`~evalgui.core.metaeval.scores.RankedSource` locates them)."""

    def __init__(self, names: list[str], judgments: Judgments, judged: list[tuple], systems: list[str],
                 relevance_level: int, judged_only: bool):
        for name in names:
            preference.measure(name)
        if relevance_level < 0:
            raise EvalUsageError(f"preference measures ({', '.join(names)}) count grade >= the relevance level as "
                                 f"relevant: choose a level of 0 or more, not {relevance_level}")
        self.names = list(names)
        self.judgments = judgments
        self.systems = list(systems)
        self.threshold = relevance_level
        self.binary = relevance_level != 1       # at the default level, graded as the preference engine
        self.relevant = judgments.grade >= relevance_level
        self.judged_only = judged_only
        self.runs = [_RunJudged.of(*one) for one in judged]

    def queries(self) -> np.ndarray:
        """The queries (indices into the universe) with a relevant document: the ones a preference compares."""
        return np.unique(self.judgments.query[self.relevant])

    def values(self, kept: np.ndarray, queries: np.ndarray | None = None,
               state: JobState | None = None) -> dict[str, np.ndarray]:
        """measure -> pairs x R x queries (indices into the universe; default all), with the judgments
        ``kept`` (R x judgments, bool) in repetition r; 0 (a tie) on a query left with no relevant
        document."""
        state = state_or_default(state)
        kept = np.atleast_2d(kept)
        reps, universe = kept.shape[0], self.judgments.n_queries
        queries = np.arange(universe) if queries is None else np.asarray(queries, dtype=np.int64)
        n_pairs = len(self.systems) * (len(self.systems) - 1) // 2
        out = {name: np.zeros((n_pairs, reps * len(queries))) for name in self.names}
        relevant = kept & self.relevant[None, :]
        rep, which = np.nonzero(relevant)
        stacked = rep * universe + self.judgments.query[which]           # query q of copy r
        present = np.unique(stacked)
        wanted = (np.arange(reps)[:, None] * universe + queries[None, :]).ravel()
        at = np.minimum(np.searchsorted(present, wanted), max(len(present) - 1, 0))
        found = present[at] == wanted if len(present) else np.zeros(len(wanted), dtype=bool)
        if found.any():
            layout = preference.Layout.of_relevant(present, np.searchsorted(present, stacked),
                                                   self.judgments.grade[which], self.threshold, self.binary)
            result = preference.compare_vectors(self._vectors(layout, present, kept, relevant, state),
                                                self.names, state=state.scaled(0.5, 1.0))
            for name in self.names:
                out[name][:, found] = result.per_query[name][:, at[found]]
        state.progress(1.0, "Compared")
        return {name: values.reshape(n_pairs, reps, len(queries)) for name, values in out.items()}

    def _vectors(self, layout: preference.Layout, present: np.ndarray, kept: np.ndarray, relevant: np.ndarray,
                 state: JobState) -> preference.RelevanceVectors:
        """Every run's relevance vectors on the stacked layout (copy r of query q is ``present``'s
        r x universe + q)."""
        universe = self.judgments.n_queries
        rows = []
        for k, run in enumerate(self.runs):
            state.check()
            state.progress(0.5 * k / len(self.runs), f"Relevance vectors of {self.systems[k]}")
            ranks = run.ranks(kept) if self.judged_only else None
            # copy after copy, each in rank order: what Layout.positions reads
            copy, doc = np.nonzero(relevant[:, run.judgment])
            judgment = run.judgment[doc]
            query = np.searchsorted(present, copy * universe + self.judgments.query[judgment])
            rank = ranks[copy, doc] if ranks is not None else run.rank[doc]
            rows.append(layout.positions(query, self.judgments.grade[judgment], rank))
        return preference.RelevanceVectors(layout, self.systems, np.vstack(rows))
