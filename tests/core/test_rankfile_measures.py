"""The measures on ranks of test entities (core/rankfile/measures.py), checked by hand on tiny inputs."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from evalgui.core import registry
from evalgui.core.errors import EvalUsageError
from evalgui.core.rankfile import DEFAULT_MEASURES
from evalgui.core.rankfile import measures as M
from evalgui.core.registry import Record
from tests.conftest import ROOT

RANKS = [2.0, 3.0, 10.0]          # one system's sorted ranks of three test entities


def value(name: str, ranks=RANKS, total=None, index_counting=False):
    score, count = M.score(M.parse_measure(name), M.SortedRanks(np.array([ranks], dtype=float)), total,
                           index_counting)
    return float(score[0]), float(count[0])


def dcg(*ranks):
    return sum(1 / math.log2(r + 1) for r in ranks)


# ---------------------------------------------------------------- every measure by hand

@pytest.mark.parametrize("name, expected, count", [
    ("AP", (1 / 2 + 2 / 3 + 3 / 10) / 3, 3),
    ("AP@5", (1 / 2 + 2 / 3) / 3, 2),                      # min(n, N) = 3
    ("AP@2", (1 / 2) / 2, 1),                              # min(n, N) = 2
    ("AP_interpolated", (2 / 3 + 2 / 3 + 3 / 10) / 3, 3),  # each precision raised to the best later one
    ("nDCG", dcg(2, 3, 10) / dcg(1, 2, 3), 3),
    ("nDCG@5", dcg(2, 3) / dcg(1, 2, 3, 4, 5), 2),         # the ideal of N entities, as the original
    ("Average", 5.0, 3),
    ("Median", 3.0, 3),
    ("Min", 2.0, 1),
    ("Max", 10.0, 1),
    ("Average@5", 2.5, 2),
    ("Median@5", 2.5, 2),
    ("Median@10", 3.0, 3),
    ("P@5", 2 / 5, 2),
    ("P@2", 1 / 2, 1),
    ("Recall@5", 2 / 3, 2),
    ("R-precision", 2 / 3, 2),                             # ranks within n = 3
    ("PR_AUC", ((1 / 2 + 2 / 3) / 2 + (2 / 3 + 3 / 10) / 2) / 3, 3),
    ("PR_AUC_interpolated", ((2 / 3 + 2 / 3) / 2 + (2 / 3 + 3 / 10) / 2) / 3, 3),
    ("Average@Avg", 2.5, 2),                               # k = floor(mean rank) = 5
    ("P@testsize", 2 / 3, 2),                              # k = n = 3
    ("Average@50recall", 2.5, 2),                          # k = the median rank, 3
    ("Average@100recall", 5.0, 3),                         # k = the largest rank
    ("nDCG@Avg", dcg(2, 3) / dcg(1, 2, 3, 4, 5), 2),
])
def test_measure_by_hand(name, expected, count):
    assert value(name) == pytest.approx((expected, count), rel=1e-12)


def test_roc_auc_counts_the_others_ranked_above_each_test_entity():
    # T = 20: 1 other above rank 2, 1 above rank 3, 7 above rank 10, of 3 x 17 (test, other) pairs
    assert value("ROC_AUC", total=20) == pytest.approx((1 - 9 / 51, 3))
    assert value("ROC_AUC", [1, 2, 3], total=20) == (1.0, 3)
    assert math.isnan(value("ROC_AUC", total=3)[0])          # no other entity: undefined


def test_empty_cut_offs_are_missing_not_zero():
    assert math.isnan(value("Average@1")[0]) and value("Average@1")[1] == 0
    assert math.isnan(value("Median@1")[0])
    assert value("P@1") == (0.0, 0)
    assert value("AP@1") == (0.0, 0)


def test_tied_fractional_ranks():
    # two entities tied for the top two places: both at rank 1.5
    assert value("AP", [1.5, 1.5]) == pytest.approx(((1 / 1.5 + 1) / 2, 2))
    assert value("AP@1", [1.5, 1.5]) == (0.0, 0)
    assert value("AP@2", [1.5, 1.5]) == pytest.approx(((1 / 1.5 + 1) / 2, 2))    # never above 1
    assert value("Median", [1.5, 1.5]) == (1.5, 2)
    assert value("R-precision", [1.5, 1.5]) == (1.0, 2)


def test_rows_of_different_lengths_give_what_each_alone_gives():
    rows = [[2, 3, 10], [7, 1, np.inf], [4, np.inf, np.inf]]
    together = M.SortedRanks(np.array(rows, dtype=float))
    assert together.n.tolist() == [3, 2, 1]
    for name in ("AP", "AP@5", "nDCG", "nDCG@Avg", "Average", "Median", "Max", "Median@5", "P@5", "PR_AUC",
                 "PR_AUC_interpolated", "AP_interpolated", "R-precision", "Average@50recall"):
        spec = M.parse_measure(name)
        scores, counts = M.score(spec, together)
        for i, row in enumerate(rows):
            alone = [r for r in row if np.isfinite(r)]
            assert (scores[i], counts[i]) == pytest.approx(value(name, sorted(alone)), nan_ok=True), name


def test_any_leading_axes():
    ranks = np.random.default_rng(0).integers(1, 50, size=(4, 3, 2, 6)).astype(float)
    scores, counts = M.score(M.parse_measure("nDCG@10"), M.SortedRanks(ranks))
    assert scores.shape == counts.shape == (4, 3, 2)
    assert scores[2, 1, 0] == pytest.approx(value("nDCG@10", sorted(ranks[2, 1, 0]))[0])


def test_ideal_dcg_beyond_the_exact_table_is_accurate():
    # above 2^22 the sum continues by Euler-Maclaurin; it must join the exact sum seamlessly
    start = M._IDEAL_EXACT
    exact = M.ideal_dcg(start) + (1.0 / np.log2(np.arange(start + 1, start + 5001) + 1.0)).sum()
    assert M.ideal_dcg(np.array([start + 5000.0]))[0] == pytest.approx(exact, rel=1e-12)
    assert M.ideal_dcg(3) == pytest.approx(dcg(1, 2, 3))


# ---------------------------------------------------------------- per-mille forms

def test_per_mille_buckets_count_ranks_up_to_each_bound():
    # T = 10,000: buckets of 10 ranks. Ranks 5, 15 and 2,500 are in buckets 1, 2 and 250.
    ranks = [5, 15, 2500]
    assert value("P@20_per", ranks, 10_000) == pytest.approx((2 / 20, 2))
    assert value("P@15_per", ranks, 10_000) == pytest.approx((1.5 / 15, 1.5))   # half of bucket 2 lies below 15
    assert value("Recall@20_per", ranks, 10_000) == pytest.approx((2 / 3, 2))
    assert value("Recall@10000_per", ranks, 10_000) == pytest.approx((1.0, 3))  # at T: every entity
    assert value("R-precision_per", ranks, 10_000) == pytest.approx((0.3 / 3, 0.3))  # k = 3, 0.3 of bucket 1


def test_per_mille_with_bucket_width_one_is_every_rank():
    # T = 1,000: bucket i holds rank i. Ranks 1 and 3: c = 1, 1, 2, 2, ...
    harmonic = sum(1 / i for i in range(3, 1001))
    assert value("AP_per", [1, 3], 1000) == pytest.approx(((1 + 1 / 2 + 2 * harmonic) / 1000, 2))
    # interpolated: bucket 2's precision 1/2 is raised to bucket 3's 2/3
    assert value("AP_inter_per", [1, 3], 1000) == pytest.approx(((1 + 2 / 3 + 2 * harmonic) / 1000, 2))
    assert value("nDCG_per", [1, 3], 1000) == pytest.approx((dcg(1, 3) / dcg(1, 2), 2))
    assert value("P@3_per", [1, 3], 1000) == pytest.approx((2 / 3, 2))


def test_per_mille_relrate_count_is_the_entities_not_the_buckets():
    assert value("AP_inter_per", RANKS, 100_000)[1] == 3


def test_bug_1_counts_rank_below_the_bucket_index():
    # T = 100,000 (buckets of 100): the original counts rank <= i, so 2,500 never counts and
    # P@2000_per (bucket 20) sees only ranks <= 20: 5 and 15 of 5, 15, 1500, 2500.
    ranks = [5, 15, 1500, 2500]
    assert value("P@2000_per", ranks, 100_000, index_counting=True) == pytest.approx((2 / 2000, 2))
    assert value("P@2000_per", ranks, 100_000) == pytest.approx((3 / 2000, 3))
    # a cut-off at or beyond T counts nothing there
    assert value("P@100000_per", ranks, 100_000, index_counting=True) == (0.0, 0.0)
    assert value("P@100000_per", ranks, 100_000) == pytest.approx((4 / 100_000, 4))
    # and it takes @Avg as a bucket number: floor(1005) x 100
    spec = M.parse_measure("P@Avg_per")
    k = M.cutoff_values(spec, M.SortedRanks(np.array([ranks], float)), scale=100.0)
    assert k.tolist() == [100_500.0]


# ---------------------------------------------------------------- names

@pytest.mark.parametrize("text, name, lower, total", [
    ("AP", "AP", False, False), ("ap_inter_per", "AP_inter_per", False, True),
    ("AP_interpolated_per", "AP_inter_per", False, True), ("ndcg@avg", "nDCG@Avg", False, False),
    ("P@2000_per", "P@2000_per", False, True), ("Average@10", "Average@10", True, False),
    ("Average@k", "Average@k", True, False), ("AP@N", "AP@N", False, False),
    ("median@TESTSIZE", "Median@testsize", True, False), ("P@50recall", "P@50recall", False, False),
    ("ROC_AUC", "ROC_AUC", False, True), ("R-precision", "R-precision", False, False),
])
def test_names(text, name, lower, total):
    spec = M.parse_measure(text)
    assert (spec.name, spec.lower_better, spec.needs_total) == (name, lower, total)


@pytest.mark.parametrize("text, reason", [
    ("Foo", "unknown rank measure"), ("P", "needs a cut-off"), ("Min@10", "takes no cut-off"),
    ("Average_per", "no per-mille form"), ("P@0", "positive"), ("P@-3", "positive"), ("P@x", "positive"),
    ("AP@150recall", "percentage"), ("", "unknown"),
])
def test_bad_names_say_why(text, reason):
    with pytest.raises(EvalUsageError, match=reason):
        M.parse_measure(text)


def test_range_cut_offs_resolve_per_value():
    spec = M.parse_measure("Average@k")
    assert spec.has_range and spec.fixed_cutoff is None
    at = spec.at(20)
    assert at.name == "Average@20" and at.fixed_cutoff == 20 and at.record.name == "Average@k"
    with pytest.raises(ValueError, match="range"):
        M.score(spec, M.SortedRanks(np.array([RANKS])))


def test_per_mille_needs_the_total():
    with pytest.raises(EvalUsageError, match="totalranks"):
        value("P@2000_per")


# ---------------------------------------------------------------- the registry family

def test_every_measure_is_a_record_of_the_rankfile_family():
    family = registry.family("rankfile")
    assert family is M.REGISTRY and "rankfile" in registry.family_keys()
    for record in family.values():
        assert isinstance(record, Record) and record.family == "rankfile"
        assert record.description.strip() and record.formula.strip() and record.group.strip()
    for text in DEFAULT_MEASURES + ("AP@N", "nDCG@N", "Median@k", "P@k", "Recall@k", "Min", "Max", "PR_AUC",
                                    "PR_AUC_interpolated", "ROC_AUC", "R-precision", "AP_interpolated", "nDCG"):
        spec = M.parse_measure(text)
        assert spec.record.name in family
        assert spec.record.direction == ("lower" if spec.lower_better else "higher")
        assert spec.record.kernel is not None and spec.record.base == spec.base    # the record is the dispatch
    assert not hasattr(M, "DEFINITIONS") and not hasattr(M, "_DEFINITIONS")


# ---------------------------------------------------------------- the original's functions, when at hand

PORT = Path(os.environ.get("EVALGUI_PEERS", ROOT.parent / "shared" / "peers")) / "rankeval_py3" / "RankingEvaluation"


def test_every_measure_matches_the_original_with_its_bucket_counting():
    """The Python 3 port of the original (kept outside the repo) as the oracle, on random ranks:
    with bug 1 (index counting) every value is the original's."""
    if not (PORT / "EvaluationMeasures.py").exists():
        pytest.skip(f"the original's port is not at {PORT} (set EVALGUI_PEERS)")
    sys.path.insert(0, str(PORT))
    try:
        import EvaluationMeasures as original
    finally:
        sys.path.remove(str(PORT))
    pairs = {"AP": (original.AP, None), "AP@10": (original.AP_at_n, 10), "AP@Avg": (original.AP_at_avg, None),
             "AP_interpolated": (original.AP_interpolated, None), "nDCG": (original.NDCG, None),
             "nDCG@Avg": (original.NDCG_at_avg, None), "nDCG@10": (original.NDCG_at_n, 10),
             "Average": (original.Average, None), "Average@20": (original.Average_at_k, 20),
             "Average@Avg": (original.Average_at_avg, None), "Median": (original.Median, None),
             "Median@500": (original.Median_at_k, 500), "Min": (original.Min, None), "Max": (original.Max, None),
             "R-precision": (original.R_precision, None), "PR_AUC": (original.PR_AUC, None),
             "PR_AUC_interpolated": (original.PR_AUC_interpolated, None),
             "AP_per": (original.AP_buckets, None), "AP_inter_per": (original.AP_interpolated_buckets, None),
             "AP@5000_per": (original.AP_at_n_buckets, 5000), "nDCG_per": (original.NDCG_buckets, None),
             "nDCG@3000_per": (original.NDCG_at_n_buckets, 3000), "P@2000_per": (original.P_at_k_buckets, 2000),
             "P@250_per": (original.P_at_k_buckets, 250), "Recall@2000_per": (original.Recall_at_k_buckets, 2000),
             "PR_AUC_per": (original.PR_AUC_buckets, None), "ROC_AUC_per": (original.ROC_AUC_buckets, None),
             "P@Avg_per": (original.P_at_avg_buckets, None), "AP@Avg_per": (original.AP_at_avg_buckets, None)}
    rng = np.random.default_rng(7)
    for trial in range(12):
        n = int(rng.integers(1, 25))
        ranks = np.sort(np.round(rng.uniform(1, [50, 900, 5000, 60000][trial % 4], size=(3, n)) * 2) / 2, axis=1)
        sr = M.SortedRanks(ranks)
        for name, (function, cutoff) in pairs.items():
            ours = M.score(M.parse_measure(name), sr, 100_000, index_counting=True)[0]
            theirs = [function(list(row), cutoff, 100_000)[0] for row in ranks]
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-15, err_msg=name)
