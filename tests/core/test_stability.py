"""The shared stability arithmetic: error/tie rates, decision matrices, ASL rates, the swap method."""

import numpy as np
import pytest

from evalgui.core.stats import stability as st
from evalgui.core.stats.significance import bootstrap_test


def test_decisions_and_rates_by_hand_with_the_fuzziness_boundary():
    # three query-set means of two systems: 0.50 vs 0.475 is exactly 5% of the larger -> equal at f=0.05
    means = np.array([[0.50, 0.475], [0.50, 0.40], [0.40, 0.50]])
    counts = st.decisions(means, fuzziness=0.05)
    assert counts.tolist() == [[1, 1, 1]]                   # better, worse, equal
    assert st.error_tie_rates(counts) == pytest.approx((100 / 3, 100 / 3))
    assert st.decisions(means, fuzziness=0.049).tolist() == [[2, 1, 0]]
    assert st.decisions(means, fuzziness=0.05, higher_better=False).tolist() == [[1, 1, 1]]
    assert st.decisions(means[:2], fuzziness=0.0, higher_better=False).tolist() == [[0, 2, 0]]


def test_decision_matrix_mirrors_the_pairs():
    means = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3], [0.3, 0.3, 0.3]])
    counts = st.decisions(means, fuzziness=0.0)
    # pairs (0,1), (0,2), (1,2): set 1 says all better, set 2 all worse, set 3 all equal
    assert counts.tolist() == [[1, 1, 1]] * 3
    matrix = st.decision_matrix(counts, 3)
    assert matrix[0, 1].tolist() == [1, 1, 1] and matrix[1, 0].tolist() == [1, 1, 1]
    lopsided = st.decision_matrix(np.array([[5, 1, 2], [0, 0, 8], [3, 4, 1]]), 3)
    assert lopsided[0, 1].tolist() == [5, 1, 2] and lopsided[1, 0].tolist() == [1, 5, 2]
    assert lopsided[2, 1].tolist() == [4, 3, 1]
    assert st.error_tie_rates(np.array([[5, 1, 2], [0, 0, 8], [3, 4, 1]])) == pytest.approx((4 / 24 * 100, 11 / 24 * 100))


def test_query_sets_without_replacement_are_distinct_queries():
    rng = np.random.default_rng(0)
    scores = np.eye(10)                      # query q scores 1 for system q only: a mean counts the picks
    means = st.query_set_means(scores, 4, 50, False, rng)
    assert np.allclose(means.sum(axis=1), 1.0) and set(np.unique(means * 4)) <= {0.0, 1.0}
    with_replacement = st.query_set_means(scores, 4, 500, True, rng)
    assert (with_replacement * 4 > 1).any()
    with pytest.raises(ValueError, match="without replacement"):
        st.query_set_means(scores, 11, 5, False, rng)


def test_stability_is_seeded_and_error_rate_falls_with_set_size():
    rng = np.random.default_rng(1)
    scores = np.clip(rng.random((50, 1)) + rng.normal(0, 0.15, (50, 6)) + np.linspace(0, 0.15, 6), 0, 1)
    small = st.stability(scores, 5, sets=400, repetitions=5, seed=3)
    large = st.stability(scores, 25, sets=400, repetitions=5, seed=3)
    again = st.stability(scores, 5, sets=400, repetitions=5, seed=3)
    assert small.error_rate == again.error_rate and small.error_rate_sd == again.error_rate_sd
    assert large.error_rate < small.error_rate
    assert small.error_rate_sd > 0 and small.counts.sum() == 15 * 400 * 5


def test_per_query_rates_tie_relative_to_the_query_mean():
    # one iteration, two queries, three systems; query means 0.4 and 0.2; fuzziness 0.25 -> tol 0.1, 0.05
    scores = np.array([[[0.45, 0.40, 0.35], [0.10, 0.20, 0.30]]])
    err, tie = st.per_query_rates(scores, 0.25)
    # q1: (0,1) 0.05 tie, (0,2) 0.10 tie (boundary), (1,2) tie; q2: (0,1) worse, (0,2) worse, (1,2) worse
    # per pair: better/worse/equal = (0,1,1) each -> errors 0; ties 3 of 6
    assert err[0] == 0.0 and tie[0] == pytest.approx(50.0)
    flipped = np.array([[[0.45, 0.40, 0.30], [0.10, 0.20, 0.30]]])
    err, tie = st.per_query_rates(flipped, 0.0)
    # pair (0,1): better then worse -> 1 error; (0,2): better, worse -> 1; (1,2): better, worse -> 1
    assert err[0] == pytest.approx(100 * 3 / 6) and tie[0] == 0.0


def test_asl_rates_match_the_bootstrap_test():
    rng = np.random.default_rng(2)
    scores = np.clip(rng.random((30, 1)) + rng.normal(0, 0.1, (30, 5)) + np.linspace(0, 0.2, 5), 0, 1)
    diffs = st.pair_differences(scores)
    result = st.asl_rates(diffs, [0.01, 0.05], samples=500, seed=4)
    direct = bootstrap_test(diffs, 500, 4, alpha=[0.01, 0.05])
    np.testing.assert_array_equal(result.asl, direct.asl)
    assert result.rate[0.05] == pytest.approx(100 * np.mean(direct.asl < 0.05))
    assert result.difference_required[0.05] == pytest.approx(direct.required[0.05].max())
    assert result.difference_required[0.01] >= result.difference_required[0.05]
    assert (st.pair_differences(scores, higher_better=False) == -diffs).all()


def test_swap_method_bins_and_limits():
    rng = np.random.default_rng(5)
    scores = np.clip(rng.random((40, 1)) + rng.normal(0, 0.1, (40, 6)) + np.linspace(0, 0.1, 6), 0, 1)
    result = st.swap_method(st.pair_differences(scores), [0.01, 0.05], samples=300, seed=1)
    assert len(result.edges) == st.SWAP_BINS + 1 and result.edges[0] == 0.0
    assert result.trials.sum() == 15 * 300
    rate = result.swap_rate
    assert np.nanmax(rate[:3]) > np.nanmin(rate[-5:])             # small differences swap more often
    low, high = result.limits[0.05]
    b = int(np.searchsorted(result.edges, low))
    assert high - low == pytest.approx(result.edges[1]) and rate[b] <= 0.05
    assert all(not (rate[i] <= 0.05) or result.trials[i] == 0 for i in range(b))
    assert result.limits[0.01][0] >= low
    again = st.swap_method(st.pair_differences(scores), [0.05], samples=300, seed=1)
    assert again.limits[0.05] == result.limits[0.05]
