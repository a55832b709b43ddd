"""Recall-Paired Preference and lexicographic preferences (evalgui.core.ranked.preference).

Checked against the slides' three-line ``RPP``, a plain-Python reference of every definition on
random data (ties included), hand-computed cases, and diazf/pref_eval when a checkout of it is
found (``$EVALGUI_PREF_EVAL``, else ``../pref_eval`` beside the repository).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgui.core import registry, tidy
from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.ranked import preference as P
from tests.conftest import ROOT

MEASURES = [m for m, r in P.REGISTRY.items() if not r.subtopics]   # pref_eval has no ST-RPP
BIG = 10**9          # "not retrieved" for the slides' function (inf - inf would be nan there)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_of(rankings: dict[str, list[str]], name: str) -> Run:
    """A run listing each query's documents in rank order."""
    return Run.from_dict({q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in rankings.items()},
                         name=name)


def per_query(result: P.PreferenceResult, measure: str, pair: int = 0) -> dict[str, float]:
    return dict(zip(result.query_ids.tolist(), result.per_query[measure][pair].tolist()))


# ---------------------------------------------------------------- the slides' RPP on equal-length vectors

def slides_rpp(ranking1, ranking2, p=None):
    """The slides' ``RPP`` (Kabongo & Borchani, after Diaz & Ferraro 2022), as printed."""
    if p is None:
        m = min(len(ranking1), len(ranking2))
        p = np.ones(m) / m
    return (p * np.sign(ranking2[:len(p)] - ranking1[:len(p)])).sum()


# A run's relevant documents: for each of m relevant documents, its rank (1..20) or None (missed).
placements = st.integers(1, 8).flatmap(
    lambda m: st.tuples(*[st.lists(st.one_of(st.none(), st.integers(1, 20)), min_size=m, max_size=m,
                                   unique_by=lambda r: r if r is not None else object())] * 2))


def ranking_with(relevant_ranks: list[int | None], query: str = "q") -> list[str]:
    """20 documents: relevant document r<k> at the rank given (absent when None), fillers elsewhere."""
    docs = [f"n{i:02d}" for i in range(20)]
    for k, rank in enumerate(relevant_ranks):
        if rank is not None:
            docs[rank - 1] = f"r{k}"
    return docs


@SETTINGS
@given(placements)
def test_rpp_is_the_slides_function_on_the_relevance_vectors(pair):
    x_ranks, y_ranks = pair
    m = len(x_ranks)
    qrels = Qrels.from_dict({"q": {f"r{k}": 1 for k in range(m)}})
    result = P.compare(qrels, [run_of({"q": ranking_with(x_ranks)}, "x"), run_of({"q": ranking_with(y_ranks)}, "y")],
                       ["rpp"])

    def vector(ranks):
        hit = sorted(r for r in ranks if r is not None)
        return np.array(hit + [BIG] * (m - len(hit)))

    assert result.per_query["rpp"][0, 0] == pytest.approx(slides_rpp(vector(x_ranks), vector(y_ranks)), abs=1e-12)


def test_the_relevance_vector_is_ranks_then_not_retrieved():
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 1, "z": 0}})
    layout = P.Layout.of(qrels)
    # Ties are broken by docno, descending (trec_eval): b before a at score 2.
    run = Run.from_dict({"q": {"x": 3.0, "a": 2.0, "b": 2.0, "z": 1.0}})
    vector, absent, _ = layout.vector(qrels, run)
    assert vector.tolist() == [2, 3, P.NOT_RETRIEVED] and absent == []


# ---------------------------------------------------------------- a plain-Python reference on random data

DOCS = [f"d{i}" for i in range(10)]            # "d10" < "d2": docno tie-breaking is exercised
queries = st.sampled_from(["q1", "q2", "q3"])
qrels_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1),
                           min_size=1)
run_st = st.dictionaries(queries, st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 2.0]),
                                                  min_size=1))


def reference(qrels: dict, x: dict, y: dict, threshold: int | None) -> dict[str, dict[str, float]]:
    """Every preference of run x over run y, per query, straight from the definitions."""
    def vector(run, relevant):
        ranking = [d for d, _ in sorted(sorted(run.items(), reverse=True), key=lambda kv: -kv[1])]
        hit = sorted(ranking.index(d) + 1 for d in relevant if d in ranking)
        return hit + [math.inf] * (len(relevant) - len(hit))

    def signs(relevant):
        return [(a < b) - (a > b) for a, b in zip(vector(x.get(q, {}), relevant), vector(y.get(q, {}), relevant))]

    out = {}
    for q, judged in qrels.items():
        low = 1 if threshold is None else threshold
        grades = sorted({g for g in judged.values() if g >= low})
        if not grades:
            continue
        levels = grades if threshold is None else [low]
        values = {}
        for name, w in (("rpp", lambda i: 1.0), ("dcgrpp", lambda i: 1 / math.log2(i + 1)), ("invrpp", lambda i: 1 / i)):
            total = weight = 0.0
            for g in levels:
                s = signs([d for d, r in judged.items() if r >= g])
                ws = [w(i + 1) for i in range(len(s))]
                total += len(s) * sum(wi * si for wi, si in zip(ws, s)) / sum(ws)
                weight += len(s)
            values[name] = total / weight
        s = signs([d for d, r in judged.items() if r >= low])
        differing = [v for v in s if v]
        values["lexiprecision"] = differing[0] if differing else 0
        values["lexirecall"] = differing[-1] if differing else 0
        out[q] = values
    return out


@SETTINGS
@given(qrels_st, run_st, run_st, st.sampled_from([None, 0, 1, 2]))
def test_every_preference_matches_the_reference(qrels, x, y, threshold):
    q = Qrels.from_dict(qrels)
    expected = reference(qrels, x, y, threshold)
    if not expected:
        with pytest.raises(EvalInputError, match="no query has a relevant document"):
            P.compare(q, [Run.from_dict(x, "x"), Run.from_dict(y, "y")], binary_threshold=threshold)
        return
    result = P.compare(q, [Run.from_dict(x, "x"), Run.from_dict(y, "y")], binary_threshold=threshold)
    assert result.query_ids.tolist() == sorted(expected)
    for m in MEASURES:
        got = per_query(result, m)
        assert got == pytest.approx({qq: v[m] for qq, v in expected.items()}, abs=1e-12), m
        assert result.means[m][0] == pytest.approx(np.mean([v[m] for v in expected.values()]), abs=1e-12)


@SETTINGS
@given(qrels_st, run_st, run_st, run_st)
def test_antisymmetric_and_zero_against_itself(qrels, x, y, z):
    q = Qrels.from_dict(qrels)
    if not any(g >= 1 for judged in qrels.values() for g in judged.values()):
        return
    runs = [Run.from_dict(r, n) for r, n in ((x, "x"), (y, "y"), (z, "z"))]
    forward = P.compare(q, runs)
    backward = P.compare(q, runs[::-1])
    itself = P.compare(q, [runs[0], Run.from_dict(x, "x again")])
    for m in MEASURES:
        # Pairs (x,y) (x,z) (y,z) forward are (z,y) (z,x) (y,x) backward, reversed.
        assert np.array_equal(forward.per_query[m], -backward.per_query[m][::-1])
        assert not itself.per_query[m].any()
        matrix = forward.matrix(m)
        assert np.array_equal(matrix, -matrix.T) and not np.diag(matrix).any()
        assert np.all(np.abs(forward.per_query[m]) <= 1 + 1e-12)


# ---------------------------------------------------------------- hand-computed cases

# Query 1: a (grade 1), b and c (grade 2), d judged non-relevant. Query 2: x (grade 1).
# Query 3 has no relevant document: it is not compared.
QRELS = Qrels.from_dict({"1": {"a": 1, "b": 2, "c": 2, "d": 0}, "2": {"x": 1}, "3": {"z": 0}})
A = run_of({"1": ["b", "a", "e", "c"], "2": ["y", "x"], "3": ["z"]}, "A")   # q1 ranks: a 2, b 1, c 4
B = run_of({"1": ["a", "c", "b"]}, "B")                                      # q1 ranks: a 1, b 3, c 2; no q2


def test_graded_rpp_by_hand():
    result = P.compare(QRELS, [A, B])
    assert result.query_ids.tolist() == ["1", "2"]              # query 3 (no relevant document) is left out
    # Grade >= 1 (m = 3): A [1, 2, 4], B [1, 2, 3] -> s = [0, 0, -1].
    # Grade >= 2 (m = 2, b and c): A [1, 4], B [2, 3] -> s = [+1, -1].
    d3 = [1, 1 / math.log2(3), 1 / 2]
    d2 = d3[:2]
    expected = {
        "rpp": (3 * (-1 / 3) + 2 * 0.0) / 5,
        "dcgrpp": (3 * (-d3[2] / sum(d3)) + 2 * (d2[0] - d2[1]) / sum(d2)) / 5,
        "invrpp": (3 * (-(1 / 3) / (1 + 1 / 2 + 1 / 3)) + 2 * (1 - 1 / 2) / (1 + 1 / 2)) / 5,
    }
    for m, value in expected.items():
        # Query 2: B has no results, so A's rank 2 beats "not retrieved".
        assert per_query(result, m) == pytest.approx({"1": value, "2": 1.0}, abs=1e-15), m
        assert result.means[m][0] == pytest.approx((value + 1.0) / 2, abs=1e-15)
    assert result.absent == [[], ["2"]]


def test_binary_threshold():
    two = P.compare(QRELS, [A, B], binary_threshold=2)
    assert two.query_ids.tolist() == ["1"]                       # query 2's only relevant grade is 1
    assert per_query(two, "rpp") == {"1": 0.0}                   # A [1, 4], B [2, 3]
    one = P.compare(QRELS, [A, B], binary_threshold=1)           # grades not told apart: A [1, 2, 4], B [1, 2, 3]
    assert per_query(one, "rpp") == pytest.approx({"1": -1 / 3, "2": 1.0})
    zero = P.compare(QRELS, [A, B], binary_threshold=0)          # judged non-relevant d and z count too
    assert zero.query_ids.tolist() == ["1", "2", "3"]
    assert per_query(zero, "rpp")["3"] == 1.0                    # A retrieves z; B has no query 3
    assert per_query(zero, "rpp")["1"] == pytest.approx(-1 / 4)  # A [1, 2, 4, nr], B [1, 2, 3, nr]
    with pytest.raises(EvalUsageError, match="0 or more"):
        P.compare(QRELS, [A, B], binary_threshold=-1)


def test_a_query_missing_from_a_run_retrieves_nothing():
    result = P.compare(QRELS, [B, A])
    for m in MEASURES:
        assert per_query(result, m)["2"] == -1.0
    # Neither run shares a query with the qrels: two "not retrieved" vectors tie everywhere.
    result = P.compare(QRELS, [run_of({"9": ["a"]}, "nothing"), run_of({"8": ["x"]}, "other")])
    for m in MEASURES:
        assert not result.per_query[m].any()


@pytest.mark.parametrize("x, y, lexiprecision, lexirecall", [
    ([1, 5, None], [2, 3, 4], 1, -1),      # x finds the first sooner; y retrieves more
    ([1, 3], [2, 3], 1, 1),                # as many retrieved, last tied: the one before decides
    ([2, 3], [1, 4], -1, 1),               # y finds the first sooner; x finds the last sooner
    ([None, None], [None, None], 0, 0),
    ([1, 2], [1, 2], 0, 0),
    ([3, None], [None, None], 1, 1),
])
def test_lexicographic_by_hand(x, y, lexiprecision, lexirecall):
    qrels = Qrels.from_dict({"q": {f"r{k}": 1 for k in range(len(x))}})
    result = P.compare(qrels, [run_of({"q": ranking_with(x)}, "x"), run_of({"q": ranking_with(y)}, "y")],
                       ["lexiprecision", "lexirecall"])
    assert per_query(result, "lexiprecision") == {"q": lexiprecision}
    assert per_query(result, "lexirecall") == {"q": lexirecall}


def test_lexicographic_reads_all_relevant_documents_when_graded():
    # r0 grade 1, r1 grade 2. All relevant: x [1, 3], y [2, 4]; grade 2 alone: x [3], y [2].
    qrels = Qrels.from_dict({"q": {"r0": 1, "r1": 2}})
    x, y = run_of({"q": ["r0", "n", "r1"]}, "x"), run_of({"q": ["n", "r1", "m", "r0"]}, "y")
    result = P.compare(qrels, [x, y])
    assert per_query(result, "lexiprecision") == {"q": 1.0}
    assert per_query(result, "lexirecall") == {"q": 1.0}


# ---------------------------------------------------------------- matrix, ranking, tidy tables

def three_runs():
    qrels = Qrels.from_dict({"1": {"a": 1, "b": 1}, "2": {"c": 1}})
    good = run_of({"1": ["a", "b"], "2": ["c"]}, "good")
    mid = run_of({"1": ["a", "x", "b"], "2": ["x", "c"]}, "mid")
    bad = run_of({"1": ["x", "y", "a"]}, "bad")
    return qrels, [good, mid, bad]


def test_matrix_and_ranking():
    qrels, runs = three_runs()
    result = P.compare(qrels, runs, ["rpp"])
    # good-mid: q1 [1,2] vs [1,3] -> 1/2, q2 1 vs 2 -> 1: mean 3/4. good-bad: q1 [1,2] vs [3,nr] -> 1, q2 -> 1.
    # mid-bad: q1 [1,3] vs [3,nr] -> 1, q2 -> 1.
    expected = np.array([[0, 0.75, 1], [-0.75, 0, 1], [-1, -1, 0]])
    assert np.array_equal(result.matrix("rpp"), expected)
    frame = result.matrix_frame("rpp")
    assert frame.index.name == P.RUN_A and frame.columns.name == P.RUN_B
    assert list(frame.index) == ["good", "mid", "bad"] and frame.loc["mid", "good"] == -0.75
    ranking = result.ranking_frame()
    assert ranking[tidy.RUN].tolist() == ["good", "mid", "bad"]
    assert ranking["mean_preference"].tolist() == [0.875, 0.125, -1.0]
    assert ranking["win_rate"].tolist() == [1.0, 0.5, 0.0]
    assert ranking[["wins", "ties", "losses", "rank"]].values.tolist() == [[2, 0, 0, 1], [1, 0, 1, 2], [0, 0, 2, 3]]


def test_tied_runs_share_a_rank():
    qrels, runs = three_runs()
    ranking = P.compare(qrels, [runs[0], runs[0], runs[2]], ["lexirecall"]).ranking_frame()
    assert ranking["rank"].tolist() == [1, 1, 3] and ranking["ties"].tolist() == [1, 1, 0]


def test_tidy_table_pairs_in_the_order_given():
    qrels, runs = three_runs()
    result = P.compare(qrels, runs, ["invrpp", "rpp"])
    frame = result.to_frame()
    assert tuple(frame.columns) == P.PAIR_COLUMNS == ("measure", "run_a", "run_b", "query", "value")
    assert frame[["measure", "run_a", "run_b"]].values.tolist() == [
        [m, a, b] for m in ("invrpp", "rpp") for a, b in (("good", "mid"), ("good", "bad"), ("mid", "bad"))]
    assert set(frame[tidy.QUERY]) == {tidy.ALL_QUERIES}
    full = result.to_frame(per_query=True)
    assert full[tidy.QUERY].tolist()[:6] == ["1", "2", "all", "1", "2", "all"]
    assert full[(full[tidy.MEASURE] == "rpp") & (full[tidy.QUERY] == "all")][tidy.VALUE].tolist() == [0.75, 1, 1]


def test_run_names_are_made_unique_as_evaluate_makes_them():
    qrels, runs = three_runs()
    result = P.compare(qrels, [runs[0], runs[0], runs[1]], ["rpp"])
    assert result.run_names == ["good", "good-2", "mid"]


def test_fewer_than_two_runs_or_an_unknown_measure_is_refused():
    qrels, runs = three_runs()
    with pytest.raises(EvalUsageError, match="two runs or more"):
        P.compare(qrels, runs[:1])
    with pytest.raises(EvalUsageError, match="unknown preference 'ap'"):
        P.compare(qrels, runs, ["ap"])


def test_runs_may_come_from_a_generator_and_pairs_in_chunks(monkeypatch):
    qrels, runs = three_runs()
    whole = P.compare(qrels, runs)
    monkeypatch.setattr(P, "_CHUNK_ELEMENTS", 1)          # one pair per chunk
    chunked = P.compare(qrels, (r for r in runs), n_runs=3)
    threaded = P.compare(qrels, runs, workers=2)
    for m in MEASURES:
        assert np.array_equal(whole.per_query[m], chunked.per_query[m])
        assert np.array_equal(whole.per_query[m], threaded.per_query[m])


def test_loaders_on_threads_give_the_same_result_in_order():
    qrels, runs = three_runs()
    calls = []

    def loader(run):
        def load():
            calls.append(run.name)
            return run
        return load

    heard = []
    threaded = P.compare(qrels, [loader(r) for r in runs * 3], workers=2, on_run=lambda run, _: heard.append(run.name))
    plain = P.compare(qrels, runs * 3)
    assert sorted(calls) == sorted(heard) == sorted(r.name for r in runs * 3)
    assert heard == [r.name for r in runs * 3] and threaded.run_names == plain.run_names
    for m in MEASURES:
        assert np.array_equal(threaded.per_query[m], plain.per_query[m])
    with pytest.raises(Cancelled):
        P.compare(qrels, [loader(r) for r in runs], workers=2, state=JobState(is_cancelled=lambda: True))


def test_job_reports_progress_and_can_be_cancelled():
    qrels, runs = three_runs()
    seen = []
    P.compare(qrels, runs, state=JobState(on_progress=lambda f, msg: seen.append((f, msg)), min_interval=0.0))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(msg.startswith("Ranked good") for _, msg in seen) and any("Compared pairs" in msg for _, msg in seen)
    with pytest.raises(Cancelled):
        P.compare(qrels, runs, state=JobState(is_cancelled=lambda: True))


# ---------------------------------------------------------------- the family in the registry

def test_the_family_is_registered_with_descriptions_and_formulas():
    assert "preference" in registry.family_keys() and registry.family("preference") is P.REGISTRY
    assert list(P.REGISTRY) == ["rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision", "st_rpp", "st_rpp_rel"]
    for record in P.REGISTRY.values():
        assert record.family == "preference" and record.direction == "higher"
        assert len(record.description) > 40 and "s_i = sgn(y_i - x_i)" in record.formula
    assert "positive when the first run (the row of a preference matrix) is preferred" in P.REGISTRY.description
    from evalgui.cli.preference import MEASURES as CLI_MEASURES, PAPER_NAMES

    assert list(CLI_MEASURES) == list(P.REGISTRY)
    assert list(PAPER_NAMES) == [r.paper_name for r in P.REGISTRY.values()]


def test_every_preference_has_the_name_papers_write():
    # Diaz & Ferraro 2022 (the RPP slides' table of their results): RPP, DCGPP, INVPP; the RPP slides: ST-RPP.
    assert [r.paper_name for r in P.REGISTRY.values()] == ["RPP", "DCGPP", "INVPP", "Lexirecall", "Lexiprecision",
                                                          "ST-RPP", "ST-RPP(rel)"]
    for record in P.REGISTRY.values():
        assert record.paper_name != record.name and ("paper", record.paper_name) in record.aliases


@pytest.mark.parametrize("given, registered", [
    ("rpp", "rpp"), ("RPP", "rpp"), ("Rpp", "rpp"), ("DCGPP", "dcgrpp"), ("dcgpp", "dcgrpp"), ("DCGRPP", "dcgrpp"),
    ("INVPP", "invrpp"), ("Lexiprecision", "lexiprecision"), ("LEXIRECALL", "lexirecall"), ("ST-RPP", "st_rpp"),
    ("st-rpp(REL)", "st_rpp_rel"), ("ST_RPP_REL", "st_rpp_rel"), ("AP", None), ("DCG-RPP", None)])
def test_either_name_in_any_case_gives_the_registered_one(given, registered):
    assert P.code_name(given) == registered
    if registered is None:
        with pytest.raises(EvalUsageError, match=f"unknown preference '{re.escape(given)}'.*RPP \\(rpp\\)"):
            P.measure(given)
    else:
        assert P.measure(given).name == registered


def test_a_spelling_two_preferences_share_but_in_case_is_refused(monkeypatch):
    from dataclasses import replace

    # a preference registered as "Rpp" (a plug-in's, say): "rPP" could be either, "RPP" and "Rpp" are exact
    monkeypatch.setitem(P.REGISTRY._records, "Rpp", replace(P.REGISTRY["rpp"], name="Rpp", aliases=()))
    assert P.code_name("RPP") == "rpp" and P.code_name("Rpp") == "Rpp"
    with pytest.raises(EvalUsageError, match="'rPP' is ambiguous: write one of rpp, Rpp"):
        P.code_name("rPP")


def test_the_display_names_preferences_as_papers_or_as_registered():
    from evalgui.core import display

    for name, record in P.REGISTRY.items():
        assert display.measure_label(name) == record.paper_name == display.label(name)
        assert display.measure_label(name, display.TREC_EVAL) == name
        assert display.trec_name(record.paper_name) == name and display.is_measure_name(name)


# ---------------------------------------------------------------- agreement with diazf/pref_eval

def pref_eval_dir() -> Path:
    folder = Path(os.environ.get("EVALGUI_PREF_EVAL", ROOT.parent / "pref_eval"))
    if not (folder / "pref_eval.py").exists():
        pytest.skip(f"diazf/pref_eval not found at {folder} (set EVALGUI_PREF_EVAL to a checkout of it)")
    return folder


# pref_eval caches a run's relevance vector on first use whatever grade is asked next, so its graded RPP
# is binary RPP. With the cache turned off it computes the graded definition, which evalgui follows.
NO_CACHE = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
import util.relevance_vector as rv
vector = rv.RelevanceVector.vector
def fresh(self, grade=None, subtopic=None):
    self._cached_vector = []
    return vector(self, grade, subtopic)
rv.RelevanceVector.vector = fresh
sys.argv = sys.argv[1:]
sys.argv[0] = sys.argv[0] + "/pref_eval.py"
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def write_collection(folder: Path, seed: int = 7) -> tuple[Path, list[Path]]:
    """15 queries, graded qrels (one query with no relevant document), four runs with tied scores,
    a query missing from one run and documents judged but never retrieved."""
    rng = np.random.default_rng(seed)
    qrels_lines, runs = [], [[] for _ in range(4)]
    for q in range(15):
        docs = [f"doc{d}" for d in rng.choice(200, 40, replace=False)]
        grades = rng.choice([0, 0, 1, 2, 3], size=25) if q != 4 else np.zeros(25, dtype=int)
        qrels_lines += [f"q{q} 0 {d} {g}" for d, g in zip(docs[:25], grades)]
        for r, lines in enumerate(runs):
            if r == 3 and q == 2:
                continue
            picked = rng.choice(40, 30, replace=False)
            scores = np.round(rng.uniform(0, 5, 30), 1)          # many ties: docno breaks them
            lines += [f"q{q} Q0 {docs[i]} 0 {s} tag{r}" for i, s in zip(picked, scores)]
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    paths = []
    for r, lines in enumerate(runs):
        path = folder / f"sys{r}"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return qrels, paths


def pref_eval_values(argv: list[str]) -> dict[tuple[str, str, str, str], float]:
    proc = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        row = json.loads(line)
        for m in MEASURES:
            if m in row:
                out[(m, row["runi"], row["runj"], row["qid"])] = float(row[m])
    return out


def evalgui_values(qrels: Path, runs: list[Path], threshold: int | None) -> dict[tuple[str, str, str, str], float]:
    from evalgui.core.formats import read_qrels, read_run

    result = P.compare(read_qrels(qrels), [read_run(r) for r in runs], binary_threshold=threshold)
    frame = result.to_frame(per_query=True)
    return {tuple(k): v for k, v in zip(frame[["measure", "run_a", "run_b", "query"]].values.tolist(),
                                         frame["value"].tolist())}


@pytest.mark.parametrize("threshold", [None, 1, 2])
def test_agrees_with_pref_eval(tmp_path, threshold):
    folder = pref_eval_dir()
    qrels, runs = write_collection(tmp_path)
    measures = [a for m in MEASURES for a in ("-m", m)]
    args = ["-R", str(qrels), *measures, "-q"] + (["-b", str(threshold)] if threshold is not None else [])
    theirs = pref_eval_values([str(folder / "pref_eval.py"), *args, *map(str, runs)])
    ours = evalgui_values(qrels, runs, threshold)
    assert ours.keys() == theirs.keys()
    assert len({key[3] for key in ours}) == 14 + 1 or threshold == 2   # q4 has no relevant document; "all"
    if threshold is None:
        # Graded RPP: pref_eval's cache makes it binary; with the cache off it is the graded definition.
        graded = pref_eval_values(["-c", NO_CACHE, str(folder), *args, *map(str, runs)])
        binary = evalgui_values(qrels, runs, 1)
        for key, value in theirs.items():
            expected = binary[key] if key[0].endswith("rpp") else ours[key]
            assert value == pytest.approx(expected, abs=1e-12), key
            assert graded[key] == pytest.approx(ours[key], abs=1e-12), key
    else:
        for key, value in theirs.items():
            assert value == pytest.approx(ours[key], abs=1e-12), key
