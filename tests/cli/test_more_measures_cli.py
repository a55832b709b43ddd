"""`evalgui-cli evaluate` and `measures` take gdeval's, the C/W/L family's and ir_measures' other names."""

from __future__ import annotations

import csv
import io
import math

import pytest

from evalgui.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 1\n"
RUN = "1 Q0 d1 1 3.0 t\n1 Q0 d4 2 2.0 t\n1 Q0 d3 3 1.0 t\n2 Q0 d5 1 1.0 t\n2 Q0 d1 2 0.5 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_evaluate_takes_the_new_names(capsys, files):
    specs = ["ERR@20", 'nDCG(dcg="exp-log2")@10', "BPM(T=1.0,max_rel=2)@10", "INST(T=2,max_rel=2)",
             "NERR8(max_rel=2)@5", "SDCG(max_rel=2)@5", "Compat", "SetAP", "SetRelP", "Accuracy@5",
             "nDCG(judged_only=True)@10", "nDCG(gains={0:0,1:1,2:3})@10", "MAP", "err_cut.5", "insq.2"]
    argv = ["evaluate", *files, "--per-query", "--format", "tsv"]
    for spec in specs:
        argv += ["-m", spec]
    assert main(argv) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out), delimiter="\t"))[1:]
    values = {(q, m): float(v) for _, q, m, v in rows}
    assert {m for _, m in values} == set(specs[:-2]) | {"err_cut_5", "insq_2"}
    # query 1: d1 (grade 1) at rank 1, d3 (grade 2) at rank 3; ERR = 1/16 + (15/16)(3/16)/3
    assert values["1", "ERR@20"] == pytest.approx(1 / 16 + 15 / 16 * 3 / 16 / 3)
    assert values["1", "SetAP"] == pytest.approx(2 / 3 * 2 / 2)
    assert values["2", "Accuracy@5"] == pytest.approx(0.0)        # d5 (not relevant) above d1
    assert all(math.isfinite(v) for v in values.values())


@pytest.mark.parametrize("spec, words", [("ERR", "needs a cutoff"), ("INST(max_rel=1)@5", "takes no cutoff"),
                                         ("BPM(T=x,max_rel=2)@5", "not a number")])
def test_evaluate_refuses_in_one_line(capsys, files, spec, words):
    assert main(["evaluate", *files, "-m", spec]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and words in err


def test_measures_explains_them(capsys):
    assert main(["measures", "inst"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "inst  (ir_measures: INST(T=1,max_rel=M))" and "Formula: C(i) =" in out


def test_exponential_gains_refuse_huge_grades(capsys, tmp_path):
    (tmp_path / "q.txt").write_text("1 0 d1 2000\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 1.0 t\n")
    assert main(["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "nDCG(dcg='exp-log2')@5"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "up to 1000" in err
