"""Property tests: the vectorised engine against a plain-Python reference, on random data.

Scores come from a small set so that ties (broken by docno, descending) are common.
"""

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgui.core.data import Qrels, Run
from evalgui.core.ranked.evaluate import EvalOptions, evaluate_run
from evalgui.core.ranked.specs import parse_measures

DOCS = [f"d{i}" for i in range(12)]  # "d10" < "d2" in byte order: exercises string tie-breaking

queries = st.sampled_from(["q1", "q2", "q3"])
qrels_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1),
                           min_size=1)
run_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 1.5, 2.0, -3.0]),
                                                  min_size=1), min_size=1)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ranked(docs: dict) -> list[str]:
    """trec_eval's order: score descending, then docno descending."""
    return [d for d, _ in sorted(sorted(docs.items(), key=lambda kv: kv[0], reverse=True), key=lambda kv: -kv[1])]


def reference(qrels: dict, run: dict, level=1, k=5) -> dict[str, dict[str, float]]:
    out = {}
    for q in sorted(set(qrels) & set(run)):
        judg = qrels[q]
        ranking = ranked(run[q])
        rel = [judg.get(d, -1) for d in ranking]
        R = sum(1 for g in judg.values() if g >= level)
        hits = [i for i, g in enumerate(rel) if g >= level]
        ap = sum((n + 1) / (i + 1) for n, i in enumerate(hits)) / R if R and hits else 0.0
        p_k = sum(1 for g in rel[:k] if g >= level) / k
        r_k = sum(1 for g in rel[:k] if g >= level) / R if R else 0.0
        rr = 1 / (hits[0] + 1) if hits else 0.0
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(rel[:k]) if g > 0)
        ideal = sorted((g for g in judg.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        ndcg = dcg / idcg if idcg > 0 else dcg
        n_nonrel = sum(1 for g in judg.values() if 0 <= g < level)
        bpref, nonrel_seen = 0.0, 0
        for g in rel:
            if g < 0:
                continue
            if g < level:
                nonrel_seen += 1
            else:
                bpref += 1.0 if nonrel_seen == 0 else 1 - min(nonrel_seen, R) / min(n_nonrel, R)
        bpref = bpref / R if R else 0.0
        out[q] = {"map": ap, f"P_{k}": p_k, f"recall_{k}": r_k, "recip_rank": rr, f"ndcg_cut_{k}": ndcg,
                  "bpref": bpref, "num_rel_ret": float(len(hits)), "num_ret": float(len(ranking))}
    return out


def engine(qrels: dict, run: dict, measures, **options) -> dict[str, dict[str, float]]:
    result = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(measures), EvalOptions(**options))
    names = [c.name for c in result.columns]
    return {q: dict(zip(names, row)) for q, row in zip(result.query_ids, result.per_query)}


@SETTINGS
@given(qrels_st, run_st, st.integers(1, 3))
def test_engine_matches_plain_python_reference(qrels, run, level):
    want = reference(qrels, run, level=level)
    got = engine(qrels, run, ["map", "P.5", "recall.5", "recip_rank", "ndcg_cut.5", "bpref", "num_rel_ret", "num_ret"],
                 relevance_level=level)
    assert set(got) == set(want)
    for q in want:
        for name, value in want[q].items():
            assert got[q][name] == pytest.approx(value, abs=1e-12), (q, name)


BOUNDED = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "Rprec_mult",
           "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
           "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "rbp", "rbp_resid", "unj"]


@SETTINGS
@given(qrels_st, run_st)
def test_values_stay_within_zero_and_one(qrels, run):
    result = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(BOUNDED))
    assert np.isfinite(result.per_query).all() and np.isfinite(result.summary).all()
    assert (result.per_query >= -1e-12).all() and (result.per_query <= 1 + 1e-12).all()


@SETTINGS
@given(qrels_st, run_st, st.randoms(use_true_random=False))
def test_order_of_lines_does_not_matter(qrels, run, rnd: random.Random):
    def shuffled(d):
        items = [(q, doc, v) for q, docs in d.items() for doc, v in docs.items()]
        rnd.shuffle(items)
        out: dict = {}
        for q, doc, v in items:
            out.setdefault(q, {})[doc] = v
        return out

    measures = ["all_trec"]
    a = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(measures))
    b = evaluate_run(Qrels.from_dict(shuffled(qrels)), Run.from_dict(shuffled(run)), parse_measures(measures))
    assert list(a.query_ids) == list(b.query_ids)
    assert np.array_equal(a.per_query, b.per_query) and np.array_equal(a.summary, b.summary)


@SETTINGS
@given(qrels_st, run_st, st.integers(1, 6))
def test_max_docs_equals_truncating_the_ranking(qrels, run, max_docs):
    truncated = {q: {d: docs[d] for d in ranked(docs)[:max_docs]} for q, docs in run.items()}
    measures = ["all_trec"]
    a = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(measures), EvalOptions(max_docs=max_docs))
    b = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(truncated), parse_measures(measures))
    assert np.allclose(a.per_query, b.per_query, atol=1e-12) and np.allclose(a.summary, b.summary, atol=1e-12)
