"""evalgui-cli stability: the original's published output (acceptance), formats, errors, TREC input."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalgui.core.rankfile.experiment import EVAL_COLUMNS
from tests.conftest import CONFORMANCE
from tests.test_cli import QRELS, RUN, run_cli, write

SYSTEMS = ["System1", "System2", "System3", "System4", "System5"]

# actualresults.png of the original's README (--printing actual -n 100000 on testranks.txt), transcribed.
# Average@10 of System4 and System5 is shown there as 0.0000: no rank is within 10, so it is undefined.
PUBLISHED_ACTUAL = {
    "AP_inter_per": [0.0003, 0.0003, 0.0003, 0.0002, 0.0002],
    "nDCG@Avg": [0.0138, 0.0140, 0.0122, 0.0083, 0.0078],
    "Average": [1454.2500, 1457.0714, 1782.6429, 1433.6429, 1703.7857],
    "Median": [1052.0000, 1052.5000, 1199.0000, 1246.5000, 1043.5000],
    "Average@20": [7.4000, 7.2000, 5.6667, 14.5000, 15.0000],
    "AP": [0.1538, 0.1608, 0.1474, 0.0513, 0.0295],
    "Average@Avg": [390.8889, 391.2222, 324.1250, 169.8571, 486.4000],
    "Average@10": [5.3333, 6.2500, 3.0000, None, None],
    "P@2000_per": [0.0025, 0.0025, 0.0015, 0.0010, 0.0005],
}
# sigresults.png: the significance matrix of Average (--splits 2, bootstrap, defaults), rows beat columns.
PUBLISHED_AVERAGE_MATRIX = [
    ["--", "", "***", "", "***"],
    ["", "--", "***", "", "***"],
    ["", "", "--", "", ""],
    ["***", "***", "***", "--", "***"],
    ["", "", "***", "", "--"],
]


@pytest.fixture
def testranks() -> str:
    """The original's example rank file, kept outside the repo (never copied in)."""
    path = Path(os.environ.get("EVALGUI_CONFORMANCE", CONFORMANCE)) / "ranking_evaluation" / "testranks.txt"
    if not path.exists():
        pytest.skip(f"the Ranking Evaluation Tool's test data is not at {path} (set EVALGUI_CONFORMANCE)")
    return str(path)


@pytest.fixture
def small(tmp_path) -> str:
    rows = ["Exp\tA\tB\tC"] + [f"e{i}\t{i + 1}\t{2 * i + 1}\t{30 - i}" for i in range(12)]
    return write(tmp_path, "small.txt", "\n".join(rows) + "\n")


def table(out: str, sep: str = "\t") -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), sep=sep, comment="#", keep_default_na=True)


# ---------------------------------------------------------------- acceptance: the published output

def actual(capsys, testranks, *extra) -> pd.DataFrame:
    status, out, err = run_cli(capsys, "stability", testranks, "--printing", "actual", "-n", "100000",
                               "--format", "tsv", *extra)
    assert status == 0 and err == []
    return table(out).set_index("measure")


def test_compat_reproduces_every_published_actual_value(capsys, testranks):
    values = actual(capsys, testranks, "--compat", "dunaiski2018")
    assert list(values.index) == list(PUBLISHED_ACTUAL) and list(values.columns) == SYSTEMS
    for measure, published in PUBLISHED_ACTUAL.items():
        for system, expected in zip(SYSTEMS, published):
            got = values.loc[measure, system]
            if expected is None:
                assert pd.isna(got), (measure, system)            # shown empty, never 0
            else:
                assert round(got, 4) == pytest.approx(expected, abs=1e-9), (measure, system)


def test_without_compat_only_the_per_mille_rows_differ(capsys, testranks):
    fixed = actual(capsys, testranks)
    compat = actual(capsys, testranks, "--compat", "dunaiski2018")
    differ = [m for m in fixed.index if not fixed.loc[m].equals(compat.loc[m])]
    assert differ == ["AP_inter_per", "P@2000_per"]
    # rank <= 2000 (not <= 20) counts: System1 has 10 entities within 2,000
    assert fixed.loc["P@2000_per", "System1"] == 10 / 2000


def sign_matrix(out: str, measure: str, systems=SYSTEMS) -> list[list[str]]:
    rows = table(out, ",").fillna("")
    rows = rows[rows.measure == measure]
    return rows[list(systems)].values.tolist()


def test_compat_gives_the_published_significance_marks_of_average(capsys, testranks):
    status, out, err = run_cli(capsys, "stability", testranks, "--printing", "sign", "--splits", "2", "-n", "100000",
                               "--compat", "dunaiski2018")
    assert status == 0 and len(err) == 1 and "degenerate" in err[0]
    assert out.startswith("# Significance: 0 '***' 0.005 '**' 0.01 '*' 0.05 '.' 0.1 ',' 0.15 ' ' 1\n")
    assert sign_matrix(out, "Average") == PUBLISHED_AVERAGE_MATRIX


def test_compat_correlation_leaves_out_the_first_systems_pairs(capsys, testranks):
    # Spearman's rho of the 6 pairs without System1: the original's reference run prints 0.929961109594044
    status, out, _ = run_cli(capsys, "stability", testranks, "-p", "eval", "--splits", "2", "-i", "2", "-b", "20",
                             "-n", "100000", "-m", "AP", "--compat", "dunaiski2018")
    rows = table(out, ",")
    assert status == 0 and rows.correlation[0] == pytest.approx(0.929961109594044, abs=1e-12)
    assert rows["stddev corr"][0] == pytest.approx(0.02889, abs=1e-5)
    status, out, _ = run_cli(capsys, "stability", testranks, "-p", "eval", "--splits", "2", "-i", "2", "-b", "20",
                             "-n", "100000", "-m", "AP")
    assert table(out, ",").correlation[0] == pytest.approx(0.9368093209607, abs=1e-12)       # all 10 pairs


def test_same_seed_same_output_in_one_or_two_processes(capsys, testranks, monkeypatch):
    from evalgui.core.rankfile import experiment

    monkeypatch.setattr(experiment, "WORK_PER_PROCESS", 1)      # small work: processes all the same
    for compat in ((), ("--compat", "dunaiski2018")):
        args = ["stability", testranks, "-p", "all", "-e", "--splits", "2", "3", "-i", "6", "-b", "200", "-n",
                "100000", "-s", "3", *compat]
        one = run_cli(capsys, *args, "-t", "1")
        two = run_cli(capsys, *args, "-t", "2")
        assert one[0] == two[0] == 0 and one[1] == two[1]
        other_seed = run_cli(capsys, *args, "-t", "1", "-s", "4")
        assert other_seed[1] != one[1]


# ---------------------------------------------------------------- output

def test_eval_prints_the_originals_columns(capsys, small):
    status, out, _ = run_cli(capsys, "stability", small, "-p", "eval", "-m", "AP", "-m", "Average", "--splits", "3",
                             "-i", "3", "-b", "100", "-e")
    rows = table(out, ",")
    assert status == 0 and list(rows.columns) == list(EVAL_COLUMNS)
    assert rows.method.tolist() == ["AP", "Average"] * 5 and rows.errRate.notna().all()


def test_the_range_flags_and_swap_mode(capsys, small):
    """--cutoffs, --systems, --entities make one experiment per combination; -w decides with swapDiffMin."""
    from evalgui.core.stats.stability import pair_indices

    args = ["stability", small, "-p", "all", "-m", "Average@k", "-m", "AP", "--cutoffs", "5", "50", "--splits", "2",
            "--systems", "2", "3", "--entities", "8", "12", "-i", "4", "-b", "100", "--sigs", "0.05", "0.15",
            "--format", "json"]
    status, out, _ = run_cli(capsys, *args, "-w")
    data = json.loads(out)
    rows = pd.DataFrame(data["eval"])
    assert status == 0 and len(rows) == 2 * 2 * 2 * 3          # systems x entities x levels x methods
    assert rows[["systemCount", "entityCount"]].drop_duplicates().values.tolist() == [[2, 8], [2, 12], [3, 8], [3, 12]]
    assert rows.method.unique().tolist() == ["Average@k_5", "Average@k_50", "AP"]
    assert rows[rows.method == "Average@k_50"].cutoff.unique().tolist() == [50]
    assert [r["measure"] for r in data["actual"]] == ["Average@k_5", "Average@k_50", "AP"]
    # decisions: the pairs whose values on all entities differ by more than swapDiffMin (estDiff without -w)
    actual = {r["measure"]: [r[s] for s in "ABC"] for r in data["actual"]}
    first, second = pair_indices(3)
    for swap, column in ((True, "swapDiffMin"), (False, "estDiff")):
        if not swap:
            rows = pd.DataFrame(json.loads(run_cli(capsys, *args)[1])["eval"])
        for row in rows[rows.systemCount == 3].itertuples():
            values = np.array(actual[row.method], dtype=float)
            required = getattr(row, column)
            expected = 100 * np.mean(np.abs(values[first] - values[second]) > required) if required > 0 else 0.0
            assert row.decisions == pytest.approx(expected), (swap, row)
    sign = pd.DataFrame(data["sign"]["rows"])
    assert sign[["systemCount", "entityCount"]].drop_duplicates().values.tolist() == [[2, 8], [2, 12], [3, 8], [3, 12]]


def test_sign_alone_prints_matrices_with_labels(capsys, small):
    status, out, _ = run_cli(capsys, "stability", small, "-p", "sign", "-m", "Average", "--splits", "3", "-i", "5",
                             "-b", "200")
    matrix = sign_matrix(out, "Average", "ABC")
    assert status == 0 and [row[i] for i, row in enumerate(matrix)] == ["--"] * 3
    assert any(cell in ("***", "**", "*", ".", ",") for row in matrix for cell in row)


def test_all_in_json_is_one_object(capsys, small):
    status, out, _ = run_cli(capsys, "stability", small, "-m", "AP", "--splits", "3", "-i", "2", "-b", "50",
                             "--format", "json")
    data = json.loads(out)
    assert status == 0 and list(data) == ["eval", "actual", "sign"]
    assert data["sign"]["legend"] == {"***": 0.005, "**": 0.01, "*": 0.05, ".": 0.1, ",": 0.15}
    assert data["actual"] == [{"measure": "AP", "A": 1.0, "B": pytest.approx(data["actual"][0]["B"]),
                               "C": pytest.approx(data["actual"][0]["C"])}]
    assert len(data["eval"]) == 5 and data["eval"][0]["errRate"] is None     # missing without -e


def test_one_section_in_json_is_its_rows(capsys, small):
    status, out, _ = run_cli(capsys, "stability", small, "-p", "actual", "-m", "Average@3", "--format", "json")
    assert status == 0 and json.loads(out) == [{"measure": "Average@3", "A": 2.0, "B": 2.0, "C": None}]


def test_all_in_csv_has_a_comment_line_per_section_and_writes_atomically(capsys, small, tmp_path):
    target = tmp_path / "out.csv"
    status, out, _ = run_cli(capsys, "stability", small, "-m", "AP", "--splits", "3", "-i", "2", "-b", "50",
                             "-o", target)
    text = target.read_text()
    assert status == 0 and out == ""
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# eval", "# actual", "# sign", "# Significance: 0 '***' 0.005 '**' 0.01 '*' 0.05 '.' 0.1 ',' 0.15 ' ' 1"]
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".evalgui-")]


def test_markdown_sections_have_headings(capsys, small):
    status, out, _ = run_cli(capsys, "stability", small, "-m", "AP", "--splits", "3", "-i", "2", "-b", "50",
                             "--format", "markdown")
    assert status == 0 and [l for l in out.splitlines() if l.startswith("## ")] == ["## eval", "## actual", "## sign"]


def test_verbose_reports_progress(capsys, small):
    status, _, err = run_cli(capsys, "stability", small, "-p", "eval", "-m", "AP", "--splits", "2", "3", "-i", "2",
                             "-b", "20", "-v")
    assert status == 0 and [line.split("% ", 1)[1] for line in err if "%" in line] == [
        "Combination 1 of 2: 2 queries, 3 systems, 12 entities", "Combination 2 of 2: 3 queries, 3 systems, 12 entities"]


# ---------------------------------------------------------------- errors: exit 2 and one line

def test_missing_total_ranks_names_the_measures(capsys, small):
    status, out, err = run_cli(capsys, "stability", small, "-p", "actual")
    assert (status, out) == (2, "") and len(err) == 1
    assert "AP_inter_per and P@2000_per need the total number of ranked entities" in err[0] and "-n" in err[0]


def test_a_bad_rank_file_names_the_line(capsys, tmp_path):
    path = write(tmp_path, "bad.txt", "E\tA\tB\nx\t1\t0\n")
    status, out, err = run_cli(capsys, "stability", path, "-m", "AP")
    assert (status, out) == (2, "") and err == [f"evalgui-cli: error: {path}, line 2: the rank 0 of system B is "
                                                 "below 1 (ranks start at 1)"]


@pytest.mark.parametrize("args, reason", [
    (["-m", "Nope"], "unknown rank measure 'Nope'"),
    (["-m", "AP", "--splits", "20"], "12 entities cannot be split into 20 queries"),
    (["-m", "AP", "--sigs", "2"], "between 0 and 1"),
    (["-m", "AP", "-i", "100000000000"], "-i 100000000000: must be at most 100,000 (a limit that protects the "
                                         "running time)"),
    (["-m", "AP", "-b", "100000000000"], "-b 100000000000: must be at most 10,000,000 (a limit that protects the "
                                         "running time)"),
    (["-m", "AP", "-b", "9000000"], "-b 9000000: at most 8,333,333 with 3 systems (a limit that protects memory"),
    (["-m", "AP", "-t", "1000"], "-t 1000: must be at most 64 (a limit that protects memory"),
    (["-m", "AP", "-i", "60000", "--splits", "2", "3"], "2 combinations of --splits Q, --systems S and --entities E, "
                                                         "each run 60,000 times (-i N): at most 100,000 iterations in "
                                                         "all"),
])
def test_bad_settings(capsys, small, args, reason):
    status, out, err = run_cli(capsys, "stability", small, *args)
    assert (status, out) == (2, "") and len(err) == 1 and reason in err[0]


def test_one_file_or_qrels_and_runs(capsys, small):
    assert run_cli(capsys, "stability")[0] == 2
    status, _, err = run_cli(capsys, "stability", small, small, "-m", "AP")
    assert status == 2 and "give one rank file" in err[0]
    status, out, _ = run_cli(capsys, "stability", "-f", small, "-p", "actual", "-m", "Min", "--format", "tsv")
    assert status == 0 and out.splitlines()[1] == "Min\t1.0\t1.0\t19.0"


# ---------------------------------------------------------------- ranks from TREC data

def test_ranks_from_qrels_and_runs(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    first = write(tmp_path, "first.run", RUN)
    second = write(tmp_path, "second.run", RUN.replace("d1 1 3.0", "d1 1 0.1"))
    saved = tmp_path / "ranks.txt"
    status, out, _ = run_cli(capsys, "stability", "--qrels", qrels, first, second, "-p", "actual", "-m", "Average",
                             "--format", "tsv", "--save-ranks", saved)
    # relevant: q1 d1, q1 d3, q2 d1. first: d1 at 1, d3 at 3, q2's d1 at 2; second: d1 drops to 3, d3 to 2
    assert status == 0 and out.splitlines() == ["measure\tfirst\tsecond", "Average\t2.0\t2.33333333333333"]
    assert saved.read_text().splitlines() == ["TREC\tfirst\tsecond", "1 d1\t1\t3", "1 d3\t3\t2", "2 d1\t2\t2"]
    status, _, err = run_cli(capsys, "stability", "--qrels", qrels, first, "-m", "AP")
    assert status == 2 and "at least two runs" in err[0]
    # third ranks q1's d3 second: ranks 1, 2, 2 against first's 1, 3, 2, and AP is 1 for both (the average rank
    # is not): said after the values
    third = write(tmp_path, "third.run", RUN.replace("d3 3 1.0", "d3 3 2.5"))
    status, out, err = run_cli(capsys, "stability", "--qrels", qrels, first, third, "-p", "actual", "-m", "AP",
                               "-m", "Average", "--format", "tsv")
    assert status == 0 and out.splitlines()[1:] == ["AP\t1.0\t1.0", "Average\t2.0\t1.66666666666667"]
    assert err == ["evalgui-cli: warning: AP gives every system the same value on all the entities, so it cannot "
                   "tell these systems apart (when the ranks come from several queries' rankings, measures comparing "
                   "the i-th entity with its rank, such as AP, P@k and R-precision, are often 1 for every system)"]


def test_compat_prints_infinite_swap_limits_as_the_original(capsys, tmp_path):
    """No swap bin gets down to any level (S1 and S2 always agree): -inf and inf, as the original prints,
    never +-8.988e306 (the largest double averaged)."""
    lines = ["E\tS1\tS2\tS3"] + [f"e{i}\t{i}\t{i}\t{13 - i}" for i in range(1, 13)]
    path = tmp_path / "agree.txt"
    path.write_text("\n".join(lines) + "\n")
    status, out, _ = run_cli(capsys, "stability", str(path), "-p", "eval", "-m", "Median", "--splits", "3", "-i", "3",
                             "-b", "50", "--compat", "dunaiski2018")
    rows = table(out, ",")
    assert status == 0 and "e306" not in out and "e308" not in out
    assert rows.swapDiffMin.tolist() == [-np.inf] * len(rows) and rows.swapDiffMax.tolist() == [np.inf] * len(rows)
