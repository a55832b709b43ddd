"""Significance tests, corrections and effect sizes against scipy, brute force and textbook values."""

import itertools

import numpy as np
import pytest
from scipy import stats

from evalgui.core.stats import significance as sig
from evalgui.core.stats.catalogue import CORRECTIONS, TESTS


@pytest.fixture
def pairs_of_scores():
    rng = np.random.default_rng(7)
    a = rng.random((12, 25))
    b = np.clip(a + rng.normal(0.03, 0.1, a.shape), 0, 1)
    b[3] = a[3]                                  # identical systems
    b[4, :10] = a[4, :10]                        # ties on some queries
    b = np.round(b, 2)
    a = np.round(a, 2)
    return a, b


def test_t_wilcoxon_sign_equal_scipy(pairs_of_scores):
    a, b = pairs_of_scores
    d = a - b
    t = sig.t_test(d)
    w = sig.wilcoxon_test(d)
    s = sig.sign_test(d)
    for i in range(len(a)):
        if not np.any(d[i]):
            assert t[i] == w[i] == s[i] == 1.0      # scipy says NaN (0/0): no evidence of a difference
            continue
        assert t[i] == stats.ttest_rel(a[i], b[i]).pvalue
        assert w[i] == stats.wilcoxon(a[i], b[i]).pvalue
        wins, losses = int((d[i] > 0).sum()), int((d[i] < 0).sum())
        assert s[i] == pytest.approx(stats.binomtest(wins, wins + losses).pvalue, rel=1e-12, abs=0)


def test_wilcoxon_of_a_row_does_not_depend_on_the_other_rows():
    """scipy chooses exact or approximate p-values once per call, from ties or zeros in any row: a row
    without them must still get scipy's exact p when another row of the batch has some."""
    rng = np.random.default_rng(3)
    distinct = rng.normal(0.3, 0.2, (2, 14))               # no ties, no zeros: scipy's exact distribution
    tied = np.round(rng.normal(0.1, 0.2, (2, 14)), 1)      # ties (and zeros): permutation / normal approximation
    tied[0, 0] = 0.0
    d = np.vstack([distinct[:1], tied[:1], distinct[1:], tied[1:]])
    p = sig.wilcoxon_test(d)
    for i in range(len(d)):
        assert p[i] == stats.wilcoxon(d[i]).pvalue, i


def _enumerated_randomization(d):
    observed = abs(d.sum())
    flips = np.array(list(itertools.product((-1.0, 1.0), repeat=len(d))))
    return np.mean(np.abs(flips @ d) >= observed - 1e-12)


def test_randomization_is_exact_for_small_n():
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(0.05, 0.1, (6, 9)), 3)
    p = sig.randomization_test(d, samples=10_000, seed=1)
    assert 2 ** 9 <= 10_000
    for i in range(len(d)):
        assert p[i] == _enumerated_randomization(d[i])
    signs, exact = sig.sign_matrix(9, 10_000, 1)
    assert exact and len(signs) == 512 and len({tuple(s) for s in signs}) == 512


def test_randomization_sampled_is_seeded_and_close_to_exact():
    rng = np.random.default_rng(4)
    d = np.round(rng.normal(0.04, 0.1, (4, 16)), 3)
    first = sig.randomization_test(d, samples=20_000, seed=9)
    again = sig.randomization_test(d, samples=20_000, seed=9)
    other = sig.randomization_test(d, samples=20_000, seed=10)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    exact = np.array([_enumerated_randomization(row) for row in d])
    np.testing.assert_allclose(first, exact, atol=0.01)


def test_randomization_shares_one_sign_matrix_across_rows():
    d = np.random.default_rng(5).normal(0.02, 0.1, (5, 40))
    together = sig.randomization_test(d, samples=2_000, seed=3)
    alone = np.concatenate([sig.randomization_test(row[None], samples=2_000, seed=3) for row in d])
    np.testing.assert_array_equal(together, alone)


def _bootstrap_oracle(z, samples, seed):
    """Sakai (2006), Figure 3, written as a loop over bootstrap samples."""
    n = len(z)
    t_z = z.mean() / (z.std(ddof=1) / np.sqrt(n))
    w = z - z.mean()
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    count = 0
    for b in range(samples):
        sample = w[draws[b]]
        sd = sample.std(ddof=1)
        t_b = sample.mean() / (sd / np.sqrt(n)) if sd > 0 else 0.0
        count += abs(t_b) >= abs(t_z) * (1 - 1e-9)
    return count / samples


def test_bootstrap_asl_matches_sakais_procedure_and_is_seeded():
    rng = np.random.default_rng(11)
    d = np.round(rng.normal(0.03, 0.1, (5, 20)), 3)
    result = sig.bootstrap_test(d, samples=400, seed=8)
    for i in range(len(d)):
        assert result.asl[i] == pytest.approx(_bootstrap_oracle(d[i], 400, 8), abs=1e-12)
    np.testing.assert_array_equal(result.asl, sig.bootstrap_test(d, samples=400, seed=8).asl)
    assert np.all(result.difference_required > 0)


def test_bootstrap_difference_required_is_the_alpha_quantile_sample():
    rng = np.random.default_rng(12)
    z = np.round(rng.normal(0.05, 0.1, 30), 3)
    samples, alpha = 200, 0.05
    result = sig.bootstrap_test(z[None], samples=samples, seed=2, alpha=alpha)
    w = z - z.mean()
    draws = np.random.default_rng(2).integers(0, 30, size=(samples, 30))
    t = np.array([w[r].mean() / (w[r].std(ddof=1) / np.sqrt(30)) for r in draws])
    b = np.argsort(-np.abs(t), kind="stable")[int(samples * alpha) - 1]       # the Bα-th largest |t|
    assert result.difference_required[0] == pytest.approx(abs(w[draws[b]].mean()), rel=1e-12)


def test_mean_ci_brackets_the_mean_and_narrows_with_n():
    rng = np.random.default_rng(13)
    small = rng.normal(0.05, 0.1, (1, 20))
    large = rng.normal(0.05, 0.1, (1, 2000))
    lo_s, hi_s = sig.mean_ci(small, 1000, 1)
    lo_l, hi_l = sig.mean_ci(large, 1000, 1)
    assert lo_s[0] < small.mean() < hi_s[0]
    assert lo_l[0] < large.mean() < hi_l[0]
    assert hi_l[0] - lo_l[0] < (hi_s[0] - lo_s[0]) / 3


def test_tukey_hsd_on_a_toy_case():
    # Two queries, two systems: four equally likely within-query permutations.
    scores = np.array([[0.2, 0.6], [0.4, 0.8]])
    # ranges of means: identity 0.4, swap both 0.4, swap one: |0.6+0.4-0.2-0.8|/2 = 0, |0.2+0.8-0.6-0.4|/2 = 0
    p = sig.tukey_hsd(scores, [(0, 1)], samples=20_000, seed=1)
    assert p[0] == pytest.approx(0.5, abs=0.02)
    same = np.array([[0.3, 0.3, 0.5], [0.6, 0.6, 0.1], [0.2, 0.2, 0.9]])
    assert sig.tukey_hsd(same, [(0, 1)], samples=500, seed=1)[0] == 1.0


def test_tukey_hsd_finds_a_clearly_better_system_and_is_conservative():
    rng = np.random.default_rng(14)
    base = rng.random((50, 1))
    scores = np.clip(base + rng.normal(0, 0.05, (50, 5)), 0, 1)
    scores[:, 4] += 0.2
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    p = sig.tukey_hsd(scores, pairs, samples=2_000, seed=3)
    assert all(p[k] < 0.01 for k, (i, j) in enumerate(pairs) if j == 4)
    # Tukey's p is never below the unadjusted randomization p of the same pair
    d = np.array([scores[:, i] - scores[:, j] for i, j in pairs])
    assert np.all(p >= sig.randomization_test(d, samples=2_000, seed=3) - 0.02)


# ---------------------------------------------------------------- corrections

P = np.array([0.01, 0.04, 0.03, 0.005])


def test_bonferroni():
    np.testing.assert_allclose(sig.correct(P, "bonferroni"), [0.04, 0.16, 0.12, 0.02])


def test_holm_by_hand():
    # sorted: 0.005 (x4) 0.01 (x3) 0.03 (x2) 0.04 (x1) -> 0.02, 0.03, 0.06, 0.06 (monotone)
    np.testing.assert_allclose(sig.correct(P, "holm"), [0.03, 0.06, 0.06, 0.02])


def test_holm_sidak_by_hand():
    expected_sorted = [1 - (1 - 0.005) ** 4, 1 - (1 - 0.01) ** 3, 1 - (1 - 0.03) ** 2, 1 - (1 - 0.04) ** 1]
    expected_sorted = np.maximum.accumulate(expected_sorted)
    np.testing.assert_allclose(sig.correct(P, "holm-sidak"), expected_sorted[[1, 3, 2, 0]], rtol=1e-12)


def test_benjamini_hochberg_by_hand():
    # sorted p: 0.005, 0.01, 0.03, 0.04; m p/j: 0.02, 0.02, 0.04, 0.04; min over j >= i: same
    np.testing.assert_allclose(sig.correct(P, "bh"), [0.02, 0.04, 0.04, 0.02])
    np.testing.assert_allclose(sig.correct([0.04, 0.01, 0.9], "bh"), [0.06, 0.03, 0.9])


def test_corrections_leave_nan_out_of_the_family():
    out = sig.correct([0.01, np.nan, 0.02], "bonferroni")
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.04)
    assert sig.correct(P, "none").tolist() == P.tolist()
    with pytest.raises(ValueError, match="unknown correction"):
        sig.correct(P, "sidak-ish")


# ---------------------------------------------------------------- effect sizes

def test_cohens_dz_and_wins_ties_losses():
    d = np.array([[0.1, 0.2, 0.3, 0.0], [0.0, 0.0, 0.0, 0.0], [0.05, 0.05, 0.05, 0.05]])
    dz = sig.cohens_dz(d)
    assert dz[0] == pytest.approx(np.mean(d[0]) / np.std(d[0], ddof=1))
    assert dz[1] == 0.0 and dz[2] == np.inf
    wins, ties, losses = sig.wins_ties_losses(np.array([[0.1, -0.2, 0.0, 0.001]]), tolerance=0.01)
    assert (wins[0], ties[0], losses[0]) == (1, 2, 1)


def test_registries_describe_every_test_and_correction():
    assert list(TESTS) == ["t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"]
    assert list(CORRECTIONS) == ["none", "bonferroni", "holm", "holm-sidak", "bh"]
    for record in [*TESTS.values(), *CORRECTIONS.values()]:
        assert record.description and record.formula
