"""The significance tests and corrections, described for people (the CLI's choices, the form, the help).

Light on purpose: no numpy, so that the command line can list the choices without loading an engine.
"""

from __future__ import annotations

from evalgui.core.registry import Parameter, Record, Registry

TESTS: Registry[Record] = Registry(
    "tests", "Significance tests",
    "Paired tests over the queries two systems share; two-sided. The resampling tests are seeded.")
CORRECTIONS: Registry[Record] = Registry(
    "corrections", "Multiple-comparison corrections",
    "Applied per measure over the family of system pairs compared.")

_SEED = Parameter("seed", "random seed (the same seed gives the same p-values)", "42")

for _record in (
    Record(name="t", family="tests", group="Parametric", direction="lower",
           description="Paired Student's t-test on the per-query differences (scipy.stats.ttest_rel).",
           formula="t = mean(d) / (sd(d) / √n), sd with n−1; p = 2·P(T_{n−1} ≥ |t|)"),
    Record(name="wilcoxon", family="tests", group="Rank-based", direction="lower",
           description="Wilcoxon signed-rank test on the per-query differences (scipy.stats.wilcoxon, "
                       "its defaults: zero differences dropped, exact distribution for small n).",
           formula="W = Σ rank(|d_q|) over d_q > 0 (or < 0, the smaller); p from W's null distribution"),
    Record(name="sign", family="tests", group="Rank-based", direction="lower",
           description="Sign test: counts the queries where each system wins; ties are dropped "
                       "(scipy.stats.binomtest with p = 0.5).",
           formula="k = #{d_q > 0}, m = #{d_q ≠ 0}; p = min(1, 2·P(Bin(m, ½) ≤ min(k, m−k)))"),
    Record(name="randomization", family="tests", group="Resampling", direction="lower",
           description="Fisher's randomization (paired permutation) test: flip the sign of each query's "
                       "difference at random, B times (exactly all 2^n flips when 2^n ≤ B).",
           formula="p = #{b : |mean(s_b · d)| ≥ |mean(d)|} / B, s_b ∈ {−1, +1}^n",
           parameters=(Parameter("samples", "number of random sign flips B", "10000"), _SEED)),
    Record(name="bootstrap", family="tests", group="Resampling", direction="lower",
           description="Paired bootstrap test after Sakai (SIGIR 2006): resample queries with replacement "
                       "from the differences shifted to mean 0. Also gives Sakai's estimated difference "
                       "required for significance at α.",
           formula="t(z) = mean(z)/(sd(z)/√n); w = z − mean(z); ASL = #{b : |t(w*_b)| ≥ |t(z)|} / B",
           parameters=(Parameter("samples", "number of bootstrap samples B", "1000"), _SEED)),
    Record(name="tukey", family="tests", group="Resampling", direction="lower",
           description="Randomized Tukey HSD (Carterette 2012): all systems at once; permute the systems' "
                       "scores within each query. Controls the family-wise error itself, so no further "
                       "correction is applied.",
           formula="p(a, b) = #{b : max_s mean*_s − min_s mean*_s ≥ |mean_a − mean_b|} / B",
           parameters=(Parameter("samples", "number of random permutations B", "5000"), _SEED)),
):
    TESTS.add(_record)

for _record in (
    Record(name="none", family="corrections", group="Corrections", direction=None,
           description="No correction: each pair's own p-value.", formula="p̃_i = p_i"),
    Record(name="bonferroni", family="corrections", group="Family-wise error", direction=None,
           description="Bonferroni: multiply by the number of comparisons m.",
           formula="p̃_i = min(1, m·p_i)"),
    Record(name="holm", family="corrections", group="Family-wise error", direction=None,
           description="Holm's step-down method: uniformly more powerful than Bonferroni.",
           formula="p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)), p_(1) ≤ … ≤ p_(m)"),
    Record(name="holm-sidak", family="corrections", group="Family-wise error", direction=None,
           description="Holm–Šidák step-down method (assumes independent or positively dependent tests).",
           formula="p̃_(i) = max_{j ≤ i} 1 − (1 − p_(j))^(m − j + 1)"),
    Record(name="bh", family="corrections", group="False discovery rate", direction=None,
           description="Benjamini–Hochberg: controls the false discovery rate "
                       "(scipy.stats.false_discovery_control).",
           formula="p̃_(i) = min_{j ≥ i} min(1, m·p_(j) / j)"),
):
    CORRECTIONS.add(_record)

DEFAULT_SAMPLES = {"randomization": 10_000, "bootstrap": 1_000, "tukey": 5_000}
RESAMPLING = frozenset(DEFAULT_SAMPLES)
# The tests that apply to preferences between two runs (one-sample, on the per-query preferences): all
# but Tukey's HSD, which needs each run's own scores.
PREFERENCE_TESTS = tuple(name for name in TESTS if name != "tukey")
