"""The evaluation advisor: each caveat kind is computed from the data, checked against an independent
computation, and said only when it applies."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import evalgui as eg
from evalgui.core import advisor
from evalgui.core.stats.power import minimum_detectable_difference, topic_set_size
from tests.conftest import SAMPLE_DATA

SYN = SAMPLE_DATA / "synthetic"
RUNS = [str(SYN / f"{name}.run") for name in ("bm25", "dense", "rerank", "random")]
QRELS = str(SYN / "qrels.txt")


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", eg.EvalguiWarning)
        return function(*args, **kwargs)


def kinds(outcome) -> set[str]:
    return set(outcome.caveats["kind"])


def judged_qrels(n_queries=4, judged_per_query=10):
    """Every query judges documents d0..d{judged-1}, the first three relevant (grades 2, 1, 1)."""
    return {f"q{q}": {f"d{i}": (2 if i == 0 else 1 if i < 3 else 0) for i in range(judged_per_query)}
            for q in range(n_queries)}


def ranked_run(docs_by_query):
    """A run ranking each query's documents in the order given, scores strictly descending."""
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in docs_by_query.items()}


# --------------------------------------------------------------------------- the table

def test_every_outcome_carries_the_declared_table():
    outcomes = [quiet(eg.evaluate, QRELS, RUNS[:2], ["AP"]), quiet(eg.compare, QRELS, RUNS[:2], ["AP"]),
                quiet(eg.preference, QRELS, RUNS[:2], test="t"),
                quiet(eg.metaeval, QRELS, RUNS, ["AP", "P@10"], experiment="power", samples=200)]
    for outcome in outcomes:
        assert list(outcome.caveats.columns) == list(advisor.COLUMNS)
        assert outcome.tables["caveats"] is outcome.caveats
        assert set(outcome.caveats["severity"]) <= {"note", "warning"}
        assert set(outcome.caveats["kind"]) <= set(advisor.KINDS)
        for column in ("run", "other_run", "measure", "query"):
            assert outcome.caveats[column].map(type).eq(str).all()


def test_python_raises_each_caveat_as_an_evalgui_warning_that_a_filter_silences():
    with pytest.warns(eg.EvalguiWarning) as caught:
        outcome = eg.evaluate(QRELS, RUNS[:2], ["P@10"])
    assert len(caught) == len(outcome.caveats) > 0
    assert issubclass(eg.EvalguiWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=eg.EvalguiWarning)
        eg.evaluate(QRELS, RUNS[:2], ["P@10"])


# --------------------------------------------------------------------------- judged

@pytest.mark.parametrize("depth", [1, 3, 5, 10, 20])
def test_judged_share_equals_ir_measures_judged_at_k(depth):
    ir_measures = pytest.importorskip("ir_measures")
    outcome = quiet(eg.evaluate, QRELS, RUNS, ["P@10"])
    qrels = pd.read_csv(QRELS, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    for result, path in zip(outcome.results, RUNS):
        run = pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                          dtype={"query_id": str, "doc_id": str})
        reference = {m.query_id: m.value for m in
                     ir_measures.iter_calc([ir_measures.Judged @ depth], qrels[["query_id", "doc_id", "relevance"]],
                                           run[["query_id", "doc_id", "score"]])}
        share, has = advisor.judged_share(result.ranking, depth)
        ours = dict(zip(result.ranking.query_ids[has], share[has]))
        assert ours.keys() == reference.keys()
        for query, value in reference.items():
            assert ours[query] == pytest.approx(value, abs=1e-12)


def test_judged_caveat_at_each_measures_depth_and_not_when_judged():
    qrels = judged_qrels()
    docs = [f"d{i}" for i in range(10)]
    fully = ranked_run({q: docs for q in qrels})
    half = ranked_run({q: docs[:5] + [f"x{i}" for i in range(5)] for q in qrels})   # top 5 judged, next 5 not
    outcome = quiet(eg.evaluate, qrels, {"full": fully, "half": half}, ["P@5", "P@10", "AP"])
    judged = outcome.caveats[outcome.caveats["kind"] == "judged"]
    assert set(judged["run"]) == {"half"}
    assert judged["value"].min() == pytest.approx(0.5)
    assert (judged["severity"] == "warning").all()                 # 50 %: under 70 %
    assert "P@10" in judged["message"].iloc[0] and "bpref" in judged["message"].iloc[0]
    # P@5 sees only judged documents: nothing said at depth 5
    assert not judged["message"].str.contains("top 5 ").any()
    # 80 % judged: a note; with a lower threshold, nothing
    eight = ranked_run({q: docs[:8] + ["x1", "x2"] for q in qrels})
    outcome = quiet(eg.evaluate, qrels, {"eight": eight}, ["P@10"])
    assert outcome.caveats["severity"].tolist() == ["note"]
    result = outcome.results[0]
    assert advisor.judged_caveats("eight", result.ranking, ["P@10"], judged_below=0.75) == []
    # a measure made for missing judgments is not cautioned
    assert quiet(eg.evaluate, qrels, {"half": half}, ["bpref"]).caveats.empty


# --------------------------------------------------------------------------- ties

def tied_case():
    """Two queries with tie groups holding relevant and non-relevant documents, unjudged ones too."""
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0},
             "q2": {"a": 1, "b": 1, "c": 0, "d": 0}}
    run = {"q1": {"a": 5.0, "b": 4.0, "c": 4.0, "d": 4.0, "e": 2.0, "f": 2.0, "u": 1.0},
           "q2": {"a": 3.0, "c": 3.0, "x": 3.0, "b": 1.0, "d": 1.0}}
    return qrels, run


MEASURES = ["AP", "P@2", "P@3", "nDCG@3", "nDCG", "RR", "bpref", "Rprec", "R@3", "ERR@3"]


def test_tie_range_equals_the_extremes_over_every_order_of_the_tied_documents():
    qrels, run = tied_case()
    outcome = quiet(eg.evaluate, qrels, {"tied": run}, MEASURES)
    result = outcome.results[0]
    from evalgui.core.ranked.specs import parse_measures
    from evalgui.core.workflows.ranked import options_of

    queries, ranges = advisor.tie_ranges(result.ranking, parse_measures(MEASURES), options_of(outcome.request))
    assert queries.tolist() == [0, 1]                       # both queries have ties that matter
    # brute force: every order of every tie group, as a run with distinct scores, evaluated afresh
    groups = {q: [[d for d in docs if docs[d] == s] for s in sorted(set(docs.values()), reverse=True)]
              for q, docs in run.items()}
    per_query_orders = {q: [sum(map(list, choice), []) for choice in itertools.product(*[list(itertools.permutations(g))
                                                                                 for g in gs])]
                        for q, gs in groups.items()}
    means = []
    for orders in itertools.product(*per_query_orders.values()):
        permuted = ranked_run(dict(zip(per_query_orders, [list(o) for o in orders])))
        summary = quiet(eg.evaluate, qrels, {"p": permuted}, MEASURES).tables["summary"]
        means.append(dict(zip(summary["measure"], summary["value"])))
    assert len(means) == (3 * 2 * 2) * 6 * 2
    checked = 0
    for name, (worst, best) in ranges.items():
        values = [m[name] for m in means]
        assert np.mean(worst) == pytest.approx(min(values), abs=1e-12), name
        assert np.mean(best) == pytest.approx(max(values), abs=1e-12), name
        checked += 1
    assert checked == len(MEASURES)
    caveats = outcome.caveats[outcome.caveats["kind"] == "ties"]
    assert set(caveats["measure"]) == {n for n, (w, b) in ranges.items() if np.mean(b) - np.mean(w) > 1e-4}
    assert "AP" in set(caveats["measure"])
    ap = caveats[caveats["measure"] == "AP"].iloc[0]
    assert ap["value"] == pytest.approx(max(m["AP"] for m in means) - min(m["AP"] for m in means))


def test_no_tie_pass_for_runs_without_ties_or_with_ties_judged_alike():
    qrels, _ = tied_case()
    untied = ranked_run({"q1": list("abcdef"), "q2": list("abcd")})
    outcome = quiet(eg.evaluate, qrels, {"untied": untied}, ["AP"])
    assert advisor.tie_groups(outcome.results[0].ranking) is None
    # tied only among documents judged alike: no order changes anything
    alike = {"q1": {"a": 5.0, "c": 3.0, "e": 3.0, "b": 1.0, "d": 1.0, "f": 1.0}}
    outcome = quiet(eg.evaluate, {"q1": qrels["q1"]}, {"alike": alike}, ["AP"])
    assert advisor.tie_groups(outcome.results[0].ranking) is None
    assert "ties" not in kinds(outcome)


# --------------------------------------------------------------------------- queries (power)

def test_minimum_detectable_difference_is_the_power_modules():
    outcome = quiet(eg.compare, QRELS, RUNS[:3], ["nDCG@10"])
    rows = outcome.caveats[outcome.caveats["kind"] == "queries"]
    assert len(rows)
    wide = outcome.comparison.per_query["nDCG@10"]
    table = outcome.tables["comparison"]
    m = len(table)
    for row in rows.itertuples():
        diffs = wide[row.run] - wide[row.other_run]
        sd, n = float(np.std(diffs, ddof=1)), len(diffs)
        assert row.value == pytest.approx(minimum_detectable_difference(sd, n, alpha=0.05), rel=1e-9)
        observed = float(table[(table["run_a"] == row.run) & (table["run_b"] == row.other_run)]["diff"].iloc[0])
        assert abs(observed) < row.value
        assert f"about {topic_set_size(sd, abs(observed)):,} queries" in row.message
        # Holm corrects over the m pairs: the message also gives the MDD at alpha/m
        at_m = minimum_detectable_difference(sd, n, alpha=0.05 / m)
        assert f"{advisor.num(at_m)} at α/{m}" in row.message
        assert row.severity == "note"


def test_vectorised_topic_set_size_matches_the_power_module():
    effects = np.array([0.05, 0.1, 0.2, 0.35, 0.8, 1.5])
    for alpha in (0.05, 0.01):
        expected = [topic_set_size(1.0, e, alpha=alpha) for e in effects]
        assert advisor.queries_needed(effects, alpha).tolist() == expected
    # a wide spread of effects and levels at once, each its own α
    rng = np.random.default_rng(2)
    effects = np.exp(rng.uniform(np.log(0.003), np.log(5), 60))
    alphas = rng.choice([0.05, 0.01, 0.005, 0.0008], 60)
    assert advisor.queries_needed(effects, alphas).tolist() == [topic_set_size(1.0, e, alpha=a)
                                                                for e, a in zip(effects, alphas)]


def test_tie_passes_evaluate_only_the_queries_with_ties_and_give_the_whole_mean():
    qrels, run = tied_case()
    qrels["q3"] = {"a": 1, "b": 0}
    run = {**run, "q3": {"b": 2.0, "a": 1.0}}                       # no tie in q3
    outcome = quiet(eg.evaluate, qrels, {"tied": run}, ["AP"])
    result = outcome.results[0]
    from evalgui.core.ranked.specs import parse_measures
    from evalgui.core.workflows.ranked import options_of

    queries, ranges = advisor.tie_ranges(result.ranking, parse_measures(["AP"]), options_of(outcome.request))
    assert result.ranking.query_ids[queries].tolist() == ["q1", "q2"]
    assert len(ranges["AP"][0]) == 2
    rows = outcome.caveats[outcome.caveats["kind"] == "ties"]
    # the range of the mean over all three queries: q3's AP (0.5) as evaluated
    worst, best = ranges["AP"]
    assert rows["value"].iloc[0] == pytest.approx((best.sum() - worst.sum()) / 3)


def test_a_significant_difference_below_the_detectable_one_is_a_warning():
    # 30 queries, differences with mean 0.013 and sd 0.03 exactly: t = 2.37 (p = 0.02), MDD = 0.016
    rng = np.random.default_rng(3)
    queries = [f"q{i}" for i in range(30)]
    a = rng.uniform(0.2, 0.8, 30)
    noise = rng.normal(0, 1, 30)
    noise = (noise - noise.mean()) / noise.std(ddof=1) * 0.03
    scores = pd.DataFrame({"run": ["a"] * 30 + ["b"] * 30, "query": queries * 2, "measure": "AP",
                           "value": np.concatenate([a, a - 0.013 - noise])})
    outcome = quiet(eg.compare, scores=_written(scores))
    rows = outcome.caveats[outcome.caveats["kind"] == "queries"]
    assert bool(outcome.tables["comparison"]["significant"].iloc[0])
    assert rows["severity"].tolist() == ["warning"] and "significant anyway" in rows["message"].iloc[0]
    assert rows["value"].iloc[0] == pytest.approx(minimum_detectable_difference(0.03, 30), rel=1e-6)
    # the same difference, not called significant: a note
    caveats = advisor.queries_caveats([("a", "b")], np.array([0.013]), np.array([0.03]), np.array([30]), 0.05,
                                      "none", 1, np.array([False]), "AP")
    assert caveats[0].severity == "note"
    # a difference above the detectable one: nothing to say
    assert advisor.queries_caveats([("a", "b")], np.array([0.5]), np.array([0.03]), np.array([30]), 0.05,
                                   "none", 1, np.array([True]), "AP") == []


def _written(frame):
    import tempfile

    handle = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    frame.to_csv(handle, index=False)
    handle.close()
    return handle.name


# --------------------------------------------------------------------------- multiple comparisons

def test_three_uncorrected_pairs_are_a_warning_two_or_a_correction_are_not():
    outcome = quiet(eg.compare, QRELS, RUNS[:3], ["AP"], correction="none")
    rows = outcome.caveats[outcome.caveats["kind"] == "multiple_comparisons"]
    assert rows["severity"].tolist() == ["warning"] and rows["value"].tolist() == [3.0]
    assert "multiple_comparisons" not in kinds(quiet(eg.compare, QRELS, RUNS[:3], ["AP"]))            # Holm
    assert "multiple_comparisons" not in kinds(quiet(eg.compare, QRELS, RUNS[:2], ["AP"], correction="none"))
    preference = quiet(eg.preference, QRELS, RUNS[:3], ["RPP"], test="t", correction="none")
    assert "multiple_comparisons" in kinds(preference)
    assert "multiple_comparisons" not in kinds(quiet(eg.preference, QRELS, RUNS[:3], ["RPP"], test="t"))


# --------------------------------------------------------------------------- coverage

def test_missing_queries_give_the_mean_under_the_other_policy():
    qrels = judged_qrels(4)
    docs = [f"d{i}" for i in range(10)]
    full = ranked_run({q: docs for q in qrels})
    short = ranked_run({q: docs[::-1] for q in list(qrels)[:3]})        # lacks q3
    outcome = quiet(eg.evaluate, qrels, {"full": full, "short": short}, ["AP"])
    rows = outcome.caveats[outcome.caveats["kind"] == "coverage"]
    assert rows["run"].tolist() == ["short"] and rows["value"].tolist() == [1.0]
    ap = outcome.tables["summary"].query("run == 'short'")["value"].iloc[0]
    assert f"AP {advisor.num(ap)} → {advisor.num(ap * 3 / 4)}" in rows["message"].iloc[0]
    complete = quiet(eg.evaluate, qrels, {"short": short}, ["AP"], complete=True)
    rows = complete.caveats[complete.caveats["kind"] == "coverage"]
    assert f"AP {advisor.num(ap * 3 / 4)} → {advisor.num(ap)}" in rows["message"].iloc[0]
    assert "coverage" not in kinds(quiet(eg.evaluate, qrels, {"full": full}, ["AP"]))


def test_queries_without_relevant_documents_and_gdevals_every_query_mean():
    qrels = judged_qrels(3)
    qrels["q9"] = {"d0": 0, "d1": 0}
    docs = [f"d{i}" for i in range(10)]
    run = ranked_run({q: docs for q in ["q0", "q1", "q9"]})                 # lacks q2
    outcome = quiet(eg.evaluate, qrels, {"r": run}, ["nDCG@10", "ERR@20"])
    messages = outcome.caveats[outcome.caveats["kind"] == "coverage"]["message"].tolist()
    assert any("no document judged relevant" in m and "q9" in m for m in messages)
    gdeval = [m for m in messages if m.startswith("gdeval averages")]
    assert len(gdeval) == 1
    err = outcome.tables["summary"].query("measure == 'ERR@20'")["value"].iloc[0]
    assert advisor.num(err * 3 / 4) in gdeval[0]


def test_compare_says_which_queries_a_run_lacks_and_its_other_mean():
    qrels = judged_qrels(4)
    docs = [f"d{i}" for i in range(10)]
    runs = {"a": ranked_run({q: docs for q in qrels}), "b": ranked_run({q: docs[::-1] for q in list(qrels)[:3]})}
    paths = []
    import tempfile

    folder = tempfile.mkdtemp()
    for name, run in runs.items():
        path = f"{folder}/{name}.run"
        with open(path, "w") as f:
            for q, ranked in run.items():
                for i, (d, s) in enumerate(ranked.items()):
                    f.write(f"{q} Q0 {d} {i + 1} {s} {name}\n")
        paths.append(path)
    with open(f"{folder}/qrels", "w") as f:
        for q, judged in qrels.items():
            for d, g in judged.items():
                f.write(f"{q} 0 {d} {g}\n")
    outcome = quiet(eg.compare, f"{folder}/qrels", paths, ["AP"])
    rows = outcome.caveats[outcome.caveats["kind"] == "coverage"]
    assert rows["run"].tolist() == ["b"] and "q3" in rows["message"].iloc[0]
    assert "coverage" not in kinds(quiet(eg.compare, f"{folder}/qrels", [paths[0], paths[0]], ["AP"]))


# --------------------------------------------------------------------------- measure (meta-evaluation)

def test_metaeval_names_the_best_measure_and_only_with_two_or_more():
    outcome = quiet(eg.metaeval, QRELS, RUNS, ["AP", "RR"], experiment="power", samples=200, seed=5)
    rows = outcome.caveats[outcome.caveats["kind"] == "measure"]
    table = outcome.tables["table"]
    best = table.loc[table["discriminative_power"].idxmax(), "measure"]
    assert rows["measure"].tolist() == [best]
    stability = quiet(eg.metaeval, QRELS, RUNS, ["AP", "P@10"], experiment="stability", set_sizes=[10], sets=20,
                      repetitions=2, seed=5)
    rows = stability.caveats[stability.caveats["kind"] == "measure"]
    table = stability.tables["table"]
    assert rows["measure"].tolist() == [table.loc[table["error_rate"].idxmin(), "measure"]]
    single = quiet(eg.metaeval, QRELS, RUNS, ["AP"], experiment="power", samples=200)
    assert "measure" not in kinds(single)
    # and the other workspaces never say it
    assert "measure" not in kinds(quiet(eg.compare, QRELS, RUNS[:3], ["AP", "RR"]))


# --------------------------------------------------------------------------- the report

def test_the_report_has_a_things_to_watch_part_in_each_section():
    from evalgui.core.workflows.report import Section, build_report

    ranked = quiet(eg.evaluate, QRELS, RUNS[:2], ["P@10"])
    compared = quiet(eg.compare, QRELS, RUNS[:3], ["AP"], correction="none")
    page = build_report([Section("ranked", ranked), Section("compare", compared)])
    assert page.count("Things to watch") == 2
    for outcome in (ranked, compared):
        for message in outcome.caveats["message"]:
            import html

            assert html.escape(message) in page
    # a comparison saved without its caveats (an older project) says them again from its tables
    from evalgui.core.workflows.compare import CompareRequest
    from evalgui.core.workflows.outcome import Outcome

    saved = compared.to_json()
    del saved["tables"]["caveats"]
    reread = Outcome.from_json(saved, CompareRequest)
    assert "multiple_comparisons" in build_report([Section("compare", reread)]) or \
        "with no correction for multiple comparisons" in build_report([Section("compare", reread)])
    quiet_page = build_report([Section("ranked", quiet(eg.evaluate, QRELS, RUNS[:1], ["bpref"]))])
    assert "Things to watch" not in quiet_page


# --------------------------------------------------------------------------- many runs, many pairs: said once

def test_many_runs_short_of_judgments_at_one_depth_make_one_caveat():
    qrels = judged_qrels()
    docs = [f"d{i}" for i in range(10)]
    half = {f"run{i}": ranked_run({q: docs[:5] + [f"x{i}{j}" for j in range(5)] for q in qrels}) for i in range(6)}
    outcome = quiet(eg.evaluate, qrels, half, ["P@10"])
    judged = outcome.caveats[outcome.caveats["kind"] == "judged"]
    assert len(judged) == 1 and judged["message"].iloc[0].startswith("6 runs have less than 90 %")
    assert judged["severity"].iloc[0] == "warning" and judged["value"].iloc[0] == pytest.approx(0.5)
    five = quiet(eg.evaluate, qrels, dict(list(half.items())[:5]), ["P@10"])
    assert (five.caveats["kind"] == "judged").sum() == 5            # five or fewer: one each, their cells marked


def test_many_small_differences_of_one_measure_make_one_note_and_significant_ones_stay_warnings():
    n = 8
    pairs = [(f"a{i}", f"b{i}") for i in range(n)]
    diffs, sds, counts = np.full(n, 0.01), np.full(n, 0.05), np.full(n, 40)
    significant = np.zeros(n, bool)
    caveats = advisor.queries_caveats(pairs, diffs, sds, counts, 0.05, "holm", n, significant, "AP")
    assert len(caveats) == 1 and caveats[0].run == "" and "8 of the 8 pairs" in caveats[0].message
    assert caveats[0].value == pytest.approx(minimum_detectable_difference(0.05, 40))
    assert f"about {topic_set_size(0.05, 0.01):,} queries" in caveats[0].message
    significant[:2] = True
    caveats = advisor.queries_caveats(pairs, diffs, sds, counts, 0.05, "holm", n, significant, "AP")
    assert [c.severity for c in caveats] == ["warning", "warning", "note"]
    assert "6 of the 8 pairs" in caveats[-1].message


# --------------------------------------------------------------------------- the judged-share threshold, a request parameter

def test_the_judged_share_threshold_is_a_saved_request_parameter_of_every_workflow_that_checks_runs():
    from evalgui.core.workflows.compare import CompareRequest
    from evalgui.core.workflows.metaeval import MetaevalRequest
    from evalgui.core.workflows.ranked import EvaluateRequest

    qrels = judged_qrels()
    docs = [f"d{i}" for i in range(10)]
    half = {f"run{i}": ranked_run({q: docs[:5] + [f"x{i}{j}" for j in range(5)] for q in qrels}) for i in range(6)}
    said = quiet(eg.evaluate, qrels, half, ["P@10"], judged_below=60)
    [message] = said.caveats.loc[said.caveats["kind"] == "judged", "message"]
    assert message.startswith("6 runs have less than 60 %")          # the summary names the threshold used
    assert "judged" not in kinds(quiet(eg.evaluate, qrels, half, ["P@10"], judged_below=40))
    assert "judged" not in kinds(quiet(eg.compare, QRELS, RUNS[:2], ["P@10"], judged_below=0))
    assert "judged" in kinds(quiet(eg.compare, QRELS, RUNS[:2], ["P@10"], judged_below=100))
    for request_type in (EvaluateRequest, CompareRequest, MetaevalRequest):
        request = request_type(judged_below=75)
        assert request_type.from_json(request.to_json()).judged_below == 75     # a project keeps it
        assert request_type(judged_below=101).problems()[0].for_cli() == \
            "--judged-below 101.0: must be at most 100"


def test_a_projects_saved_caveats_are_read_back_exactly():
    from evalgui.core.workflows.caveats import caveats_state, saved_caveats

    outcome = quiet(eg.evaluate, QRELS, RUNS, ["P@10", "AP"])
    assert len(outcome.caveats)
    mine = saved_caveats({"rows": {}, "caveats": caveats_state(outcome.caveats)})       # the tab's own layout
    written = saved_caveats({"ranked": outcome.to_json()})                              # eg.save_project's
    for back in (mine, written):
        pd.testing.assert_frame_equal(back, outcome.caveats, check_exact=True)
    assert caveats_state(advisor.empty_table()) is None
    assert saved_caveats({"caveats": {"not": "a table"}}) is None and saved_caveats({"rows": {}}) is None


def test_preferences_say_the_judged_shares_of_the_runs_they_compare_tested_or_not():
    runs = RUNS[:3]
    evaluated = quiet(eg.evaluate, QRELS, runs, ["AP"], judged_below=100).caveats
    for settings in ({}, {"test": "t", "correction": "holm"}):
        preferred = quiet(eg.preference, QRELS, runs, ["RPP"], judged_below=100, **settings).caveats
        judged = preferred[preferred["kind"] == "judged"]
        # the same shares as the runs' evaluation (RPP, like AP, has no depth: checked at 10 and at the run's depth)
        assert judged[["run", "severity", "value"]].reset_index(drop=True).equals(
            evaluated.loc[evaluated["kind"] == "judged", ["run", "severity", "value"]].reset_index(drop=True))
        assert all("RPP may understate" in m for m in judged["message"])
    assert "judged" not in kinds(quiet(eg.preference, QRELS, runs, ["RPP"], judged_below=0))


def test_ndevals_every_query_mean_is_said_for_a_run_lacking_queries(tmp_path):
    # Query 1: A covers subtopics 1 and 2, B subtopic 2, C subtopic 3; query 2 is judged, the run lacks it.
    (tmp_path / "q.txt").write_text("1 1 A 1\n1 2 A 1\n1 2 B 1\n1 3 C 1\n1 1 D 0\n2 1 X 1\n2 2 Y 2\n")
    (tmp_path / "r.txt").write_text("1 Q0 A 1 9.3 r\n1 Q0 D 2 8.4 r\n1 Q0 E 3 8.1 r\n1 Q0 B 4 7.6 r\n")
    outcome = quiet(eg.evaluate, str(tmp_path / "q.txt"), [str(tmp_path / "r.txt")], ["alpha_nDCG@5"])
    said = outcome.caveats[outcome.caveats["message"].str.startswith("ndeval averages")]
    [value] = outcome.tables["summary"]["value"]
    assert len(said) == 1 and said["value"].iloc[0] == pytest.approx(value / 2)      # over both judged queries
    assert said["run"].iloc[0] == "r" and said["measure"].iloc[0] == "alpha_nDCG@5"
    with_zeros = quiet(eg.evaluate, str(tmp_path / "q.txt"), [str(tmp_path / "r.txt")], ["alpha_nDCG@5"],
                       complete=True)
    assert not with_zeros.caveats["message"].str.startswith("ndeval averages").any()    # -c is what ndeval does


def test_metaeval_says_the_tie_ranges_its_runs_evaluation_says(tmp_path):
    from tests.core.test_by_query import write_collection

    qrels, run = write_collection(tmp_path, n_queries=30, depth=30)
    coarse = tmp_path / "coarse.txt"          # the same documents, scores rounded further: other ties
    coarse.write_text("".join(" ".join(parts[:4] + [str(round(float(parts[4]) * 2) / 2), parts[5]]) + "\n"
                              for parts in (line.split() for line in run.read_text().splitlines())))
    runs, measures = [str(run), str(coarse)], ["AP", "P@10"]
    evaluated = quiet(eg.evaluate, str(qrels), runs, measures).caveats
    meta = quiet(eg.metaeval, str(qrels), runs, measures, experiment="power", samples=50).caveats
    columns = ["run", "measure", "value", "message"]
    expected = evaluated.loc[evaluated["kind"] == "ties", columns].reset_index(drop=True)
    assert len(expected) >= 2
    pd.testing.assert_frame_equal(meta.loc[meta["kind"] == "ties", columns].reset_index(drop=True), expected)


def test_the_agreement_experiment_names_the_measure_agreeing_most_with_the_others():
    three = quiet(eg.metaeval, QRELS, RUNS, ["AP", "P@10", "RR"], experiment="agreement")
    table = three.tables["table"]
    others = table[table["measure_a"] != table["measure_b"]]
    means = others.groupby("measure_a")["pearson"].mean()
    [said] = three.caveats[three.caveats["kind"] == "measure"].itertuples()
    assert said.measure == means.idxmax() and said.value == pytest.approx(means.max())
    assert f"the one that agrees least ({means.idxmin()})" in said.message
    two = quiet(eg.metaeval, QRELS, RUNS, ["AP", "P@10"], experiment="agreement")
    assert "measure" not in kinds(two)                        # two measures agree with each other alike
