"""The judged documents of a qrels, and which of them a reduced qrels removes (the robustness
experiment). Shared by :mod:`~evalgui.core.metaeval.scores` and
:mod:`~evalgui.core.metaeval.preferences`, below both."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from evalgui.core.arrow import codes_of, from_numpy, index_in, string_array
from evalgui.core.data import Qrels


@dataclass(eq=False)
class Judgments:
    """The qrels' judgments with a grade >= 0 of the evaluated queries, sorted by query: what
    the robustness experiment removes. (Negative grades, "in the pool but not judged", stay.)"""

    query: np.ndarray        # (J,) index into the universe of queries, ascending
    grade: np.ndarray        # (J,)
    keys: np.ndarray         # (J,) query * n_docs + the docno's index in the qrels' dictionary, ascending
    n_docs: int
    n_queries: int

    @classmethod
    def of(cls, qrels: Qrels, universe: list[str]) -> "Judgments":
        q = index_in(string_array(qrels.query_ids.tolist()), string_array(universe))[qrels.query_codes] \
            if len(qrels) else np.empty(0, dtype=np.int64)
        doc = codes_of(qrels.doc_dictionary)
        n_docs = max(len(qrels.doc_dictionary.dictionary), 1)
        keep = (q >= 0) & (qrels.rel >= 0)
        keys = q[keep] * n_docs + doc[keep]
        order = np.argsort(keys, kind="stable")
        keys, first = np.unique(keys[order], return_index=True)    # a repeated judgment: the first, as prepare
        picked = order[first]
        return cls(q[keep][picked], qrels.rel[keep][picked], keys, n_docs, len(universe))

    def __len__(self) -> int:
        return len(self.query)

    @cached_property
    def starts(self) -> np.ndarray:
        return np.searchsorted(self.query, np.arange(self.n_queries + 1))

    @cached_property
    def per_query(self) -> np.ndarray:
        return np.diff(self.starts)

    def removal_ranks(self, seed: int, repetitions: range, relevant: np.ndarray | None = None) -> np.ndarray:
        """(R, J): each judgment's place in its query's removal order (0: removed first), one random
        order per repetition, seeded by (seed, repetition) so that repetition r is the same whatever
        the number of repetitions. With ``relevant``, a relevant judgment of each query that has one
        (a random one) is removed last, so that a query keeps one while it keeps any."""
        n = len(self)
        keys = np.stack([np.random.default_rng([seed, r]).random(n) for r in repetitions]) if n else \
            np.zeros((len(repetitions), 0))
        if relevant is not None and relevant.any() and n:
            starts = self.starts[:-1][self.per_query > 0]
            best = np.maximum.reduceat(np.where(relevant, keys, -1.0), starts, axis=1)      # R x non-empty queries
            block = np.repeat(np.arange(len(starts)), self.per_query[self.per_query > 0])
            last = relevant & (keys == best[:, block])
            keys = np.where(last, 2.0, keys)
        order = np.argsort(self.query * 4.0 + keys, axis=1, kind="stable")   # by query, then key (< 4)
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(n)[None, :], axis=1)
        return ranks - self.starts[self.query]

    def removed_counts(self, fraction: float) -> np.ndarray:
        """Per query: how many judgments a fraction removes, round(f·n) (halves up)."""
        return np.floor(fraction * self.per_query + 0.5 + 1e-9).astype(np.int64)

    def removed(self, ranks: np.ndarray, fraction: float) -> np.ndarray:
        """(R, J) bool: the judgments removed at ``fraction`` under the removal orders ``ranks``."""
        return ranks < self.removed_counts(fraction)[self.query]

    def reduced_qrels(self, qrels: Qrels, universe: list[str], removed: np.ndarray) -> Qrels:
        """The qrels without the removed judgments (for checks: the experiment never builds it)."""
        q = index_in(string_array(qrels.query_ids.tolist()), string_array(universe))[qrels.query_codes]
        doc = codes_of(qrels.doc_dictionary)
        keys = np.where(q >= 0, q * self.n_docs + doc, -1)
        gone = np.isin(keys, self.keys[removed]) & (qrels.rel >= 0)
        keep = from_numpy(np.flatnonzero(~gone))
        return Qrels(qrels.query.take(keep), qrels.doc.take(keep), qrels.rel[~gone], qrels.source)
