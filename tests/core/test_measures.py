"""Measures against values computed by hand on small examples, one test per measure family.

The worked example (query q1), ranked by score:

    rank  doc  grade          level 1: relevant?
    1     d1   1              yes
    2     dX   not in qrels   -
    3     d2   0              no (judged)
    4     d3   2              yes
    5     d5   -1 (unjudged)  -
    6     d4   1              yes
    (d9, grade 1, is relevant but not retrieved)

So R = 4 relevant, 6 retrieved, 3 relevant retrieved at ranks 1, 4, 6.
"""

import math

import numpy as np
import pytest

from evalgui.core.data import Qrels, Run
from evalgui.core.ranked.evaluate import EvalOptions, evaluate_run
from evalgui.core.ranked.specs import parse_measures

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1, "d5": -1, "d9": 1}}
RUN = {"q1": {"d1": 0.9, "dX": 0.8, "d2": 0.7, "d3": 0.6, "d5": 0.5, "d4": 0.4}}


def values(measures, qrels=QRELS, run=RUN, per_query=False, **options):
    result = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), parse_measures(measures, include_text=True),
                          EvalOptions(**options))
    if per_query:
        return {q: dict(zip([c.name for c in result.columns], row)) for q, row in zip(result.query_ids, result.per_query)}
    return dict(zip([c.name for c in result.columns], result.summary))


def test_counts():
    v = values(["num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"])
    assert v == {"num_q": 1, "num_ret": 6, "num_rel": 4, "num_rel_ret": 3, "num_nonrel_judged_ret": 1}


def test_average_precision_family():
    v = values(["map", "map_cut.5", "AP(norm=retrieved)", "gm_map"])
    assert v["map"] == pytest.approx((1 / 1 + 2 / 4 + 3 / 6) / 4)           # 0.5
    assert v["map_cut_5"] == pytest.approx((1 / 1 + 2 / 4) / 4)              # relevant at ranks 1, 4 only
    assert v["AP(norm=retrieved)"] == pytest.approx((1 / 1 + 2 / 4 + 3 / 6) / 3)
    assert v["gm_map"] == pytest.approx(0.5)


def test_precision_family():
    v = values(["P.1,5,10", "Rprec", "recip_rank", "relative_P.5", "success.1", "Rprec_mult.0.5,2.0", "RR@1"])
    assert v["P_1"] == 1.0 and v["P_5"] == pytest.approx(2 / 5) and v["P_10"] == pytest.approx(3 / 10)
    assert v["Rprec"] == pytest.approx(2 / 4)              # top 4: d1, dX, d2, d3
    assert v["recip_rank"] == 1.0 and v["RR@1"] == 1.0
    assert v["relative_P_5"] == pytest.approx(2 / min(5, 4))
    assert v["success_1"] == 1.0
    assert v["Rprec_mult_0.50"] == pytest.approx(1 / 2)  # floor(0.5*4 + 0.9) = 2 documents
    assert v["Rprec_mult_2.00"] == pytest.approx(3 / 8)  # 8 > 6 retrieved: 3 relevant / 8


def test_recall_and_set_measures():
    v = values(["recall.5,10", "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "set_F.0.5", "utility",
                "utility.2,-1,-1,0"])
    assert v["recall_5"] == pytest.approx(2 / 4) and v["recall_10"] == pytest.approx(3 / 4)
    assert v["set_P"] == pytest.approx(3 / 6) and v["set_recall"] == pytest.approx(3 / 4)
    assert v["set_relative_P"] == pytest.approx(3 / 4)
    assert v["set_map"] == pytest.approx(9 / 24)
    assert v["set_F"] == pytest.approx(2 * 0.5 * 0.75 / (0.5 + 0.75))
    assert v["set_F_0.5"] == pytest.approx(1.5 * 0.5 * 0.75 / (0.5 * 0.5 + 0.75))
    assert v["utility"] == pytest.approx(3 - 3)
    assert v["utility_2,-1,-1,0"] == pytest.approx(2 * 3 - 3 - (4 - 3))


def test_incomplete_judgment_measures():
    v = values(["bpref", "infAP", "unj.5", "Judged@5", "Judged@10", "rbp_resid"])
    # bpref: one judged non-relevant (d2); d1 has none above (1), d3 and d4 have d2 above (1 - 1/1 = 0).
    assert v["bpref"] == pytest.approx(1 / 4)
    eps = 0.00001
    d3 = 1 / 4 + (3 / 4) * ((1 + 1 + 0) / 3) * ((1 + eps) / (1 + 1 + 2 * eps))
    d4 = 1 / 6 + (5 / 6) * ((2 + 1 + 1) / 5) * ((2 + eps) / (2 + 1 + 2 * eps))
    assert v["infAP"] == pytest.approx((1 + d3 + d4) / 4, abs=1e-12)
    assert v["unj_5"] == pytest.approx(2 / 5)             # dX and d5 in the top 5
    # Judged@k as ir_measures: listed in the qrels (d5's -1 too) over min(k, retrieved).
    assert v["Judged@5"] == pytest.approx(4 / 5)             # d1, d2, d3, d5 of the top 5
    assert v["Judged@10"] == pytest.approx(5 / 6)            # all but dX, of 6 retrieved
    assert v["rbp_resid"] == pytest.approx(0.9 ** 6 + 0.1 * (0.9 ** 1 + 0.9 ** 4))


def test_interpolated_precision_and_11pt():
    v = values(["iprec_at_recall", "11pt_avg", "IPrec@0.4"])
    # precision at the relevant ranks: 1/1, 2/4, 3/6; R = 4, cut at the lround(r*4)-th relevant.
    assert v["iprec_at_recall_0.00"] == 1.0 and v["iprec_at_recall_0.30"] == 1.0   # lround(1.2) = 1
    assert v["iprec_at_recall_0.40"] == 0.5 and v["iprec_at_recall_0.80"] == 0.5   # lround(3.2) = 3
    assert v["iprec_at_recall_0.90"] == 0.0 and v["iprec_at_recall_1.00"] == 0.0   # 4th never retrieved
    assert v["11pt_avg"] == pytest.approx((4 * 1.0 + 5 * 0.5) / 11)
    assert v["IPrec@0.4"] == 0.5


def test_iprec_rounds_halves_up_like_lround():
    # R = 4, recall 0.625 -> 2.5 relevant documents: lround gives 3 (numpy's round would give 2).
    qrels = {"q": {"a1": 1, "a2": 1, "a3": 1, "a4": 1}}
    run = {"q": {"a1": 9, "a2": 8, "n1": 7, "n2": 6, "a3": 5, "n3": 4, "n4": 3, "n5": 2}}
    v = values(["iprec_at_recall.0.625"], qrels, run)
    assert v["iprec_at_recall_0.62"] == pytest.approx(3 / 5)  # not 1.0, the 2nd relevant's precision


def test_gain_measures():
    log2 = math.log2
    v = values(["ndcg", "ndcg_cut.3,10", "nDCG@3", "ndcg.1=3,2=9", "binG", "rbp", "RBP(p=0.5)", "RBP(rel=2)"])
    dcg = 1 / log2(2) + 2 / log2(5) + 1 / log2(7)
    idcg = 2 / log2(2) + 1 / log2(3) + 1 / log2(4) + 1 / log2(5)   # ideal: grades 2, 1, 1, 1
    assert v["ndcg"] == pytest.approx(dcg / idcg)
    assert v["ndcg_cut_3"] == pytest.approx(1.0 / (2 + 1 / log2(3) + 1 / log2(4)))
    assert v["ndcg_cut_10"] == pytest.approx(dcg / idcg)
    assert v["nDCG@3"] == v["ndcg_cut_3"]
    dcg_custom = 3 / log2(2) + 9 / log2(5) + 3 / log2(7)
    idcg_custom = 9 + 3 / log2(3) + 3 / log2(4) + 3 / log2(5)
    assert v["ndcg_1=3,2=9"] == pytest.approx(dcg_custom / idcg_custom)
    assert v["binG"] == pytest.approx((1 / log2(2) + 1 / log2(4) + 1 / log2(5)) / 4)
    # rbp: grades scaled to [0, 1] by the query's top grade (2).
    assert v["rbp"] == pytest.approx(0.1 * (0.5 + 1.0 * 0.9 ** 3 + 0.5 * 0.9 ** 5))
    assert v["RBP(p=0.5)"] == pytest.approx(0.5 * (0.5 + 1.0 * 0.5 ** 3 + 0.5 * 0.5 ** 5))
    # only d3 (grade 2) gains; p = 0.8, ir_measures' default
    assert v["RBP(rel=2)"] == pytest.approx(0.2 * 0.8 ** 3)


def test_dcg_ideal_dcg_and_yaap_outside_all_trec():
    log2 = math.log2
    v = values(["dcg", "ideal_dcg", "dcg.1=3,2=9", "yaap"])
    assert v["dcg"] == pytest.approx(1 / log2(2) + 2 / log2(5) + 1 / log2(7))          # ndcg's numerator
    assert v["ideal_dcg"] == pytest.approx(2 / log2(2) + 1 / log2(3) + 1 / log2(4) + 1 / log2(5))
    assert v["dcg_1=3,2=9"] == pytest.approx(3 / log2(2) + 9 / log2(5) + 3 / log2(7))
    # yaap: S = sum of precision at each relevant rank = 1/1 + 2/4 + 3/6 = 2, R = 4.
    assert v["yaap"] == pytest.approx(math.log((1 + 2) / (1 + 4 - 2)))
    from evalgui.core.ranked.measures import NICKNAMES, TREC_ORDER

    assert {"dcg", "ideal_dcg", "yaap"} <= set(TREC_ORDER) and not {"dcg", "ideal_dcg", "yaap"} & set(
        NICKNAMES["all_trec"])
    # trec_eval's table order, which -q follows: dcg and ideal_dcg before ndcg, yaap before rbp.
    assert TREC_ORDER.index("G") < TREC_ORDER.index("dcg") < TREC_ORDER.index("ideal_dcg") < TREC_ORDER.index("ndcg")
    assert TREC_ORDER.index("num_nonrel_judged_ret") < TREC_ORDER.index("yaap") < TREC_ORDER.index("rbp")


def test_rbp_resid_adds_unjudged_ranks_in_rank_order():
    # The audit's case: summing all ranks' mass less the judged ones' gave 0.9186 where trec_eval gives 0.9185.
    qrels = {"1": {"zz": 0}, "2": {"zz": 0, "d1": 0, "d3": 0}}
    run = {"1": {"d0": 9}, "2": {f"d{i}": 9 - i for i in range(6)}}
    v = values(["rbp_resid"], qrels, run, per_query=True)
    p, power, unjudged_mass = 0.9, 1.0, 0.0
    for unjudged in (True, False, True, False, True, True):     # d0..d5; d1 and d3 are judged
        unjudged_mass += power if unjudged else 0.0
        power *= p
    assert v["2"]["rbp_resid"] == power + (1 - p) * unjudged_mass       # bit for bit, as trec_eval adds up


def test_relstring_of_length_zero_is_empty():
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    result = evaluate_run(Qrels.from_dict(QRELS), Run.from_dict(RUN), requests_for(["relstring.0"]))
    assert format_lines(result, per_query=True) == ["relstring_0           \tq1\t''"]


def test_relstring_and_runid_are_text():
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    result = evaluate_run(Qrels.from_dict(QRELS), Run.from_dict(RUN, runid="myrun"), requests_for(["runid", "relstring"]))
    lines = format_lines(result, per_query=True)
    assert lines == ["relstring             \tq1\t'1-02.1'", "runid                 \tall\tmyrun"]


def test_relevance_level_changes_what_is_relevant():
    v = values(["P.5", "num_rel", "P(rel=2)@5", "map"], relevance_level=2)
    assert v["num_rel"] == 1 and v["P_5"] == pytest.approx(1 / 5) and v["P(rel=2)@5"] == pytest.approx(1 / 5)
    assert v["map"] == pytest.approx(1 / 4)  # d3 at rank 4


def test_ties_are_broken_by_docno_descending():
    # trec_eval: equal scores rank the larger docno first (string order), whatever the file order.
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    assert values(["recip_rank"], qrels, run)["recip_rank"] == pytest.approx(1 / 3)
    qrels = {"q": {"c": 1}}
    assert values(["recip_rank"], qrels, run)["recip_rank"] == 1.0
    qrels = {"q": {"d10": 1}}  # string order: "d9" > "d10"
    assert values(["recip_rank"], qrels, {"q": {"d10": 0.5, "d9": 0.5}})["recip_rank"] == 0.5


def test_max_docs_and_complete():
    v = values(["num_ret", "P.5", "map"], max_docs=3)
    assert v["num_ret"] == 3 and v["P_5"] == pytest.approx(1 / 5) and v["map"] == pytest.approx(1 / 4)
    qrels = {**QRELS, "q2": {"x": 1}}
    both = values(["map", "num_q", "num_rel"], qrels, complete=True, per_query=True)
    assert set(both) == {"q1", "q2"} and both["q2"]["map"] == 0.0
    summary = values(["map", "num_q", "num_rel"], qrels, complete=True)
    assert summary["num_q"] == 2 and summary["map"] == pytest.approx(0.5 / 2) and summary["num_rel"] == 5
    # Without -c the topic with no results is skipped.
    assert values(["num_q"], qrels)["num_q"] == 1


def test_queries_without_judgments_are_ignored_and_ids_are_strings():
    run = {**RUN, "q3": {"d1": 1.0}, "7": {"d1": 1.0}}
    qrels = {**QRELS, "007": {"d1": 1}}
    per_q = values(["map"], qrels, run, per_query=True)
    assert set(per_q) == {"q1"}


def test_geometric_mean_floors_zero_at_min_geo_mean():
    qrels = {"a": {"x": 1}, "b": {"y": 1}}
    run = {"a": {"x": 1.0}, "b": {"z": 1.0}}
    assert values(["gm_map"], qrels, run)["gm_map"] == pytest.approx(math.sqrt(1.0 * 0.00001))


def test_queries_with_no_relevant_documents_score_zero_not_nan():
    qrels = {"q": {"a": 0, "b": 0}}
    run = {"q": {"a": 1.0, "c": 0.5}}
    v = values(["all_trec"], qrels, run)
    assert all(np.isfinite(x) for x in v.values())
    assert v["map"] == 0.0 and v["relative_P_5"] == 0.0 and v["ndcg"] == 0.0 and v["Rndcg"] == 0.0


def test_segmented_cumsum_adds_up_each_query_from_zero_in_order():
    from evalgui.core.ranked.ranking import segmented_cumsum

    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 9, 60)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    for values in (rng.random(offsets[-1]) / 3, rng.integers(0, 5, offsets[-1]).astype(float)):
        expected = []
        for start, end in zip(offsets[:-1], offsets[1:]):
            running = 0.0
            for value in values[start:end]:
                running += value
                expected.append(running)
        assert np.array_equal(segmented_cumsum(values, offsets), np.array(expected))


def test_ndcg_cut_is_exact_whatever_the_queries_before():
    # nDCG@1 of a grade-1 document where the best grade is 4 is exactly 1/4 (trec_eval: 1 / 4). Ideal DCG
    # taken as a global cumulative sum less the total before each query gave 0.2500000000000002 whenever
    # that sum crossed a power of two; a mean of 1/4s and 1/2s then printed 0.1563 where trec_eval prints 0.1562.
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    rng = np.random.default_rng(3)
    qrels = {f"q{i:03d}": {"a": 1, "b": 4, **{f"x{j}": 3 for j in range(int(rng.integers(0, 12)))}} for i in range(60)}
    run = {q: {"a": 2, "b": 1} for q in qrels}
    result = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), requests_for(["ndcg_cut.1"]))
    assert set(result.per_query[:, 0].tolist()) == {0.25}
    assert format_lines(result) == ["ndcg_cut_1            \tall\t0.2500"]
