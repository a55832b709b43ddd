"""Subtopic qrels and ndeval's diversity measures: hand-computed values and pyndeval on random inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from evalgui.cli import main
from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.inputs import read_input
from evalgui.core.ranked.evaluate import EvalOptions, evaluate_run
from evalgui.core.ranked.specs import parse_measures
from evalgui.core.subtopics import SubtopicQrels

# Query 1: A covers subtopics 1 and 2, B subtopic 2, C subtopic 3, D none (S = 3).
# Query 2: X covers subtopic 1, Y subtopic 2 (grade 2).
QRELS = "1 1 A 1\n1 2 A 1\n1 2 B 1\n1 3 C 1\n1 1 D 0\n2 1 X 1\n2 2 Y 2\n"
RUN = "1 Q0 A 1 9.3 r\n1 Q0 D 2 8.4 r\n1 Q0 E 3 8.1 r\n1 Q0 B 4 7.6 r\n2 Q0 Y 1 3 r\n2 Q0 Z 2 2 r\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return tmp_path / "q.txt", tmp_path / "r.txt"


def values(qrels, run, specs, options=EvalOptions()):
    ev = evaluate_run(qrels, run, parse_measures(specs), options)
    return {(q, c.name): float(ev.per_query[i, j]) for i, q in enumerate(ev.query_ids)
            for j, c in enumerate(ev.columns)}


# ------------------------------------------------------------------ reading

def test_repeated_pairs_under_other_subtopics_are_subtopic_qrels(files):
    qrels = read_qrels(files[0])
    assert isinstance(qrels, SubtopicQrels)
    # ordinary measures see each (query, doc) once, with its highest grade
    pairs = dict(zip(zip(qrels.query.to_pylist(), qrels.doc.to_pylist()), qrels.rel.tolist()))
    assert pairs == {("1", "A"): 1, ("1", "B"): 1, ("1", "C"): 1, ("1", "D"): 0, ("2", "X"): 1, ("2", "Y"): 2}
    loaded = read_input(files[0])
    assert loaded.kind == "subtopic qrels" and loaded.record.label == "Subtopic qrels"
    assert loaded.summary["subtopics"] == 5 and loaded.summary["lines"] == 7
    assert any("highest grade" in w for w in loaded.warnings)


def test_plain_qrels_stay_plain_and_refuse_duplicates(tmp_path):
    (tmp_path / "plain.txt").write_text("1 0 A 1\n1 0 B 0\n")
    loaded = read_input(tmp_path / "plain.txt")
    assert loaded.kind == "qrels" and not isinstance(loaded.data, SubtopicQrels)
    (tmp_path / "dup.txt").write_text("1 0 A 1\n1 0 B 0\n1 0 A 0\n")
    with pytest.raises(EvalInputError) as err:
        read_qrels(tmp_path / "dup.txt")
    assert err.value.line == 3 and "'A'" in str(err.value)


def test_a_document_twice_in_one_subtopic_is_refused(tmp_path):
    (tmp_path / "q.txt").write_text("1 1 A 1\n1 2 A 1\n1 2 A 0\n")
    with pytest.raises(EvalInputError) as err:
        read_qrels(tmp_path / "q.txt")
    assert err.value.line == 3 and "subtopic 2" in str(err.value)


# ------------------------------------------------------------------ hand-computed (see the module docstring)

def test_hand_computed_query(files):
    qrels, run = read_qrels(files[0]), read_run(files[1])
    v = values(qrels, run, ["alpha_DCG@5", "alpha_nDCG@5", "ERR_IA@5", "nERR_IA@10", "NRBP", "nNRBP", "AP_IA",
                            "P_IA@5", "StRecall@5"])
    # Ranked A, D, E, B: gains 1+1, 0, 0, (1-0.5) (B's subtopic 2 already covered by A). S = 3.
    ideal_ideal_5 = sum(3 * 0.5 ** i / math.log2(i + 2) for i in range(5))
    run_dcg = 2 + 0.5 / math.log2(5)
    assert v["1", "alpha_DCG@5"] == pytest.approx(run_dcg / ideal_ideal_5, rel=1e-14)
    # Greedy ideal: A (gain 2), C (1), B (0.5).
    assert v["1", "alpha_nDCG@5"] == pytest.approx(run_dcg / (2 + 1 / math.log2(3) + 0.5 / 2), rel=1e-14)
    assert v["1", "ERR_IA@5"] == pytest.approx((2 + 0.5 / 4) / sum(3 * 0.5 ** i / (i + 1) for i in range(5)))
    assert v["1", "nERR_IA@10"] == pytest.approx((2 + 0.5 / 4) / (2 + 1 / 2 + 0.5 / 3))
    assert v["1", "NRBP"] == pytest.approx((1 - 0.5 * 0.5) / 3 * (2 + 0.5 * 0.5 ** 3))
    assert v["1", "nNRBP"] == pytest.approx((2 + 0.5 * 0.5 ** 3) / (2 + 1 * 0.5 + 0.5 * 0.25))
    assert v["1", "AP_IA"] == pytest.approx((1 + (1 + 2 / 4) / 2 + 0) / 3)
    assert v["1", "P_IA@5"] == pytest.approx(3 / (5 * 3))
    assert v["1", "StRecall@5"] == pytest.approx(2 / 3)


def test_alpha_ndcg_paper_example():
    """As in Clarke et al. (SIGIR 2008): a subtopic covered again is worth (1-alpha) = 1/2; one query, three
    subtopics, worked by hand."""
    qrels = SubtopicQrels.from_lines(["q"] * 4, ["1", "2", "1", "3"], ["a", "a", "b", "c"], [1, 1, 1, 1])
    from evalgui.core.data import Run
    run = Run(["q"] * 3, ["b", "a", "c"], [3.0, 2.0, 1.0])
    v = values(qrels, run, ["alpha_nDCG@3", "alpha_DCG@3"])
    dcg = 1 + (0.5 + 1) / math.log2(3) + 1 / 2       # b: s1; a: s1 again (1/2) and s2; c: s3
    ideal = 2 + 1 / math.log2(3) + 0.5 / 2            # a (s1, s2); then c (s3: 1) before b (s1 again: 1/2)
    assert v["q", "alpha_nDCG@3"] == pytest.approx(dcg / ideal, rel=1e-14)
    assert v["q", "alpha_DCG@3"] == pytest.approx(dcg / (3 + 1.5 / math.log2(3) + 0.75 / 2), rel=1e-14)


def test_tied_documents_of_one_grade_are_ordered_by_docno():
    """a and b tie and share a grade but not a subtopic: ndeval -traditional's order (b, a) decides."""
    from evalgui.core.data import Run
    qrels = SubtopicQrels.from_lines(["q"] * 3, ["1", "2", "1"], ["a", "b", "c"], [1, 1, 1])
    run = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0, 0.5])
    # subtopic 1: a at 2, c at 3 -> (1/2 + 2/3) / 2; subtopic 2: b at 1 -> 1 (a before b would give 2/3)
    assert values(qrels, run, ["AP_IA"])["q", "AP_IA"] == pytest.approx(((1 / 2 + 2 / 3) / 2 + 1) / 2)


def test_complete_scores_missing_queries_zero(files, tmp_path):
    (tmp_path / "r1.txt").write_text("1 Q0 A 1 9 r\n")
    qrels, run = read_qrels(files[0]), read_run(tmp_path / "r1.txt")
    v = values(qrels, run, ["alpha_nDCG@5", "nNRBP", "AP_IA"], EvalOptions(complete=True))
    assert v["2", "alpha_nDCG@5"] == 0 and v["2", "nNRBP"] == 0 and v["2", "AP_IA"] == 0
    assert v["1", "AP_IA"] == pytest.approx((1 + 0.5) / 3)


def test_plain_qrels_are_one_subtopic(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 A 1\n1 0 B 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 B 1 2 r\n1 Q0 A 2 1 r\n")
    v = values(read_qrels(tmp_path / "q.txt"), read_run(tmp_path / "r.txt"), ["StRecall@1", "P_IA@2", "AP_IA"])
    assert v["1", "StRecall@1"] == 1 and v["1", "P_IA@2"] == 1 and v["1", "AP_IA"] == 1


def test_ir_measures_spellings():
    reqs = parse_measures(["alpha_nDCG(alpha=0.3)@20", "NRBP(alpha=0.2,beta=0.9)", "AP_IA(rel=2)", "StRecall@10",
                           "P_IA.5,10", "nNRBP"])
    assert reqs[0].params == (20, ("alpha", 0.3)) and reqs[0].names == ("alpha_nDCG(alpha=0.3)@20",)
    assert reqs[1].params == (("alpha", 0.2), ("beta", 0.9))
    assert reqs[2].relevance_level == 2
    assert reqs[4].names == ("P_IA_5", "P_IA_10")
    alias = parse_measures(["MAP_IA"])[0]
    assert alias.measure.name == "AP_IA" and alias.names == ("MAP_IA",)
    for bad in ["alpha_nDCG()", "alpha_nDCG@x", "alpha_nDCG(beta=0.5)@5", "AP_IA@5", "NRBP(alpha=2)",
                "ERR_IA(alpha=0.3)@5"]:
        with pytest.raises(EvalUsageError):
            parse_measures([bad])


def test_cli_warns_once_for_ordinary_measures(files, capsys):
    status = main(["evaluate", str(files[0]), str(files[1]), "-m", "P.5", "-m", "map", "-m", "alpha_nDCG@5"])
    err = capsys.readouterr().err
    assert status == 0 and err.count("highest grade") == 1
    main(["evaluate", str(files[0]), str(files[1]), "-m", "alpha_nDCG@5"])
    assert "highest grade" not in capsys.readouterr().err


# ------------------------------------------------------------------ pyndeval, value for value

PYNDEVAL_MEASURES = ["alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "P-IA", "strec"]
OURS = {"alpha-DCG": "alpha_DCG", "alpha-nDCG": "alpha_nDCG", "ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA",
        "P-IA": "P_IA", "strec": "StRecall", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA"}


def random_collection(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(int(rng.integers(1, 6))):
        n_docs = int(rng.integers(1, 40))
        for d in range(n_docs):
            for s in rng.choice(6, size=int(rng.integers(1, 4)), replace=False):
                qrels.append((f"q{q}", str(int(s)), f"d{d}", int(rng.choice([0, 0, 1, 2]))))
        ranked = rng.choice(60, size=int(rng.integers(1, 45)), replace=False)
        scores = rng.permutation(len(ranked)) + rng.random()   # distinct: pyndeval breaks ties otherwise
        run += [(f"q{q}", f"d{d}", float(sc)) for d, sc in zip(ranked, scores)]
    return qrels, run


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alpha,beta,rel", [(0.5, 0.5, 1), (0.25, 0.8, 1), (0.75, 0.3, 2)])
def test_matches_pyndeval(seed, alpha, beta, rel):
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    from evalgui.core.data import Run

    qrels_rows, run_rows = random_collection(seed * 7 + int(alpha * 100))
    cutoffs = [1, 2, 3, 5, 10, 20]
    names = [f"{m}@{k}" for m in PYNDEVAL_MEASURES for k in cutoffs] + ["NRBP", "nNRBP", "MAP-IA"]
    ev = pyndeval.RelevanceEvaluator([pyndeval.SubtopicQrel(*row) for row in qrels_rows], names,
                                     relevance_level=rel, alpha=alpha, beta=beta)
    expected = ev.evaluate(sorted(pyndeval.ScoredDoc(*row) for row in run_rows))
    qrels = SubtopicQrels.from_lines(*zip(*qrels_rows))
    run = Run(*map(list, zip(*run_rows)))
    a, b = f"alpha={alpha}", f"alpha={alpha},beta={beta}"
    specs = {}
    for name in names:
        m, _, k = name.partition("@")
        ours = OURS[m]
        arg = f"({a},rel={rel})" if ours in ("alpha_DCG", "alpha_nDCG") else \
            f"({b},rel={rel})" if ours in ("NRBP", "nNRBP") else f"(rel={rel})"
        if ours in ("ERR_IA", "nERR_IA") and alpha != 0.5:
            continue   # ir_measures' ERR_IA takes no alpha (ndeval's default 0.5)
        specs[name] = f"{ours}{arg}" + (f"@{k}" if k else "")
    if alpha == 0.5 and rel == 1:
        specs["nERR-IA@all"] = "nERR_IA.1,2,3,5,10,20"   # several cutoffs in one request
    got = values(qrels, run, list(specs.values()))
    checked = 0
    for q, per_q in expected.items():
        for name, spec in specs.items():
            if name == "nERR-IA@all":
                for k in cutoffs:
                    assert got[q, f"nERR_IA_{k}"] == pytest.approx(per_q[f"nERR-IA@{k}"], rel=1e-12, abs=1e-15)
                continue
            want, have = per_q[name], got[q, spec]
            assert (math.isnan(want) and math.isnan(have)) or have == pytest.approx(want, rel=1e-12, abs=1e-15), \
                (q, name, want, have)
            checked += 1
    assert checked


# ------------------------------------------------------------------ ndeval's rank order

def test_rank_order_reads_the_rank_column(tmp_path):
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    qrels_rows, run_rows = random_collection(99)
    rng = np.random.default_rng(5)
    lines, as_ranked = [], []
    for q in sorted({r[0] for r in run_rows}):
        docs = [d for qq, d, _ in run_rows if qq == q]
        ranks = rng.permutation(len(docs)) * 3 + 1          # ranks with gaps, unrelated to the scores
        for d, rank in zip(docs, ranks):
            lines.append(f"{q} Q0 {d} {rank} {rng.random():.6f} r\n")
            as_ranked.append(pyndeval.ScoredDoc(q, d, -float(rank)))   # pyndeval sorts by score
    (tmp_path / "r.txt").write_text("".join(lines))
    names = ["alpha-nDCG@5", "ERR-IA@10", "NRBP", "MAP-IA", "P-IA@5", "strec@20"]
    expected = pyndeval.ndeval([pyndeval.SubtopicQrel(*row) for row in qrels_rows], sorted(as_ranked),
                               measures=names)
    qrels = SubtopicQrels.from_lines(*zip(*qrels_rows))
    got = values(qrels, read_run(tmp_path / "r.txt"), ["alpha_nDCG@5", "ERR_IA@10", "NRBP", "AP_IA", "P_IA@5",
                                                        "StRecall@20"], EvalOptions(diversity_order="rank"))
    for q, per_q in expected.items():
        for name, spec in zip(names, ["alpha_nDCG@5", "ERR_IA@10", "NRBP", "AP_IA", "P_IA@5", "StRecall@20"]):
            assert got[q, spec] == pytest.approx(per_q[name], rel=1e-12, abs=1e-15), (q, name)


def test_rank_order_refuses_a_rank_given_twice(files, tmp_path, capsys):
    (tmp_path / "twice.txt").write_text("1 Q0 A 1 9 r\n1 Q0 B 1 8 r\n")
    with pytest.raises(EvalInputError, match="rank 1 is given twice"):
        values(read_qrels(files[0]), read_run(tmp_path / "twice.txt"), ["alpha_nDCG@5"],
               EvalOptions(diversity_order="rank"))
    status = main(["evaluate", str(files[0]), str(tmp_path / "twice.txt"), "-m", "alpha_nDCG@5",
                   "--ndeval-rank-order"])
    assert status == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


# ------------------------------------------------------------------ the ndeval binary (ties, -c, rank order)

def ndeval_binary():
    import os
    import shutil

    found = os.environ.get("EVALGUI_NDEVAL") or shutil.which("ndeval")
    if not found:
        pytest.skip("ndeval not found (set EVALGUI_NDEVAL to a binary built with gcc from ndeval.c, e.g. "
                    "trec-web/trec-web-2014 src/eval/ndeval.c)")
    return found


NDEVAL_COLUMNS = {"ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA", "alpha-DCG": "alpha_DCG", "alpha-nDCG": "alpha_nDCG",
                  "P-IA": "P_IA", "strec": "StRecall", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA"}


@pytest.mark.parametrize("flags", [["-traditional"], ["-traditional", "-c"], []])
@pytest.mark.parametrize("seed", range(4))
def test_matches_the_ndeval_binary(tmp_path, flags, seed):
    import csv
    import subprocess

    binary = ndeval_binary()
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for topic in range(1, 7):
        for d in range(int(rng.integers(1, 30))):
            for s in rng.choice(np.arange(1, 6), size=int(rng.integers(1, 3)), replace=False):
                qrels_lines.append(f"{topic} {s} doc{d:03d} {int(rng.choice([0, 1, 1, 2]))}\n")
        if topic == 6:
            continue          # judged, no results (-c scores it 0)
        ranked = rng.choice(40, size=int(rng.integers(1, 35)), replace=False)
        ranks = rng.permutation(len(ranked)) + 1
        for d, rank in zip(ranked, ranks):
            score = round(float(rng.random()), 1)            # many ties: docno breaks them
            run_lines.append(f"{topic} Q0 doc{d:03d} {rank} {score} run\n")
    (tmp_path / "q.txt").write_text("".join(qrels_lines))
    (tmp_path / "r.txt").write_text("".join(run_lines))
    out = subprocess.run([binary, *flags, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")], capture_output=True,
                         text=True, check=True).stdout
    rows = list(csv.DictReader(out.splitlines()))
    options = EvalOptions(complete="-c" in flags, diversity_order="score" if "-traditional" in flags else "rank")
    specs = ["ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "P_IA", "StRecall", "NRBP", "nNRBP", "AP_IA"]
    ev = evaluate_run(read_qrels(tmp_path / "q.txt"), read_run(tmp_path / "r.txt"), parse_measures(specs), options)
    names = [c.name for c in ev.columns]
    for row in rows:
        i = list(ev.query_ids).index(row["topic"]) if row["topic"] != "amean" else None
        for column, text in row.items():
            if column in ("runid", "topic"):
                continue
            base, _, k = column.partition("@")
            j = names.index(NDEVAL_COLUMNS[base] + (f"_{k}" if k else ""))
            ours = ev.summary[j] if i is None else ev.per_query[i, j]
            assert abs(ours - float(text)) <= 5.1e-7, (flags, row["topic"], column, ours, text)


def test_trec_eval_subcommand_warns_on_subtopic_qrels(files, capsys):
    assert main(["trec_eval", str(files[0]), str(files[1]), "-m", "P.5"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("highest grade") == 1 and "P_5" in captured.out


# ------------------------------------------------------------------ hypothesis: small edge cases against pyndeval

_judgment = st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(["1", "2", "3"]),
                      st.sampled_from([f"d{i}" for i in range(8)]), st.sampled_from([0, 1, 2]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgments=st.lists(_judgment, min_size=1, max_size=25, unique_by=lambda t: t[:3]),
       ranked=st.lists(st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from([f"d{i}" for i in range(10)])),
                       min_size=1, max_size=20, unique=True))
def test_small_collections_match_pyndeval(judgments, ranked):
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    from evalgui.core.data import Run

    run_rows = [(q, d, float(len(ranked) - i)) for i, (q, d) in enumerate(ranked)]   # distinct scores
    names = ["alpha-DCG@2", "alpha-nDCG@3", "ERR-IA@1", "nERR-IA@5", "P-IA@4", "strec@2", "NRBP", "nNRBP", "MAP-IA"]
    specs = ["alpha_DCG@2", "alpha_nDCG@3", "ERR_IA@1", "nERR_IA@5", "P_IA@4", "StRecall@2", "NRBP", "nNRBP",
             "AP_IA"]
    expected = pyndeval.ndeval([pyndeval.SubtopicQrel(*j) for j in judgments],
                               sorted(pyndeval.ScoredDoc(*row) for row in run_rows), measures=names)
    got = values(SubtopicQrels.from_lines(*zip(*judgments)), Run(*map(list, zip(*run_rows))), specs)
    for q, per_q in expected.items():
        for name, spec in zip(names, specs):
            want, have = per_q[name], got[q, spec]
            assert (math.isnan(want) and math.isnan(have)) or have == pytest.approx(want, rel=1e-12, abs=1e-15), \
                (q, name, want, have)


# ------------------------------------------------------------------ the ideal ranking's ties, decided exactly

def _exact_ideal(docs: dict[str, set], keep: float) -> list[str]:
    """ndeval's greedy ideal ranking with exact arithmetic: the largest gain, ties to the larger docno."""
    from fractions import Fraction

    seen: dict[str, int] = {}
    order, left = [], set(docs)
    while left:
        gain = {d: sum((Fraction(keep) ** seen.get(s, 0) for s in docs[d]), Fraction(0)) for d in left}
        top = max(gain.values())
        chosen = max(d for d in left if gain[d] == top)
        order.append(chosen)
        left.remove(chosen)
        for s in docs[chosen]:
            seen[s] = seen.get(s, 0) + 1
    return order


def _alpha_ndcg_and_nnrbp(docs: dict[str, set], ranked: list[str], alpha: float, beta: float, k: int):
    """alpha-nDCG@k and nNRBP of ``ranked`` against the exact ideal ranking (the "ideal ideal" cancels)."""
    def gains(order):
        seen, out = {}, []
        for d in order:
            out.append(sum((1 - alpha) ** seen.get(s, 0) for s in docs.get(d, ())))
            for s in docs.get(d, ()):
                seen[s] = seen.get(s, 0) + 1
        return out

    def dcg(g):
        return sum(x / math.log2(i + 2) for i, x in enumerate(g[:k]))

    def rbp(g):
        return sum(x * beta ** i for i, x in enumerate(g))

    ideal = gains(_exact_ideal(docs, 1 - alpha))
    run = gains(ranked)
    return dcg(run) / dcg(ideal), rbp(run) / rbp(ideal)


# Two documents add exactly 0.7 + 0.49 + 0.49 at one rank (alpha 0.3); added in subtopic order, d5's
# sum is 1.6799999999999997 and d7's 1.68, so rounding chose d5 where the rule (ties to the larger
# docno) chooses d7, and the ideal ranking went on differently from there.
TIED = {"d0": {0, 2}, "d1": {5}, "d2": {0, 3, 5, 6}, "d3": {0, 1, 3}, "d4": {2, 4}, "d5": {0, 1, 3, 6},
        "d6": {5}, "d7": {0, 1, 2, 3}, "d8": {0, 3, 4, 5}, "d9": {1, 2, 3, 6}}
TIED_RUN = ["d3", "d1", "d9", "d0", "d6", "d2", "x1", "d4", "d8", "d5", "d7"]


def test_ideal_ranking_breaks_exact_ties_by_docno_not_by_rounding():
    from evalgui.core.data import Run

    qrels = SubtopicQrels.from_lines(*zip(*[("q", str(s), d, 1) for d, subs in TIED.items() for s in sorted(subs)]))
    run = Run(["q"] * len(TIED_RUN), TIED_RUN, [float(len(TIED_RUN) - i) for i in range(len(TIED_RUN))])
    got = values(qrels, run, ["alpha_nDCG(alpha=0.3)@10", "nNRBP(alpha=0.3,beta=0.5)"])
    ndcg, nnrbp = _alpha_ndcg_and_nnrbp(TIED, TIED_RUN, 0.3, 0.5, 10)
    assert got["q", "alpha_nDCG(alpha=0.3)@10"] == pytest.approx(ndcg, rel=1e-12)
    assert got["q", "nNRBP(alpha=0.3,beta=0.5)"] == pytest.approx(nnrbp, rel=1e-12)
    assert ndcg == pytest.approx(0.8163330658645, abs=1e-12)     # ideal d9 d8 d7 d2 d5 ...; rounding's: d9 d8 d5 d7
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    # pyndeval adds a document's subtopics in the order the subtopics first appear: listed from 6 down
    # to 0, the tied sums come out equal there, and its docno rule decides.
    rows = [("q", str(s), d, 1) for s in range(6, -1, -1) for d, subs in TIED.items() if s in subs]
    expected = pyndeval.ndeval([pyndeval.SubtopicQrel(*r) for r in rows],
                               sorted(pyndeval.ScoredDoc("q", d, float(len(TIED_RUN) - i))
                                      for i, d in enumerate(TIED_RUN)),
                               measures=["alpha-nDCG@10", "nNRBP"], alpha=0.3, beta=0.5)["q"]
    assert got["q", "alpha_nDCG(alpha=0.3)@10"] == pytest.approx(expected["alpha-nDCG@10"], rel=1e-12)
    assert got["q", "nNRBP(alpha=0.3,beta=0.5)"] == pytest.approx(expected["nNRBP"], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ideal_ranking_matches_exact_arithmetic_on_random_collections(seed):
    from evalgui.core.data import Run

    rng = np.random.default_rng(seed)
    qrels_rows, run_rows, truth = [], [], {}
    for q in range(150):
        docs = {f"d{d}": {int(s) for s in rng.choice(8, size=int(rng.integers(1, 5)), replace=False)}
                for d in range(12)}
        qrels_rows += [(f"q{q}", str(s), d, 1) for d, subs in docs.items() for s in sorted(subs)]
        ranked = [f"d{d}" for d in rng.choice(16, size=12, replace=False)]
        run_rows += [(f"q{q}", d, float(12 - i)) for i, d in enumerate(ranked)]
        truth[f"q{q}"] = _alpha_ndcg_and_nnrbp(docs, ranked, 0.3, 0.5, 10)
    got = values(SubtopicQrels.from_lines(*zip(*qrels_rows)), Run(*map(list, zip(*run_rows))),
                 ["alpha_nDCG(alpha=0.3)@10", "nNRBP(alpha=0.3,beta=0.5)"])
    for q, (ndcg, nnrbp) in truth.items():
        assert got[q, "alpha_nDCG(alpha=0.3)@10"] == pytest.approx(ndcg, rel=1e-12), q
        assert got[q, "nNRBP(alpha=0.3,beta=0.5)"] == pytest.approx(nnrbp, rel=1e-12), q
