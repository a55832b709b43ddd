"""The significance tests and corrections: described for people (the CLI's choices, the form, the help),
and each record names its kernel, which is how the engine runs it (the record is the dispatch).

Light on purpose: no numpy, so that the command line can list the choices without loading an engine; a
kernel's module is imported when the kernel is first asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from evalgui.core.registry import Parameter, Record, Registry


@dataclass(frozen=True, kw_only=True)
class KernelRecord(Record):
    """A record whose ``kernel`` does the work: ``where`` is its "module:function", imported on first use."""

    where: str = field(repr=False)

    @property
    def kernel(self) -> Callable:
        module, _, name = self.where.partition(":")
        return getattr(importlib.import_module(module), name)


@dataclass(frozen=True, kw_only=True)
class TestRecord(KernelRecord):
    """A significance test. Its kernel takes a ``significance.TestInput`` and returns a ``TestOutput``."""

    __test__ = False                    # not a pytest class

    samples: int | None = None          # a resampling test's default number of samples B; None: not resampling
    needs_scores: bool = False          # tests the systems together, from each one's own scores (not only the
                                        # differences of a pair): not for preferences, which are differences
    controls_family: bool = False       # controls the family-wise error itself: no further correction
    ci_samples: bool = False            # the confidence interval of the mean difference uses the test's B


@dataclass(frozen=True, kw_only=True)
class CorrectionRecord(KernelRecord):
    """A multiple-comparison correction. Its kernel maps a family's p-values (1-D, no NaN) to adjusted ones."""


_KERNELS = "evalgui.core.stats.significance:"

TESTS: Registry[TestRecord] = Registry(
    "tests", "Significance tests",
    "Paired tests over the queries two systems share; two-sided. The resampling tests are seeded.")
CORRECTIONS: Registry[CorrectionRecord] = Registry(
    "corrections", "Multiple-comparison corrections",
    "Applied per measure over the family of system pairs compared.")

_SEED = Parameter("seed", "random seed (the same seed gives the same p-values)", "42")

for _record in (
    TestRecord(name="t", family="tests",
               where=_KERNELS + "t_kernel",
               group="Parametric", direction="lower",
               description="Paired Student's t-test on the per-query differences (scipy.stats.ttest_rel).",
               formula="t = mean(d) / (sd(d) / √n), sd with n−1; p = 2·P(T_{n−1} ≥ |t|)"),
    TestRecord(name="wilcoxon", family="tests",
               where=_KERNELS + "wilcoxon_kernel",
               group="Rank-based", direction="lower",
               description="Wilcoxon signed-rank test on the per-query differences (scipy.stats.wilcoxon, "
                           "its defaults: zero differences dropped, exact distribution for small n).",
               formula="W = Σ rank(|d_q|) over d_q > 0 (or < 0, the smaller); p from W's null distribution"),
    TestRecord(name="sign", family="tests",
               where=_KERNELS + "sign_kernel",
               group="Rank-based", direction="lower",
               description="Sign test: counts the queries where each system wins; ties are dropped "
                           "(scipy.stats.binomtest with p = 0.5).",
               formula="k = #{d_q > 0}, m = #{d_q ≠ 0}; p = min(1, 2·P(Bin(m, ½) ≤ min(k, m−k)))"),
    TestRecord(name="randomization", family="tests",
               where=_KERNELS + "randomization_kernel", samples=10_000,
               group="Resampling", direction="lower",
               description="Fisher's randomization (paired permutation) test: flip the sign of each query's "
                           "difference at random, B times (exactly all 2^n flips when 2^n ≤ B).",
               formula="p = #{b : |mean(s_b · d)| ≥ |mean(d)|} / B, s_b ∈ {−1, +1}^n",
               parameters=(Parameter("samples", "number of random sign flips B", "10000"), _SEED)),
    TestRecord(name="bootstrap", family="tests",
               where=_KERNELS + "bootstrap_kernel", samples=1_000, ci_samples=True,
               group="Resampling", direction="lower",
               description="Paired bootstrap test after Sakai (SIGIR 2006): resample queries with replacement "
                           "from the differences shifted to mean 0. Also gives Sakai's estimated difference "
                           "required for significance at α.",
               formula="t(z) = mean(z)/(sd(z)/√n); w = z − mean(z); ASL = #{b : |t(w*_b)| ≥ |t(z)|} / B",
               parameters=(Parameter("samples", "number of bootstrap samples B", "1000"), _SEED)),
    TestRecord(name="tukey", family="tests",
               where=_KERNELS + "tukey_kernel", samples=5_000, needs_scores=True, controls_family=True,
               group="Resampling", direction="lower",
               description="Randomized Tukey HSD (Carterette 2012): all systems at once; permute the systems' "
                           "scores within each query. Controls the family-wise error itself, so no further "
                           "correction is applied.",
               formula="p(a, b) = #{b : max_s mean*_s − min_s mean*_s ≥ |mean_a − mean_b|} / B",
               parameters=(Parameter("samples", "number of random permutations B", "5000"), _SEED)),
):
    TESTS.add(_record)

for _record in (
    CorrectionRecord(name="none", family="corrections",
                     where=_KERNELS + "no_correction",
                     group="Corrections", direction=None,
                     description="No correction: each pair's own p-value.", formula="p̃_i = p_i"),
    CorrectionRecord(name="bonferroni", family="corrections",
                     where=_KERNELS + "bonferroni",
                     group="Family-wise error", direction=None,
                     description="Bonferroni: multiply by the number of comparisons m.",
                     formula="p̃_i = min(1, m·p_i)"),
    CorrectionRecord(name="holm", family="corrections",
                     where=_KERNELS + "holm",
                     group="Family-wise error", direction=None,
                     description="Holm's step-down method: uniformly more powerful than Bonferroni.",
                     formula="p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)), p_(1) ≤ … ≤ p_(m)"),
    CorrectionRecord(name="holm-sidak", family="corrections",
                     where=_KERNELS + "holm_sidak",
                     group="Family-wise error", direction=None,
                     description="Holm–Šidák step-down method (assumes independent or positively dependent tests).",
                     formula="p̃_(i) = max_{j ≤ i} 1 − (1 − p_(j))^(m − j + 1)"),
    CorrectionRecord(name="bh", family="corrections",
                     where=_KERNELS + "benjamini_hochberg",
                     group="False discovery rate", direction=None,
                     description="Benjamini–Hochberg: controls the false discovery rate "
                                 "(scipy.stats.false_discovery_control).",
                     formula="p̃_(i) = min_{j ≥ i} min(1, m·p_(j) / j)"),
):
    CORRECTIONS.add(_record)

# What forms, captions and reports call the tests and corrections.
TEST_LABELS = {"t": "Paired t-test", "wilcoxon": "Wilcoxon signed-rank", "sign": "Sign test",
               "randomization": "Randomization (permutation)", "bootstrap": "Bootstrap (Sakai)",
               "tukey": "Randomized Tukey HSD"}
CORRECTION_LABELS = {"none": "None", "bonferroni": "Bonferroni", "holm": "Holm", "holm-sidak": "Holm–Šidák",
                     "bh": "Benjamini–Hochberg (FDR)"}

DEFAULT_SAMPLES = {name: record.samples for name, record in TESTS.items() if record.samples is not None}
RESAMPLING = frozenset(DEFAULT_SAMPLES)
# The largest B a resampling test takes (CompareOptions refuses more; the forms' maximum). The tests draw
# their samples in chunks, so memory does not grow with B, but time does: 10 million bootstrap samples of
# 50 queries for 6 pairs take about a minute.
MAX_SAMPLES = 10_000_000
# The tests that apply to preferences between two runs (one-sample, on the per-query preferences): all
# but those that need each run's own scores (Tukey's HSD).
PREFERENCE_TESTS = tuple(name for name, record in TESTS.items() if not record.needs_scores)
