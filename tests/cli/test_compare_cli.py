"""evalgui-cli compare: the tidy table, pair order, baselines, --scores, -c, the paper table, bad input."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from scipy import stats

from evalgui.core.resources import sample_data
from tests.test_cli import run_cli, write

SYNTHETIC = sample_data("synthetic")
RUNS = [SYNTHETIC / f"{name}.run" for name in ("bm25", "dense", "rerank", "random")]
QRELS = SYNTHETIC / "qrels.txt"


def table(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out))


def test_all_pairs_in_the_order_given_with_scipys_t_test(capsys, tmp_path):
    status, out, err = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--correction", "none")
    assert status == 0 and err == []
    frame = table(out)
    assert list(frame.columns[:16]) == ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                                        "effect_size", "p_value", "p_adjusted", "significant", "wins", "ties",
                                        "losses", "n_queries"]
    assert list(frame.columns[16:]) == ["test", "samples", "seed", "correction", "alpha", "queries"]
    assert frame[["run_a", "run_b"]].head(6).values.tolist() == [
        ["bm25", "dense"], ["bm25", "rerank"], ["bm25", "random"], ["dense", "rerank"], ["dense", "random"],
        ["rerank", "random"]]
    assert frame["measure"].tolist() == ["AP"] * 6 + ["P@10"] * 6
    # the p-value is scipy's on the per-query values evaluate writes
    status, per_query, _ = run_cli(capsys, "evaluate", QRELS, *RUNS[:2], "-m", "AP", "--per-query")
    values = table(per_query)
    values = values[values["query"] != "all"].pivot(index="query", columns="run", values="value")
    expected = stats.ttest_rel(values["bm25"], values["dense"]).pvalue
    assert frame.loc[0, "p_value"] == pytest.approx(expected, rel=1e-12)
    assert frame.loc[0, "diff"] == pytest.approx(values["bm25"].mean() - values["dense"].mean())
    assert frame.loc[0, "n_queries"] == 50 and frame.loc[0, "test"] == "t"


def test_baselines_first_and_scores_file_gives_the_same_table(capsys, tmp_path):
    args = ["-m", "AP", "--test", "randomization", "--samples", "2000", "--seed", "3",
            "--baseline", "rerank", "--baseline", "bm25"]
    status, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, *args)
    frame = table(out)
    assert status == 0
    assert frame[["run_a", "run_b"]].values.tolist() == [
        ["rerank", "bm25"], ["rerank", "dense"], ["rerank", "random"], ["bm25", "dense"], ["bm25", "random"]]
    assert (frame["samples"] == 2000).all() and (frame["seed"] == 3).all()
    scores = tmp_path / "scores.csv"
    assert run_cli(capsys, "evaluate", QRELS, *RUNS, "-m", "AP", "--per-query", "-o", scores)[0] == 0
    status, again, _ = run_cli(capsys, "compare", "--scores", scores, *args)
    # the file holds 15 significant digits, so the last digit of a difference may move
    assert status == 0
    pd.testing.assert_frame_equal(table(again), frame, rtol=1e-12)


def test_baseline_by_file_name(capsys):
    status, out, _ = run_cli(capsys, "compare", QRELS, *RUNS[:3], "-m", "AP", "--baseline", RUNS[2])
    assert status == 0 and table(out)["run_a"].tolist() == ["rerank", "rerank"]


def test_query_policy_is_explicit(capsys, tmp_path):
    qrels = write(tmp_path, "qrels", "1 0 d1 1\n2 0 d2 1\n3 0 d3 1\n")
    a = write(tmp_path, "a.run", "1 Q0 d1 1 1.0 a\n2 Q0 d2 1 1.0 a\n3 Q0 d9 1 1.0 a\n")
    b = write(tmp_path, "b.run", "1 Q0 d9 1 1.0 b\n2 Q0 d2 1 1.0 b\n")
    status, out, err = run_cli(capsys, "compare", qrels, a, b, "-m", "P@1")
    frame = table(out)
    assert status == 0 and frame.loc[0, "n_queries"] == 2 and frame.loc[0, "queries"] == "shared"
    assert any("2 of 3 queries" in line and "b lacks 1" in line for line in err)
    status, out, err = run_cli(capsys, "compare", qrels, a, b, "-m", "P@1", "-c")
    frame = table(out)
    assert frame.loc[0, "n_queries"] == 3 and frame.loc[0, "queries"] == "zero-filled"
    assert (frame.loc[0, "wins"], frame.loc[0, "ties"], frame.loc[0, "losses"]) == (1, 2, 0)


def test_paper_table(capsys, tmp_path):
    out_file = tmp_path / "table.tex"
    status, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--paper", "-o", out_file)
    text = out_file.read_text()
    assert status == 0 and out == ""
    assert text.startswith("\\begin{tabular}{lrr}")
    assert "(c) rerank & \\textbf{0.5422}$^{abd}$" in text
    assert "% Superscripts: runs this one beats significantly; t, correction holm, alpha = 0.05, 50 queries" in text
    status, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "--paper", "--format", "markdown")
    assert "| (a) bm25 | 0.4479<sup>d</sup> |" in out


@pytest.mark.parametrize("argv, needle", [
    (["-m", "AP"], "at least two RUNs"),
    (["RUN2"], "choose the measures"),
    (["RUN2", "-m", "AP", "--baseline", "nosuch"], "baseline 'nosuch'"),
    (["RUN2", "-m", "AP", "--alpha", "2"], "alpha"),
    (["RUN2", "-m", "AP", "--samples", "0"], "samples"),
    (["RUN2", "-m", "AP", "--paper"], "--paper writes LaTeX or Markdown"),
    (["RUN2", "-m", "runid"], "'runid' is text"),
    (["RUN2", "-m", "AP", "--test", "bootstrap", "--samples", "100000000000"],
     "--samples 100000000000: must be at most 10,000,000 (a limit that protects the running time)"),
    (["RUN2", "-m", "AP", "--tie-tolerance", "nan"], "--tie-tolerance nan: 'nan' is not a finite number"),
    (["RUN2", "-m", "AP", "--tie-tolerance", "inf"], "--tie-tolerance inf: 'inf' is not a finite number"),
])
def test_bad_requests_exit_2_with_one_line(capsys, argv, needle):
    argv = [str(RUNS[1]) if a == "RUN2" else a for a in argv]
    status, out, err = run_cli(capsys, "compare", QRELS, RUNS[0], *argv)
    assert status == 2 and out == "" and len(err) == 1 and needle in err[0], err


def test_scores_file_problems(capsys, tmp_path):
    only_all = write(tmp_path, "s.csv", "run,query,measure,value\na,all,AP,0.5\nb,all,AP,0.4\n")
    status, _, err = run_cli(capsys, "compare", "--scores", only_all)
    assert status == 2 and len(err) == 1 and "only summary rows" in err[0]
    scores = write(tmp_path, "t.csv", "run,query,measure,value\na,1,AP,0.5\nb,1,AP,0.4\na,2,AP,0.1\nb,2,AP,0.3\n")
    status, _, err = run_cli(capsys, "compare", "--scores", scores, "-m", "P@5")
    assert status == 2 and "no per-query values of 'P@5'" in err[0]
    status, _, err = run_cli(capsys, "compare", "--scores", scores, QRELS)
    assert status == 2 and "with --scores" in err[0]
    status, out, err = run_cli(capsys, "compare", "--scores", scores, "--test", "sign")
    assert status == 0 and table(out).loc[0, "p_value"] == 1.0


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"])
def test_one_query_leaves_p_empty_with_a_warning(capsys, tmp_path, test):
    scores = write(tmp_path, "one.csv", "run,query,measure,value\na,1,AP,0.5\nb,1,AP,0.4\nc,1,AP,0.1\n")
    status, out, err = run_cli(capsys, "compare", "--scores", scores, "--test", test)
    frame = table(out)
    assert status == 0 and frame["p_value"].isna().all() and frame["p_adjusted"].isna().all()
    assert ",,," in out.splitlines()[1] or out.splitlines()[1].count(",,") >= 1     # empty cells in the CSV
    assert not frame["significant"].any()
    assert len(err) == 1 and "only one query" in err[0] and "undefined" in err[0], err
