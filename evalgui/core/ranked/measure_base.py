"""What every ranked-retrieval measure module shares: the record type, the registry and the helpers
its kernels use (gains, safe division, segment sums).

:mod:`evalgui.core.ranked.measures` registers trec_eval's measures here; each family beyond
trec_eval (gdeval, C/W/L, ir_measures' others) is a module that registers its own records, and
``measures`` imports them last, so that importing it gives the whole registry. Family modules
import this module, never ``measures``: no import cycle.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from evalgui.core.ranked.ranking import NONPOOL, UNJUDGED, Positions, Ranking, segmented_cumsum
from evalgui.core.registry import Parameter, Record, Registry

MIN_GEO_MEAN = 0.00001
NAN = float(np.copysign(np.nan, -1.0))  # the NaN of 0.0/0.0 on x86, which glibc prints as "-nan"
INFAP_EPSILON = 0.00001
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


class ParamKind(enum.Enum):
    NONE = "none"                      # a single value
    LONG_CUTOFFS = "long_cutoffs"      # one value per integer cutoff, e.g. P.5,10
    DOUBLE_CUTOFFS = "double_cutoffs"  # one value per real cutoff, e.g. iprec_at_recall.0.1,0.5
    DOUBLE_PARAMS = "double_params"    # one value from a list of reals, e.g. utility.1,-1,0,0
    PAIRS = "pairs"                    # one value from name=value pairs, e.g. ndcg.1=3,2=9


# Each kind of parameter list as the help names and explains it (the engine parses them in specs.py).
_PARAMETER_HELP = {
    ParamKind.LONG_CUTOFFS: ("cutoffs", "whole numbers after the name, e.g. P.5,10"),
    ParamKind.DOUBLE_CUTOFFS: ("cutoffs", "real numbers after the name, e.g. iprec_at_recall.0.1,0.5"),
    ParamKind.DOUBLE_PARAMS: ("values", "real numbers after the name, e.g. utility.1,-1,0,0"),
    ParamKind.PAIRS: ("pairs", "name=value pairs after the name, e.g. ndcg.1=3,2=9"),
}


def params_text(values: tuple) -> str:
    """Parameters as typed after the measure's name: 5,10 or 0.1,0.5 or 1=3,2=9."""
    def one(v):
        if isinstance(v, tuple):
            return "=".join(one(x) for x in v)
        return f"{v:g}" if isinstance(v, float) else str(v)
    return ",".join(one(v) for v in values)


@dataclass(frozen=True, kw_only=True)
class Measure(Record):
    """A ranked-retrieval measure: the family's record plus what the engine needs to compute it.

    ``direction``, ``parameters``, ``aliases`` and ``notes`` are derived from the
    fields below, so they cannot disagree with them.
    """
    kind: ParamKind
    defaults: tuple
    kernel: Callable[[Ranking, tuple], np.ndarray] = field(repr=False)
    aggregate: str = "mean"        # mean | sum | gmean | count | none
    per_query: bool = True         # printed per query by trec_eval -q
    trec_eval: bool = True         # one of trec_eval's measures
    ir_name: str | None = None     # the ir_measures spelling, for the docs and the GUI
    better: str | None = "higher"  # which way is better: "higher", "lower", or None (counts, diagnostics)
    direction: str | None = field(init=False, default=None)
    parameters: tuple[Parameter, ...] = field(init=False, default=())
    aliases: tuple[tuple[str, str], ...] = field(init=False, default=())
    notes: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self):
        derived = {
            "direction": self.best_direction,
            "parameters": () if self.kind is ParamKind.NONE else
            (Parameter(*_PARAMETER_HELP[self.kind], default=params_text(self.defaults)),),
            "aliases": (("ir_measures", self.ir_name),) if self.ir_name else (),
            "notes": () if self.trec_eval else ("Not in trec_eval; an evalgui / ir_measures extra.",),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)
        super().__post_init__()

    @property
    def best_direction(self) -> str | None:
        """"higher", "lower" or None; counts are never "better"."""
        return None if self.value_type != "float" else self.better


REGISTRY: Registry[Measure] = Registry(
    "ranked", "Ranked retrieval measures",
    "How good each query's ranked list of documents is, against graded relevance judgments (qrels): "
    "trec_eval 10.0's measures, computed as it computes them, and a few ir_measures extras.")


def _register(name, group, kind=ParamKind.NONE, defaults=(), **kw):
    def wrap(kernel):
        REGISTRY.add(Measure(name=name, family=REGISTRY.key, group=group, kind=kind, defaults=tuple(defaults),
                             kernel=kernel, **kw))
        return kernel
    return wrap


def col(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)


def safe_div(num, den) -> np.ndarray:
    """num / den, and 0 where den is 0 (where trec_eval would print nan)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def lround(x: np.ndarray) -> np.ndarray:
    """C's lround for non-negative x: halves round away from zero (numpy rounds them to even)."""
    f = np.floor(x)
    return (f + ((x - f) >= 0.5)).astype(np.int64)


def segment_suffix_max(values: np.ndarray, seg: np.ndarray, n_seg: int) -> np.ndarray:
    """Max of ``values`` over each position and all later positions of the same segment.

    Exact: values are replaced by their rank among distinct values, and segments
    are separated by integer offsets, so one running maximum does the job.
    """
    if not len(values):
        return values.copy()
    distinct, code = np.unique(values, return_inverse=True)
    base = len(distinct)
    rev_offset = (n_seg - 1 - seg[::-1]).astype(np.int64) * base
    running = np.maximum.accumulate(code[::-1].astype(np.int64) + rev_offset)
    return distinct[running - rev_offset][::-1]


def _powers(p: float, n: int) -> np.ndarray:
    """p^0, p^1, ... p^n by repeated multiplication, bit for bit as trec_eval computes them."""
    seq = np.full(n + 1, p)
    seq[0] = 1.0
    return np.cumprod(seq)


# ---------------------------------------------------------------------------
# Shared intermediate quantities
# ---------------------------------------------------------------------------

def rel_in_top(r: Ranking, k) -> np.ndarray:
    return r.relevant.count_top(k).astype(np.float64)


def precision_at(r: Ranking, k: int) -> np.ndarray:
    return rel_in_top(r, k) / float(k)


def average_precision(r: Ranking, cutoff: int | None = None, denominator=None) -> np.ndarray:
    rp = r.relevant
    prec = rp.running_count() / (rp.pos + 1.0)
    total = rp.sum(prec, None if cutoff is None else rp.pos < cutoff)
    den = r.num_rel if denominator is None else denominator
    return np.where(r.num_rel_ret > 0, safe_div(total, den), 0.0)


def bpref_values(r: Ranking) -> np.ndarray:
    level = r.relevance_level
    j = r.judged
    is_rel = r.rel[j.idx] >= level
    nonrel_before = j.cumsum(~is_rel)
    num_nonrel = r.rel_levels[:, :max(level, 0)].sum(axis=1)
    R = r.num_rel[j.seg]
    frac = safe_div(np.minimum(nonrel_before, R), np.minimum(num_nonrel[j.seg], R))
    term = np.where(nonrel_before > 0, 1.0 - frac, 1.0)
    return safe_div(j.sum(term, is_rel), r.num_rel)


def interpolated_precision(r: Ranking, recall_points) -> np.ndarray:
    """trec_eval's iprec_at_recall: max precision at or after the lround(p*R)-th relevant document."""
    rp = r.relevant
    prec = rp.running_count() / (rp.pos + 1.0)
    best_after = segment_suffix_max(prec, rp.seg, r.n_queries)
    nrr = rp.counts
    out = np.zeros((r.n_queries, len(recall_points)))
    for j, p in enumerate(recall_points):
        c = lround(p * r.num_rel.astype(np.float64))
        ok = (nrr > 0) & (c <= nrr)
        idx = rp.starts[:-1] + np.maximum(c, 1) - 1
        out[ok, j] = best_after[idx[ok]]
        # No document retrieved: trec_eval's precision is 0/0, kept at the points it reaches (cut <= 0).
        out[(r.num_ret == 0) & (c <= 0), j] = NAN
    return out


# ---------------------------------------------------------------------------
# Gains (ndcg, ndcg_rel, Rndcg, G, rbp)
# ---------------------------------------------------------------------------

@dataclass
class Gains:
    docs: Positions            # ranked documents with a non-zero gain
    gain: np.ndarray           # their gains
    ideal: np.ndarray          # flat ideal gains (positive only), query after query, best first
    ideal_offsets: np.ndarray  # (n_q + 1,)

    def ideal_len(self) -> np.ndarray:
        return np.diff(self.ideal_offsets)

    @cached_property
    def ideal_cum_dcg(self) -> np.ndarray:
        """Ideal DCG accumulated along the ideal ranking, restarting per query."""
        n = self.ideal_len()
        pos = np.arange(len(self.ideal)) - np.repeat(self.ideal_offsets[:-1], n)
        return segmented_cumsum(self.ideal / np.log2(pos + 2.0), self.ideal_offsets)

    def ideal_dcg_at(self, k) -> np.ndarray:
        """Ideal DCG of the first k positions (k per query; may exceed the ideal length)."""
        n = self.ideal_len()
        take = np.minimum(k, n)
        out = np.zeros(len(n))
        ok = take > 0
        out[ok] = self.ideal_cum_dcg[self.ideal_offsets[:-1][ok] + take[ok] - 1]
        return out

    def dcg_terms(self) -> np.ndarray:
        return self.gain / np.log2(self.docs.pos + 2.0)

    def dcg(self) -> np.ndarray:
        """DCG of each query's whole ranking."""
        return self.docs.sum(self.dcg_terms())

    def ideal_dcg(self) -> np.ndarray:
        """DCG of each query's whole ideal ranking."""
        return self.ideal_dcg_at(self.ideal_len())


def _gain_pairs(params) -> dict[int, float]:
    """rel_level=gain pairs; names that are not integers (like rbp's p) are skipped."""
    gains = {}
    for name, value in params:
        try:
            gains[int(name)] = float(value)
        except ValueError:
            continue
    return gains


def gains_for(r: Ranking, params, *, normalise_01: bool = False) -> Gains:
    """Gain of each grade: the grade itself unless a rel_level=gain pair overrides it.

    The ideal ranking holds each query's judged documents with positive gain,
    best gain first (trec_eval sorts its gain levels; we sort exactly).
    """
    custom = _gain_pairs(params)
    n_levels = r.rel_levels.shape[1]
    levels = np.arange(n_levels)
    level_gain = np.array([custom.get(int(level), float(level)) for level in levels])
    binary_from = dict(params).get("rel")  # RBP(rel=N): grades >= N gain 1, the rest 0
    if binary_from is not None:
        level_gain = (levels >= binary_from).astype(np.float64)
        custom = {}
    # A pair like -1=x gives documents outside the qrels (or unjudged ones) a gain, as in trec_eval.
    negative = {code: g for code, g in custom.items() if code in (NONPOOL, UNJUDGED) and g != 0}
    if NONPOOL in negative:
        base = Positions.where(np.ones(len(r.rel), dtype=bool), r.offsets)
    else:
        base = r.pooled if negative else r.judged
    grade = r.rel[base.idx]
    gain = np.zeros(len(grade))
    graded = grade >= 0
    gain[graded] = level_gain[grade[graded]]
    for code, g in negative.items():
        gain[grade == code] = g
    if normalise_01:
        # rbp: per query, rescale the gains of the query's level list to [0, 1] when they leave it.
        # The list holds the gains of grades 0..top grade of the query, plus every level=gain pair.
        present = levels[None, :] < r.num_rel_levels[:, None]
        qmin = np.where(present, level_gain[None, :], np.inf).min(axis=1, initial=np.inf)
        qmax = np.where(present, level_gain[None, :], -np.inf).max(axis=1, initial=-np.inf)
        if custom:
            qmin = np.minimum(qmin, min(custom.values()))
            qmax = np.maximum(qmax, max(custom.values()))
        rescale = np.isfinite(qmin) & ((qmin < 0) | (qmax > 1)) & (qmax > qmin)
        rs = rescale[base.seg]
        span = np.where(rs, (qmax - qmin)[base.seg], 1.0)
        gain = np.where(rs, (gain - np.where(rs, qmin[base.seg], 0.0)) / span, gain)
    nonzero = gain != 0
    order = np.argsort(-level_gain, kind="stable")
    order = order[level_gain[order] > 0]
    per_q = r.rel_levels[:, order]
    ideal = np.repeat(np.tile(level_gain[order], r.n_queries), per_q.ravel())
    ideal_offsets = np.concatenate(([0], np.cumsum(per_q.sum(axis=1)))).astype(np.int64)
    return Gains(base.subset(nonzero), gain[nonzero], ideal, ideal_offsets)


def _value_before(docs: Positions, cum: np.ndarray, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """For pairs (query q, rank k): ``cum`` at the last member of q ranked before k (0 if none)."""
    width = int(docs.pos.max(initial=0)) + 2
    keys = docs.seg * width + docs.pos
    at = np.searchsorted(keys, q * width + np.minimum(k, width - 1), side="left") - 1
    ok = (at >= 0) & (at >= docs.starts[:-1][q])
    out = np.zeros(len(q))
    out[ok] = cum[at[ok]]
    return out
