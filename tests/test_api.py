"""The Python API: the README's example runs as written, and the API gives what the command line gives, whatever
form the data takes (paths, DataFrames, {query: {doc: value}} dicts)."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import evalgui as eg
from evalgui.cli import main
from evalgui.core.errors import EvalInputError
from evalgui.core.resources import sample_data
from evalgui.core.workflows.params import RequestError
from tests.conftest import ROOT, SAMPLE_DATA


def test_the_readme_example_runs(monkeypatch, tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- api-example[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert block, "the README has no api-example block"
    code = block.group(1).replace("/tmp/evalgui-example.evalgui", str(tmp_path / "example.evalgui"))
    monkeypatch.chdir(SAMPLE_DATA)
    with redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "example.evalgui").exists()


def test_compare_gives_the_command_lines_table(capsys, monkeypatch):
    import evalgui as eg
    from evalgui.cli import main

    monkeypatch.chdir(SAMPLE_DATA)
    runs = ["synthetic/bm25.run", "synthetic/dense.run"]
    assert main(["compare", "synthetic/qrels.txt", *runs, "-m", "AP", "-m", "P@10"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    outcome = eg.compare("synthetic/qrels.txt", runs, ["AP", "P@10"])
    from evalgui.core.export import to_text

    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(to_text(outcome.tables["comparison"], "csv"))), printed)


def test_importing_evalgui_stays_light():
    import subprocess
    import sys

    code = "import sys, evalgui; print([m for m in ('numpy', 'pandas', 'PySide6') if m in sys.modules])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]", proc.stderr


# ---------------------------------------------------------------------------- eg.evaluate and eg.metaeval


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
    # named by the keyword a Python caller wrote, not the window's label
    with pytest.raises(RequestError, match="^level=-1: must be at least 0"):
        eg.evaluate(QRELS, RUNS, measures="AP", level=-1)
    with pytest.raises(RequestError, match="^sets=1000000000: must be at most"):
        eg.metaeval(QRELS, RUNS, measures="AP", experiment="stability", sets=10**9)
    with pytest.raises(EvalInputError, match="grade 'high' is not a whole number|grade is not a number"):
        eg.evaluate({"q1": {"d1": "high"}}, {"q1": {"d1": 1.0}}, measures="AP")
    with pytest.raises(EvalInputError, match="no document column"):
        eg.evaluate(pd.DataFrame({"query": ["q1"], "relevance": [1]}), {"q1": {"d1": 1.0}}, measures="AP")
    with pytest.raises(EvalInputError, match="not a finite number"):
        eg.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": float("nan")}}, measures="AP")



def test_the_readme_data_example_runs(monkeypatch, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- data-example[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert block, "the README has no data-example block"
    monkeypatch.chdir(SAMPLE_DATA)
    exec(compile(block.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "nDCG@10" in out and "mine" in out and "P@10" in out


def test_a_note_names_the_setting_as_each_front_end_does(tmp_path):
    """A run without some judged query: Python reads the keyword, the command line the flag, the window the
    label; in every workflow that evaluates runs."""
    lines = RUNS["bm25"].read_text().splitlines()
    first = lines[0].split()[0]
    cut = tmp_path / "cut.run"
    cut.write_text("".join(line + "\n" for line in lines if line.split()[0] != first))
    others = [str(RUNS["dense"]), str(RUNS["rerank"])]
    outcomes = [eg.evaluate(QRELS, [str(cut)], measures=["AP"]), eg.compare(QRELS, [str(cut), others[0]], ["AP"]),
                eg.metaeval(QRELS, [str(cut), *others], ["AP"], experiment="agreement")]
    for outcome in outcomes:
        python = [str(n) for n in outcome.notes if "skipped" in str(n)]
        assert python and all(n.endswith("use complete=True to score them 0") for n in python), outcome.notes
        assert "use complete=True" in repr(outcome.notes)          # printing the list reads the same
        assert any(n.endswith("use -c to score them 0") for n in outcome.notes_for_cli())
        window = [n for n in outcome.notes_for_window() if "skipped" in n]
        assert window and all("‘Score queries missing from a run as 0’" in n and "-c" not in n
                              and "complete=" not in n for n in window)
    # a note about a measure: the window names it as papers do, the command line and Python as asked for
    compared = eg.compare(QRELS, [str(cut), others[0]], ["map"])
    assert "AP: 49 of 50 queries" in "\n".join(compared.notes_for_window())
    assert "map: 49 of 50 queries" in "\n".join(compared.notes_for_cli()) and "'map: 49" in repr(compared.notes)
