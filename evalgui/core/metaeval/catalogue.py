"""The meta-evaluation experiments, described for people (the CLI's choices, the help, the form).

Light on purpose: no numpy, so that the command line can list the experiments without loading an engine.
"""

from __future__ import annotations

from evalgui.core.registry import Parameter, Record, Registry

# Ceilings on the numbers that size the work; each refusal says what its ceiling protects.
MAX_SETS = 10_000_000          # query sets per repetition (drawn in blocks: a cap on time)
MAX_SET_SIZE = 1_000_000       # queries in one set, with replacement (a cap on time)
MAX_REPETITIONS = 10_000       # stability repetitions (a cap on time)
MAX_ROBUSTNESS_REPETITIONS = 1_000   # each re-evaluates every measure and keeps its scores (memory and time)
MAX_SET_DRAWS = 100_000_000    # query sets x repetitions (a cap on time)
MAX_REEVALUATIONS = 100_000    # robustness: fractions x repetitions, each an evaluation of every measure (time)

EXPERIMENTS: Registry[Record] = Registry(
    "metaeval", "Meta-evaluation experiments",
    "How good is each measure at ranking systems: stable over query sets, able to tell systems apart, "
    "robust to missing judgments, in agreement with the other measures. Every experiment is seeded: the "
    "same seed gives the same table.")

_SEED = Parameter("seed", "random seed (the same seed gives the same table)", "42")

# How each experiment reads a preference measure (rpp, lexiprecision...: a value per pair of systems
# and query, > 0 when the pair's first system is preferred, antisymmetric): shown in the help.
_PAIRWISE = "Preference measures (rpp, dcgrpp, invrpp, lexirecall, lexiprecision) too: "

# The columns of each experiment's table, in order (more may follow them).
COLUMNS = {
    "stability": ("measure", "set_size", "fuzziness", "error_rate", "tie_rate", "error_rate_sd", "tie_rate_sd"),
    "power": ("measure", "test", "correction", "alpha", "pairs", "significant_pairs", "discriminative_power"),
    "robustness": ("measure", "fraction", "kendall_tau", "kendall_tau_sd", "flipped_pairs"),
    "agreement": ("measure_a", "measure_b", "pearson", "sign_agreement", "kendall_tau"),
}

for _record in (
    Record(name="stability", family="metaeval", group="Experiments", direction=None,
           description="Stability of a measure over query sets (Buckley & Voorhees, SIGIR 2000). Many random "
                       "query sets of a given size are drawn; on each, every pair of systems is decided by the "
                       "measure's means: better, worse, or equal when the relative difference is within the "
                       "fuzziness. A stable measure rarely contradicts itself. Also the error rate against the "
                       "query-set size, and the better/worse/equal counts of every pair for one measure.",
           formula="per pair: b = #(A > B), w = #(A < B), e = #(|m_A − m_B| ≤ f·max(|m_A|, |m_B|)) over the sets; "
                   "error rate = Σ min(b, w) / Σ (b + w + e), tie rate = Σ e / Σ (b + w + e), in percent; "
                   "mean and standard deviation over the repetitions",
           parameters=(Parameter("fuzziness", "relative difference below which two means are equal", "0.05"),
                       Parameter("set size", "queries per set; several give the error rate against the size",
                                 "5, 10, ... up to n/2"),
                       Parameter("sets", "query sets drawn per repetition", "1000"),
                       Parameter("replacement", "draw each set's queries with replacement", "no"),
                       Parameter("repetitions", "independent repetitions (the standard deviations)", "5"),
                       _SEED),
           notes=(_PAIRWISE + "a preference scores pairs, not systems, so a query set decides a pair by the sign "
                  "of the pair's mean preference over the set, equal when |mean preference| ≤ fuzziness (absolute: "
                  "a preference is already a difference on [-1, 1]).",
                  "The query sets of one set size and repetition are drawn once and every measure is decided on "
                  "the same sets.")),
    Record(name="power", family="metaeval", group="Experiments", direction=None,
           description="Discriminative power (Sakai, SIGIR 2006). The share of system pairs whose difference "
                       "is significant at α, by a paired test (Sakai's bootstrap, the t-test, randomization...) "
                       "with a multiple-comparison correction; and Sakai's curves, each pair's ASL (p-value) "
                       "sorted ascending against the pair's rank, one curve per measure.",
           formula="discriminative power = 100 · #{pairs : p̃ < α} / #pairs, p̃ the corrected p-value (ASL)",
           parameters=(Parameter("test", "paired significance test", "bootstrap"),
                       Parameter("correction", "multiple-comparison correction over the pairs", "none"),
                       Parameter("alpha", "significance level", "0.05"),
                       Parameter("samples", "resamples of a resampling test", "the test's default"), _SEED),
           notes=(_PAIRWISE + "the per-query preferences of a pair take the place of its per-query differences: "
                  "the test asks whether their mean differs from 0 (a one-sample test: the t-test is a one-sample "
                  "t-test, randomization flips their signs, the bootstrap resamples the queries). Tukey's HSD needs "
                  "each system's scores and refuses them.",)),
    Record(name="robustness", family="metaeval", group="Experiments", direction=None,
           description="Robustness to incomplete judgments (Buckley & Voorhees, SIGIR 2004; Sakai, SIGIR 2007). "
                       "A fraction of each query's judged documents is removed from the qrels at random (the "
                       "runs are untouched; the removed documents become unjudged), the runs are evaluated again "
                       "and the system ordering is compared with the one under full judgments: Kendall's τ, and "
                       "the share of system pairs whose order flips. The samples are nested (a larger fraction "
                       "removes more of the same order), and one relevant document of each query is removed last.",
           formula="a query with n judged documents loses round(f·n) of them; τ_b between the systems' means "
                   "with full and reduced judgments; flipped pairs = 100 · #{pairs : sgn(Δ_full) = "
                   "−sgn(Δ_reduced) ≠ 0} / #pairs; mean and standard deviation over the repetitions",
           parameters=(Parameter("fractions", "shares of the judged documents to remove", "0.1, 0.2, ..., 0.9"),
                       Parameter("repetitions", "random samples per fraction", "10"), _SEED),
           notes=(_PAIRWISE + "every pair is compared again with the reduced judgments (a removed relevant document "
                  "leaves both runs' relevance vectors; a query left with none is a tie). The system ordering is by "
                  "mean preference over the other systems, ties broken by the win rate (as evalgui-cli preference "
                  "ranks runs); a pair flips when the sign of its own mean preference flips.",)),
    Record(name="agreement", family="metaeval", group="Experiments", direction=None,
           description="Agreement between measures (Diaz & Ferraro, SIGIR 2022). For every pair of systems and "
                       "every query, each measure's difference between the two; Pearson's correlation and the "
                       "share of cells where both measures prefer the same system (sign agreement), for every "
                       "two measures; and Kendall's τ between the system rankings (by mean) of every two measures.",
           formula="cells (pair, query), each pair in both orders; pearson = Σ Δ_a Δ_b / √(Σ Δ_a² Σ Δ_b²); "
                   "sign agreement = 100 · #{cells : sgn Δ_a = sgn Δ_b} / #cells; τ_b between the systems' means",
           parameters=(),
           notes=(_PAIRWISE + "a preference's value for a pair and query takes the place of Δ (it is antisymmetric as "
                  "Δ is), so Pearson and sign agreement compare the per-query preference with the other measures' "
                  "per-query differences; its system ranking (for τ) is by mean preference, then win rate.",)),
):
    EXPERIMENTS.add(_record)
