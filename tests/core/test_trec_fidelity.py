"""Byte-exact trec_eval 10.0 output in the corners issue 8 found (expected lines come from the real binary).

When a trec_eval binary is found (``EVALGUI_TREC_EVAL`` or ``trec_eval`` on PATH), the last test also
compares every case with it directly; otherwise that test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from evalgui.core.data import Qrels, Run
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.evaluate import EvalOptions, evaluate_run
from evalgui.core.ranked.ranking import prepare
from evalgui.core.ranked.trec_eval import format_lines, requests_for

# Query 1: d1, d2, d3 relevant at grades 1, 2, 3; retrieved d1 then d4 (not judged).
# Query 2: judged (d1 grade 1, d5 grade 2) but absent from the run.
QRELS = "1 0 d1 1\n1 0 d2 2\n1 0 d3 3\n2 0 d1 1\n2 0 d5 2\n"
RUN = "1 Q0 d1 1 3.0 t\n1 Q0 d4 2 2.0 t\n"


def trec_eval(tmp_path, args: list[str], qrels: str = QRELS, run: str = RUN) -> str:
    """What ``evalgui-cli trec_eval ARGS`` prints, through the engine's own pieces."""
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    measures, flags, i = [], {}, 0
    while i < len(args):
        a = args[i]
        if a == "-m":
            measures.append(args[i + 1])
            i += 1
        elif a in ("-l", "-M"):
            flags[a] = int(args[i + 1])
            i += 1
        else:
            flags[a] = True
        i += 1
    options = EvalOptions(relevance_level=flags.get("-l", 1), complete="-c" in flags, max_docs=flags.get("-M"),
                          judged_only="-J" in flags)
    result = evaluate_run(read_qrels(tmp_path / "q"), read_run(tmp_path / "r"), requests_for(measures), options)
    return "".join(line + "\n" for line in format_lines(result, per_query="-q" in flags))


def test_num_rel_summary_with_complete_counts_every_positive_grade(tmp_path):
    # Point 1: trec_eval -c sums num_rel over the whole qrels at grade > 0, whatever -l says.
    out = trec_eval(tmp_path, ["-c", "-l", "2", "-m", "num_rel", "-m", "num_rel_ret"])
    assert out == "num_rel               \tall\t5\nnum_rel_ret           \tall\t0\n"
    per_query = trec_eval(tmp_path, ["-q", "-c", "-l", "2", "-m", "num_rel"])
    assert per_query.splitlines()[:2] == ["num_rel               \t1\t2", "num_rel               \t2\t1"]


def test_complete_scores_a_missing_query_on_trec_evals_placeholder(tmp_path):
    # Point 2: only values whose names are exactly num_ret, utility, relstring, rbp_resid (or start with unj) are zeroed.
    out = trec_eval(tmp_path, ["-c", "-q", "-m", "relstring.3", "-m", "utility.2,-1,0,0", "-m", "rbp_resid",
                               "-m", "num_ret", "-m", "unj"])
    assert out == (
        "num_ret               \t1\t2\n"
        "relstring_3           \t1\t'1-'\n"
        "utility_2,-1,0,0      \t1\t1.0000\n"
        "rbp_resid             \t1\t0.9000\n"
        "unj_5                 \t1\t0.2000\n"
        "unj_10                \t1\t0.1000\n"
        "unj_20                \t1\t0.0500\n"
        "num_ret               \t2\t0\n"
        "relstring_3           \t2\t'-'\n"
        "utility_2,-1,0,0      \t2\t-1.0000\n"
        "rbp_resid             \t2\t0.0000\n"
        "unj_5                 \t2\t0.0000\n"
        "unj_10                \t2\t0.0000\n"
        "unj_20                \t2\t0.0000\n"
        "num_ret               \tall\t2\n"
        "utility_2,-1,0,0      \tall\t0.0000\n"
        "rbp_resid             \tall\t0.4500\n"
        "unj_5                 \tall\t0.1000\n"
        "unj_10                \tall\t0.0500\n"
        "unj_20                \tall\t0.0250\n")
    plain = trec_eval(tmp_path, ["-c", "-q", "-m", "relstring", "-m", "utility"])
    assert "relstring             \t2\t''\n" in plain and "utility               \t2\t0.0000\n" in plain


@pytest.mark.parametrize("args", [["-M", "0"], ["-c", "-J"], ["-c", "-M", "0"]])
def test_no_retrieved_document_prints_nan_for_interpolated_precision(tmp_path, args):
    # Point 3: precision is 0/0 there; trec_eval prints -nan at the recall points it reaches, and in the mean.
    out = trec_eval(tmp_path, args + ["-q", "-m", "iprec_at_recall", "-m", "11pt_avg"],
                    qrels=QRELS if "-c" in args else QRELS.replace("2 0 d1 1\n2 0 d5 2\n", ""))
    lines = out.splitlines()
    empty_q = "2" if "-c" in args else "1"
    assert f"iprec_at_recall_0.00  \t{empty_q}\t  -nan" in lines
    assert f"11pt_avg              \t{empty_q}\t  -nan" in lines
    assert "11pt_avg              \tall\t  -nan" in lines


def test_rndcg_with_no_positive_ideal_gain_is_nan(tmp_path):
    # Found by comparing with the binary: -l 0 counts grade-0 documents as relevant, none with a gain.
    out = trec_eval(tmp_path, ["-q", "-l", "0", "-m", "Rndcg"], qrels="1 0 a 0\n2 0 b 1\n",
                    run="1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    assert out.splitlines() == ["Rndcg                 \t1\t  -nan", "Rndcg                 \t2\t1.0000",
                                "Rndcg                 \tall\t  -nan"]


def test_missing_value_is_nan_in_tidy_columns_not_zero():
    # Point 3, evaluate's side: such a value is missing (NaN: empty in CSV, null in JSON), never 0.
    qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}})
    run = Run.from_dict({"1": {"x": 1.0}, "2": {"b": 1.0}})
    result = evaluate_run(qrels, run, requests_for(["iprec_at_recall.0"]), EvalOptions(judged_only=True))
    assert np.isnan(result.per_query[0, 0]) and result.per_query[1, 0] == 1.0
    assert np.isnan(result.tidy_columns()["value"][-1])


def test_set_f_with_negative_parameter_is_nan_where_trec_eval_divides_zero_by_zero(tmp_path):
    # Point 4: P == R makes x*P + R zero for x = -1.
    out = trec_eval(tmp_path, ["-q", "-m", "set_F.-1"], qrels="1 0 a 1\n1 0 b 1\n", run="1 Q0 a 1 2 t\n1 Q0 c 2 1 t\n")
    assert out.splitlines()[0] == "set_F_-1              \t1\t  -nan"


@pytest.mark.parametrize("batch", [None, 7])
def test_tied_scores_rank_the_larger_docno_first_in_a_shuffled_run(monkeypatch, batch):
    # Point 13's sort: numeric keys first, docnos compared only inside tie groups (a batch of groups at a time).
    if batch:
        from evalgui.core.ranked import ranking

        monkeypatch.setattr(ranking, "_TIE_BATCH", batch)
    rng = np.random.default_rng(3)
    n_q, n_d = 7, 300
    q = np.repeat([f"q{i}" for i in range(n_q)], n_d)
    # Long shared prefixes and lengths that differ: several 5-byte passes, shorter-first byte order.
    d = np.array([("clueweb12-00" if i % 3 else "d") + f"{rng.integers(0, 10**rng.integers(1, 7))}x{i % 50}"
                  for i in range(n_q * n_d)])
    s = np.round(rng.random(n_q * n_d) * 3, 1)
    perm = rng.permutation(len(q))
    run = Run(q[perm].tolist(), d[perm].tolist(), s[perm])
    judged = rng.random(len(q)) < 0.3
    qrels = Qrels(q[judged].tolist(), d[judged].tolist(), rng.integers(-1, 3, int(judged.sum())))
    # With -M every tie group is put in docno order (the order decides which documents are kept)...
    ranking, _ = prepare(qrels, run, max_docs=10**9)
    got = np.asarray(run.doc.combine_chunks().to_pylist(), dtype=object)[ranking.run_rows]
    # ... otherwise only groups with different judgments are: the judgments seen in rank order are the same.
    assert prepare(qrels, run)[0].rel.tolist() == ranking.rel.tolist()
    want = []
    for qid in sorted(set(q.tolist())):
        pairs = [(sc, doc) for qq, doc, sc in zip(q, d, s) if qq == qid]
        want += [doc for sc, doc in sorted(pairs, key=lambda p: (p[0], p[1].encode()), reverse=True)]
    assert got.tolist() == want


def test_prepare_ranks_the_topics_it_is_given():
    # Point 15: a topic the qrels do not judge is ranked when asked for (no placeholder qrels row).
    qrels = Qrels.from_dict({"1": {"a": 1}})
    run = Run.from_dict({"1": {"a": 1.0}, "9": {"b": 2.0, "c": 1.0}})
    ranking, _ = prepare(qrels, run, topics=["9"])
    assert ranking.query_ids.tolist() == ["9"] and ranking.rel.tolist() == [-1, -1]
    assert ranking.rel_levels.shape[0] == 1 and ranking.rel_levels.sum() == 0


def test_qrels_encodings_are_cached():
    qrels = Qrels.from_dict({"1": {"a": 1, "b": 0}, "2": {"a": 2}})
    assert qrels.doc_dictionary is qrels.doc_dictionary
    assert qrels.query_codes is qrels.query_codes
    assert qrels.query_ids[qrels.query_codes].tolist() == qrels.query.to_pylist()


# ---------------------------------------------------------------- against the binary, when there is one

BINARY_CASES = [
    ["-c", "-l", "2", "-m", "num_rel", "-m", "num_rel_ret"],
    ["-c", "-q", "-m", "all_trec"],
    ["-c", "-J", "-q", "-m", "all_trec"],
    ["-c", "-M", "0", "-q", "-m", "all_trec"],
    ["-c", "-q", "-m", "relstring.3", "-m", "utility.2,-1,0,0", "-m", "rbp_resid", "-m", "unj", "-m", "num_ret"],
]


def _binary() -> str | None:
    return os.environ.get("EVALGUI_TREC_EVAL") or shutil.which("trec_eval")


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (set EVALGUI_TREC_EVAL)")
@pytest.mark.parametrize("args", BINARY_CASES, ids=[" ".join(a) for a in BINARY_CASES])
def test_matches_the_trec_eval_binary(tmp_path, args):
    ours = trec_eval(tmp_path, args)
    theirs = subprocess.run([_binary()] + args + [str(tmp_path / "q"), str(tmp_path / "r")],
                            capture_output=True, text=True, check=True).stdout
    assert ours == theirs


# ---------------------------------------------------------------- point 4: parameters

@pytest.mark.parametrize("spec,name,ignored", [
    ("binG.1=3", "binG", True), ("bpref.1", "bpref", True), ("num_q.5", "num_q", True),
    ("rbp.p=0.8,rel=2", "rbp_p=0.8,rel=2", True), ("rbp_resid.p=0.5", "rbp_resid_p=0.5", False),
    ("set_F.-1", "set_F_-1", False), ("ndcg.1=1e400", "ndcg_1=1e400", False),
])
def test_trec_eval_accepts_what_trec_eval_accepts(spec, name, ignored):
    heard = []
    with np.errstate(all="raise"):  # and no numpy warning escapes
        [request] = requests_for([spec], warn=heard.append)
        result = evaluate_run(Qrels.from_dict({"1": {"a": 1, "b": 2}}), Run.from_dict({"1": {"a": 2.0, "c": 1.0}}),
                              [request])
    assert request.names == (name,)
    assert len(heard) == int(ignored) and all("\n" not in h for h in heard)
    assert len(format_lines(result)) == 1


def test_rbp_ignores_rel_and_rbp_resid_reads_p():
    qrels, run = Qrels.from_dict({"1": {"a": 1, "b": 2}}), Run.from_dict({"1": {"a": 2.0, "c": 1.0, "b": 0.5}})
    values = [evaluate_run(qrels, run, requests_for([s], warn=lambda m: None)).summary[0]
              for s in ("rbp.p=0.8,rel=2", "rbp.p=0.8", "rbp_resid.p=0.5")]
    assert values[0] == values[1]
    assert values[2] == pytest.approx(0.5 ** 3 + 0.5 * 0.5)  # c unjudged at rank 2, then the tail


@pytest.mark.parametrize("spec,words", [
    ("binG.1=3", "takes no parameters"), ("rbp.p=0.8,rel=2", "'rel' is not"), ("ndcg.1=1e400", "finite"),
    ("set_F.-1", "0 or more"), ("rbp.p=1.5", "p must be"), ("ndcg.p=2", "'p' is not"),
])
def test_evaluate_refuses_parameters_that_make_no_sense(spec, words):
    from evalgui.core.errors import EvalUsageError
    from evalgui.core.ranked.specs import parse_measures

    with pytest.raises(EvalUsageError, match=words):
        parse_measures([spec])


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (set EVALGUI_TREC_EVAL)")
def test_tied_shuffled_run_matches_the_trec_eval_binary(tmp_path):
    rng = np.random.default_rng(8)
    qrels, run = [], []
    for q in range(25):
        docs = [f"{'LA' if d % 2 else 'FT9'}{rng.integers(0, 10**rng.integers(1, 8))}-{d}" for d in range(300)]
        qrels += [f"{q} 0 {d} {rng.integers(-1, 4)}" for d in rng.choice(docs, 40, replace=False)]
        run += [f"{q} Q0 {d} 0 {round(float(rng.random()), 2)} t" for d in rng.permutation(docs)]
    args = ["-q", "-m", "all_trec", "-m", "relstring.50"]
    ours = trec_eval(tmp_path, args, qrels="\n".join(qrels) + "\n", run="\n".join(run) + "\n")
    theirs = subprocess.run([_binary()] + args + [str(tmp_path / "q"), str(tmp_path / "r")],
                            capture_output=True, text=True, check=True).stdout
    assert ours == theirs


def test_drill_down_never_shows_the_placeholder_as_a_run_document():
    from evalgui.core.ranked.curves import drill_down, drill_down_rankings

    qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}})
    run = Run.from_dict({"1": {"a": 2.0, "z": 1.0}})
    result = evaluate_run(qrels, run, requests_for(["num_ret"]), EvalOptions(complete=True))
    assert result.ranking.run_rows.tolist() == [0, 1, -1]
    side = drill_down_rankings(result.ranking, run, result.ranking, run, "2").a
    assert side.empty
    # A query nobody judged is ranked on request, every document unjudged.
    other = Run.from_dict({"9": {"x": 1.0, "y": 2.0}})
    view = drill_down(qrels, other, other, "9").a
    assert view["doc"].tolist() == ["y", "x"] and set(view["judgment"]) == {"unjudged"}


def test_drill_down_shows_tied_documents_judged_alike_in_trec_eval_order():
    from evalgui.core.ranked.curves import drill_down_rankings

    qrels = Qrels.from_dict({"1": {"a": 1}})
    run = Run.from_dict({"1": {"b": 1.0, "x": 1.0, "c": 1.0, "a": 2.0, "e": 1.0}})
    result = evaluate_run(qrels, run, requests_for(["P.5"]))
    side = drill_down_rankings(result.ranking, run, result.ranking, run, "1").a
    assert side["doc"].tolist() == ["a", "x", "e", "c", "b"]


@pytest.mark.parametrize("n_q, n_rows", [(7, 3000), (2**20, 2**21)])
def test_score_order_sorts_by_query_then_score_descending(n_q, n_rows):
    # Point 13's numeric sort: both of its paths (keys sorted with the row number inside them; argsort
    # when the query and row numbers leave too few bits), with scores equal but for their last bits,
    # negative scores, -0.0 and 0.0.
    from evalgui.core.ranked.ranking import _score_order

    rng = np.random.default_rng(5)
    run_q = rng.integers(0, n_q, n_rows).astype(np.int32)
    base = np.round(rng.normal(0, 10, n_rows), 1)
    scores = np.where(rng.random(n_rows) < 0.3, np.nextafter(base, np.inf), base)   # last-bit neighbours
    scores[rng.random(n_rows) < 0.01] = -0.0
    scores[rng.random(n_rows) < 0.01] = 0.0
    order = _score_order(run_q, scores, n_q)
    assert np.array_equal(np.sort(order), np.arange(n_rows))
    want = np.lexsort((-scores, run_q))
    assert np.array_equal(run_q[order], run_q[want]) and np.array_equal(scores[order], scores[want])


# ---------------------------------------------------------------- judgment groups: sums in trec_eval's order

def _cli_trec_eval(tmp_path, args, qrels: str, run: str, capsys) -> str:
    from evalgui.cli import main

    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    capsys.readouterr()
    assert main(["trec_eval", *args, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    return capsys.readouterr().out


def test_judgment_group_values_add_the_groups_in_order(tmp_path, capsys):
    # 47 retrieved documents; groups a, b, c, d find 34, 39, 47 and 35 of them relevant. trec_eval adds
    # 0.034 + 0.039 + 0.047 + 0.035 group after group (0.15500000000000003), then divides by 4: 0.0388.
    docs = [f"d{i:02d}" for i in range(47)]
    qrels = "".join(f"1 {g} {d} {int(i < n)}\n" for g, n in zip("abcd", (34, 39, 47, 35)) for i, d in enumerate(docs))
    run = "".join(f"1 Q0 {d} {i} {100 - i} t\n" for i, d in enumerate(docs))
    out = _cli_trec_eval(tmp_path, ["-q", "-R", "qrels_jg", "-m", "P_avgjg.1000"], qrels, run, capsys)
    assert out == "P_avgjg_1000          \t1\t0.0388\nP_avgjg_1000          \tall\t0.0388\n"


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (set EVALGUI_TREC_EVAL)")
@pytest.mark.parametrize("seed", range(3))
def test_judgment_groups_match_the_trec_eval_binary(tmp_path, capsys, seed):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        docs = np.unique([f"D{int(x)}" for x in rng.integers(0, 10**5, 700)])
        for g in rng.choice(["a", "b", "u1", "u10", "u2", "Z"], int(rng.integers(1, 7)), replace=False):
            qrels += [f"{q} {g} {d} {rng.choice([0, 0, 1, 2])}" for d in rng.choice(docs, int(rng.integers(5, 120)),
                                                                                 replace=False)]
        run += [f"{q} Q0 {d} {i} {round(float(rng.random()) * 10, 2)} t"
                for i, d in enumerate(rng.choice(docs, int(rng.integers(10, 650)), replace=False))]
    args = ["-q", "-R", "qrels_jg", "-m", "qrels_jg"]
    ours = _cli_trec_eval(tmp_path, args, "\n".join(qrels) + "\n", "\n".join(run) + "\n", capsys)
    theirs = subprocess.run([_binary()] + args + [str(tmp_path / "q"), str(tmp_path / "r")],
                            capture_output=True, text=True, check=True).stdout
    assert ours == theirs
