"""The stability experiments on a rank file, as one engine job.

For every combination of the range parameters (splits x systems x entities), each iteration
shuffles the entities (keeping the first ``entities`` of them), draws ``systems`` systems, splits
the entities without replacement into ``splits`` queries and scores every query for every system
with every measure. On those iterations x queries x systems matrices it computes, at each
fuzziness (significance level) f:

* errRate / tieRate (Buckley & Voorhees 2000, per query, a tie within f x the query's mean
  score: ``stability.per_query_rates``), tRate (paired t-tests over the queries with p <= f),
  relRate (the share of the entities a measure used), with ``error_rates`` (-e);
* aslRate and estDiff (Sakai 2006: ``stability.asl_rates``) and swapDiffMin/Max (the swap method
  with bootstrap query sets: ``stability.swap_trials`` + ``swap_bins``);
* correlation: Spearman's rho between the systems' rank vectors, over all pairs;

then, with the measures' values on all entities (the "actual" table), the decisions and the
significance matrices. Every iteration draws from its own seed (seed, combination, iteration), so
the results are the same whether the work runs in one process or in several (up to ``threads``,
as many as the work is worth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.rankfile import DEFAULT_MEASURES, DEFAULT_SIGS, MAX_ITERATIONS, MAX_SWAP_TRIALS, MAX_THREADS
from evalgui.core.rankfile import measures as M
from evalgui.core.rankfile.compat import BUCKET_COUNTED, Compat, original_asl, partial_bins, single_query_trials
from evalgui.core.inputs.rank_file import RankFile
from evalgui.core.stats import stability
from evalgui.core.stats.catalogue import MAX_SAMPLES
from evalgui.core.stats.significance import NOISE, t_test

# The original's labels for the significance levels, in ascending order of level.
STARS = ("***", "**", "*", ".", ",", "_")
MIN_QUERY_SIZE = 5                 # smaller queries: warn, as the original does

EVAL_COLUMNS = ("method", "norm", "correlation", "stddev corr", "systemCount", "splitCount", "entityCount",
                "fuzziness", "cutoff", "errRate", "stddev errRate", "tieRate", "stddev tieRate", "tRate",
                "relRate", "asl", "estDiff", "swapDiffMin", "swapDiffMax", "decisions")


def star(index: int) -> str:
    """The label of the index-th lowest significance level."""
    return STARS[index] if index < len(STARS) else f"_{index - len(STARS) + 1}"


@dataclass(frozen=True)
class Settings:
    """What to run; the defaults are the original tool's."""

    measures: tuple[str, ...] = DEFAULT_MEASURES
    iterations: int = 50
    bootstrap: int = 1000
    splits: tuple[int, ...] = (10,)
    systems: tuple[int, ...] = ()            # () = all of them
    entities: tuple[int, ...] = ()           # () = all of them
    sigs: tuple[float, ...] = DEFAULT_SIGS
    cutoffs: tuple[float, ...] = ()          # the values of the measures written with @k / @N
    total_ranks: float | None = None         # T, for per-mille measures and ROC_AUC
    error_rates: bool = False                # -e: errRate, tieRate, tRate, relRate
    swap: bool = False                       # -w: decisions and matrices from the swap method
    experiments: bool = True                 # False: only the measures' values on all entities
    seed: int = 42
    threads: int = 1
    compat: Compat = Compat()


@dataclass(frozen=True)
class Method:
    """One measure at one cut-off: a row of the actual table, a block of rows of the eval table."""

    id: str                    # "Average@k_10" for a range measure, else the measure's name
    norm: str                  # the measure as asked for ("Average@k")
    spec: M.MeasureSpec        # with the cut-off resolved

    @property
    def cutoff(self) -> float | None:
        return self.spec.fixed_cutoff


@dataclass(frozen=True)
class Combination:
    index: int
    splits: int
    systems: int
    entities: int

    def describe(self) -> str:
        return f"{self.splits} queries, {self.systems} systems, {self.entities} entities"


@dataclass
class Plan:
    """Settings checked against the rank file: the methods, the combinations, the levels."""

    ranks: RankFile
    settings: Settings
    methods: list[Method]
    combinations: list[Combination]
    levels: list[float]
    warnings: list[str] = field(default_factory=list)


def plan(ranks: RankFile, settings: Settings) -> Plan:
    """Check the settings (EvalUsageError with a plain reason) and expand them."""
    n_entities, n_systems = ranks.ranks.shape
    if n_systems < 2:
        raise EvalUsageError(f"{ranks.source}: only {n_systems} system; comparing systems needs at least two")
    specs = [M.parse_measure(text) for text in settings.measures]
    if not specs:
        raise EvalUsageError("choose at least one measure")
    needs_total = [s.name for s in specs if s.needs_total]
    if needs_total and settings.total_ranks is None:
        raise EvalUsageError(f"{_and(needs_total)} need{'s' if len(needs_total) == 1 else ''} the total number of "
                             "ranked entities: give it with --totalranks (-n)")
    if settings.total_ranks is not None and not settings.total_ranks > 0:
        raise EvalUsageError("--totalranks must be a positive number of ranked entities")
    ranged = [s for s in specs if s.has_range]
    if ranged and not settings.cutoffs:
        raise EvalUsageError(f"{_and([s.name for s in ranged])}: give the cut-offs with --cutoffs")
    if any(not (c > 0 and math.isfinite(c)) for c in settings.cutoffs):
        raise EvalUsageError("--cutoffs must be positive numbers")
    methods = []
    for spec in specs:
        if spec.has_range:
            methods += [Method(f"{spec.name}_{M.number_text(c)}", spec.name, spec.at(c)) for c in settings.cutoffs]
        else:
            methods.append(Method(spec.name, spec.name, spec))
    repeated = sorted({m.id for m in methods if [x.id for x in methods].count(m.id) > 1})
    if repeated:
        raise EvalUsageError(f"the measure {repeated[0]} is asked for twice")
    warnings = []
    if settings.cutoffs and not ranged:
        warnings.append("the cut-offs are used only by measures written with @k (e.g. P@k); none was asked for")
    levels = sorted(set(float(f) for f in settings.sigs))
    if not levels or any(not 0 < f < 1 for f in levels):
        raise EvalUsageError("the significance levels (--sigs) must lie between 0 and 1")
    if settings.total_ranks is not None and needs_total:
        above = int((ranks.ranks > settings.total_ranks).sum())
        if above:
            warnings.append(f"{above} rank{'s exceed' if above > 1 else ' exceeds'} the total ranks T = "
                            f"{M.number_text(settings.total_ranks)}: is T the number of entities the systems ranked?")
    combinations: list[Combination] = []
    if settings.experiments:
        _positive_int(settings.iterations, "--iter")
        _positive_int(settings.bootstrap, "--boot")
        _positive_int(settings.threads, "--threads")
        _at_most(settings.iterations, MAX_ITERATIONS, "--iter", "the running time")
        _at_most(settings.bootstrap, MAX_SAMPLES, "--boot", "the running time")
        _at_most(settings.threads, MAX_THREADS, "--threads", "memory: each process holds the ranks")
        if not settings.splits:
            raise EvalUsageError("give the numbers of queries to split the entities into (--splits)")
        systems = settings.systems or (n_systems,)
        entities = settings.entities or (n_entities,)
        for s in systems:
            if not 2 <= s <= n_systems:
                raise EvalUsageError(f"--systems {s}: choose from 2 to the {n_systems} systems of the file")
        for e in entities:
            if not 1 <= e <= n_entities:
                raise EvalUsageError(f"--entities {e}: choose from 1 to the {n_entities} entities of the file")
        for q in settings.splits:
            if q < 2:
                raise EvalUsageError(f"--splits {q}: the experiments need at least 2 queries")
            for e in entities:
                if q > e:
                    raise EvalUsageError(f"--splits {q}: {e} entities cannot be split into {q} queries")
        # The swap method keeps every trial of every pair (with the original's bug 2, one per query of a trial).
        trials = max(systems) * (max(systems) - 1) // 2 * (max(settings.splits) if
                                                           settings.compat.swap_single_queries else 1)
        if trials * settings.bootstrap > MAX_SWAP_TRIALS:
            raise EvalUsageError(f"--boot {settings.bootstrap:,}: at most {max(MAX_SWAP_TRIALS // trials, 1):,} with "
                                 f"{max(systems)} systems (a limit that protects memory: the swap method keeps "
                                 "every trial of every pair of systems)")
        combos = len(settings.splits) * len(systems) * len(entities)
        if combos * settings.iterations > MAX_ITERATIONS:
            raise EvalUsageError(f"{combos:,} combinations of --splits, --systems and --entities x --iter "
                                 f"{settings.iterations:,}: at most {MAX_ITERATIONS:,} iterations in all (a limit "
                                 "that protects the running time)")
        for q in settings.splits:
            for s in systems:
                for e in entities:
                    combinations.append(Combination(len(combinations), q, s, e))
        smallest = min(e for e in entities) / max(settings.splits)
        if smallest < MIN_QUERY_SIZE:
            warnings.append(f"queries of {smallest:.1f} entities on average ({min(entities)} entities in "
                            f"{max(settings.splits)} queries): with fewer than {MIN_QUERY_SIZE} the results are "
                            "very unreliable")
        if 2 in settings.splits:
            warnings.append("with 2 queries the bootstrap is degenerate (a resampled set holds one or two distinct "
                            "queries), so asl and estDiff say little; the original then reports asl 100 and a "
                            "random estDiff")
    return Plan(ranks, settings, methods, combinations, levels, warnings)


def _at_most(value: int, cap: int, option: str, protects: str) -> None:
    if value > cap:
        raise EvalUsageError(f"{option} {value:,}: at most {cap:,} (a limit that protects {protects})")


def _positive_int(value, option: str) -> None:
    if not (isinstance(value, (int, np.integer)) and value >= 1):
        raise EvalUsageError(f"{option} must be a positive whole number")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------------
# One unit of work: some iterations of one combination (what a worker process does)
# ---------------------------------------------------------------------------

@dataclass
class Unit:
    ranks: np.ndarray              # entities x systems
    settings: Settings
    methods: list[Method]
    levels: list[float]
    combination: Combination
    start: int                     # iterations start..stop-1
    stop: int


@dataclass
class UnitResult:
    combination: int
    start: int
    stats: dict[str, dict[str, np.ndarray]]    # method id -> statistic -> iterations (x levels)
    correlations: np.ndarray                   # iterations x pairs


def draws(unit: Unit, iteration: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Iteration ``iteration``'s entities (in query order), systems, and two bootstrap seeds per method:
    from its own generator, so that no other iteration or process changes them."""
    rng = np.random.default_rng([unit.settings.seed, unit.combination.index, iteration])
    n_entities, n_systems = unit.ranks.shape
    entities = rng.permutation(n_entities)[:unit.combination.entities]
    systems = rng.permutation(n_systems)[:unit.combination.systems]
    seeds = rng.integers(0, 2 ** 62, size=(len(unit.methods), 2))
    return entities, systems, seeds


def query_members(entities: np.ndarray, splits: int) -> np.ndarray:
    """splits x M: the entity indices of each query (contiguous chunks, the first n mod splits one
    longer), -1 where a query is shorter."""
    size, longer = divmod(len(entities), splits)
    width = size + (longer > 0)
    out = np.full((splits, width), -1, dtype=np.int64)
    start = 0
    for q in range(splits):
        length = size + (q < longer)
        out[q, :length] = entities[start:start + length]
        start += length
    return out


def run_unit(unit: Unit, state: JobState | None = None) -> UnitResult:
    state = state_or_default(state)
    settings, compat, levels = unit.settings, unit.settings.compat, unit.levels
    iterations = range(unit.start, unit.stop)
    drawn = [draws(unit, i) for i in iterations]
    members = np.stack([query_members(entities, unit.combination.splits) for entities, _, _ in drawn])  # I x Q x M
    # in file order (the statistics do not depend on it; bug 6's "first system" does)
    systems = np.sort(np.stack([chosen for _, chosen, _ in drawn]), axis=1)                            # I x S'
    per_query = unit.ranks[np.maximum(members, 0)[..., None], systems[:, None, None, :]]                # I x Q x M x S'
    per_query = np.where((members >= 0)[..., None], per_query, np.inf)
    sr = M.SortedRanks(np.moveaxis(per_query, -1, -2))                                                 # I x Q x S' x M
    sizes = (members >= 0).sum(axis=-1).astype(np.float64)                     # I x Q
    # A cancel check between the unit's long steps (each takes a second or more on thousands of entities).
    state.check()
    buckets = None
    if any(m.spec.per_mille for m in unit.methods):
        buckets = M.Buckets(sr, settings.total_ranks, compat.bucket_index_counting, state.check)
    correlations = _correlations(unit.ranks, [entities for entities, _, _ in drawn], systems,
                                 compat.correlation_skips_first, state.check)
    stats = {}
    for m, method in enumerate(unit.methods):
        state.check()
        scores, counts = M.score(method.spec, sr, settings.total_ranks, compat.bucket_index_counting, buckets)
        higher = not method.spec.lower_better
        out: dict[str, np.ndarray] = {}
        state.check()
        if settings.error_rates:
            if compat.relrate_buckets and method.spec.per_mille and method.spec.base in BUCKET_COUNTED:
                counts = np.full(counts.shape, float(M.BUCKETS))          # bug 11: the buckets are counted
            with np.errstate(invalid="ignore", divide="ignore"):
                out["relRate"] = 100.0 * (counts / sizes[..., None]).mean(axis=(1, 2))
            err = np.empty((len(iterations), len(levels)))
            tie = np.empty_like(err)
            rated = scores
            if compat.missing_query_ties:                                 # bug 10: the whole query ties
                rated = np.where(np.isnan(scores).any(axis=2, keepdims=True), np.nan, scores)
            for l, level in enumerate(levels):
                err[:, l], tie[:, l] = stability.per_query_rates(rated, level, higher)
            out["errRate"], out["tieRate"] = err, tie
            out["tRate"] = _t_rates(scores, levels)
            state.check()
        asl = np.empty((len(iterations), len(levels)))
        required, low, high = np.empty_like(asl), np.empty_like(asl), np.empty_like(asl)
        for i, (_, _, seeds) in enumerate(drawn):
            diffs = stability.pair_differences(scores[i], higher)
            finite = np.isfinite(diffs).all(axis=1)
            share = finite.mean()
            # bug 10: a pair with a missing score has ASL 0 in the original, so it is significant
            missing_rate = 100.0 * (1.0 - share) if compat.missing_query_ties else 0.0
            if finite.any():
                result = _asl(diffs[finite], levels, settings.bootstrap, int(seeds[m, 0]), compat, state)
                asl[i] = [result.rate[level] * share + missing_rate for level in levels]
                required[i] = [result.difference_required[level] for level in levels]
                swap = _swap(diffs[finite], levels, settings.bootstrap, int(seeds[m, 1]), compat, state)
                low[i] = [_beyond_any(swap.limits[level][0]) for level in levels]
                high[i] = [_beyond_any(swap.limits[level][1]) for level in levels]
            else:
                # No pair has a score on every query: nothing is significant, nothing can be estimated
                # (left out of the means over the iterations).
                asl[i], required[i], low[i], high[i] = missing_rate, np.nan, np.nan, np.nan
        out.update(asl=asl, estDiff=required, swapDiffMin=low, swapDiffMax=high)
        stats[method.id] = out
    return UnitResult(unit.combination.index, unit.start, stats, correlations)


def _beyond_any(limit: float) -> float:
    """A swap limit, +inf where no bin got down to the level (NaN): the difference required is beyond
    any observed. ±inf (the original's "no bin") stay as they are (np.nan_to_num would make them ±DBL_MAX)."""
    return math.inf if math.isnan(limit) else float(limit)


def _asl(diffs: np.ndarray, levels, samples: int, seed: int, compat: Compat, state: JobState):
    if compat.asl_zero_spread:
        state.check()
        return original_asl(diffs, levels, samples, seed)
    return stability.asl_rates(diffs, levels, samples, seed, state)


def _swap(diffs: np.ndarray, levels, samples: int, seed: int, compat: Compat, state: JobState):
    if compat.swap_single_queries:
        first, second = single_query_trials(diffs, samples, seed)
    else:
        first, second = stability.swap_trials(diffs, samples, seed, state)
    if compat.swap_partial_bins:
        return partial_bins(first, second, levels)
    return stability.swap_bins(first, second, levels)


def _t_rates(scores: np.ndarray, levels: list[float]) -> np.ndarray:
    """iterations x levels: percent of pairs whose paired t-test over the queries has p <= level.
    A pair whose differences are the same on every query (or missing) is not significant."""
    first, second = stability.pair_indices(scores.shape[2])
    diffs = np.moveaxis(scores[:, :, first] - scores[:, :, second], 1, 2)        # I x pairs x Q
    flat = diffs.reshape(-1, diffs.shape[2])
    with np.errstate(invalid="ignore"):
        spread = np.ptp(flat, axis=1)
        scale = np.abs(flat).max(axis=1, initial=0.0)
    testable = spread > NOISE * np.maximum(scale, 1.0)           # False for NaN too (scipy is slow on NaN)
    p = np.ones(len(flat))
    if testable.any():
        p[testable] = t_test(flat[testable])
    p = np.where(np.isnan(p), 1.0, p).reshape(diffs.shape[:2])
    return np.stack([100.0 * (p <= level).mean(axis=1) for level in levels], axis=1)


def _correlations(ranks: np.ndarray, entities: list[np.ndarray], systems: np.ndarray, skip_first: bool,
                  check: Callable[[], None] | None = None) -> np.ndarray:
    """iterations x pairs: Spearman's rho between every two drawn systems over the iteration's entities.
    Each iteration on its own, so in pieces of about CORRELATION_NUMBERS ranks, with ``check`` (a job's cancel
    check) before each."""
    step = max(1, CORRELATION_NUMBERS // max(len(entities[0]) * systems.shape[1], 1)) if len(entities) else 1
    pieces = []
    for start in range(0, len(entities), step):
        if check is not None:
            check()
        pieces.append(_piece_correlations(ranks, entities[start:start + step], systems[start:start + step],
                                          skip_first))
    return np.concatenate(pieces) if pieces else _piece_correlations(ranks, entities, systems, skip_first)


def _piece_correlations(ranks: np.ndarray, entities: list[np.ndarray], systems: np.ndarray,
                        skip_first: bool) -> np.ndarray:
    values = np.stack([ranks[e][:, s] for e, s in zip(entities, systems)])      # I x E' x S'
    ranked = average_ranks(values)
    centred = ranked - ranked.mean(axis=1, keepdims=True)
    norms = np.sqrt((centred ** 2).sum(axis=1))                                  # I x S'
    first, second = stability.pair_indices(values.shape[2])
    if skip_first:
        keep = first > 0
        first, second = first[keep], second[keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (centred[:, :, first] * centred[:, :, second]).sum(axis=1) / (norms[:, first] * norms[:, second])


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n along axis 1, tied values sharing their mean rank (as scipy's rankdata; numpy
    alone, because importing scipy.stats costs a worker process over a second)."""
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    n = values.shape[1]
    position = np.arange(n).reshape((1, n) + (1,) * (values.ndim - 2))
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones(ordered.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n - 1), axis=1), axis=1), axis=1)
    out = np.empty(ordered.shape)
    np.put_along_axis(out, order, (first + last) / 2.0 + 1.0, axis=1)
    return out


# ---------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------

@dataclass
class SignificanceMatrix:
    method: Method
    combination: Combination
    labels: list[list[str]]              # systems x systems: the row system is better than the column one


@dataclass
class StabilityResults:
    plan: Plan
    actual: object                       # DataFrame: measure, then one column per system
    evaluation: object | None            # DataFrame: EVAL_COLUMNS, one row per experiment (None: not run)
    matrices: list[SignificanceMatrix]
    legend: list[tuple[str, float]]      # (label, level), lowest level first

    @property
    def warnings(self) -> list[str]:
        return self.plan.warnings

    @property
    def systems(self) -> list[str]:
        return self.plan.ranks.systems

    def legend_text(self) -> str:
        """The original's legend: "Significance: 0 '***' 0.005 '**' 0.01 ... ' ' 1"."""
        return "Significance: 0 " + " ".join(f"'{label}' {M.number_text(level)}" for label, level in self.legend) \
            + " ' ' 1"

    def significance_table(self):
        """The matrices as one table: measure, the combination, the row system, one column per system."""
        import pandas as pd

        rows = []
        for matrix in self.matrices:
            c = matrix.combination
            for system, labels in zip(self.systems, matrix.labels):
                rows.append([matrix.method.id, c.splits, c.systems, c.entities, system, *labels])
        return pd.DataFrame(rows, columns=["measure", "splitCount", "systemCount", "entityCount", "Systems",
                                           *self.systems])


def actual_scores(ranks: RankFile, methods: list[Method], total: float | None, compat: Compat) -> np.ndarray:
    """methods x systems: each measure on all the entities."""
    sr = M.SortedRanks(ranks.ranks.T)
    buckets = M.Buckets(sr, total, compat.bucket_index_counting) if any(m.spec.per_mille for m in methods) else None
    return np.stack([M.score(m.spec, sr, total, compat.bucket_index_counting, buckets)[0] for m in methods]) \
        if methods else np.empty((0, len(ranks.systems)))


# A process costs about a second of start-up (numpy, scipy); below this much work per process
# (iterations x measures x system pairs x bootstrap samples, about 2 s) one process is faster.
WORK_PER_PROCESS = 20_000_000
# A unit's largest arrays hold about this many numbers (32 MB). Cancel is checked between units, between a unit's
# steps and inside its longest ones (the per-mille buckets, the correlations), in pieces of CORRELATION_NUMBERS.
UNIT_NUMBERS = 4_000_000
CORRELATION_NUMBERS = 500_000


def processes_for(checked: Plan) -> int:
    """How many of the ``threads`` processes the work is worth."""
    settings = checked.settings
    work = sum(settings.iterations * len(checked.methods) * c.systems * (c.systems - 1) // 2 * settings.bootstrap
               for c in checked.combinations)
    return max(1, min(settings.threads, work // WORK_PER_PROCESS))


def units_of(checked: Plan, processes: int = 1) -> list[Unit]:
    """The work: each combination's iterations in chunks whose arrays hold about UNIT_NUMBERS numbers, in a multiple
    of the number of processes (so that they finish together)."""
    settings = checked.settings
    per_mille = any(m.spec.per_mille for m in checked.methods)
    units = []
    for c in checked.combinations:
        width = math.ceil(c.entities / c.splits)
        per_iteration = c.splits * c.systems * (max(width, M.BUCKETS) if per_mille else width)
        largest = max(1, UNIT_NUMBERS // max(per_iteration, 1))
        pieces = math.ceil(settings.iterations / largest)
        if processes > 1 and len(checked.combinations) < processes:
            pieces = math.ceil(pieces / processes) * processes
        chunk = math.ceil(settings.iterations / min(pieces, settings.iterations))
        for start in range(0, settings.iterations, chunk):
            units.append(Unit(checked.ranks.ranks, settings, checked.methods, checked.levels, c, start,
                              min(start + chunk, settings.iterations)))
    return units


def run(checked: Plan, state: JobState | None = None) -> StabilityResults:
    state = state_or_default(state)
    settings = checked.settings
    values = actual_scores(checked.ranks, checked.methods, settings.total_ranks, settings.compat)
    checked.warnings.extend(indistinct(checked.methods, values))
    results: list[UnitResult] = []
    if settings.experiments:
        processes = processes_for(checked)
        units = units_of(checked, processes)
        for result in _execute(units, processes, state):
            results.append(result)
            combination = checked.combinations[result.combination]
            state.progress(len(results) / len(units), f"Combination {combination.index + 1} of "
                                                      f"{len(checked.combinations)}: {combination.describe()}")
    return _assemble(checked, values, results)


def indistinct(methods: list[Method], values: np.ndarray) -> list[str]:
    """A warning naming the measures that give every system the same value on all the entities: their
    error and tie rates say nothing about these systems. (Ranks pooled from several queries' rankings,
    as from TREC runs, put many entities at every low rank, and measures comparing i with r_i saturate.)"""
    same = [m.id for m, row in zip(methods, values)
            if len(row) > 1 and np.isfinite(row).all() and np.ptp(row) <= NOISE * max(1.0, float(np.abs(row).max()))]
    if not same:
        return []
    one = len(same) == 1
    return [f"{_and(same)} give{'s' if one else ''} every system the same value on all the entities, so "
            f"{'it cannot' if one else 'they cannot'} tell these systems apart (when the ranks come from several "
            "queries' rankings, measures comparing the i-th entity with its rank, such as AP, P@k and R-precision, "
            "are often 1 for every system)"]


def _execute(units: list[Unit], processes: int, state: JobState):
    """Run the units here (one process) or in ``processes`` processes; yield results as they finish."""
    if processes <= 1 or len(units) <= 1:
        for unit in units:
            state.check()
            yield run_unit(unit, state)
        return
    import multiprocessing

    from evalgui.core.rankfile import one_blas_thread_for_children

    # spawn: safe beside the GUI's threads, and the same on every platform
    with one_blas_thread_for_children():
        pool = multiprocessing.get_context("spawn").Pool(min(processes, len(units)))
    try:
        pending = [pool.apply_async(run_unit, (unit,)) for unit in units]
        while pending:
            state.check()
            ready = [p for p in pending if p.ready()]
            if not ready:
                pending[0].wait(0.05)
            for p in ready:
                pending.remove(p)
                yield p.get()
    finally:
        pool.terminate()         # at once on Cancel or an error; the workers are idle otherwise
        pool.join()


def _assemble(checked: Plan, values: np.ndarray, results: list[UnitResult]) -> StabilityResults:
    import pandas as pd

    settings, methods, levels = checked.settings, checked.methods, checked.levels
    systems = checked.ranks.systems
    actual = pd.DataFrame({"measure": [m.id for m in methods],
                           **{s: values[:, j] for j, s in enumerate(systems)}})
    legend = [(star(i), level) for i, level in enumerate(levels)]
    if not settings.experiments:
        return StabilityResults(checked, actual, None, [], legend)
    by_combination: dict[int, list[UnitResult]] = {}
    for r in sorted(results, key=lambda r: (r.combination, r.start)):
        by_combination.setdefault(r.combination, []).append(r)
    rows, matrices = [], []
    decisions_at: dict[str, int] = {}          # method -> the row holding its last decisions (bug 5)
    for c in checked.combinations:
        parts = by_combination[c.index]
        rho = np.concatenate([p.correlations for p in parts])
        correlation, correlation_sd = (float(np.nanmean(rho)), float(np.nanstd(rho))) if np.isfinite(rho).any() \
            else (math.nan, math.nan)
        stats = {method.id: {k: np.concatenate([p.stats[method.id][k] for p in parts])
                             for k in parts[0].stats[method.id]} for method in methods}
        required = {method.id: _required(stats[method.id], settings.swap) for method in methods}
        for l, level in enumerate(levels):
            for m, method in enumerate(methods):
                stat = stats[method.id]
                err, tie = stat.get("errRate"), stat.get("tieRate")
                rows.append([method.id, method.norm, correlation, correlation_sd, c.systems, c.splits, c.entities,
                             level, method.cutoff,
                             _mean(err, l), _sd(err, l), _mean(tie, l), _sd(tie, l), _mean(stat.get("tRate"), l),
                             float(np.mean(stat["relRate"])) if "relRate" in stat else math.nan,
                             _mean(stat["asl"], l), _estimate(stat["estDiff"], l), _estimate(stat["swapDiffMin"], l),
                             _estimate(stat["swapDiffMax"], l), _decisions(values[m], required[method.id][l])])
                decisions_at[method.id] = len(rows) - 1
        for m, method in enumerate(methods):
            # bug 4: the matrices take the other estimate
            swap = settings.swap != settings.compat.significance_estimators
            matrices.append(SignificanceMatrix(method, c, _matrix(values[m], method,
                                                                  _required(stats[method.id], swap), settings)))
    if settings.compat.decisions_last_fuzziness:
        last = {method_id: rows[row][-1] for method_id, row in decisions_at.items()}
        for row in rows:
            row[-1] = last[row[0]]
    evaluation = pd.DataFrame(rows, columns=list(EVAL_COLUMNS))
    return StabilityResults(checked, actual, evaluation, matrices, legend)


def _mean(values: np.ndarray | None, level: int) -> float:
    return math.nan if values is None else float(np.mean(values[:, level]))


def _estimate(values: np.ndarray, level: int) -> float:
    """The mean over the iterations that could estimate it."""
    column = values[:, level]
    known = ~np.isnan(column)
    with np.errstate(over="ignore", invalid="ignore"):          # infinite limits (no bin got there) stay so
        return float(np.mean(column[known])) if known.any() else math.nan


def _sd(values: np.ndarray | None, level: int) -> float:
    if values is None:
        return math.nan
    return float(np.std(values[:, level], ddof=1)) if len(values) > 1 else 0.0


def _required(stat: dict, swap: bool) -> list[float]:
    """Per level, the difference required: the mean over the iterations of estDiff (the bootstrap)
    or of swapDiffMin (the swap method)."""
    values = stat["swapDiffMin"] if swap else stat["estDiff"]
    return [_estimate(values, l) for l in range(values.shape[1])]


def _decisions(actual: np.ndarray, threshold: float) -> float:
    """Percent of system pairs whose values on all entities differ by more than the difference required."""
    if math.isnan(threshold):
        return math.nan
    first, second = stability.pair_indices(len(actual))
    with np.errstate(invalid="ignore"):
        decided = (np.abs(actual[first] - actual[second]) > threshold) & (threshold > 0)
    return 100.0 * float(decided.mean()) if len(first) else math.nan


def _matrix(actual: np.ndarray, method: Method, thresholds: list[float], settings: Settings) -> list[list[str]]:
    """Cell (i, j): the label of the lowest level at which system i beats system j by more than the
    difference required; "--" on the diagonal, "" where no level does."""
    n = len(actual)
    labels = [["--" if i == j else "" for j in range(n)] for i in range(n)]
    if settings.compat.significance_estimators and method.cutoff is not None:
        return labels
    sign = -1.0 if method.spec.lower_better else 1.0
    with np.errstate(invalid="ignore"):
        margin = sign * (actual[:, None] - actual[None, :])          # > 0: the row system is better
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            for l, threshold in enumerate(thresholds):
                if threshold > 0 and margin[i, j] > threshold:
                    labels[i][j] = star(l)
                    break
    return labels
