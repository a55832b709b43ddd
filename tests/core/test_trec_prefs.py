"""trec_eval 10.0's preference judgments (-R prefs, -R qrels_prefs), judgment groups (-R qrels_jg) and
z-scores (-Z): hand-computed values, bad input, and (when a trec_eval binary is found: ``EVALGUI_TREC_EVAL``
or ``trec_eval`` on PATH) generated files compared with the binary byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from evalgui.cli import main


def _binary() -> str | None:
    return os.environ.get("EVALGUI_TREC_EVAL") or shutil.which("trec_eval")


def cli(tmp_path, capsys, args, judgments: str, run: str):
    (tmp_path / "j").write_text(judgments)
    (tmp_path / "r").write_text(run)
    status = main(["trec_eval"] + args + [str(tmp_path / "j"), str(tmp_path / "r")])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def values(out: str, qid: str = "1") -> dict[str, str]:
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()
            if line.split("\t")[1] == qid}


# Query 1: a (level 2) > b (1) > c (0). The run ranks b, a, then x (not judged); c is not retrieved.
# Internal ranks b=0, a=1 (retrieved), c=2. a>b: both retrieved, not fulfilled; a>c and b>c: implied, fulfilled.
PREFS = "1 g s a 2\n1 g s b 1\n1 g s c 0\n"
RUN = "1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 x 3 1 t\n"


def test_preference_measures_by_hand(tmp_path, capsys):
    status, out, err = cli(tmp_path, capsys, ["-q", "-m", "all_prefs", "-R", "prefs"], PREFS, RUN)
    assert status == 0 and not err
    got = values(out)
    assert got["prefs_num_prefs_poss"] == "3" and got["prefs_num_prefs_ful"] == "2"
    assert got["prefs_num_prefs_ful_ret"] == "0"
    assert got["prefs_simp"] == got["prefs_pair"] == got["prefs_avgjg"] == "0.6667"           # 2/3
    assert got["prefs_simp_imp"] == got["prefs_pair_imp"] == got["prefs_avgjg_imp"] == "0.6667"
    assert got["prefs_simp_ret"] == got["prefs_pair_ret"] == got["prefs_avgjg_ret"] == "0.0000"  # 0/1
    # R = 2 relevant (a, b), N = 1 nonrelevant: R x (R - N) = 2 fulfilled preferences added.
    assert got["prefs_avgjg_Rnonrel"] == "0.8000"                    # (2 + 2) / (3 + 2)
    assert got["prefs_avgjg_Rnonrel_ret"] == "0.8000"                # Rr = 2, Nr = 0: (0 + 4) / (1 + 2 x 2)
    assert values(out, "all")["prefs_simp"] == "0.6667" and values(out, "all")["num_q"] == "1"


def test_subgroups_are_closed_transitively(tmp_path, capsys):
    # a > b in one subgroup, b > c in another: a > c too. Run c, a, b: only a > b is fulfilled, 1 of 3.
    prefs = "1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 c 1\n"
    run = "1 Q0 c 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b 3 1 t\n"
    got = values(cli(tmp_path, capsys, ["-q", "-m", "all_prefs", "-R", "prefs"], prefs, run)[1])
    assert got["prefs_num_prefs_poss"] == "3" and got["prefs_simp"] == "0.3333"


def test_pairs_judged_by_two_groups_count_once_in_prefs_pair(tmp_path, capsys):
    # Two users: one prefers a > b, the other b > a. The run ranks a first.
    prefs = "1 u1 s a 1\n1 u1 s b 0\n1 u2 s b 1\n1 u2 s a 0\n"
    run = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"
    got = values(cli(tmp_path, capsys, ["-q", "-m", "all_prefs", "-R", "prefs"], prefs, run)[1])
    assert got["prefs_simp"] == "0.5000" and got["prefs_pair"] == "0.5000"  # one pair, 1 of 2
    assert got["prefs_avgjg"] == "0.5000"                                     # (1 + 0) / 2 groups


def test_qrels_read_as_preferences(tmp_path, capsys):
    qrels = "1 0 a 1\n1 0 b 0\n1 0 c 0\n"
    run = "1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n"          # b above a: a > b fails; a > c implied, fulfilled
    got = values(cli(tmp_path, capsys, ["-q", "-m", "prefs", "-R", "qrels_prefs"], qrels, run)[1])
    assert got["prefs_num_prefs_poss"] == "2" and got["prefs_simp"] == "0.5000"


def test_judgment_groups_average_over_users(tmp_path, capsys):
    qrels = "1 0 a 1\n1 1 b 1\n"                   # user 0 wants a, user 1 wants b; the run: a, b
    run = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"
    status, out, _ = cli(tmp_path, capsys, ["-q", "-m", "qrels_jg", "-R", "qrels_jg"], qrels, run)
    got = values(out)
    assert status == 0
    assert got["map_avgjg"] == "0.7500"            # (1 + 1/2) / 2
    assert got["P_avgjg_5"] == "0.2000"
    assert got["Rprec_mult_avgjg_1.00"] == "0.5000"  # R = 1 for each: (1/1 + 0/1) / 2 (b is not in the top 1)
    assert values(out, "all")["num_q"] == "1"


def test_zscores_by_hand(tmp_path, capsys):
    (tmp_path / "z").write_text("1 map 0.5 0.25\n1 num_rel 1 0\n")
    status, out, _ = cli(tmp_path, capsys, ["-q", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", "-m", "map",
                                            "-Z", str(tmp_path / "z")], "1 0 a 1\n", "1 Q0 a 1 2 t\n")
    assert status == 0
    assert out.splitlines() == [
        "Znum_ret               \t1\t-1000000.0000",      # no mean and stddev given
        "Znum_rel               \t1\t0.0000",             # stddev 0 and the value equals the mean
        "Zmap                   \t1\t2.0000",             # (1 - 0.5) / 0.25
        "Znum_q                 \tall\t1.0000",
        "Znum_ret               \tall\t-1000000.0000",
        "Znum_rel               \tall\t0.0000",
        "Zmap                   \tall\t2.0000",
    ]


@pytest.mark.parametrize("judgments,args,words", [
    ("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 a 1\n", ["-R", "prefs"], "contradict"),
    ("1 g s a 2\n1 g s a 1\n1 g s b 0\n", ["-R", "prefs"], "two different relevance levels"),
    ("1 g s a 2\n1 g s b 0\n1 g t a 0\n1 g t b 0\n", ["-R", "prefs"], "level 0 and a level above 0"),
    ("1 g s a x\n", ["-R", "prefs"], "not a number"),
    ("1 g a 1\n", ["-R", "prefs"], "expected 5 columns"),
    ("1 0 a 1\n1 0 a 0\n", ["-R", "qrels_jg"], "judged twice"),
    ("1 0 a 1\n", ["-R", "prefs", "-m", "map"], "cannot calculate measure 'map'"),
    ("1 0 a 1\n", ["-m", "prefs_simp"], "cannot calculate measure 'prefs_simp'"),
])
def test_bad_judgments_are_one_line_and_exit_2(tmp_path, capsys, judgments, args, words):
    status, out, err = cli(tmp_path, capsys, args, judgments, "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    assert status == 2 and not out
    assert words in err and len(err.strip().splitlines()) == 1


def test_all_negative_judgments_keep_values_and_warn_once(tmp_path, capsys):
    # trec_eval 10.0 stops with exit 4 ("Can't calculate measure 'num_ret'") on query 1, evaluated first.
    status, out, err = cli(tmp_path, capsys, ["-q", "-m", "num_ret", "-m", "map"], "1 0 a -1\n2 0 b 1\n",
                           "1 Q0 a 1 2 t\n2 Q0 b 1 2 t\n")
    assert status == 0
    assert values(out)["num_ret"] == "1" and values(out, "2")["map"] == "1.0000"
    assert err.count("warning:") == 1 and "only negative judgments (1)" in err
    # Later, with -1 as the highest grade, trec_eval prints the values: no warning.
    _, _, err = cli(tmp_path, capsys, ["-m", "map"], "1 0 a 1\n2 0 b -1\n", "1 Q0 a 1 2 t\n2 Q0 b 1 2 t\n")
    assert not err


# ---------------------------------------------------------------- generated files against the binary

def _generated(seed: int) -> dict[str, str]:
    """Random preference judgments: per query, judgment groups of 1-3 subgroups whose levels all follow
    one hidden order (so no cycles), level 0 below one threshold per group; ties in the run's scores,
    unjudged documents retrieved and judged documents not retrieved."""
    rng = np.random.default_rng(seed)
    prefs, run, jg = [], [], []
    for q in range(rng.integers(1, 6)):
        docs = [f"d{rng.integers(0, 60)}x{i}" for i in range(rng.integers(3, 25))]
        for g in range(rng.integers(1, 4)):
            n_sub = rng.integers(1, 4) if rng.random() < 0.6 else 1
            latent = {d: rng.random() for d in docs}
            threshold = rng.random() * 0.6
            for s in range(n_sub):
                k = rng.integers(1, 4)
                for d in rng.choice(docs, rng.integers(2, len(docs) + 1), replace=False):
                    level = 0 if latent[d] < threshold else 1 + int((latent[d] - threshold) * k * 3)
                    prefs.append(f"q{q} g{g} s{s} {d} {level}")
        for g in range(rng.integers(1, 4)):
            for d in rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False):
                jg.append(f"q{q} {g} {d} {rng.integers(-1, 3)}")
        pool = docs + [f"u{i}" for i in range(rng.integers(0, 10))]
        for d in rng.choice(pool, rng.integers(1, len(pool) + 1), replace=False):
            run.append(f"q{q} Q0 {d} 0 {round(float(rng.random()), 1)} t")
    first = {}
    for line in prefs:                      # qrels_prefs: one line per (query, group, document)
        q, g, _, d, level = line.split()
        first.setdefault((q, g, d), f"{q} {g[1:]} {d} {level}")
    return {"prefs": "\n".join(prefs) + "\n", "qrels_prefs": "\n".join(first.values()) + "\n",
            "qrels_jg": "\n".join(jg) + "\n", "run": "\n".join(run) + "\n"}


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (set EVALGUI_TREC_EVAL)")
@pytest.mark.parametrize("seed", range(12))
def test_generated_judgments_match_the_trec_eval_binary(tmp_path, capsys, seed):
    files = _generated(seed)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cases = [["-q", "-m", "all_prefs", "-R", "prefs", "prefs"],
             ["-q", "-m", "all_prefs", "-M", "3", "-R", "prefs", "prefs"],
             ["-q", "-m", "all_prefs", "-R", "qrels_prefs", "qrels_prefs"],
             ["-q", "-m", "qrels_jg", "-m", "P_avgjg.1,3,7", "-R", "qrels_jg", "qrels_jg"],
             ["-q", "-m", "qrels_jg", "-l", "2", "-J", "-R", "qrels_jg", "qrels_jg"]]
    for args in cases:
        argv = args[:-1] + [str(tmp_path / args[-1]), str(tmp_path / "run")]
        theirs = subprocess.run([_binary()] + argv, capture_output=True, text=True, check=True).stdout
        assert main(["trec_eval"] + argv) == 0
        assert capsys.readouterr().out == theirs, " ".join(args)


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (set EVALGUI_TREC_EVAL)")
@pytest.mark.parametrize("seed", range(4))
def test_generated_zscores_match_the_trec_eval_binary(tmp_path, capsys, trec_eval_dir, seed):
    qrels, run = str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")
    raw = subprocess.run([_binary(), "-q", "-m", "all_trec", qrels, run], capture_output=True, text=True,
                         check=True).stdout
    rng = np.random.default_rng(seed)
    rows = [line.split("\t") for line in raw.splitlines()]
    rows = [(name.strip(), q, v) for name, q, v in rows if q != "all" and not v.startswith("'")]
    last = {}
    for name, q, _ in rows:     # trec_eval's binary search reads past the end for a name after all given
        last[q] = max(last.get(q, ""), name, key=str.encode)
    lines = []
    for name, q, v in rows:
        u = rng.random()
        if u < 0.25 and name != last[q]:
            continue
        lines.append(f"{q} {name} {v} 0" if u < 0.35 else f"{q} {name} 0.123 0.0" if u < 0.4 else
                     f"{q} {name} {rng.random():.4f} {rng.random() + 0.01:.4f}")
    rng.shuffle(lines)
    (tmp_path / "z").write_text("\n".join(lines) + "\n")
    for args in (["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec", "-M", "10", "-l", "2"]):
        argv = args + ["-Z", str(tmp_path / "z"), qrels, run]
        theirs = subprocess.run([_binary()] + argv, capture_output=True, text=True, check=True).stdout
        assert main(["trec_eval"] + argv) == 0
        assert capsys.readouterr().out == theirs
