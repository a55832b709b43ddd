"""The ranked jobs and result shaping, in the core: run without Qt, as the worker runs them."""

import numpy as np
import pandas as pd
import pytest

from evalgui.core import tidy
from evalgui.core.data import Qrels, Run
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.ranked.evaluate import EvalOptions, evaluate
from evalgui.core.ranked.jobs import ResultSet, drill_down_job, saved_results
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

QRELS = Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}})
RUN_A = Run.from_dict({"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"d": 0.5, "e": 0.4}}, name="a")
RUN_B = Run.from_dict({"q1": {"c": 0.9, "a": 0.2}, "q2": {"e": 0.5}}, name="b")


def run_job(specs=("P@2", "AP", "num_ret"), cancel_after=None):
    arrived, fractions = [], []
    state = JobState(lambda f, m: fractions.append(f), arrived.append,
                     (lambda: len(arrived) >= cancel_after) if cancel_after else None, min_interval=0)
    # The window's path: the session's loaded data, under its paths and names.
    inputs = Inputs(names={"a.run": "a", "b.run": "b"})
    inputs.add("q.txt", QRELS)
    inputs.add("a.run", RUN_A)
    inputs.add("b.run", RUN_B)
    request = EvaluateRequest(qrels="q.txt", runs=("a.run", "b.run"), measures=tuple(specs), per_query=True)
    return len(run_evaluate(request, state, inputs).results), arrived, fractions


def test_each_run_arrives_as_a_partial_result_with_the_engines_numbers():
    count, arrived, fractions = run_job()
    assert count == 2 and [r.name for r in arrived] == ["a", "b"]
    expected = evaluate(QRELS, [RUN_A, RUN_B], ["P@2", "AP", "num_ret"])
    for result in arrived:
        rows = expected[(expected[tidy.RUN] == result.name) & (expected[tidy.QUERY] == tidy.ALL_QUERIES)]
        assert result.summary == dict(zip(rows[tidy.MEASURE], rows[tidy.VALUE]))
        assert result.measures == ["P@2", "AP", "num_ret"] and result.info["num_ret"].integer
        assert result.info["AP"].better == "higher" and "Formula" in result.info["AP"].help
    assert arrived[0].per_query["AP"].tolist() == pytest.approx([(1 + 2 / 3) / 2, 1.0])
    assert ("interpolated", tidy.ALL_QUERIES) in arrived[0].curves
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_cancel_stops_between_runs_and_keeps_what_arrived():
    with pytest.raises(Cancelled):
        run_job(cancel_after=1)


def test_no_measure_is_a_problem_named_by_the_parameter():
    from evalgui.core.workflows.params import RequestError

    with pytest.raises(RequestError, match="Measures: no measure"):
        run_job(specs=())


def test_result_set_tables_and_a_project_round_trip():
    _, arrived, _ = run_job()
    results = ResultSet()
    for r in arrived:
        results.add(r)
    assert results.names() == ["a", "b"] and results.queries == ["q1", "q2"]
    matrix = results.query_matrix("AP")
    assert list(matrix.columns) == ["a", "b"] and list(matrix.index) == ["q1", "q2"]
    saved = {"measure_order": list(results.measure_info()), "rows": results.tidy().to_dict(orient="list")}
    restored = ResultSet()
    for r in saved_results(saved):
        restored.add(r)
    pd.testing.assert_frame_equal(restored.query_matrix("AP"), matrix)
    assert restored["a"].summary == results["a"].summary and restored["a"].ranking is None
    assert saved_results({"rows": {"run": [1], "query": [1, 2]}}) is None
    assert saved_results("nonsense") is None


def test_drill_down_job_lines_up_two_rankings():
    _, arrived, _ = run_job()
    query, (a, b) = drill_down_job(arrived[0], arrived[1], "q1")(JobState())
    assert query == "q1" and a["doc"].tolist() == ["a", "b", "c"] and b["doc"].tolist() == ["c", "a"]
    assert a["rank in B"].tolist()[:1] == [2] and np.isnan(float(a["rank in B"].astype(float).iloc[1]))
