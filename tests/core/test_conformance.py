"""evalgui-cli trec_eval reproduces trec_eval 10.0's own expected outputs, byte for byte."""

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
    files = {"qrels.test", "results.test", "results.trunc", "qrels.rel_level", "qrels-302.test", "results-302.test"}
    argv = ["trec_eval"] + [str(folder / a) if a in files else a for a in args]
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
