"""evalgui-cli metaeval: each experiment's table, the plots' data (--matrix, --curves, --per-repetition),
seeds, the query policy, formats and bad input."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from evalgui.core.metaeval.catalogue import COLUMNS
from evalgui.core.resources import sample_data
from tests.test_cli import no_temp_files, run_cli, write

SYNTHETIC = sample_data("synthetic")
RUNS = [SYNTHETIC / f"{name}.run" for name in ("bm25", "dense", "rerank", "random")]
QRELS = SYNTHETIC / "qrels.txt"


def table(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out))


def metaeval(capsys, experiment: str, *argv, runs=RUNS):
    return run_cli(capsys, "metaeval", QRELS, *runs, "-m", "AP", "-m", "P@10", "--experiment", experiment, *argv)


def test_stability_rates_per_set_size(capsys):
    status, out, err = metaeval(capsys, "stability", "--set-size", "10", "--set-size", "25", "--sets", "300",
                                "--repetitions", "3", "--fuzziness", "0.1")
    frame = table(out)
    assert status == 0 and err == []
    assert list(frame.columns) == [*COLUMNS["stability"], "queries", "sets", "repetitions", "replacement", "seed"]
    assert frame[["measure", "set_size"]].values.tolist() == [["AP", 10], ["AP", 25], ["P@10", 10], ["P@10", 25]]
    assert (frame["fuzziness"] == 0.1).all() and (frame["sets"] == 300).all() and (frame["repetitions"] == 3).all()
    ap = frame[frame["measure"] == "AP"]
    assert ap["error_rate"].iloc[1] <= ap["error_rate"].iloc[0]


def test_stability_default_curve_and_the_better_worse_equal_matrix(capsys):
    status, out, _ = metaeval(capsys, "stability", "--sets", "100", "--repetitions", "2")
    assert status == 0 and table(out)["set_size"].tolist() == [5, 10, 15, 20, 25] * 2
    status, out, _ = metaeval(capsys, "stability", "--sets", "100", "--repetitions", "2", "--matrix", "P@10")
    matrix = table(out)
    assert status == 0
    assert list(matrix.columns) == ["measure", "system_a", "system_b", "better", "worse", "equal", "set_size"]
    assert len(matrix) == 12 and (matrix["set_size"] == 25).all() and (matrix["measure"] == "P@10").all()
    assert ((matrix["better"] + matrix["worse"] + matrix["equal"]) == 200).all()
    pairs = matrix.set_index(["system_a", "system_b"])
    assert pairs.loc[("rerank", "random"), "better"] == pairs.loc[("random", "rerank"), "worse"] == 200


def test_power_shares_and_curves_agree_with_compare(capsys):
    status, out, _ = metaeval(capsys, "power", "--test", "t", "--correction", "holm")
    frame = table(out)
    assert status == 0
    assert list(frame.columns[:7]) == list(COLUMNS["power"])
    status, compared, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--test", "t",
                                  "--correction", "holm")
    significant = table(compared).groupby("measure", sort=False)["significant"].sum()
    assert frame["significant_pairs"].tolist() == significant.tolist()
    assert frame["discriminative_power"].tolist() == pytest.approx((significant / 6 * 100).tolist())
    status, out, _ = metaeval(capsys, "power", "--samples", "200", "--curves")
    curves = table(out)
    assert status == 0 and list(curves.columns) == ["measure", "system_a", "system_b", "p_value", "p_adjusted",
                                                    "significant", "rank"]
    assert curves.groupby("measure")["p_value"].apply(lambda p: p.is_monotonic_increasing).all()


def test_robustness_fractions_and_repetitions(capsys):
    status, out, _ = metaeval(capsys, "robustness", "--fractions", "0.2,0.6", "--repetitions", "4", "--seed", "9")
    frame = table(out)
    assert status == 0
    assert list(frame.columns[:5]) == list(COLUMNS["robustness"])
    assert frame[["measure", "fraction"]].values.tolist() == [["AP", 0.2], ["AP", 0.6], ["P@10", 0.2], ["P@10", 0.6]]
    assert ((frame["kendall_tau"] >= -1) & (frame["kendall_tau"] <= 1)).all()
    assert (frame["repetitions"] == 4).all() and (frame["seed"] == 9).all()
    assert frame["judgments_kept"].tolist() == pytest.approx([80, 40, 80, 40], abs=1)
    status, out, _ = metaeval(capsys, "robustness", "--fractions", "0.2,0.6", "--repetitions", "4", "--seed", "9",
                              "--per-repetition")
    assert status == 0 and len(table(out)) == 2 * 2 * 4


def test_agreement_as_json(capsys):
    status, out, _ = metaeval(capsys, "agreement", "--format", "json")
    rows = json.loads(out)
    assert status == 0 and [(r["measure_a"], r["measure_b"]) for r in rows] == [
        ("AP", "AP"), ("AP", "P@10"), ("P@10", "AP"), ("P@10", "P@10")]
    assert rows[0]["pearson"] == 1.0 and rows[1]["sign_agreement"] == rows[2]["sign_agreement"]
    assert list(rows[0])[:5] == list(COLUMNS["agreement"])


def test_same_seed_same_bytes_and_the_file_is_written_atomically(capsys, tmp_path):
    args = ("--fractions", "0.5", "--repetitions", "3")
    first, second = tmp_path / "a.csv", tmp_path / "b.md"
    assert metaeval(capsys, "robustness", *args, "-o", first)[0] == 0
    assert metaeval(capsys, "robustness", *args, "-o", tmp_path / "again.csv")[0] == 0
    assert first.read_text() == (tmp_path / "again.csv").read_text()
    assert metaeval(capsys, "robustness", *args, "--seed", "1", "-o", tmp_path / "other.csv")[0] == 0
    assert first.read_text() != (tmp_path / "other.csv").read_text()
    status, out, _ = metaeval(capsys, "robustness", *args, "-o", second)
    assert status == 0 and out == "" and second.read_text().startswith("| measure | fraction |")
    assert no_temp_files(tmp_path)


def test_queries_every_run_has_or_zero_filled_with_c(capsys, tmp_path):
    qrels = write(tmp_path, "qrels", "1 0 d1 1\n2 0 d2 1\n3 0 d3 1\n1 0 d4 0\n")
    a = write(tmp_path, "a.run", "1 Q0 d1 1 1.0 a\n2 Q0 d2 1 1.0 a\n3 Q0 d9 1 1.0 a\n")
    b = write(tmp_path, "b.run", "1 Q0 d9 1 1.0 b\n2 Q0 d2 1 1.0 b\n")
    status, out, err = run_cli(capsys, "metaeval", qrels, a, b, "-m", "P@1", "--experiment", "agreement")
    assert status == 0 and table(out).loc[0, "queries"] == 2
    assert any("no results" in line and "b.run" in line for line in err)
    assert any("2 of 3 queries" in line and "b lacks 1" in line for line in err)
    status, out, err = run_cli(capsys, "metaeval", qrels, a, b, "-m", "P@1", "--experiment", "agreement", "-c")
    assert status == 0 and table(out).loc[0, "queries"] == 3


@pytest.mark.parametrize("argv, needle", [
    (["--experiment", "power", "--fractions", "0.5"], "--fractions is an option of --experiment robustness"),
    (["--experiment", "agreement", "--repetitions", "3"], "--repetitions is an option of --experiment stability or "
                                                          "robustness"),
    (["--experiment", "robustness", "--matrix", "AP"], "--matrix is an option of --experiment stability"),
    (["--experiment", "stability", "--set-size", "60"], "a query set of 60 cannot be drawn from the 50 queries"),
    (["--experiment", "stability", "--set-size", "0"], "--set-size 0: must be at least 1"),
    (["--experiment", "stability", "--fuzziness", "1.5"], "fuzziness"),
    (["--experiment", "stability", "--seed", "-1"], "--seed -1: must be at least 0"),
    (["--experiment", "robustness", "--seed", "-3"], "--seed -3: must be at least 0"),
    (["--experiment", "power", "--seed", "-3"], "--seed -3: must be at least 0"),
    (["--experiment", "stability", "--matrix", "nDCG"], "--matrix nDCG: not one of the measures (AP)"),
    (["--experiment", "robustness", "--fractions", "0.5,1"], "between 0 and 1"),
    (["--experiment", "power", "--alpha", "2"], "alpha"),
    (["--experiment", "power", "--samples", "0"], "samples"),
    (["--experiment", "agreement", "-m", "runid"], "'runid' is text"),
    (["--experiment", "agreement", "-m", "num_q"], "'num_q' has no per-query numbers"),
    (["--experiment", "agreement", "-m", "nosuch"], "nosuch"),
    (["--experiment", "stability", "--sets", "100000000000"],
     "--sets 100000000000: must be at most 10,000,000 (a limit that protects the running time)"),
    (["--experiment", "stability", "--repetitions", "100000"],
     "--repetitions 100000: must be at most 10,000 (a limit that protects the running time)"),
    (["--experiment", "stability", "--sets", "1000000", "--repetitions", "1000"],
     "query sets x repetitions can be at most 100,000,000"),
    (["--experiment", "stability", "--replacement", "--set-size", "10000000"],
     "--set-size 10000000: must be at most 1,000,000 (a limit that protects the running time)"),
    (["--experiment", "robustness", "--repetitions", "5000"], "(a limit that protects memory and the running time"),
    (["--experiment", "robustness", "--repetitions", "1000", "--fractions", ",".join(["0.5"] * 101)],
     "fractions x repetitions can be at most 100,000, not 101,000"),
    (["--experiment", "power", "--samples", "100000000000"],
     "--samples 100000000000: must be at most 10,000,000 (a limit that protects the running time)"),
])
def test_bad_requests_exit_2_with_one_line(capsys, argv, needle):
    status, out, err = run_cli(capsys, "metaeval", QRELS, *RUNS[:2], "-m", "AP", *argv)
    assert status == 2 and out == "" and len(err) == 1 and needle in err[0], err


@pytest.mark.parametrize("argv, needle", [
    (["--experiment", "robustness", "--fractions", "0.5,x"], "--fractions: numbers separated by commas"),
    (["--experiment", "nope"], "invalid choice: 'nope'"),
    ([], "the following arguments are required: --experiment"),
])
def test_bad_usage_stops_the_parser_with_one_line(capsys, argv, needle):
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "metaeval", QRELS, *RUNS[:2], "-m", "AP", *argv)
    err = capsys.readouterr().err.splitlines()
    assert info.value.code == 2 and len(err) == 1 and needle in err[0], err


def test_bad_input_exit_2_with_one_line(capsys, tmp_path):
    status, _, err = run_cli(capsys, "metaeval", QRELS, RUNS[0], "-m", "AP", "--experiment", "power")
    assert status == 2 and len(err) == 1 and "give QRELS and at least two RUNs, or --scores FILE" in err[0]
    status, _, err = run_cli(capsys, "metaeval", QRELS, *RUNS[:2], "--experiment", "power")
    assert status == 2 and len(err) == 1 and "choose the measures with -m" in err[0]
    status, _, err = run_cli(capsys, "metaeval", QRELS, RUNS[0], tmp_path / "missing.run", "-m", "AP",
                             "--experiment", "power")
    assert status == 2 and len(err) == 1 and "missing.run" in err[0]
    bad = write(tmp_path, "bad.run", "1 Q0 d1 1 x12 a\n")
    status, _, err = run_cli(capsys, "metaeval", QRELS, RUNS[0], bad, "-m", "AP", "--experiment", "power")
    assert status == 2 and len(err) == 1 and "bad.run, line 1" in err[0]
    qrels = write(tmp_path, "qrels", "1 0 d1 1\n2 0 d2 1\n")
    a = write(tmp_path, "a.run", "1 Q0 d1 1 1.0 a\n")
    b = write(tmp_path, "b.run", "2 Q0 d2 1 1.0 b\n")
    status, _, err = run_cli(capsys, "metaeval", qrels, a, b, "-m", "AP", "--experiment", "power")
    assert status == 2 and "no query is shared by every run" in err[-1]


def test_a_per_query_scores_file_gives_the_same_tables(capsys, tmp_path):
    scores = tmp_path / "scores.csv"
    assert run_cli(capsys, "evaluate", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--per-query", "-o", scores)[0] == 0
    for experiment, extra in (("power", ["--test", "t"]), ("agreement", []),
                              ("stability", ["--set-size", "20", "--sets", "200"])):
        status, from_runs, _ = metaeval(capsys, experiment, *extra)
        status_file, from_file, err = run_cli(capsys, "metaeval", "--scores", scores, "--experiment", experiment,
                                              *extra)
        assert status == status_file == 0 and err == []
        # the file holds 15 significant digits
        pd.testing.assert_frame_equal(table(from_file), table(from_runs), rtol=1e-9)
    status, out, _ = run_cli(capsys, "metaeval", "--scores", scores, "-m", "P@10", "--experiment", "power")
    assert status == 0 and table(out)["measure"].tolist() == ["P@10"]


@pytest.mark.parametrize("argv, needle", [
    (["--experiment", "robustness"], "robustness evaluates the runs again"),
    (["-m", "nDCG", "--experiment", "power"], "no per-query values of 'nDCG' (it has AP)"),
    (["QRELS", "--experiment", "power"], "with --scores FILE, give no QRELS or RUN"),
])
def test_scores_file_problems(capsys, tmp_path, argv, needle):
    scores = tmp_path / "scores.csv"
    assert run_cli(capsys, "evaluate", QRELS, *RUNS[:2], "-m", "AP", "--per-query", "-o", scores)[0] == 0
    argv = [str(QRELS) if a == "QRELS" else a for a in argv]
    status, out, err = run_cli(capsys, "metaeval", "--scores", scores, *argv)
    assert status == 2 and out == "" and len(err) == 1 and needle in err[0], err


@pytest.mark.parametrize("experiment, extra", [("stability", ["--set-size", "10", "--sets", "100"]),
                                               ("power", ["--test", "t"]), ("robustness", ["--fractions", "0.5"]),
                                               ("agreement", [])])
def test_preference_measures_in_every_experiment(capsys, experiment, extra):
    status, out, err = run_cli(capsys, "metaeval", QRELS, *RUNS, "-m", "AP", "-m", "rpp", "-m", "lexiprecision",
                               "--experiment", experiment, *extra)
    frame = table(out)
    assert status == 0 and err == []
    first = "measure_a" if experiment == "agreement" else "measure"
    assert list(dict.fromkeys(frame[first])) == ["AP", "rpp", "lexiprecision"]
    assert frame[list(COLUMNS[experiment])].notna().all().all() and (frame["queries"] == 50).all()


def test_preference_measures_as_papers_name_them(capsys):
    # RPP, Lexiprecision (any case) are rpp, lexiprecision: the same output, with the registered names
    argv = ["--experiment", "stability", "--set-size", "5", "--sets", "50", "--repetitions", "2"]
    status, out, err = run_cli(capsys, "metaeval", QRELS, *RUNS, "-m", "RPP", "-m", "LEXIPRECISION", *argv)
    assert status == 0 and err == []
    assert run_cli(capsys, "metaeval", QRELS, *RUNS, "-m", "rpp", "-m", "lexiprecision", *argv)[1] == out
    assert list(dict.fromkeys(table(out)["measure"])) == ["rpp", "lexiprecision"]
    status, matrix, _ = run_cli(capsys, "metaeval", QRELS, *RUNS, "-m", "rpp", *argv, "--matrix", "RPP")
    assert status == 0 and set(table(matrix)["measure"]) == {"rpp"}


def test_the_better_worse_equal_matrix_of_a_preference(capsys):
    status, out, _ = run_cli(capsys, "metaeval", QRELS, *RUNS, "-m", "rpp", "--experiment", "stability",
                             "--set-size", "5", "--sets", "50", "--repetitions", "2", "--matrix", "rpp")
    matrix = table(out)
    assert status == 0 and len(matrix) == 12 and ((matrix["better"] + matrix["worse"] + matrix["equal"]) == 100).all()
    pairs = matrix.set_index(["system_a", "system_b"])
    assert pairs.loc[("rerank", "random"), "better"] == pairs.loc[("random", "rerank"), "worse"]
