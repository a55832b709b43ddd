"""The original tool's bugs, reproduced on request (``--compat dunaiski2018``), one switch each.

evalgui computes what the Ranking Evaluation Tool (Dunaiski et al. 2018) means to compute; these
switches make it compute what the tool's code computes, so that its published output can be
reproduced. docs/rankfile-compat.md explains each with the numbers it changes. The two swap-method
variants live here, apart from the correct shared ones in ``core/stats/stability.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from evalgui.core.stats.stability import SwapResult

# The original's swap method: 21 bins over the lowest 20/105 of the observed range.
ORIGINAL_BINS = 21
ORIGINAL_SPAN = 5


@dataclass(frozen=True)
class Compat:
    """Which of the original's bugs to reproduce (numbers as in docs/rankfile-compat.md)."""

    bucket_index_counting: bool = False     # 1: per-mille buckets count rank <= i, not rank <= i*T/1000
    swap_single_queries: bool = False       # 2: the swap method compares single-query differences
    swap_partial_bins: bool = False         # 3: bins over 20/105 of the range, non-swaps counted upwards
    significance_estimators: bool = False   # 4: swapDiffMin in bootstrap mode (and estDiff with --swap);
                                            #    no marks for measures with a cut-off
    decisions_last_fuzziness: bool = False  # 5: every row's decisions is the last fuzziness's value
    correlation_skips_first: bool = False   # 6: the correlation leaves out every pair with the first system

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
    "significance_estimators": "the significance matrices take swapDiffMin in bootstrap mode (estDiff with the swap "
                               "method), and measures with a cut-off never get a mark",
    "decisions_last_fuzziness": "every row's decisions is the last fuzziness's value",
    "correlation_skips_first": "the correlation leaves out every pair with the first system",
}


def describe(name: str) -> str:
    """What a preset reproduces, one line per switch (the window's tooltip)."""
    switches = PRESETS[name].active
    return "\n".join(f"{i}. {DESCRIPTIONS[switch]}" for i, switch in enumerate(switches, 1))


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
