"""Topic-set-size design: the fewest queries for a paired t test, and the smallest difference detected."""

import math

import numpy as np
import pytest

import evalgui as eg
from evalgui.core.stats.power import PowerError, minimum_detectable_difference, paired_t_power, topic_set_size

CASES = [(0.2, 0.05), (0.1, 0.02), (0.3, 0.1), (0.15, 0.01), (0.2, 0.3), (0.05, 0.04)]


@pytest.mark.parametrize("sd, difference", CASES)
def test_the_fewest_queries_reach_the_power_and_one_fewer_does_not(sd, difference):
    n = topic_set_size(sd, difference)
    assert paired_t_power(n, difference, sd) >= 0.8
    assert n == 2 or paired_t_power(n - 1, difference, sd) < 0.8


@pytest.mark.parametrize("sd, difference", CASES)
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9)])
def test_sizes_and_differences_agree_with_statsmodels(sd, difference, alpha, power):
    smp = pytest.importorskip("statsmodels.stats.power", reason="statsmodels is the independent reference")
    reference = smp.TTestPower().solve_power(effect_size=difference / sd, nobs=None, alpha=alpha, power=power,
                                             alternative="two-sided")
    n = topic_set_size(sd, difference, alpha=alpha, power=power)
    assert n == max(2, math.ceil(reference))
    detectable = minimum_detectable_difference(sd, n, alpha=alpha, power=power)
    effect = smp.TTestPower().solve_power(effect_size=None, nobs=n, alpha=alpha, power=power,
                                          alternative="two-sided")
    assert detectable == pytest.approx(abs(float(np.ravel(effect)[0])) * sd, rel=1e-5)
    assert detectable <= difference


def test_a_simulated_experiment_rejects_as_often_as_the_power_says():
    # Independent of any formula: paired t tests on normal differences, the size the design asks for.
    from scipy import stats

    sd, difference = 0.2, 0.08
    n = topic_set_size(sd, difference)
    rng = np.random.default_rng(7)
    samples = rng.normal(difference, sd, size=(20_000, n))
    p = stats.ttest_1samp(samples, 0.0, axis=1).pvalue
    assert np.mean(p < 0.05) == pytest.approx(paired_t_power(n, difference, sd), abs=0.01)


def test_sakai_worked_example_normal_approximation_is_close():
    # Sakai (2016) starts from the normal approximation n ≈ ((z_{α/2} + z_β) σ / minD)² + z_{α/2}² / 2
    # and then searches with the noncentral t; the exact answer sits within one or two of it.
    from scipy import stats

    sd, difference = 0.25, 0.05
    z = stats.norm.isf(0.025) + stats.norm.isf(0.2)
    approximate = (z * sd / difference) ** 2 + stats.norm.isf(0.025) ** 2 / 2
    assert abs(topic_set_size(sd, difference) - approximate) <= 2


def test_the_api_names_the_keyword_that_is_wrong():
    assert eg.topic_set_size(sd=0.2, difference=0.05) == 128
    assert eg.minimum_detectable_difference(sd=0.2, queries=50) == pytest.approx(0.0808, abs=1e-4)
    with pytest.raises(PowerError, match=r"^alpha=1\.5: must be less than 1$"):
        eg.topic_set_size(sd=0.2, difference=0.05, alpha=1.5)
    with pytest.raises(PowerError, match=r"^sd=0: must be greater than 0$"):
        eg.topic_set_size(sd=0, difference=0.05)
    with pytest.raises(PowerError, match=r"^queries=1: must be a whole number of at least 2$"):
        eg.minimum_detectable_difference(sd=0.2, queries=1)
    with pytest.raises(PowerError, match="power=0.01"):
        eg.minimum_detectable_difference(sd=0.2, queries=10, power=0.01)
    with pytest.raises(PowerError, match="more than 1,000,000,000 queries"):
        eg.topic_set_size(sd=1.0, difference=1e-7)
