"""The workflow layer: declarations, problems worded per front end, outcomes that survive JSON exactly."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalgui.core.workflows import workflow, workflows
from evalgui.core.workflows.compare import (CompareRequest, PreferenceRequest, comparison_from_outcome,
                                            preferences_from_outcome, run_compare, run_preference)
from evalgui.core.workflows.outcome import Outcome, frame_from_json, frame_to_json
from evalgui.core.workflows.params import RequestError
from tests.conftest import SAMPLE_DATA

SYN = SAMPLE_DATA / "synthetic"
QRELS = str(SYN / "qrels.txt")
RUNS = [str(SYN / f"{name}.run") for name in ("bm25", "dense", "rerank")]


def test_every_parameter_has_a_label_and_help_and_no_identifier_as_label():
    for flow in workflows().values():
        for param in flow.request.PARAMS:
            assert param.label and param.help, (flow.key, param.name)
            assert "_" not in param.label and "--" not in param.label, (flow.key, param.name, param.label)


def test_a_problem_is_worded_by_label_in_the_window_and_by_flag_on_the_command_line():
    request = CompareRequest(qrels=QRELS, runs=RUNS, measures=["AP"], samples=0)
    [problem] = request.problems()
    assert problem.for_window() == "Resamples (B): must be at least 1"
    assert problem.for_cli() == "--samples 0: must be at least 1"
    with pytest.raises(RequestError) as caught:
        CompareRequest(seed="x")
    assert caught.value.problems[0].for_cli() == "--seed x: 'x' is not a whole number"
    [problem] = CompareRequest(qrels=QRELS, runs=RUNS[:1], measures=["AP"]).problems()
    assert problem.for_cli() == "give QRELS and at least two RUNs, or --scores FILE"
    assert problem.for_window() == "Give ‘Judgments (qrels)’ and at least two ‘Runs’, or ‘Per-query scores’"


def test_a_request_round_trips_through_json_and_ignores_unknown_keys():
    request = CompareRequest(qrels=QRELS, runs=RUNS, measures=["AP", "P@10"], test="bootstrap", samples=500)
    data = json.loads(json.dumps(request.to_json()))
    assert CompareRequest.from_json(data) == request
    assert CompareRequest.from_json({**data, "from_a_newer_version": 1}) == request


def test_frames_survive_json_to_the_last_bit():
    frame = pd.DataFrame({"f": [0.1 + 0.2, np.nan, 1e-300], "i": [1, 2, 3], "b": [True, False, True],
                          "o": ["a", None, "c"], "n": pd.array([1, None, 3], dtype="Int64")})
    back = frame_from_json(json.loads(json.dumps(frame_to_json(frame))))
    pd.testing.assert_frame_equal(back, frame, check_exact=True)


def test_the_registry_finds_each_workflow_by_key():
    assert workflow("compare").request is CompareRequest
    assert workflow("preference").run is run_preference


def test_a_comparison_outcome_saved_and_read_back_gives_the_same_comparison():
    outcome = run_compare(CompareRequest(qrels=QRELS, runs=RUNS, measures=["AP", "P@10"], test="randomization",
                                         samples=500, seed=3))
    back = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), CompareRequest)
    rebuilt = comparison_from_outcome(back)
    original = outcome.comparison
    pd.testing.assert_frame_equal(rebuilt.table, original.table, check_exact=True)
    for measure in original.measures:
        pd.testing.assert_frame_equal(rebuilt.per_query[measure], original.per_query[measure], check_exact=True)
    assert rebuilt.query_sets.keys() == original.query_sets.keys()
    assert back.provenance["inputs"][0]["hash"].startswith("sha256:")


def test_the_matrix_table_holds_every_pair_in_both_orders_seen_from_the_row():
    outcome = run_compare(CompareRequest(qrels=QRELS, runs=RUNS, measures=["AP"]))
    matrix = outcome.tables["matrix"].set_index(["row", "column"])
    comparison = outcome.comparison
    assert len(matrix) == 6
    expected = comparison.matrix("AP", "diff")
    for (row, column), cell in matrix.iterrows():
        assert cell["diff"] == expected.loc[row, column]
        assert cell["wins"] == matrix.loc[(column, row), "losses"]


def test_preferences_outcome_rebuilds_the_tested_comparison():
    outcome = run_preference(PreferenceRequest(qrels=QRELS, runs=RUNS, measures=["rpp"], test="t"))
    back = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), PreferenceRequest)
    rebuilt = preferences_from_outcome(back)
    pd.testing.assert_frame_equal(rebuilt.matrices["rpp"], outcome.preferences.matrices["rpp"], check_exact=True)
    assert rebuilt.n_queries == outcome.preferences.n_queries
