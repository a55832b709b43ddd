"""Novelty and diversity measures over subtopic qrels, value for value with ndeval (TREC Web track).

ndeval (Clarke et al.; ``ndeval.c`` 4.5, and its Python binding pyndeval) reads
judgments ``query subtopic doc grade`` and scores a ranking against every
subtopic at once. A document is relevant to a subtopic when its grade there
reaches the relevance level (ndeval: grade >= 1). For each query, S is the number
of subtopics with at least one relevant document (subtopics never judged
relevant are ignored), and the ``i``-th ranked document's gain is

    g_i = sum over the subtopics s it is relevant to of (1 - alpha)^c(s, i),

c(s, i) being how many documents ranked above it are relevant to s. From there:

- alpha-DCG@k = sum_{i<=k} g_i / log2(i+1), divided by the "ideal ideal"
  sum_{i<=k} S (1-alpha)^(i-1) / log2(i+1) (collection independent);
  alpha-nDCG@k divides alpha-DCG@k by that of the ideal ranking instead.
- ERR-IA@k: the same with the discount 1/i (ndeval's ERR-IA; binary grades);
  nERR-IA@k against the ideal ranking.
- NRBP = (1 - (1-alpha) beta) / S * sum_i g_i beta^(i-1); nNRBP against the ideal ranking.
- P-IA@k = sum_{i<=k} |subtopics d_i is relevant to| / (k S).
- MAP-IA = (1/S) sum_s AP_s, AP_s the average precision for subtopic s alone.
- StRecall@k = |subtopics covered by the first k documents| / S.

The ideal ranking is ndeval's greedy one: at each rank, the document of largest
gain given those above it, ties going to the larger docno (byte order). Gains that are
equal but were added up in another order (and so differ in the last bit) count as equal:
ndeval compares its float sums, added in subtopic order (the binary numbers subtopics by
their ids, pyndeval by first appearance), so at alpha other than 0.5 each of them may
break such a tie the other way, by rounding (alpha 0.5's gains add up exactly).

ndeval's own quirks, kept: @1 values of alpha-DCG and ERR-IA are not divided by
the ideal ideal (its normalisation loop starts at the second rank); alpha-nDCG@k
and nERR-IA@k are 0 wherever alpha-DCG@k is 0; a query without relevant
documents scores 0 everywhere but nNRBP, which is 0/0 (NaN) as in pyndeval.

The ranking is evalgui's (score descending, then docno descending: ndeval's
``-traditional``), or with ``EvalOptions(diversity_order="rank")`` the run's rank
column (ndeval's default; a rank given twice for a query is an input error, as
there); trec_eval's ``-c`` (every qrels query, 0 where no results) is ndeval's
``-c``. On plain qrels (no subtopics) each query is one subtopic.

All queries are done at once: the subtopic judgments of ranked documents are a
sparse list sorted by (query, rank, subtopic), reduced with ``np.bincount`` and
cumulative sums; the greedy ideal ranking is built one rank at a time for all
queries together.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.arrow import index_in, string_array, to_numpy
from evalgui.core.ranked.measure_base import REGISTRY, ParamKind, _powers, _register, col, safe_div
from evalgui.core.ranked.ranking import NONPOOL, Ranking

ALPHA = 0.5
BETA = 0.5
CUTOFFS = (5, 10, 20)   # ndeval's
GROUP = "Diversity"
IR_NAMES = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall")
IR_ALIASES = {"MAP_IA": "AP_IA"}     # ir_measures' other spelling


# --------------------------------------------------------------------------- subtopic judgments

def _subtopic_order(ids: list[str]) -> list[str]:
    """ndeval numbers subtopics; ids that are all whole numbers sort as numbers, others as text."""
    if all(s.isascii() and s.isdigit() for s in ids):
        return sorted(ids, key=lambda s: (int(s), s))
    return sorted(ids)


@dataclass(frozen=True)
class Judgments:
    """Relevant (query, subtopic, doc) triples of the evaluated queries, at one relevance level."""
    query: np.ndarray      # query index (into the ranking's queries)
    subtopic: np.ndarray   # subtopic index, dense over all subtopics, in ndeval's order within a query
    doc: pa.Array          # docno
    n_subtopics: int
    actual: np.ndarray     # (n_q,) S: subtopics with a relevant document
    n_rel_sub: np.ndarray  # (n_subtopics,) relevant documents per subtopic


def _judgments(r: Ranking) -> Judgments:
    qrels = r.qrels
    topics = string_array([str(q) for q in r.query_ids])
    level = r.relevance_level
    lines = getattr(qrels, "lines", None)
    if lines is None:   # plain qrels: one subtopic per query
        query, doc, rel = qrels.query, qrels.doc, qrels.rel
        sub = pa.array(np.zeros(len(rel), dtype=np.int64)).cast(pa.string())
    else:
        query, sub, doc = (lines.column(c).combine_chunks() for c in ("query", "subtopic", "doc"))
        rel = to_numpy(lines.column("rel"))
    q = index_in(query, topics)
    keep = np.flatnonzero((q >= 0) & (rel >= level))
    q = q[keep]
    sub = sub.take(pa.array(keep))
    doc = doc.take(pa.array(keep))
    names = _subtopic_order(pc.unique(sub).to_pylist())
    s_code = index_in(sub, string_array(names))
    # One subtopic index per (query, subtopic), ordered by query then ndeval's subtopic order.
    pair = q * max(len(names), 1) + s_code
    distinct, s_dense = np.unique(pair, return_inverse=True)
    n_sub = len(distinct)
    n_rel_sub = np.bincount(s_dense, minlength=n_sub)
    actual = np.bincount(distinct // max(len(names), 1), minlength=r.n_queries) if n_sub else \
        np.zeros(r.n_queries, dtype=np.int64)
    return Judgments(q, s_dense.astype(np.int64), doc, n_sub, actual, n_rel_sub)


@dataclass(frozen=True)
class Hits:
    """Ranked documents' relevance to subtopics: one entry per (query, rank, subtopic), in that order."""
    query: np.ndarray
    pos: np.ndarray        # 0-based rank
    subtopic: np.ndarray   # dense subtopic index


def _sort_entries(query, pos, sub):
    order = np.lexsort((sub, pos, query))
    return query[order], pos[order], sub[order]


def _run_hits(r: Ranking, j: Judgments) -> Hits:
    """Join the ranked documents that may be relevant with the subtopic judgments."""
    level = r.relevance_level
    maybe = (r.rel >= level) if level > 0 else (r.rel != NONPOOL)
    if r.run_rows is not None:
        maybe &= r.run_rows >= 0        # not trec_eval -c's placeholder
    at = np.flatnonzero(maybe)
    seg = np.searchsorted(r.offsets, at, side="right") - 1
    rows = r.run_rows[at]
    by_row = np.argsort(rows, kind="stable")
    docs = r.run.doc_codes.docnos(rows[by_row])
    # Keys query-index + NUL + docno, for the ranked candidates and the relevant triples.
    ranked_keys = pc.binary_join_element_wise(pa.array(seg[by_row]).cast(pa.string()), docs, "\x00")
    judged_keys = pc.binary_join_element_wise(pa.array(j.query).cast(pa.string()), j.doc, "\x00")
    where = index_in(judged_keys, ranked_keys)
    found = where >= 0
    flat = at[by_row][where[found]]
    query = seg[by_row][where[found]]
    pos = flat - r.offsets[query] if r.diversity_order != "rank" else _positions_by_rank(r)[flat]
    return Hits(*_sort_entries(query, pos, j.subtopic[found]))


_RANKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def run_ranks(run) -> np.ndarray:
    """The rank column of a TREC run file, one per run row (read again: evalgui ranks by score)."""
    import os

    from evalgui.core.errors import EvalInputError, EvalUsageError
    from evalgui.core.formats import _text, trec

    found = _RANKS.get(run)
    if found is not None:
        return found
    source = run.source
    if not os.path.isfile(source):
        raise EvalUsageError(f"ndeval's rank order reads the rank column of a TREC run file; {run.name} has none")
    data = _text.load_bytes(source)
    table = trec._fast_table(data, 6, {3: pa.int64()})
    if table is not None and table.num_rows == len(run):
        ranks = to_numpy(table.column("c3")).astype(np.int64)
    else:
        ranks = []
        for lineno, tok in _text.iter_content_lines(data, source):
            if len(tok) < 6 or not tok[3].isdigit():
                raise EvalInputError(source, f"ndeval's rank order needs a whole number in the rank column "
                                             f"({trec.RUN_LAYOUT})", lineno)
            ranks.append(int(tok[3]))
        ranks = np.asarray(ranks, dtype=np.int64)
        if len(ranks) != len(run):
            raise EvalInputError(source, "ndeval's rank order reads the rank column of a TREC run file")
    _RANKS[run] = ranks
    return ranks


def _positions_by_rank(r: Ranking) -> np.ndarray:
    """(N,) each ranked document's 0-based place in its query when sorted by the run's rank column (ndeval)."""
    from evalgui.core.errors import EvalInputError

    ranks = run_ranks(r.run)
    rows = r.run_rows
    rank_of = np.where(rows >= 0, ranks[np.maximum(rows, 0)], np.iinfo(np.int64).min)   # -c's placeholder first
    seg = np.repeat(np.arange(r.n_queries), r.num_ret)
    order = np.lexsort((rank_of, seg))
    same = (seg[order][1:] == seg[order][:-1]) & (rank_of[order][1:] == rank_of[order][:-1])
    if same.any():
        at = order[int(np.argmax(same))]
        raise EvalInputError(r.run.source, f"rank {rank_of[at]} is given twice for query {r.query_ids[seg[at]]} "
                                           f"(ndeval's rank order needs each rank once per query)")
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order)) - r.offsets[seg[order]]
    return pos


def _ideal_hits(r: Ranking, j: Judgments, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking: each query's gains by ideal rank, as (n_q, depth) and its depth.

    One step per rank for all queries together: every unplaced relevant document's gain given the
    documents placed above it, the largest taken (ties: the larger docno)."""
    n_q = r.n_queries
    if not len(j.query):
        return np.zeros((n_q, 0)), np.zeros(n_q, dtype=np.int64)
    # Candidate documents: distinct (query, doc), ordered by query then docno descending (the tie winner first).
    key_table = pa.table({"q": pa.array(j.query), "d": j.doc})
    cand = key_table.group_by(["q", "d"], use_threads=False).aggregate([])
    cand = cand.sort_by([("q", "ascending"), ("d", "descending")])
    cand_q = to_numpy(cand.column("q").combine_chunks()).astype(np.int64)
    cand_keys = pc.binary_join_element_wise(cand.column("q").cast(pa.string()), cand.column("d"), "\x00")
    judged_keys = pc.binary_join_element_wise(pa.array(j.query).cast(pa.string()), j.doc, "\x00")
    e_doc = index_in(judged_keys, cand_keys.combine_chunks() if isinstance(cand_keys, pa.ChunkedArray)
                     else cand_keys)
    order = np.lexsort((j.subtopic, e_doc))       # entries by document, subtopics in ndeval's order
    e_doc, e_sub = e_doc[order], j.subtopic[order]
    n_c = len(cand_q)
    starts = np.searchsorted(cand_q, np.arange(n_q + 1))
    depth = np.diff(starts)
    has = np.flatnonzero(depth > 0)
    gain = np.ones(j.n_subtopics)
    placed = np.zeros(n_c, dtype=bool)
    out = np.zeros((n_q, int(depth.max())))
    index = np.arange(n_c)
    entry_starts = np.searchsorted(e_doc, np.arange(n_c + 1))
    keep = 1.0 - alpha
    for step in range(int(depth.max())):
        active = has[depth[has] > step]
        score = np.bincount(e_doc, weights=gain[e_sub], minlength=n_c)
        score[placed] = -np.inf
        # A segment runs on to the next active query's start; the finished queries between hold only
        # placed candidates (-inf), so neither the maximum nor the first best changes.
        best = np.maximum.reduceat(score, starts[active])
        # the first candidate (the largest docno) reaching its query's best
        marks = np.full(n_q, np.inf)
        marks[active] = best
        best_of = marks[cand_q]
        is_best = score == best_of
        first = np.minimum.reduceat(np.where(is_best, index, n_c), starts[active])
        near = ~is_best & (score >= best_of * (1.0 - _NEAR))      # gains >= 0; placed ones are -inf
        if near.any():
            _settle_near_ties(first, near, is_best, starts[active], entry_starts, e_sub, gain)
        out[active, step] = score[first]
        placed[first] = True
        chosen = np.zeros(n_c, dtype=bool)
        chosen[first] = True
        gain[np.unique(e_sub[chosen[e_doc]])] *= keep
    return out, depth


# A candidate's gain is its subtopics' gains added in subtopic order (ndeval's arithmetic), so two
# documents whose gains are equal may differ in the last bit by the order they were added in
# (0.7 + 0.49 + 0.49 against 0.49 + 0.49 + 0.7). Gains this close to the best are added again in one order.
_NEAR = 1e-9


def _settle_near_ties(first: np.ndarray, near: np.ndarray, is_best: np.ndarray, seg_starts: np.ndarray,
                      entry_starts: np.ndarray, e_sub: np.ndarray, gain: np.ndarray) -> None:
    """Where candidates come within _NEAR of their query's best (``near``) without equalling it, choose
    again (in place in ``first``, one entry per segment) among those and the best, each one's subtopic
    gains added from the smallest up: documents with the same gains then have the same sum, whatever
    their subtopics' order, and ndeval's rule for equal gains decides (the first candidate: the larger
    docno). ``entry_starts``: where each candidate's entries start in ``e_sub``."""
    near_at = np.flatnonzero(near)
    involved = np.unique(np.searchsorted(seg_starts, near_at, side="right") - 1)
    best_at = np.flatnonzero(is_best)
    best_at = best_at[np.isin(np.searchsorted(seg_starts, best_at, side="right") - 1, involved)]
    cands = np.sort(np.r_[near_at, best_at])
    seg = np.searchsorted(seg_starts, cands, side="right") - 1
    lengths = entry_starts[cands + 1] - entry_starts[cands]
    owner = np.repeat(np.arange(len(cands)), lengths)
    pos = np.repeat(entry_starts[cands] - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))
    gains = gain[e_sub[pos]]
    order = np.lexsort((gains, owner))
    exact = np.bincount(owner[order], weights=gains[order], minlength=len(cands))
    new = np.r_[True, seg[1:] != seg[:-1]]
    bounds, group = np.flatnonzero(new), np.cumsum(new) - 1
    top = np.maximum.reduceat(exact, bounds)
    chosen = np.minimum.reduceat(np.where(exact == top[group], np.arange(len(cands)), len(cands)), bounds)
    first[seg[bounds]] = cands[chosen]


# --------------------------------------------------------------------------- per-rank gains

def _hit_gains(hits: Hits, n_sub: int, alpha: float) -> np.ndarray:
    """(1 - alpha)^c for each entry, c = the entries above it for the same subtopic (repeated products)."""
    if not len(hits.query):
        return np.zeros(0)
    by_sub = np.lexsort((hits.pos, hits.subtopic))
    s = hits.subtopic[by_sub]
    first = np.r_[True, s[1:] != s[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(s)), 0))
    count = np.arange(len(s)) - start
    powers = _powers(1.0 - alpha, int(count.max(initial=0)))
    out = np.empty(len(s))
    out[by_sub] = powers[count]
    return out


def _rank_scores(query: np.ndarray, pos: np.ndarray, weights: np.ndarray, n_q: int, depth: int) -> np.ndarray:
    """Sum of ``weights`` per (query, rank) for ranks below ``depth``: an (n_q, depth) matrix, entries added
    in subtopic order."""
    inside = pos < depth
    flat = query[inside] * depth + pos[inside]
    return np.bincount(flat, weights=weights[inside], minlength=n_q * depth).reshape(n_q, depth)


def _discounts(depth: int, kind: str) -> np.ndarray:
    i = np.arange(depth, dtype=np.float64)
    return np.log(2.0) / np.log(i + 2.0) if kind == "dcg" else 1.0 / (i + 1.0)


def _normalised_cumulative(scores: np.ndarray, actual: np.ndarray, alpha: float, kind: str) -> np.ndarray:
    """ndeval's computeDCG / computeERR on an (n_q, depth) gain matrix: cumulative discounted gain divided,
    from the second rank on, by the "ideal ideal" S (1-alpha)^(i-1) discounted and summed."""
    n_q, depth = scores.shape
    disc = _discounts(depth, kind)
    cum = np.cumsum(scores * disc, axis=1)
    ideal_gain = np.empty((n_q, depth))
    ideal_gain[:, 0] = actual
    ideal_gain[:, 1:] = 1.0 - alpha
    ideal = np.cumsum(np.cumprod(ideal_gain, axis=1) * disc, axis=1)
    cum[:, 1:] /= np.where(ideal[:, 1:] != 0, ideal[:, 1:], 1.0)
    cum[actual == 0] = 0.0
    return cum


def _nrbp(query: np.ndarray, pos: np.ndarray, gains: np.ndarray, actual: np.ndarray, alpha: float, beta: float,
          n_q: int) -> np.ndarray:
    """ndeval's computeNRBP: sum of per-rank gains times beta^rank, in rank order, times (1-(1-alpha)beta)/S."""
    if len(query):
        # per-rank gain first (subtopics in order), then the decayed ranks summed in rank order
        rank_key = query * (int(pos.max()) + 1) + pos
        uniq, at = np.unique(rank_key, return_inverse=True)
        per_rank = np.bincount(at, weights=gains, minlength=len(uniq))
        rq = uniq // (int(pos.max()) + 1)
        rp = uniq % (int(pos.max()) + 1)
        decay = _powers(beta, int(rp.max()))
        total = np.bincount(rq, weights=per_rank * decay[rp], minlength=n_q)
    else:
        total = np.zeros(n_q)
    factor = (1.0 - (1.0 - alpha) * beta) / np.where(actual > 0, actual, 1)
    return np.where(actual > 0, total * factor, 0.0)


# --------------------------------------------------------------------------- one evaluation, cached

@dataclass
class _Diversity:
    r: Ranking
    j: Judgments
    hits: Hits
    _ideal: dict


_CACHE: "weakref.WeakKeyDictionary[Ranking, _Diversity]" = weakref.WeakKeyDictionary()


def diversity_view(r: Ranking) -> _Diversity:
    found = _CACHE.get(r)
    if found is None:
        if r.qrels is None or r.run is None:
            from evalgui.core.errors import EvalUsageError

            # e.g. the meta-evaluation's robustness, which removes judgments from the ranking alone
            raise EvalUsageError("the diversity measures (alpha_nDCG, ERR_IA...) read the subtopic judgments, "
                                 "which this computation does not keep; choose other measures for it")
        j = _judgments(r)
        found = _Diversity(r, j, _run_hits(r, j), {})
        _CACHE[r] = found
    return found


def _ideal(v: _Diversity, alpha: float) -> np.ndarray:
    if alpha not in v._ideal:
        v._ideal[alpha] = _ideal_hits(v.r, v.j, alpha)[0]
    return v._ideal[alpha]


def _split(params: tuple) -> tuple[list[int], dict]:
    cutoffs = [p for p in params if not isinstance(p, tuple)]
    settings = dict(p for p in params if isinstance(p, tuple))
    return cutoffs, settings


def _cumulative_at(v: _Diversity, cutoffs, alpha: float, kind: str, normalised: bool) -> np.ndarray:
    n_q, depth = v.r.n_queries, max(cutoffs)
    gains = _hit_gains(v.hits, v.j.n_subtopics, alpha)
    scores = _rank_scores(v.hits.query, v.hits.pos, gains, n_q, depth)
    run = _normalised_cumulative(scores, v.j.actual, alpha, kind)
    if normalised:
        ideal_scores = _ideal(v, alpha)
        padded = np.zeros((n_q, depth))
        width = min(depth, ideal_scores.shape[1])
        padded[:, :width] = ideal_scores[:, :width]
        ideal = _normalised_cumulative(padded, v.j.actual, alpha, kind)
        dcg = run if kind == "dcg" else _normalised_cumulative(scores, v.j.actual, alpha, "dcg")
        # ndeval's renormalize: only where the run's alpha-DCG is not 0
        run = np.where(dcg != 0, run / np.where(ideal != 0, ideal, 1.0), 0.0)
    return np.column_stack([run[:, k - 1] for k in cutoffs])


# --------------------------------------------------------------------------- the measures

_DEF = dict(trec_eval=False)


@_register("alpha_DCG", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="alpha_DCG(alpha=0.5)@k", **_DEF,
           description="alpha-DCG at k (Clarke et al., SIGIR 2008), as ndeval computes it: each document gains "
                       "(1-alpha)^c for every subtopic it is relevant to, c being how many documents above it already "
                       "covered that subtopic; gains are discounted by log2(rank+1), summed to k and divided by the "
                       "best conceivable sum, S subtopics all covered at every rank (collection independent). "
                       "Needs subtopic qrels. alpha defaults to 0.5.",
           formula="alpha-DCG@k = sum_{i<=k} g_i/log2(i+1) / sum_{i<=k} S(1-alpha)^(i-1)/log2(i+1), "
                   "g_i = sum_s rel(d_i,s) (1-alpha)^c(s,i)")
def _alpha_dcg(r, params):
    cutoffs, settings = _split(params)
    return _cumulative_at(diversity_view(r), cutoffs, settings.get("alpha", ALPHA), "dcg", False)


@_register("alpha_nDCG", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="alpha_nDCG(alpha=0.5)@k", **_DEF,
           description="alpha-nDCG at k (Clarke et al., SIGIR 2008), as ndeval computes it: alpha-DCG@k divided by "
                       "that of an ideal ranking, built greedily (at each rank the document adding most gain; ties to "
                       "the larger docno). Rewards covering many subtopics early and penalises redundancy. Needs "
                       "subtopic qrels. alpha defaults to 0.5.",
           formula="alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k(ideal ranking)")
def _alpha_ndcg(r, params):
    cutoffs, settings = _split(params)
    return _cumulative_at(diversity_view(r), cutoffs, settings.get("alpha", ALPHA), "dcg", True)


@_register("ERR_IA", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="ERR_IA@k", **_DEF,
           description="Intent-aware expected reciprocal rank at k (Chapelle et al., CIKM 2009), as ndeval computes "
                       "it with binary grades: alpha-DCG's gains discounted by 1/rank instead of 1/log2(rank+1), "
                       "divided by the best conceivable sum (collection independent). Needs subtopic qrels.",
           formula="ERR-IA@k = sum_{i<=k} g_i/i / sum_{i<=k} S(1-alpha)^(i-1)/i, alpha = 0.5")
def _err_ia(r, params):
    cutoffs, settings = _split(params)
    return _cumulative_at(diversity_view(r), cutoffs, settings.get("alpha", ALPHA), "err", False)


@_register("nERR_IA", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="nERR_IA@k", **_DEF,
           description="Intent-aware ERR at k normalised by the ideal ranking's (ndeval's nERR-IA; collection "
                       "dependent). Needs subtopic qrels.",
           formula="nERR-IA@k = ERR-IA@k / ERR-IA@k(ideal ranking)")
def _nerr_ia(r, params):
    cutoffs, settings = _split(params)
    return _cumulative_at(diversity_view(r), cutoffs, settings.get("alpha", ALPHA), "err", True)


def _nrbp_of(r, params, normalised: bool):
    _, settings = _split(params)
    alpha, beta = settings.get("alpha", ALPHA), settings.get("beta", BETA)
    v = diversity_view(r)
    gains = _hit_gains(v.hits, v.j.n_subtopics, alpha)
    value = _nrbp(v.hits.query, v.hits.pos, gains, v.j.actual, alpha, beta, r.n_queries)
    if normalised:
        ideal_scores = _ideal(v, alpha)
        n_q, depth = ideal_scores.shape
        q = np.repeat(np.arange(n_q), depth)
        p = np.tile(np.arange(depth), n_q)
        w = ideal_scores.ravel()
        nz = w != 0
        ideal = _nrbp(q[nz], p[nz], w[nz], v.j.actual, alpha, beta, n_q)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = value / ideal       # 0/0 (no relevant document): NaN, as ndeval
    return col(value)


@_register("NRBP", GROUP, ir_name="NRBP(alpha=0.5,beta=0.5)", **_DEF,
           description="Novelty- and rank-biased precision (Clarke et al., ICTIR 2009), as ndeval computes it: "
                       "alpha-DCG's gains over the whole ranking with rank-biased precision's discount beta^(rank-1) "
                       "(beta: the user's patience), scaled by (1-(1-alpha)beta)/S. Needs subtopic qrels.",
           formula="NRBP = (1-(1-alpha)beta)/S * sum_i g_i beta^(i-1)")
def _nrbp_kernel(r, params):
    return _nrbp_of(r, params, False)


@_register("nNRBP", GROUP, ir_name="nNRBP(alpha=0.5,beta=0.5)", **_DEF,
           description="NRBP divided by the ideal ranking's NRBP (collection dependent). Undefined for a query "
                       "without relevant documents, as in ndeval. Needs subtopic qrels.",
           formula="nNRBP = NRBP / NRBP(ideal ranking)")
def _nnrbp_kernel(r, params):
    return _nrbp_of(r, params, True)


@_register("AP_IA", GROUP, ir_name="AP_IA", **_DEF,
           description="Intent-aware average precision (ndeval's MAP-IA): average precision computed for each "
                       "subtopic alone, averaged over the S subtopics with a relevant document. Needs subtopic qrels.",
           formula="AP-IA = (1/S) sum_s (1/R_s) sum_{i : d_i relevant to s} |{j<=i : d_j relevant to s}| / i")
def _ap_ia(r, params):
    v = diversity_view(r)
    h = v.hits
    n_q = r.n_queries
    if not len(h.query):
        return col(np.zeros(n_q))
    by_sub = np.lexsort((h.pos, h.subtopic))
    s = h.subtopic[by_sub]
    first = np.r_[True, s[1:] != s[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(s)), 0))
    count = (np.arange(len(s)) - start + 1).astype(np.float64)
    total = np.bincount(s, weights=count / (h.pos[by_sub] + 1.0), minlength=v.j.n_subtopics)
    sub_q = np.zeros(v.j.n_subtopics, dtype=np.int64)
    sub_q[v.j.subtopic] = v.j.query
    per_sub = total / np.maximum(v.j.n_rel_sub, 1)
    summed = np.bincount(sub_q, weights=per_sub, minlength=n_q)   # subtopics in order within a query
    return col(safe_div(summed, v.j.actual))


@_register("P_IA", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="P_IA@k", **_DEF,
           description="Intent-aware precision at k (Agrawal et al., WSDM 2009; ndeval's P-IA): precision at k for "
                       "each subtopic, averaged over the S subtopics with a relevant document. Needs subtopic qrels.",
           formula="P-IA@k = sum_{i<=k} |subtopics d_i is relevant to| / (k S)")
def _p_ia(r, params):
    cutoffs, _ = _split(params)
    v = diversity_view(r)
    out = [safe_div(np.bincount(v.hits.query[v.hits.pos < k], minlength=r.n_queries),
                    float(k) * v.j.actual) for k in cutoffs]
    return np.column_stack(out)


@_register("StRecall", GROUP, ParamKind.LONG_CUTOFFS, CUTOFFS, ir_name="StRecall@k", **_DEF,
           description="Subtopic recall at k (Zhai et al., SIGIR 2003; ndeval's strec): the fraction of the S "
                       "subtopics covered by the first k documents. Needs subtopic qrels.",
           formula="StRecall@k = |{s : some d_i, i<=k, is relevant to s}| / S")
def _strecall(r, params):
    cutoffs, _ = _split(params)
    v = diversity_view(r)
    h = v.hits
    first_pos = np.full(v.j.n_subtopics, np.iinfo(np.int64).max)
    np.minimum.at(first_pos, h.subtopic, h.pos)
    sub_q = np.zeros(v.j.n_subtopics, dtype=np.int64)
    sub_q[v.j.subtopic] = v.j.query
    out = [safe_div(np.bincount(sub_q[first_pos < k], minlength=r.n_queries), v.j.actual.astype(np.float64))
           for k in cutoffs]
    return np.column_stack(out)


NAMES = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall")
NDEVAL_NAMES = {"alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
                "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA", "StRecall": "strec"}


# --------------------------------------------------------------------------- ir_measures spellings

def ir_params(spec: str, name: str, args: dict, cutoff: str | None):
    """The record and parameters for ``alpha_nDCG(alpha=0.3)@10``, ``NRBP(alpha=0.5,beta=0.8)``, ``AP_IA``...
    (ir_measures' spellings; ``rel=`` is taken out by the caller)."""
    from evalgui.core.errors import EvalUsageError

    measure = REGISTRY[name]
    takes = {"alpha_DCG": ("alpha",), "alpha_nDCG": ("alpha",), "NRBP": ("alpha", "beta"),
             "nNRBP": ("alpha", "beta")}.get(name, ())
    settings = []
    for key in takes:
        if key in args:
            text = args.pop(key)
            try:
                value = float(text)
            except ValueError:
                raise EvalUsageError(f"'{spec}': {key} '{text}' is not a number") from None
            if not 0.0 <= value <= 1.0:   # 1 is allowed: alpha = 1 ignores repeats, beta = 1 never decays
                raise EvalUsageError(f"'{spec}': {key} must be from 0 to 1, not {text}")
            settings.append((key, value))
    if args:
        raise EvalUsageError(f"'{spec}': unknown argument(s) {', '.join(sorted(args))} for {name}")
    if measure.kind is ParamKind.LONG_CUTOFFS:
        if cutoff is None:
            raise EvalUsageError(f"'{spec}': {name} needs a cutoff, e.g. {name}@10")
        try:
            k = int(cutoff)
        except ValueError:
            raise EvalUsageError(f"'{spec}': the cutoff '{cutoff}' is not a whole number") from None
        if k <= 0:
            raise EvalUsageError(f"'{spec}': the cutoff must be positive")
        return measure, (k, *settings)
    if cutoff is not None:
        raise EvalUsageError(f"'{spec}': {name} takes no cutoff")
    return measure, tuple(settings)


def subtopic_warning(qrels, requests) -> str | None:
    """One warning when measures and judgments do not fit: ordinary measures on subtopic qrels (they use each
    document's highest grade), or diversity measures on plain qrels (each query is then one subtopic)."""
    from evalgui.core.subtopics import MAX_GRADE_WARNING

    diverse = [req.measure.name in NAMES for req in requests]
    if getattr(qrels, "lines", None) is not None:
        return MAX_GRADE_WARNING if not all(diverse) else None
    if any(diverse):
        return "plain qrels (no subtopics): the diversity measures take each query as one subtopic"
    return None
