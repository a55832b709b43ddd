"""Meta-evaluation: how good is each measure? Stability (Buckley & Voorhees 2000), discriminative
power (Sakai 2006), robustness to incomplete judgments (Buckley & Voorhees 2004, Sakai 2007) and
agreement between measures (Diaz & Ferraro 2022).

- ``catalogue``: the experiments described for people (no numpy: the CLI lists them cheaply).
- ``scores``: what the experiments read, one :class:`~evalgui.core.metaeval.scores.MeasureScores`
  per measure, and :class:`~evalgui.core.metaeval.scores.RankedSource`, which ranks the runs once
  and re-evaluates them with judgments removed.
- ``experiments``: the four experiments, each a function returning a tidy table and what its
  plot needs, and a job(state) for the worker.

The arithmetic shared with the rank-file stability workspace is in :mod:`evalgui.core.stats.stability`;
the tests and corrections are the comparison engine's (:func:`evalgui.core.stats.compare.pair_tests`).
"""
