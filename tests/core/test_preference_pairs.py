"""Issue 25, point 1: the preference outcome keeps every pair's per-query preferences (``pair_queries``),
what a cell of the preference matrix opens, within a bound; older results say why they have none."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalgui.core.workflows import compare as workflow
from evalgui.core.workflows.compare import PreferenceRequest, pair_preferences, run_preference
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from tests.core.test_preference import three_runs


def _outcome(measures=("rpp", "lexiprecision"), test="t"):
    qrels, runs = three_runs()
    inputs = Inputs()
    inputs.add("qrels.txt", qrels)
    for run in runs:
        inputs.add(f"{run.name}.run", run)
    request = PreferenceRequest(qrels="qrels.txt", runs=[f"{run.name}.run" for run in runs], measures=list(measures),
                                test=test)
    return run_preference(request, inputs=inputs)


def test_the_table_holds_each_pairs_preference_on_each_query_by_hand():
    table = _outcome().tables["pair_queries"]
    assert list(table.columns) == ["measure", "run_a", "run_b", "query", "preference"]
    rows = {tuple(r[:4]): r[4] for r in table.itertuples(index=False)}
    # three_runs: good [1,2] / [1]; mid [1,3] / [2]; bad [3, not retrieved] / nothing (query 2).
    # rpp, query 1, good over mid: s = [0, +1] -> 1/2; query 2: 1 vs 2 -> +1.
    assert rows[("rpp", "good", "mid", "1")] == 0.5 and rows[("rpp", "good", "mid", "2")] == 1.0
    # against bad: [1,2] vs [3,nr] -> s = [+1, +1] -> 1; query 2: a rank beats "not retrieved".
    assert rows[("rpp", "good", "bad", "1")] == 1.0 and rows[("rpp", "mid", "bad", "2")] == 1.0
    # lexiprecision, query 1, good over mid: the first level ties (1, 1), the second decides (2 < 3): +1.
    assert rows[("lexiprecision", "good", "mid", "1")] == 1.0
    # query 2: mid shows its relevant document at 2, good at 1: good.
    assert rows[("lexiprecision", "good", "mid", "2")] == 1.0
    assert len(table) == 2 * 3 * 2                  # measures × pairs × queries


def test_each_pairs_mean_over_its_queries_is_the_matrix_cell():
    outcome = _outcome()
    table, matrix = outcome.tables["pair_queries"], outcome.tables["matrix"]
    means = table.groupby(["measure", "run_a", "run_b"], sort=False)["preference"].mean()
    for (measure, a, b), mean in means.items():
        cell = matrix[(matrix["measure"] == measure) & (matrix["run_a"] == a)][b].iloc[0]
        assert mean == pytest.approx(cell, abs=1e-15)


def test_a_pair_seen_from_either_run_and_after_a_json_round_trip():
    outcome = _outcome()
    forward = pair_preferences(outcome, "rpp", "good", "mid")
    assert forward["query"].tolist() == ["1", "2"] and forward["preference"].tolist() == [0.5, 1.0]
    backward = pair_preferences(outcome, "rpp", "mid", "good")
    assert backward["preference"].tolist() == [-0.5, -1.0]
    back = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), PreferenceRequest)
    pd.testing.assert_frame_equal(back.tables["pair_queries"], outcome.tables["pair_queries"], check_exact=True)
    pd.testing.assert_frame_equal(pair_preferences(back, "rpp", "mid", "good"), backward, check_exact=True)
    assert isinstance(pair_preferences(outcome, "rpp", "good", "good"), str)


def test_past_the_bound_no_table_is_kept_and_a_pair_comes_from_the_engine_result(monkeypatch):
    monkeypatch.setattr(workflow, "PAIR_QUERY_ROWS", 11)       # 12 rows: one too many
    outcome = _outcome()
    assert "pair_queries" not in outcome.tables
    pair = pair_preferences(outcome, "rpp", "mid", "good")
    assert pair["preference"].tolist() == [-0.5, -1.0]
    # read back from a project: the engine's result is gone, and the cell says why in plain words
    back = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), PreferenceRequest)
    reason = pair_preferences(back, "rpp", "mid", "good")
    assert isinstance(reason, str) and "too many to keep" in reason and "Press Run" in reason


def test_results_saved_without_the_table_say_why_a_cell_cannot_open():
    outcome = _outcome()
    saved = outcome.to_json()
    del saved["tables"]["pair_queries"]              # as an older evalgui saved them
    back = Outcome.from_json(json.loads(json.dumps(saved)), PreferenceRequest)
    reason = pair_preferences(back, "rpp", "good", "mid")
    assert isinstance(reason, str) and "older version" in reason and "Press Run" in reason
    assert workflow.preferences_from_outcome(back) is not None        # the rest still opens


def test_the_table_is_made_only_when_asked_for():
    """evalgui-cli preference asks for one table: it pays nothing for this one."""
    qrels, runs = three_runs()
    inputs = Inputs()
    inputs.add("qrels.txt", qrels)
    for run in runs:
        inputs.add(f"{run.name}.run", run)
    request = PreferenceRequest(qrels="qrels.txt", runs=[f"{run.name}.run" for run in runs], measures=["rpp"],
                                test="t")
    assert "pair_queries" not in run_preference(request, inputs=inputs, tables=("matrix",)).tables
    assert np.isfinite(run_preference(request, inputs=inputs).tables["pair_queries"]["preference"]).all()
