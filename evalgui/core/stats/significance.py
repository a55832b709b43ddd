"""Paired significance tests, multiple-comparison corrections and effect sizes.

Everything works on a *differences* matrix ``D`` (pairs x queries: per-query
score of system a minus system b, one row per compared pair, the same queries
for every row) or on a queries x systems score matrix (Tukey's HSD). The
resampling tests draw their random samples once per call and share them among
all rows, so 435 pairs cost one matrix product per chunk of samples, not 435
loops. They draw the B samples in chunks (see CHUNK_NUMBERS): memory stays
bounded whatever B, and Cancel and progress come between chunks.

Each test and correction is run through its record in the catalogue
(``TESTS[name].kernel``, ``CORRECTIONS[name].kernel``): :func:`run_test`,
:func:`correct`.

Conventions (each is what the cited reference or scipy does):

* t-test, Wilcoxon signed-rank, sign test: ``scipy.stats.ttest_rel``,
  ``scipy.stats.wilcoxon`` and ``scipy.stats.binomtest`` (through the binomial
  distribution, vectorised) with their defaults, two-sided. Where every
  difference is zero scipy returns NaN (0/0); we report p = 1 (no evidence of a
  difference), since NaN would silently drop the pair from a correction. On one
  query no test can tell two systems apart: the t-test and the bootstrap give
  NaN, and the comparison engine reports every test's p as undefined (NaN).
* Randomization (Fisher; Smucker et al. 2007): statistic |mean(d)|; p = share of
  the B sign flips whose |mean| is at least the observed one (as ranx). With
  2^n <= B every flip is enumerated once and p is exact.
* Bootstrap (Sakai 2006): t(z) = mean(z) / (sd(z) / sqrt(n)), sd with n - 1;
  w = z - mean(z); ASL = #{b : |t(w*_b)| >= |t(z)|} / B.
* With B above one chunk, the p-values are the same as from one draw; the
  order statistics of sample means (the bootstrap CI, the difference required)
  may differ in the last bit, as the BLAS rounds products of other shapes
  differently, and among samples of equal |t| another may be the Bα-th.
* Randomized Tukey HSD (Carterette 2012): within each query the systems'
  scores are permuted; p for a pair = share of trials whose range of system
  means (max - min) is at least the pair's observed mean difference.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace

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


@dataclass(frozen=True)
class TestInput:
    """What a test's kernel is given: a pairs x queries differences matrix and the test's settings.
    Tests of the systems together (Tukey's HSD) also read the queries x systems ``scores`` and which
    two columns each row compares (``pairs``)."""

    diffs: np.ndarray
    samples: int | None = None              # B of a resampling test (None: its default)
    seed: int = 42
    alpha: float = 0.05
    state: JobState | None = None
    scores: np.ndarray | None = None
    pairs: list[tuple[int, int]] | None = None


@dataclass
class TestOutput:
    __test__ = False

    p: np.ndarray                                 # per row
    difference_required: np.ndarray | None = None  # per row, at alpha (the bootstrap's estimate)


def run_test(name: str, job: TestInput) -> TestOutput:
    """Run the test ``name`` through its record's kernel."""
    record = TESTS[check_test(name)]
    if record.samples is not None and job.samples is None:
        job = replace(job, samples=record.samples)
    return record.kernel(job)


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
        return np.full(len(diffs), np.nan)          # one query: no variance, p undefined
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

# A resampling test draws its B samples in chunks of at most CHUNK_NUMBERS random numbers (float64: 8 MB),
# whatever B: memory stays bounded, and Cancel and progress come between chunks and between the blocks of
# rows of a chunk. The chunks come in order from one generator, so they are the rows of the one B x n
# matrix a single draw gives: the p-values do not depend on the chunk size. With B at most one chunk
# (every default B) the arithmetic is exactly the unchunked one.
CHUNK_NUMBERS = 1_000_000
# Rows x samples of one matrix product (8 MB): the rows go through a chunk in blocks of this many cells.
BLOCK_CELLS = 1_000_000
# An order statistic over samples spread over several chunks (the bootstrap's difference required, the
# confidence interval) keeps, per row, the largest (or smallest) values seen so far (:class:`_Largest`);
# the rows whose kept values fit in this many numbers go through the samples together, the others in
# more passes.
KEEP_NUMBERS = 4_000_000


def chunk_size(n: int) -> int:
    """Samples per chunk when a sample holds ``n`` numbers (one per query)."""
    return max(1, CHUNK_NUMBERS // max(n, 1))


def row_blocks(rows: int, samples: int, cells: int = BLOCK_CELLS) -> list[slice]:
    """Slices of ``rows`` whose rows x ``samples`` stay within ``cells``."""
    step = max(1, cells // max(samples, 1))
    return [slice(start, min(start + step, rows)) for start in range(0, rows, step)]


def _report(state: JobState, what: str, done: float, total: int, part: int = 0, parts: int = 1) -> None:
    """Progress between chunks and row blocks: ``done`` of ``total`` samples in pass ``part`` of ``parts``."""
    fraction = (part + done / max(total, 1)) / parts
    if 0.0 < fraction < 1.0:
        state.progress(fraction, f"{what}, {int(done):,} of {total:,} samples" +
                       (f" (pass {part + 1} of {parts})" if parts > 1 else ""))


def sign_chunks(n: int, samples: int, seed: int, size: int | None = None):
    """(first sample, chunk) of the rows of :func:`sign_matrix`, ``size`` (default :func:`chunk_size`) at a time."""
    exact = n < 63 and 2 ** n <= samples
    total = 2 ** n if exact else samples
    size = chunk_size(n) if size is None else max(1, int(size))
    rng = None if exact else np.random.default_rng(seed)
    powers = np.arange(n, dtype=np.int64)
    for start in range(0, total, size):
        stop = min(start + size, total)
        if exact:
            bits = (np.arange(start, stop, dtype=np.int64)[:, None] >> powers) & 1
            yield start, (1 - 2 * bits).astype(np.float64)
        else:
            yield start, rng.choice(np.array([-1.0, 1.0]), size=(stop - start, n))


def sign_matrix(n: int, samples: int, seed: int) -> tuple[np.ndarray, bool]:
    """B x n random signs (±1), or all 2^n sign vectors when that is no more than B (exact)."""
    exact = n < 63 and 2 ** n <= samples
    total = 2 ** n if exact else samples
    return np.concatenate([c for _, c in sign_chunks(n, samples, seed, total)] or [np.zeros((0, n))]), exact


def randomization_test(diffs: np.ndarray, samples: int = 10_000, seed: int = 42,
                       state: JobState | None = None) -> np.ndarray:
    """Two-sided paired randomization test per row; the sign flips are shared by all rows."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    if n == 0:
        return np.ones(rows)
    total = 2 ** n if n < 63 and 2 ** n <= samples else samples
    observed = np.abs(diffs.sum(axis=1))
    counts = np.zeros(rows, dtype=np.int64)
    for start, signs in sign_chunks(n, samples, seed):
        for where in row_blocks(rows, len(signs)):
            state.check()
            block = diffs[where]
            counts[where] += (np.abs(block @ signs.T) >= observed[where, None] - _tolerance(block)).sum(axis=1)
            _report(state, "randomization test", start + len(signs) * where.stop / rows, total)
    return counts / total


def _tolerance(diffs: np.ndarray) -> np.ndarray:
    # Sums of the same numbers in another order differ in the last bits; such a sum "ties" the observed one.
    return (1e-9 * np.abs(diffs).sum(axis=1))[:, None]


def resample_count_chunks(n: int, samples: int, seed: int, size: int | None = None):
    """(first sample, chunk) of the rows of :func:`resample_counts`, ``size`` (default :func:`chunk_size`)
    at a time."""
    rng = np.random.default_rng(seed)
    size = chunk_size(n) if size is None else max(1, int(size))
    for start in range(0, samples, size):
        rows = min(size, samples - start)
        draws = rng.integers(0, n, size=(rows, n))
        draws += (np.arange(rows, dtype=np.int64) * n)[:, None]      # (sample, query) as one flat index
        yield start, np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)


def resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """B x n: how often each query is drawn in each bootstrap sample (n draws with replacement)."""
    if samples < 1:
        return np.zeros((0, n))
    return next(resample_count_chunks(n, samples, seed, samples))[1]


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
    """Per row, the ``keep`` largest values offered so far over the chunks (and a companion of each):
    what an order statistic near the top needs, without holding all B samples.

    A value not above its row's floor (the row's keep-th largest at the last compaction) cannot be
    among them and is dropped at once; the others go into ``spare`` room, and rows that would overflow
    are compacted back to their keep largest. As the floor rises, few values get past it, so a chunk
    costs a comparison per value and compactions are rare."""

    def __init__(self, rows: int, keep: int, spare: int, companions: bool = False):
        self.keep, self.spare = keep, max(1, spare)
        self.values = np.full((rows, keep + self.spare), -np.inf)
        self.companions = np.zeros((rows, keep + self.spare)) if companions else None
        self.used = np.zeros(rows, dtype=np.int64)
        self.floor = np.full(rows, -np.inf)

    @staticmethod
    def numbers(keep: int, spare: int, companions: bool = False) -> int:
        """Numbers held per row (for the memory bound)."""
        return (keep + max(1, spare)) * (2 if companions else 1)

    def add(self, where: slice, values: np.ndarray, companions: np.ndarray | None = None) -> None:
        """Offer ``values`` (rows of ``where`` x samples) and their ``companions``."""
        take = values > self.floor[where, None]
        width = self.keep + self.spare
        if (self.used[where] + take.sum(axis=1) > width).any():
            self._compact(where)
            take = values > self.floor[where, None]
            if (take.sum(axis=1) > self.spare).any():           # more than the room: offer it in halves
                half = values.shape[1] // 2
                for part in (slice(0, half), slice(half, None)):
                    self.add(where, values[:, part], None if companions is None else companions[:, part])
                return
        which, column = np.nonzero(take)
        if not len(which):
            return
        position = self.used[where][which] + np.cumsum(take, axis=1)[which, column] - 1
        rows = where.start + which
        self.values[rows, position] = values[which, column]
        if self.companions is not None:
            self.companions[rows, position] = companions[which, column]
        self.used[where] += take.sum(axis=1)

    def _compact(self, where: slice) -> None:
        block = self.values[where]
        kth = block.shape[1] - self.keep
        top = np.argpartition(block, kth, axis=1)[:, kth:]
        kept = np.take_along_axis(block, top, axis=1)
        if self.companions is not None:
            self.companions[where, :self.keep] = np.take_along_axis(self.companions[where], top, axis=1)
        self.values[where, :self.keep] = kept
        self.values[where, self.keep:] = -np.inf
        self.floor[where] = kept.min(axis=1)
        self.used[where] = self.keep

    def largest(self) -> tuple[np.ndarray, np.ndarray | None]:
        """rows x keep: the keep largest values of each row (in no order), and their companions."""
        self._compact(slice(0, len(self.values)))
        return (self.values[:, :self.keep],
                None if self.companions is None else self.companions[:, :self.keep])

    def rank(self, place: int) -> tuple[np.ndarray, np.ndarray]:
        """Per row: the ``place``-th largest value (1: the largest) and its companion."""
        values, companions = self.largest()
        k = self.keep - place
        at = np.argpartition(values, k, axis=1)[:, k:k + 1]
        return (np.take_along_axis(values, at, axis=1)[:, 0],
                np.take_along_axis(companions, at, axis=1)[:, 0])


def _spare(keep: int) -> int:
    """Room for the values that pass the floor between compactions."""
    return max(keep // 2, 1024)


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
        return BootstrapResult(np.full(rows, np.nan), {a: np.full(rows, np.nan) for a in alphas})
    observed_mean = diffs.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = diffs.std(axis=1, ddof=1)
        observed_t = np.abs(np.where(sd > 0, observed_mean / (sd / np.sqrt(n)),
                                     np.where(np.abs(observed_mean) > NOISE, np.inf, 0.0)))
    asl = np.empty(rows)
    required = {a: np.empty(rows) for a in alphas}
    place = {a: min(max(int(np.floor(samples * a)), 1), samples) for a in alphas}   # the Bα-th largest |t|
    size = chunk_size(n)
    if samples <= size:
        # One chunk: every sample's |t| at hand; the Bα-th largest as an index into the ascending order.
        counts = next(resample_count_chunks(n, samples, seed, size))[1]
        blocks = row_blocks(rows, samples)
        for where in blocks:
            state.check()
            _report(state, "bootstrap test", samples * where.start / rows, samples)
            w_means, w_t = _resampled_t(diffs[where] - observed_mean[where, None], counts)
            magnitude = np.abs(w_t)
            threshold = observed_t[where, None] * (1.0 - 1e-9)     # equal t values count as "at least"
            asl[where] = (magnitude >= threshold).mean(axis=1)
            rows_here = np.arange(magnitude.shape[0])
            for a, p in place.items():
                at = np.argpartition(magnitude, samples - p, axis=1)[:, samples - p]
                required[a][where] = np.abs(w_means[rows_here, at])
    else:
        # Several chunks: each row keeps the samples with the `most` largest |t| seen so far.
        most = max(place.values())
        groups = row_blocks(rows, _Largest.numbers(most, _spare(most), companions=True), KEEP_NUMBERS)
        for part, group in enumerate(groups):
            shifted = diffs[group] - observed_mean[group, None]
            threshold = observed_t[group, None] * (1.0 - 1e-9)
            hits = np.zeros(len(shifted), dtype=np.int64)
            largest = _Largest(len(shifted), most, _spare(most), companions=True)
            for start, counts in resample_count_chunks(n, samples, seed, size):
                for where in row_blocks(len(shifted), len(counts)):
                    state.check()
                    w_means, w_t = _resampled_t(shifted[where], counts)
                    magnitude = np.abs(w_t)
                    hits[where] += (magnitude >= threshold[where]).sum(axis=1)
                    state.check()                   # (keeping the largest takes as long as the product)
                    largest.add(where, magnitude, w_means)
                    _report(state, "bootstrap test", start + len(counts) * where.stop / len(shifted), samples,
                            part, len(groups))
            asl[group] = hits / samples
            for a, p in place.items():
                required[a][group] = np.abs(largest.rank(p)[1])
    asl[_all_zero(diffs)] = 1.0
    return BootstrapResult(asl, required)


def _lerp(low: np.ndarray, high: np.ndarray, gamma: float) -> np.ndarray:
    """numpy's linear interpolation of quantiles, to the last bit (from the nearer end)."""
    step = high - low
    return high - step * (1 - gamma) if gamma >= 0.5 else low + step * gamma


def mean_ci(diffs: np.ndarray, samples: int = 1_000, seed: int = 42, confidence: float = 0.95,
            state: JobState | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of mean(d), per row (queries resampled with replacement):
    ``np.quantile(means, [tail, 1 − tail])`` of the B sample means (over several chunks, from the few
    smallest and largest means of each row)."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    if n < 2:
        return low, high
    tail = (1.0 - confidence) / 2.0
    size = chunk_size(n)
    if samples <= size:
        counts = next(resample_count_chunks(n, samples, seed, size))[1]
        for where in row_blocks(rows, samples):
            state.check()
            _report(state, "confidence interval", samples * where.start / rows, samples)
            means = diffs[where] @ counts.T / n
            low[where], high[where] = np.quantile(means, [tail, 1.0 - tail], axis=1)
        return low, high
    # numpy's "linear" quantile: the order statistics around (B − 1)·q, weighted by the fraction gamma.
    ends = []
    for q in (tail, 1.0 - tail):
        virtual = (samples - 1) * q
        before = int(np.floor(virtual))
        if virtual >= samples - 1:
            before = after = samples - 1
        else:
            after = before + 1
        ends.append((before, after, virtual - np.floor(virtual)))
    keep_low = ends[0][1] + 1                      # ranks 0 .. after: the smallest
    keep_high = samples - ends[1][0]               # ranks before .. B − 1: the largest
    groups = row_blocks(rows, _Largest.numbers(keep_low, _spare(keep_low)) +
                        _Largest.numbers(keep_high, _spare(keep_high)), KEEP_NUMBERS)
    for part, group in enumerate(groups):
        values = diffs[group]
        smallest = _Largest(len(values), keep_low, _spare(keep_low))            # of −mean
        largest = _Largest(len(values), keep_high, _spare(keep_high))
        undefined = np.zeros(len(values), dtype=bool)
        for start, counts in resample_count_chunks(n, samples, seed, size):
            for where in row_blocks(len(values), len(counts)):
                state.check()
                means = values[where] @ counts.T / n
                undefined[where] |= np.isnan(means).any(axis=1)
                state.check()
                smallest.add(where, -means)
                state.check()
                largest.add(where, means)
                _report(state, "confidence interval", start + len(counts) * where.stop / len(values), samples,
                        part, len(groups))
        ascending_low = np.sort(-smallest.largest()[0], axis=1)    # ranks 0 .. keep_low − 1
        ascending_high = np.sort(largest.largest()[0], axis=1)     # ranks B − keep_high .. B − 1
        for (before, after, gamma), ordered, first, out in ((ends[0], ascending_low, 0, low),
                                                           (ends[1], ascending_high, samples - keep_high, high)):
            value = _lerp(ordered[:, before - first], ordered[:, after - first], gamma)
            out[group] = np.where(undefined, np.nan, value)
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
    rng = np.random.default_rng(seed)
    ranges = np.empty(samples)
    chunk = max(1, CHUNK_NUMBERS // max(n * systems, 1))  # trials per chunk, to bound the memory
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


# The tests' kernels (named by their records in the catalogue).

def t_kernel(job: TestInput) -> TestOutput:
    return TestOutput(t_test(job.diffs))


def wilcoxon_kernel(job: TestInput) -> TestOutput:
    return TestOutput(wilcoxon_test(job.diffs))


def sign_kernel(job: TestInput) -> TestOutput:
    return TestOutput(sign_test(job.diffs))


def randomization_kernel(job: TestInput) -> TestOutput:
    return TestOutput(randomization_test(job.diffs, job.samples, job.seed, state=job.state))


def bootstrap_kernel(job: TestInput) -> TestOutput:
    result = bootstrap_test(job.diffs, job.samples, job.seed, job.alpha, state=job.state)
    return TestOutput(result.asl, result.difference_required)


def tukey_kernel(job: TestInput) -> TestOutput:
    if job.scores is None or job.pairs is None:
        raise ValueError("Tukey's HSD tests systems together: it needs each system's per-query scores")
    return TestOutput(tukey_hsd(job.scores, job.pairs, job.samples, job.seed, state=job.state))


# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------

def correct(p_values, method: str) -> np.ndarray:
    """Adjusted p-values of one family of comparisons (NaN entries are left out of the family)."""
    check_correction(method)
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        out[present] = CORRECTIONS[method].kernel(p[present])
    return out


# The corrections' kernels (named by their records in the catalogue): a family's p-values, 1-D without NaN.

def no_correction(p: np.ndarray) -> np.ndarray:
    return p


def bonferroni(p: np.ndarray) -> np.ndarray:
    return np.minimum(p * len(p), 1.0)


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    from scipy import stats

    return stats.false_discovery_control(p, method="bh")


def _step_down(p: np.ndarray, adjust) -> np.ndarray:
    """Holm-type step-down: ``adjust(factors, ascending p)`` per rank, then the running maximum."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    factors = m - np.arange(m)                      # m, m−1, ..., 1
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(adjust(factors, p[order]))
    return adjusted


def holm(p: np.ndarray) -> np.ndarray:
    return _step_down(p, lambda factors, ordered: np.minimum(factors * ordered, 1.0))


def holm_sidak(p: np.ndarray) -> np.ndarray:
    return _step_down(p, lambda factors, ordered: -np.expm1(factors * np.log1p(-np.minimum(ordered, 1.0))))


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
