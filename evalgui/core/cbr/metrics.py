"""The quality metrics of case-based retrieval: one kernel per metric, on one query's prepared lists.

Each metric's record in :mod:`evalgui.core.cbr.catalogue` (description, formula) names its kernel
here: the record is the dispatch. The expensive step is done once per query (:class:`QueryView`:
where each listed case stands in the ground truth); every kernel then reads small arrays. Values a
query cannot have (a pair metric on a one-case list) are NaN and left out of the mean over queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from evalgui.core.cbr.catalogue import METRICS, TIES, parse_metric
from evalgui.core.cbr.lists import RankedLists
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default

# Up to this many listed cases, concordant and discordant pairs are counted pair by pair
# (n² booleans); longer lists go through scipy's O(n log n) Kendall statistic.
_PAIRWISE_LIMIT = 1500


@dataclass(frozen=True)
class MetricRequest:
    label: str                   # the output name, e.g. "mae(align=case)"
    name: str                    # the record's name, e.g. "mae"
    params: tuple = ()           # sorted (key, value) pairs

    @property
    def param(self) -> dict:
        return dict(self.params)


def parse_metrics(names: Sequence[str]) -> list[MetricRequest]:
    """Requests for metric names as typed ("hits", "mae(align=case)"); each output name once."""
    out: dict[str, MetricRequest] = {}
    for text in names:
        label, name, params = parse_metric(text)
        out.setdefault(label, MetricRequest(label, name, tuple(sorted(params.items()))))
    return list(out.values())


@dataclass
class QueryView:
    """One query: the whole ground-truth list, the evaluated list cut to k, and where each of
    its cases stands in the ground truth."""

    gt_cases: np.ndarray
    gt_sims: np.ndarray
    rl_cases: np.ndarray         # RL_k
    rl_sims: np.ndarray
    ranks: np.ndarray            # 0-based position in GT of each case of RL_k
    K: int                       # min(k, |GT|), or |RL_k| without k
    ties: str = "case_id"
    _pairs: tuple[int, int] | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return len(self.rl_cases)

    def pairs(self) -> tuple[int, int]:
        """(concordant, discordant) pairs of RL_k's cases; ties in either similarity count as neither."""
        if self._pairs is None:
            self._pairs = concordance(self.rl_sims, self.gt_sims[self.ranks])
        return self._pairs


def concordance(x: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    """(C, D): pairs ordered alike and oppositely by x and y; a pair tied in x or in y is neither."""
    n = len(x)
    if n < 2:
        return 0, 0
    if n <= _PAIRWISE_LIMIT:
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        product = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
        return int(np.count_nonzero((product > 0) & upper)), int(np.count_nonzero((product < 0) & upper))
    from scipy import stats

    pairs = n * (n - 1) // 2
    tied_x, tied_y = _tied_pairs(x), _tied_pairs(y)
    tied_both = _tied_pairs(x, y)
    decided = pairs - tied_x - tied_y + tied_both           # C + D
    if tied_x == pairs or tied_y == pairs:
        return 0, 0
    tau_b = stats.kendalltau(x, y).statistic                 # (C − D) / sqrt((P − Tx)(P − Ty))
    difference = int(round(tau_b * math.sqrt((pairs - tied_x) * (pairs - tied_y))))
    return (decided + difference) // 2, (decided - difference) // 2


def _tied_pairs(*columns: np.ndarray) -> int:
    _, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


# ---------------------------------------------------------------- the kernels

def hits(v: QueryView, p: dict) -> float:
    if v.ties == "interchangeable" and v.K:
        return float(np.count_nonzero(v.gt_sims[v.ranks] >= v.gt_sims[v.K - 1]))
    return float(np.count_nonzero(v.ranks < v.K))


def hits_normalized(v: QueryView, p: dict) -> float:
    return hits(v, p) / v.K if v.K else math.nan


def _errors(v: QueryView, p: dict) -> np.ndarray:
    if p.get("align") == "case":
        return v.gt_sims[v.ranks] - v.rl_sims
    return v.gt_sims[:v.n] - v.rl_sims


def mae(v: QueryView, p: dict) -> float:
    return float(np.mean(np.abs(_errors(v, p)))) if v.n else math.nan


def mse(v: QueryView, p: dict) -> float:
    return float(np.mean(np.square(_errors(v, p)))) if v.n else math.nan


def quality_stromer(v: QueryView, p: dict) -> float:
    K = v.K
    if not K:
        return math.nan
    m = min(v.n, K)
    wrong = np.ones(K, dtype=bool)                 # a position beyond the list's end is an error
    wrong[:m] = v.gt_cases[:m] != v.rl_cases[:m]
    weights = 2 + K - np.arange(1, K + 1)
    total = int(weights.sum())
    return (total - int(weights[wrong].sum())) / total   # integers: 4/9, not 1 − 5/9


def quality_mueller(v: QueryView, p: dict) -> float:
    n = v.n
    if not n:
        return math.nan
    missed = np.ones(n, dtype=bool)
    missed[v.ranks[v.ranks < n]] = False
    return 1.0 - float(v.gt_sims[:n][missed].sum()) / n


def correctness(v: QueryView, p: dict) -> float:
    c, d = v.pairs()
    return (c - d) / (c + d) if c + d else math.nan


def completeness(v: QueryView, p: dict) -> float:
    c, d = v.pairs()
    return (c + d) / (v.n * (v.n - 1) // 2) if v.n > 1 else math.nan


def kendall(v: QueryView, p: dict) -> float:
    c, d = v.pairs()
    return (c - d) / (v.n * (v.n - 1) // 2) if v.n > 1 else math.nan


def distance(v: QueryView, p: dict) -> float:
    return float(np.mean(np.abs(np.arange(v.n) - v.ranks))) if v.n else math.nan


def spearman(v: QueryView, p: dict) -> float:
    n = v.n
    if n < 2:
        return math.nan
    in_gt = np.empty(n, dtype=np.int64)
    in_gt[np.argsort(v.ranks)] = np.arange(n)     # the order of RL_k's cases in GT
    d2 = int(np.square(np.arange(n) - in_gt).sum())
    return 1.0 - 6 * d2 / (n * (n * n - 1))       # Pearson's r of two permutations


# ---------------------------------------------------------------- over queries

def check_ks(ks: Sequence[int | None]) -> list[int | None]:
    for k in ks:
        if k is not None and (not isinstance(k, (int, np.integer)) or k < 1):
            raise EvalUsageError(f"k must be a whole number of at least 1, not {k!r}")
    return list(dict.fromkeys(ks)) or [None]


def per_query_values(ground_truth: RankedLists, lists: Sequence[RankedLists], metrics: Sequence[MetricRequest],
                     ks: Sequence[int | None] = (None,), ties: str = "case_id",
                     state: JobState | None = None) -> np.ndarray:
    """Every metric for every query: an array (lists, ks, metrics, queries).

    ``lists`` hold the same queries as the ground truth, in its order, and codes of its cases."""
    state = state_or_default(state)
    if ties not in TIES:
        raise EvalUsageError(f"ties must be one of {', '.join(TIES)}, not '{ties}'")
    ks = list(ks) or [None]
    for rl in lists:
        if rl.n_queries != ground_truth.n_queries or rl.case_ids is not ground_truth.case_ids \
                and not np.array_equal(rl.case_ids, ground_truth.case_ids):
            raise ValueError("the lists are not aligned with the ground truth (see lists.aligned_lists)")
    kernels = [(METRICS[metric.name].kernel, metric.param) for metric in metrics]
    n_q = ground_truth.n_queries
    out = np.full((len(lists), len(ks), len(metrics), n_q), np.nan)
    position = np.full(len(ground_truth.case_ids), -1, dtype=np.int64)   # GT position of each case, per query
    for q in range(n_q):
        if q % 16 == 0:
            state.check()
            state.progress(q / max(n_q, 1), f"Scoring query {q + 1:,} of {n_q:,}")
        gt_cases, gt_sims = ground_truth.list(q)
        position[gt_cases] = np.arange(len(gt_cases))
        for i, rl in enumerate(lists):
            rl_cases, rl_sims = rl.list(q)
            for j, k in enumerate(ks):
                cut = len(rl_cases) if k is None else min(k, len(rl_cases))
                view = QueryView(gt_cases, gt_sims, rl_cases[:cut], rl_sims[:cut], position[rl_cases[:cut]],
                                 cut if k is None else min(k, len(gt_cases)), ties)
                for m, (kernel, param) in enumerate(kernels):
                    out[i, j, m, q] = kernel(view, param)
        position[gt_cases] = -1
    state.progress(1.0, "Scored")
    return out


def mean_over_queries(values: np.ndarray) -> np.ndarray:
    """The mean over the last axis of the defined (not NaN) values, exactly summed; NaN when none is."""
    flat = values.reshape(-1, values.shape[-1])
    means = np.full(len(flat), np.nan)
    for i, row in enumerate(flat):
        defined = row[~np.isnan(row)]
        if len(defined):
            means[i] = math.fsum(defined.tolist()) / len(defined)
    return means.reshape(values.shape[:-1])
