"""The C/W/L family (Moffat et al.): user-model measures computed as cwl_eval computes them.

A C/W/L measure is defined by its continuation probabilities C(i): the chance that a user who has
read the document at rank i goes on to rank i+1. The weight of rank i is the chance of reaching it,
prod_{j<i} C(j), scaled so that the weights add up to one over cwl_eval's depth of 1000 ranks; the
measure is the expected gain per document read (cwl_eval's "expected utility").

Gains follow ir_measures' use of cwl_eval: a grade is clipped to [min_rel, max_rel] and scaled to
[0, 1] by (grade - min_rel) / (max_rel - min_rel); negative grades count as 0 first, documents
missing from the qrels gain 0, every document costs 1. Rankings are cut at 1000 documents and
shorter ones are padded with gainless documents, as cwl_eval does.

Parameters are written as in ir_measures (``BPM(T=1,max_rel=3)@10``, ``INST(T=2,max_rel=3)``);
in trec_eval syntax (``bpm.10``, ``inst.2``) max_rel is the highest grade in the qrels and min_rel 0.
"""

from __future__ import annotations

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked.measure_base import ParamKind, _register
from evalgui.core.ranked.ranking import Ranking

DEPTH = 1000                       # cwl_eval's max_n: ranks beyond are not read, shorter rankings are padded
_ROWS_PER_BLOCK = max(1, (1 << 20) // DEPTH)   # queries per dense block (8 MB per array)


def split_params(params: tuple) -> tuple[list, dict]:
    """Plain values (trec_eval syntax: cutoffs or the one parameter) and name=value options (ir_measures)."""
    values = [p for p in params if not isinstance(p, tuple)]
    options = {p[0]: p[1] for p in params if isinstance(p, tuple)}
    return values, options


def gain_range(r: Ranking, options: dict) -> tuple[float, float]:
    min_rel = float(options.get("min_rel", 0))
    top = r.rel_levels.shape[1] - 1
    max_rel = float(options.get("max_rel", max(top, min_rel + 1)))
    if not max_rel > min_rel:
        raise EvalUsageError(f"max_rel ({max_rel:g}) must be above min_rel ({min_rel:g})")
    return min_rel, max_rel


def dense_gains(r: Ranking, min_rel: float, max_rel: float, q0: int, q1: int) -> np.ndarray:
    """(q1 - q0, DEPTH) gains of queries q0..q1-1, rank by rank, 0 past the end of a ranking."""
    pooled = r.pooled
    lo, hi = pooled.starts[q0], pooled.starts[q1]
    pos = pooled.pos[lo:hi]
    row = pooled.seg[lo:hi] - q0
    grade = np.maximum(r.rel[pooled.idx[lo:hi]], 0).astype(np.float64)   # unjudged (negative) counts as 0
    gain = (np.clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel)
    out = np.zeros((q1 - q0, DEPTH))
    keep = pos < DEPTH
    out[row[keep], pos[keep]] = gain[keep]
    return out


def expected_utility(cont: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """cwl_eval's expected utility per query from continuation probabilities C(1..DEPTH), row by row."""
    reach = np.ones_like(cont)
    np.cumprod(cont[:, :-1], axis=1, out=reach[:, 1:])
    first = 1.0 / reach.sum(axis=1)
    return (reach * first[:, None] * gains).sum(axis=1)


def _per_block(r: Ranking, params: tuple, continuation, main: str | None, default: float) -> np.ndarray:
    """Evaluate a C/W/L measure; ``continuation(gains, rank, value)`` gives C for one block of queries.

    ``main`` is the measure's one parameter (T, p or the cutoff k): one column per trec_eval-syntax
    value, or the ir_measures option of that name."""
    values, options = split_params(params)
    if main in options:
        values = [options[main]]
    values = values or [default]
    min_rel, max_rel = gain_range(r, options)
    rank = np.arange(1, DEPTH + 1, dtype=np.float64)
    out = np.zeros((r.n_queries, len(values)))
    for q0 in range(0, r.n_queries, _ROWS_PER_BLOCK):
        q1 = min(q0 + _ROWS_PER_BLOCK, r.n_queries)
        gains = dense_gains(r, min_rel, max_rel, q0, q1)
        for j, value in enumerate(values):
            cont = np.broadcast_to(continuation(gains, rank, float(value), options), gains.shape)
            out[q0:q1, j] = expected_utility(np.ascontiguousarray(cont, dtype=np.float64), gains)
    return out


def _one_value(params: tuple, what: str) -> None:
    values, _ = split_params(params)
    if len(values) > 1:
        raise EvalUsageError(f"{what} takes one value, not {len(values)}")


def _insq_factor(rank, T):
    return (((rank + (2.0 * T)) - 1.0) / (rank + (2.0 * T))) ** 2.0


_GAIN_NOTE = (" Gains are grades scaled to [0, 1] between min_rel and max_rel (default: 0 and the top grade in "
              "the qrels); rankings are read to depth 1000, as cwl_eval does.")
# How every C/W/L value follows from its C(i), added to each formula.
_WEIGHTS = "; W(i) = prod_{j<i} C(j) / sum_{n<=1000} prod_{j<n} C(j)"


@_register("bpm", "C/W/L user models", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False,
           ir_name="BPM(T=1.0,max_rel=M)@k",
           description="Bejeweled player model (Zhang et al.), static version: the user reads on until they have "
                       "gathered a total gain T (default 1) or read k documents, whichever comes first; the value is "
                       "the average gain of the documents read." + _GAIN_NOTE,
           formula="C(i) = 1 if (sum_{j<=i} g_j < T and i < k) else 0; value = sum_i W(i) g_i" + _WEIGHTS)
def _bpm(r, params):
    T = float(split_params(params)[1].get("T", 1.0))
    return _per_block(r, params, lambda g, rank, k, o: (np.cumsum(g, axis=1) < T) & (rank < k), "k", 10)


@_register("sdcg", "C/W/L user models", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False, ir_name="SDCG(max_rel=M)@k",
           description="Scaled DCG at k: DCG of the first k documents (gain discounted by log2(rank+1)) divided by "
                       "the sum of the discounts, as if there were at least k fully relevant documents; the C/W/L "
                       "form of nDCG@k." + _GAIN_NOTE,
           formula="C(i) = log2(i+1)/log2(i+2) for i < k, else 0; SDCG@k = sum_{i<=k} g_i/log2(i+1) / "
                   "sum_{i<=k} 1/log2(i+1)")
def _sdcg(r, params):
    def cont(g, rank, k, o):
        ratio = (np.log(rank + 1.0) / np.log(2.0)) / (np.log(rank + 2.0) / np.log(2.0))
        return np.where(rank < k, ratio, 0.0)
    return _per_block(r, params, cont, "k", 10)


@_register("nerr8", "C/W/L user models", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False,
           ir_name="NERR8(max_rel=M)@k",
           description="Not-but-nearly ERR, equation 8 (Azzopardi, Mackenzie and Moffat): a C/W/L approximation "
                       "of ERR in which the user stops after each document with a probability equal to its gain, "
                       "and after k documents at the latest." + _GAIN_NOTE,
           formula="C(i) = 1 - g_i for i < k, else 0; value = sum_i W(i) g_i" + _WEIGHTS)
def _nerr8(r, params):
    return _per_block(r, params, lambda g, rank, k, o: np.where(rank < k, 1.0 - g, 0.0), "k", 10)


@_register("nerr9", "C/W/L user models", ParamKind.LONG_CUTOFFS, (10,), trec_eval=False,
           ir_name="NERR9(max_rel=M)@k",
           description="Not-but-nearly ERR, equation 9: as NERR8, with the reciprocal-rank discount i/(i+1) on "
                       "going on as well." + _GAIN_NOTE,
           formula="C(i) = i/(i+1) * (1 - g_i) for i < k, else 0; value = sum_i W(i) g_i" + _WEIGHTS)
def _nerr9(r, params):
    return _per_block(r, params, lambda g, rank, k, o: np.where(rank < k, (1.0 * rank / (rank + 1.0)) * (1.0 - g), 0.0),
                      "k", 10)


@_register("nerr10", "C/W/L user models", ParamKind.DOUBLE_PARAMS, (0.9,), trec_eval=False,
           ir_name="NERR10(p=0.9,max_rel=M)",
           description="Not-but-nearly ERR, equation 10: the user stops after each document with a probability "
                       "equal to its gain and otherwise goes on with RBP's persistence p (default 0.9), to any "
                       "depth." + _GAIN_NOTE,
           formula="C(i) = p * (1 - g_i); value = sum_i W(i) g_i" + _WEIGHTS)
def _nerr10(r, params):
    _one_value(params, "nerr10 (p)")
    return _per_block(r, params, lambda g, rank, p, o: p * (1.0 - g), "p", 0.9)


@_register("nerr11", "C/W/L user models", ParamKind.DOUBLE_PARAMS, (1.0,), trec_eval=False,
           ir_name="NERR11(T=1,max_rel=M)",
           description="Not-but-nearly ERR, equation 11: the user stops after each document with a probability "
                       "equal to its gain and otherwise goes on as INSQ's user with goal T (default 1)." + _GAIN_NOTE,
           formula="C(i) = ((i + 2T - 1)/(i + 2T))^2 * (1 - g_i); value = sum_i W(i) g_i" + _WEIGHTS)
def _nerr11(r, params):
    _one_value(params, "nerr11 (T)")
    return _per_block(r, params, lambda g, rank, T, o: _insq_factor(rank, T) * (1.0 - g), "T", 1.0)


@_register("inst", "C/W/L user models", ParamKind.DOUBLE_PARAMS, (1.0,), trec_eval=False,
           ir_name="INST(T=1,max_rel=M)",
           description="INST (Moffat et al.): an adaptive user who wants a total gain T (default 1) and is more "
                       "likely to stop the more of it they have found; the value is the expected gain per document "
                       "read." + _GAIN_NOTE,
           formula="C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - sum_{j<=i} g_j; "
                   "value = sum_i W(i) g_i" + _WEIGHTS)
def _inst(r, params):
    _one_value(params, "inst (T)")

    def cont(g, rank, T, o):
        Ti = T - np.cumsum(g, axis=1)
        return ((rank + T + Ti - 1.0) / (rank + T + Ti)) ** 2.0
    return _per_block(r, params, cont, "T", 1.0)


@_register("insq", "C/W/L user models", ParamKind.DOUBLE_PARAMS, (1.0,), trec_eval=False,
           ir_name="INSQ(T=1,max_rel=M)",
           description="INSQ (Moffat, Scholer and Thomas): INST's forerunner, whose user's chance of going on "
                       "grows with the rank only, for a goal T (default 1)." + _GAIN_NOTE,
           formula="C(i) = ((i + 2T - 1)/(i + 2T))^2; value = sum_i W(i) g_i" + _WEIGHTS)
def _insq(r, params):
    _one_value(params, "insq (T)")
    return _per_block(r, params, lambda g, rank, T, o: _insq_factor(rank, T), "T", 1.0)


@_register("rbp_cwl", "C/W/L user models", ParamKind.DOUBLE_PARAMS, (0.8,), trec_eval=False,
           description="Rank-biased precision with graded gains, as cwl_eval computes it: the user goes on to the "
                       "next document with probability p (default 0.8, ir_measures' default) and the value is the "
                       "expected gain per document read. Written RBP(p=0.8,max_rel=3) in ir_measures syntax; "
                       "RBP(rel=2) is binary RBP." + _GAIN_NOTE,
           formula="C(i) = p; RBP = sum_{i<=1000} g_i p^(i-1) / sum_{i<=1000} p^(i-1)")
def _rbp_cwl(r, params):
    _one_value(params, "rbp_cwl (p)")
    return _per_block(r, params, lambda g, rank, p, o: np.full(g.shape[1], p), "p", 0.8)
