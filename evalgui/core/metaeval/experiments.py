"""The four meta-evaluation experiments, on :class:`~evalgui.core.metaeval.scores.MeasureScores`.

Each takes its settings and a :class:`~evalgui.core.jobs.JobState` (progress per step, Cancel),
and returns a result whose ``table`` is tidy, with the columns of
:data:`~evalgui.core.metaeval.catalogue.COLUMNS` first (rates in percent) and how it was made
after them, plus what the experiment's plot needs. Loops run over measures, set sizes and
fractions only; pairs, query sets, repetitions and bootstrap samples are numpy axes.

The whole thing from qrels and runs, for the window and the command line, is the meta-evaluation
workflow (:func:`evalgui.core.workflows.metaeval.run_metaeval`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import ClassVar, Protocol

import numpy as np
import pandas as pd

from evalgui.core.jobs import JobState, check_cap, state_or_default
from evalgui.core.metaeval.catalogue import (COLUMNS, MAX_REPETITIONS, MAX_REEVALUATIONS,
                                             MAX_ROBUSTNESS_REPETITIONS, MAX_SET_DRAWS, MAX_SET_SIZE, MAX_SETS)
from evalgui.core.metaeval.judgments import Judgments
from evalgui.core.metaeval.scores import (MeasureScores, RankedSource, kendall_tau, ordering_signs, pair_decisions,
                                          signs)
from evalgui.core.stats import stability as st
from evalgui.core.stats.catalogue import TESTS
from evalgui.core.stats.compare import CompareOptions, pair_tests
from evalgui.core.stats.significance import check_correction, check_test

DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def default_set_sizes(n: int) -> tuple[int, ...]:
    """The query-set sizes of the error-rate curve: 5, 10, 15, ... up to n/2 (Buckley & Voorhees'
    largest), in steps of 5 for up to 100 queries and about ten steps beyond."""
    half = n // 2
    if half < 5:
        return (max(half, 1),)
    step = 5 * max(1, -(-n // 100))
    sizes = list(range(step if step > 5 else 5, half + 1, step))
    if sizes[-1] != half:
        sizes.append(half)
    return tuple(sizes)


def _scores_list(scores) -> list[MeasureScores]:
    items = list(scores.values()) if isinstance(scores, dict) else list(scores)
    if not items:
        raise ValueError("choose at least one measure")
    systems = items[0].systems
    if len(systems) < 2:
        raise ValueError("meta-evaluation compares systems: it needs two or more")
    empty = [m.measure for m in items if m.n_queries == 0]
    if empty:
        raise ValueError(f"{empty[0]}: no query is shared by every run, nothing to compare "
                         "(trec_eval's -c scores a run's missing queries 0)")
    if any(m.systems != systems for m in items):
        raise ValueError("every measure must score the same systems, in the same order")
    return items


def _check_seed(seed: int) -> None:
    if seed < 0:
        raise ValueError(f"the seed is a whole number of 0 or more, not {seed}")


def _provenance(table: pd.DataFrame, **columns) -> pd.DataFrame:
    for name, value in columns.items():
        table[name] = value
    return table


# ---------------------------------------------------------------------------
# 1. Stability (Buckley & Voorhees 2000)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class StabilitySettings:
    set_sizes: tuple[int, ...] = ()      # empty: default_set_sizes(number of queries)
    sets: int = 1000
    fuzziness: float = 0.05
    replacement: bool = False
    repetitions: int = 5
    seed: int = 42
    experiment: ClassVar[str] = "stability"

    def __post_init__(self):
        _check_seed(self.seed)
        object.__setattr__(self, "set_sizes", tuple(int(s) for s in self.set_sizes))
        if any(s < 1 for s in self.set_sizes):
            raise ValueError("a query set needs at least one query")
        if self.sets < 1 or self.repetitions < 1:
            raise ValueError("the numbers of sets and of repetitions must be at least 1")
        check_cap("the number of query sets", self.sets, MAX_SETS, "the running time")
        check_cap("the number of repetitions", self.repetitions, MAX_REPETITIONS, "the running time")
        check_cap("query sets x repetitions", self.sets * self.repetitions, MAX_SET_DRAWS, "the running time")
        for size in self.set_sizes:
            check_cap("a query-set size", size, MAX_SET_SIZE, "the running time")
        if not 0.0 <= self.fuzziness < 1.0:
            raise ValueError(f"the fuzziness is a relative difference between 0 and 1, not {self.fuzziness}")


@dataclass
class StabilityResult:
    table: pd.DataFrame
    settings: StabilitySettings
    systems: list[str]
    matrix_set_size: int                                   # the set size of the decision matrices
    counts: dict[str, np.ndarray] = field(repr=False)      # measure -> systems x systems x (better, worse, equal)

    def matrix_frame(self, measure: str) -> pd.DataFrame:
        """The better/worse/equal counts of every ordered pair of systems (Buckley & Voorhees' table)."""
        counts = self.counts[measure]
        a, b = np.nonzero(~np.eye(len(self.systems), dtype=bool))
        return pd.DataFrame({"measure": measure, "system_a": [self.systems[i] for i in a],
                             "system_b": [self.systems[j] for j in b], "better": counts[a, b, st.BETTER],
                             "worse": counts[a, b, st.WORSE], "equal": counts[a, b, st.EQUAL],
                             "set_size": self.matrix_set_size})


# Query sets drawn at once hold about this many (set, query) cells, and their means about this many
# (set, column) cells: memory stays bounded, and Cancel is heard between blocks.
_SET_CELLS = 1 << 19
_MEAN_CELLS = 1 << 21


@dataclass(eq=False)
class _SameQueries:
    """Measures over as many queries: they read the same query sets. Their values side by side, a
    column per system (a measure's scores) or per pair (a preference's values)."""

    n_queries: int
    measures: list[MeasureScores]
    columns: np.ndarray = field(init=False)      # queries x (all the measures' columns)
    slices: list[slice] = field(init=False)

    def __post_init__(self):
        parts = [m.scores if not m.is_preference else m.pair_values.T for m in self.measures]
        self.columns = np.ascontiguousarray(np.hstack(parts))
        ends = np.cumsum([p.shape[1] for p in parts])
        self.slices = [slice(int(e - p.shape[1]), int(e)) for e, p in zip(ends, parts)]

    def block(self, sets: int, set_size: int = 1) -> int:
        """Query sets drawn at once (the same sets whatever the block)."""
        return max(1, min(sets, _SET_CELLS // max(self.n_queries, set_size, 1),
                          _MEAN_CELLS // max(self.columns.shape[1], 1)))


def stability_experiment(scores, settings: StabilitySettings = StabilitySettings(),
                         state: JobState | None = None) -> StabilityResult:
    """Error and tie rates of each measure at each query-set size; the decision matrices at the largest.

    Per set size and repetition, the query sets are drawn once (:func:`~evalgui.core.stats.stability.repetition_rng`)
    and every measure over as many queries is decided on the same sets, a block of sets at a time
    (one matrix product gives every measure's means). A preference's decision on a set is the sign
    of the pair's mean preference over it, a tie within the fuzziness
    (:func:`~evalgui.core.stats.stability.preference_decisions`)."""
    state = state_or_default(state)
    items = _scores_list(scores)
    n = min(m.n_queries for m in items)
    sizes = tuple(dict.fromkeys(settings.set_sizes)) or default_set_sizes(n)
    if not settings.replacement and max(sizes) > n:
        short = min(items, key=lambda m: m.n_queries)
        raise ValueError(f"a query set of {max(sizes)} cannot be drawn from the {n} queries of {short.measure} "
                         "without replacement; choose a smaller set size or draw with replacement")
    groups = [_SameQueries(k, [m for m in items if m.n_queries == k])
              for k in dict.fromkeys(m.n_queries for m in items)]
    reps, sets = settings.repetitions, settings.sets
    rates = {m.measure: np.empty((len(sizes), reps, 2)) for m in items}
    n_pairs = len(items[0].systems) * (len(items[0].systems) - 1) // 2
    largest = max(sizes)
    at_largest = {m.measure: np.zeros((n_pairs, 3), dtype=np.int64) for m in items}
    steps = len(sizes) * reps
    for i, size in enumerate(sizes):
        for r in range(reps):
            message = (f"{sets:,} query sets of {size} (set size {i + 1} of {len(sizes)}), "
                       f"repetition {r + 1} of {reps}")
            step = i * reps + r
            counts = {m.measure: np.zeros((n_pairs, 3), dtype=np.int64) for m in items}
            for group in groups:
                rng = st.repetition_rng(settings.seed, size, r)
                block = group.block(sets, size)
                for start in range(0, sets, block):
                    state.check()
                    state.progress((step + start / sets) / steps, message)
                    drawn = st.query_sets(group.n_queries, size, min(block, sets - start), settings.replacement, rng)
                    means = drawn @ group.columns / size
                    for m, columns in zip(group.measures, group.slices):
                        counts[m.measure] += (st.preference_decisions(means[:, columns], settings.fuzziness)
                                              if m.is_preference else
                                              st.decisions(means[:, columns], settings.fuzziness, m.higher_better))
            for m in items:
                rates[m.measure][i, r] = st.error_tie_rates(counts[m.measure])
                if size == largest:
                    at_largest[m.measure] += counts[m.measure]
    state.progress(1.0, "Done")
    rows = []
    for m in items:
        for i, size in enumerate(sizes):
            mean = rates[m.measure][i].mean(axis=0)
            sd = rates[m.measure][i].std(axis=0, ddof=1) if reps > 1 else np.zeros(2)
            rows.append((m.measure, size, settings.fuzziness, float(mean[0]), float(mean[1]), float(sd[0]),
                         float(sd[1]), m.n_queries))
    table = pd.DataFrame(rows, columns=[*COLUMNS["stability"], "queries"])
    _provenance(table, sets=settings.sets, repetitions=settings.repetitions, replacement=settings.replacement,
                seed=settings.seed)
    counts = {m.measure: st.decision_matrix(at_largest[m.measure], len(m.systems)) for m in items}
    return StabilityResult(table, settings, list(items[0].systems), largest, counts)


# ---------------------------------------------------------------------------
# 2. Discriminative power (Sakai 2006)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PowerSettings:
    test: str = "bootstrap"
    correction: str = "none"
    alpha: float = 0.05
    samples: int | None = None           # None: the test's default B
    seed: int = 42
    experiment: ClassVar[str] = "power"

    def __post_init__(self):
        _check_seed(self.seed)
        check_test(self.test)
        check_correction(self.correction)
        self.compare_options()             # the comparison engine checks alpha and samples

    def compare_options(self) -> CompareOptions:
        return CompareOptions(test=self.test, correction=self.correction, alpha=self.alpha, samples=self.samples,
                              seed=self.seed)


@dataclass
class PowerResult:
    table: pd.DataFrame
    settings: PowerSettings
    pairs: pd.DataFrame        # measure, system_a, system_b, p_value, p_adjusted, significant, rank
                               # (rank: 1 for the pair with the smallest p-value: Sakai's curve is p against rank)

    def curve(self, measure: str) -> pd.DataFrame:
        return self.pairs[self.pairs["measure"] == measure]


def power_experiment(scores, settings: PowerSettings = PowerSettings(),
                     state: JobState | None = None) -> PowerResult:
    """Per measure, every pair of systems tested as the comparison engine tests it; the share significant."""
    state = state_or_default(state)
    items = _scores_list(scores)
    options = settings.compare_options()
    systems = items[0].systems
    first, second = st.pair_indices(len(systems))
    rows, parts = [], []
    for k, m in enumerate(items):
        state.check()
        step = state.scaled(k / len(items), (k + 1) / len(items), f"{m.measure}: ")
        step.progress(0.0, f"testing {len(first)} pairs")
        if TESTS[options.test].needs_scores and m.is_preference:
            raise ValueError(f"{m.measure}: Tukey's HSD needs each system's scores, not a preference between two")
        tests = pair_tests(m.differences, options, step, m.scores, first, second)
        significant = int(np.count_nonzero(tests.significant))
        rows.append((m.measure, options.test, options.effective_correction, options.alpha, len(first), significant,
                     100.0 * significant / len(first), m.n_queries,
                     np.nan if tests.difference_required is None else tests.difference_required))
        order = np.argsort(tests.p_value, kind="stable")
        parts.append(pd.DataFrame({
            "measure": m.measure, "system_a": [systems[i] for i in first[order]],
            "system_b": [systems[j] for j in second[order]], "p_value": tests.p_value[order],
            "p_adjusted": tests.p_adjusted[order], "significant": tests.significant[order],
            "rank": np.arange(1, len(order) + 1)}))
    state.progress(1.0, "Done")
    table = pd.DataFrame(rows, columns=[*COLUMNS["power"], "queries", "difference_required"])
    _provenance(table, samples=options.resamples, seed=settings.seed if options.resamples else None)
    return PowerResult(table, settings, pd.concat(parts, ignore_index=True))


# ---------------------------------------------------------------------------
# 3. Robustness to incomplete judgments (Buckley & Voorhees 2004; Sakai 2007)
# ---------------------------------------------------------------------------

class JudgedSource(Protocol):
    """What the robustness experiment needs: the judgments it may remove, and the measures evaluated
    with some removed (a score: R x queries x systems; a preference: R x pairs x queries).
    :class:`RankedSource` is one (ranked and preference measures, from rankings prepared once)."""

    systems: list[str]
    judgments: Judgments
    relevant: np.ndarray

    def measure_scores(self, state: JobState | None = None) -> dict[str, MeasureScores]: ...

    def reduced_scores(self, removed: np.ndarray, queries: dict[str, list[str]],
                       state: JobState | None = None) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True)
class RobustnessSettings:
    fractions: tuple[float, ...] = DEFAULT_FRACTIONS
    repetitions: int = 10
    seed: int = 42
    keep_relevant: bool = True           # a query's last relevant judgment is removed last
    experiment: ClassVar[str] = "robustness"

    def __post_init__(self):
        _check_seed(self.seed)
        object.__setattr__(self, "fractions", tuple(float(f) for f in self.fractions))
        if not self.fractions:
            raise ValueError("choose at least one fraction of judgments to remove")
        bad = [f for f in self.fractions if not 0.0 <= f < 1.0]
        if bad:
            raise ValueError(f"a fraction of judgments to remove is between 0 and 1 (1 excluded), not {bad[0]:g}")
        if self.repetitions < 1:
            raise ValueError("the number of repetitions must be at least 1")
        check_cap("the number of repetitions", self.repetitions, MAX_ROBUSTNESS_REPETITIONS,
                  "memory and the running time: each repetition evaluates every measure again")
        check_cap("fractions x repetitions", len(self.fractions) * self.repetitions, MAX_REEVALUATIONS,
                  "the running time: each evaluates every measure again")


@dataclass
class RobustnessResult:
    table: pd.DataFrame
    settings: RobustnessSettings
    repetitions: pd.DataFrame      # measure, fraction, repetition, kendall_tau, flipped_pairs (the spread bands)


def robustness_experiment(source: JudgedSource, settings: RobustnessSettings = RobustnessSettings(),
                          state: JobState | None = None,
                          full: dict[str, MeasureScores] | None = None) -> RobustnessResult:
    """Per fraction: R reduced qrels (nested, seeded), every measure re-evaluated on them; Kendall's τ
    and the flipped pairs against the full judgments."""
    state = state_or_default(state)
    full = full if full is not None else source.measure_scores(state.scaled(0.0, 0.05, "Full judgments: "))
    items = _scores_list(full)
    judgments = source.judgments
    reps = range(settings.repetitions)
    ranks = judgments.removal_ranks(settings.seed, reps, source.relevant if settings.keep_relevant else None)
    reference = {m.measure: (m.ordering, m.decisions) for m in items}
    queries = {m.measure: m.queries for m in items}
    judged = max(len(judgments), 1)
    rows = {m.measure: [] for m in items}
    samples = {m.measure: [] for m in items}
    for k, fraction in enumerate(settings.fractions):
        step = state.scaled(0.05 + 0.95 * k / len(settings.fractions), 0.05 + 0.95 * (k + 1) / len(settings.fractions),
                            f"{fraction:.0%} removed: ")
        removed = judgments.removed(ranks, fraction)
        kept = 100.0 * (1.0 - removed.sum(axis=1).mean() / judged)
        reduced = source.reduced_scores(removed, queries, step)
        for m in items:
            values = (None, reduced[m.measure]) if m.is_preference else (reduced[m.measure], None)
            ordering, decisions = reference[m.measure]
            now = ordering_signs(*values, m.higher_better, len(m.systems))            # R x pairs
            tau = kendall_tau(ordering[None, :], now)
            flipped = 100.0 * (decisions[None, :] * pair_decisions(*values, m.higher_better, len(m.systems)) < 0
                               ).mean(axis=1)
            tau_mean, tau_sd, tau_min, tau_max = _spread(tau)
            flipped_mean, flipped_sd, _, _ = _spread(flipped)
            rows[m.measure].append((m.measure, fraction, tau_mean, tau_sd, flipped_mean, flipped_sd, tau_min, tau_max,
                                    kept, m.n_queries))
            samples[m.measure].append(pd.DataFrame({"measure": m.measure, "fraction": fraction,
                                                    "repetition": np.arange(len(tau)), "kendall_tau": tau,
                                                    "flipped_pairs": flipped}))
    state.progress(1.0, "Done")
    table = pd.DataFrame([row for m in items for row in rows[m.measure]],
                         columns=[*COLUMNS["robustness"], "flipped_pairs_sd", "kendall_tau_min", "kendall_tau_max",
                                  "judgments_kept", "queries"])
    _provenance(table, repetitions=settings.repetitions, seed=settings.seed)
    return RobustnessResult(table, settings, pd.concat([f for m in items for f in samples[m.measure]],
                                                       ignore_index=True))


def _spread(values: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, standard deviation (n − 1; 0 with one value), minimum and maximum over the repetitions,
    leaving out NaN (τ is undefined where every system ties); all NaN when every value is."""
    values = values[~np.isnan(values)]
    if not len(values):
        return (float("nan"),) * 4
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return float(values.mean()), sd, float(values.min()), float(values.max())


# ---------------------------------------------------------------------------
# 4. Agreement between measures (Diaz & Ferraro 2022)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class AgreementSettings:
    experiment: ClassVar[str] = "agreement"


@dataclass
class AgreementResult:
    table: pd.DataFrame
    settings: AgreementSettings
    measures: list[str]

    def matrix(self, value: str = "pearson") -> pd.DataFrame:
        """measures x measures of one column (pearson, sign_agreement, kendall_tau)."""
        return self.table.pivot(index="measure_a", columns="measure_b", values=value).reindex(
            index=self.measures, columns=self.measures)


def agreement_experiment(scores, settings: AgreementSettings = AgreementSettings(),
                         state: JobState | None = None) -> AgreementResult:
    """Every two measures: Pearson and sign agreement of their per-query differences over every
    (system pair, query) cell, and Kendall's τ between their system rankings, on the queries both have."""
    state = state_or_default(state)
    items = _scores_list(scores)
    names = [m.measure for m in items]
    cells = {}
    if all(m.queries == items[0].queries for m in items):
        cells.update(_agreement_block(items, state))
    else:
        blocks = [(a, b) for a in range(len(items)) for b in range(a, len(items))]
        for k, (a, b) in enumerate(blocks):
            step = state.scaled(k / len(blocks), (k + 1) / len(blocks), f"{names[a]} against {names[b]}: ")
            shared = set(items[b].queries)
            common = [q for q in items[a].queries if q in shared]
            pair = [items[a].restricted(common), items[b].restricted(common)] if a != b else [items[a]]
            cells.update(_agreement_block(pair, step))
    rows = [(a, b, *(cells[(a, b)] if (a, b) in cells else cells[(b, a)])) for a in names for b in names]
    state.progress(1.0, "Done")
    table = pd.DataFrame(rows, columns=[*COLUMNS["agreement"], "cells", "queries"])
    return AgreementResult(table, settings, names)


_CELLS_AT_ONCE = 4_000_000       # (measure, pair, query) differences held at once


def _agreement_block(items: list[MeasureScores], state: JobState) -> dict[tuple[str, str], tuple]:
    """Agreement of every two measures that share their queries: sums of products and of equal signs
    over the cells, accumulated a block of system pairs at a time (matrix products within a block)."""
    systems, n_queries = len(items[0].systems), items[0].n_queries
    n_pairs = systems * (systems - 1) // 2
    products = np.zeros((len(items), len(items)))
    same = np.zeros((len(items), len(items)))
    step = max(1, _CELLS_AT_ONCE // max(len(items) * n_queries, 1))
    for start in range(0, n_pairs, step):
        state.progress(start / max(n_pairs, 1), f"system pairs {start + 1}-{min(start + step, n_pairs)} of {n_pairs}")
        state.check()
        rows = slice(start, start + step)
        diffs = np.stack([m.pair_rows(rows).ravel() for m in items])           # measures x cells
        products += diffs @ diffs.T
        cell_signs = signs(diffs)
        for v in (-1, 0, 1):
            indicator = (cell_signs == v).astype(np.float64)
            same += indicator @ indicator.T
    n_cells = n_pairs * n_queries
    with np.errstate(invalid="ignore", divide="ignore"):
        # every pair in both orders: the mean is 0, so Pearson is the uncentred correlation
        norms = np.sqrt(np.diag(products))
        pearson = products / np.outer(norms, norms)
        agreement = 100.0 * same / n_cells if n_cells else np.full(same.shape, np.nan)
        orderings = np.stack([m.ordering for m in items])                      # measures x system pairs
        tau = kendall_tau(orderings[:, None, :], orderings[None, :, :])
    return {(a.measure, b.measure): (float(pearson[i, j]), float(agreement[i, j]), float(tau[i, j]), n_cells,
                                     a.n_queries)
            for i, a in enumerate(items) for j, b in enumerate(items)}


# ---------------------------------------------------------------------------
# The experiments by name
# ---------------------------------------------------------------------------

Settings = StabilitySettings | PowerSettings | RobustnessSettings | AgreementSettings
EXPERIMENTS = {"stability": stability_experiment, "power": power_experiment,
               "robustness": robustness_experiment, "agreement": agreement_experiment}
SETTINGS = {"stability": StabilitySettings, "power": PowerSettings, "robustness": RobustnessSettings,
            "agreement": AgreementSettings}


def run_experiment(source: RankedSource, settings: Settings, state: JobState | None = None,
                   full: dict[str, MeasureScores] | None = None):
    """One experiment on a ranked source: the scores with the full judgments (unless given), then
    the experiment."""
    state = state_or_default(state)
    if full is None:
        full = source.measure_scores(state.scaled(0.0, 0.1, "Full judgments: "))
    rest = state.scaled(0.1, 1.0)
    if isinstance(settings, RobustnessSettings):
        return robustness_experiment(source, settings, rest, full)
    return EXPERIMENTS[settings.experiment](full, settings, rest)


def settings_dict(settings: Settings) -> dict:
    """The settings as plain values (for a project file), with the experiment's name."""
    return {"experiment": settings.experiment, **asdict(settings)}


def settings_from_dict(values: dict) -> Settings:
    """:func:`settings_dict`'s inverse; ValueError for an unknown experiment or a bad value."""
    values = dict(values)
    name = values.pop("experiment", None)
    if name not in SETTINGS:
        raise ValueError(f"unknown experiment '{name}' (one of {', '.join(SETTINGS)})")
    try:
        return SETTINGS[name](**values)
    except TypeError as exc:
        raise ValueError(f"{name}: {exc}") from None
