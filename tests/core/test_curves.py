"""Precision-recall curves, per-query differences and the drill-down (evalgui.core.ranked.curves)."""

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgui.core.data import Qrels, Run
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.curves import (
    DIFF_COLUMNS, PR_COLUMNS, SIDE_COLUMNS, drill_down, drill_down_rankings, per_query_differences, pr_curves,
)
from evalgui.core.ranked.evaluate import EvalOptions, evaluate, evaluate_run
from evalgui.core.ranked.ranking import prepare
from evalgui.core.ranked.specs import parse_measures
from tests.conftest import SAMPLE_DATA

MEIC = SAMPLE_DATA / "meic"
LEVELS = [round(0.1 * i, 1) for i in range(11)]
IPREC_NAMES = [f"iprec_at_recall_{r:.2f}" for r in LEVELS]

# q1: R = 4 (r1, r2, r3, r4); relevant retrieved at ranks 1, 3, 6 (r4 never): precision 1, 2/3, 1/2.
# q2: no relevant document (R = 0). q3: R = 2, none retrieved.
QRELS = {
    "q1": {"r1": 1, "n1": 0, "r2": 2, "u2": -1, "r3": 1, "r4": 1},
    "q2": {"x": 0},
    "q3": {"z": 1, "w": 3},
}
RUN = {
    "q1": {"r1": 10, "n1": 9, "r2": 8, "u1": 7, "u2": 6, "r3": 5},
    "q2": {"x": 1, "y": 2},
    "q3": {"y": 1},
}


def small_ranking(level=1):
    return prepare(Qrels.from_dict(QRELS), Run.from_dict(RUN), relevance_level=level)[0]


def rows(curves, kind, query):
    part = curves[(curves["kind"] == kind) & (curves["query"] == query)]
    return part["recall"].to_numpy(), part["precision"].to_numpy(), part["rank"].to_numpy()


# ---------------------------------------------------------------- pr_curves, by hand

def test_pr_curves_columns_and_order():
    c = pr_curves(small_ranking())
    assert list(c.columns) == PR_COLUMNS
    interp = c[c["kind"] == "interpolated"]
    assert list(dict.fromkeys(interp["query"])) == ["q1", "q2", "q3", "all"]
    assert (interp.groupby("query").size() == 11).all()
    uninterp = c[c["kind"] == "uninterpolated"]
    assert list(dict.fromkeys(uninterp["query"])) == ["q1", "q2", "q3", "all"]
    assert c.index.equals(pd.RangeIndex(len(c)))


def test_interpolated_by_hand():
    c = pr_curves(small_ranking())
    recall, prec, rank = rows(c, "interpolated", "q1")
    assert recall.tolist() == LEVELS
    # cut c = max(1, lround(r * 4)): 1,1,1,1 (1.2), 2 (1.6), 2, 2 (2.4), 3 (2.8), 3 (3.2), 4 (3.6) > 3, 4 -> 0.
    expected = [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 0, 0]
    assert prec == pytest.approx(expected, abs=1e-15)
    assert np.isnan(rank).all()
    for q in ("q2", "q3"):                      # R = 0, and nothing relevant retrieved: all 0
        assert rows(c, "interpolated", q)[1].tolist() == [0.0] * 11
    assert rows(c, "interpolated", "all")[1] == pytest.approx([v / 3 for v in expected], abs=1e-15)


def test_uninterpolated_points_by_hand():
    c = pr_curves(small_ranking())
    recall, prec, rank = rows(c, "uninterpolated", "q1")
    assert recall == pytest.approx([0, 0.25, 0.5, 0.75])
    assert prec == pytest.approx([1, 1, 2 / 3, 1 / 2])
    assert np.isnan(rank[0]) and rank[1:].tolist() == [1, 3, 6]
    for q in ("q2", "q3"):                      # a single (0, 0) point
        recall, prec, rank = rows(c, "uninterpolated", q)
        assert recall.tolist() == [0.0] and prec.tolist() == [0.0] and np.isnan(rank).all()


def test_uninterpolated_mean_step_function_by_hand():
    c = pr_curves(small_ranking())
    recall, prec, rank = rows(c, "uninterpolated", "all")
    assert recall == pytest.approx(np.arange(101) / 100) and np.isnan(rank).all()
    # q1's step: k = max(1, ceil(4r)): 1 for r <= 0.25, 2/3 up to 0.5, 1/2 up to 0.75, then 0. Mean over 3 queries.
    q1 = np.select([recall <= 0.25 + 1e-12, recall <= 0.5 + 1e-12, recall <= 0.75 + 1e-12], [1, 2 / 3, 1 / 2], 0)
    assert prec == pytest.approx(q1 / 3, abs=1e-15)
    assert prec[25] == pytest.approx(1 / 3) and prec[26] == pytest.approx(2 / 9) and prec[76] == 0


def test_grid_points_and_relevance_level():
    c = pr_curves(small_ranking(level=2), grid_points=5)
    # At level 2, q1 has one relevant (r2, rank 3) and q3 one (w, not retrieved).
    recall, prec, rank = rows(c, "uninterpolated", "q1")
    assert recall.tolist() == [0, 1] and prec == pytest.approx([1 / 3, 1 / 3]) and rank[1] == 3
    assert rows(c, "interpolated", "q1")[1] == pytest.approx([1 / 3] * 11)
    recall, prec, _ = rows(c, "uninterpolated", "all")
    assert recall.tolist() == [0, 0.25, 0.5, 0.75, 1] and prec == pytest.approx([1 / 9] * 5)


def test_empty_ranking():
    ranking = prepare(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"other": {"a": 1}}))[0]
    c = pr_curves(ranking)
    assert list(c["query"].unique()) == ["all"] and (c["precision"] == 0).all()


# ---------------------------------------------------------------- pr_curves against evaluate()

def test_interpolated_mean_matches_trec_eval_on_sample():
    qrels = read_qrels(MEIC / "information_systems.qrels")
    for name in ("base.run", "enhanced.run"):
        run = read_run(MEIC / name)
        result = evaluate_run(qrels, run, parse_measures(["iprec_at_recall"]))
        table = evaluate(qrels, [run], ["iprec_at_recall"])
        summary = table[table["query"] == "all"].set_index("measure")["value"]
        c = pr_curves(result.ranking)
        assert rows(c, "interpolated", "all")[1].tolist() == [summary[m] for m in IPREC_NAMES]
    # base: relevant at ranks 1, 2, 3, 4, 9 of R = 6 -> 1.0 up to recall 0.7, 5/9 at 0.8 and 0.9, 0 at 1.0.
    assert rows(c, "uninterpolated", "information_systems")[2][1:].tolist() == [1, 2, 3, 4, 5]  # enhanced


DOCS = [f"d{i}" for i in range(12)]   # "d10" < "d2" in byte order: exercises tie-breaking
queries = st.sampled_from(["q1", "q2", "q3", "q4"])
qrels_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1),
                           min_size=1)
run_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 1.5, -3.0]),
                                                  min_size=1), min_size=1)


def reference_points(qrels, run, level):
    """Plain Python: (recall, precision, rank) after each relevant retrieved, per judged query with results."""
    out = {}
    for q in set(qrels) & set(run):
        order = [d for d, _ in sorted(sorted(run[q].items(), key=lambda kv: kv[0].encode(), reverse=True),
                                      key=lambda kv: -kv[1])]
        R = sum(1 for g in qrels[q].values() if g >= level)
        pts, k = [], 0
        for i, d in enumerate(order):
            if qrels[q].get(d, -1) >= level:
                k += 1
                pts.append((k / R, k / (i + 1), i + 1))
        out[q] = pts
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_st, run_st, st.integers(0, 2), st.booleans())
def test_random_against_evaluate_and_reference(qrels_d, run_d, level, complete):
    qrels, run = Qrels.from_dict(qrels_d), Run.from_dict(run_d)
    result = evaluate_run(qrels, run, parse_measures(["iprec_at_recall"]),
                          EvalOptions(relevance_level=level, complete=complete))
    c = pr_curves(result.ranking)
    interp = c[c["kind"] == "interpolated"]
    # The mean equals evaluate()'s summary exactly, and each query its per-query values.
    assert rows(c, "interpolated", "all")[1].tolist() == result.summary.tolist()
    per_q = interp[interp["query"] != "all"]["precision"].to_numpy().reshape(-1, 11)
    assert per_q.tolist() == result.per_query.tolist()

    ref = reference_points(qrels_d, run_d, level)
    for q in result.query_ids:
        recall, prec, rank = rows(c, "uninterpolated", q)
        pts = ref.get(q, [])
        if pts:
            assert recall[0] == 0 and prec[0] == pytest.approx(pts[0][1]) and np.isnan(rank[0])
            assert recall[1:] == pytest.approx([p[0] for p in pts])
            assert prec[1:] == pytest.approx([p[1] for p in pts])
            assert rank[1:].tolist() == [p[2] for p in pts]
        else:
            assert recall.tolist() == [0.0] and prec.tolist() == [0.0]
    # Never above the interpolated curve (ceil cut >= lround cut).
    mean_u = rows(c, "uninterpolated", "all")[1]
    assert (mean_u[::10] <= rows(c, "interpolated", "all")[1] + 1e-12).all()


# ---------------------------------------------------------------- per_query_differences

def tidy(rows_):
    return pd.DataFrame(rows_, columns=["run", "query", "measure", "value"])


def test_differences_sorted_with_outcomes():
    table = tidy([
        ("base", "q1", "map", 0.5), ("base", "q2", "map", 0.2), ("base", "q3", "map", 0.4),
        ("base", "all", "map", 0.3667),
        ("A", "q1", "map", 0.7), ("A", "q2", "map", 0.2), ("A", "all", "map", 0.45),     # A lacks q3
        ("B", "q1", "map", 0.25), ("B", "q2", "map", 0.6), ("B", "q3", "map", 0.4), ("B", "q4", "map", 1.0),
        ("B", "all", "map", 0.5),
        ("A", "q1", "P_5", 1.0), ("base", "q1", "P_5", 0.0),                                # another measure
    ])
    d = per_query_differences(table, "map", "base")
    assert list(d.columns) == DIFF_COLUMNS
    got = [(r.run, r.query, r.baseline_value, r.value, round(r.difference, 10), r.outcome) for r in d.itertuples()]
    assert got == [
        ("B", "q2", 0.2, 0.6, 0.4, "helped"),
        ("A", "q1", 0.5, 0.7, 0.2, "helped"),
        ("A", "q2", 0.2, 0.2, 0.0, "tied"),     # ties: run, then query
        ("B", "q3", 0.4, 0.4, 0.0, "tied"),
        ("B", "q1", 0.5, 0.25, -0.25, "hurt"),
    ]  # q4 (baseline lacks it), q3 of A (A lacks it) and the "all" rows are skipped


def test_differences_edge_cases():
    table = tidy([("base", "q1", "map", 0.5), ("base", "all", "map", 0.5)])
    d = per_query_differences(table, "map", "base")
    assert d.empty and list(d.columns) == DIFF_COLUMNS
    with pytest.raises(ValueError):
        per_query_differences(table, "map", "nope")
    with pytest.raises(ValueError):
        per_query_differences(table, "P_5", "base")


def test_differences_from_evaluate():
    qrels = read_qrels(MEIC / "information_systems.qrels")
    runs = [read_run(MEIC / "base.run"), read_run(MEIC / "enhanced.run")]
    d = per_query_differences(evaluate(qrels, runs, ["map", "P.5"]), "map", "base")
    assert len(d) == 1 and d.loc[0, "run"] == "enhanced" and d.loc[0, "outcome"] == "helped"
    assert d.loc[0, "difference"] == pytest.approx(0.8333 - 0.7593, abs=1e-4)


# ---------------------------------------------------------------- drill-down

# Ties broken by docno descending (byte order): a ranks x (2.0), then d2 > d10 > d1 (all 1.0);
# b ranks d10 (3.0), then y > d1 (both 2.0).
TIE_QRELS = {"q": {"d1": 1, "d2": 0, "d10": 2, "x": -1}, "other": {"d1": 1}}
TIE_A = {"q": {"d1": 1.0, "d2": 1.0, "d10": 1.0, "x": 2.0}, "other": {"d5": 1.0}}
TIE_B = {"q": {"d10": 3.0, "d1": 2.0, "y": 2.0}}


def side(frame):
    return [tuple(None if (isinstance(v, float) and math.isnan(v)) else v for v in row)
            for row in frame[SIDE_COLUMNS].itertuples(index=False)]


EXPECTED_A = [
    (1, "x", 2.0, None, "unjudged", None),      # negative grade in the qrels: unjudged
    (2, "d2", 1.0, 0.0, "non-relevant", None),
    (3, "d10", 1.0, 2.0, "relevant", 1.0),
    (4, "d1", 1.0, 1.0, "relevant", 3.0),
]
EXPECTED_B = [
    (1, "d10", 3.0, 2.0, "relevant", 3.0),
    (2, "y", 2.0, None, "unjudged", None),      # not in the qrels
    (3, "d1", 2.0, 1.0, "relevant", 4.0),
]


def tie_runs():
    return Run.from_dict(TIE_A, name="A"), Run.from_dict(TIE_B, name="B")


def test_drill_down_ties_and_rank_in_other():
    a, b = tie_runs()
    dd = drill_down(Qrels.from_dict(TIE_QRELS), a, b, "q")
    assert dd.query == "q" and (dd.name_a, dd.name_b) == ("A", "B")
    assert list(dd.a.columns) == SIDE_COLUMNS
    assert side(dd.a) == EXPECTED_A and side(dd.b) == EXPECTED_B
    assert dd.a["rank"].dtype == np.int64 and dd.a["rank_in_other"].dtype == np.float64


def test_drill_down_from_evaluation_rankings_is_the_same():
    qrels = Qrels.from_dict(TIE_QRELS)
    a, b = tie_runs()
    req = parse_measures(["map"])
    ra, rb = evaluate_run(qrels, a, req).ranking, evaluate_run(qrels, b, req).ranking
    dd = drill_down_rankings(ra, a, rb, b, "q")
    assert side(dd.a) == EXPECTED_A and side(dd.b) == EXPECTED_B
    # "other" is only in run A: B's side is empty.
    dd = drill_down_rankings(ra, a, rb, b, "other")
    assert side(dd.a) == [(1, "d5", 1.0, None, "unjudged", None)] and dd.b.empty
    assert list(dd.b.columns) == SIDE_COLUMNS
    # A run whose doc column is a plain string array (not dictionary-encoded) works too.
    a.doc = a.doc.cast(pa.string())
    assert side(drill_down_rankings(ra, a, rb, b, "q").a) == EXPECTED_A


def test_drill_down_level_depth_and_max_docs():
    qrels = Qrels.from_dict(TIE_QRELS)
    a, b = tie_runs()
    dd = drill_down(qrels, a, b, "q", relevance_level=2, depth=2)
    assert side(dd.a) == [EXPECTED_A[0], EXPECTED_A[1]]
    assert side(dd.b) == [EXPECTED_B[0], EXPECTED_B[1]]              # rank_in_other still 3: the whole of A
    assert dd.a["judgment"].tolist() == ["unjudged", "non-relevant"]
    lvl2 = drill_down(qrels, a, b, "q", relevance_level=2)
    assert lvl2.a["judgment"].tolist() == ["unjudged", "non-relevant", "relevant", "non-relevant"]  # d1 grade 1
    cut = drill_down(qrels, a, b, "q", max_docs=3)                  # trec_eval -M 3: A loses d1
    assert cut.a["doc"].tolist() == ["x", "d2", "d10"]
    assert np.isnan(cut.b.loc[2, "rank_in_other"])
    judged = drill_down(qrels, a, b, "q", judged_only=True)          # -J: only judged documents
    assert judged.a["doc"].tolist() == ["d2", "d10", "d1"] and judged.b["doc"].tolist() == ["d10", "d1"]


def test_drill_down_unjudged_or_missing_query():
    qrels = Qrels.from_dict(TIE_QRELS)
    a = Run.from_dict({"new": {"p": 1.0, "q": 1.0}}, name="A")
    b = Run.from_dict({"new": {"q": 5.0}, "q": {"d1": 1.0}}, name="B")
    dd = drill_down(qrels, a, b, "new")                              # in both runs, not in the qrels
    assert side(dd.a) == [(1, "q", 1.0, None, "unjudged", 1.0), (2, "p", 1.0, None, "unjudged", None)]
    assert side(dd.b) == [(1, "q", 5.0, None, "unjudged", 1.0)]
    dd = drill_down(qrels, a, b, "q")                                # judged, only in B
    assert dd.a.empty and side(dd.b) == [(1, "d1", 1.0, 1.0, "relevant", None)]
    dd = drill_down(qrels, a, b, "nowhere")
    assert dd.a.empty and dd.b.empty


def test_side_by_side():
    a, b = tie_runs()
    wide = drill_down(Qrels.from_dict(TIE_QRELS), a, b, "q").side_by_side()
    assert list(wide.columns) == ["rank"] + [p + c for p in ("a_", "b_") for c in SIDE_COLUMNS[1:]]
    assert wide["rank"].tolist() == [1, 2, 3, 4]
    assert wide["a_doc"].tolist() == ["x", "d2", "d10", "d1"]
    assert wide["b_doc"].tolist() == ["d10", "y", "d1", None]
    assert wide["b_judgment"].tolist() == ["relevant", "unjudged", "relevant", None]
    assert np.isnan(wide.loc[3, "b_score"]) and np.isnan(wide.loc[3, "b_rank_in_other"])
