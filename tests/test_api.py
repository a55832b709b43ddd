"""The Python API (``import evalgui as eg``): the same numbers as the command line, whatever form the data takes."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import evalgui as eg
from evalgui.cli import main
from evalgui.core.errors import EvalInputError
from evalgui.core.resources import sample_data
from evalgui.core.workflows.params import RequestError

SYN = sample_data() / "synthetic"
QRELS = SYN / "qrels.txt"
RUNS = {name: SYN / f"{name}.run" for name in ("bm25", "dense", "rerank")}


def cli(capsys, *argv) -> pd.DataFrame:
    assert main([str(a) for a in argv]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"query": str})


def frames():
    """The sample qrels and runs as the DataFrames and dicts notebook users hold (ir_measures/ranx column names)."""
    qrels = pd.read_csv(QRELS, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    runs = {name: pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                              dtype={"query_id": str, "doc_id": str})
            for name, path in RUNS.items()}
    return qrels, runs


def as_dict(frame, value):
    out: dict = {}
    for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(q, {})[d] = v
    return out


def test_import_evalgui_stays_light():
    code = "import sys, evalgui; evalgui.evaluate; print('numpy' in sys.modules or 'pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() \
        == "False"
    assert {"evaluate", "metaeval"} <= set(dir(eg))


def test_evaluate_gives_the_cli_values(capsys):
    outcome = eg.evaluate(QRELS, list(RUNS.values()), measures=["AP", "nDCG@10"], per_query=True)
    written = cli(capsys, "evaluate", QRELS, *RUNS.values(), "-m", "AP", "-m", "nDCG@10", "--per-query")
    tables = pd.concat([outcome["per_query"], outcome["summary"]])
    merged = written.merge(tables, on=["run", "query", "measure"])
    assert len(merged) == len(written) == len(tables)
    assert np.array_equal(merged["value_x"].round(12), merged["value_y"].round(12))


def test_paths_dataframes_and_dicts_give_equal_tables():
    qrels, runs = frames()
    by_path = eg.evaluate(QRELS, RUNS, measures=["AP", "P@10", "nDCG@10"], per_query=True)
    by_frame = eg.evaluate(qrels, runs, measures=["AP", "P@10", "nDCG@10"], per_query=True)
    by_dict = eg.evaluate(as_dict(qrels, "relevance"), {n: as_dict(r, "score") for n, r in runs.items()},
                          measures=["AP", "P@10", "nDCG@10"], per_query=True)
    for name in ("summary", "per_query", "curves"):
        pd.testing.assert_frame_equal(by_frame[name], by_path[name])
        pd.testing.assert_frame_equal(by_dict[name], by_path[name])
    assert list(dict.fromkeys(by_path["summary"]["run"])) == ["bm25", "dense", "rerank"]


def test_one_run_as_a_dict_and_options():
    qrels, runs = frames()
    one = eg.evaluate(as_dict(qrels, "relevance"), as_dict(runs["bm25"], "score"), measures="AP", level=2)
    path = eg.evaluate(QRELS, RUNS["bm25"], measures="AP", level=2)
    assert one["summary"]["run"].tolist() == ["run1"]
    assert one["summary"]["value"].tolist() == path["summary"]["value"].tolist()


def test_metaeval_gives_the_cli_values_for_every_input_form(capsys):
    qrels, runs = frames()
    settings = dict(experiment="stability", set_sizes=[10], sets=100, seed=5)
    by_path = eg.metaeval(QRELS, RUNS, measures=["AP", "P@10"], **settings)
    written = cli(capsys, "metaeval", QRELS, *RUNS.values(), "-m", "AP", "-m", "P@10", "--experiment", "stability",
                  "--set-size", "10", "--sets", "100", "--seed", "5")
    pd.testing.assert_frame_equal(written, pd.read_csv(io.StringIO(by_path["table"].to_csv(index=False))),
                                  check_dtype=False, rtol=1e-13)
    by_frame = eg.metaeval(qrels, runs, measures=["AP", "P@10"], **settings)
    by_dict = eg.metaeval(as_dict(qrels, "relevance"), {n: as_dict(r, "score") for n, r in runs.items()},
                          measures=["AP", "P@10"], **settings)
    for other in (by_frame, by_dict):
        for name in ("table", "matrix"):
            pd.testing.assert_frame_equal(other[name], by_path[name])


def test_metaeval_from_a_scores_dataframe_equals_from_the_runs():
    scores = eg.evaluate(QRELS, RUNS, measures=["AP", "P@10"], per_query=True)
    table = pd.concat([scores["per_query"], scores["summary"]], ignore_index=True)
    from_scores = eg.metaeval(scores=table, experiment="agreement")
    from_runs = eg.metaeval(QRELS, RUNS, measures=["AP", "P@10"], experiment="agreement")
    pd.testing.assert_frame_equal(from_scores["table"], from_runs["table"], check_dtype=False)


def test_bad_values_and_bad_data_name_what_is_wrong():
    with pytest.raises(RequestError, match="Relevant from grade: must be at least 0"):
        eg.evaluate(QRELS, RUNS, measures="AP", level=-1)
    with pytest.raises(RequestError, match="Query sets: must be at most"):
        eg.metaeval(QRELS, RUNS, measures="AP", experiment="stability", sets=10**9)
    with pytest.raises(EvalInputError, match="grade 'high' is not a whole number|grade is not a number"):
        eg.evaluate({"q1": {"d1": "high"}}, {"q1": {"d1": 1.0}}, measures="AP")
    with pytest.raises(EvalInputError, match="no document column"):
        eg.evaluate(pd.DataFrame({"query": ["q1"], "relevance": [1]}), {"q1": {"d1": 1.0}}, measures="AP")
    with pytest.raises(EvalInputError, match="not a finite number"):
        eg.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": float("nan")}}, measures="AP")


def test_the_readme_example_runs(monkeypatch, capsys):
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "README.md").read_text(encoding="utf-8")
    example = re.search(r"<!-- tests/test_api.py runs this example -->\n```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(root)
    exec(compile(example, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "nDCG@10" in out and "mine" in out and "P@10" in out
