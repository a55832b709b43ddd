"""evalgui-cli trec_eval reproduces trec_eval 10.0's own expected outputs, byte for byte."""

import shlex

import pytest

from evalgui.cli import main

# (expected output, command line) as in trec_eval's Makefile quicktest target.
CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"]),
]


def run_trec_eval(folder, args, capsys):
    argv = ["trec_eval"] + [str(folder / a) if (folder / a).is_file() else a for a in args]
    status = main(argv)
    out = capsys.readouterr().out
    assert status == 0
    return out


@pytest.mark.parametrize("expected,args", CASES, ids=[c[0] for c in CASES])
def test_reproduces_trec_eval_output(trec_eval_dir, capsys, expected, args):
    out = run_trec_eval(trec_eval_dir, args, capsys)
    want = (trec_eval_dir / expected).read_text()
    assert out.splitlines() == want.splitlines()


def test_values_match_to_four_decimals_line_by_line(trec_eval_dir, capsys):
    """The same check, reported per value, so a regression names the measure and query."""
    out = run_trec_eval(trec_eval_dir, ["-m", "all_trec", "-q", "qrels.test", "results.test"], capsys)
    got = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in out.splitlines()}
    want = {tuple(line.split("\t")[:2]): line.split("\t")[2]
            for line in (trec_eval_dir / "out.test.aq").read_text().splitlines()}
    assert got.keys() == want.keys()
    wrong = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    assert not wrong


def test_one_topic_pair_matches_that_topic_in_the_full_run(trec_eval_dir, capsys):
    """qrels-302/results-302 are topic 302 alone: its per-query values equal 302's in out.test.aq."""
    out = run_trec_eval(trec_eval_dir, ["-m", "all_trec", "-q", "-n", "qrels-302.test", "results-302.test"], capsys)
    want = [line for line in (trec_eval_dir / "out.test.aq").read_text().splitlines() if line.split("\t")[1] == "302"]
    assert out.splitlines() == want


def _makefile_commands(folder):
    """trec_eval's whole test suite: ``./trec_eval ARGS test/FILE... | diff - test/EXPECTED`` per line."""
    commands = []
    for line in (folder / "MAKEFILE_TESTS.txt").read_text().splitlines():
        if not line.strip():
            continue
        command, _, check = line.partition("|")
        args = [a.removeprefix("test/") for a in shlex.split(command)[1:]]
        commands.append((args, shlex.split(check)[-1].removeprefix("test/")))
    return commands


def test_every_command_of_trec_evals_test_suite(trec_eval_dir, capsys):
    """All 15 commands of trec_eval 10.0's Makefile tests (prefs, qrels_prefs, qrels_jg and -Z included)."""
    commands = _makefile_commands(trec_eval_dir)
    assert len(commands) == 15
    failing = []
    for args, expected in commands:
        out = run_trec_eval(trec_eval_dir, args, capsys)
        if out != (trec_eval_dir / expected).read_text():
            failing.append(" ".join(args))
    assert not failing
