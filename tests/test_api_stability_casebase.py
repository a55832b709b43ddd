"""eg.stability, eg.casebase and eg.similarity: the same numbers as evalgui-cli on the sample data, from paths
or DataFrames."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

import evalgui as eg
from evalgui.core.resources import sample_data
from tests.test_cli import run_cli

CITATIONS = sample_data("rankfile") / "citations.tsv"
CBR = sample_data("cbr")
TIMINGS = ("retrieval_seconds", "seconds_per_query", "speedup")


def test_stability_equals_the_cli_from_a_path_and_from_a_dataframe(capsys):
    from evalgui.cli.stability import render

    status, out, _ = run_cli(capsys, "stability", CITATIONS, "-n", "5000", "-s", "2", "-i", "20", "--splits", "2",
                             "4", "-e", "-p", "all")
    assert status == 0
    outcome = eg.stability(CITATIONS, total_ranks=5000, seed=2, iterations=20, splits=(2, 4), error_rates=True)
    assert render(outcome.results, ("eval", "actual", "sign"), "csv") == out
    assert set(outcome.tables) >= {"actual", "evaluation", "significance", "methods", "legend", "ranks"}
    frame = pd.read_csv(CITATIONS, sep="\t", dtype={0: str})
    again = eg.stability(frame, total_ranks=5000, seed=2, iterations=20, splits=(2, 4), error_rates=True)
    for name in ("actual", "evaluation", "significance"):
        pd.testing.assert_frame_equal(again[name], outcome[name])
    assert again["ranks"]["entities"].tolist() == [60]
    # a bad value is named by the parameter's keyword
    with pytest.raises(ValueError, match=r"splits=\(100,\): 60 entities cannot be split into 100 queries; "
                                         r"choose 60 or fewer"):
        eg.stability(frame, total_ranks=5000, splits=(100,))


def test_stability_from_qrels_and_runs_as_dicts():
    qrels = {"1": {"d1": 1, "d3": 1}, "2": {"d1": 1}}
    first = {"1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "2": {"d2": 2.0, "d1": 1.0}}
    second = {"1": {"d1": 0.1, "d2": 2.0, "d3": 1.0}, "2": {"d2": 2.0, "d1": 1.0}}
    outcome = eg.stability(qrels=qrels, runs={"first": first, "second": second}, measures=("Average",),
                           experiments=False)
    # relevant: q1 d1, q1 d3, q2 d1; first ranks them 1, 3, 2, second 3, 2, 2
    assert outcome["actual"].columns.tolist() == ["measure", "first", "second"]
    assert outcome["actual"].iloc[0, 1:].tolist() == pytest.approx([2.0, 7 / 3])


def _without_timings(table: pd.DataFrame) -> pd.DataFrame:
    return table[~table["metric"].isin(TIMINGS)].reset_index(drop=True)


def test_casebase_equals_the_cli_from_paths_and_dataframes(capsys):
    args = ["--train", CBR / "cars.csv", "--test", CBR / "queries.csv", "--model", CBR / "model.json",
            "--mac-model", CBR / "mac_model.json", "--filter-sizes", "10,20", "--ks", "5,10"]
    status, out, _ = run_cli(capsys, "casebase", *args)
    assert status == 0
    cli = _without_timings(pd.read_csv(io.StringIO(out), dtype={"k": "Int64", "filter_size": "Int64"}))
    outcome = eg.casebase(CBR / "cars.csv", test=CBR / "queries.csv", model=CBR / "model.json",
                          mac_model=CBR / "mac_model.json", filter_sizes=(10, 20), ks=(5, 10))
    pd.testing.assert_frame_equal(_without_timings(outcome["results"]), cli, check_dtype=False)
    # DataFrames and attribute records give the same values
    records = json.loads((CBR / "model.json").read_text())["attributes"]
    again = eg.casebase(pd.read_csv(CBR / "cars.csv"), test=pd.read_csv(CBR / "queries.csv"), model=records,
                        mac_model=CBR / "mac_model.json", filter_sizes=(10, 20), ks=(5, 10))
    pd.testing.assert_frame_equal(_without_timings(again["results"]), cli, check_dtype=False)
    # the wide grid: one row per configuration, one column per metric, the same numbers
    wide = outcome["wide"]
    assert wide["retriever"].tolist() == ["linear", "linear", "macfac", "macfac"]
    assert wide["k"].tolist() == [5, 10, 5, 10] and wide["filter_size"].isna().tolist() == [True, True, False, False]
    assert wide["filter_size"].dropna().tolist() == [10, 20]
    macfac = cli[(cli["retriever"] == "macfac") & (cli["k"] == 10)].set_index("metric")["value"]
    assert wide.iloc[3][macfac.index].tolist() == macfac.tolist()


def test_a_model_record_problem_names_the_attribute():
    with pytest.raises(ValueError, match="^model: attribute 'price': .*"):
        eg.casebase(CBR / "cars.csv", model=[{"name": "price", "type": "numeric", "measure": "nope"}])


def test_similarity_equals_the_cli(capsys):
    status, out, _ = run_cli(capsys, "similarity", "--ground-truth", CBR / "procake_ground_truth.csv",
                             "--predicted", f"evaluated={CBR / 'procake_evaluated.csv'}", "-k", "2")
    assert status == 0
    outcome = eg.similarity(CBR / "procake_ground_truth.csv", {"evaluated": CBR / "procake_evaluated.csv"}, ks=(2,))
    cli = pd.read_csv(io.StringIO(out), dtype={"k": "Int64"})
    pd.testing.assert_frame_equal(outcome["results"], cli, check_dtype=False)
    frames = eg.similarity(pd.read_csv(CBR / "procake_ground_truth.csv"),
                           {"evaluated": pd.read_csv(CBR / "procake_evaluated.csv")}, ks=(2,))
    pd.testing.assert_frame_equal(frames["results"], cli, check_dtype=False)
    assert frames["wide"].columns.tolist()[:3] == ["retriever", "k", "hits"] and len(frames["wide"]) == 1


def test_importing_evalgui_stays_light():
    import subprocess
    import sys

    code = "import sys, evalgui; evalgui.stability; print('numpy' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_the_readme_examples_run(monkeypatch, capsys):
    """The Python examples of the stability and case-based workflows (docs/command-line.md) run as written."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "command-line.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S)
              if "eg.stability(" in b or "eg.casebase(" in b]
    assert len(blocks) == 2
    monkeypatch.chdir(root)
    for block in blocks:
        exec(compile(block, "docs/command-line.md", "exec"), {})
    out = capsys.readouterr().out
    assert "PageRank" in out and "macfac" in out and "quality_mueller" in out
