"""Tests for evalgui.cli: main(argv) in-process, plus one real subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from evalgui.cli import main

# Query 1: relevant d1 (grade 1) and d3 (grade 2), d2 judged non-relevant; ranking d1, d4 (unjudged), d3.
#          AP = (1/1 + 2/3) / 2 = 5/6.
# Query 2: relevant d1; ranking d5 (unjudged), d1.  AP = (1/2) / 1 = 1/2.
# MAP = (5/6 + 1/2) / 2 = 2/3.
QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 1\n"
RUN = "1 Q0 d1 1 3.0 tagA\n1 Q0 d4 2 2.0 tagA\n1 Q0 d3 3 1.0 tagA\n2 Q0 d5 1 1.0 tagA\n2 Q0 d1 2 0.5 tagB\n"
QRELS_WITH_TOPIC_3 = QRELS + "3 0 d9 1\n"  # topic 3 has no results in RUN


# ---------------------------------------------------------------- helpers

def write(folder, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)


def run_cli(capsys, *argv, caveats: bool = False):
    """main(argv) -> (status, stdout, stderr lines). The results' ``caveat:`` lines (the advisor's, tested in
    tests/cli/test_caveats_cli.py) are left out unless ``caveats``: these tests check the other messages."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, [l for l in err.splitlines() if caveats or not l.startswith("caveat: ")]


def line(name: str, qid: str, value: float) -> str:
    return "%-22s\t%s\t%6.4f" % (name, qid, value)


def values(out: str) -> dict[tuple[str, str], str]:
    """trec_eval output -> {(measure, query): value text}."""
    rows = [l.split("\t") for l in out.splitlines()]
    assert all(len(r) == 3 for r in rows), out
    return {(m.strip(), q): v for m, q, v in rows}


def no_temp_files(folder) -> bool:
    return not [p for p in os.listdir(folder) if p.startswith(".evalgui-")]


# ---------------------------------------------------------------- trec_eval

def test_trec_eval_map_line_exact(capsys, files):
    status, out, err = run_cli(capsys, "trec_eval", *files)
    assert status == 0 and err == []
    assert "map                   \tall\t0.6667" in out.splitlines()
    assert line("map", "all", (5 / 6 + 1 / 2) / 2) in out.splitlines()


def test_trec_eval_official_measures(capsys, files):
    status, out, _ = run_cli(capsys, "trec_eval", *files)
    v = values(out)
    assert out.splitlines()[0] == "runid                 \tall\ttagB"  # tag of the last run line
    assert v["num_q", "all"] == "2"
    assert v["num_ret", "all"] == "5"
    assert v["num_rel", "all"] == "3"
    assert v["num_rel_ret", "all"] == "3"
    assert v["P_5", "all"] == "0.3000"
    assert v["P_10", "all"] == "0.1500"
    assert v["recip_rank", "all"] == "0.7500"
    assert {m for m, q in v} >= {"gm_map", "Rprec", "bpref", "iprec_at_recall_0.00", "P_1000"}


def test_trec_eval_every_line_has_the_format(capsys, files):
    _, out, _ = run_cli(capsys, "trec_eval", "-q", *files)
    for text in out.splitlines():
        name, qid, value = text.split("\t")
        assert len(name) >= 22 and name == name.rstrip().ljust(22)
        assert qid in ("1", "2", "all")


def test_trec_eval_per_query(capsys, files):
    status, out, _ = run_cli(capsys, "trec_eval", "-q", "-m", "map", *files)
    assert status == 0
    assert out.splitlines() == [line("map", "1", 5 / 6), line("map", "2", 0.5), line("map", "all", 2 / 3)]


def test_trec_eval_no_summary(capsys, files):
    status, out, _ = run_cli(capsys, "trec_eval", "-q", "-n", "-m", "map", *files)
    assert status == 0
    assert out.splitlines() == [line("map", "1", 5 / 6), line("map", "2", 0.5)]


def test_trec_eval_no_summary_without_per_query_prints_nothing(capsys, files):
    status, out, _ = run_cli(capsys, "trec_eval", "-n", "-m", "map", *files)
    assert (status, out) == (0, "")


def test_trec_eval_measure_with_cutoffs(capsys, files):
    status, out, _ = run_cli(capsys, "trec_eval", "-m", "P.5,10", *files)
    assert status == 0
    assert out.splitlines() == [line("P_5", "all", 0.3), line("P_10", "all", 0.15)]


def test_trec_eval_relevance_level(capsys, files):
    # With -l 2 only d3 (query 1) is relevant: P_5 = (1/5 + 0) / 2.
    status, out, _ = run_cli(capsys, "trec_eval", "-l", "2", "-q", "-m", "num_rel", "-m", "P.5", "-m", "map", *files)
    v = values(out)
    assert status == 0
    assert v["num_rel", "all"] == "1"
    assert v["map", "1"] == "0.3333"
    assert v["P_5", "all"] == "0.1000"


def test_trec_eval_max_retrieved(capsys, files):
    # With -M 1: query 1 keeps d1 (AP 1/2), query 2 keeps d5 (AP 0).
    status, out, _ = run_cli(capsys, "trec_eval", "-M", "1", "-m", "num_ret", "-m", "map", *files)
    assert status == 0
    assert out.splitlines() == ["num_ret               \tall\t2", line("map", "all", 0.25)]


def test_trec_eval_negative_max_retrieved(capsys, files):
    status, out, err = run_cli(capsys, "trec_eval", "-M", "-1", *files)
    assert status == 2 and out == "" and len(err) == 1 and "-M" in err[0]


def test_trec_eval_missing_topic_without_c_warns(capsys, tmp_path):
    qrels, run = write(tmp_path, "q.txt", QRELS_WITH_TOPIC_3), write(tmp_path, "r.txt", RUN)
    status, out, err = run_cli(capsys, "trec_eval", "-m", "map", "-m", "num_q", qrels, run)
    assert status == 0
    assert out.splitlines() == ["num_q                 \tall\t2", line("map", "all", 2 / 3)]
    assert len(err) == 1 and "warning" in err[0] and "(3)" in err[0] and "-c" in err[0]


def test_trec_eval_complete_scores_missing_topic_zero(capsys, tmp_path):
    qrels, run = write(tmp_path, "q.txt", QRELS_WITH_TOPIC_3), write(tmp_path, "r.txt", RUN)
    status, out, err = run_cli(capsys, "trec_eval", "-c", "-q", "-m", "map", "-m", "P.5", qrels, run)
    assert status == 0 and err == []
    lines = out.splitlines()
    assert line("map", "3", 0.0) in lines
    assert line("P_5", "3", 0.0) in lines
    assert line("map", "all", (5 / 6 + 1 / 2 + 0) / 3) in lines


def test_trec_eval_unknown_measure(capsys, files):
    status, out, err = run_cli(capsys, "trec_eval", "-m", "mapp", *files)
    assert status == 2 and out == ""
    assert len(err) == 1 and "'mapp'" in err[0]


def test_trec_eval_bad_run_file(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3.0 t\n\n1 Q0 d2 2 high t\n")
    status, out, err = run_cli(capsys, "trec_eval", qrels, run)
    assert status == 2 and out == ""
    assert len(err) == 1 and run in err[0] and "line 3" in err[0] and "'high'" in err[0]


def test_trec_eval_bad_qrels_file(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", "1 0 d1 1\n1 0 d2 1.5\n")
    status, out, err = run_cli(capsys, "trec_eval", qrels, write(tmp_path, "r.txt", RUN))
    assert status == 2 and out == ""
    assert len(err) == 1 and qrels in err[0] and "line 2" in err[0]


def test_trec_eval_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nope.txt")
    status, _, err = run_cli(capsys, "trec_eval", missing, write(tmp_path, "r.txt", RUN))
    assert status == 2 and len(err) == 1 and missing in err[0]


def test_trec_eval_no_common_queries(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", "9 0 d1 1\n")
    status, out, err = run_cli(capsys, "trec_eval", qrels, write(tmp_path, "r.txt", RUN))
    assert status == 2 and out == ""
    assert "error" in err[-1] and "no queries" in err[-1]


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["trec_eval"])
    assert info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "error" in err[0]


def test_no_command(capsys):
    assert main([]) == 2


# ---------------------------------------------------------------- evaluate

def read_table(text: str, sep: str = ",") -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep=sep, dtype={"query": str})


def test_evaluate_csv_summary(capsys, files):
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "map", "-m", "P.5")
    assert status == 0 and err == []
    table = read_table(out)
    assert list(table.columns) == ["run", "query", "measure", "value"]
    assert table.to_dict("records") == [
        {"run": "run", "query": "all", "measure": "map", "value": pytest.approx(2 / 3, abs=1e-15)},
        {"run": "run", "query": "all", "measure": "P_5", "value": pytest.approx(0.3)},
    ]


def test_evaluate_per_query(capsys, files):
    status, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--per-query")
    table = read_table(out)
    assert status == 0
    assert table["query"].tolist() == ["1", "2", "all"]
    assert table["value"].tolist() == pytest.approx([5 / 6, 0.5, 2 / 3])


def test_evaluate_default_measures_are_official(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files)
    measures = read_table(out)["measure"].tolist()
    assert "map" in measures and "P_10" in measures and "runid" not in measures


def test_evaluate_tsv(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--format", "tsv")
    assert out.splitlines()[0] == "run\tquery\tmeasure\tvalue"
    assert read_table(out, sep="\t")["value"].tolist() == pytest.approx([2 / 3])


def test_evaluate_json(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--per-query", "--format", "json")
    records = json.loads(out)
    assert [(r["run"], r["query"], r["measure"]) for r in records] == [
        ("run", "1", "map"), ("run", "2", "map"), ("run", "all", "map")]
    assert records[-1]["value"] == pytest.approx(2 / 3, abs=1e-9)


def test_evaluate_json_fifteen_significant_digits(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--format", "json")
    assert json.loads(out)[0]["value"] == 0.666666666666667


def test_evaluate_markdown(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--format", "markdown")
    assert out.splitlines() == ["| run | query | measure | value |", "|:---|:---|:---|---:|",
                                "| run | all | map | 0.6667 |"]


def test_evaluate_latex(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "map", "--format", "latex")
    lines = out.splitlines()
    assert lines[0] == "\\begin{tabular}{lllr}" and lines[-1] == "\\end{tabular}"
    assert "run & all & map & 0.6667 \\\\" in lines


def test_evaluate_latex_escapes_underscore(capsys, files):
    _, out, _ = run_cli(capsys, "evaluate", *files, "-m", "P.5", "--format", "latex")
    assert "run & all & P\\_5 & 0.3000 \\\\" in out.splitlines()


def test_evaluate_output_file(capsys, files, tmp_path):
    target = tmp_path / "out" / "results.csv"
    target.parent.mkdir()
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "map", "--per-query", "-o", target)
    assert (status, out, err) == (0, "", [])
    table = pd.read_csv(target, dtype={"query": str})
    assert list(table.columns) == ["run", "query", "measure", "value"]
    assert table["query"].tolist() == ["1", "2", "all"]
    assert table.loc[table["query"] == "all", "value"].item() == pytest.approx(2 / 3)
    assert no_temp_files(target.parent)


@pytest.mark.parametrize("name, first_line", [("r.md", "| run | query | measure | value |"),
                                               ("r.tex", "\\begin{tabular}{lllr}"),
                                               ("r.tsv", "run\tquery\tmeasure\tvalue")])
def test_evaluate_format_from_output_extension(capsys, files, tmp_path, name, first_line):
    target = tmp_path / name
    assert run_cli(capsys, "evaluate", *files, "-m", "map", "-o", target)[0] == 0
    assert target.read_text().splitlines()[0] == first_line


def test_evaluate_ir_measures_names(capsys, files):
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "P@5", "-m", "nDCG@10", "-m", "P(rel=2)@5",
                               "--per-query")
    assert status == 0 and err == []
    table = read_table(out).set_index(["query", "measure"])["value"]
    assert table["all", "P@5"] == pytest.approx(0.3)
    # Query 1: DCG = 1/log2(2) + 2/log2(4) = 2; ideal 2/log2(2) + 1/log2(3).
    assert table["1", "nDCG@10"] == pytest.approx(2 / (2 + 1 / 1.584962500721156))
    # Only d3 (query 1) has grade >= 2.
    assert table["1", "P(rel=2)@5"] == pytest.approx(0.2)
    assert table["all", "P(rel=2)@5"] == pytest.approx(0.1)


def test_evaluate_ap_norm_retrieved(capsys, tmp_path):
    # d7 is relevant but never retrieved: AP = (1 + 2/3) / 3, AP(norm=retrieved) = (1 + 2/3) / 2.
    qrels = write(tmp_path, "q.txt", QRELS + "1 0 d7 1\n")
    status, out, _ = run_cli(capsys, "evaluate", qrels, write(tmp_path, "r.txt", RUN),
                             "-m", "AP", "-m", "AP(norm=retrieved)", "--per-query")
    table = read_table(out).set_index(["query", "measure"])["value"]
    assert status == 0
    assert table["1", "AP"] == pytest.approx(5 / 9)
    assert table["1", "AP(norm=retrieved)"] == pytest.approx(5 / 6)


def test_evaluate_same_file_name_in_two_folders(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    a, b = write(tmp_path, "a/run.txt", RUN), write(tmp_path, "b/run.txt", RUN)
    status, out, _ = run_cli(capsys, "evaluate", qrels, a, b, "-m", "map")
    assert status == 0
    assert read_table(out)["run"].tolist() == ["a/run", "b/run"]           # as the window names them


def test_evaluate_missing_topic_warns(capsys, tmp_path):
    qrels, run = write(tmp_path, "q.txt", QRELS_WITH_TOPIC_3), write(tmp_path, "r.txt", RUN)
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "map")
    assert status == 0 and len(err) == 1 and "warning" in err[0] and run in err[0]
    assert read_table(out)["value"].tolist() == pytest.approx([2 / 3])


def test_evaluate_complete(capsys, tmp_path):
    qrels, run = write(tmp_path, "q.txt", QRELS_WITH_TOPIC_3), write(tmp_path, "r.txt", RUN)
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "map", "-c", "--per-query")
    table = read_table(out).set_index("query")["value"]
    assert status == 0 and err == []
    assert table["3"] == 0.0 and table["all"] == pytest.approx(4 / 9)


def test_evaluate_unknown_measure_suggests(capsys, files):
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "mapp")
    assert status == 2 and out == ""
    assert len(err) == 1 and "'mapp'" in err[0] and "did you mean" in err[0] and "map" in err[0]


def test_evaluate_unknown_ir_measure_suggests(capsys, files):
    status, _, err = run_cli(capsys, "evaluate", *files, "-m", "nDGC@10")
    assert status == 2 and len(err) == 1 and "nDCG" in err[0]


def test_evaluate_bad_input_file(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n1 Q0 d1 3 1 t\n")
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "map")
    assert status == 2 and out == ""
    assert len(err) == 1 and run in err[0] and "line 3" in err[0]


def test_evaluate_csv_qrels(capsys, tmp_path):
    qrels = write(tmp_path, "q.csv", "query,doc,rel\n1,d1,1\n1,d2,0\n1,d3,2\n2,d1,1\n")
    status, out, err = run_cli(capsys, "evaluate", qrels, write(tmp_path, "r.txt", RUN), "-m", "map")
    assert (status, err) == (0, [])
    assert read_table(out)["value"].tolist() == pytest.approx([2 / 3])


def test_evaluate_output_into_missing_folder(capsys, files, tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "out.csv"
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "map", "-o", target)
    assert status == 2 and out == ""
    assert len(err) == 1 and "error" in err[0]
    assert not (tmp_path / "no").exists()


def test_evaluate_output_into_missing_folder_names_the_file(capsys, files, tmp_path):
    target = tmp_path / "missing" / "out.csv"
    _, _, err = run_cli(capsys, "evaluate", *files, "-m", "map", "-o", target)
    assert str(target) in err[0] and ".tmp" not in err[0]


def test_existing_output_kept_when_evaluation_fails(capsys, tmp_path):
    target = tmp_path / "results.csv"
    target.write_text("previous results\n")
    qrels, bad_run = write(tmp_path, "q.txt", QRELS), write(tmp_path, "r.txt", "1 Q0 d1 1 nan t\n")
    status, _, err = run_cli(capsys, "evaluate", qrels, bad_run, "-m", "map", "-o", target)
    assert status == 2 and len(err) == 1
    assert target.read_text() == "previous results\n"
    assert no_temp_files(tmp_path)


def test_existing_output_kept_when_the_write_fails(capsys, files, tmp_path, monkeypatch):
    target = tmp_path / "results.csv"
    target.write_text("previous results\n")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(os, "replace", failing_replace)
    status, _, err = run_cli(capsys, "evaluate", *files, "-m", "map", "-o", target)
    monkeypatch.undo()
    assert status == 2 and len(err) == 1 and "No space left" in err[0]
    assert target.read_text() == "previous results\n"
    assert no_temp_files(tmp_path)


def test_existing_output_replaced_on_success(capsys, files, tmp_path):
    target = tmp_path / "results.csv"
    target.write_text("previous results\n")
    assert run_cli(capsys, "evaluate", *files, "-m", "map", "-o", target)[0] == 0
    assert target.read_text().splitlines()[0] == "run,query,measure,value"


def test_evaluate_relevant_list_qrels_with_topic(capsys, tmp_path):
    qrels = write(tmp_path, "relevant.txt", "d1 # first\nd3\n")
    status, out, _ = run_cli(capsys, "evaluate", qrels, write(tmp_path, "r.txt", RUN), "-m", "map",
                             "--topic", "1", "--per-query")
    table = read_table(out).set_index("query")["value"]
    assert status == 0 and table["1"] == pytest.approx(5 / 6)


# ---------------------------------------------------------------- measures

def test_measures_lists_names(capsys):
    status, out, _ = run_cli(capsys, "measures")
    names = [l.split()[0] for l in out.splitlines() if l.strip()]
    assert status == 0
    assert {"map", "P", "ndcg_cut", "recip_rank", "bpref", "num_q", "randomization", "holm"} <= set(names)
    assert any(l.startswith("map ") and "[AP]" in l for l in out.splitlines())


def test_measures_one(capsys):
    status, out, _ = run_cli(capsys, "measures", "map")
    assert status == 0
    assert out.splitlines()[0] == "map  (ir_measures: AP)"
    assert "Average precision" in out
    assert "Formula: AP = (1/R) * sum_{k : d_k relevant} P@k" in out


def test_measures_unknown(capsys):
    status, out, err = run_cli(capsys, "measures", "nosuch")
    assert status == 2 and out == "" and len(err) == 1 and "nosuch" in err[0]


# ---------------------------------------------------------------- a real process

def test_subprocess_bad_file_one_line_no_traceback(tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 t\n1 Q0 d2 2\n")
    proc = subprocess.run([sys.executable, "-m", "evalgui.cli", "trec_eval", qrels, run],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert run in proc.stderr and "line 2" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


# ---------------------------------------------------------------- found in review

@pytest.mark.parametrize("spec, words", [
    ("RBP(p=abc)", "'abc' is not a number"),
    ("RBP(p=1.5)", "p must be from 0 to 1 (excluded)"),
    ("IPrec@2", "the cutoff must be from 0 to 1"),
    ("SetF(beta=-1)", "beta must be from 0 up"),
])
def test_bad_measure_parameters_are_usage_errors(capsys, tmp_path, spec, words):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 1.0 t\n")
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", spec)
    assert status == 2 and out == "" and len(err) == 1 and words in err[0]


def test_evaluate_needs_a_query_in_common(capsys, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    lonely, fine = tmp_path / "lonely.run", tmp_path / "fine.run"
    lonely.write_text("9 Q0 a 1 1.0 t\n")
    fine.write_text("1 Q0 a 1 1.0 t\n")
    status, out, err = run_cli(capsys, "evaluate", qrels, lonely, "-m", "P@1")
    assert status == 2 and out == "" and len(err) == 1 and "no query has both results and relevance" in err[0]
    status, out, err = run_cli(capsys, "evaluate", qrels, lonely, fine, "-m", "P@1")
    assert status == 0 and err == [f"evalgui-cli: warning: {lonely} has no query in {qrels}; its values are 0"]
    assert "fine,all,P@1,1.0" in out


def test_a_measure_asked_for_twice_is_written_once(capsys, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n")
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P.10", "-m", "P.5,10", "--per-query")
    rows = out.splitlines()[1:]
    assert status == 0 and len(rows) == len(set(rows))
    assert sorted(rows) == ["r,1,P_10,0.1", "r,1,P_5,0.2", "r,all,P_10,0.1", "r,all,P_5,0.2"]


def test_json_output_writes_missing_values_as_null():
    import numpy as np
    import pandas as pd

    from evalgui.core.export import to_text

    frame = pd.DataFrame({"query": ["a", "b", "c"], "value": [0.5, np.nan, np.inf],
                          "rank": pd.array([1, None, 3], dtype="Int64")})
    assert json.loads(to_text(frame, "json")) == [{"query": "a", "value": 0.5, "rank": 1},
                                                  {"query": "b", "value": None, "rank": None},
                                                  {"query": "c", "value": None, "rank": 3}]


def test_gzipped_files_are_sniffed_from_their_head(tmp_path):
    import gzip

    from evalgui.core.formats import read_run
    from evalgui.core.inputs import qrels_or_run as detect_kind

    path = tmp_path / "run.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.writelines(f"q{i % 7} Q0 d{i} 1 {1 / (i + 1)!r} tag\n" for i in range(40_000))
    assert detect_kind(path) == "run"
    assert len(read_run(path)) == 40_000


def test_a_negative_relevance_level_is_refused(capsys, files):
    # trec_eval would count documents outside the qrels as relevant in the ranking only (MAP above 1).
    status, out, err = run_cli(capsys, "trec_eval", "-l", "-1", *files)
    assert status == 2 and out == "" and err == ["evalgui-cli: error: -l -1: must be at least 0"]


def test_dcg_ideal_dcg_and_yaap_print_as_trec_eval_does(capsys, files):
    status, out, err = run_cli(capsys, "trec_eval", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", *files)
    assert status == 0 and err == []
    assert [l.split("\t")[0].strip() for l in out.splitlines()] == ["dcg", "ideal_dcg", "yaap"]
    status, out, _ = run_cli(capsys, "trec_eval", "-m", "all_trec", *files)
    assert status == 0 and not {"dcg", "ideal_dcg", "yaap"} & {l.split("\t")[0].strip() for l in out.splitlines()}
