"""Paired significance tests, multiple-comparison corrections and effect sizes.

Everything works on a *differences* matrix ``D`` (pairs x queries: per-query
score of system a minus system b, one row per compared pair, the same queries
for every row) or on a queries x systems score matrix (Tukey's HSD). The
resampling tests draw their random matrix once per call and share it among all
rows, so 435 pairs cost one matrix product, not 435 loops.

Conventions (each is what the cited reference or scipy does):

* t-test, Wilcoxon signed-rank, sign test: ``scipy.stats.ttest_rel``,
  ``scipy.stats.wilcoxon`` and ``scipy.stats.binomtest`` (through the binomial
  distribution, vectorised) with their defaults, two-sided. Where every
  difference is zero scipy returns NaN (0/0); we report p = 1 (no evidence of a
  difference), since NaN would silently drop the pair from a correction.
* Randomization (Fisher; Smucker et al. 2007): statistic |mean(d)|; p = share of
  the B sign flips whose |mean| is at least the observed one (as ranx). With
  2^n <= B every flip is enumerated once and p is exact.
* Bootstrap (Sakai 2006): t(z) = mean(z) / (sd(z) / sqrt(n)), sd with n - 1;
  w = z - mean(z); ASL = #{b : |t(w*_b)| >= |t(z)|} / B.
* Randomized Tukey HSD (Carterette 2012): within each query the systems'
  scores are permuted; p for a pair = share of trials whose range of system
  means (max - min) is at least the pair's observed mean difference.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.stats.catalogue import CORRECTIONS, TESTS

# A difference this small is floating-point noise of equal values, not a win.
NOISE = 1e-12


def check_test(name: str) -> str:
    if name not in TESTS:
        raise ValueError(f"unknown test '{name}' (one of {', '.join(TESTS)})")
    return name


def check_correction(name: str) -> str:
    if name not in CORRECTIONS:
        raise ValueError(f"unknown correction '{name}' (one of {', '.join(CORRECTIONS)})")
    return name


# ---------------------------------------------------------------------------
# Tests on a pairs x queries matrix of differences
# ---------------------------------------------------------------------------

def _all_zero(diffs: np.ndarray) -> np.ndarray:
    return ~(np.abs(diffs) > NOISE).any(axis=1)


def t_test(diffs: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-value per row: scipy's ttest_rel(a, b) == ttest_1samp(a − b, 0)."""
    from scipy import stats

    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    if diffs.shape[1] < 2:
        return np.ones(len(diffs))
    with np.errstate(all="ignore"), _quiet():
        p = stats.ttest_1samp(diffs, 0.0, axis=1).pvalue
    return np.where(_all_zero(diffs), 1.0, p)


def wilcoxon_test(diffs: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-value per row (scipy.stats.wilcoxon on the differences)."""
    from scipy import stats

    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    out = np.ones(len(diffs))
    live = ~_all_zero(diffs)
    # scipy picks its method (exact, permutation, normal approximation) once for the whole array, from
    # ties or zeros in *any* row: rows with and without them are tested apart, so that each row's p
    # is what scipy gives for that row alone.
    magnitudes = np.sort(np.abs(diffs), axis=1)
    tied = (magnitudes[:, :1] == 0).any(axis=1) | (magnitudes[:, 1:] == magnitudes[:, :-1]).any(axis=1)
    for rows in (live & tied, live & ~tied):
        if rows.any():
            with np.errstate(all="ignore"), _quiet():
                out[rows] = stats.wilcoxon(diffs[rows], axis=1).pvalue
    return np.where(np.isnan(out), 1.0, out)


def sign_test(diffs: np.ndarray) -> np.ndarray:
    """Two-sided sign test per row; equals scipy.stats.binomtest(wins, wins + losses).pvalue."""
    from scipy import stats

    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    wins = (diffs > NOISE).sum(axis=1)
    decided = wins + (diffs < -NOISE).sum(axis=1)
    # Bin(m, 1/2) is symmetric: the two-sided p is twice the smaller tail.
    p = 2.0 * stats.binom.cdf(np.minimum(wins, decided - wins), decided, 0.5)
    return np.where(decided == 0, 1.0, np.minimum(p, 1.0))


def sign_matrix(n: int, samples: int, seed: int) -> tuple[np.ndarray, bool]:
    """B x n random signs (±1), or all 2^n sign vectors when that is no more than B (exact)."""
    if n < 63 and 2 ** n <= samples:
        codes = np.arange(2 ** n, dtype=np.int64)[:, None]
        bits = (codes >> np.arange(n, dtype=np.int64)) & 1
        return (1 - 2 * bits).astype(np.float64), True
    rng = np.random.default_rng(seed)
    return rng.choice(np.array([-1.0, 1.0]), size=(samples, n)), False


def randomization_test(diffs: np.ndarray, samples: int = 10_000, seed: int = 42,
                       state: JobState | None = None) -> np.ndarray:
    """Two-sided paired randomization test per row; one sign matrix shared by all rows."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    n = diffs.shape[1]
    if n == 0:
        return np.ones(len(diffs))
    signs, _exact = sign_matrix(n, samples, seed)
    observed = np.abs(diffs.sum(axis=1))
    counts = np.zeros(len(diffs), dtype=np.int64)
    for block, where in _row_blocks(diffs, len(signs), state):
        counts[where] = (np.abs(block @ signs.T) >= observed[where, None] - _tolerance(block)).sum(axis=1)
    return counts / len(signs)


def _tolerance(diffs: np.ndarray) -> np.ndarray:
    # Sums of the same numbers in another order differ in the last bits; such a sum "ties" the observed one.
    return (1e-9 * np.abs(diffs).sum(axis=1))[:, None]


def resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """B x n: how often each query is drawn in each bootstrap sample (n draws with replacement)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(samples, n))
    counts = np.zeros((samples, n), dtype=np.float64)
    np.add.at(counts, (np.repeat(np.arange(samples), n), draws.ravel()), 1.0)
    return counts


def _resampled_t(values: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row and bootstrap sample: the sample's mean and t statistic (rows x B)."""
    n = values.shape[1]
    sums = values @ counts.T
    squares = (values * values) @ counts.T
    means = sums / n
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = np.maximum(squares - n * means * means, 0.0) / (n - 1)
        t = means / np.sqrt(variance / n)
    # 0/0 (a sample of identical values at 0) is no evidence either way.
    return means, np.where(np.isnan(t), 0.0, t)


@dataclass
class BootstrapResult:
    asl: np.ndarray                          # per row
    required: dict[float, np.ndarray]        # α -> per row: |mean(w*_b)| of the sample with the Bα-th largest |t|

    @property
    def difference_required(self) -> np.ndarray:
        """The estimate at the (first) α asked for."""
        return next(iter(self.required.values()))


def bootstrap_test(diffs: np.ndarray, samples: int = 1_000, seed: int = 42, alpha: float | list[float] = 0.05,
                   state: JobState | None = None) -> BootstrapResult:
    """Sakai's paired bootstrap test (ASL per row) and his estimated difference required at each α."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    alphas = [float(a) for a in (alpha if np.ndim(alpha) else [alpha])]
    rows, n = diffs.shape
    if n < 2:
        return BootstrapResult(np.ones(rows), {a: np.full(rows, np.nan) for a in alphas})
    counts = resample_counts(n, samples, seed)
    observed_mean = diffs.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = diffs.std(axis=1, ddof=1)
        observed_t = np.abs(np.where(sd > 0, observed_mean / (sd / np.sqrt(n)),
                                     np.where(np.abs(observed_mean) > NOISE, np.inf, 0.0)))
    asl = np.empty(rows)
    required = {a: np.empty(rows) for a in alphas}
    # the Bα-th largest |t|, as an index into the ascending order
    kth = {a: samples - min(max(int(np.floor(samples * a)), 1), samples) for a in alphas}
    for block, where in _row_blocks(diffs, samples, state):
        w_means, w_t = _resampled_t(block - observed_mean[where, None], counts)
        magnitude = np.abs(w_t)
        threshold = observed_t[where, None] * (1.0 - 1e-9)     # equal t values count as "at least"
        asl[where] = (magnitude >= threshold).mean(axis=1)
        rows_here = np.arange(len(block))
        for a, k in kth.items():
            at = np.argpartition(magnitude, k, axis=1)[:, k]
            required[a][where] = np.abs(w_means[rows_here, at])
    asl[_all_zero(diffs)] = 1.0
    return BootstrapResult(asl, required)


def mean_ci(diffs: np.ndarray, samples: int = 1_000, seed: int = 42, confidence: float = 0.95,
            state: JobState | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of mean(d), per row (queries resampled with replacement)."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    if n < 2:
        return low, high
    counts = resample_counts(n, samples, seed)
    tail = (1.0 - confidence) / 2.0
    for block, where in _row_blocks(diffs, samples, state):
        means = block @ counts.T / n
        low[where], high[where] = np.quantile(means, [tail, 1.0 - tail], axis=1)
    return low, high


def _row_blocks(values: np.ndarray, samples: int, state: JobState):
    """Slices of rows whose rows x samples products stay around 8 MB (a block takes well under half
    a second, so Cancel answers quickly); reports progress and checks for Cancel between them."""
    step = max(1, 1_000_000 // max(samples, 1))
    for start in range(0, len(values), step):
        state.check()
        if start:
            state.progress(start / len(values), f"{start:,} of {len(values):,} pairs")
        where = slice(start, min(start + step, len(values)))
        yield values[where], where


def tukey_hsd(scores: np.ndarray, pairs: list[tuple[int, int]], samples: int = 5_000, seed: int = 42,
              state: JobState | None = None) -> np.ndarray:
    """Randomized Tukey HSD: p per (i, j) column pair of a queries x systems matrix."""
    state = state_or_default(state)
    scores = np.asarray(scores, dtype=np.float64)
    n, systems = scores.shape
    if n == 0 or systems < 2:
        return np.ones(len(pairs))
    means = scores.mean(axis=0)
    index = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    observed = np.abs(means[index[:, 0]] - means[index[:, 1]])
    rng = np.random.default_rng(seed)
    ranges = np.empty(samples)
    chunk = max(1, 2_000_000 // max(n * systems, 1))      # trials per block, to bound the memory
    flat = scores.ravel()
    row_starts = (np.arange(n) * systems)[:, None]
    for start in range(0, samples, chunk):
        state.check()
        if start:
            state.progress(start / samples, f"{start:,} of {samples:,} permutations")
        size = min(chunk, samples - start)
        # Permuting each query's row is sorting random keys (float32: half the memory, same randomness here).
        order = np.argsort(rng.random((size, n, systems), dtype=np.float32), axis=2)
        permuted = flat[row_starts + order]
        trial_means = permuted.mean(axis=1)
        ranges[start:start + size] = trial_means.max(axis=1) - trial_means.min(axis=1)
    ranges.sort()
    tolerance = 1e-12 * max(float(np.abs(scores).max(initial=0.0)), 1.0)
    # share of trials with range >= observed, by binary search in the sorted ranges
    at_least = samples - np.searchsorted(ranges, observed - tolerance, side="left")
    return np.where(observed > tolerance, at_least / samples, 1.0)


# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------

def correct(p_values, method: str) -> np.ndarray:
    """Adjusted p-values of one family of comparisons (NaN entries are left out of the family)."""
    check_correction(method)
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    values = p[present]
    m = len(values)
    if m == 0:
        return out
    if method == "none":
        adjusted = values
    elif method == "bonferroni":
        adjusted = np.minimum(values * m, 1.0)
    elif method == "bh":
        from scipy import stats

        adjusted = stats.false_discovery_control(values, method="bh")
    else:
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        factors = m - np.arange(m)                      # m, m−1, ..., 1
        if method == "holm":
            stepped = np.minimum(factors * ordered, 1.0)
        else:                                           # holm-sidak
            stepped = -np.expm1(factors * np.log1p(-np.minimum(ordered, 1.0)))
        adjusted = np.empty(m)
        adjusted[order] = np.maximum.accumulate(stepped)
    out[present] = adjusted
    return out


# ---------------------------------------------------------------------------
# Effect sizes
# ---------------------------------------------------------------------------

def cohens_dz(diffs: np.ndarray) -> np.ndarray:
    """Cohen's d_z per row: mean(d) / sd(d), sd with n − 1 (0 when every difference is 0)."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    if diffs.shape[1] < 2:
        return np.full(len(diffs), np.nan)
    mean = diffs.mean(axis=1)
    sd = diffs.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(sd > NOISE, mean / sd, np.sign(mean) * np.inf)
    return np.where(_all_zero(diffs), 0.0, d)


def wins_ties_losses(diffs: np.ndarray, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: queries where a beats b by more than ``tolerance``, within it, and where b beats a."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    limit = tolerance + NOISE
    wins = (diffs > limit).sum(axis=1)
    losses = (diffs < -limit).sum(axis=1)
    return wins, diffs.shape[1] - wins - losses, losses


@contextmanager
def _quiet():
    """Silence scipy's RuntimeWarnings about degenerate inputs (handled by the callers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
