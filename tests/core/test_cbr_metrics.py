"""ProCAKE's quality metrics: the worked example exactly, hand cases (ties, k, align=case), and the pair counts."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalgui.core.cbr import metrics as M
from evalgui.core.cbr.catalogue import METRICS, QUALITY_METRICS, parse_metric
from evalgui.core.cbr.evaluate import evaluate_results
from evalgui.core.cbr.lists import aligned_lists, ground_truth_lists, id_order
from evalgui.core.errors import EvalUsageError
from evalgui.core.inputs.similarity import read_similarity_results
from evalgui.core.resources import sample_data

PROCAKE = sample_data("cbr")

# ProCAKE's documentation, "Compilation of metrics used on example" (None: the table gives no k = 2 value).
PROCAKE_TABLE = {
    "hits": (3.0, 1.0), "hits_normalized": (1.0, 0.5), "mae": (0.0, None), "mse": (0.0, None),
    "quality_stromer": (0.4444, 0.6), "quality_mueller": (1.0, 0.85), "correctness": (0.3333, None),
    "completeness": (1.0, None), "distance": (0.6667, None), "kendall": (0.3333, None), "spearman": (0.5, None),
}


def _write(folder, name, rows):
    path = folder / name
    path.write_text("query_id,case_id,similarity\n" + "".join(f"{q},{c},{s}\n" for q, c, s in rows))
    return read_similarity_results(path)


def _values(tmp_path, truth, predicted, metrics, k=None, ties="case_id") -> dict[str, float]:
    """Per-query values of one query's lists: {metric label: value}."""
    gt = ground_truth_lists(_write(tmp_path, "gt.csv", truth))
    rl = aligned_lists(_write(tmp_path, "rl.csv", predicted), gt, "rl")
    requests = M.parse_metrics(metrics)
    values = M.per_query_values(gt, [rl], requests, [k], ties)[0, 0, :, 0]
    return {r.label: float(v) for r, v in zip(requests, values)}


# ---------------------------------------------------------------- the seed's worked example

def test_procake_example_gives_its_table_exactly():
    truth = read_similarity_results(PROCAKE / "procake_ground_truth.csv")
    evaluated = read_similarity_results(PROCAKE / "procake_evaluated.csv")
    table, warnings = evaluate_results(truth, [("evaluated", evaluated)], list(PROCAKE_TABLE), [None, 2])
    assert warnings == [] and list(table.columns) == ["retriever", "k", "metric", "value"]
    got = {(m, None if pd.isna(k) else int(k)): v for m, k, v in zip(table.metric, table.k.astype(object), table.value)}
    for metric, (whole, at_two) in PROCAKE_TABLE.items():
        assert round(got[(metric, None)], 4) == whole, metric
        if at_two is not None:
            assert round(got[(metric, 2)], 4) == at_two, metric
    # exact values, not only to four decimals
    assert got[("quality_stromer", None)] == 4 / 9 and got[("quality_stromer", 2)] == 3 / 5
    assert got[("correctness", None)] == got[("kendall", None)] == 1 / 3
    assert got[("distance", None)] == 2 / 3 and got[("quality_mueller", 2)] == 0.85
    # the metrics ProCAKE gives no k = 2 value for: both lists cut to G2, G4 (truth G2, G3)
    assert got[("correctness", 2)] == got[("completeness", 2)] == got[("kendall", 2)] == 1.0
    assert got[("distance", 2)] == 0.5 and got[("mae", 2)] == 0.0 and got[("spearman", 2)] == 1.0


def test_procake_example_per_case_errors():
    values = _values_of_sample(["mae(align=case)", "mse(align=case)"])
    assert values["mae(align=case)"] == pytest.approx(0.2 / 3, abs=1e-15)      # |0.3-0.2| + |0.2-0.3| over 3
    assert values["mse(align=case)"] == pytest.approx(0.02 / 3, abs=1e-15)


def _values_of_sample(metrics):
    truth = ground_truth_lists(read_similarity_results(PROCAKE / "procake_ground_truth.csv"))
    rl = aligned_lists(read_similarity_results(PROCAKE / "procake_evaluated.csv"), truth, "evaluated")
    requests = M.parse_metrics(metrics)
    return {r.label: v for r, v in zip(requests, M.per_query_values(truth, [rl], requests)[0, 0, :, 0])}


# ---------------------------------------------------------------- hand cases

# Truth: a 0.9, b 0.5, c 0.5 (tied with b; b first by id), d 0.1.
TRUTH = [("q", "a", 0.9), ("q", "b", 0.5), ("q", "c", 0.5), ("q", "d", 0.1)]


def test_hits_ties_broken_by_case_id_or_interchangeable(tmp_path):
    predicted = [("q", "a", 0.8), ("q", "c", 0.7), ("q", "b", 0.2)]
    by_id = _values(tmp_path, TRUTH, predicted, ["hits", "hits_normalized"], k=2)
    assert by_id == {"hits": 1.0, "hits_normalized": 0.5}           # top 2 of the truth: a, b
    tied = _values(tmp_path, TRUTH, predicted, ["hits", "hits_normalized"], k=2, ties="interchangeable")
    assert tied == {"hits": 2.0, "hits_normalized": 1.0}            # c is as good as b


def test_k_truncates_both_lists(tmp_path):
    predicted = [("q", "a", 0.8), ("q", "c", 0.7), ("q", "b", 0.2)]
    at_two = _values(tmp_path, TRUTH, predicted, ["quality_stromer", "quality_mueller", "mae", "distance"], k=2)
    assert at_two["quality_stromer"] == 3 / 5              # position 2: b expected, c found: 1 - 2/5
    assert at_two["quality_mueller"] == 1 - 0.5 / 2        # b (0.5) of the true top 2 is missing
    assert at_two["mae"] == pytest.approx((0.1 + 0.2) / 2)
    assert at_two["distance"] == 0.5                       # a 0, c: position 1 against 2 in the truth
    whole = _values(tmp_path, TRUTH, predicted, ["hits", "quality_stromer"])
    assert whole == {"hits": 3.0, "quality_stromer": 4 / 9}   # without k: k is the list's length


def test_align_case_compares_each_cases_two_similarities(tmp_path):
    predicted = [("q", "a", 0.8), ("q", "d", 0.7), ("q", "b", 0.2)]
    v = _values(tmp_path, TRUTH, predicted, ["mae", "mae(align=case)", "mse", "mse(align=case)"])
    assert v["mae"] == pytest.approx((0.1 + 0.2 + 0.3) / 3)           # positions: .9/.8, .5/.7, .5/.2
    assert v["mae(align=case)"] == pytest.approx((0.1 + 0.6 + 0.3) / 3)   # a .9/.8, d .1/.7, b .5/.2
    assert v["mse(align=case)"] == pytest.approx((0.01 + 0.36 + 0.09) / 3)


def test_pair_metrics_rank_distance_and_spearman(tmp_path):
    predicted = [("q", "a", 0.8), ("q", "d", 0.7), ("q", "b", 0.2)]
    v = _values(tmp_path, TRUTH, predicted, ["correctness", "completeness", "kendall", "distance", "spearman"])
    # pairs (a,d) and (a,b) concordant, (d,b) discordant
    assert v["correctness"] == v["kendall"] == 1 / 3 and v["completeness"] == 1.0
    assert v["distance"] == 1.0                            # a 0, d |1-3|, b |2-1|: 3/3
    assert v["spearman"] == pytest.approx(stats.spearmanr([0, 1, 2], [0, 3, 1]).statistic)


def test_tied_pairs_count_as_neither(tmp_path):
    predicted = [("q", "a", 0.8), ("q", "b", 0.4), ("q", "c", 0.4)]   # b, c tied here and in the truth
    v = _values(tmp_path, TRUTH, predicted, ["correctness", "completeness", "kendall"])
    assert v == {"correctness": 1.0, "completeness": 2 / 3, "kendall": 2 / 3}
    all_tied = [("q", "b", 0.4), ("q", "c", 0.4)]
    v = _values(tmp_path, TRUTH, all_tied, ["correctness", "completeness"])
    assert math.isnan(v["correctness"]) and v["completeness"] == 0.0      # C + D = 0: undefined


def test_a_list_shorter_than_k(tmp_path):
    v = _values(tmp_path, TRUTH, [("q", "a", 0.9)], ["hits_normalized", "quality_stromer", "spearman"], k=3)
    assert v["hits_normalized"] == 1 / 3
    assert v["quality_stromer"] == 4 / 9                   # positions 2 and 3 missing: errors, 1 - (3+2)/9
    assert math.isnan(v["spearman"])                       # one case: no pair


def test_undefined_values_are_left_out_of_the_mean():
    assert M.mean_over_queries(np.array([[1.0, np.nan, 0.5]]))[0] == 0.75
    assert np.isnan(M.mean_over_queries(np.array([[np.nan, np.nan]]))[0])
    assert M.mean_over_queries(np.full((1, 2000), 0.4))[0] == 0.4          # summed exactly


def test_case_ids_that_are_all_integers_order_numerically():
    ids = np.array(["10", "2", "1", "b"], dtype=object)
    assert id_order(ids).tolist() == [2, 0, 1, 3]          # text: "1" < "10" < "2" < "b"
    assert id_order(ids[:3]).tolist() == [2, 1, 0]         # numbers: 1, 2, 10


# ---------------------------------------------------------------- pair counts and names

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40))
def test_the_n_log_n_pair_count_equals_the_pairwise_one(pairs):
    x, y = (np.array(v, dtype=float) for v in zip(*pairs))
    pairwise = M.concordance(x, y)
    with _through_scipy():
        assert M.concordance(x, y) == pairwise
    n = len(x)
    c = sum(1 for i in range(n) for j in range(i + 1, n) if (x[i] - x[j]) * (y[i] - y[j]) > 0)
    d = sum(1 for i in range(n) for j in range(i + 1, n) if (x[i] - x[j]) * (y[i] - y[j]) < 0)
    assert pairwise == (c, d)


@contextlib.contextmanager
def _through_scipy():
    """Long lists' path (scipy's Kendall statistic) for any list."""
    limit = M._PAIRWISE_LIMIT
    M._PAIRWISE_LIMIT = 0
    try:
        yield
    finally:
        M._PAIRWISE_LIMIT = limit


def test_every_metric_has_a_record_and_a_kernel():
    for name in QUALITY_METRICS:
        record = METRICS[name]
        assert record.description and record.formula and record.family == "cbr"
        assert record.kernel is getattr(M, record.kernel_name)          # the record is the dispatch
    assert not hasattr(M, "KERNELS")


@pytest.mark.parametrize("text, label", [("hits", "hits"), ("mae(align=case)", "mae(align=case)"),
                                         ("mae(align=position)", "mae"), (" mse ( align = case ) ", "mse(align=case)")])
def test_metric_names(text, label):
    assert parse_metric(text)[0] == label


@pytest.mark.parametrize("text, words", [("hitz", "unknown metric 'hitz'"), ("hits(align=case)", "takes no parameter"),
                                         ("mae(align=row)", "align must be one of")])
def test_bad_metric_names(text, words):
    with pytest.raises(EvalUsageError, match=words.replace("(", r"\(")):
        parse_metric(text)


def test_hits_normalized_divides_as_its_help_says(tmp_path):
    """The help's K: min(k, |GT|) with k (not k itself), the evaluated list's length without k (not |GT|)."""
    truth = [("q1", "a", 0.9), ("q1", "b", 0.8), ("q1", "c", 0.7)]
    predicted = [("q1", "a", 0.9), ("q1", "c", 0.5)]
    # without k: K = |RL| = 2, and the hit is a (c is not in GT's top 2)
    assert _values(tmp_path, truth, predicted, ["hits", "hits_normalized"]) == {"hits": 1.0, "hits_normalized": 0.5}
    # k = 5 beyond |GT| = 3: K = 3, and both a and c are hits
    assert _values(tmp_path, truth, predicted, ["hits", "hits_normalized"], k=5) == \
        {"hits": 2.0, "hits_normalized": 2 / 3}
    record = METRICS["hits_normalized"]
    assert "K = min(k, |GT|) with k, K = |RL| without" in record.formula
    assert "divided by K (k," not in record.help_text
    # the help's worked case is the seed's (ProCAKE's documentation): 1.0 without k, 0.5 with k = 2
    assert "so 1.0" in " ".join(record.notes) and "so 0.5" in " ".join(record.notes)
    assert PROCAKE_TABLE["hits_normalized"] == (1.0, 0.5)
