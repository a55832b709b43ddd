"""ir_measures' measures that trec_eval lacks: Compat (Clarke et al.) and Accuracy; and the helpers behind
the ``judged_only=`` and ``gains=`` arguments (the parser is :mod:`evalgui.core.ranked.specs`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from evalgui.core.ranked.measure_base import ParamKind, _powers, _register, gains_for, safe_div
from evalgui.core.ranked.ranking import Ranking


def judged_view(r: Ranking) -> Ranking:
    """The ranking without its unjudged documents (trec_eval -J, ir_measures' judged_only=True)."""
    keep = r.rel >= 0
    if keep.all():
        return r
    seg = np.repeat(np.arange(r.n_queries), r.num_ret)[keep]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(seg, minlength=r.n_queries)))).astype(np.int64)
    return replace(r, offsets=offsets, rel=r.rel[keep], run_rows=None if r.run_rows is None else r.run_rows[keep])


def ndcg_cut_with_gains(r: Ranking, cutoffs, pairs) -> np.ndarray:
    """nDCG@k with level=gain pairs, as pytrec_eval computes ndcg_cut on qrels whose grades were mapped."""
    g = gains_for(r, pairs)
    terms = g.dcg_terms()
    out = []
    for k in cutoffs:
        dcg = g.docs.sum(terms, g.docs.pos < k)
        idcg = g.ideal_dcg_at(np.full(r.n_queries, k))
        out.append(np.where(idcg > 0, safe_div(dcg, idcg), dcg))
    return np.column_stack(out)


def _options(params):
    values = [p for p in params if not isinstance(p, tuple)]
    return values, {p[0]: p[1] for p in params if isinstance(p, tuple)}


@_register("compat", "Gain", ParamKind.DOUBLE_PARAMS, (0.95,), trec_eval=False, ir_name="Compat(p=0.95)",
           description="Compatibility (Clarke, Vtyurina and Smucker): how close the ranking is to an ideal ranking of "
                       "the relevant documents (best grade first; among equal grades, retrieved documents first, in "
                       "the run's order), measured by rank-biased overlap with persistence p (default 0.95), and "
                       "divided by the ideal ranking's overlap with itself (Compat(normalize=False) in ir_measures "
                       "syntax leaves that out).",
           formula="RBO = sum_{d<D} p^(d-1) |ranking_{<=d} & ideal_{<=d}|/d / sum_{d<D} p^(d-1), D = max(|ranking|, "
                   "|ideal|); Compat = RBO(ranking, ideal) / RBO(ideal, ideal)")
def _compat(r, params):
    values, options = _options(params)
    p = float(options.get("p", values[0] if values else 0.95))
    normalize = bool(options.get("normalize", True))
    n_levels = r.rel_levels.shape[1]
    n_ideal = r.rel_levels[:, 1:].sum(axis=1)
    depth = np.maximum(r.num_ret, n_ideal)
    # F[d] = sum_{j<d} p^j/(j+1): a document first in both prefixes at depth m adds F[D] - F[m].
    powers = _powers(p, int(depth.max(initial=0)))
    F = np.concatenate(([0.0], np.cumsum(powers / np.arange(1.0, len(powers) + 1))))
    G = np.concatenate(([0.0], np.cumsum(powers)))
    j = r.judged
    grade = r.rel[j.idx]
    rel = grade > 0
    docs, grade = j.subset(rel), grade[rel]
    # Ideal position: documents of a better grade, then the retrieved ones of its grade ranked above it.
    better = np.cumsum(r.rel_levels[:, ::-1], axis=1)[:, ::-1]           # better[q, g] = docs of grade >= g
    above = np.concatenate((better[:, 1:], np.zeros((r.n_queries, 1), np.int64)), axis=1)   # grade > g
    key = docs.seg.astype(np.int64) * n_levels + grade
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.searchsorted(sorted_key, sorted_key, side="left")
    same_before = np.empty(len(key), dtype=np.int64)
    same_before[order] = np.arange(len(key)) - first
    ideal_pos = above[docs.seg, grade] + same_before
    m = np.maximum(docs.pos, ideal_pos)
    num = docs.sum(F[depth[docs.seg]] - F[m])
    if not normalize:
        return np.column_stack([safe_div(num, G[depth])])
    best = n_ideal * F[depth] - np.concatenate(([0.0], np.cumsum(F)))[n_ideal]
    return np.column_stack([np.where(best > 0, safe_div(num, best), safe_div(num, G[depth]))])


@_register("accuracy", "Precision", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False, ir_name="Accuracy@k",
           description="Accuracy (ir_measures, for diagnosis): the chance that a relevant document among the first k "
                       "is ranked above a non-relevant one among the first k (Accuracy without @k: the whole "
                       "ranking). 1 when no non-relevant document is there; 0 when no relevant one is (ir_measures "
                       "leaves such a query out).",
           formula="Accuracy@k = 1 - sum_{relevant d in top k} |non-relevant above d| / (|relevant| * |non-relevant|)")
def _accuracy(r, params):
    values, _ = _options(params)
    rp = r.relevant
    out = []
    for k in values:
        k = int(k) if k > 0 else int(r.num_ret.max(initial=0))
        inside = rp.pos < k
        m = rp.sum(inside.astype(np.float64))
        nonrel = np.minimum(r.num_ret, k) - m
        before = rp.sum(rp.pos - (rp.running_count() - 1.0), inside)
        value = 1.0 - safe_div(before, nonrel * m)
        out.append(np.where(m > 0, value, 0.0))
    return np.column_stack(out)
