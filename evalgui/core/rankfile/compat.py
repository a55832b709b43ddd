"""The original tool's bugs, reproduced on request (``--compat dunaiski2018``), one switch each.

evalgui computes what the Ranking Evaluation Tool (Dunaiski et al. 2018) means to compute; these
switches make it compute what the tool's code computes, so that its published output can be
reproduced. docs/rankfile-compat.md explains each with the numbers it changes. The two swap-method
variants and the original's bootstrap live here, apart from the correct shared ones in
``core/stats/stability.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from evalgui.core.stats.stability import AslResult, SwapResult

# The original's swap method: 21 bins over the lowest 20/105 of the observed range.
ORIGINAL_BINS = 21
ORIGINAL_SPAN = 5


@dataclass(frozen=True)
class Compat:
    """Which of the original's bugs to reproduce (numbers: the sections of docs/rankfile-compat.md;
    7, 8 and 12 are differences it does not reproduce)."""

    bucket_index_counting: bool = False     # 1: per-mille buckets count rank <= i, not rank <= i*T/1000
    swap_single_queries: bool = False       # 2: the swap method compares single-query differences
    swap_partial_bins: bool = False         # 3: bins over 20/105 of the range, non-swaps counted upwards
    significance_estimators: bool = False   # 4: swapDiffMin in bootstrap mode (and estDiff with --swap);
                                            #    no marks for measures with a cut-off
    decisions_last_fuzziness: bool = False  # 5: every row's decisions is the last fuzziness's value
    correlation_skips_first: bool = False   # 6: the correlation leaves out every pair with the first system
    asl_zero_spread: bool = False           # 9: a bootstrap sample (or a pair) without spread has t = 0, and
                                            #    only |t| > 0 counts towards the ASL
    missing_query_ties: bool = False        # 10: a missing score makes every comparison on its query a tie,
                                            #    and a pair with one significant (ASL 0)
    relrate_buckets: bool = False           # 11: relRate of AP_inter_per counts the 1,000 buckets

    @property
    def active(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name)]


PRESETS = {"dunaiski2018": Compat(*(True,) * len(fields(Compat)))}      # keys: rankfile.COMPAT_MODES

# What each switch reproduces, in a sentence (the window's tooltip; docs/rankfile-compat.md has the numbers).
DESCRIPTIONS = {
    "bucket_index_counting": "per-mille buckets count rank <= i instead of rank <= i*T/1000, so ranks above 1,000 "
                             "never count",
    "swap_single_queries": "the swap method compares single-query differences, not mean differences over query sets",
    "swap_partial_bins": "the swap bins cover only the lowest 20/105 of the differences, a non-swap counts in its "
                         "own bin and every higher one, and the limits step by (range)/110.25",
    "significance_estimators": "the significance matrices take the smallest swap difference in bootstrap mode (the "
                               "bootstrap's difference required with the swap method), and measures with a cut-off "
                               "never get a mark",
    "decisions_last_fuzziness": "every row's decisions is the last fuzziness's value",
    "correlation_skips_first": "the correlation leaves out every pair with the first system",
    "asl_zero_spread": "a bootstrap sample without spread gets t = 0 and never counts towards the ASL (so with few "
                       "queries nearly every pair is significant)",
    "missing_query_ties": "a missing score makes every comparison on its query a tie, and its pairs significant "
                          "in the ASL",
    "relrate_buckets": "the entities used by AP (interpolated) ‰ are its 1,000 buckets instead of the entities",
}


# Bug 11: the per-mille measures (by base name) whose count the original gives as its 1,000 buckets.
BUCKET_COUNTED = frozenset({"AP_interpolated"})

# Each switch's section in docs/rankfile-compat.md.
SECTIONS = dict(zip((f.name for f in fields(Compat)), (1, 2, 3, 4, 5, 6, 9, 10, 11)))


def describe(name: str) -> str:
    """What a preset reproduces, one line per switch numbered as in docs/rankfile-compat.md (the window's
    tooltip)."""
    return "\n".join(f"{SECTIONS[switch]}. {DESCRIPTIONS[switch]}" for switch in PRESETS[name].active)


def preset(name: str | None) -> Compat:
    if name is None:
        return Compat()
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown compatibility mode '{name}' (known: {', '.join(PRESETS)})") from None


def single_query_trials(diffs: np.ndarray, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Bug 2: rows x (samples * queries). For each trial and each position of its two bootstrap query
    lists, the pair's difference on the one query drawn there in each list, not the mean over the set."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    n = diffs.shape[1]
    rng = np.random.default_rng(seed)
    first_queries = rng.integers(0, n, size=samples * n)
    second_queries = rng.integers(0, n, size=samples * n)
    return diffs[:, first_queries], diffs[:, second_queries]


def partial_bins(first: np.ndarray, second: np.ndarray, levels) -> SwapResult:
    """Bug 3: the original's binning of swap trials.

    lo and hi are the smallest and largest |difference| of both lists; the 21 bin edges are
    lo + m (hi - lo) / 105, m = 0..20, so they span the lowest 20/105 of the range and everything
    above e_20 falls in the last bin. A swap (the two differences' product <= 0, so a zero counts)
    is counted in its own bin only, a non-swap in its own bin and every higher one. The first bin
    whose swap rate is at most the level gives swapDiffMin/Max = lo + m* (e_20 - lo)/21 and
    lo + (m* + 1)(e_20 - lo)/21 (a step of (hi - lo)/110.25, not the bin width); -inf/+inf if none."""
    first, second = np.ravel(first), np.ravel(second)
    magnitude = np.abs(first)
    both = np.concatenate((magnitude, np.abs(second)))
    low, high = (float(both.min()), float(both.max())) if len(both) else (0.0, 0.0)
    edges = np.array([low + m * ((high - low) / ORIGINAL_BINS / ORIGINAL_SPAN) for m in range(ORIGINAL_BINS)])
    which = np.minimum(np.searchsorted(edges, magnitude, side="right") - 1, ORIGINAL_BINS - 1)
    which = np.maximum(which, 0)
    swap = first * second <= 0
    swaps = np.bincount(which[swap], minlength=ORIGINAL_BINS)
    kept = np.bincount(which[~swap], minlength=ORIGINAL_BINS)
    trials = swaps + np.cumsum(kept)
    result = SwapResult(edges, trials, swaps, {})
    rate = result.swap_rate
    step = (edges[-1] - edges[0]) / len(edges)
    for level in levels:
        ok = np.flatnonzero((trials > 0) & (rate <= level))
        result.limits[float(level)] = (low + ok[0] * step, low + (ok[0] + 1) * step) if len(ok) else \
            (-np.inf, np.inf)
    return result


def original_asl(diffs: np.ndarray, levels, samples: int, seed: int) -> AslResult:
    """Bug 9: Sakai's paired bootstrap as the original computes it, on pairs x queries differences.

    t = mean / (sd / sqrt(n)) with the population sd, and t = 0 when the sd is 0, both for the
    observed differences z and for each resample of w = z - mean(z). A resample counts towards a
    pair's ASL only when 0 < |t*| and |t*| >= |t(z)|, so a resample without spread never counts
    (evalgui's bootstrap counts it as infinitely extreme). estDiff at level f: the resamples sorted by
    |t*| descending (ties in drawing order), the |mean| of the int(f * B)-th, the maximum over pairs.
    The B resamples are shared by every pair, as in the original."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    pairs, n = diffs.shape
    levels = [float(level) for level in levels]
    picks = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    asl = np.empty(pairs)
    found = np.empty((len(levels), pairs))
    positions = [int(level * samples) - 1 for level in levels]
    spread = np.std(diffs, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.abs(np.where(spread == 0, 0.0, np.mean(diffs, axis=1) / (spread / np.sqrt(n))))
    w = diffs - np.mean(diffs, axis=1, keepdims=True)
    step = max(1, 4_000_000 // max(samples * n, 1))          # pairs per block: memory stays bounded
    for start in range(0, pairs, step):
        drawn = w[start:start + step][:, picks]                                      # pairs x B x n
        mean = np.cumsum(drawn, axis=2)[..., -1] / n          # summed in order, as Python's sum()
        sd = np.std(drawn, axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(np.where(sd == 0, 0.0, mean / (sd / np.sqrt(n))))
        block = slice(start, start + len(drawn))
        asl[block] = np.count_nonzero((t > 0) & (t >= observed[block, None]), axis=1) / samples
        order = np.argsort(-t, axis=1, kind="stable")
        for l, position in enumerate(positions):
            found[l, block] = np.abs(np.take_along_axis(mean, order[:, position:position + 1] if position >= 0
                                                         else order[:, -1:], axis=1)[:, 0])
    rate = {level: 100.0 * float((asl < level).sum()) / max(pairs, 1) for level in levels}
    required = {level: float(found[l].max()) if pairs else float("nan") for l, level in enumerate(levels)}
    return AslResult(asl, rate, required)
