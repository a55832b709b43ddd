"""gdeval's measures: ERR@k and nDCG@k with exponential gains, as the TREC 2010-2014 Web track reported them.

gdeval.pl (ir_measures runs it for ``ERR@k`` and ``nDCG(dcg="exp-log2")@k``) ranks by score
descending, then docno descending (trec_eval's order), and gives each document the gain
2^grade - 1; grades 0 and below, and documents missing from the qrels, gain nothing. Its
ideal ranking holds every qrels document of positive grade, best first.

Where we differ (docs/measures.md lists these):

- a query whose judgments are all 0 or below: gdeval leaves it out; here it scores 0;
- grades above 4: gdeval refuses the qrels; here ERR counts them as 4 (its stopping
  probability (2^g - 1)/2^4 must stay below 1) and nDCG uses 2^g - 1 as for any grade.
"""

from __future__ import annotations

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked.measure_base import ParamKind, _register, gains_for, safe_div
from evalgui.core.ranked.ranking import Positions, Ranking

ERR_MAX_GRADE = 4   # gdeval's $MAX_JUDGMENT: R = (2^g - 1) / 2^4
EXP_MAX_GRADE = 1000   # 2^grade overflows a double above 1023


def segmented_exclusive_cumprod(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Product of the earlier values of the same segment (1 for each segment's first), multiplied in
    order as a loop per segment would: one numpy step per position, over the segments that reach it."""
    values = np.asarray(values, dtype=np.float64)
    out = np.ones(len(values))
    lengths = np.diff(starts)
    if not len(values):
        return out
    order = np.argsort(-lengths, kind="stable")          # longest first: the active ones are a prefix
    seg_starts, longest_first = starts[:-1][order], lengths[order]
    active = np.searchsorted(-longest_first, -np.arange(int(longest_first[0])), side="left")
    running = np.ones(len(order))
    for position, n in enumerate(active.tolist()):
        at = seg_starts[:n] + position
        out[at] = running[:n]
        running[:n] *= values[at]
    return out


def _positive(r: Ranking) -> tuple[Positions, np.ndarray]:
    """Ranked documents with a positive grade, and their grades."""
    j = r.judged
    grade = r.rel[j.idx]
    keep = grade > 0
    return j.subset(keep), grade[keep]


@_register("err_cut", "Web track (gdeval)", ParamKind.LONG_CUTOFFS, (20,), trec_eval=False, ir_name="ERR@k",
           description="Expected reciprocal rank at k (Chapelle et al.), as gdeval computes it for the TREC Web "
                       "track: the user reads down the ranking and stops at each document with a probability that "
                       "grows with its grade, (2^grade - 1)/16; ERR is the expected value of 1/(rank where the user "
                       "stops). Grades above 4 count as 4.",
           formula="ERR@k = sum_{i<=k} R_i/i * prod_{j<i} (1 - R_j),  R_i = (2^g_i - 1)/2^4")
def _err_cut(r, params):
    docs, grade = _positive(r)
    stop = (np.exp2(np.minimum(grade, ERR_MAX_GRADE)) - 1.0) / 2.0 ** ERR_MAX_GRADE
    reach = segmented_exclusive_cumprod(1.0 - stop, docs.starts)
    term = stop * reach / (docs.pos + 1.0)
    return np.column_stack([docs.sum(term, docs.pos < k) for k in params])


def exp_gains(r: Ranking):
    """Gains 2^grade - 1 for every grade in the qrels (ideal ranking included)."""
    n_levels = r.rel_levels.shape[1]
    if n_levels - 1 > EXP_MAX_GRADE:
        raise EvalUsageError(f"gains 2^grade - 1 need grades up to {EXP_MAX_GRADE}; the qrels have {n_levels - 1}")
    return gains_for(r, tuple((str(level), 2.0 ** level - 1.0) for level in range(n_levels)))


@_register("ndcg_exp_cut", "Web track (gdeval)", ParamKind.LONG_CUTOFFS, (20,), trec_eval=False,
           ir_name='nDCG(dcg="exp-log2")@k',
           description="nDCG at k with exponential gains, as gdeval computes it for the TREC Web track: each "
                       "document gains 2^grade - 1, discounted by log2(rank+1); the sum over the first k is divided "
                       "by the same sum for an ideal ranking of every positively graded document. It rewards the "
                       "highest grades much more than trec_eval's nDCG@k, whose gain is the grade.",
           formula="nDCG@k = sum_{i<=k} (2^g_i - 1)/log2(i+1) / sum_{i<=k} (2^g*_i - 1)/log2(i+1)")
def _ndcg_exp_cut(r, params):
    g = exp_gains(r)
    terms = g.dcg_terms()
    return np.column_stack([safe_div(g.docs.sum(terms, g.docs.pos < k), g.ideal_dcg_at(np.full(r.n_queries, k)))
                            for k in params])
