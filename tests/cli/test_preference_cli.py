"""evalgui-cli preference: columns, pair order, --per-query, --binary-threshold, formats, bad input."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_process_exit import cli
from tests.test_cli import read_table, run_cli, write

# Query 1: a (grade 1), b and c (grade 2). Query 2: x (grade 1). Query 3: nothing relevant (left out).
QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 2\n1 0 d 0\n2 0 x 1\n3 0 z 0\n"
# Ranks in query 1: A b 1, a 2, c 4; B a 1, c 2, b 3; C c 1, b 2 (a missed). B has no query 2.
RUN_A = "1 Q0 b 1 9 A\n1 Q0 a 2 8 A\n1 Q0 e 3 7 A\n1 Q0 c 4 6 A\n2 Q0 y 1 5 A\n2 Q0 x 2 4 A\n"
RUN_B = "1 Q0 a 1 9 B\n1 Q0 c 2 8 B\n1 Q0 b 3 7 B\n"
RUN_C = "1 Q0 c 1 9 C\n1 Q0 b 2 8 C\n2 Q0 x 1 1 C\n"


@pytest.fixture
def files(tmp_path):
    return (write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "sysA.run", RUN_A),
            write(tmp_path, "sysB.run", RUN_B), write(tmp_path, "sysC.run", RUN_C))


def test_columns_and_pairs_in_the_order_given(capsys, files):
    qrels, a, b, c = files
    status, out, err = run_cli(capsys, "preference", qrels, c, a, b, "-m", "rpp")
    assert status == 0
    assert out.splitlines()[0] == "measure,run_a,run_b,query,value"
    table = read_table(out)
    assert table[["run_a", "run_b"]].values.tolist() == [["sysC", "sysA"], ["sysC", "sysB"], ["sysA", "sysB"]]
    assert set(table["query"]) == {"all"} and set(table["measure"]) == {"rpp"}
    # Graded RPP, A over B: query 1 (3 * -1/3 + 2 * 0) / 5 = -0.2, query 2 (B has none) 1: mean 0.4.
    assert table["value"].iloc[2] == pytest.approx(0.4)
    assert err == [f"evalgui-cli: warning: 1 query with relevant documents has no results in {b}: counted as "
                   "retrieving nothing (2)"]


def test_every_measure_by_default_and_per_query(capsys, files):
    qrels, a, b, _ = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "--per-query")
    table = read_table(out)
    assert status == 0
    assert list(dict.fromkeys(table["measure"])) == ["rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision"]
    assert table["query"].tolist() == ["1", "2", "all"] * 5           # per pair: its queries, then the mean
    rpp = table[table["measure"] == "rpp"].set_index("query")["value"]
    assert rpp.to_dict() == pytest.approx({"1": -0.2, "2": 1.0, "all": 0.4})


def test_binary_threshold(capsys, files):
    qrels, a, b, _ = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "rpp", "--binary-threshold", "2",
                             "--per-query")
    table = read_table(out)
    assert status == 0 and table["query"].tolist() == ["1", "all"]    # query 2's only grade is 1
    assert table["value"].tolist() == [0.0, 0.0]                       # A [1, 4] against B [2, 3]
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "rpp", "--binary-threshold", "1")
    assert read_table(out)["value"].tolist() == [pytest.approx(1 / 3)]  # (-1/3 + 1) / 2


def test_measures_in_the_order_asked_and_duplicate_run_names(capsys, files):
    qrels, a, _, _ = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, a, "-m", "lexiprecision", "-m", "rpp", "-m", "rpp")
    table = read_table(out)
    assert status == 0 and table["measure"].tolist() == ["lexiprecision", "rpp"]
    assert table[["run_a", "run_b"]].values.tolist() == [["sysA", "sysA-2"]] * 2   # as evaluate names them
    assert table["value"].tolist() == [0.0, 0.0]


def test_measures_as_papers_name_them_in_any_case(capsys, files):
    # RPP, DCGPP, Lexiprecision... as the papers write them, or lower-cased; the output keeps the registered names,
    # so it is the same as with the registered names.
    qrels, a, b, _ = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "RPP", "-m", "dcgpp", "-m", "INVPP",
                             "-m", "Lexirecall", "-m", "LEXIPRECISION", "--per-query")
    assert status == 0
    status, registered, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "rpp", "-m", "dcgrpp", "-m", "invrpp",
                                    "-m", "lexirecall", "-m", "lexiprecision", "--per-query")
    assert status == 0 and out == registered
    assert list(dict.fromkeys(read_table(out)["measure"])) == ["rpp", "dcgrpp", "invrpp", "lexirecall",
                                                               "lexiprecision"]
    status, out, err = run_cli(capsys, "preference", qrels, a, b, "-m", "DCG-RPP")
    assert status == 2 and len(err) == 1 and "unknown preference 'DCG-RPP'" in err[0] and "DCGPP (dcgrpp)" in err[0]


def test_the_python_api_takes_either_name(files):
    import evalgui as eg

    qrels, a, b, _ = files
    outcome = eg.preference(qrels, [a, b], measures=["Lexiprecision", "rpp"])
    assert list(outcome.request.measures) == ["lexiprecision", "rpp"]       # projects keep the registered names
    assert list(dict.fromkeys(outcome.tables["pairs"]["measure"])) == ["lexiprecision", "rpp"]


def test_formats_and_output_file(capsys, tmp_path, files):
    qrels, a, b, _ = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "invrpp", "--format", "json")
    rows = json.loads(out)
    assert status == 0 and [sorted(r) for r in rows] == [["measure", "query", "run_a", "run_b", "value"]]
    target = tmp_path / "prefs.tsv"
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, "-m", "rpp", "-o", target)
    assert status == 0 and out == ""
    assert target.read_text().splitlines() == ["measure\trun_a\trun_b\tquery\tvalue", "rpp\tsysA\tsysB\tall\t0.4"]


@pytest.mark.parametrize("argv, message", [
    (["RUN_A", "-m", "ap"], "unknown preference 'ap'"),
    (["RUN_A"], "two runs or more; 1 given"),
    (["RUN_A", "RUN_B", "--binary-threshold", "-1"], "--binary-threshold -1: must be at least 0"),
    (["RUN_A", "RUN_B", "--binary-threshold", "9"], "no query has a relevant document (grade >= 9)"),
    (["RUN_A", "RUN_B", "--binary-threshold", "x"], "--binary-threshold x: 'x' is not a whole number"),
    (["RUN_A", "QRELS"], "a run needs 6"),
    (["RUN_A", "nosuch.run"], "nosuch.run"),
    (["RUN_A", "RUN_B", "--format", "xml"], "invalid choice: 'xml'"),
    (["RUN_A", "RUN_B", "--test", "tukey"], "invalid choice: 'tukey'"),
    (["RUN_A", "RUN_B", "--correction", "bh"], "--correction sets the significance test: add --test"),
    (["RUN_A", "RUN_B", "--samples", "100"], "--samples sets the significance test: add --test"),
    (["RUN_A", "RUN_B", "--test", "t", "--alpha", "1.5"], "--alpha 1.5: must be at most 0.9999"),
    (["RUN_A", "RUN_B", "--test", "bootstrap", "--samples", "0"], "--samples 0: must be at least 1"),
    (["RUN_A", "RUN_B", "--matrix", "--ranking"], "not allowed with argument --matrix"),
    (["RUN_A", "RUN_B", "--matrix", "--test", "t"], "--matrix writes mean preferences only"),
    (["RUN_A", "RUN_B", "--ranking", "--per-query"], "--per-query adds rows to the pairs table"),
])
def test_bad_input_is_exit_2_with_one_line(capsys, files, argv, message):
    qrels, a, b, _ = files
    given = {"RUN_A": a, "RUN_B": b, "QRELS": qrels}
    try:
        status, out, err = run_cli(capsys, "preference", qrels, *[given.get(x, x) for x in argv])
    except SystemExit as exc:          # argparse's own errors leave through the parser
        status, (out, err) = exc.code, capsys.readouterr()
        err = err.splitlines()
    assert status == 2 and out == "" and len(err) == 1 and message in err[0], err


def test_as_a_process(files):
    qrels, a, b, c = files
    proc = cli("preference", qrels, a, b, c, "-m", "rpp", "--binary-threshold", "1")
    warnings = [line for line in proc.stderr.splitlines() if not line.startswith("caveat: ")]   # caveats: judged
    assert proc.returncode == 0 and len(warnings) == 1                     # the warning about B's missing query
    # A [1, 2, 4] / [2], B [1, 2, 3] / -, C [1, 2, -] / [1] in queries 1 / 2.
    assert proc.stdout.splitlines() == ["measure,run_a,run_b,query,value", "rpp,sysA,sysB,all,0.333333333333333",
                                        "rpp,sysA,sysC,all,-0.333333333333333", "rpp,sysB,sysC,all,-0.333333333333333"]


def test_runs_in_different_folders_are_named_as_evaluate_names_them(capsys, tmp_path, files):
    qrels, _, _, _ = files
    one, two = write(tmp_path, "x/sys.run", RUN_A), write(tmp_path, "y/sys.run", RUN_B)
    status, out, _ = run_cli(capsys, "preference", qrels, one, two, "-m", "rpp")
    pairs = read_table(out)[["run_a", "run_b"]].values.tolist()
    status_e, out_e, _ = run_cli(capsys, "evaluate", qrels, one, two, "-m", "map")
    names = list(dict.fromkeys(read_table(out_e)["run"]))
    assert status == status_e == 0 and len(set(names)) == 2 and pairs == [names]


# ---------------------------------------------------------------------------- tests, matrix, ranking
def test_test_columns_follow_each_pairs_mean(capsys, files):
    from evalgui.cli.preference import TEST_COLUMNS

    qrels, a, b, c = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "-m", "lexiprecision", "--per-query",
                             "--test", "randomization", "--samples", "500", "--seed", "3", "--correction", "bonferroni",
                             "--alpha", "0.1")
    assert status == 0
    table = read_table(out)
    assert tuple(table.columns) == ("measure", "run_a", "run_b", "query", "value") + TEST_COLUMNS
    plain = read_table(run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "-m", "lexiprecision",
                               "--per-query")[1])
    assert table[list(plain.columns)].equals(plain)                        # the same rows, the same values
    means, per_query = table[table["query"] == "all"], table[table["query"] != "all"]
    assert per_query[list(TEST_COLUMNS)].isna().all().all()               # tests only beside the means
    assert set(means["test"]) == {"randomization"} and set(means["samples"]) == {500} and set(means["seed"]) == {3}
    assert set(means["correction"]) == {"bonferroni"} and set(means["alpha"]) == {0.1}
    assert set(means["queries"]) == {"with-relevant"} and means["n_queries"].tolist() == [2] * 6
    assert means["binary_threshold"].isna().all()
    # two queries: all 4 sign flips are enumerated. A over B is -0.2 then 1: every flip's |sum| (0.8 or 1.2)
    # reaches the observed 0.8, so p = 1.
    ab = means[(means["measure"] == "rpp") & (means["run_a"] == "sysA") & (means["run_b"] == "sysB")].iloc[0]
    assert ab["p_value"] == 1.0 and ab["p_adjusted"] == 1.0 and not ab["significant"]
    assert (ab["wins"], ab["ties"], ab["losses"]) == (1, 0, 1)
    assert "500" in out and "500.0" not in out                            # whole numbers stay whole


def test_matrix_is_antisymmetric_per_measure(capsys, files):
    qrels, a, b, c = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "-m", "invrpp", "--matrix")
    assert status == 0
    table = read_table(out)
    assert list(table.columns) == ["measure", "run_a", "sysA", "sysB", "sysC"]
    pairs = read_table(run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "-m", "invrpp")[1])
    for measure in ("rpp", "invrpp"):
        matrix = table[table["measure"] == measure].set_index("run_a")[["sysA", "sysB", "sysC"]]
        assert list(matrix.index) == ["sysA", "sysB", "sysC"]
        assert (matrix.to_numpy() == -matrix.to_numpy().T).all()
        for row in pairs[pairs["measure"] == measure].itertuples():
            assert matrix.loc[row.run_a, row.run_b] == row.value


def test_ranking_with_and_without_tests(capsys, files):
    qrels, a, b, c = files
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "--ranking")
    table = read_table(out)
    assert status == 0
    assert list(table.columns) == ["measure", "rank", "run", "mean_preference", "win_rate", "wins", "ties", "losses"]
    # rpp: A over B 0.4, A over C -1/3 * ... -> from the pairs: every run's mean preference over the two others
    pairs = read_table(run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp")[1])
    mean = {run: (pairs[pairs["run_a"] == run]["value"].sum() - pairs[pairs["run_b"] == run]["value"].sum()) / 2
            for run in ("sysA", "sysB", "sysC")}
    assert table["run"].tolist() == sorted(mean, key=mean.get, reverse=True)
    assert table["mean_preference"].tolist() == pytest.approx(sorted(mean.values(), reverse=True))
    assert table["rank"].tolist() == [1, 2, 3]
    status, out, _ = run_cli(capsys, "preference", qrels, a, b, c, "-m", "rpp", "--ranking", "--test", "t",
                             "--format", "markdown")
    assert status == 0 and "| significant_wins | significant_losses | test |" in out.splitlines()[0]


def test_the_pairs_table_needs_no_pandas(files):
    """Importing pandas costs a fresh process a third of a second or more: the plain pairs table (the preference
    matrix benchmark) never imports it."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    qrels, a, b, c = files
    code = ("import sys; from evalgui.cli import main; status = main(sys.argv[1:]); "
            "print('pandas' in sys.modules, file=sys.stderr); sys.exit(status)")
    proc = subprocess.run([sys.executable, "-c", code, "preference", qrels, a, b, c, "--binary-threshold", "1"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr.splitlines()[-1] == "False", proc.stderr
