"""The ranked workflow's run × run table: every ordered pair of runs per measure, over their shared queries."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evalgui.core import tidy
from evalgui.core.jobs import JobState
from evalgui.core.ranked.jobs import RUN_MATRIX_COLUMNS, run_matrix_rows
from evalgui.core.resources import sample_data
from evalgui.core.workflows.project import open_project, save_project
from evalgui.core.workflows.ranked import EvaluateRequest, RunPairs, run_evaluate

SYN = sample_data() / "synthetic"
QRELS = str(SYN / "qrels.txt")
RUNS = tuple(str(SYN / f"{r}.run") for r in ("bm25", "dense", "rerank", "random"))


def cell(table: pd.DataFrame, row: str, column: str, measure: str = "m") -> dict:
    found = table[(table["measure"] == measure) & (table["row"] == row) & (table["column"] == column)]
    assert len(found) == 1, (row, column)
    return found.iloc[0].to_dict()


def test_pairs_by_hand_over_the_shared_queries_only():
    # a: q1 1.0, q2 0.5, q3 0.0; b: q1 0.5, q2 0.5, q4 1.0 (no q3); c: q3 1.0, q5 NaN (no value: not shared)
    pairs = RunPairs()
    parts = [pairs.add("a", ["q1", "q2", "q3"], {"m": np.array([1.0, 0.5, 0.0])}),
             pairs.add("b", ["q1", "q2", "q4"], {"m": np.array([0.5, 0.5, 1.0])}),
             pairs.add("c", ["q3", "q5"], {"m": np.array([1.0, np.nan])})]
    assert list(parts[0]["row"]) == ["a"] and list(parts[1]["row"]) == ["b", "a", "b"]
    table = pd.concat(parts, ignore_index=True)
    assert list(table.columns) == list(RUN_MATRIX_COLUMNS)
    # a − b over q1, q2: (1.0 + 0.5) / 2 − (0.5 + 0.5) / 2 = 0.25
    assert cell(table, "a", "b") == {"measure": "m", "row": "a", "column": "b", "mean_row": 0.75,
                                     "mean_column": 0.5, "diff": 0.25, "n_queries": 2}
    assert cell(table, "b", "a")["diff"] == -0.25 and cell(table, "b", "a")["mean_row"] == 0.5
    # a − c over q3 only: 0.0 − 1.0
    assert cell(table, "a", "c")["diff"] == -1.0 and cell(table, "c", "a")["diff"] == 1.0
    assert cell(table, "a", "c")["n_queries"] == 1
    # b and c share no query: undefined, said with NaN and a count of 0
    no_share = cell(table, "b", "c")
    assert math.isnan(no_share["diff"]) and math.isnan(no_share["mean_row"]) and no_share["n_queries"] == 0
    # a run against itself: its own mean over its queries, difference 0
    assert cell(table, "a", "a") == {"measure": "m", "row": "a", "column": "a", "mean_row": 0.5, "mean_column": 0.5,
                                     "diff": 0.0, "n_queries": 3}
    assert cell(table, "c", "c")["n_queries"] == 1 and cell(table, "c", "c")["mean_row"] == 1.0


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 6)),
              elements=st.one_of(st.floats(0, 1), st.just(np.nan))))
def test_matches_a_plain_loop_over_every_pair(values):
    """(Replaces the tests of stats/paired.py's mean_difference_matrix, which only the view used.)"""
    scores = pd.DataFrame(values, index=[f"q{i}" for i in range(values.shape[0])],
                          columns=[f"s{i}" for i in range(values.shape[1])])
    pairs = RunPairs()
    table = pd.concat([pairs.add(run, list(scores.index), {"m": scores[run].to_numpy()}) for run in scores.columns],
                      ignore_index=True)
    for i in scores.columns:
        for j in scores.columns:
            both = pd.DataFrame({"x": scores[i], "y": scores[j]}).dropna()
            got = cell(table, i, j)
            assert got["n_queries"] == len(both)
            expected = (both["x"] - both["y"]).mean() if len(both) else np.nan
            assert np.isclose(got["diff"], expected, equal_nan=True, atol=1e-12)
            assert np.isclose(got["mean_column"], both["y"].mean() if len(both) else np.nan, equal_nan=True,
                              atol=1e-12)


def test_a_measure_one_run_lacks_has_no_shared_query():
    pairs = RunPairs()
    pairs.add("a", ["q1"], {"m": np.array([1.0]), "n": np.array([2.0])})
    rows = pairs.add("b", ["q1"], {"m": np.array([0.0])})
    assert cell(rows, "b", "a")["diff"] == -1.0
    assert cell(rows, "b", "a", "n")["n_queries"] == 0 and math.isnan(cell(rows, "b", "a", "n")["diff"])


def test_many_runs_grow_the_arrays_and_keep_the_pairs_right():
    rng = np.random.default_rng(3)
    values = pd.DataFrame(rng.random((30, 9)), index=[f"q{i}" for i in range(30)],
                          columns=[f"r{j}" for j in range(9)])
    values = values.mask(rng.random(values.shape) < 0.2)          # each run lacks some queries
    pairs = RunPairs()
    table = pd.concat([pairs.add(run, values.index[values[run].notna()].tolist(), {"m": values[run].dropna()
                                                                                    .to_numpy()})
                       for run in values.columns], ignore_index=True)
    for a, b in [("r0", "r8"), ("r7", "r2"), ("r4", "r5")]:
        both = values[[a, b]].dropna()
        got = cell(table, a, b)
        assert got["n_queries"] == len(both)
        assert got["diff"] == pytest.approx((both[a] - both[b]).mean(), abs=1e-15)
        assert got["mean_row"] == pytest.approx(both[a].mean(), abs=1e-15)


def test_the_evaluate_outcome_holds_the_table_the_runs_carried():
    arrived = []
    request = EvaluateRequest(qrels=QRELS, runs=RUNS, measures=("AP", "P@10"), per_query=True)
    outcome = run_evaluate(request, JobState(on_partial=arrived.append))
    table = outcome["run_matrix"]
    assert list(table.columns) == list(RUN_MATRIX_COLUMNS)
    assert list(dict.fromkeys(table["measure"])) == ["AP", "P@10"]
    names = ["bm25", "dense", "rerank", "random"]
    assert len(table) == 2 * len(names) ** 2
    assert list(table["row"][:len(names) ** 2]) == [r for r in names for _ in names]
    assert list(table["column"][:len(names)]) == names
    # what the window received run by run, in the outcome's order, is the outcome's table
    pd.testing.assert_frame_equal(run_matrix_rows(arrived), table)
    # against the per-query rows, by hand: mean of row − column over the queries (all 50 are shared)
    per_query = outcome["per_query"]
    for measure in ("AP", "P@10"):
        wide = per_query[per_query[tidy.MEASURE] == measure].pivot(index=tidy.QUERY, columns=tidy.RUN,
                                                                    values=tidy.VALUE)
        for a in names:
            for b in names:
                got = cell(table, a, b, measure)
                assert got["n_queries"] == 50
                assert got["diff"] == pytest.approx((wide[a] - wide[b]).mean(), abs=1e-14)
                assert got["mean_column"] == pytest.approx(wide[b].mean(), abs=1e-14)
    summary = outcome["summary"]
    assert cell(table, "dense", "bm25", "AP")["mean_row"] == pytest.approx(
        summary[(summary[tidy.RUN] == "dense") & (summary[tidy.MEASURE] == "AP")][tidy.VALUE].item(), abs=1e-14)


def test_a_removed_run_leaves_the_table():
    request = EvaluateRequest(qrels=QRELS, runs=RUNS[:3], measures=("P@10",), per_query=True)
    results = run_evaluate(request).results
    kept = run_matrix_rows([results[0], results[2]])
    assert set(kept["row"]) == set(kept["column"]) == {"bm25", "rerank"} and len(kept) == 4


def _strip_run_matrix(path: str) -> None:
    data = json.loads(open(path).read())
    del data["results"]["ranked"]["ranked"]["tables"]["run_matrix"]
    with open(path, "w") as fh:
        json.dump(data, fh)


def test_a_saved_outcome_without_the_table_gets_it_derived_on_open(tmp_path):
    for name in ("qrels.txt", "bm25.run", "dense.run", "random.run"):
        shutil.copy(SYN / name, tmp_path / name)
    request = EvaluateRequest(qrels=str(tmp_path / "qrels.txt"), measures=("AP", "P@10"), per_query=True,
                              runs=tuple(str(tmp_path / f"{r}.run") for r in ("bm25", "dense", "random")))
    fresh = run_evaluate(request)
    path = save_project(str(tmp_path / "p.evalgui"), outcomes={"ranked": fresh})
    _strip_run_matrix(path)                          # as an older evalgui saved it
    derived = open_project(path).outcomes["ranked"].tables["run_matrix"]
    pd.testing.assert_frame_equal(derived, fresh["run_matrix"], check_dtype=False)


def test_the_demo_projects_saved_rows_give_the_table_a_new_evaluation_gives():
    """The window's own layout (rows only, as in the demo project) is read with the table derived; the same
    numbers as evaluating again, so that ``evalgui-cli run --check`` agrees."""
    project = open_project(str(sample_data() / "demo.evalgui"))
    derived = project.outcomes["ranked"].tables["run_matrix"]
    fresh = run_evaluate(project.requests["ranked"])["run_matrix"]
    assert len(derived) and set(derived["measure"]) == set(fresh["measure"])
    pd.testing.assert_frame_equal(derived, fresh, check_dtype=False)


def test_the_window_restores_a_saved_outcome_with_its_table(tmp_path):
    """``eg.save_project`` keeps the ranked outcome itself (not the tab's rows): the window's reader takes it,
    with the run × run rows derived as an evaluation makes them."""
    from evalgui.core.workflows.ranked import restored_results

    request = EvaluateRequest(qrels=QRELS, runs=RUNS[:3], measures=("AP", "P@10"), per_query=True)
    fresh = run_evaluate(request)
    restored = restored_results({"ranked": fresh.to_json()})
    assert [r.name for r in restored] == ["bm25", "dense", "rerank"]
    assert restored[1].summary["AP"] == fresh["summary"].set_index(["run", "measure"])["value"][("dense", "AP")]
    pd.testing.assert_frame_equal(run_matrix_rows(restored), fresh["run_matrix"], check_dtype=False)
    assert restored_results({"ranked": {"tables": "not tables"}}) is None and restored_results({}) is None
