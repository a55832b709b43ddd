"""Meta-evaluation: how good is each measure? Stability (Buckley & Voorhees 2000), discriminative
power (Sakai 2006), robustness to incomplete judgments (Buckley & Voorhees 2004, Sakai 2007) and
agreement between measures (Diaz & Ferraro 2022).

- ``catalogue``: the experiments described for people (no numpy: the CLI lists them cheaply).
- ``scores``: what the experiments read, one :class:`~evalgui.core.metaeval.scores.MeasureScores`
  per measure, and :class:`~evalgui.core.metaeval.scores.RankedSource`, which ranks the runs once
  and re-evaluates them with judgments removed.
- ``experiments``: the four experiments, each a function returning a tidy table and what its
  plot needs, and a job(state) for the worker.

- ``preferences``: the preference measures on the rankings prepared once, with full or reduced judgments.

Every experiment takes ranked measures (a score per system and query) and preference measures
(rpp, dcgrpp, invrpp, lexirecall, lexiprecision: a value per pair of systems and query, > 0 when
the pair's first system is preferred, antisymmetric) alike. A preference scores pairs, not
systems, so each experiment reads it as follows:

- stability: a query set decides a pair by the sign of the pair's mean preference over the set,
  a tie when |mean preference| <= fuzziness (absolute: a preference is already a difference on
  [-1, 1]); error and tie rates as for any measure;
- power: the pair's per-query preferences are its per-query differences, so the paired test is a
  one-sample test of their mean against 0 (Tukey's HSD needs scores and refuses a preference);
- robustness: every pair is compared again on the reduced judgments; the system ordering (for
  Kendall's tau) is by mean preference over the other systems, ties broken by the win rate, as
  ``evalgui-cli preference`` ranks runs; a flipped pair is one whose own mean preference changes sign;
- agreement: the per-query preference takes the place of a per-query difference Δ (Pearson and
  sign agreement against the other measures' Δ); tau between system rankings as in robustness.

The arithmetic shared with the rank-file stability workspace is in :mod:`evalgui.core.stats.stability`;
the tests and corrections are the comparison engine's (:func:`evalgui.core.stats.compare.pair_tests`).
"""
