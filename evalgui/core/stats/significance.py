"""Paired significance tests, multiple-comparison corrections and effect sizes.

Everything works on a *differences* matrix ``D`` (pairs x queries: per-query
score of system a minus system b, one row per compared pair, the same queries
for every row) or on a queries x systems score matrix (Tukey's HSD). The
resampling tests draw their random samples once per call and share them among
all rows, so 435 pairs cost one matrix product per chunk of samples, not 435
loops. They draw the B samples in chunks (see CHUNK_NUMBERS): memory stays
bounded whatever B, and Cancel and progress come between chunks.

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
  w = z - mean(z); ASL = #{b : |t(w*_b)| >= |t(z)|} / B. The difference required
  is |mean(w*_b)| of the sample with the Bα-th largest |t| (equal |t|: the
  earlier sample first).
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


# ---------------------------------------------------------------------------
# Resampling in chunks
# ---------------------------------------------------------------------------

# The resampling tests draw their B samples in chunks: one chunk's matrices hold at most CHUNK_NUMBERS
# numbers (float64: 16 MB), and one matrix product at most CHUNK_WORK multiply-adds (a few hundredths of
# a second), whatever B. Between chunks a test checks for Cancel and reports progress. The chunks are
# drawn in order from one generator, so they are the rows of the one B x n matrix an unchunked draw
# gives: the p-values do not depend on the chunk size.
CHUNK_NUMBERS = 2_000_000
CHUNK_WORK = 50_000_000
# Order statistics over all B samples (the bootstrap's difference required, its confidence interval) keep,
# per row, the few largest (or smallest) values seen so far: at most KEEP_NUMBERS numbers (96 MB) for the
# rows resampled together; more rows than fit go through the samples in several passes.
KEEP_NUMBERS = 12_000_000


def chunk_size(n: int) -> int:
    """Samples per chunk when each sample has ``n`` numbers (one per query); at most CHUNK_NUMBERS / 8,
    so that a row's statistics over one chunk stay small too."""
    return max(1, CHUNK_NUMBERS // max(n, 8))


def row_slices(rows: int, size: int, n: int):
    """Slices of the rows such that a product of rows x ``size`` samples (a few arrays of them at once) stays
    within a quarter of one chunk's numbers and within its work."""
    step = max(1, min(CHUNK_NUMBERS // max(4 * size, 1), CHUNK_WORK // max(size * n, 1)))
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


def _report(state: JobState, what: str, done: int, total: int, part: int = 0, parts: int = 1,
            rows: slice | None = None, of_rows: int = 0) -> None:
    """Progress between chunks: ``done`` of ``total`` samples in pass ``part`` of ``parts``."""
    if part == parts - 1 and done >= total:
        return                                    # the end: the caller says what comes next
    where = f"pairs {rows.start + 1:,}–{rows.stop:,} of {of_rows:,}: " if parts > 1 and rows is not None else ""
    state.progress((part + done / total) / parts, f"{what}, {where}{done:,} of {total:,} samples")


def sign_chunks(n: int, samples: int, seed: int, size: int | None = None):
    """The rows of :func:`sign_matrix` in chunks of ``size`` (default :func:`chunk_size`)."""
    exact = n < 63 and 2 ** n <= samples
    total = 2 ** n if exact else samples
    size = chunk_size(n) if size is None else max(1, size)
    rng = None if exact else np.random.default_rng(seed)
    powers = np.arange(n, dtype=np.int64)
    for start in range(0, total, size):
        stop = min(start + size, total)
        if exact:
            bits = (np.arange(start, stop, dtype=np.int64)[:, None] >> powers) & 1
            yield (1 - 2 * bits).astype(np.float64)
        else:
            yield rng.choice(np.array([-1.0, 1.0]), size=(stop - start, n))


def sign_matrix(n: int, samples: int, seed: int) -> tuple[np.ndarray, bool]:
    """B x n random signs (±1), or all 2^n sign vectors when that is no more than B (exact)."""
    exact = n < 63 and 2 ** n <= samples
    return np.concatenate(list(sign_chunks(n, samples, seed, 2 ** n if exact else samples))), exact


def randomization_test(diffs: np.ndarray, samples: int = 10_000, seed: int = 42,
                       state: JobState | None = None) -> np.ndarray:
    """Two-sided paired randomization test per row; the sign flips are shared by all rows."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    if n == 0:
        return np.ones(rows)
    total = 2 ** n if n < 63 and 2 ** n <= samples else samples
    if rows == 0:
        return np.zeros(0)
    observed = np.abs(diffs.sum(axis=1))[:, None] - _tolerance(diffs)
    counts = np.zeros(rows, dtype=np.int64)
    done = 0
    for signs in sign_chunks(n, samples, seed):
        for where in row_slices(rows, len(signs), n):
            state.check()
            counts[where] += (np.abs(diffs[where] @ signs.T) >= observed[where]).sum(axis=1)
        done += len(signs)
        _report(state, "randomization test", done, total)
    return counts / total


def _tolerance(diffs: np.ndarray) -> np.ndarray:
    # Sums of the same numbers in another order differ in the last bits; such a sum "ties" the observed one.
    return (1e-9 * np.abs(diffs).sum(axis=1))[:, None]


def resample_count_chunks(n: int, samples: int, seed: int, size: int | None = None):
    """The rows of :func:`resample_counts` in chunks of ``size`` (default :func:`chunk_size`)."""
    rng = np.random.default_rng(seed)
    size = chunk_size(n) if size is None else max(1, size)
    for start in range(0, samples, size):
        rows = min(size, samples - start)
        draws = rng.integers(0, n, size=(rows, n))
        draws += (np.arange(rows, dtype=np.int64) * n)[:, None]      # (sample, query) as one flat index
        yield np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)


def resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """B x n: how often each query is drawn in each bootstrap sample (n draws with replacement)."""
    if samples < 1:
        return np.zeros((0, n))
    return np.concatenate(list(resample_count_chunks(n, samples, seed, samples)))


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


class _Largest:
    """Per row, the ``keep`` largest values offered over all chunks; with ``companions``, also a companion
    number of each and which sample it was (its order of arrival), and equal values rank by arrival.

    A value goes into the row's spare slots when it is above the row's floor (its keep-th largest
    at the last compaction: an equal value arriving later ranks below it); a row whose spare slots would
    overflow is compacted to its keep largest. Vectorised over the rows per chunk; the few percent of the
    samples that can still be among the largest are all that is held."""

    def __init__(self, rows: int, keep: int, spare: int, companions: bool = False):
        self.keep, self.spare, self.width = keep, spare, keep + spare
        self.values = np.full((rows, self.width), -np.inf)
        self.companions = np.zeros((rows, self.width)) if companions else None
        self.arrivals = np.zeros((rows, self.width), dtype=np.int64) if companions else None
        self.used = np.zeros(rows, dtype=np.int64)
        self.floor = np.full(rows, -np.inf)

    @staticmethod
    def numbers(keep: int, spare: int, companions: bool = False) -> int:
        """Numbers held per row (for the memory bound)."""
        return (keep + spare) * (3 if companions else 1)

    def add(self, rows: slice, values: np.ndarray, companions: np.ndarray | None = None, first: int = 0) -> None:
        """Offer ``values`` (rows x samples, the samples numbered from ``first``) for ``rows`` of the store."""
        for start in range(0, values.shape[1], self.spare):
            piece = slice(start, start + self.spare)
            self._add(rows, values[:, piece], None if companions is None else companions[:, piece], first + start)

    def _add(self, rows: slice, values: np.ndarray, companions: np.ndarray | None, first: int) -> None:
        take = values > self.floor[rows, None]
        count = take.sum(axis=1)
        overflow = np.flatnonzero(self.used[rows] + count > self.width)
        if len(overflow):
            self._compact(rows.start + overflow)
        which, column = np.nonzero(take)
        if not len(which):
            return
        position = self.used[rows][which] + (np.cumsum(take, axis=1)[which, column] - 1)
        target = rows.start + which
        self.values[target, position] = values[which, column]
        if self.companions is not None:
            self.companions[target, position] = companions[which, column]
            self.arrivals[target, position] = first + column
        self.used[rows] += count

    def _ranked(self, row: int, count: int) -> np.ndarray:
        """Slots of the ``count`` largest values of ``row`` (equal values: the earliest arrivals)."""
        values = self.values[row]
        if count == len(values):
            return np.arange(count)
        top = np.argpartition(values, len(values) - count)[len(values) - count:]
        if self.arrivals is None:
            return top
        least = values[top].min()
        above = np.flatnonzero(values > least)
        tied = np.flatnonzero(values == least)
        return np.concatenate([above, tied[np.argsort(self.arrivals[row, tied], kind="stable")[:count - len(above)]]])

    def _compact(self, rows: np.ndarray) -> None:
        """Keep only the ``keep`` largest of each of ``rows`` (rows with more than ``keep`` used); a row
        at a time, so that the scratch space is one row's (a compaction is rare: the floor rises fast)."""
        for row in rows:
            top = self._ranked(row, self.keep)
            for array in (self.companions, self.arrivals):
                if array is not None:
                    array[row, :self.keep] = array[row, top]
            kept = self.values[row, top]
            self.values[row, :self.keep] = kept
            self.values[row, self.keep:] = -np.inf
            self.floor[row] = kept.min()
        self.used[rows] = self.keep

    def largest(self) -> np.ndarray:
        """rows x keep: the keep largest values of each row, in no order."""
        self._compact(np.flatnonzero(self.used > self.keep))
        return self.values[:, :self.keep]

    def companion_of(self, rank: int) -> np.ndarray:
        """Per row, the companion of the ``rank``-th largest value (1: the largest; equal values rank by
        arrival, the earlier first)."""
        self._compact(np.flatnonzero(self.used > self.keep))
        out = np.empty(len(self.values))
        for row in range(len(self.values)):
            top = self._ranked(row, rank)                   # the rank largest: the rank-th is the last of them
            values, arrivals = self.values[row, top], self.arrivals[row, top]
            last = np.lexsort((-arrivals, values))[0]       # the smallest value, the latest arrival among equals
            out[row] = self.companions[row, top[last]]
        return out


def _spare(keep: int, size: int) -> int:
    return max(keep // 8, min(size, 1 << 16), 1)


def _row_groups(rows: int, per_row: int):
    """Slices of the rows whose kept order statistics fit in KEEP_NUMBERS together (one pass each)."""
    step = max(1, KEEP_NUMBERS // max(per_row, 1))
    return [slice(start, min(start + step, rows)) for start in range(0, rows, step)]


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
    observed_mean = diffs.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = diffs.std(axis=1, ddof=1)
        observed_t = np.abs(np.where(sd > 0, observed_mean / (sd / np.sqrt(n)),
                                     np.where(np.abs(observed_mean) > NOISE, np.inf, 0.0)))
    asl = np.empty(rows)
    required = {a: np.empty(rows) for a in alphas}
    # the Bα-th largest |t|: the samples with the `most` largest |t| of each row are kept
    place = {a: min(max(int(np.floor(samples * a)), 1), samples) for a in alphas}
    most = max(place.values())
    spare = _spare(most, chunk_size(n))
    groups = _row_groups(rows, _Largest.numbers(most, spare, companions=True))
    for part, group in enumerate(groups):
        shifted = diffs[group] - observed_mean[group, None]
        threshold = observed_t[group, None] * (1.0 - 1e-9)     # equal t values count as "at least"
        hits = np.zeros(len(shifted), dtype=np.int64)
        largest = _Largest(len(shifted), most, spare, companions=True)
        done = 0
        for counts in resample_count_chunks(n, samples, seed):
            for where in row_slices(len(shifted), len(counts), 2 * n):
                state.check()
                w_means, w_t = _resampled_t(shifted[where], counts)
                magnitude = np.abs(w_t)
                hits[where] += (magnitude >= threshold[where]).sum(axis=1)
                largest.add(where, magnitude, w_means, done)
            done += len(counts)
            _report(state, "bootstrap test", done, samples, part, len(groups), group, rows)
        asl[group] = hits / samples
        for a, k in place.items():
            required[a][group] = np.abs(largest.companion_of(k))
    asl[_all_zero(diffs)] = 1.0
    return BootstrapResult(asl, required)


def mean_ci(diffs: np.ndarray, samples: int = 1_000, seed: int = 42, confidence: float = 0.95,
            state: JobState | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of mean(d), per row (queries resampled with replacement).

    The same numbers as ``np.quantile(means, [tail, 1 − tail], axis=1)`` over the B sample means, from
    only the few smallest and largest means of each row (kept across the chunks)."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    if n < 2 or rows == 0:
        return low, high
    tail = (1.0 - confidence) / 2.0
    # np.quantile's "linear" method: the order statistics around (B − 1)·q, weighted by the fraction
    virtual = (samples - 1) * np.asanyarray([tail, 1.0 - tail])
    before = np.floor(virtual)
    gamma = virtual - before
    before = np.where(virtual >= samples - 1, samples - 1, before).astype(np.int64)
    after = np.where(virtual >= samples - 1, samples - 1, before + 1)
    keep_low = min(int(max(before[0], after[0])) + 1, samples)          # the smallest, for the low end
    keep_high = min(samples - int(min(before[1], after[1])), samples)    # the largest, for the high end
    size = chunk_size(n)
    spares = _spare(keep_low, size), _spare(keep_high, size)
    groups = _row_groups(rows, _Largest.numbers(keep_low, spares[0]) + _Largest.numbers(keep_high, spares[1]))
    for part, group in enumerate(groups):
        values = diffs[group]
        smallest = _Largest(len(values), keep_low, spares[0])          # of −mean
        largest = _Largest(len(values), keep_high, spares[1])
        done = 0
        for counts in resample_count_chunks(n, samples, seed, size):
            for where in row_slices(len(values), len(counts), n):
                state.check()
                means = values[where] @ counts.T / n
                smallest.add(where, -means)
                largest.add(where, means)
            done += len(counts)
            _report(state, "bootstrap confidence interval", done, samples, part, len(groups), group, rows)
        ascending_low = np.sort(-smallest.largest(), axis=1)             # ranks 0 .. keep_low − 1
        ascending_high = np.sort(largest.largest(), axis=1)              # ranks B − keep_high .. B − 1
        ends = []
        for q, (sorted_values, first_rank) in enumerate(((ascending_low, 0), (ascending_high, samples - keep_high))):
            pair = np.stack([sorted_values[:, before[q] - first_rank], sorted_values[:, after[q] - first_rank]],
                            axis=1)
            # np.quantile's own interpolation between the two: at 1·γ of a two-value row it is exactly γ
            ends.append(np.quantile(pair, gamma[q:q + 1], axis=1)[0])
        low[group], high[group] = ends
    return low, high


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
    tolerance = 1e-12 * max(float(np.abs(scores).max(initial=0.0)), 1.0)
    rng = np.random.default_rng(seed)
    at_least = np.zeros(len(observed), dtype=np.int64)     # per pair: trials whose range >= its difference
    chunk = chunk_size(n * systems)                         # trials per chunk
    flat = scores.ravel()
    row_starts = (np.arange(n) * systems)[:, None]
    for start in range(0, samples, chunk):
        state.check()
        size = min(chunk, samples - start)
        # Permuting each query's row is sorting random keys (float32: half the memory, same randomness here).
        order = np.argsort(rng.random((size, n, systems), dtype=np.float32), axis=2)
        permuted = flat[row_starts + order]
        trial_means = permuted.mean(axis=1)
        ranges = np.sort(trial_means.max(axis=1) - trial_means.min(axis=1))
        # ranges >= observed, by binary search in the chunk's sorted ranges
        at_least += size - np.searchsorted(ranges, observed - tolerance, side="left")
        if start + size < samples:
            state.progress((start + size) / samples,
                           f"randomized Tukey HSD, {start + size:,} of {samples:,} permutations")
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
