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

from evalgui.core.data import MAX_GRADE, Qrels, Run, grade_problem
from evalgui.core.arrow import codes_of, index_in, string_array, to_numpy
from evalgui.core.errors import EvalInputError

NONPOOL = -1
UNJUDGED = -2


def segmented_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sums restarting at each segment (``offsets``: n + 1 bounds), each added up from 0.0 in order,
    bit for bit as a loop per segment: a global cumsum less the total before the segment is off in the
    last bits (enough to flip a 4-decimal mean that ends in 5). One numpy step per position, over the
    segments long enough to have it."""
    values = np.asarray(values, dtype=np.float64)
    out = np.empty(len(values))
    lengths = np.diff(offsets)
    if not len(values):
        return out
    if np.array_equal(values, np.trunc(values)):         # whole numbers (counts) add up exactly in any order
        total = np.cumsum(values)
        return total - np.repeat(np.concatenate(([0.0], total))[offsets[:-1]], lengths)
    order = np.argsort(-lengths, kind="stable")           # longest first: the active ones are a prefix
    starts, longest_first = offsets[:-1][order], lengths[order]
    active = np.searchsorted(-longest_first, -np.arange(int(longest_first[0])), side="left")   # lengths > position
    running = np.zeros(len(order))
    for position, n in enumerate(active.tolist()):
        at = starts[:n] + position
        running[:n] += values[at]
        out[at] = running[:n]
    return out


@dataclass(frozen=True, eq=False)
class Positions:
    """A sparse subset of the ranked documents (say, the relevant ones), in rank order.

    Most measures only look at judged or relevant documents, a few dozen per
    query, so they work on these subsets instead of every retrieved document.
    """

    idx: np.ndarray   # flat index into Ranking.rel
    seg: np.ndarray   # query index
    pos: np.ndarray   # 0-based rank within the query
    n_queries: int

    @classmethod
    def where(cls, mask: np.ndarray, offsets: np.ndarray) -> "Positions":
        idx = np.flatnonzero(mask)
        seg = np.searchsorted(offsets, idx, side="right") - 1
        return cls(idx, seg, idx - offsets[seg], len(offsets) - 1)

    @cached_property
    def starts(self) -> np.ndarray:
        return np.searchsorted(self.seg, np.arange(self.n_queries + 1))

    @cached_property
    def counts(self) -> np.ndarray:
        return np.diff(self.starts)

    def sum(self, values, mask=None) -> np.ndarray:
        """Per-query sum, accumulated in rank order (as trec_eval does)."""
        w = np.asarray(values, dtype=np.float64)
        if mask is not None:
            w = np.where(mask, w, 0.0)
        return np.bincount(self.seg, weights=np.broadcast_to(w, self.seg.shape), minlength=self.n_queries)

    def count_top(self, k) -> np.ndarray:
        """How many of the subset rank within the first k (k: a number or one per query)."""
        k = np.asarray(k)
        limit = k[self.seg] if k.ndim else k
        return np.bincount(self.seg[self.pos < limit], minlength=self.n_queries)

    def running_count(self) -> np.ndarray:
        """1 for each query's first member, 2 for the second..."""
        return np.arange(len(self.idx)) - self.starts[self.seg] + 1

    def cumsum(self, values) -> np.ndarray:
        """Inclusive cumulative sum restarting at each query, added up as trec_eval does (see segmented_cumsum)."""
        return segmented_cumsum(np.broadcast_to(np.asarray(values, dtype=np.float64), self.seg.shape), self.starts)

    def first_pos(self) -> np.ndarray:
        """Rank (0-based) of each query's first member, -1 if none."""
        out = np.full(self.n_queries, -1, dtype=np.int64)
        has = self.counts > 0
        out[has] = self.pos[self.starts[:-1][has]]
        return out

    def subset(self, mask: np.ndarray) -> "Positions":
        return Positions(self.idx[mask], self.seg[mask], self.pos[mask], self.n_queries)


@dataclass(frozen=True, eq=False)
class Ranking:
    query_ids: np.ndarray          # (n_q,) object: evaluated queries in trec_eval order (byte order)
    offsets: np.ndarray            # (n_q + 1,) int64: where each query's ranked documents start
    rel: np.ndarray                # (N,) int64: judgment code of each ranked document
    rel_levels: np.ndarray         # (n_q, L) int64: judged documents per grade 0..L-1 (whole qrels)
    missing: np.ndarray            # (n_q,) bool: query has no results (only with complete=True)
    relevance_level: int = 1
    num_docs_in_coll: int = 0
    # (N,) row of each ranked doc in the run (-1: -c's placeholder). Within a tie group whose documents
    # are all judged alike the rows may be in any order (no measure can tell): see tie_order.
    run_rows: np.ndarray | None = field(default=None, repr=False)
    # What was ranked, for measures that read more than the grades (the diversity measures' subtopics).
    qrels: Qrels | None = field(default=None, repr=False)
    run: Run | None = field(default=None, repr=False)
    # The diversity measures' order (ndeval's choice): "score" (-traditional, as above) or "rank" (the rank column).
    diversity_order: str = "score"

    # ------------------------------------------------------------ shape
    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    # ------------------------------------------------------------ relevance at the chosen level
    @cached_property
    def num_rel(self) -> np.ndarray:
        lvl = max(self.relevance_level, 0)
        return self.rel_levels[:, lvl:].sum(axis=1) if lvl < self.rel_levels.shape[1] else np.zeros(self.n_queries, np.int64)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return self.relevant.counts

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """One more than the highest grade judged for each query (0 if none)."""
        nonzero = self.rel_levels > 0
        last = self.rel_levels.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1)
        return np.where(nonzero.any(axis=1), last + 1, 0)

    @cached_property
    def judged(self) -> Positions:
        """Ranked documents with a judgment (grade >= 0)."""
        return Positions.where(self.rel >= 0, self.offsets)

    @cached_property
    def pooled(self) -> Positions:
        """Ranked documents in the qrels: judged, or listed with a negative grade (unjudged)."""
        return Positions.where(self.rel != NONPOOL, self.offsets)

    @cached_property
    def relevant(self) -> Positions:
        """Ranked documents judged relevant at the relevance level."""
        j = self.judged
        return j.subset(self.rel[j.idx] >= self.relevance_level)

    def with_level(self, relevance_level: int) -> "Ranking":
        """The same ranking judged at another relevance level (cheap: arrays are shared)."""
        if relevance_level == self.relevance_level:
            return self
        return replace(self, relevance_level=relevance_level)


def _file_order(run_q: np.ndarray, scores: np.ndarray) -> np.ndarray | slice | None:
    """The ranking order when the run lists each query's documents together by strictly descending
    score (the usual layout): the query blocks put in topic order, no sort (``slice(None)`` if
    already in order). None if the run is not laid out so."""
    if not len(run_q):
        return None
    same_q = run_q[1:] == run_q[:-1]
    if not (~same_q | (scores[1:] < scores[:-1])).all():
        return None
    starts = np.concatenate(([0], np.flatnonzero(~same_q) + 1))
    block_q = run_q[starts]
    if len(np.unique(block_q)) != len(block_q):
        return None  # a query in two places
    perm = np.argsort(block_q)
    if (perm == np.arange(len(perm))).all():
        return slice(None)
    lengths = np.diff(np.concatenate((starts, [len(run_q)])))[perm]
    new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.arange(len(run_q)) + np.repeat(starts[perm] - new_starts, lengths)


# The document trec_eval ranks alone for a judged query without results when -c is given.
PLACEHOLDER_DOCNO = "ceci_nest_pas_un_docno"


def _high_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """``values`` (below 2**bits) moved to the top ``bits`` bits of a uint64."""
    out = values.astype(np.uint64)
    out <<= np.uint64(64 - bits)
    return out


def _score_order(run_q: np.ndarray, scores: np.ndarray, n_q: int) -> np.ndarray:
    """Rows by query (ascending), then score (descending); ties in any order.

    One numeric sort on a uint64 per row: the query code in the top bits, then the score's bits
    made to sort descending, less as many low bits as the query code took. Rows that lose their
    order to those dropped bits (scores equal but for the last bits of the mantissa) are put back
    in score order afterwards. No string is compared.

    While the query, the row number and 24 bits of the score fit in 64 bits, the row number goes
    in the lowest bits and the keys themselves are sorted: numpy sorts numbers with SIMD, several
    times faster than it sorts indices (argsort).
    """
    n = len(scores)
    q_bits = max(int(n_q - 1).bit_length(), 1)
    row_bits = max(int(n - 1).bit_length(), 1)
    if q_bits > 32:   # (millions of queries) two passes instead
        by_score = np.argsort(scores)[::-1]
        return by_score[np.argsort(run_q[by_score], kind="stable")]
    bits = np.ascontiguousarray(scores, dtype=np.float64).view(np.uint64)
    # Descending order as unsigned integers: negative scores keep their bits, the others are flipped.
    # Built in place, one temporary at a time: this runs on every row.
    key = ~bits
    key &= np.uint64(0x7FFF_FFFF_FFFF_FFFF)
    np.copyto(key, bits, where=bits >= np.uint64(1 << 63))
    if q_bits + row_bits <= 40:
        key >>= np.uint64(q_bits + row_bits)
        key <<= np.uint64(row_bits)
        key |= np.arange(n, dtype=np.uint64)
        key |= _high_bits(run_q, q_bits)
        key.sort()
        order = (key & np.uint64((1 << row_bits) - 1)).view(np.int64)
        key >>= np.uint64(row_bits)
    else:
        key >>= np.uint64(q_bits)
        key |= _high_bits(run_q, q_bits)
        order = np.argsort(key)
        key = key[order]
    same_key = key[1:] == key[:-1]
    del key
    if same_key.any():
        ordered = scores[order]
        if ((ordered[1:] != ordered[:-1]) & same_key).any():
            # Runs of equal keys, each sorted again by its exact scores (rare; -0.0 and 0.0 are equal).
            member = np.zeros(len(order), dtype=bool)
            member[1:] |= same_key
            member[:-1] |= same_key
            at = np.flatnonzero(member)
            run_id = np.cumsum(np.r_[True, ~same_key[at[1:] - 1]])
            order[at] = order[at][np.lexsort((-ordered[at], run_id))]
    return order


def _windows(data: np.ndarray, start: np.ndarray, length: np.ndarray, width: int, level: int) -> np.ndarray:
    """Bytes width*level .. width*level+width-1 of each docno as a big-endian number, zero-padded.

    Comparing these, window after window, is comparing the strings byte by byte (strcmp): a
    docno holds no NUL byte, so a shorter docno sorts before the longer one it begins.
    ``data`` is the docnos' bytes followed by 8 zero bytes, so every 8-byte read stays inside."""
    every_byte = np.ndarray((len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))   # a uint64 at each offset
    at = np.minimum(start + width * level, len(data) - 8)
    value = every_byte[at].astype(np.uint64) >> np.uint64(64 - 8 * width)
    missing = (width - np.clip(length - width * level, 0, width)).astype(np.uint64) * np.uint64(8)
    return value >> missing << missing     # bytes past the end of the docno read as 0


def _docno_descending(docs: pa.Array, group: np.ndarray) -> np.ndarray:
    """The permutation that sorts rows by ``group`` (dense ids from 0), then docno descending (byte order).

    One numeric sort per pass on (group, the next few bytes) packed in a uint64: the first pass
    settles nearly every group, and only rows still equal within their group read further."""
    large = pa.types.is_large_string(docs.type)
    offsets = np.frombuffer(docs.buffers()[1], dtype=np.int64 if large else np.int32, count=len(docs) + 1,
                            offset=docs.offset * (8 if large else 4)).astype(np.int64)
    raw = docs.buffers()[2]
    data = np.concatenate((np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.empty(0, np.uint8),
                           np.zeros(8, dtype=np.uint8)))
    start, length = offsets[:-1], np.diff(offsets)
    n = len(docs)
    width = max(1, (64 - max(int(n).bit_length(), 1)) // 8)   # bytes per pass, beside a group (or run) id
    shift, full = np.uint64(8 * width), np.uint64((1 << 8 * width) - 1)
    key = np.asarray(group, dtype=np.uint64)
    idx = np.arange(n)                       # the rows being sorted, in their current order
    slots = np.arange(n)                     # where in the result they go
    perm = np.empty(n, dtype=np.int64)
    level = 0
    while True:
        window = _windows(data, start[idx], length[idx], width, level)
        inner = np.argsort((key << shift) | (full - window))
        idx, key, window = idx[inner], key[inner], window[inner]
        perm[slots] = idx
        same = (key[1:] == key[:-1]) & (window[1:] == window[:-1])
        if not same.any():
            return perm
        unresolved = np.zeros(len(key), dtype=bool)
        unresolved[1:] |= same
        unresolved[:-1] |= same
        sub = np.flatnonzero(unresolved)
        key = np.cumsum(np.r_[True, ~same]).astype(np.uint64)[sub]   # one id per run still tied
        idx, slots = idx[sub], slots[sub]
        level += 1


_TIE_BATCH = 1 << 17   # tied rows whose docnos are compared together


def _break_ties_by_docno(order: np.ndarray, run_q: np.ndarray, scores: np.ndarray, rows: np.ndarray,
                         run: Run, codes: np.ndarray | None = None) -> np.ndarray:
    """Within each run of equal (query, score), put the larger docno (byte order) first, as trec_eval does.

    Only the tied rows' docnos are fetched and compared; everything else keeps its place.
    ``order`` is changed in place; ``rows`` maps its entries to run rows (None: the same).
    With ``codes`` (each row's judgment), a tie group whose rows are all judged alike is left
    as it is: no measure can tell its orders apart (see :func:`tie_order`, which restores the
    exact order of a few rows for display)."""
    ordered = scores[order]
    same = ordered[1:] == ordered[:-1]          # one array at a time: this runs on every row
    del ordered
    ordered = run_q[order]
    same &= ordered[1:] == ordered[:-1]
    del ordered
    if codes is not None and same.any():
        ordered = codes[order]
        # Keep the groups with two different judgments: a group is cut into runs of equal judgment,
        # so it is mixed exactly when one of its tied neighbours differs.
        group = np.cumsum(np.r_[True, ~same], dtype=np.int32 if len(order) < 2**31 else np.int64)
        mixed = np.zeros(int(group[-1]) + 1, dtype=bool)
        mixed[group[1:][same & (ordered[1:] != ordered[:-1])]] = True
        same &= mixed[group[1:]]
        del ordered, group, mixed
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    at = np.flatnonzero(tied)                   # positions in ``order`` of tied rows
    del tied
    # A tie group starts where a tied row is not tied to the one before it; dense ids 0, 1, 2...
    starts = np.flatnonzero(np.r_[True, ~same[at[1:] - 1]])
    del same
    # Whole groups a batch at a time: the docnos and sort keys of every tied row at once would add
    # about 100 bytes per tied row to the peak memory.
    first_after = np.searchsorted(starts, np.arange(0, len(at), _TIE_BATCH))   # a group start per batch
    cuts = np.unique(np.r_[starts[first_after[first_after < len(starts)]], len(at)])
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        part = at[a:b]
        first = np.zeros(b - a, dtype=bool)
        first[starts[(starts >= a) & (starts < b)] - a] = True
        group = np.cumsum(first) - 1
        run_rows = order[part] if rows is None else rows[order[part]]
        by_row = np.argsort(run_rows)
        docs = run.doc_codes.docnos(run_rows[by_row])   # fetched in ascending row order
        within = part[by_row][_docno_descending(docs, group[by_row])]
        order[part] = order[within]
    return order


def tie_order(scores: np.ndarray, docnos: pa.Array) -> np.ndarray:
    """The permutation putting some rows (one query's, say) in trec_eval's order: score descending,
    then docno descending (byte order). For display: :func:`prepare` leaves tie groups whose
    documents are all judged alike in any order."""
    table = pa.table({"s": pa.array(np.asarray(scores, dtype=np.float64)), "d": docnos.cast(pa.string())})
    return to_numpy(pc.sort_indices(table, sort_keys=[("s", "descending"), ("d", "descending")])).astype(np.int64)


def prepare(
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
    topics: list[str] | None = None,
    judgments_may_change: bool = False,
) -> tuple[Ranking, list[str]]:
    """Rank ``run`` per query (score desc, docno desc) and look up each document's judgment.

    The queries ranked are the qrels topics that have results (all qrels topics
    if ``complete``), or ``topics`` when given (judged or not, e.g. one query
    for a drill-down). Returns the ranking and the qrels topics that have no
    results (ignored unless ``complete``).

    With ``complete``, a topic without results is ranked, as trec_eval -c does,
    as one placeholder document (:data:`PLACEHOLDER_DOCNO`, not in the run);
    ``Ranking.missing`` marks those topics and ``Ranking.run_rows`` is -1 there.

    ``judgments_may_change``: tied documents judged alike are put in trec_eval's order too, so
    that the ranking stays exact when some of their judgments are removed afterwards.
    """
    qrels_topics = list(qrels.query_ids)
    run_topics = set(run.query_ids)
    absent = [q for q in qrels_topics if q not in run_topics]
    if topics is None:
        topics = qrels_topics if complete else [q for q in qrels_topics if q in run_topics]
    else:
        topics, absent = list(topics), []
    topic_set = string_array(topics)
    n_q = len(topics)

    # Query of each run row as an index into the evaluated topics (-1: no judgments, ignored).
    run_q = index_in(run.query.dictionary, topic_set, np.int32)[to_numpy(run.query.indices)]
    rows = None   # run row of each kept row; None while every row is kept (saves an index per row)
    if (run_q < 0).any():
        rows = np.flatnonzero(run_q >= 0)
        run_q, scores = run_q[rows], run.score[rows]
    else:
        scores = run.score
    # The qrels side of the join on (query index, qrels document index). Looking the run's docnos
    # up among the qrels' (few) docnos is cheaper than the other way round. The qrels' own
    # encodings are cached on the Qrels: only the small query-id map is made per run.
    qr_q = index_in(string_array(qrels_topics), topic_set)[qrels.query_codes] if len(qrels) else \
        np.empty(0, dtype=np.int64)
    qr_doc = qrels.doc_dictionary
    n_qdocs = max(len(qr_doc.dictionary), 1)
    qr_d = codes_of(qr_doc)
    joinable = qr_q >= 0
    qr_keys = qr_q[joinable] * n_qdocs + qr_d[joinable]
    key_order = np.argsort(qr_keys, kind="stable")
    qr_keys, qr_rel = qr_keys[key_order], qrels.rel[joinable][key_order]
    doc_codes = run.doc_codes
    qdoc_of_code = index_in(doc_codes.vocabulary, qr_doc.dictionary, np.int32)

    def judgment(keys: np.ndarray) -> np.ndarray:
        """The code of each (query, qrels doc) key: its grade, UNJUDGED, or NONPOOL if not in the qrels."""
        out = np.full(len(keys), NONPOOL, dtype=np.int64)
        if len(keys) and len(qr_keys):
            at = np.minimum(np.searchsorted(qr_keys, keys), len(qr_keys) - 1)
            hit = qr_keys[at] == keys
            out[hit] = np.where(qr_rel[at[hit]] < 0, UNJUDGED, qr_rel[at[hit]])
        return out

    row_rel = None   # each kept row's judgment, when found before the rows are ordered
    order = _file_order(run_q, scores)
    if order is None:
        order = _score_order(run_q, scores, n_q)
        # Judged before ordering (a judgment does not depend on the order), so that tie groups
        # judged alike keep their order; with -M the order decides which documents are kept.
        qdoc = qdoc_of_code[doc_codes.codes if rows is None else doc_codes.codes[rows]]
        cand = np.flatnonzero(qdoc >= 0)
        row_rel = np.full(len(run_q), NONPOOL, dtype=np.int16)   # grades fit: MAX_GRADE < 2**15
        row_rel[cand] = judgment(run_q[cand].astype(np.int64) * n_qdocs + qdoc[cand])
        del qdoc, cand
        codes = row_rel if max_docs is None else None
        if codes is not None and judgments_may_change:
            # every judged row a code of its own: a tie group holding two judged documents is ordered
            codes = np.where(row_rel >= 0, np.arange(len(row_rel)), row_rel.astype(np.int64))
        order = _break_ties_by_docno(order, run_q, scores, rows, run, codes)
    q_sorted = run_q[order]
    counts = np.bincount(q_sorted, minlength=n_q)
    if max_docs is not None:
        if isinstance(order, slice):
            order = np.arange(len(q_sorted))
        starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
        within = np.arange(len(q_sorted)) - np.repeat(starts, counts) < max_docs
        order, q_sorted = order[within], q_sorted[within]
        counts = np.bincount(q_sorted, minlength=n_q)
    if rows is None:
        run_rows = np.arange(len(run.score)) if isinstance(order, slice) else order
    else:
        run_rows = rows[order]
    in_file_order = isinstance(order, slice) and len(run_rows) == len(run.score)
    del run_q, scores

    if row_rel is not None:
        rel = row_rel[order].astype(np.int64)
        del row_rel
    else:   # rows already in rank order: judge them in that order
        rel = np.full(len(run_rows), NONPOOL, dtype=np.int64)
        cand = np.flatnonzero(qdoc_of_code[doc_codes.codes if in_file_order else doc_codes.codes[run_rows]] >= 0)
        if len(cand):
            rel[cand] = judgment(q_sorted[cand].astype(np.int64) * n_qdocs
                                 + qdoc_of_code[doc_codes.codes[run_rows[cand]]])

    missing = np.array([q not in run_topics for q in topics], dtype=bool)
    if missing.any() and (max_docs is None or max_docs > 0):
        # trec_eval -c ranks the placeholder document alone for each topic without results.
        miss = np.flatnonzero(missing)
        place = index_in(pa.array([PLACEHOLDER_DOCNO], pa.string()), qr_doc.dictionary)[0]
        codes = judgment(miss * n_qdocs + place) if place >= 0 else np.full(len(miss), NONPOOL, np.int64)
        at = np.searchsorted(q_sorted, miss)
        rel = np.insert(rel, at, codes)
        run_rows = np.insert(run_rows, at, -1)
        q_sorted = np.insert(q_sorted, at, miss.astype(q_sorted.dtype))
        counts = np.bincount(q_sorted, minlength=n_q)

    # Judged documents per grade, over the whole qrels of each evaluated query.
    graded = (qr_q >= 0) & (qrels.rel >= 0)
    max_grade = int(qrels.rel[graded].max()) if graded.any() else 0
    if max_grade > MAX_GRADE:   # the readers catch this with a line number; Qrels built in memory land here
        raise EvalInputError(qrels.source, grade_problem(max_grade))
    n_levels = max_grade + 1
    rel_levels = np.bincount(qr_q[graded] * n_levels + qrels.rel[graded], minlength=n_q * n_levels)
    rel_levels = rel_levels.reshape(n_q, n_levels).astype(np.int64)

    if judged_only:
        judged = rel >= 0
        rel, run_rows, q_sorted = rel[judged], run_rows[judged], q_sorted[judged]
        counts = np.bincount(q_sorted, minlength=n_q)

    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    ranking = Ranking(
        query_ids=np.array(topics, dtype=object),
        offsets=offsets,
        rel=rel,
        rel_levels=rel_levels,
        missing=missing,
        relevance_level=relevance_level,
        num_docs_in_coll=num_docs_in_coll,
        run_rows=run_rows,
        qrels=qrels,
        run=run,
    )
    return ranking, ([] if complete else absent)
