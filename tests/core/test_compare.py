"""compare(): query-set policy, pair order, provenance, matrices."""

import numpy as np
import pandas as pd
import pytest

from evalgui.core.stats import significance as sig
from evalgui.core.stats.compare import COLUMNS, PROVENANCE, CompareOptions, compare, pairs_of


def tidy(values: dict[str, dict[str, float]], measure="AP") -> pd.DataFrame:
    rows = [(run, q, measure, v) for run, per_query in values.items() for q, v in per_query.items()]
    return pd.DataFrame(rows, columns=["run", "query", "measure", "value"])


def test_pairs_in_the_order_given_and_with_several_baselines():
    runs = ["a", "b", "c", "d"]
    assert pairs_of(runs) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pairs_of(runs, ["c"]) == [(2, 0), (2, 1), (2, 3)]
    assert pairs_of(runs, ["c", "a"]) == [(2, 0), (2, 1), (2, 3), (0, 1), (0, 3)]
    with pytest.raises(ValueError, match="baseline 'x'"):
        pairs_of(runs, ["x"])


def test_shared_queries_by_default_and_the_report_says_what_was_dropped():
    scores = tidy({"a": {"1": 0.5, "2": 0.1, "3": 0.9, "4": 0.4},
                   "b": {"1": 0.4, "2": 0.3, "3": 0.6},
                   "c": {"1": 0.2, "3": 0.7, "4": 0.1}})
    result = compare(scores, ["a", "b", "c"], ["AP"], CompareOptions(test="t", correction="none"),
                     universe=["1", "2", "3", "4"])
    qs = result.query_sets["AP"]
    assert qs.queries == ["1", "3"] and qs.universe == 4 and qs.dropped == 2
    assert qs.missing == {"b": ["4"], "c": ["2"]}
    assert "2 of 4 queries" in qs.describe() and "b lacks 1" in qs.describe()
    row = result.table.iloc[0]
    assert (row["run_a"], row["run_b"], row["n_queries"]) == ("a", "b", 2)
    # every pair uses the same two queries, never its own larger overlap
    assert row["mean_a"] == pytest.approx(0.7) and row["mean_b"] == pytest.approx(0.5)
    assert set(result.table["n_queries"]) == {2}


def test_zero_filled_queries_with_trec_eval_c():
    scores = tidy({"a": {"1": 0.5, "2": 0.1}, "b": {"1": 0.4}})
    result = compare(scores, ["a", "b"], ["AP"], CompareOptions(fill_missing=True, correction="none"),
                     universe=["1", "2", "3"])
    row = result.table.iloc[0]
    assert row["n_queries"] == 3 and row["queries"] == "zero-filled"
    assert row["mean_a"] == pytest.approx(0.2) and row["mean_b"] == pytest.approx(0.4 / 3)
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 0)


def test_table_columns_provenance_and_values():
    rng = np.random.default_rng(1)
    a = rng.random(30)
    b = np.clip(a + rng.normal(0.1, 0.05, 30), 0, 1)
    c = a.copy()
    qs = [f"q{i}" for i in range(30)]
    scores = tidy({"a": dict(zip(qs, a)), "b": dict(zip(qs, b)), "c": dict(zip(qs, c))})
    options = CompareOptions(test="randomization", samples=2000, seed=5, correction="holm", alpha=0.01)
    result = compare(scores, ["a", "b", "c"], ["AP"], options)
    table = result.table
    assert list(table.columns) == [*COLUMNS, *PROVENANCE]
    assert table[list(PROVENANCE)].iloc[0].tolist() == ["randomization", 2000, 5, "holm", 0.01, "shared"]
    ab = table.iloc[0]
    assert ab["diff"] == pytest.approx(a.mean() - b.mean())
    assert ab["ci_low"] < ab["diff"] < ab["ci_high"]
    assert ab["effect_size"] == pytest.approx((a - b).mean() / (a - b).std(ddof=1))
    raw = sig.randomization_test(np.array([a - b, a - c, b - c]), 2000, 5)
    np.testing.assert_allclose(table["p_value"], raw)
    np.testing.assert_allclose(table["p_adjusted"], sig.correct(raw, "holm"))
    assert table["significant"].tolist() == (sig.correct(raw, "holm") < 0.01).tolist()
    ac = table.iloc[1]
    assert ac["p_value"] == 1.0 and ac["ties"] == 30 and not ac["significant"]


def test_matrices_are_antisymmetric_and_p_symmetric():
    rng = np.random.default_rng(2)
    qs = [str(i) for i in range(20)]
    scores = tidy({r: dict(zip(qs, rng.random(20))) for r in "abcd"})
    result = compare(scores, list("abcd"), ["AP"])
    diff = result.matrix("AP", "diff")
    np.testing.assert_allclose(diff.to_numpy(), -diff.to_numpy().T)
    p = result.matrix("AP", "p_adjusted").to_numpy()
    np.testing.assert_allclose(p[~np.isnan(p)], p.T[~np.isnan(p)])
    wins = result.matrix("AP", "wins")
    assert wins.loc["a", "b"] == result.table.iloc[0]["wins"] and wins.loc["b", "a"] == result.table.iloc[0]["losses"]


def test_tukey_applies_no_further_correction_and_bootstrap_reports_the_difference_required():
    rng = np.random.default_rng(3)
    qs = [str(i) for i in range(25)]
    scores = tidy({r: dict(zip(qs, rng.random(25))) for r in "abc"})
    tukey = compare(scores, list("abc"), ["AP"], CompareOptions(test="tukey", samples=500, correction="bonferroni"))
    assert (tukey.table["correction"] == "none").all()
    assert tukey.table["p_value"].tolist() == tukey.table["p_adjusted"].tolist()
    boot = compare(scores, list("abc"), ["AP"], CompareOptions(test="bootstrap", samples=300))
    assert 0 < boot.difference_required["AP"] < 1


def test_bad_requests_are_refused():
    scores = tidy({"a": {"1": 0.5}, "b": {"1": 0.4}})
    with pytest.raises(ValueError, match="at least two runs"):
        compare(scores, ["a"], ["AP"])
    with pytest.raises(ValueError, match="no scores for run 'z'"):
        compare(scores, ["a", "z"], ["AP"])
    with pytest.raises(ValueError, match="no scores for measure 'P@5'"):
        compare(scores, ["a", "b"], ["P@5"])
    with pytest.raises(ValueError, match="unknown test"):
        CompareOptions(test="anova")
    with pytest.raises(ValueError, match="alpha"):
        CompareOptions(alpha=1.5)
