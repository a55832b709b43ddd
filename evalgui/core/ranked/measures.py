"""Every ranked-retrieval measure: name, parameters, plain-language help, formula, kernel.

The registry is ordered as trec_eval 10.0 prints its measures. Each kernel
takes a :class:`~evalgui.core.ranked.ranking.Ranking` (all queries at once) and
the measure's parsed parameters, and returns an ``(n_queries, n_values)``
array: one column per cutoff or parameter value. Kernels use numpy segment
operations over sparse subsets of the ranking (the judged or relevant
documents); none loops over queries or documents.

Where trec_eval 10.0 would divide by zero (e.g. relative_P for a query with no
relevant documents) and print ``nan``, the kernels return 0.
"""

from __future__ import annotations

import numpy as np

from evalgui.core.ranked.ranking import NONPOOL, UNJUDGED, Positions, Ranking, segmented_cumsum
from evalgui.core.ranked.measure_base import (  # noqa: F401  (re-exported: the registry's interface)
    ParamKind,
    params_text,
    Measure,
    _register,
    col,
    safe_div,
    lround,
    segment_suffix_max,
    _powers,
    rel_in_top,
    precision_at,
    average_precision,
    bpref_values,
    interpolated_precision,
    Gains,
    _gain_pairs,
    gains_for,
    _value_before,
    MIN_GEO_MEAN,
    NAN,
    INFAP_EPSILON,
    DEFAULT_CUTOFFS,
    RECALL_POINTS,
    _PARAMETER_HELP,
    REGISTRY)


# ---------------------------------------------------------------------------
# The measures, in trec_eval's order
# ---------------------------------------------------------------------------

@_register("runid", "Counts", aggregate="none", value_type="text", per_query=False,
           description="The run's name as given in its last line (the tag column).",
           formula="tag field of the last line of the run file")
def _runid(r, params):
    return np.zeros((r.n_queries, 1))


@_register("num_q", "Counts", aggregate="count", value_type="int", per_query=False, ir_name="NumQ",
           description="Number of queries evaluated.",
           formula="|Q|")
def _num_q(r, params):
    return np.ones((r.n_queries, 1))


@_register("num_ret", "Counts", aggregate="sum", value_type="int", ir_name="NumRet",
           description="Number of documents retrieved for the query. The summary is the total over queries.",
           formula="|ranking|")
def _num_ret(r, params):
    return col(r.num_ret)


@_register("num_rel", "Counts", aggregate="sum", value_type="int", ir_name="NumRel",
           description="Number of relevant documents for the query, retrieved or not. The summary is the total.",
           formula="R = |{d : rel(d) >= level}|")
def _num_rel(r, params):
    return col(r.num_rel)


@_register("num_rel_ret", "Counts", aggregate="sum", value_type="int", ir_name="NumRelRet",
           description="Number of relevant documents retrieved. The summary is the total.",
           formula="|{d in ranking : rel(d) >= level}|")
def _num_rel_ret(r, params):
    return col(r.num_rel_ret)


@_register("map", "Average precision", ir_name="AP",
           description="Average precision: precision measured at the rank of each relevant document, averaged over "
                       "all relevant documents (unretrieved ones count as zero). The summary is the mean over queries "
                       "(MAP), the main single-number measure of a whole ranking.",
           formula="AP = (1/R) * sum_{k : d_k relevant} P@k")
def _map(r, params):
    return col(average_precision(r))


@_register("gm_map", "Average precision", aggregate="gmean", per_query=False,
           description="Geometric mean of average precision over queries. Rewards systems that are consistent over "
                       "queries rather than very good on some and very poor on others. Reported only as a summary.",
           formula="GMAP = exp(mean_q log(max(AP_q, 0.00001)))")
def _gm_map(r, params):
    return col(average_precision(r))


@_register("Rprec", "Precision", ir_name="Rprec",
           description="Precision after R documents, where R is the number of relevant documents. It is the point "
                       "where precision equals recall.",
           formula="R-prec = |relevant in top R| / R")
def _rprec(r, params):
    k = np.minimum(r.num_ret, r.num_rel)
    return col(np.where(k > 0, safe_div(rel_in_top(r, k), r.num_rel), 0.0))


@_register("bpref", "Incomplete judgments", ir_name="Bpref",
           description="Binary preference: for each relevant retrieved document, the fraction of judged non-relevant "
                       "documents (among the first R) ranked above it is subtracted from one; averaged over R. "
                       "Unjudged documents are ignored, so it is robust to incomplete judgments.",
           formula="bpref = (1/R) * sum_{r relevant retrieved} (1 - min(|n ranked above r|, R) / min(N, R))")
def _bpref(r, params):
    return col(bpref_values(r))


@_register("recip_rank", "Precision", ir_name="RR",
           description="Reciprocal rank of the first relevant document retrieved (0 if none).",
           formula="RR = 1 / rank of first relevant document")
def _recip_rank(r, params):
    first = r.relevant.first_pos()
    return col(np.where(first >= 0, safe_div(1.0, first + 1.0), 0.0))


@_register("iprec_at_recall", "Precision-recall curve", ParamKind.DOUBLE_CUTOFFS, RECALL_POINTS, ir_name="IPrec@r",
           description="Interpolated precision at recall levels: the highest precision reached at or after the rank "
                       "where the given fraction of relevant documents has been retrieved. These are the points of "
                       "the standard 11-point precision-recall curve.",
           formula="IPrec(r) = max_{k : recall@k >= r} P@k   (cut at the lround(r*R)-th relevant document)")
def _iprec(r, params):
    return interpolated_precision(r, params)


@_register("P", "Precision", ParamKind.LONG_CUTOFFS, DEFAULT_CUTOFFS, ir_name="P@k",
           description="Precision at k: the fraction of the first k documents that are relevant. Missing documents "
                       "below the end of a short ranking count as non-relevant.",
           formula="P@k = |relevant in top k| / k")
def _p(r, params):
    return np.column_stack([precision_at(r, k) for k in params])


@_register("relstring", "Counts", ParamKind.DOUBLE_PARAMS, (10.0,), aggregate="none", value_type="text",
           description="The judgments of the first N documents as a string: the grade (0-9), '>' above 9, '-' not in "
                       "the qrels, '.' in the pool but unjudged, '<' other negative grades. Per query only.",
           formula="char(rel(d_1)) ... char(rel(d_N))")
def _relstring(r, params):
    return np.zeros((r.n_queries, 1))


@_register("recall", "Recall", ParamKind.LONG_CUTOFFS, DEFAULT_CUTOFFS, ir_name="R@k",
           description="Recall at k: the fraction of all relevant documents found in the first k.",
           formula="R@k = |relevant in top k| / R")
def _recall(r, params):
    return np.column_stack([safe_div(rel_in_top(r, k), r.num_rel) for k in params])


@_register("infAP", "Incomplete judgments", ir_name="infAP",
           description="Inferred average precision (Yilmaz and Aslam): estimates AP when only a random sample of the "
                       "pool was judged. Documents in the pool but unjudged (negative grades) are assumed relevant in "
                       "the same proportion as the judged ones; documents outside the pool count as non-relevant.",
           formula="infAP = (1/R) * sum_{k relevant} [1/k + ((k-1)/k) * (|pooled above k|/(k-1)) * "
                   "((rel_above + eps)/(rel_above + nonrel_above + 2 eps))]")
def _infap(r, params):
    pooled = r.pooled
    grade = r.rel[pooled.idx]
    level = r.relevance_level
    is_rel = grade >= max(level, 0)
    rel_before = pooled.cumsum(is_rel) - 1.0
    nonrel_before = pooled.cumsum((grade >= 0) & ~is_rel)
    unjudged_before = pooled.cumsum(grade == UNJUDGED)
    j = pooled.pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_before + nonrel_before + unjudged_before) / j)
                * ((rel_before + INFAP_EPSILON) / (rel_before + nonrel_before + 2 * INFAP_EPSILON)))
    term = np.where(pooled.pos == 0, 1.0, term)
    return col(safe_div(pooled.sum(term, is_rel), r.num_rel))


@_register("gm_bpref", "Incomplete judgments", aggregate="gmean", per_query=False,
           description="Geometric mean of bpref over queries. Reported only as a summary.",
           formula="exp(mean_q log(max(bpref_q, 0.00001)))")
def _gm_bpref(r, params):
    return col(bpref_values(r))


@_register("Rprec_mult", "Precision", ParamKind.DOUBLE_CUTOFFS, (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
           description="Precision at multiples of R: precision after m*R documents (m*R+0.9 truncated), to tell "
                       "precision-oriented methods (good at low multiples) from recall-oriented ones.",
           formula="Rprec_mult(m) = P@floor(m*R + 0.9)")
def _rprec_mult(r, params):
    out = []
    for m in params:
        c = np.floor(m * r.num_rel.astype(np.float64) + 0.9).astype(np.int64)
        out.append(np.where(c > 0, safe_div(rel_in_top(r, c), c), 0.0))
    return np.column_stack(out)


@_register("utility", "Set", ParamKind.DOUBLE_PARAMS, (1.0, -1.0, 0.0, 0.0),
           description="Set utility: a weighted sum of the contingency table. By default +1 for each relevant "
                       "retrieved document and -1 for each non-relevant one. Parameters a,b,c,d weigh relevant "
                       "retrieved, non-relevant retrieved, relevant missed, non-relevant not retrieved (the last "
                       "needs the collection size, option -N).",
           formula="utility = a*relret + b*(ret-relret) + c*(R-relret) + d*(N + relret - ret - R)")
def _utility(r, params):
    a, b, c, d = params
    relret = r.num_rel_ret.astype(np.float64)
    ret = r.num_ret.astype(np.float64)
    R = r.num_rel.astype(np.float64)
    return col(a * relret + b * (ret - relret) + c * (R - relret) + d * (r.num_docs_in_coll + relret - ret - R))


@_register("11pt_avg", "Precision-recall curve", ParamKind.DOUBLE_PARAMS, RECALL_POINTS,
           description="Interpolated precision averaged over the 11 standard recall levels 0.0, 0.1, ... 1.0 (or the "
                       "levels given). An older estimate of the area under the precision-recall curve.",
           formula="11pt_avg = mean_{r in levels} IPrec(r)")
def _11pt(r, params):
    return col(interpolated_precision(r, params).mean(axis=1))


@_register("binG", "Gain",
           description="Binary G (experimental): each relevant document contributes 1/log2(2 + number of "
                       "non-relevant documents ranked above it); summed and divided by R.",
           formula="binG = (1/R) * sum_{d relevant} 1/log2(2 + nonrel_above(d))")
def _bing(r, params):
    rp = r.relevant
    term = 1.0 / np.log2(3.0 + rp.pos - rp.running_count())
    return col(np.where(r.num_rel_ret > 0, safe_div(rp.sum(term), r.num_rel), 0.0))


@_register("G", "Gain", ParamKind.PAIRS, (),
           description="Normalised gain G (experimental): combines qualities of AP and nDCG. A document at rank i "
                       "contributes gain/log2(2 + ideal cost so far - gain so far); the sum is divided by the total "
                       "ideal gain. Gains default to the grade; override with level=gain pairs.",
           formula="G = sum_i g_i / log2(2 + sum_{j<=i} max(g*_j,1) - sum_{j<=i} g_j) / sum g*")
def _g(r, params):
    g = gains_for(r, params)
    docs = g.docs
    # Ideal cost up to rank i: one per rank, plus (ideal gain - 1) where the ideal gain exceeds 1.
    extra = np.where(g.ideal >= 1.0, g.ideal - 1.0, 0.0)
    extra_cum = segmented_cumsum(extra, g.ideal_offsets)
    n_ideal = g.ideal_len()
    k = np.minimum(docs.pos + 1, n_ideal[docs.seg])
    extra_here = np.zeros(len(k))
    ok = k > 0
    extra_here[ok] = extra_cum[g.ideal_offsets[:-1][docs.seg[ok]] + k[ok] - 1]
    cost = (docs.pos + 1.0) + extra_here
    with np.errstate(divide="ignore", invalid="ignore"):
        term = g.gain / np.log2(2.0 + cost - docs.cumsum(g.gain))
    sum_ideal = np.bincount(np.repeat(np.arange(r.n_queries), n_ideal), weights=g.ideal, minlength=r.n_queries)
    return col(np.where(sum_ideal > 0, safe_div(docs.sum(term), sum_ideal), 0.0))


@_register("dcg", "Gain", ParamKind.PAIRS, (),
           description="Discounted cumulative gain over the whole ranking, not normalised: each document's gain (its "
                       "grade by default; override with level=gain pairs) discounted by log2(rank+1). nDCG's "
                       "numerator; its scale depends on how many relevant documents a query has.",
           formula="DCG = sum_i g_i/log2(i+1)")
def _dcg(r, params):
    g = gains_for(r, params)
    return col(g.dcg())


@_register("ideal_dcg", "Gain", ParamKind.PAIRS, (), better=None,
           description="The DCG of an ideal ranking: every judged document with positive gain, best gain first. "
                       "nDCG's denominator; a property of the qrels, not of the run.",
           formula="IDCG = sum_i g*_i/log2(i+1), g* sorted best first")
def _ideal_dcg(r, params):
    g = gains_for(r, params)
    return col(g.ideal_dcg())


@_register("ndcg", "Gain", ParamKind.PAIRS, (), ir_name="nDCG",
           description="Normalised discounted cumulative gain (Jarvelin and Kekalainen) over the whole ranking: "
                       "each document's gain (its grade by default; override with level=gain pairs) is discounted by "
                       "log2(rank+1) and the sum is divided by the same sum for an ideal ranking.",
           formula="nDCG = sum_i g_i/log2(i+1) / sum_i g*_i/log2(i+1)")
def _ndcg(r, params):
    g = gains_for(r, params)
    return col(safe_div(g.dcg(), g.ideal_dcg()))


@_register("ndcg_rel", "Gain", ParamKind.PAIRS, (),
           description="nDCG averaged over relevant documents (experimental): nDCG is measured at the rank of each "
                       "document with positive gain; relevant documents not retrieved count with the final nDCG.",
           formula="ndcg_rel = (1/|rel|) * [sum_{i: g_i>0} nDCG@i + (|rel| - |rel ret|) * nDCG]")
def _ndcg_rel(r, params):
    g = gains_for(r, params)
    docs = g.docs
    n_ideal = g.ideal_len()
    dcg_here = docs.cumsum(g.dcg_terms())
    k = np.minimum(docs.pos + 1, n_ideal[docs.seg])
    idcg_here = np.zeros(len(k))
    ok = k > 0
    idcg_here[ok] = g.ideal_cum_dcg[g.ideal_offsets[:-1][docs.seg[ok]] + k[ok] - 1]
    positive = g.gain > 0
    partial = docs.sum(safe_div(dcg_here, idcg_here), positive)
    missed = n_ideal - docs.sum(positive)
    total = partial + missed * safe_div(docs.sum(g.dcg_terms()), g.ideal_dcg_at(n_ideal))
    return col(np.where((total > 0) & (n_ideal > 0), safe_div(total, n_ideal), 0.0))


@_register("Rndcg", "Gain", ParamKind.PAIRS, (),
           description="nDCG averaged at the R-levels (experimental): nDCG is measured where the ideal ranking moves "
                       "from one gain level to the next, and once more at the end of the ranking.",
           formula="Rndcg = mean over ideal gain-change ranks p of DCG@min(p,|ranking|) / IDCG@p")
def _rndcg(r, params):
    g = gains_for(r, params)
    n_ideal = g.ideal_len()
    dcg_cum = g.docs.cumsum(g.dcg_terms())
    # Change points p >= 1: the ideal gain at p differs from that at p-1 (gain 0 past the end).
    iq = np.repeat(np.arange(r.n_queries), n_ideal)
    ipos = np.arange(len(g.ideal)) - np.repeat(g.ideal_offsets[:-1], n_ideal)
    nxt = np.zeros(len(g.ideal))
    not_last = ipos < n_ideal[iq] - 1
    nxt[not_last] = g.ideal[np.flatnonzero(not_last) + 1]
    use = (g.ideal != nxt) & (g.ideal_cum_dcg > 0)
    p = ipos[use] + 1
    dcg_p = _value_before(g.docs, dcg_cum, iq[use], np.minimum(p, r.num_ret[iq[use]]))
    sums = np.bincount(iq[use], weights=dcg_p / g.ideal_cum_dcg[use], minlength=r.n_queries)
    counts = np.bincount(iq[use], minlength=r.n_queries).astype(np.float64)
    # trec_eval adds the end of the ranking as a last point when it lies past the ideal ranking.
    idcg_total = g.ideal_dcg_at(n_ideal)
    extra = (r.num_ret > n_ideal + 1) & (idcg_total > 0)
    sums = sums + np.where(extra, safe_div(g.dcg(), idcg_total), 0.0)
    counts = counts + extra
    # No point counted (no positive ideal gain, e.g. -l 0 with only grade-0 judgments): trec_eval's 0/0.
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(r.num_rel > 0, np.where(counts > 0, sums / counts, NAN), 0.0))


@_register("ndcg_cut", "Gain", ParamKind.LONG_CUTOFFS, DEFAULT_CUTOFFS, ir_name="nDCG@k",
           description="nDCG at cutoff k: discounted cumulative gain of the first k documents divided by that of an "
                       "ideal ranking's first k. Gains are the grades in the qrels.",
           formula="nDCG@k = sum_{i<=k} rel_i/log2(i+1) / sum_{i<=k} rel*_i/log2(i+1)")
def _ndcg_cut(r, params):
    g = gains_for(r, ())  # gain = grade; ideal = judged documents of grade >= 1
    terms = g.dcg_terms()
    out = []
    for k in params:
        dcg = g.docs.sum(terms, g.docs.pos < k)
        idcg = g.ideal_dcg_at(np.full(r.n_queries, k))
        out.append(np.where(idcg > 0, safe_div(dcg, idcg), dcg))
    return np.column_stack(out)


@_register("map_cut", "Average precision", ParamKind.LONG_CUTOFFS, DEFAULT_CUTOFFS, ir_name="AP@k",
           description="Average precision counting only the first k documents (relevant documents below k add "
                       "nothing); still divided by all R relevant documents.",
           formula="AP@k = (1/R) * sum_{i<=k, d_i relevant} P@i")
def _map_cut(r, params):
    return np.column_stack([average_precision(r, cutoff=k) for k in params])


@_register("relative_P", "Precision", ParamKind.LONG_CUTOFFS, DEFAULT_CUTOFFS,
           description="Relative precision at k: precision at k divided by the best precision possible at k, i.e. "
                       "precision up to R and recall after R.",
           formula="relative_P@k = |relevant in top k| / min(k, R)")
def _relative_p(r, params):
    return np.column_stack([safe_div(rel_in_top(r, k), np.minimum(k, r.num_rel)) for k in params])


@_register("success", "Precision", ParamKind.LONG_CUTOFFS, (1, 5, 10), ir_name="Success@k",
           description="Success at k: 1 if at least one relevant document is in the first k, else 0.",
           formula="Success@k = [|relevant in top k| > 0]")
def _success(r, params):
    return np.column_stack([(rel_in_top(r, k) > 0).astype(np.float64) for k in params])


@_register("set_P", "Set", ir_name="SetP",
           description="Set precision: the fraction of all retrieved documents that are relevant (ranking ignored).",
           formula="SetP = relret / ret")
def _set_p(r, params):
    return col(safe_div(r.num_rel_ret, r.num_ret))


@_register("set_relative_P", "Set",
           description="Relative set precision: set precision divided by the best possible for a set of this size.",
           formula="relret / min(ret, R)")
def _set_relative_p(r, params):
    return col(safe_div(r.num_rel_ret, np.minimum(r.num_ret, r.num_rel)))


@_register("set_recall", "Set", ir_name="SetR",
           description="Set recall: the fraction of all relevant documents that were retrieved.",
           formula="SetR = relret / R")
def _set_recall(r, params):
    return col(safe_div(r.num_rel_ret, r.num_rel))


@_register("set_map", "Set",
           description="Unranked set MAP: set precision times set recall.",
           formula="set_map = relret^2 / (ret * R)")
def _set_map(r, params):
    return col(safe_div(r.num_rel_ret.astype(np.float64) * r.num_rel_ret, r.num_ret.astype(np.float64) * r.num_rel))


@_register("set_F", "Set", ParamKind.DOUBLE_PARAMS, (1.0,), ir_name="SetF",
           description="Set F-measure: the weighted harmonic mean of set precision and set recall; the parameter x "
                       "is the relative importance of recall (default 1, the F1 score).",
           formula="F = (x+1) * P * R / (x*P + R)")
def _set_f(r, params):
    x = params[0]
    P = safe_div(r.num_rel_ret, r.num_ret)
    R = safe_div(r.num_rel_ret, r.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):  # x < 0 can make x*P + R zero: trec_eval's nan
        return col(np.where(r.num_rel_ret > 0, (x + 1.0) * P * R / (x * P + R), 0.0))


@_register("num_nonrel_judged_ret", "Counts", aggregate="sum", value_type="int",
           description="Number of retrieved documents judged non-relevant. The summary is the total.",
           formula="|{d in ranking : 0 <= rel(d) < level}|")
def _num_nonrel_judged_ret(r, params):
    return col(r.judged.counts - r.num_rel_ret)


@_register("yaap", "Average precision",
           description="Yet another average precision (Robertson): a smoothed, log-odds form of AP that averages "
                       "better over queries and handles extreme values; monotonic with AP on one query. Can be "
                       "negative.",
           formula="yaap = log((1 + S) / (1 + R - S)), S = sum_{k : d_k relevant} P@k")
def _yaap(r, params):
    found = r.relevant
    precision_sum = found.sum(found.running_count() / (found.pos + 1.0))
    return col(np.log((1.0 + precision_sum) / (1.0 + r.num_rel - precision_sum)))


@_register("rbp", "Gain", ParamKind.PAIRS, (), ir_name="RBP(p=0.9)",
           description="Rank-biased precision (Moffat and Zobel): the expected gain per document for a user who goes "
                       "on to the next document with probability p (default 0.9; set with p=...). Gains are scaled to "
                       "[0, 1] per query when they fall outside it.",
           formula="RBP = (1-p) * sum_i g_i * p^(i-1)")
def _rbp(r, params):
    p = 0.9
    for name, value in params:
        if name == "p":
            p = float(value)
    g = gains_for(r, params, normalise_01=True)
    powers = _powers(p, int(g.docs.pos.max(initial=0)))
    return col((1.0 - p) * g.docs.sum(g.gain * powers[g.docs.pos]))


@_register("rbp_resid", "Incomplete judgments", ParamKind.PAIRS, (), better=None,
           description="RBP residual: the most RBP could still rise if every unjudged retrieved document (and every "
                       "document past the end of the ranking) were relevant; p = 0.9 (set with p=...). Zero when all are "
                       "judged.",
           formula="resid = p^|ranking| + (1-p) * sum_{i unjudged} p^(i-1)")
def _rbp_resid(r, params):
    p = 0.9
    for name, value in params:
        if name == "p":
            p = float(value)
    powers = _powers(p, int(r.num_ret.max(initial=0)))
    unjudged = Positions.where(r.rel < 0, r.offsets)
    # Added up in rank order, as trec_eval does: all ranks' mass less the judged ones' is off in the last bit.
    unjudged_mass = unjudged.sum(powers[unjudged.pos])
    has_unjudged = unjudged.counts > 0
    return col(np.where(has_unjudged, powers[r.num_ret] + (1.0 - p) * unjudged_mass, 0.0))


@_register("unj", "Incomplete judgments", ParamKind.LONG_CUTOFFS, (5, 10, 20), better=None,
           description="Unjudged at k: the fraction of the first k documents that are not judged (absent from the "
                       "qrels or judged with a negative grade). A red flag: high values mean the qrels cover the run "
                       "poorly.",
           formula="unj@k = |unjudged in top k| / k")
def _unj(r, params):
    return np.column_stack([(np.minimum(k, r.num_ret) - r.judged.count_top(k)) / float(k) for k in params])


# --- measures beyond trec_eval, for the ir_measures names and the tutorial ---

@_register("judged", "Incomplete judgments", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False, ir_name="Judged@k",
           better=None,
           description="Judged at k: the fraction of the first k retrieved documents that appear in the qrels "
                       "(with any grade, negative ones included), as ir_measures computes it: a ranking shorter "
                       "than k is divided by its own length.",
           formula="Judged@k = |top k documents listed in the qrels| / min(k, |retrieved|)")
def _judged(r, params):
    return np.column_stack([safe_div(r.pooled.count_top(k), np.minimum(k, r.num_ret)) for k in params])


@_register("recip_rank_cut", "Precision", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False, ir_name="RR@k",
           description="Reciprocal rank of the first relevant document if it is within the first k, else 0.",
           formula="RR@k = 1/rank of first relevant document, if rank <= k")
def _rr_cut(r, params):
    first = r.relevant.first_pos()
    return np.column_stack([np.where((first >= 0) & (first < k), safe_div(1.0, first + 1.0), 0.0) for k in params])


@_register("ap_retrieved", "Average precision", trec_eval=False, ir_name="AP(norm=retrieved)",
           description="Average precision divided by the number of relevant documents retrieved instead of all "
                       "relevant ones, as in the search-results tutorial: relevant documents never retrieved do not "
                       "lower the score. Higher than AP whenever recall is incomplete.",
           formula="AP_ret = (1/relret) * sum_{k : d_k relevant} P@k")
def _ap_retrieved(r, params):
    return col(average_precision(r, denominator=r.num_rel_ret))


TREC_ORDER = [name for name, m in REGISTRY.items() if m.trec_eval]
NICKNAMES = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"],
    "all_trec": [name for name in TREC_ORDER if name not in ("dcg", "ideal_dcg", "yaap")],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
}
RELSTRING_CHARS = {NONPOOL: "-", UNJUDGED: "."}


def relstrings(r: Ranking, length: int) -> list[str]:
    """trec_eval's relstring per query (text, so built per query)."""
    out = []
    for q in range(r.n_queries):
        seg = r.rel[r.offsets[q]:r.offsets[q] + max(min(length, r.num_ret[q]), 0)]
        out.append("".join(">" if v > 9 else str(v) if v >= 0 else RELSTRING_CHARS.get(v, "<") for v in seg.tolist()))
    return out


# Measures beyond trec_eval, each family in its own module; imported last, as they register here.
from evalgui.core.ranked import cwl, diversity, gdeval, irm_extras  # noqa: E402,F401
