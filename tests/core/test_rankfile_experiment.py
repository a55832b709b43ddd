"""The stability experiments on rank files (core/rankfile/experiment.py) and the compat switches (compat.py),
checked by hand on tiny inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.rankfile import experiment as X
from evalgui.core.rankfile.compat import PRESETS, Compat, partial_bins, preset, single_query_trials
from evalgui.core.rankfile.ranks import RankFile
from evalgui.core.stats import stability
from evalgui.core.stats.significance import resample_counts


def ranks_of(rows, systems=None) -> RankFile:
    rows = np.asarray(rows, dtype=float)
    systems = systems or [f"S{j + 1}" for j in range(rows.shape[1])]
    return RankFile("test", systems, [f"E{i + 1}" for i in range(len(rows))], rows)


def run(ranks: RankFile, **settings):
    settings.setdefault("iterations", 4)
    settings.setdefault("bootstrap", 200)
    return X.run(X.plan(ranks, X.Settings(**settings)))


def rows_of(results, method: str):
    table = results.evaluation
    return table[table.method == method].reset_index(drop=True)


# Two entities, two systems, one entity per query: the average rank of a query is the entity's rank.
# Entity 1: S1 ranks it 1, S2 2 (S1 better); entity 2: 4 and 3 (S2 better).
TWO = ranks_of([[1, 2], [4, 3]])


# ---------------------------------------------------------------- splitting and drawing

def test_queries_are_contiguous_chunks_the_first_ones_longer():
    members = X.query_members(np.arange(7), 3)
    assert members.tolist() == [[0, 1, 2], [3, 4, -1], [5, 6, -1]]
    assert X.query_members(np.array([4, 2, 0, 1]), 2).tolist() == [[4, 2], [0, 1]]


def test_each_iteration_draws_from_its_own_seed():
    checked = X.plan(ranks_of(np.arange(1, 41).reshape(20, 2)), X.Settings(measures=("AP",), splits=(4,)))
    unit = X.units_of(checked)[0]
    a, b = X.draws(unit, 3), X.draws(unit, 3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(X.draws(unit, 4)[0], a[0])
    other_seed = X.Unit(unit.ranks, X.Settings(measures=("AP",), seed=7), unit.methods, unit.levels,
                        unit.combination, 0, 1)
    assert not np.array_equal(X.draws(other_seed, 3)[0], a[0])


# ---------------------------------------------------------------- error and tie rates, tRate, relRate

def test_error_and_tie_rates_by_hand():
    # one comparison per query: S1 better on E1, worse on E2 -> one error in two comparisons.
    # The tie tolerance is f x the query's mean (1.5 and 3.5): at f = 0.9 both differences of 1 tie.
    results = run(TWO, measures=("Average",), splits=(2,), sigs=(0.1, 0.9), error_rates=True)
    rows = rows_of(results, "Average")
    assert rows.fuzziness.tolist() == [0.1, 0.9]
    assert rows.errRate.tolist() == [50.0, 0.0] and rows.tieRate.tolist() == [0.0, 100.0]
    assert rows["stddev errRate"].tolist() == [0.0, 0.0]
    assert rows.relRate.tolist() == [100.0, 100.0]
    assert rows.tRate.tolist() == [0.0, 0.0]               # differences -1 and +1: mean 0


def test_rel_rate_is_the_share_of_entities_a_measure_uses():
    # Average@1 uses only E1 in S1 (rank 1): one entity of one in one of the four (query, system) cells
    rows = rows_of(run(TWO, measures=("Average@1",), splits=(2,), sigs=(0.1,), error_rates=True), "Average@1")
    assert rows.relRate.tolist() == [25.0]
    # every other comparison involves a missing average: a tie, never an error
    assert rows.errRate.tolist() == [0.0] and rows.tieRate.tolist() == [100.0]


def test_t_rate_counts_pairs_with_p_at_most_the_level_and_not_constant_differences():
    scores = np.array([[[1.0, 2.0, 5.0], [1.1, 2.0, 5.0], [0.9, 2.0, 5.0], [1.0, 2.0, 5.0]]])   # 1 x 4 x 3
    # pairs (S1,S2): differences ~ -1 with a little noise: p tiny; (S1,S3) likewise; (S2,S3): constant -3
    rates = X._t_rates(scores, [0.01, 0.5])
    assert rates.tolist() == [[pytest.approx(200 / 3), pytest.approx(200 / 3)]]
    without_noise = X._t_rates(np.array([[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]]), [0.5])
    assert without_noise.tolist() == [[0.0]]


def test_per_query_rates_tie_a_missing_score():
    scores = np.array([[[1.0, np.nan, 3.0], [2.0, np.nan, 1.0]]])
    err, tie = stability.per_query_rates(scores, 0.0)
    # pairs with S2 tie on both queries (4 of 6); S1 vs S3: worse, then better: one error
    assert tie[0] == pytest.approx(400 / 6) and err[0] == pytest.approx(100 / 6)


# ---------------------------------------------------------------- ASL and the estimated difference

def test_asl_with_two_queries_is_the_share_of_resamples_drawing_one_query_twice():
    # One pair, per-query differences (lower is better: S2 - S1) 1 and 3: w = (-1, +1). A resample of
    # two copies of one query has a mean of +-1 and no spread (|t| infinite), the others mean 0.
    diffs = np.array([[1.0, 3.0]])
    counts = resample_counts(2, 400, 11)
    twice = float((counts.max(axis=1) == 2).mean())
    result = stability.asl_rates(diffs, [0.05, 0.9], samples=400, seed=11)
    assert result.asl.tolist() == [twice]
    assert result.rate == {0.05: 0.0, 0.9: 100.0 if twice < 0.9 else 0.0}
    assert result.difference_required[0.05] == 1.0          # |mean w*| of a degenerate resample


def test_the_experiment_asl_and_est_diff_are_the_shared_bootstrap_on_each_iteration():
    ranks = ranks_of([[1, 2], [1, 4], [3, 1], [6, 7], [2, 9], [5, 5]])
    checked = X.plan(ranks, X.Settings(measures=("Average",), splits=(2,), sigs=(0.05, 0.5), iterations=3,
                                       bootstrap=300))
    unit = X.units_of(checked)[0]
    result = X.run_unit(unit)
    for i in range(3):
        entities, systems, seeds = X.draws(unit, i)
        members = X.query_members(entities, 2)
        scores = np.array([[ranks.ranks[q, s].mean() for s in systems] for q in members])
        expected = stability.asl_rates(stability.pair_differences(scores, False), [0.05, 0.5], 300, int(seeds[0, 0]))
        assert result.stats["Average"]["asl"][i].tolist() == [expected.rate[0.05], expected.rate[0.5]]
        assert result.stats["Average"]["estDiff"][i].tolist() == pytest.approx(
            [expected.difference_required[0.05], expected.difference_required[0.5]])


def test_two_queries_warn_that_the_bootstrap_is_degenerate():
    checked = X.plan(TWO, X.Settings(measures=("Average",), splits=(2,)))
    assert any("degenerate" in w for w in checked.warnings)


# ---------------------------------------------------------------- the swap method's binning

def test_swap_bins_by_hand():
    first, second = np.array([0.1, -0.2, 0.5, 1.0]), np.array([-0.1, -0.3, 0.4, 0.9])
    result = stability.swap_bins(first, second, [0.05, 0.0])
    # 21 bins of width 1/21 from 0 to 1: 0.1 -> bin 2 (a swap), 0.2 -> bin 4, 0.5 -> 10, 1.0 -> 20
    assert np.flatnonzero(result.trials).tolist() == [2, 4, 10, 20] and result.swaps.tolist()[2] == 1
    assert result.limits[0.05] == pytest.approx((4 / 21, 5 / 21))
    again = stability.swap_method(np.array([[0.3, -0.1, 0.2]]), [0.05], samples=50, seed=3)
    split = stability.swap_bins(*stability.swap_trials(np.array([[0.3, -0.1, 0.2]]), 50, 3), [0.05])
    assert again.limits == split.limits and again.trials.tolist() == split.trials.tolist()


def test_bug_3_partial_bins_by_hand():
    first, second = np.array([0.1, -0.2, 0.5, 1.0]), np.array([-0.1, -0.3, 0.4, 0.9])
    result = partial_bins(first, second, [0.05])
    # lo 0.1, hi 1.0: edges 0.1 + m * 0.9/105 reach only 0.271; 0.2 is in bin 11, 0.5 and 1.0 in bin 20.
    assert result.edges[-1] == pytest.approx(0.1 + 0.9 * 20 / 105)
    assert result.swaps.tolist() == [1] + [0] * 20
    # the non-swap in bin 11 is counted in bins 11..20 as well: rate 0 from bin 11 on
    assert result.trials.tolist() == [1] + [0] * 10 + [1] * 9 + [3]
    step = 0.9 * 20 / 105 / 21
    assert result.limits[0.05] == pytest.approx((0.1 + 11 * step, 0.1 + 12 * step))
    every_one_swaps = partial_bins(first, -first, [0.05])
    assert every_one_swaps.limits[0.05] == (-np.inf, np.inf)
    a_zero_counts_as_a_swap = partial_bins(np.array([0.0, 1.0]), np.array([1.0, 1.0]), [0.05])
    assert a_zero_counts_as_a_swap.swaps[0] == 1


def test_bug_2_compares_single_query_differences():
    diffs = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]])
    first, second = single_query_trials(diffs, samples=10, seed=1)
    assert first.shape == second.shape == (2, 30)
    # each observation is one query's difference, the same query for both pairs
    columns = [tuple(first[:, j]) for j in range(30)]
    assert set(columns) <= {tuple(diffs[:, q]) for q in range(3)} and len(set(columns)) > 1


def test_the_swap_variants_are_chosen_by_the_switches():
    diffs = np.array([[0.5, -0.2, 0.1, 0.7], [0.3, 0.3, -0.4, 0.2]])
    levels = [0.05, 0.15]
    state = JobState()
    plain = X._swap(diffs, levels, 100, 5, Compat(), state)
    assert plain.limits == stability.swap_method(diffs, levels, 100, 5).limits
    both = X._swap(diffs, levels, 100, 5, preset("dunaiski2018"), state)
    assert both.limits == partial_bins(*single_query_trials(diffs, 100, 5), levels).limits
    only_bins = X._swap(diffs, levels, 100, 5, Compat(swap_partial_bins=True), state)
    assert only_bins.limits == partial_bins(*stability.swap_trials(diffs, 100, 5), levels).limits
    only_queries = X._swap(diffs, levels, 100, 5, Compat(swap_single_queries=True), state)
    expected = stability.swap_bins(*single_query_trials(diffs, 100, 5), levels)
    np.testing.assert_array_equal(only_queries.trials, expected.trials)
    np.testing.assert_array_equal(list(only_queries.limits.values()), list(expected.limits.values()))


# ---------------------------------------------------------------- correlation, decisions, matrices

def test_correlation_is_spearman_over_all_pairs_and_bug_6_skips_the_first_system():
    ranks = np.array([[1, 1, 3], [2, 3, 2], [3, 2, 1]], dtype=float)     # entities x systems
    everything = [np.arange(3)]
    rho = X._correlations(ranks, everything, np.array([[0, 1, 2]]), skip_first=False)
    assert rho[0].tolist() == pytest.approx([0.5, -1.0, -0.5])            # pairs (1,2), (1,3), (2,3)
    assert X._correlations(ranks, everything, np.array([[0, 1, 2]]), skip_first=True)[0].tolist() == \
        pytest.approx([-0.5])
    results = run(ranks_of(ranks), measures=("Average",), splits=(3,), iterations=2)
    assert results.evaluation.correlation[0] == pytest.approx(-1 / 3)
    assert results.evaluation["stddev corr"][0] == pytest.approx(np.std([0.5, -1.0, -0.5]))


def test_average_ranks_are_scipys():
    from scipy.stats import rankdata

    values = np.random.default_rng(4).integers(1, 6, size=(3, 40, 4)).astype(float)     # many ties
    np.testing.assert_array_equal(X.average_ranks(values), rankdata(values, axis=1))
    assert X.average_ranks(np.array([[[3.0], [1.0], [3.0], [2.0]]])).ravel().tolist() == [3.5, 1.0, 3.5, 2.0]


def test_decisions_by_hand():
    actual = np.array([1.0, 2.0, 4.0])                 # differences 1, 3 and 2
    assert X._decisions(actual, 1.5) == pytest.approx(200 / 3)
    assert X._decisions(actual, 0.0) == 0.0            # no estimate, no decision
    assert math.isnan(X._decisions(actual, math.nan))


def test_significance_matrix_labels_the_lowest_level_won():
    method = X.plan(TWO, X.Settings(measures=("Average",), experiments=False)).methods[0]
    settings = X.Settings()
    labels = X._matrix(np.array([10.0, 20.0, 50.0]), method, [35.0, 25.0, 5.0], settings)   # lower is better
    assert labels == [["--", "*", "***"], ["", "--", "**"], ["", "", "--"]]
    assert X.star(5) == "_" and X.star(6) == "_1"


def test_bug_4_takes_the_other_estimate_and_never_marks_a_cut_off():
    ranks = ranks_of([[1, 30, 2], [2, 40, 60], [3, 35, 61], [4, 38, 70], [5, 33, 80], [6, 31, 90]])
    common = dict(measures=("Average", "Average@50"), splits=(3,), iterations=6, seed=5)
    fixed = run(ranks, **common)
    buggy = run(ranks, compat=Compat(significance_estimators=True), **common)
    pd.testing.assert_frame_equal(fixed.evaluation, buggy.evaluation)      # only the matrices change
    average = next(m for m in buggy.matrices if m.method.id == "Average")
    rows = rows_of(buggy, "Average")
    expected = X._matrix(buggy.actual.iloc[0, 1:].to_numpy(float), average.method, rows.swapDiffMin.tolist(),
                         X.Settings())
    assert average.labels == expected
    cut = next(m for m in buggy.matrices if m.method.id == "Average@50")
    assert all(cell in ("", "--") for row in cut.labels for cell in row)
    assert any(cell not in ("", "--") for m in fixed.matrices if m.method.id == "Average@50"
               for row in m.labels for cell in row)


def test_bug_5_every_row_shows_the_last_levels_decisions():
    ranks = ranks_of([[1, 30, 2], [2, 40, 60], [3, 35, 61], [4, 38, 70], [5, 33, 80], [6, 31, 90]])
    common = dict(measures=("Average",), splits=(3,), iterations=6, seed=5, sigs=(0.05, 0.5))
    fixed = rows_of(run(ranks, **common), "Average")
    buggy = rows_of(run(ranks, compat=Compat(decisions_last_fuzziness=True), **common), "Average")
    assert buggy.decisions.tolist() == [fixed.decisions.tolist()[-1]] * 2


def test_bug_7_average_at_10_is_always_the_average_rank_within_10():
    ranks = ranks_of([[5, 12], [2, 30], [11, 9]])
    for compat in (Compat(), PRESETS["dunaiski2018"]):
        actual = run(ranks, measures=("Average@10",), compat=compat, experiments=False).actual
        assert actual.iloc[0, 1:].tolist() == [3.5, 9.0]


def test_the_preset_switches_every_bug_on():
    assert preset("dunaiski2018").active == ["bucket_index_counting", "swap_single_queries", "swap_partial_bins",
                                             "significance_estimators", "decisions_last_fuzziness",
                                             "correlation_skips_first", "asl_zero_spread", "missing_query_ties",
                                             "relrate_buckets"]
    assert preset(None).active == []
    from evalgui.core.rankfile import COMPAT_MODES
    assert tuple(PRESETS) == COMPAT_MODES


# ---------------------------------------------------------------- the job

def test_rows_per_combination_level_and_measure_in_the_originals_order():
    ranks = ranks_of(np.random.default_rng(1).integers(1, 500, size=(12, 4)))
    results = run(ranks, measures=("AP", "Average@k"), cutoffs=(10, 100), splits=(2, 3), systems=(3, 4),
                  sigs=(0.1, 0.05))
    table = results.evaluation
    assert list(table.columns) == list(X.EVAL_COLUMNS)
    assert len(table) == 2 * 2 * 2 * 3
    first = table.head(6)
    assert first.method.tolist() == ["AP", "Average@k_10", "Average@k_100"] * 2
    assert first.norm.tolist() == ["AP", "Average@k", "Average@k"] * 2
    assert first.fuzziness.tolist() == [0.05] * 3 + [0.1] * 3
    assert first.cutoff.tolist()[:3] == [pytest.approx(math.nan, nan_ok=True), 10.0, 100.0]
    assert table[["splitCount", "systemCount"]].drop_duplicates().values.tolist() == [[2, 3], [2, 4], [3, 3], [3, 4]]
    assert results.actual.measure.tolist() == ["AP", "Average@k_10", "Average@k_100"]
    assert len(results.matrices) == 4 * 3
    assert math.isnan(table.errRate[0])                   # without error_rates


def test_progress_per_unit_and_cancel():
    ranks = ranks_of(np.random.default_rng(2).integers(1, 99, size=(10, 3)))
    checked = X.plan(ranks, X.Settings(measures=("AP",), splits=(2, 5), iterations=3, bootstrap=50))
    seen = []
    X.run(checked, JobState(on_progress=lambda f, m: seen.append((f, m)), min_interval=0.0))
    assert [f for f, _ in seen] == [0.5, 1.0]
    assert seen[0][1] == "Combination 1 of 2: 2 queries, 3 systems, 10 entities"
    with pytest.raises(Cancelled):
        X.run(checked, JobState(is_cancelled=lambda: True))


def test_processes_only_for_work_worth_their_start_up():
    ranks = ranks_of(np.random.default_rng(3).integers(1, 99, size=(40, 20)))
    small = X.plan(ranks, X.Settings(measures=("AP",), splits=(2,), iterations=50, bootstrap=1000, threads=4))
    assert X.processes_for(small) == 1                   # 50 x 190 pairs x 1,000 samples: about a second
    many = X.plan(ranks, X.Settings(measures=("AP", "nDCG", "Median", "Average"), splits=(2, 4), iterations=100,
                                    bootstrap=1000, threads=4))
    assert X.processes_for(many) == 4
    # two combinations for four processes: each combination's iterations in four pieces
    assert [(u.combination.index, u.start, u.stop) for u in X.units_of(many, 4)][:5] == [
        (0, 0, 25), (0, 25, 50), (0, 50, 75), (0, 75, 100), (1, 0, 25)]


def test_cancel_stops_the_worker_processes(monkeypatch):
    monkeypatch.setattr(X, "WORK_PER_PROCESS", 1)
    ranks = ranks_of(np.random.default_rng(3).integers(1, 99, size=(10, 3)))
    checked = X.plan(ranks, X.Settings(measures=("AP",), splits=(2,), iterations=20, bootstrap=50, threads=2))
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 1

    with pytest.raises(Cancelled):
        X.run(checked, JobState(is_cancelled=cancelled))


@pytest.mark.parametrize("settings, reason", [
    (dict(), "AP_inter_per and P@2000_per need the total number of ranked entities"),
    (dict(measures=("ROC_AUC",)), "ROC_AUC needs the total"),
    (dict(measures=("AP",), splits=(7,)), "6 entities cannot be split into 7 queries"),
    (dict(measures=("AP",), splits=(1,)), "at least 2 queries"),
    (dict(measures=("AP",), systems=(1,)), "choose from 2 to the 3 systems"),
    (dict(measures=("AP",), entities=(9,)), "choose from 1 to the 6 entities"),
    (dict(measures=("AP",), sigs=(0.05, 1.5)), "between 0 and 1"),
    (dict(measures=("P@k",)), "give the cut-offs with --cutoffs"),
    (dict(measures=("AP", "ap")), "asked for twice"),
    (dict(measures=("AP",), iterations=0), "--iter must be a positive"),
    (dict(measures=("AP",), total_ranks=-1), "--totalranks must be a positive"),
])
def test_bad_settings_say_why(settings, reason):
    ranks = ranks_of(np.arange(1, 19).reshape(6, 3))
    with pytest.raises(EvalUsageError, match=reason):
        X.plan(ranks, X.Settings(**settings))


def test_one_system_is_refused():
    with pytest.raises(EvalUsageError, match="at least two"):
        X.plan(ranks_of([[1], [2]]), X.Settings(measures=("AP",)))


def test_warnings():
    ranks = ranks_of(np.arange(1, 19).reshape(6, 3) * 1000)
    checked = X.plan(ranks, X.Settings(measures=("P@100_per",), total_ranks=10_000, cutoffs=(5,), splits=(3,)))
    text = " ".join(checked.warnings)
    assert "the cut-offs are used only by measures written with @k" in text
    assert "8 ranks exceed the total ranks T = 10000" in text
    assert "queries of 2.0 entities on average" in text


def test_a_warning_names_the_measures_that_cannot_tell_the_systems_apart():
    # Ranks pooled from several queries' rankings: many entities at every low rank, so AP and P@2 are 1 for both
    ranks = ranks_of([[1, 2], [1, 1], [2, 1], [2, 3], [3, 2], [1, 4]])
    results = run(ranks, measures=("AP", "P@2", "Average"), experiments=False)
    assert results.actual.iloc[:2, 1:].to_numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert results.warnings[-1].startswith("AP and P@2 give every system the same value on all the entities")
    assert not [w for w in run(ranks, measures=("Average",), experiments=False).warnings if "same value" in w]


def test_a_measure_missing_on_whole_iterations_still_estimates_from_the_others():
    # Average@3 is missing for S2 and S3 everywhere, and for S1 where a query holds neither E1 nor E2
    ranks = ranks_of([[1, 50, 60], [2, 40, 70], [30, 5, 80], [40, 60, 90], [50, 70, 95], [60, 80, 99]])
    rows = rows_of(run(ranks, measures=("Average@3",), splits=(3,), iterations=10, error_rates=True), "Average@3")
    assert rows.asl.notna().all() and rows.tieRate.notna().all()


# ---------------------------------------------------------------- issue 26: five more differences from the original

def test_no_swap_bin_is_infinite_never_the_largest_double():
    """Two systems that always agree: no bin's swap rate gets down to any level. The original prints
    -inf / +inf; np.nan_to_num once made them -/+1.798e308 (and their means 8.988e306)."""
    ranks = ranks_of([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]])
    common = dict(measures=("Median",), splits=(3,), iterations=3, bootstrap=50, sigs=(0.05, 0.5))
    buggy = rows_of(run(ranks, compat=PRESETS["dunaiski2018"], **common), "Median")
    assert buggy.swapDiffMin.tolist() == [-math.inf] * 2 and buggy.swapDiffMax.tolist() == [math.inf] * 2
    # per iteration too (a mean over iterations where only some are infinite is then infinite, as the
    # original's np.average: the largest double would have averaged to a finite 8.988e306 over 20)
    unit = X.units_of(X.plan(ranks, X.Settings(compat=PRESETS["dunaiski2018"], **common)))[0]
    stats = X.run_unit(unit).stats["Median"]
    assert (stats["swapDiffMin"] == -math.inf).all() and (stats["swapDiffMax"] == math.inf).all()
    assert X._estimate(np.array([[-math.inf], [3.0]]), 0) == -math.inf
    fixed = rows_of(run(ranks, **common), "Median")
    for column in ("swapDiffMin", "swapDiffMax"):               # no swap at all: the first bin, [0, 0]
        assert fixed[column].tolist() == [0.0, 0.0]
    # evalgui's own swap method says NaN when no bin gets there: +inf, "beyond any difference observed"
    assert X._beyond_any(math.nan) == math.inf
    assert X._beyond_any(-math.inf) == -math.inf and X._beyond_any(math.inf) == math.inf
    assert X._beyond_any(2.5) == 2.5


def _original_asl_literally(diffs, levels, picks):
    """The original's swapRate (SwapRate.py), its ASL and estDiff loop as written, on given resamples."""
    n, samples = diffs.shape[1], len(picks)
    rate, required = {}, {}
    asl = []
    for level in levels:
        significant, found = 0, []
        for z in diffs:
            z = list(z)
            z_norm = np.average(z)
            t_z = 0 if np.std(z) == 0 else z_norm / (np.std(z) / np.sqrt(n))
            w = [z_i - z_norm for z_i in z]
            count, t_w = 0, []
            for sample in picks:
                w_b = [w[q] for q in sample]
                t_b = 0 if np.std(w_b) == 0 else (sum(w_b) / len(w_b)) / (np.std(w_b) / np.sqrt(len(w_b)))
                t_w.append((abs(t_b), abs(sum(w_b) / len(w_b))))
                if abs(t_b) > 0 and abs(t_b) >= abs(t_z):
                    count += 1
            if level == levels[0]:
                asl.append(count / samples)
            found.append(sorted(t_w, key=lambda x: x[0], reverse=True)[int(level * samples) - 1][1])
            significant += count / samples < level
        rate[level] = 100 * significant / len(diffs)
        required[level] = max(found)
    return asl, rate, required


def test_bug_9_the_originals_bootstrap_gives_a_resample_without_spread_t_0():
    from evalgui.core.rankfile.compat import original_asl

    rng = np.random.default_rng(3)
    levels = [0.005, 0.05, 0.5]
    for n in (2, 3, 6):
        diffs = np.round(rng.normal(0.5, 1.0, size=(4, n)), 1)
        diffs[1] = 0.7                                           # a pair without spread: t(z) = 0
        result = original_asl(diffs, levels, 120, 9)
        picks = np.random.default_rng(9).integers(0, n, size=(120, n))
        asl, rate, required = _original_asl_literally(diffs, levels, picks)
        assert result.asl.tolist() == asl
        assert result.rate == rate
        assert result.difference_required == pytest.approx(required, rel=1e-12)
    # Two queries: a resample either draws one query twice (no spread) or both (mean 0): t* = 0 always, so
    # no resample ever counts, every pair has ASL 0 and is significant: the original's "asl 100".
    two = original_asl(np.array([[1.0, 3.0], [-2.0, 5.0]]), [0.005], 200, 1)
    assert two.asl.tolist() == [0.0, 0.0] and two.rate == {0.005: 100.0}
    assert stability.asl_rates(np.array([[1.0, 3.0], [-2.0, 5.0]]), [0.005], 200, 1).rate == {0.005: 0.0}


def test_bug_9_in_the_experiment():
    ranks = ranks_of([[1, 2], [1, 4], [3, 1], [6, 7], [2, 9], [5, 5]])
    common = dict(measures=("Average",), splits=(2,), sigs=(0.05,), iterations=3, bootstrap=100)
    assert rows_of(run(ranks, compat=Compat(asl_zero_spread=True), **common), "Average").asl.tolist() == [100.0]
    assert rows_of(run(ranks, **common), "Average").asl.tolist() == [0.0]


def test_bug_10_a_missing_score_ties_its_whole_query_and_its_pairs_are_significant():
    # Average@2, one entity per query. Query E1: S1 1, S2 2, S3 missing (rank 3); query E2: all missing.
    # evalgui: S1 beats S2 on E1, the other 5 comparisons tie; the original: all 6 tie. ASL: no pair has a
    # score on every query, so evalgui calls none significant, the original every one (ASL 0).
    ranks = ranks_of([[1, 2, 3], [4, 3, 5]])
    common = dict(measures=("Average@2",), splits=(2,), sigs=(0.1,), error_rates=True)
    fixed = rows_of(run(ranks, **common), "Average@2")
    buggy = rows_of(run(ranks, compat=Compat(missing_query_ties=True), **common), "Average@2")
    assert fixed.tieRate.tolist() == [pytest.approx(500 / 6)] and buggy.tieRate.tolist() == [100.0]
    assert fixed.asl.tolist() == [0.0] and buggy.asl.tolist() == [100.0]


def test_bug_11_rel_rate_of_ap_inter_per_counts_the_buckets():
    common = dict(measures=("AP_inter_per", "AP_per"), splits=(2,), sigs=(0.1,), error_rates=True,
                  total_ranks=1000.0)
    fixed, buggy = run(TWO, **common), run(TWO, compat=Compat(relrate_buckets=True), **common)
    assert rows_of(fixed, "AP_inter_per").relRate.tolist() == [100.0]
    assert rows_of(buggy, "AP_inter_per").relRate.tolist() == [100_000.0]      # 1,000 buckets / 1 entity
    assert rows_of(buggy, "AP_per").relRate.tolist() == rows_of(fixed, "AP_per").relRate.tolist()


def test_every_switch_has_its_section_in_the_docs():
    from pathlib import Path

    from evalgui.core.rankfile.compat import SECTIONS, describe

    text = (Path(__file__).resolve().parents[2] / "docs" / "rankfile-compat.md").read_text(encoding="utf-8")
    for switch, number in SECTIONS.items():
        assert f"| {number} | `{switch}` |" in text and f"## {number}. " in text, switch
        assert f"(`{switch}`)" in text.split(f"## {number}. ", 1)[1].splitlines()[0], switch
    assert "## 12. " in text                              # the correlation's first system: not reproduced
    assert describe("dunaiski2018").splitlines()[6].startswith("9. ")


def test_a_unit_checks_for_cancel_between_its_long_steps(monkeypatch):
    """A unit's per-mille buckets and correlations each take seconds on thousands of entities: Cancel is checked
    before and between them (issue 23 point 9), and the checks change no result."""
    ranks = ranks_of(np.random.default_rng(4).integers(1, 99, size=(12, 4)))
    checked = X.plan(ranks, X.Settings(measures=("AP", "P@50_per"), total_ranks=100.0, splits=(2,), iterations=3,
                                       bootstrap=50))
    unit = X.units_of(checked)[0]
    steps = []
    buckets, correlations = X.M.Buckets, X._correlations
    monkeypatch.setattr(X.M, "Buckets", lambda *a: steps.append("buckets") or buckets(*a))
    monkeypatch.setattr(X, "_correlations", lambda *a: steps.append("correlations") or correlations(*a))
    with pytest.raises(Cancelled):
        X.run_unit(unit, JobState(is_cancelled=lambda: True))
    assert steps == []                                    # stopped before the first long step
    asked = []

    def cancel_once_the_buckets_are_counted():
        asked.append(list(steps))
        return "buckets" in steps

    with pytest.raises(Cancelled):
        X.run_unit(unit, JobState(is_cancelled=cancel_once_the_buckets_are_counted))
    assert steps == ["buckets"]                           # ... and between the buckets and the correlations
    steps.clear()
    plain = X.run_unit(unit)
    counted = X.run_unit(unit, JobState(is_cancelled=lambda: False))
    np.testing.assert_array_equal(plain.correlations, counted.correlations)
    for method, stats in plain.stats.items():
        for name, values in stats.items():
            np.testing.assert_array_equal(values, counted.stats[method][name])


def test_buckets_and_correlations_are_counted_in_pieces_with_a_cancel_check_between_them(monkeypatch):
    """A unit's two longest steps (seconds on thousands of entities) check for Cancel between pieces, and
    the pieces give exactly the results of one piece (each row, each iteration is computed on its own)."""
    ranks = ranks_of(np.random.default_rng(6).integers(1, 99, size=(30, 5)))
    checked = X.plan(ranks, X.Settings(measures=("AP", "P@50_per"), total_ranks=100.0, splits=(3,), iterations=12,
                                       bootstrap=40))
    whole = X.run(checked)
    unit = X.units_of(checked)[0]
    assert (unit.start, unit.stop) == (0, 12)
    checks = []
    monkeypatch.setattr(X.M, "BUCKET_BLOCK_NUMBERS", 10 * (X.M.BUCKETS + 1))     # 10 rows a piece
    monkeypatch.setattr(X, "CORRELATION_NUMBERS", 4 * 30 * 5)                   # 4 iterations a piece
    sr = X.M.SortedRanks.of_groups(ranks.ranks, np.arange(30).reshape(3, 10))   # 3 queries x 5 systems = 15 rows
    X.M.Buckets(sr, 100.0, check=lambda: checks.append("buckets"))
    assert checks == ["buckets"] * 2
    drawn = [X.draws(unit, i) for i in range(12)]
    systems = np.sort(np.stack([s for _, s, _ in drawn]), axis=1)
    entities = [e for e, _, _ in drawn]
    pieces = X._correlations(ranks.ranks, entities, systems, False, check=lambda: checks.append("correlations"))
    assert checks.count("correlations") == 3
    monkeypatch.setattr(X, "CORRELATION_NUMBERS", 10 ** 9)
    np.testing.assert_array_equal(pieces, X._correlations(ranks.ranks, entities, systems, False))
    monkeypatch.setattr(X, "CORRELATION_NUMBERS", 4 * 30 * 5)
    chunked = X.run(checked)                              # buckets of 10 rows, correlations of 4 iterations
    pd.testing.assert_frame_equal(chunked.evaluation, whole.evaluation, check_exact=True)
    assert [m.labels for m in chunked.matrices] == [m.labels for m in whole.matrices]
