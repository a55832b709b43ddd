"""Significance of preferences (evalgui.core.stats.compare.compare_preferences): one-sample tests on the
per-query preferences, the correction over the pairs tested, the matrix and the system ranking."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from evalgui.core import tidy
from evalgui.core.data import Qrels, Run
from evalgui.core.ranked import preference as P
from evalgui.core.stats import significance as sig
from evalgui.core.stats.compare import (PREFERENCE_COLUMNS, PREFERENCE_PROVENANCE, RANKING_COLUMNS, WITH_RELEVANT,
                                        CompareOptions, compare_preferences)

RUNS = ("weak", "fair", "good", "best")


def collection(n_queries: int = 14, seed: int = 5):
    """Graded qrels and four runs of rising quality: each ranks 30 documents, the better the run, the more
    its relevant documents are pushed up."""
    rng = np.random.default_rng(seed)
    judgments, rankings = {}, {name: {} for name in RUNS}
    for q in range(n_queries):
        docs = [f"d{q}_{i}" for i in range(30)]
        grades = rng.choice([0, 0, 1, 2], size=30)
        judgments[f"q{q:02d}"] = dict(zip(docs, grades.tolist()))
        for quality, name in enumerate(RUNS):
            scores = rng.random(30) + 0.4 * quality * grades
            rankings[name][f"q{q:02d}"] = dict(zip(docs, scores.tolist()))
    qrels = Qrels.from_dict(judgments)
    return qrels, [Run.from_dict(rankings[name], name=name) for name in RUNS]


@pytest.fixture(scope="module")
def result():
    qrels, runs = collection()
    return P.compare(qrels, runs, ["rpp", "lexiprecision"])


def preferences(result, measure: str, a: str, b: str) -> np.ndarray:
    """Per-query preferences of run a over run b, read straight from the result (either orientation)."""
    i, j = result.run_names.index(a), result.run_names.index(b)
    for k, (x, y) in enumerate(zip(result.pair_a, result.pair_b)):
        if (x, y) == (i, j):
            return result.per_query[measure][k]
        if (x, y) == (j, i):
            return -result.per_query[measure][k]
    raise AssertionError("pair not found")


def row(table, measure, a, b):
    rows = table[(table["measure"] == measure) & (table["run_a"] == a) & (table["run_b"] == b)]
    assert len(rows) == 1
    return rows.iloc[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")      # scipy on constant preferences
@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign"])
def test_classical_tests_are_scipys_one_sample_tests(result, test):
    table = compare_preferences(result, CompareOptions(test=test, correction="none")).table
    for measure, (a, b) in itertools.product(result.measures, itertools.combinations(RUNS, 2)):
        p = preferences(result, measure, a, b)
        if test == "t":
            expected = stats.ttest_1samp(p, 0.0).pvalue
        elif test == "wilcoxon":
            expected = stats.wilcoxon(p).pvalue if np.any(p != 0) else 1.0
        else:
            wins, losses = int((p > 0).sum()), int((p < 0).sum())
            expected = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        got = row(table, measure, a, b)
        assert got["p_value"] == pytest.approx(expected, rel=1e-9, abs=1e-15), (measure, a, b)
        assert got["p_adjusted"] == got["p_value"]                                 # correction none
        assert got["preference"] == pytest.approx(p.mean(), abs=1e-15)
        assert (got["wins"], got["ties"], got["losses"]) == ((p > 0).sum(), (p == 0).sum(), (p < 0).sum())


def test_randomization_enumerates_every_sign_flip_on_few_queries():
    qrels, runs = collection(n_queries=8, seed=11)
    result = P.compare(qrels, runs, ["rpp"])
    table = compare_preferences(result, CompareOptions(test="randomization", samples=10_000, correction="none")).table
    for a, b in itertools.combinations(RUNS, 2):
        p = preferences(result, "rpp", a, b)
        flips = np.array(list(itertools.product([-1.0, 1.0], repeat=len(p))))       # all 2^8
        observed = abs(p.sum())
        expected = np.mean(np.abs(flips @ p) >= observed - 1e-9)
        assert row(table, "rpp", a, b)["p_value"] == pytest.approx(expected), (a, b)


def test_resampling_tests_are_the_shared_ones_with_the_seed(result):
    """Randomization and bootstrap are significance.py's, on the preferences, seeded as compare's."""
    options = CompareOptions(test="bootstrap", samples=500, seed=3, correction="none")
    table = compare_preferences(result, options).table
    pairs = list(itertools.combinations(RUNS, 2))
    matrix = np.array([preferences(result, "rpp", a, b) for a, b in pairs])
    expected = sig.bootstrap_test(matrix, 500, 3, 0.05).asl
    assert table[table["measure"] == "rpp"]["p_value"].tolist() == pytest.approx(expected.tolist())
    low, high = sig.mean_ci(matrix, 500, 3)
    assert table[table["measure"] == "rpp"]["ci_low"].tolist() == pytest.approx(low.tolist())
    assert table[table["measure"] == "rpp"]["ci_high"].tolist() == pytest.approx(high.tolist())
    again = compare_preferences(result, options).table
    assert again["p_value"].tolist() == table["p_value"].tolist()                   # same seed, same p
    options = CompareOptions(test="randomization", samples=2000, seed=9, correction="none")
    random = compare_preferences(result, options).table
    expected = sig.randomization_test(matrix, 2000, 9)
    assert random[random["measure"] == "rpp"]["p_value"].tolist() == pytest.approx(expected.tolist())


@pytest.mark.parametrize("correction", ["bonferroni", "holm", "holm-sidak", "bh"])
def test_the_correction_covers_each_measures_pairs(result, correction):
    table = compare_preferences(result, CompareOptions(test="t", correction=correction, alpha=0.01)).table
    for measure in result.measures:
        rows = table[table["measure"] == measure]
        assert len(rows) == 6
        assert rows["p_adjusted"].tolist() == pytest.approx(sig.correct(rows["p_value"], correction).tolist())
        assert rows["significant"].tolist() == (rows["p_adjusted"] < 0.01).tolist()


def test_against_baselines_each_pair_is_seen_from_the_baseline(result):
    all_pairs = compare_preferences(result, CompareOptions(test="t", correction="none")).table
    table = compare_preferences(result, CompareOptions(test="t", correction="holm", baselines=("best",))).table
    assert table[["run_a", "run_b"]].values.tolist()[:3] == [["best", "weak"], ["best", "fair"], ["best", "good"]]
    for measure, other in itertools.product(result.measures, RUNS[:3]):
        mine, theirs = row(table, measure, "best", other), row(all_pairs, measure, other, "best")
        assert mine["preference"] == -theirs["preference"] and mine["p_value"] == pytest.approx(theirs["p_value"])
        assert (mine["wins"], mine["losses"]) == (theirs["losses"], theirs["wins"])
        assert mine["ci_low"] == pytest.approx(-theirs["ci_high"])
    # Holm over the three pairs tested, not six
    rows = table[table["measure"] == "rpp"]
    assert rows["p_adjusted"].tolist() == pytest.approx(sig.correct(rows["p_value"], "holm").tolist())


def test_matrix_ranking_and_provenance(result):
    comparison = compare_preferences(result, CompareOptions(test="t", correction="holm"))
    assert tuple(comparison.table.columns) == PREFERENCE_COLUMNS + PREFERENCE_PROVENANCE
    assert tuple(comparison.ranking.columns) == RANKING_COLUMNS + PREFERENCE_PROVENANCE
    provenance = comparison.table.iloc[0]
    assert (provenance["test"], provenance["correction"], provenance["alpha"], provenance["queries"]) == \
        ("t", "holm", 0.05, WITH_RELEVANT)
    assert provenance["binary_threshold"] is None and comparison.n_queries == len(result.query_ids)
    for measure in result.measures:
        matrix = comparison.matrices[measure]
        assert np.array_equal(matrix.to_numpy(), -matrix.to_numpy().T)                 # antisymmetric
        assert list(matrix.index) == list(RUNS)
        ranking = comparison.ranking[comparison.ranking["measure"] == measure]
        expected = result.ranking_frame()
        expected = expected[expected["measure"] == measure]
        assert ranking[tidy.RUN].tolist() == expected[tidy.RUN].tolist()
        assert ranking["mean_preference"].tolist() == pytest.approx(
            [matrix.loc[r].sum() / 3 for r in ranking[tidy.RUN]])
        # significant wins / losses: the tested pairs each run wins / loses after the correction
        rows = comparison.rows(measure)
        for run, wins, losses in ranking[[tidy.RUN, "significant_wins", "significant_losses"]].values:
            won = rows[rows["significant"] & (((rows["run_a"] == run) & (rows["preference"] > 0))
                                              | ((rows["run_b"] == run) & (rows["preference"] < 0)))]
            lost = rows[rows["significant"] & (((rows["run_a"] == run) & (rows["preference"] < 0))
                                               | ((rows["run_b"] == run) & (rows["preference"] > 0)))]
            assert (wins, losses) == (len(won), len(lost)), run
    assert comparison.ranking["significant_wins"].sum() > 0              # the data have clear differences
    binary = P.compare(*collection(), ["rpp"], binary_threshold=2)
    assert compare_preferences(binary, CompareOptions()).table["binary_threshold"].tolist() == [2] * 6


def test_tukey_is_refused_with_the_tests_that_apply(result):
    with pytest.raises(ValueError, match="choose t, wilcoxon, sign, randomization or bootstrap"):
        compare_preferences(result, CompareOptions(test="tukey"))


def test_progress_and_cancel(result):
    from evalgui.core.jobs import Cancelled, JobState

    seen = []
    compare_preferences(result, CompareOptions(test="randomization", samples=200),
                        JobState(lambda f, m: seen.append(f), min_interval=0))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(Cancelled):
        compare_preferences(result, CompareOptions(test="randomization"), JobState(is_cancelled=lambda: True))
