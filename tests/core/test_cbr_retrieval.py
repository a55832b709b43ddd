"""Retrievers and evaluation runs: the ground truth's order, blocks, self-retrieval, MAC/FAC against linear,
timings, ranked measures through graded qrels, the job's progress and Cancel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgui.core.cbr import retrieval
from evalgui.core.cbr.evaluate import CaseBaseRun, qrels_from_ground_truth, run_casebase, run_of_lists
from evalgui.core.cbr.lists import ground_truth_lists, order_rows
from evalgui.core.cbr.model import Scorer, load_model
from evalgui.core.errors import EvalUsageError
from evalgui.core.inputs.case_base import read_case_base
from evalgui.core.inputs.similarity import read_similarity_results
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.resources import sample_data

CARS = sample_data("cbr")


@pytest.fixture(scope="module")
def cars():
    train = read_case_base(CARS / "cars.csv")
    test = read_case_base(CARS / "queries.csv")
    return train, test, load_model(CARS / "model.json", train), load_model(CARS / "mac_model.json", train)


def synthetic(tmp_path, n_cases=300, n_queries=25, seed=3):
    """A case base with every kind of attribute, ties (rounded prices) and missing values."""
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]

    def rows(n, prefix):
        out = []
        for i in range(n):
            price = "" if rng.random() < 0.05 else str(int(rng.integers(0, 20)) * 500)
            tags = ";".join(sorted(set(rng.choice(words, size=int(rng.integers(1, 4))).tolist())))
            name = "".join(rng.choice(list("abcdefgh"), size=int(rng.integers(3, 9))))
            vec = f'"[{rng.random():.3f}, {rng.random():.3f}]"'
            out.append(f"{prefix}{i},{price},{rng.choice(['x', 'y', 'z'])},{tags},{name},{vec}")
        return out

    for name, n, prefix in (("train.csv", n_cases, ""), ("test.csv", n_queries, "q")):
        (tmp_path / name).write_text("id,price,kind,tags,name,vec\n" + "\n".join(rows(n, prefix)) + "\n")
    (tmp_path / "model.json").write_text("""{"attributes": [
        {"name": "price", "type": "numeric", "measure": "linear", "weight": 2},
        {"name": "kind", "type": "categorical", "measure": "equality"},
        {"name": "tags", "type": "set", "measure": "jaccard_index"},
        {"name": "name", "type": "text", "measure": "normalized_levenshtein"},
        {"name": "vec", "type": "vector", "measure": "cosine", "weight": 0.5}]}""")
    train, test = read_case_base(tmp_path / "train.csv"), read_case_base(tmp_path / "test.csv")
    return train, test, load_model(tmp_path / "model.json", train)


def _pairs_of(lists):
    return [(lists.query_ids[q], lists.case_ids[c], s) for q in range(lists.n_queries)
            for c, s in zip(*lists.list(q))]


# ---------------------------------------------------------------- the ground truth

def test_the_ground_truth_orders_by_similarity_then_numeric_case_id(cars):
    train, test, model, _ = cars
    bases = retrieval.CaseBases.of(test, train, exclude_self=False)
    truth, seconds, _ = retrieval.linear(Scorer(model, bases.test, bases.train), bases)
    assert truth.query_ids.tolist() == ["q1", "q2", "q3"] and truth.case_ids.tolist() == [str(i) for i in range(1, 21)]
    assert (truth.lengths() == 20).all() and (seconds > 0).all()
    full = Scorer(model, bases.test, bases.train).block(np.arange(3))
    for q in range(3):
        cases, sims = truth.list(q)
        expected = sorted(range(20), key=lambda c: (-full[q, c], c))
        assert cases.tolist() == expected and sims.tolist() == full[q, expected].tolist()
    assert truth.list(0)[0][0] == 1               # q1's best: car 2, the Passat Variant 2.0 TDI


def test_blocks_of_any_size_give_the_same_ground_truth(tmp_path, monkeypatch):
    train, test, model = synthetic(tmp_path)
    bases = retrieval.CaseBases.of(test, train, exclude_self=False)
    coarse = model.subset(["price", "kind"])                       # many ties: ordered by case id alike
    whole = [retrieval.linear(Scorer(m, bases.test, bases.train), bases)[0] for m in (model, coarse)]
    monkeypatch.setattr(retrieval, "BLOCK_CELLS", 700)            # two queries per block
    blocked = [retrieval.linear(Scorer(m, bases.test, bases.train), bases)[0] for m in (model, coarse)]
    for a, b in zip(whole, blocked):
        assert _pairs_of(a) == _pairs_of(b)                       # bit for bit
    assert len(np.unique(whole[1].list(0)[1])) < 100


def test_a_query_never_retrieves_itself_from_the_same_file_unless_asked(cars):
    train, _, model, _ = cars
    excluded = run_casebase(CaseBaseRun(train, train, model, ks=(3,), metrics=["hits"]))
    assert excluded.exclude_self
    truth = excluded.ground_truth
    assert (truth.lengths() == 19).all()
    assert all(truth.case_ids[c] != truth.query_ids[q] for q in range(20) for c in truth.list(q)[0])
    included = run_casebase(CaseBaseRun(train, train, model, metrics=["hits"], exclude_self=False))
    assert (included.ground_truth.lengths() == 20).all()
    assert all(included.ground_truth.case_ids[included.ground_truth.list(q)[0][0]] == included.ground_truth.query_ids[q]
               for q in range(20))                                 # each case is most similar to itself


def test_the_ground_truth_exports_and_reads_back(cars, tmp_path):
    train, test, model, _ = cars
    truth = run_casebase(CaseBaseRun(train, test, model, metrics=["hits"])).ground_truth
    for name in ("gt.csv", "gt.tsv", "gt.parquet"):
        truth.write(str(tmp_path / name))
        back = ground_truth_lists(read_similarity_results(tmp_path / name))
        assert [(q, c) for q, c, _ in _pairs_of(back)] == [(q, c) for q, c, _ in _pairs_of(truth)]
        np.testing.assert_allclose(back.sims, truth.sims, rtol=0, atol=1e-15)
    assert (tmp_path / "gt.csv").read_text().startswith("query_id,case_id,similarity\nq1,2,0.9")


# ---------------------------------------------------------------- MAC/FAC

def test_macfac_with_every_case_as_filter_size_equals_linear(tmp_path):
    train, test, model = synthetic(tmp_path)
    result = run_casebase(CaseBaseRun(train, test, model, model.subset(["price", "kind"]), (len(train), 10),
                                      (10, 10), metrics=["hits", "quality_stromer", "mae", "kendall"]))
    linear, everything, some = result.retrievals
    assert (linear.name, everything.name, everything.filter_size) == ("linear", "macfac", len(train))
    assert [(q, c) for q, c, _ in _pairs_of(everything.lists)] == [(q, c) for q, c, _ in _pairs_of(linear.lists)]
    np.testing.assert_allclose(everything.lists.sims, linear.lists.sims, rtol=0, atol=1e-12)
    table = result.table.set_index(["retriever", "filter_size", "metric"])["value"]
    assert table[("macfac", len(train), "hits")] == 10 and table[("macfac", len(train), "quality_stromer")] == 1.0
    assert table[("macfac", len(train), "mac_recall")] == 1.0
    assert table[("macfac", 10, "mac_recall")] < 1.0 and table[("macfac", 10, "hits")] < 10
    # MAC/FAC's list is its candidates' best k by the full model
    cases, _ = some.lists.list(0)
    kept, mac_sims = some.candidates.list(0)
    assert set(cases.tolist()) <= set(kept.tolist()) and len(kept) == 10
    assert (np.diff(mac_sims) <= 0).all()                          # candidates by MAC's similarity


def test_top_rows_breaks_ties_by_the_lower_column():
    sims = np.array([[0.5, 0.9, 0.5, 0.5, np.nan], [np.nan, 0.1, 0.2, 0.3, 0.4]])
    lengths, cols = retrieval.top_rows(sims, 3)
    assert lengths.tolist() == [3, 3] and cols.tolist() == [0, 1, 2, 2, 3, 4]
    lengths, cols = retrieval.top_rows(sims, 9)                    # more than there are: every valid one
    assert lengths.tolist() == [4, 4]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, -0.0, 0.3, 0.1 + 0.2, 0.30000000000000004 + 2 ** -54, 1.0, 1e-300,
                                          0.5, 0.7 + 0.1, 0.8, np.nan]), min_size=1, max_size=70),
                min_size=1, max_size=5).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_order_rows_equals_a_stable_argsort(rows):
    sims = np.array(rows)
    order, ordered = order_rows(sims)
    expected = np.argsort(-sims, axis=1, kind="stable")       # ties by column, NaN last
    assert order.tolist() == expected.tolist()
    np.testing.assert_array_equal(ordered, np.take_along_axis(sims, expected, axis=1))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.sampled_from([0.0, 1 / 3, 2 / 3, 1.0, np.nan]), min_size=n, max_size=n), min_size=1,
             max_size=6),
    st.integers(1, 10))))
def test_top_rows_is_the_stable_order_cut(case):
    rows, size = case
    sims = np.array(rows)
    lengths, cols = retrieval.top_rows(sims, size)
    got = np.split(cols, np.cumsum(lengths)[:-1])
    for row, picked in zip(sims, got):
        expected = [j for j in np.argsort(-row, kind="stable") if not np.isnan(row[j])][:size]
        assert picked.tolist() == sorted(expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=6), min_size=1, max_size=5),
       st.one_of(st.none(), st.integers(1, 7)))
def test_ordering_candidates_of_equal_or_unequal_counts(rows, k):
    lengths = np.array([len(r) for r in rows])
    cols = np.concatenate([np.arange(len(r)) * 3 for r in rows])        # ascending within each row
    sims = np.concatenate([np.array(r, dtype=float) for r in rows])
    n, got_cols, got_sims = retrieval._order_rows(lengths, cols, sims, k)
    at = 0
    for row, length in zip(rows, n.tolist()):
        expected = sorted(range(len(row)), key=lambda j: (-row[j], j))[:length]
        assert length == (len(row) if k is None else min(k, len(row)))
        assert got_cols[at:at + length].tolist() == [3 * j for j in expected]
        assert got_sims[at:at + length].tolist() == [row[j] for j in expected]
        at += length


def test_every_retrieval_is_timed_and_compared_with_linear(cars):
    train, test, model, mac = cars
    result = run_casebase(CaseBaseRun(train, test, model, mac, (3, 6), (3, 3), metrics=["hits"], per_query=True))
    table = result.table
    assert list(table.columns) == ["retriever", "filter_size", "k", "query", "metric", "value"]
    summary = table[table["query"] == "all"].set_index(["retriever", "filter_size", "metric"])["value"]
    for f in (3, 6):
        seconds = summary[("macfac", f, "retrieval_seconds")]
        assert seconds > 0 and summary[("macfac", f, "speedup")] == pytest.approx(
            summary[("linear", pd.NA, "retrieval_seconds")] / seconds)
        assert summary[("macfac", f, "seconds_per_query")] == pytest.approx(seconds / 3)
    per_query = table[(table["query"] != "all") & (table["metric"] == "retrieval_seconds")]
    assert len(per_query) == 3 * 3 and set(per_query["query"]) == {"q1", "q2", "q3"}
    assert summary[("linear", pd.NA, "speedup")] == 1.0


def _python_calls(folder, n_cases: int) -> dict[str, int]:
    """Calls of evalgui's own Python functions (lambdas included) made by the linear retriever and by MAC/FAC
    (both phases), on every thread, over the synthetic case base (every attribute type, Levenshtein
    included) of 25 queries and n_cases cases. Only evalgui's code is counted: the thread pool's own
    waiting, which lasts as long as the machine is slow, is not evalgui's."""
    import os
    import sys
    import threading

    import evalgui

    package = os.path.dirname(evalgui.__file__)
    folder.mkdir()
    train, test, model = synthetic(folder, n_cases=n_cases)
    bases = retrieval.CaseBases.of(test, train, False)
    full, mac = Scorer(model, bases.test, bases.train), Scorer(model.subset(["price", "kind"]), bases.test,
                                                                bases.train)
    counts = {}
    for name, retrieve in (("linear", lambda: retrieval.linear(full, bases, (5,))),
                           ("macfac", lambda: retrieval.macfac(mac, full, bases, 100, 5))):
        count = [0]

        def profile(frame, event, arg):
            if event == "call" and frame.f_code.co_filename.startswith(package):
                count[0] += 1

        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            retrieve()
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        counts[name] = count[0]
    return counts


def test_no_python_code_runs_per_pair(tmp_path):
    """The retrievers are vectorised: 16 times the pairs (25 x 300 -> 25 x 4,800 cases: 112,500 more) leave
    the number of calls of evalgui's functions about as it was (per block, attribute and query, not per pair)."""
    small, large = _python_calls(tmp_path / "small", 300), _python_calls(tmp_path / "large", 4800)
    for name in ("linear", "macfac"):
        assert large[name] < small[name] + 1000 and large[name] < 3000, (name, small, large)


@pytest.mark.parametrize("sizes, ks, words", [((5, 10), (3,), "equally long (2 filter sizes, 1 ks)"),
                                              ((2,), (3,), "smaller than its k"), ((0,), (0,), "at least 1")])
def test_filter_sizes_and_ks_are_pairs(cars, sizes, ks, words):
    train, test, model, mac = cars
    with pytest.raises(EvalUsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        run_casebase(CaseBaseRun(train, test, model, mac, sizes, ks))


def test_macfac_needs_a_mac_model(cars):
    train, test, model, _ = cars
    with pytest.raises(EvalUsageError, match="MAC/FAC needs a MAC model"):
        run_casebase(CaseBaseRun(train, test, model, None, (5,), (3,)))


# ---------------------------------------------------------------- ranked measures and imported results

def test_ranked_measures_come_from_the_ranked_engine_on_graded_qrels(cars, tmp_path):
    from evalgui.core.ranked.evaluate import evaluate

    train, test, model, mac = cars
    result = run_casebase(CaseBaseRun(train, test, model, mac, (4,), (3,), metrics=["nDCG@3", "P@3", "hits"],
                                      relevance_thresholds=(0.6, 0.8)))
    truth = result.ground_truth
    qrels = qrels_from_ground_truth(truth, (0.6, 0.8))
    grades = dict(zip(zip(qrels.query.to_pylist(), qrels.doc.to_pylist()), qrels.rel.tolist()))
    for (q, c, s) in _pairs_of(truth):
        assert grades.get((q, c), 0) == int(s >= 0.6) + int(s >= 0.8)
    macfac = next(r for r in result.retrievals if r.name == "macfac")
    expected = evaluate(qrels, run_of_lists(macfac.lists, "m"), ["nDCG@3", "P@3"], per_query=False)
    got = result.table[(result.table["retriever"] == "macfac")].set_index("metric")["value"]
    assert got["nDCG@3"] == expected.set_index("measure").loc["nDCG@3", "value"]
    assert got["P@3"] == expected.set_index("measure").loc["P@3", "value"]


def test_ranked_measures_see_each_list_cut_at_k(cars, tmp_path):
    """An imported retriever at k is scored on its first k cases, as the linear one is (and as the
    case-based metrics cut both lists); similarity files alone, the same for every k."""
    from evalgui.core.cbr.evaluate import evaluate_results
    from evalgui.core.ranked.evaluate import evaluate

    train, test, model, _ = cars
    truth = run_casebase(CaseBaseRun(train, test, model, metrics=["hits"])).ground_truth
    truth.write(str(tmp_path / "perfect.csv"))                 # every case, in the ground truth's order
    perfect = read_similarity_results(tmp_path / "perfect.csv")
    thresholds = (0.5,)
    qrels = qrels_from_ground_truth(truth, thresholds)

    def expected(k):
        frame = evaluate(qrels, run_of_lists(truth.truncated(k), "x"), ["P@10", "AP"], per_query=False)
        return frame.set_index("measure")["value"]

    assert expected(3)["P@10"] < expected(None)["P@10"]         # the cut matters on this data
    result = run_casebase(CaseBaseRun(train, test, model, ks=(3,), metrics=["P@10", "AP"],
                                      predicted={"perfect": perfect}, relevance_thresholds=thresholds))
    rows = result.table.set_index(["retriever", "metric"])["value"]
    for metric in ("P@10", "AP"):
        assert rows[("perfect", metric)] == rows[("linear", metric)] == expected(3)[metric], metric
    table, _ = evaluate_results(perfect, [("perfect", perfect)], ["P@10", "hits"], [None, 3],
                                relevance_thresholds=thresholds)
    got = table.set_index(["k", "metric"])["value"]
    assert got[(pd.NA, "P@10")] == expected(None)["P@10"] and got[(3, "P@10")] == expected(3)["P@10"]


def test_imported_results_are_evaluated_beside_the_retrievers(cars, tmp_path):
    train, test, model, _ = cars
    truth = run_casebase(CaseBaseRun(train, test, model, metrics=["hits"])).ground_truth
    reversed_path = tmp_path / "worst.csv"
    frame = truth.to_frame()
    frame["similarity"] = 1 - frame["similarity"]
    frame.to_csv(reversed_path, index=False)
    result = run_casebase(CaseBaseRun(train, test, model, ks=(3,), metrics=["hits", "spearman"],
                                      predicted={"worst": read_similarity_results(reversed_path)}))
    rows = result.table.set_index(["retriever", "metric"])["value"]
    assert rows[("linear", "hits")] == 3 and rows[("worst", "hits")] == 0 and rows[("worst", "spearman")] == -1.0
    assert ("worst", "retrieval_seconds") not in rows.index


# ---------------------------------------------------------------- the job

def test_the_job_reports_progress_and_stops_when_cancelled(tmp_path, monkeypatch):
    """The case-based workflow (what the window's worker and evalgui-cli run call) reports progress, and Cancel
    stops it mid-run."""
    from evalgui.core.workflows.casebase import CasebaseRequest
    from evalgui.core.workflows.casebase import run_casebase as run_workflow

    synthetic(tmp_path)
    monkeypatch.setattr(retrieval, "BLOCK_CELLS", 700)
    files = {"train": str(tmp_path / "train.csv"), "test": str(tmp_path / "test.csv"),
             "model_file": str(tmp_path / "model.json")}
    reports = []
    outcome = run_workflow(CasebaseRequest(**files, mac_attributes=("price",), filter_sizes=(50,), ks=(5,),
                                           metrics=("hits",)),
                           JobState(lambda f, m: reports.append((f, m)), min_interval=0.0))
    assert reports[-1][0] == 1.0 and any("MAC/FAC 50/5" in m for _, m in reports)
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and len(outcome.result.retrievals) == 2
    assert set(outcome["results"]["retriever"]) >= {"linear", "macfac"}
    asked = []

    def cancel_after_three_checks():
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(Cancelled):
        run_workflow(CasebaseRequest(**files, metrics=("hits",)), JobState(is_cancelled=cancel_after_three_checks))
    assert len(asked) >= 4                  # it ran past three checks, then stopped


def test_a_block_stops_between_attributes_when_cancelled(tmp_path):
    """Cancel is checked between the attributes of every block scored, so that a block of 100,000 cases does not
    run to its end after Cancel (issue 23 point 9); the checks do not change the similarities."""
    train, test, model = synthetic(tmp_path)
    n_attributes = len([a for a in model.attributes if a.weight != 0])
    queries = np.arange(5)
    expected = Scorer(model, test, train).block(queries)
    asked = []
    checked = Scorer(model, test, train, check=lambda: asked.append(1))
    asked.clear()                                          # the encoding's checks
    np.testing.assert_array_equal(checked.block(queries), expected)
    assert len(asked) == n_attributes

    armed = []

    def cancel_at_the_second_attribute():
        asked.append(1)
        if armed and len(asked) > 1:
            raise Cancelled()

    cancelling = Scorer(model, test, train, check=cancel_at_the_second_attribute)
    armed.append(True)
    asked.clear()
    with pytest.raises(Cancelled):
        cancelling.block(queries)
    assert len(asked) == 2                                 # stopped before the second attribute was scored


def test_a_cancel_after_the_first_progress_report_stops_the_linear_block_before_its_ordering(tmp_path, monkeypatch):
    """One block of queries (on one worker): a Cancel asked once the block is scored stops it before the
    ordering (from_matrix), not after."""
    train, test, model = synthetic(tmp_path)
    monkeypatch.setattr(retrieval, "WORKERS", 1)
    ordered = []
    original = retrieval.from_matrix
    monkeypatch.setattr(retrieval, "from_matrix", lambda *a: ordered.append(1) or original(*a))
    bases = retrieval.CaseBases.of(test, train, False)
    scorer = Scorer(model, bases.test, bases.train)
    flag = []
    original_block = scorer.block
    scorer.block = lambda q: (original_block(q), flag.append(True))[0]    # Cancel pressed while it scores
    with pytest.raises(Cancelled):
        retrieval.linear(scorer, bases, (5,), JobState(is_cancelled=lambda: bool(flag)))
    assert not ordered
