"""How many queries a paired comparison needs: Sakai's topic-set-size design for the paired t test.

The power of a two-sided paired t test on ``n`` queries, when the true mean difference is ``d`` and
the per-query differences have standard deviation ``sd``, is exact from the noncentral t
distribution: ``T' ~ nct(n - 1, d·√n / sd)``, power = P(T' > t_c) + P(T' < −t_c), with
``t_c`` the two-sided critical value. :func:`topic_set_size` finds the fewest queries whose power
reaches the target; :func:`minimum_detectable_difference` the smallest difference that ``n``
queries detect with that power.
"""

from __future__ import annotations

import math

# Beyond this many queries the answer is "more than anyone can judge"; the search stops there.
MAX_QUERIES = 10**9


class PowerError(ValueError):
    """A calculator's argument out of range, named by its keyword."""


def _check(name: str, value: float, low: float, high: float | None = None, *, low_open: bool = True) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise PowerError(f"{name}={value!r}: must be a number") from None
    if not math.isfinite(value):
        raise PowerError(f"{name}={value}: must be a finite number")
    if value < low or (low_open and value == low):
        raise PowerError(f"{name}={value:g}: must be greater than {low:g}" if low_open
                         else f"{name}={value:g}: must be at least {low:g}")
    if high is not None and value >= high:
        raise PowerError(f"{name}={value:g}: must be less than {high:g}")
    return value


def paired_t_power(queries, difference, sd, alpha: float = 0.05):
    """The power of a two-sided paired t test (numpy arrays broadcast: one call for many sizes)."""
    import numpy as np
    from scipy import stats

    n = np.asarray(queries, dtype=float)
    df = n - 1
    critical = stats.t.isf(alpha / 2, df)
    shift = np.asarray(difference, dtype=float) * np.sqrt(n) / sd
    # The lower tail as the upper tail of the mirrored shift: scipy's nct.cdf returns NaN far out in it.
    lower = np.nan_to_num(stats.nct.sf(critical, df, -shift), nan=0.0)
    return stats.nct.sf(critical, df, shift) + lower


def topic_set_size(sd: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The fewest queries with which a two-sided paired t test at level ``alpha`` detects a true mean
    difference of ``difference`` with probability ``power``, when the per-query differences have
    standard deviation ``sd``."""
    sd = _check("sd", sd, 0.0)
    difference = _check("difference", abs(_check("difference", difference, -math.inf, low_open=False)), 0.0)
    alpha = _check("alpha", alpha, 0.0, 1.0)
    power = _check("power", power, alpha, 1.0)
    # Power grows with n: double to a size that reaches it, then halve the interval down to the fewest.
    low, high = 1, 2
    while paired_t_power(high, difference, sd, alpha) < power:
        low, high = high, high * 2
        if high > MAX_QUERIES:
            raise PowerError(f"difference={difference:g}: more than {MAX_QUERIES:,} queries would be needed "
                             f"to detect it with sd={sd:g}")
    while high - low > 1:
        middle = (low + high) // 2
        if paired_t_power(middle, difference, sd, alpha) >= power:
            high = middle
        else:
            low = middle
    return int(high)


def minimum_detectable_difference(sd: float, queries: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true mean difference that a two-sided paired t test at level ``alpha`` on
    ``queries`` queries detects with probability ``power``, when the per-query differences have
    standard deviation ``sd``."""
    from scipy.optimize import brentq

    sd = _check("sd", sd, 0.0)
    if isinstance(queries, bool) or not isinstance(queries, (int, float)) or queries != queries // 1 or queries < 2:
        raise PowerError(f"queries={queries!r}: must be a whole number of at least 2")
    queries = int(queries)
    alpha = _check("alpha", alpha, 0.0, 1.0)
    power = _check("power", power, alpha, 1.0)
    high = sd
    while paired_t_power(queries, high, sd, alpha) < power:
        high *= 2
    return float(brentq(lambda d: paired_t_power(queries, d, sd, alpha) - power, 0.0, high, xtol=1e-12, rtol=1e-12))
