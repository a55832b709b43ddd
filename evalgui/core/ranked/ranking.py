"""The expensive step done once: rank every query's results and join them with the qrels.

This is trec_eval's ``form_res_rels`` for all queries at once. The result is a
:class:`Ranking` in compressed-sparse-row layout: one flat array with the
judgment of every ranked document, query after query, and ``offsets`` marking
where each query starts. Every measure reads these ready-made arrays.

Judgment codes follow trec_eval: the grade from the qrels, or
``NONPOOL`` (-1) for a document absent from the qrels, or ``UNJUDGED`` (-2) for
a document the qrels list with a negative grade (in the pool, not judged).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError

NONPOOL = -1
UNJUDGED = -2
_MAX_GRADE = 10_000  # grades are counted in a dense (queries x grades) table


@dataclass(frozen=True, eq=False)
class Ranking:
    query_ids: np.ndarray          # (n_q,) object: evaluated queries in trec_eval order (byte order)
    offsets: np.ndarray            # (n_q + 1,) int64: where each query's ranked documents start
    rel: np.ndarray                # (N,) int64: judgment code of each ranked document
    rel_levels: np.ndarray         # (n_q, L) int64: judged documents per grade 0..L-1 (whole qrels)
    missing: np.ndarray            # (n_q,) bool: query has no results (only with complete=True)
    relevance_level: int = 1
    num_docs_in_coll: int = 0
    run_rows: np.ndarray | None = field(default=None, repr=False)  # (N,) row of each ranked doc in the run

    # ------------------------------------------------------------ shape
    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def seg(self) -> np.ndarray:
        """Query index of every ranked document."""
        return np.repeat(np.arange(self.n_queries), self.num_ret)

    @cached_property
    def pos(self) -> np.ndarray:
        """0-based rank of every ranked document within its query."""
        return np.arange(len(self.rel)) - np.repeat(self.offsets[:-1], self.num_ret)

    # ------------------------------------------------------------ relevance at the chosen level
    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.relevance_level

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """Relevant documents at or above each rank (inclusive)."""
        return self.cum_within(self.is_rel)

    @cached_property
    def num_rel(self) -> np.ndarray:
        lvl = max(self.relevance_level, 0)
        return self.rel_levels[:, lvl:].sum(axis=1) if lvl < self.rel_levels.shape[1] else np.zeros(self.n_queries, np.int64)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return self.seg_sum(self.is_rel & (self.rel >= 0)).astype(np.int64)

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """One more than the highest grade judged for each query (0 if none)."""
        nonzero = self.rel_levels > 0
        last = self.rel_levels.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1)
        return np.where(nonzero.any(axis=1), last + 1, 0)

    def with_level(self, relevance_level: int) -> "Ranking":
        """The same ranking judged at another relevance level (cheap: arrays are shared)."""
        if relevance_level == self.relevance_level:
            return self
        return replace(self, relevance_level=relevance_level)

    # ------------------------------------------------------------ segment helpers
    def seg_sum(self, values) -> np.ndarray:
        """Per-query sum, accumulated in rank order (as trec_eval does)."""
        return np.bincount(self.seg, weights=np.asarray(values, dtype=np.float64), minlength=self.n_queries)

    def cum_within(self, values) -> np.ndarray:
        """Inclusive cumulative sum restarting at each query."""
        c = np.cumsum(values, dtype=np.int64)
        before = np.concatenate(([0], c))[self.offsets[:-1]]
        return c - np.repeat(before, self.num_ret)

    def at_rank(self, cum: np.ndarray, k) -> np.ndarray:
        """Value of a per-query cumulative array at rank k (k >= 1); past the end, its last value."""
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.n_queries,))
        n = self.num_ret
        take = np.minimum(k, n)
        idx = self.offsets[:-1] + take - 1
        out = np.zeros(self.n_queries, dtype=cum.dtype)
        ok = take > 0
        out[ok] = cum[idx[ok]]
        return out

    def first_pos(self, mask: np.ndarray) -> np.ndarray:
        """0-based rank of the first True per query, or -1."""
        idx = np.flatnonzero(mask)
        out = np.full(self.n_queries, -1, dtype=np.int64)
        if len(idx):
            s = self.seg[idx]
            first = np.concatenate(([True], s[1:] != s[:-1]))
            out[s[first]] = self.pos[idx[first]]
        return out


def _byte_sorted_unique(values: pa.Array) -> list[str]:
    return pc.unique(values).sort().to_pylist()


def prepare(
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
) -> tuple[Ranking, list[str]]:
    """Rank ``run`` per query (score desc, docno desc) and look up each document's judgment.

    Returns the ranking and the qrels topics that have no results (ignored
    unless ``complete``, in which case they are kept with no documents).
    """
    qrels_topics = _byte_sorted_unique(qrels.query)
    run_topics = set(pc.unique(run.query).to_pylist())
    absent = [q for q in qrels_topics if q not in run_topics]
    topics = qrels_topics if complete else [q for q in qrels_topics if q in run_topics]
    topic_set = pa.array(topics, pa.string())
    n_q = len(topics)

    # Results of evaluated queries only: queries without judgments are ignored.
    run_q = pc.index_in(run.query, value_set=topic_set)
    keep = pc.is_valid(run_q)
    rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
    table = pa.table({
        "q": run_q.filter(keep),
        "s": pa.array(run.score).filter(keep),
        "d": run.doc.filter(keep),
    })
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")])
    order = order.to_numpy()
    q_sorted = table.column("q").to_numpy()[order].astype(np.int64) if len(order) else np.empty(0, np.int64)
    counts = np.bincount(q_sorted, minlength=n_q)
    if max_docs is not None:
        starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
        rank = np.arange(len(q_sorted)) - np.repeat(starts, counts)
        within = rank < max_docs
        order, q_sorted = order[within], q_sorted[within]
        counts = np.bincount(q_sorted, minlength=n_q)

    # Join with the qrels through integer keys: (query index, document code).
    doc_sorted = table.column("d").take(pa.array(order)) if len(order) else pa.array([], pa.string())
    doc_enc = pc.dictionary_encode(doc_sorted.combine_chunks() if isinstance(doc_sorted, pa.ChunkedArray) else doc_sorted)
    n_docs = max(len(doc_enc.dictionary), 1)
    run_keys = q_sorted * n_docs + doc_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)

    qr_q = pc.index_in(qrels.query, value_set=topic_set)
    qr_q_np = qr_q.to_numpy(zero_copy_only=False)
    qr_valid = pc.is_valid(qr_q).to_numpy(zero_copy_only=False)
    qr_q_np = np.where(qr_valid, np.nan_to_num(qr_q_np.astype(np.float64), nan=0), 0).astype(np.int64)
    qr_d = pc.index_in(qrels.doc, value_set=doc_enc.dictionary)
    qr_d_valid = pc.is_valid(qr_d).to_numpy(zero_copy_only=False)
    qr_d_np = np.nan_to_num(qr_d.to_numpy(zero_copy_only=False).astype(np.float64), nan=0).astype(np.int64)
    joinable = qr_valid & qr_d_valid
    qr_keys = qr_q_np[joinable] * n_docs + qr_d_np[joinable]
    qr_rel = qrels.rel[joinable]
    key_order = np.argsort(qr_keys, kind="stable")
    qr_keys, qr_rel = qr_keys[key_order], qr_rel[key_order]
    rel = np.full(len(run_keys), NONPOOL, dtype=np.int64)
    if len(qr_keys):
        at = np.searchsorted(qr_keys, run_keys)
        at_clipped = np.minimum(at, len(qr_keys) - 1)
        hit = qr_keys[at_clipped] == run_keys
        found = qr_rel[at_clipped[hit]]
        rel[hit] = np.where(found < 0, UNJUDGED, found)

    # Judged documents per grade, over the whole qrels of each evaluated query.
    graded = qr_valid & (qrels.rel >= 0)
    max_grade = int(qrels.rel[graded].max()) if graded.any() else 0
    if max_grade >= _MAX_GRADE:
        raise EvalInputError(qrels.source, f"relevance grade {max_grade} is too large (at most {_MAX_GRADE - 1})")
    n_levels = max_grade + 1
    rel_levels = np.bincount(qr_q_np[graded] * n_levels + qrels.rel[graded], minlength=n_q * n_levels)
    rel_levels = rel_levels.reshape(n_q, n_levels).astype(np.int64)

    run_rows = rows[order] if len(order) else np.empty(0, np.int64)
    if judged_only:
        judged = rel >= 0
        rel, run_rows, q_sorted = rel[judged], run_rows[judged], q_sorted[judged]
        counts = np.bincount(q_sorted, minlength=n_q)

    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    missing = np.array([q not in run_topics for q in topics], dtype=bool)
    ranking = Ranking(
        query_ids=np.array(topics, dtype=object),
        offsets=offsets,
        rel=rel,
        rel_levels=rel_levels,
        missing=missing,
        relevance_level=relevance_level,
        num_docs_in_coll=num_docs_in_coll,
        run_rows=run_rows,
    )
    return ranking, ([] if complete else absent)
