"""The ranked and meta-evaluation workflows: their requests, their outcomes' tables, and the command line on them."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from evalgui.cli import main
from evalgui.core import tidy
from evalgui.core.jobs import JobState
from evalgui.core.ranked.evaluate import evaluate
from evalgui.core.resources import sample_data
from evalgui.core.workflows import workflow
from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval
from evalgui.core.workflows.params import RequestError
from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

SYN = sample_data() / "synthetic"
QRELS = str(SYN / "qrels.txt")
RUNS = tuple(str(SYN / f"{r}.run") for r in ("bm25", "dense", "rerank"))


def cli_table(capsys, *argv) -> pd.DataFrame:
    assert main([str(a) for a in argv]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str})


def through_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """A table as it reads back from CSV (None and NaN alike empty)."""
    return pd.read_csv(io.StringIO(frame.to_csv(index=False)), dtype={"query": str})


def test_the_workflows_are_registered():
    assert workflow("ranked").run is run_evaluate and workflow("ranked").request is EvaluateRequest
    assert workflow("metaeval").run is run_metaeval and workflow("metaeval").request is MetaevalRequest


def test_evaluate_tables_agree_with_the_engine_and_runs_arrive_one_by_one():
    arrived = []
    request = EvaluateRequest(qrels=QRELS, runs=RUNS, measures=("AP", "P@10"), per_query=True)
    outcome = run_evaluate(request, JobState(on_partial=arrived.append))
    assert [r.name for r in arrived] == ["bm25", "dense", "rerank"] and outcome.results == arrived
    from evalgui.core.inputs import kind

    expected = evaluate(kind("qrels").read(QRELS), [kind("run").read(p) for p in RUNS], ["AP", "P@10"])
    summary = expected[expected[tidy.QUERY] == tidy.ALL_QUERIES].reset_index(drop=True)
    per_query = expected[expected[tidy.QUERY] != tidy.ALL_QUERIES]
    pd.testing.assert_frame_equal(outcome["summary"], summary)
    pd.testing.assert_frame_equal(outcome["per_query"].sort_values(list(tidy.COLUMNS[:3])).reset_index(drop=True),
                                  per_query.sort_values(list(tidy.COLUMNS[:3])).reset_index(drop=True))
    curves = outcome["curves"]
    assert list(curves.columns) == ["run", "kind", "query", "recall", "precision"]
    assert set(curves["run"]) == {"bm25", "dense", "rerank"} and set(curves["kind"]) == {"interpolated",
                                                                                          "uninterpolated"}
    # the window's curve index is what the table holds
    recall, precision = arrived[0].curves[("interpolated", "all")]
    mean = curves[(curves["run"] == "bm25") & (curves["kind"] == "interpolated") & (curves["query"] == "all")]
    assert np.array_equal(mean["recall"], recall) and np.array_equal(mean["precision"], precision)
    assert outcome.provenance["request"]["measures"] == ["AP", "P@10"]
    assert all(entry["hash"].startswith("sha256:") for entry in outcome.provenance["inputs"])


def test_without_per_query_the_per_query_table_is_empty_and_the_lean_path_needs_no_pandas_frames():
    request = EvaluateRequest(qrels=QRELS, runs=RUNS[:1], measures=("AP",))
    assert run_evaluate(request)["per_query"].empty
    lean = run_evaluate(request, tables=("results",))
    assert set(lean.tables) == {"results"} and isinstance(lean["results"], dict)
    assert lean["results"]["query"].tolist() == ["all"]


def test_evaluate_cli_writes_the_workflows_rows(capsys):
    table = cli_table(capsys, "evaluate", QRELS, *RUNS, "-m", "AP", "-m", "nDCG@10", "--per-query")
    outcome = run_evaluate(EvaluateRequest(qrels=QRELS, runs=RUNS, measures=("AP", "nDCG@10"), per_query=True))
    both = pd.concat([outcome["per_query"], outcome["summary"]])
    merged = table.merge(both, on=["run", "query", "measure"], suffixes=("_cli", "_workflow"))
    assert len(merged) == len(table) == len(both)
    assert np.allclose(merged["value_cli"], merged["value_workflow"], rtol=1e-14, atol=0)


@pytest.mark.parametrize("values, message", [
    (dict(measures=()), "Measures: no measure is chosen"),
    (dict(level=-1), "Relevant from grade: must be at least 0"),
    (dict(runs=()), "Runs: give at least one run"),
])
def test_a_bad_evaluate_request_names_the_parameter(values, message):
    request = EvaluateRequest(**{"qrels": QRELS, "runs": RUNS, **values})
    with pytest.raises(RequestError, match=message):
        request.check()


def test_an_unknown_measure_is_refused_before_any_file_is_read(tmp_path):
    from evalgui.core.errors import EvalUsageError

    request = EvaluateRequest(qrels=str(tmp_path / "missing"), runs=(str(tmp_path / "missing.run"),),
                              measures=("nosuch",))
    with pytest.raises(EvalUsageError, match="nosuch"):
        run_evaluate(request)


# ---------------------------------------------------------------------------- meta-evaluation

@pytest.mark.parametrize("experiment, extra, flag, table", [
    ("stability", dict(set_sizes=(10,), sets=100, seed=5), ["--matrix", "AP"], "matrix"),
    ("power", dict(test="t"), ["--curves"], "curves"),
    ("robustness", dict(fractions=(0.5,), repetitions=2), ["--per-repetition"], "per_repetition"),
    ("agreement", {}, [], "table"),
])
def test_metaeval_outcome_holds_every_table_the_cli_writes(capsys, experiment, extra, flag, table):
    request = MetaevalRequest(qrels=QRELS, runs=RUNS, measures=("AP", "P@10"), experiment=experiment, **extra)
    outcome = run_metaeval(request)
    assert outcome.experiment == experiment and outcome.runs == ["bm25", "dense", "rerank"]
    assert outcome.measures == ["AP", "P@10"]
    argv = ["metaeval", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--experiment", experiment]
    for name, value in extra.items():
        option = MetaevalRequest.param(name).flag
        if isinstance(value, tuple):
            argv += [option, ",".join(map(str, value))] if name == "fractions" else \
                [a for v in value for a in (option, str(v))]
        else:
            argv += [option, str(value)]
    written = cli_table(capsys, *argv, *flag)
    expected = outcome[table]
    if flag[:1] == ["--matrix"]:
        expected = expected[expected["measure"] == "AP"].reset_index(drop=True)
    pd.testing.assert_frame_equal(written, through_csv(expected), check_dtype=False, rtol=1e-13)
    pd.testing.assert_frame_equal(cli_table(capsys, *argv), through_csv(outcome["table"]), check_dtype=False,
                                  rtol=1e-13)


@pytest.mark.parametrize("values, message", [
    (dict(sets=20_000_000), "Query sets: must be at most 10,000,000 \\(a limit that protects the running time\\)"),
    (dict(samples=10**9), "Resamples \\(B\\): must be at most 10,000,000 \\(a limit that protects the running time\\)"),
    (dict(fuzziness=1.0), "Fuzziness: must be below 1"),
    (dict(fractions=(0.5, 1.0)), "Fractions removed: a fraction of judgments to remove is between 0 and 1"),
    (dict(experiment="robustness", scores="s.csv", qrels=None, runs=()), "Robustness evaluates the runs again"),
    (dict(runs=RUNS[:1]), "Meta-evaluation compares runs: give ‘Judgments \\(qrels\\)’ and at least two ‘Runs’"),
])
def test_a_bad_metaeval_request_names_the_parameter_and_what_a_cap_protects(values, message):
    request = MetaevalRequest(**{"qrels": QRELS, "runs": RUNS, "measures": ("AP",), **values})
    with pytest.raises(RequestError, match=message):
        request.check()
