"""How stable is a measure? Error and tie rates, ASL rates and the swap method.

One implementation for the meta-evaluation workspace (Buckley & Voorhees 2000, Sakai
2006, on runs + qrels) and the measure-stability workspace (Dunaiski et al. 2018, on
ranks of test entities). Everything works on a plain score matrix, queries x systems
(or a stack of them, iterations x queries x systems), whatever produced it, and is
vectorised over system pairs, query sets and bootstrap samples.

Direction: pass ``higher_better=False`` for measures where a lower value is better (the
average rank of the test entities); "better" then means lower. Ties are decided on the
values as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.stats.significance import NOISE, row_blocks, chunk_size, resample_count_chunks

BETTER, WORSE, EQUAL = 0, 1, 2


def pair_indices(systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered pair (i < j) of ``systems`` systems, as two index arrays."""
    first, second = np.triu_indices(systems, k=1)
    return first.astype(np.int64), second.astype(np.int64)


# ---------------------------------------------------------------------------
# Buckley & Voorhees (2000): decisions over query sets
# ---------------------------------------------------------------------------

def repetition_rng(seed: int, set_size: int, repetition: int) -> np.random.Generator:
    """The random numbers of one repetition at one query-set size: the same whatever the other sizes
    and repetitions asked for, and the same query sets for every measure over as many queries."""
    return np.random.default_rng([seed, set_size, repetition])


def query_sets(n: int, set_size: int, sets: int, replacement: bool, rng: np.random.Generator) -> np.ndarray:
    """sets x n: how often each of n queries is in each of ``sets`` random query sets of ``set_size``
    (0 or 1 without replacement). Drawing a block of sets after another gives the same sets as
    drawing them all at once."""
    if not 1 <= set_size <= (n if not replacement else max(n, set_size)):
        raise ValueError(f"a query set of {set_size} cannot be drawn from {n} queries without replacement")
    if replacement:
        draws = rng.integers(0, n, size=(sets, set_size))
        cells = (np.arange(sets)[:, None] * n + draws).ravel()
        return np.bincount(cells, minlength=sets * n).reshape(sets, n).astype(np.float64)
    # The set_size smallest of n random keys: a uniformly random set of distinct queries.
    keys = rng.random((sets, n))
    kth = np.partition(keys, set_size - 1, axis=1)[:, set_size - 1:set_size]
    return (keys <= kth).astype(np.float64)


def query_set_means(scores: np.ndarray, set_size: int, sets: int, replacement: bool,
                    rng: np.random.Generator) -> np.ndarray:
    """sets x systems: each system's mean over ``sets`` random query sets of ``set_size`` queries."""
    scores = np.asarray(scores, dtype=np.float64)
    return query_sets(scores.shape[0], set_size, sets, replacement, rng) @ scores / set_size


# (set, pair) cells decided at once: the temporaries stay in the processor's cache.
_CELLS_AT_ONCE = 1 << 15


def decisions(means: np.ndarray, fuzziness: float, higher_better: bool = True) -> np.ndarray:
    """Pairs x 3 counts over the rows of ``means`` (sets x systems): how often system i is better
    than j, worse, or equal (|m_i − m_j| ≤ fuzziness · max(|m_i|, |m_j|): Buckley & Voorhees' tie)."""
    means = np.asarray(means, dtype=np.float64)
    first, second = pair_indices(means.shape[1])
    counts = np.zeros((len(first), 3), dtype=np.int64)
    magnitude = np.abs(means)
    block = max(1, _CELLS_AT_ONCE // max(len(first), 1))
    for start in range(0, len(means), block):
        rows, size = means[start:start + block], magnitude[start:start + block]
        diff = rows[:, first] - rows[:, second] if higher_better else rows[:, second] - rows[:, first]
        tolerance = np.maximum(size[:, first], size[:, second])
        tolerance *= fuzziness
        tolerance += NOISE
        # beyond the tolerance either way is a decision; within it, a tie
        counts[:, BETTER] += (diff > tolerance).sum(axis=0)
        np.negative(tolerance, out=tolerance)
        counts[:, WORSE] += (diff < tolerance).sum(axis=0)
    counts[:, EQUAL] = len(means) - counts[:, BETTER] - counts[:, WORSE]
    return counts


def preference_decisions(means: np.ndarray, fuzziness: float) -> np.ndarray:
    """Pairs x 3 counts over the rows of ``means`` (sets x pairs), each pair's mean preference over a
    query set (> 0: its first system preferred, as a preference measure gives it): better above the
    fuzziness, worse below minus it, equal within (|mean| ≤ fuzziness: a preference is already a
    difference on [-1, 1], so the fuzziness is absolute)."""
    means = np.asarray(means, dtype=np.float64)
    tolerance = fuzziness + NOISE
    better = (means > tolerance).sum(axis=0)
    worse = (means < -tolerance).sum(axis=0)
    return np.stack([better, worse, len(means) - better - worse], axis=1).astype(np.int64)


def error_tie_rates(counts: np.ndarray) -> tuple[float, float]:
    """Error and tie rate in percent from pairs x (better, worse, equal) counts:
    Σ min(better, worse) / Σ decisions and Σ equal / Σ decisions."""
    total = counts.sum()
    if total == 0:
        return float("nan"), float("nan")
    errors = np.minimum(counts[:, BETTER], counts[:, WORSE]).sum()
    return 100.0 * errors / total, 100.0 * counts[:, EQUAL].sum() / total


def decision_matrix(counts: np.ndarray, systems: int) -> np.ndarray:
    """systems x systems x 3 from pairs x 3: cell (i, j) = (i better, i worse, equal); (j, i) mirrored."""
    out = np.zeros((systems, systems, 3), dtype=np.int64)
    first, second = pair_indices(systems)
    out[first, second] = counts
    out[second, first] = counts[:, [WORSE, BETTER, EQUAL]]
    return out


@dataclass
class StabilityResult:
    error_rate: float          # percent, mean over repetitions
    tie_rate: float
    error_rate_sd: float       # standard deviation over repetitions (n − 1; 0 with one repetition)
    tie_rate_sd: float
    counts: np.ndarray         # pairs x 3, summed over repetitions


def stability(scores: np.ndarray, set_size: int, sets: int = 1000, fuzziness: float = 0.05,
              replacement: bool = False, repetitions: int = 1, seed: int = 42, higher_better: bool = True,
              state: JobState | None = None) -> StabilityResult:
    """Buckley & Voorhees' error and tie rates of one measure from a queries x systems matrix.

    Each repetition draws ``sets`` query sets of ``set_size`` queries (:func:`repetition_rng`) and
    counts, for every system pair, how often the set means say better, worse or equal."""
    state = state_or_default(state)
    scores = np.asarray(scores, dtype=np.float64)
    rates = np.empty((repetitions, 2))
    total = np.zeros((scores.shape[1] * (scores.shape[1] - 1) // 2, 3), dtype=np.int64)
    for r in range(repetitions):
        state.check()
        means = query_set_means(scores, set_size, sets, replacement, repetition_rng(seed, set_size, r))
        counts = decisions(means, fuzziness, higher_better)
        rates[r] = error_tie_rates(counts)
        total += counts
    spread = rates.std(axis=0, ddof=1) if repetitions > 1 else np.zeros(2)
    return StabilityResult(float(rates[:, 0].mean()), float(rates[:, 1].mean()), float(spread[0]),
                           float(spread[1]), total)


# ---------------------------------------------------------------------------
# Dunaiski et al. (2018): decisions per query, tie relative to the query's mean score
# ---------------------------------------------------------------------------

def per_query_rates(scores: np.ndarray, fuzziness: float, higher_better: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Error and tie rate (percent) of each iteration of an iterations x queries x systems stack.

    Per system pair and query: better, worse, or a tie when |difference| ≤ fuzziness x the mean
    score of all systems on that query; error rate = Σ_pairs min(better, worse) / Σ comparisons.
    A missing score (NaN, e.g. an average over no entity) cannot decide: its comparisons are ties,
    and the query's mean is taken over the other systems."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 2:
        scores = scores[None]
    first, second = pair_indices(scores.shape[2])
    diff = scores[:, :, first] - scores[:, :, second]                   # I x Q x pairs
    present = ~np.isnan(scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, scores, 0.0).sum(axis=2, keepdims=True) / present.sum(axis=2, keepdims=True)
    tolerance = fuzziness * np.nan_to_num(mean)
    equal = (np.abs(diff) <= np.abs(tolerance) + NOISE) | np.isnan(diff)
    better = ~equal & ((diff > 0) if higher_better else (diff < 0))
    worse = ~equal & ~better
    n_better, n_worse, n_equal = better.sum(axis=1), worse.sum(axis=1), equal.sum(axis=1)   # I x pairs
    comparisons = diff.shape[1] * diff.shape[2]
    errors = np.minimum(n_better, n_worse).sum(axis=1)
    if comparisons == 0:
        nan = np.full(scores.shape[0], np.nan)
        return nan, nan.copy()
    return 100.0 * errors / comparisons, 100.0 * n_equal.sum(axis=1) / comparisons


# ---------------------------------------------------------------------------
# Sakai (2006): ASL rates and the estimated difference required
# ---------------------------------------------------------------------------

def pair_differences(scores: np.ndarray, higher_better: bool = True) -> np.ndarray:
    """pairs x queries: per-query difference of each pair (i < j), signed so that > 0 means i is better."""
    first, second = pair_indices(scores.shape[1])
    diffs = (scores[:, first] - scores[:, second]).T
    return diffs if higher_better else -diffs


@dataclass
class AslResult:
    asl: np.ndarray                     # per pair
    rate: dict[float, float]            # level -> percent of pairs with ASL < level
    difference_required: dict[float, float]   # level -> Sakai's estimate (maximum over pairs)


def asl_rates(diffs: np.ndarray, levels, samples: int = 1000, seed: int = 42,
              state: JobState | None = None) -> AslResult:
    """Sakai's paired bootstrap over all pairs at once, summarised at each significance level."""
    from evalgui.core.stats.significance import bootstrap_test

    levels = [float(level) for level in levels]
    result = bootstrap_test(diffs, samples, seed, alpha=levels, state=state)
    pairs = max(len(result.asl), 1)
    rate = {level: 100.0 * float((result.asl < level).sum()) / pairs for level in levels}
    required = {level: (float(np.nanmax(result.required[level])) if len(result.asl) and
                        np.isfinite(result.required[level]).any() else float("nan")) for level in levels}
    return AslResult(result.asl, rate, required)


# ---------------------------------------------------------------------------
# The swap method (Voorhees & Buckley 2002), with bootstrap query sets as Sakai (2006)
# ---------------------------------------------------------------------------

SWAP_BINS = 21
# rows x trials of one product of swap_trials (a block takes a few hundredths of a second)
_SWAP_CELLS = 4_000_000


@dataclass
class SwapResult:
    edges: np.ndarray           # SWAP_BINS + 1 bin edges over |d| from 0 to the largest observed
    trials: np.ndarray          # per bin: pair-trials whose |d| fell in it
    swaps: np.ndarray           # per bin: of those, how many swapped
    limits: dict[float, tuple[float, float]]   # level -> (swapDiffMin, swapDiffMax): the first bin with
                                               # swap rate ≤ level (NaN when no bin gets there)

    @property
    def swap_rate(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.trials > 0, self.swaps / np.maximum(self.trials, 1), np.nan)


def swap_trials(diffs: np.ndarray, samples: int = 1000, seed: int = 42,
                state: JobState | None = None) -> tuple[np.ndarray, np.ndarray]:
    """rows x samples: each pair's mean difference over the first and over the second bootstrap
    query set of each trial (the sets are shared by all rows)."""
    state = state_or_default(state)
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = diffs.shape
    first, second = np.empty((rows, samples)), np.empty((rows, samples))
    # The two streams of query sets drawn a chunk at a time (the same sets as drawn at once: with B up to
    # one chunk, the arithmetic of one draw); Cancel between chunks and blocks of rows.
    size = chunk_size(n)
    for (start, first_sets), (_, second_sets) in zip(resample_count_chunks(n, samples, seed, size),
                                                     resample_count_chunks(n, samples, seed + 1, size)):
        stop = start + len(first_sets)
        for where in row_blocks(rows, len(first_sets), _SWAP_CELLS):
            state.check()
            block = diffs[where]
            first[where, start:stop] = block @ first_sets.T / n
            second[where, start:stop] = block @ second_sets.T / n
        if stop < samples:
            state.progress(stop / samples, f"swap method, {stop:,} of {samples:,} trials")
    return first, second


def swap_bins(first: np.ndarray, second: np.ndarray, levels, bins: int = SWAP_BINS) -> SwapResult:
    """Bin the trials by |first| into ``bins`` equal bins from 0 to the largest one observed; a swap
    is a trial whose two differences disagree in sign; the limits at each level."""
    first, second = np.ravel(first), np.ravel(second)
    magnitude = np.abs(first)
    swap = np.sign(np.where(magnitude > NOISE, first, 0.0)) * np.sign(np.where(np.abs(second) > NOISE, second, 0.0)) < 0
    top = float(magnitude.max()) if len(magnitude) else 0.0
    edges = np.linspace(0.0, top, bins + 1)
    which = np.minimum(np.searchsorted(edges, magnitude, side="right") - 1, bins - 1) if top > 0 else \
        np.zeros(len(magnitude), dtype=np.int64)
    trials = np.bincount(which, minlength=bins)
    swaps = np.bincount(which, weights=swap.astype(np.float64), minlength=bins).astype(np.int64)
    result = SwapResult(edges, trials, swaps, {})
    rate = result.swap_rate
    for level in levels:
        ok = np.flatnonzero((trials > 0) & (rate <= level))
        result.limits[float(level)] = (float(edges[ok[0]]), float(edges[ok[0] + 1])) if len(ok) else \
            (float("nan"), float("nan"))
    return result


def swap_method(diffs: np.ndarray, levels, samples: int = 1000, seed: int = 42, bins: int = SWAP_BINS,
                state: JobState | None = None) -> SwapResult:
    """Per trial, two bootstrap query sets; for each pair the mean difference over each set.
    A swap is a pair-trial whose two mean differences disagree in sign. Trials are binned by
    |first mean difference| into ``bins`` equal bins from 0 to the largest one observed."""
    return swap_bins(*swap_trials(diffs, samples, seed, state), levels, bins)
