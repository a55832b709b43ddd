"""gdeval's ERR/nDCG, the C/W/L family, Compat, Accuracy and ir_measures' other names and arguments:
hand-computed values, and value for value with the reference tools on random data (gdeval.pl through
perl, cwl_eval, ir_measures), each skipped with a reason when absent.

Random runs have distinct scores, so that every tool ranks them alike (ties: trec_eval and gdeval put
the larger docno first, cwl_eval and ir_measures keep the file's order, Compat the smaller docno).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked.evaluate import evaluate_run
from evalgui.core.ranked.specs import parse_measures

# ------------------------------------------------------------------ helpers


def per_query(measures, qrels, run):
    result = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(measures))
    return {q: dict(zip([c.name for c in result.columns], row)) for q, row in zip(result.query_ids, result.per_query)}


def random_data(seed, n_queries=12, grades=(-1, 0, 0, 0, 1, 1, 2, 3, 4)):
    """Numeric topics (gdeval needs them), distinct scores, some documents unjudged or not in the qrels."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(1, n_queries + 1):
        pool = [f"d{i}" for i in range(int(rng.integers(5, 60)))]
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
        qrels[str(q)] = {d: int(rng.choice(grades)) for d in judged}
        retrieved = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
        scores = rng.permutation(len(retrieved)) + rng.random()
        run[str(q)] = {d: float(s) for d, s in zip(retrieved, scores)}
    # one query whose judgments are all below 1, one with a long ranking (cwl_eval reads 1000 ranks)
    qrels["99"] = {"a": 0, "b": -1}
    run["99"] = {"a": 2.0, "b": 1.0, "c": 0.5}
    qrels["100"] = {f"x{i}": int(rng.choice(grades)) for i in range(0, 1300, 7)}
    run["100"] = {f"x{i}": float(2000 - i + rng.random() / 2) for i in range(1200)}
    return qrels, run


def write_trec(tmp_path: Path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = []
    for q, docs in run.items():
        for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1):
            lines.append(f"{q} Q0 {d} {rank} {s!r} tag\n")
    run_path.write_text("".join(lines))
    return qrels_path, run_path


def ir_values(measure_specs, qrels, run, provider=None):
    """ir_measures' per-query values {query: {spec: value}} for the specs (through ``provider`` if given)."""
    ir_measures = pytest.importorskip("ir_measures")
    parsed = [ir_measures.parse_measure(s) for s in measure_specs]
    calc = ir_measures if provider is None else getattr(ir_measures, provider)
    out: dict[str, dict[str, float]] = {}
    for metric in calc.iter_calc(parsed, qrels, run):
        out.setdefault(metric.query_id, {})[measure_specs[parsed.index(metric.measure)]] = metric.value
    return out


# ------------------------------------------------------------------ hand-computed values

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1, "d5": -1, "d9": 1}}
RUN = {"q1": {"d1": 0.9, "dX": 0.8, "d2": 0.7, "d3": 0.6, "d5": 0.5, "d4": 0.4}}


def test_gdeval_err_and_ndcg_by_hand():
    v = per_query(["ERR@5", 'nDCG(dcg="exp-log2")@5', "err_cut.1"], QRELS, RUN)["q1"]
    r1, r3 = 1 / 16, 3 / 16                 # (2^1 - 1)/16 at rank 1, (2^2 - 1)/16 at rank 4
    assert v["ERR@5"] == pytest.approx(r1 + (1 - r1) * r3 / 4)
    assert v["err_cut_1"] == pytest.approx(r1)
    dcg = 1 + 3 / math.log2(5)
    ideal = 3 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)   # grades 2, 1, 1, 1
    assert v['nDCG(dcg="exp-log2")@5'] == pytest.approx(dcg / ideal)


def test_gdeval_grades_above_4():
    """gdeval refuses them; ERR counts them as 4, nDCG gains 2^g - 1 as for any grade."""
    v = per_query(["ERR@3", 'nDCG(dcg="exp-log2")@3'], {"q": {"a": 6, "b": 1}}, {"q": {"b": 2.0, "a": 1.0}})["q"]
    assert v["ERR@3"] == pytest.approx(1 / 16 + (15 / 16) * (15 / 16) / 2)
    assert v['nDCG(dcg="exp-log2")@3'] == pytest.approx((1 + 63 / math.log2(3)) / (63 + 1 / math.log2(3)))


def test_cwl_measures_by_hand():
    # max_rel=2: gains 0.5 (d1), 0 (dX, d2), 1 (d3), 0 (d5), 0.5 (d4), then 994 gainless ranks.
    v = per_query(["INSQ(T=1,max_rel=2)", "NERR8(max_rel=2)@3", "BPM(T=1.5,max_rel=2)@10", "SDCG(max_rel=2)@2",
                   "RBP(p=0.5,max_rel=2)"], QRELS, RUN)["q1"]
    assert v["NERR8(max_rel=2)@3"] == pytest.approx((0.5 + 0.5 * 0 + 0.5 * 0) / (1 + 0.5 + 0.5))
    # BPM: goes on while gain so far < 1.5: ranks 1..3 go on (0.5), rank 4 reaches 1.5 and stops.
    assert v["BPM(T=1.5,max_rel=2)@10"] == pytest.approx((0.5 + 1.0) / 4)
    assert v["SDCG(max_rel=2)@2"] == pytest.approx(0.5 / (1 + 1 / math.log2(3)))
    weights = 0.5 ** np.arange(1000)
    gains = np.zeros(1000)
    gains[[0, 3, 5]] = [0.5, 1.0, 0.5]
    assert v["RBP(p=0.5,max_rel=2)"] == pytest.approx((weights * gains).sum() / weights.sum())
    c = ((np.arange(1, 1001) + 1.0) / (np.arange(1, 1001) + 2.0)) ** 2
    reach = np.concatenate(([1.0], np.cumprod(c[:-1])))
    assert v["INSQ(T=1,max_rel=2)"] == pytest.approx((reach * gains).sum() / reach.sum())


def test_compat_and_accuracy_by_hand():
    # Ideal: d3 (2), then grade 1: d1, d4 (retrieved, in rank order), d9. Ranking: d1 dX d2 d3 d5 d4.
    v = per_query(["Compat(p=0.5,normalize=False)", "Compat(p=0.5)", "Accuracy", "Accuracy@4"], QRELS, RUN)["q1"]
    ideal, ranking = ["d3", "d1", "d4", "d9"], ["d1", "dX", "d2", "d3", "d5", "d4"]
    depth = 6

    def rbo(a, b):
        return sum(0.5 ** d * len(set(a[:d + 1]) & set(b[:d + 1])) / (d + 1) for d in range(depth)) / \
            sum(0.5 ** d for d in range(depth))
    assert v["Compat(p=0.5,normalize=False)"] == pytest.approx(rbo(ranking, ideal))
    assert v["Compat(p=0.5)"] == pytest.approx(rbo(ranking, ideal) / rbo(ideal, ideal))
    # Relevant at ranks 1, 4, 6 with 0, 2, 3 non-relevant above; 3 non-relevant in all.
    assert v["Accuracy"] == pytest.approx(1 - (0 + 2 + 3) / (3 * 3))
    assert v["Accuracy@4"] == pytest.approx(1 - (0 + 2) / (2 * 2))


def test_judged_only_and_gains_by_hand():
    v = per_query(["P(judged_only=True)@5", "P@5", "nDCG(gains={0:0,1:1,2:5})@10", "ndcg_cut.10",
                   "SetAP", "SetRelP", "MAP"], QRELS, RUN)["q1"]
    assert v["P@5"] == pytest.approx(2 / 5)
    assert v["P(judged_only=True)@5"] == pytest.approx(3 / 5)    # d1 d2 d3 d4 (dX, d5 dropped): 3 relevant
    dcg = 1 + 5 / math.log2(5) + 1 / math.log2(7)
    ideal = 5 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert v["nDCG(gains={0:0,1:1,2:5})@10"] == pytest.approx(dcg / ideal)
    assert v["SetAP"] == pytest.approx(3 / 6 * 3 / 4)
    assert v["SetRelP"] == pytest.approx(3 / 4)
    assert v["MAP"] == pytest.approx((1 + 2 / 4 + 3 / 6) / 4)


@pytest.mark.parametrize("spec, reason", [
    ("ERR", "needs a cutoff"), ("BPM(max_rel=3)", "needs a cutoff"), ("INST(max_rel=3)@5", "takes no cutoff"),
    ("INST(min_rel=3,max_rel=3)", "above min_rel"), ('nDCG(dcg="exp-log2",gains={0:0,1:1})@5', "cannot be combined"),
    ("nDCG(gains={1:-2})@5", "0 or more"), ("P(judged_only=maybe)@5", "True or False"), ("Compat@5", "no cutoff"),
    ("Accuracy(rel=0)", "1 or more"), ("nDCG(dcg=log3)", "log2 or exp-log2"), ("SDCG(max_rel=2,dcg=exp)@5", "unknown"),
])
def test_refused_with_a_reason(spec, reason):
    with pytest.raises(EvalUsageError, match=reason):
        parse_measures([spec])


# ------------------------------------------------------------------ against the reference tools


def _gdeval_script() -> Path:
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: gdeval.pl cannot run")
    try:
        import ir_measures
    except ImportError:
        pytest.skip("ir_measures (which ships gdeval.pl) is not installed")
    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    if not script.exists():
        pytest.skip(f"gdeval.pl is not where ir_measures keeps it ({script})")
    return script


@pytest.mark.parametrize("seed", [1, 2])
def test_gdeval_value_for_value(tmp_path, seed):
    script = _gdeval_script()
    qrels, run = random_data(seed)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    for k in (5, 10, 20):
        out = subprocess.run(["perl", str(script), str(qrels_path), str(run_path), str(k)], check=True,
                             capture_output=True, text=True).stdout.splitlines()
        err_name, ndcg_name = f"ERR@{k}", f'nDCG(dcg="exp-log2")@{k}'
        ours = per_query([err_name, ndcg_name], qrels, run)
        seen = set()
        for line in out[1:]:
            _, topic, ndcg, err = line.split(",")
            seen.add(topic)
            assert f"{ours[topic][ndcg_name]:.5f}" == ndcg, (topic, k)
            assert f"{ours[topic][err_name]:.5f}" == err, (topic, k)
        # gdeval leaves out the queries whose grades are all below 1; evalgui scores them 0
        unrated = {q for q, docs in qrels.items() if max(docs.values()) < 1}
        assert "99" in unrated and seen == set(ours) - unrated
        assert all(ours[q][err_name] == ours[q][ndcg_name] == 0.0 for q in unrated)


CWL_SPECS = ["BPM(T=1,max_rel=4)@10", "BPM(T=2.5,min_rel=1,max_rel=3)@20", "SDCG(max_rel=4)@10", "SDCG(max_rel=2)@5",
             "NERR8(max_rel=4)@10", "NERR9(max_rel=3)@20", "NERR10(p=0.8,max_rel=4)", "NERR10(max_rel=2)",
             "NERR11(T=2,max_rel=4)", "INST(T=1,max_rel=4)", "INST(T=3,min_rel=1,max_rel=4)", "INSQ(T=2,max_rel=4)",
             "INSQ(max_rel=1)", "RBP(rel=1)", "RBP(p=0.5,rel=2)"]


@pytest.mark.parametrize("seed", [3, 4])
def test_cwl_value_for_value(seed):
    pytest.importorskip("cwl", reason="cwl_eval is not installed")
    qrels, run = random_data(seed)
    expected = ir_values(CWL_SPECS, qrels, run, provider="cwl_eval")
    ours = per_query(CWL_SPECS, qrels, run)
    assert set(expected) == set(ours)
    for q, row in expected.items():
        for spec, value in row.items():
            assert ours[q][spec] == pytest.approx(value, rel=1e-9, abs=1e-12), (q, spec)


def test_graded_rbp_value_for_value():
    """RBP with graded gains is not an ir_measures name: checked against cwl_eval's RBP metric directly."""
    pytest.importorskip("cwl", reason="cwl_eval is not installed")
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.ranking import Ranking as CwlRanking
    qrels, run = random_data(5)
    ours = per_query(["RBP(p=0.7,max_rel=4)", "RBP(p=0.9,min_rel=1,max_rel=3)"], qrels, run)
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda d: -docs[d])
        for spec, p, lo, hi in (("RBP(p=0.7,max_rel=4)", 0.7, 0, 4), ("RBP(p=0.9,min_rel=1,max_rel=3)", 0.9, 1, 3)):
            gains = [np.nan if d not in qrels[q] else (min(max(max(qrels[q][d], 0), lo), hi) - lo) / (hi - lo)
                     for d in ranked]
            expected = RBPCWLMetric(p).measure(CwlRanking(q, gains, [np.nan] * len(gains)))
            assert ours[q][spec] == pytest.approx(expected, rel=1e-9, abs=1e-12), (q, spec)


# ------------------------------------------------------------------ every ir_measures name evalgui claims

# Each spec is computed by ir_measures (whichever provider it picks) and by evalgui, query by query.
CLAIMED = """
AP AP@10 AP(rel=2) AP(judged_only=True) AP(judged_only=True)@5 MAP MAP@5 AP(rel=2)@10
P@5 P(rel=2)@5 P(judged_only=True)@10 Precision@5
RR RR(rel=2) RR(judged_only=True) MRR RR@10
R@10 R(judged_only=True)@10 Recall@10 R(rel=2)@10
nDCG nDCG@10 nDCG(judged_only=True)@10 nDCG(judged_only=True) nDCG(gains={0:0,1:1,2:3})@10
nDCG(gains={0:1,1:2,3:10,4:20}) NDCG@10 nDCG(dcg='log2')@5
Rprec Rprec(judged_only=True) RPrec Rprec(rel=2) Bpref BPref Bpref(rel=2) infAP infAP(rel=2)
Success@5 Success(judged_only=True)@5 Success(rel=3)@5
SetP SetP(relative=True) SetRelP SetR SetF SetF(beta=0.5) SetAP SetAP(judged_only=True) SetP(judged_only=True)
SetF(judged_only=True) SetP(rel=2) SetR(rel=2) SetAP(rel=2) SetRelP(rel=2)
IPrec@0.5 NumRet NumRet(rel=1) NumRet(rel=2) NumRelRet NumRel NumQ Judged@10 Judged
BPM(T=1.0,max_rel=4)@10 BPM(T=2.0,min_rel=1,max_rel=3)@5 SDCG(max_rel=4)@10 NERR8(max_rel=4)@10 NERR9(max_rel=4)@10
NERR10(max_rel=4) NERR11(max_rel=4) INST(max_rel=4) INSQ(max_rel=4) RBP(rel=1) RBP(rel=2,p=0.9)
Compat Compat(p=0.8) Compat(normalize=False) Accuracy(rel=2)@10
BPref(rel=2) INSQ(min_rel=1,max_rel=4) MAP(rel=2) MAP(judged_only=True) MRR(rel=2) MRR(judged_only=True) MRR@5
NDCG(gains={0:0,1:2})@5 NDCG(judged_only=True)@5 NERR10(min_rel=1,max_rel=4) NERR11(min_rel=1,max_rel=4)
NERR8(min_rel=1,max_rel=4)@5 NERR9(min_rel=1,max_rel=4)@5 NumRel(rel=1) NumRelRet(rel=2) Precision(rel=2)@5
Precision(judged_only=True)@5 RPrec(rel=2) RPrec(judged_only=True) Recall(rel=2)@5 Recall(judged_only=True)@5
SDCG(dcg='log2',min_rel=1,max_rel=4)@5 SetF(rel=2) SetRelP(relative=True) SetRelP(judged_only=True) SetRelP(relative=False)
""".split()
# gdeval prints 5 decimals; Accuracy: ir_measures leaves out a query without a relevant document in the
# top k (evalgui: 0) and divides by zero when no non-relevant one is there (evalgui: 1).
ROUNDED = ["ERR@10", "ERR@20", 'nDCG(dcg="exp-log2")@10', "nDCG(dcg='exp-log2')@5", "NDCG(dcg='exp-log2')@10"]
PARTIAL = ["Accuracy", "Accuracy(rel=2)@10"]


@pytest.mark.parametrize("seed", [7, 8])
def test_every_claimed_ir_measures_name_gives_ir_measures_value(seed):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl_eval is not installed (the C/W/L measures' provider)")
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: ir_measures runs gdeval.pl for ERR")
    import logging
    logging.getLogger("ir_measures").disabled = True
    qrels, run = random_data(seed)
    specs = CLAIMED + ROUNDED + PARTIAL
    ours = per_query(specs, qrels, run)
    for spec in specs:
        measure = ir_measures.parse_measure(spec)
        if spec in PARTIAL:     # query by query: ir_measures stops at a query it divides by zero on
            expected = {}
            for q in run:
                try:
                    expected.update((m.query_id, m.value) for m in ir_measures.iter_calc([measure], {q: qrels[q]},
                                                                                       {q: run[q]}))
                except ZeroDivisionError:
                    assert ours[q][spec] == 1.0, (spec, q)
        else:
            expected = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        tolerance = 5.01e-6 if spec in ROUNDED else 1e-12
        if spec not in PARTIAL:
            assert set(expected) == set(ours), spec
        for q, value in expected.items():
            assert ours[q][spec] == pytest.approx(value, rel=1e-9, abs=tolerance), (spec, q)


# What ir_measures parses and evalgui does not claim to give ir_measures' value for: each in docs/measures.md.
DIVERSITY = ["AP_IA", "MAP_IA", "ERR_IA", "nERR_IA", "P_IA", "StRecall", "alpha_DCG", "alpha_nDCG", "NRBP",
             "nNRBP", "α_DCG", "α_nDCG"]
LISTED = {("RBP", "cutoff"): "`RBP@k`", ("IPrec", None): "`IPrec@r`", ("IPrec", "recall"): "`IPrec@r`",
          ("IPrec", "rel"): "`IPrec@r`", ("IPrec", "judged_only"): "`IPrec@r`"}


def _typed(spec: str) -> set[tuple[str, str | None]]:
    """(name, None) and (name, each argument typed, "cutoff" for @k) of a spec."""
    name, args, cutoff = re.match(r"^([^(@]+)(?:\((.*)\))?(?:@(.+))?$", spec).groups()
    out = {(name, None)} | {(name, a.split("=")[0]) for a in (args or "").split(",") if "=" in a}
    return out | ({(name, "cutoff")} if cutoff else set())


def test_every_ir_measures_measure_and_argument_is_claimed_or_listed():
    """Enumerates ir_measures' registry: every measure and argument is compared above or listed in
    docs/measures.md (the README's measures page)."""
    ir_measures = pytest.importorskip("ir_measures")
    readme = (Path(__file__).parents[2] / "docs" / "measures.md").read_text(encoding="utf-8")
    typed = set().union(*(_typed(s) for s in CLAIMED + ROUNDED + PARTIAL + CWL_SPECS))
    for name, measure in sorted(ir_measures.measures.registry.items()):
        for param in [None, *measure.SUPPORTED_PARAMS]:
            if name in DIVERSITY:
                assert f"`{name}`" in readme or f"`{name.replace('α', 'alpha')}`" in readme, name
                assert "## Diversity measures and subtopic qrels" in readme   # tests/core/test_diversity.py
            elif (name, param) in LISTED:
                assert LISTED[name, param] in readme
            else:
                assert (name, param) in typed, f"{name} {param}: neither compared with ir_measures nor listed"
    parse_measures(["IPrec(rel=2,judged_only=True)@0.3", "RBP(p=0.5)"])     # accepted, values documented
    with pytest.raises(EvalUsageError):
        parse_measures(["RBP@10"])
