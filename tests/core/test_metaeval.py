"""The meta-evaluation experiments: stability, discriminative power, robustness, agreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalgui.core.data import Qrels, Run
from evalgui.core.inputs import kind
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.metaeval import experiments as ex
from evalgui.core.metaeval.catalogue import COLUMNS, EXPERIMENTS
from tests.conftest import CANCEL_PROMPTLY
from evalgui.core.metaeval.scores import MeasureScores, RankedSource, kendall_tau, pair_signs, scores_from_tidy
from evalgui.core.ranked.evaluate import EvalOptions, evaluate, evaluate_run
from evalgui.core.ranked.specs import parse_measures
from evalgui.core.registry import family
from evalgui.core.resources import sample_data
from evalgui.core.stats.compare import CompareOptions, compare

SYNTHETIC = sample_data("synthetic")
NAMES = ("bm25", "dense", "rerank", "random")
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


@pytest.fixture(scope="module")
def synthetic():
    qrels = kind("qrels").read(str(SYNTHETIC / "qrels.txt"))
    runs = [kind("run").read(str(SYNTHETIC / f"{name}.run")) for name in NAMES]
    return qrels, runs


@pytest.fixture(scope="module")
def source(synthetic):
    return RankedSource(*synthetic, MEASURES)


@pytest.fixture(scope="module")
def full(source):
    return source.measure_scores()


def tied_collection(seed: int, n_queries: int = 8, n_runs: int = 4):
    """Graded qrels (with some negative grades) and runs whose scores have one decimal: many ties,
    tied documents often judged alike; run r1 has no results for q3."""
    rng = np.random.default_rng(seed)
    judgments = {}
    for q in range(n_queries):
        docs = rng.choice(60, size=rng.integers(3, 20), replace=False)
        judgments[f"q{q}"] = {f"d{d}": int(rng.choice([-1, 0, 0, 1, 1, 2])) for d in docs}
    runs = []
    for i in range(n_runs):
        scores = {f"q{q}": {f"d{d}": float(np.round(rng.random(), 1)) for d in rng.choice(60, size=25, replace=False)}
                  for q in range(n_queries) if not (i == 1 and q == 3)}
        runs.append(Run.from_dict(scores, name=f"r{i}"))
    return Qrels.from_dict(judgments), runs


# ---------------------------------------------------------------------------------------- stability

def test_better_worse_equal_by_hand_with_the_fuzziness_boundary():
    # One query per set. q1: A 0.5, B 0.475 (exactly 5% below A: equal at f = 0.05), C 0.4;
    # q2: A 0.3, B 0.6, C 0.5. With k sets on q1 of N:
    #   (A, B): q1 equal, q2 A worse            -> (0, N−k, k)
    #   (A, C): q1 A better, q2 A worse         -> (k, N−k, 0)
    #   (B, C): B better on both                -> (N, 0, 0)
    scores = MeasureScores("m", ["A", "B", "C"], ["q1", "q2"], scores=[[0.5, 0.475, 0.4], [0.3, 0.6, 0.5]])
    n = 400
    result = ex.stability_experiment([scores], ex.StabilitySettings(set_sizes=(1,), sets=n, repetitions=1))
    counts = result.counts["m"]
    k = int(counts[0, 1, 2])
    assert 0 < k < n
    assert counts[0, 1].tolist() == [0, n - k, k] and counts[1, 0].tolist() == [n - k, 0, k]
    assert counts[0, 2].tolist() == [k, n - k, 0] and counts[2, 0].tolist() == [n - k, k, 0]
    assert counts[1, 2].tolist() == [n, 0, 0] and counts[2, 1].tolist() == [0, n, 0]
    row = result.table.iloc[0]
    assert row["error_rate"] == pytest.approx(100 * min(k, n - k) / (3 * n))
    assert row["tie_rate"] == pytest.approx(100 * k / (3 * n))
    assert (row["error_rate_sd"], row["tie_rate_sd"]) == (0.0, 0.0)          # one repetition
    # just under the boundary, A beats B on q1: a second pair contradicts itself
    sharper = ex.stability_experiment([scores], ex.StabilitySettings(set_sizes=(1,), sets=n, repetitions=1,
                                                                     fuzziness=0.049))
    assert sharper.counts["m"][0, 1].tolist() == [k, n - k, 0]               # the same sets (same seed)
    assert sharper.table.iloc[0]["error_rate"] == pytest.approx(100 * 2 * min(k, n - k) / (3 * n))
    assert sharper.table.iloc[0]["tie_rate"] == 0.0


def test_stability_table_curve_and_matrix(full):
    settings = ex.StabilitySettings(set_sizes=(5, 25), sets=200, repetitions=3)
    result = ex.stability_experiment(full, settings)
    table = result.table
    assert list(table.columns[:7]) == list(COLUMNS["stability"])
    assert list(table.columns[7:]) == ["queries", "sets", "repetitions", "replacement", "seed"]
    assert table[["measure", "set_size"]].values.tolist() == [[m, s] for m in MEASURES for s in (5, 25)]
    assert ((table["error_rate"] >= 0) & (table["error_rate"] <= 50) & (table["tie_rate"] <= 100)).all()
    assert (table["error_rate_sd"] > 0).any()
    for m in MEASURES:                                   # the error rate falls with the set size
        rates = table[table["measure"] == m]["error_rate"].tolist()
        assert rates[1] <= rates[0]
    frame = result.matrix_frame("AP")
    assert result.matrix_set_size == 25 and len(frame) == 4 * 3
    assert ((frame["better"] + frame["worse"] + frame["equal"]) == 200 * 3).all()
    one = frame.set_index(["system_a", "system_b"])
    assert one.loc[("bm25", "rerank"), "better"] == one.loc[("rerank", "bm25"), "worse"]


def test_default_set_sizes_run_to_half_the_queries():
    assert ex.default_set_sizes(50) == (5, 10, 15, 20, 25)
    assert ex.default_set_sizes(500) == (25, 50, 75, 100, 125, 150, 175, 200, 225, 250)
    assert ex.default_set_sizes(23) == (5, 10, 11)
    assert ex.default_set_sizes(6) == (3,)
    table = ex.stability_experiment(
        [MeasureScores.of_matrix("m", np.random.default_rng(0).random((30, 3)), ["a", "b", "c"])],
        ex.StabilitySettings(sets=20, repetitions=1)).table
    assert table["set_size"].tolist() == [5, 10, 15]


def test_stability_refuses_what_it_cannot_do(full):
    with pytest.raises(ValueError, match="query set of 60 cannot be drawn from the 50 queries"):
        ex.stability_experiment(full, ex.StabilitySettings(set_sizes=(60,)))
    assert len(ex.stability_experiment(full, ex.StabilitySettings(set_sizes=(60,), sets=10, repetitions=1,
                                                                  replacement=True)).table) == 4
    with pytest.raises(ValueError, match="fuzziness"):
        ex.StabilitySettings(fuzziness=-0.1)


# ---------------------------------------------------------------------------------------- power

@pytest.mark.parametrize("test, correction, samples", [("t", "holm", None), ("bootstrap", "none", 500),
                                                        ("randomization", "bonferroni", 1000), ("tukey", "none", 500)])
def test_discriminative_power_is_the_comparison_engines_count(synthetic, full, test, correction, samples):
    qrels, runs = synthetic
    tidy = evaluate(qrels, runs, MEASURES)
    tidy = tidy[tidy["query"] != "all"]
    options = CompareOptions(test=test, correction=correction, samples=samples, seed=7)
    comparison = compare(tidy, list(NAMES), MEASURES, options, universe=[str(q) for q in qrels.query_ids])
    result = ex.power_experiment(full, ex.PowerSettings(test=test, correction=correction, samples=samples, seed=7))
    table = result.table.set_index("measure")
    for m in MEASURES:
        rows = comparison.rows(m)
        assert table.loc[m, "significant_pairs"] == rows["significant"].sum()
        assert table.loc[m, "discriminative_power"] == pytest.approx(100 * rows["significant"].mean())
        assert table.loc[m, "pairs"] == 6
        ours = result.curve(m).set_index(["system_a", "system_b"])["p_value"]
        theirs = rows.set_index(["run_a", "run_b"])["p_value"]
        assert np.allclose(ours.loc[theirs.index].to_numpy(), theirs.to_numpy(), rtol=1e-12, atol=0)
    assert list(result.table.columns[:7]) == list(COLUMNS["power"])
    assert (result.table["test"] == test).all()


def test_sakais_curves_are_p_values_sorted_per_measure(full):
    result = ex.power_experiment(full, ex.PowerSettings(samples=300))
    for m in MEASURES:
        curve = result.curve(m)
        assert curve["rank"].tolist() == list(range(1, 7))
        assert curve["p_value"].is_monotonic_increasing
    assert result.table["difference_required"].notna().all()           # Sakai's estimate, bootstrap only
    assert ex.power_experiment(full, ex.PowerSettings(test="t")).table["difference_required"].isna().all()


# ---------------------------------------------------------------------------------------- robustness

def test_kendall_tau_is_scipys():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.integers(0, 4, size=9).astype(float)          # ties in both
        y = np.where(rng.random(9) < 0.5, x, rng.integers(0, 4, size=9))
        ours = kendall_tau(pair_signs(x), pair_signs(y))
        assert ours == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    stack = rng.random((5, 12))
    many = kendall_tau(pair_signs(stack[0])[None, :], pair_signs(stack))
    assert np.allclose(many, [stats.kendalltau(stack[0], s).statistic for s in stack])
    assert np.isnan(kendall_tau(pair_signs(np.ones(4)), pair_signs(np.arange(4.0))))   # no order: NaN, as scipy


def test_judgment_removal_keeps_the_fraction_per_query_and_a_relevant_document(source):
    judgments = source.judgments
    ranks = judgments.removal_ranks(5, range(6), source.relevant)
    per_query = judgments.per_query
    before = None
    for fraction in (0.1, 0.25, 0.5, 0.9):
        removed = judgments.removed(ranks, fraction)
        lost = np.stack([np.bincount(judgments.query[r], minlength=judgments.n_queries) for r in removed])
        assert (lost == np.floor(fraction * per_query + 0.5)[None, :]).all()      # round(f·n), every query
        if before is not None:
            assert (removed >= before).all()                                  # nested: more of the same order
        before = removed
        kept_relevant = np.stack([np.bincount(judgments.query[~r & source.relevant], minlength=judgments.n_queries)
                                  for r in removed])
        has_relevant = np.bincount(judgments.query[source.relevant], minlength=judgments.n_queries) > 0
        keeps_some = (per_query - lost) > 0
        assert ((kept_relevant >= 1) | ~(has_relevant[None, :] & keeps_some)).all()
    assert not np.array_equal(ranks[0], ranks[1])
    assert np.array_equal(judgments.removal_ranks(5, range(2, 4), source.relevant), ranks[2:4])  # repetition r is r


def test_judgment_removal_never_touches_the_runs(synthetic):
    qrels, runs = synthetic
    copies = [(run.score.copy(), run.doc.to_pylist(), run.query.to_pylist()) for run in runs]
    source = RankedSource(qrels, runs, ["NumRet", "AP"])
    rankings = [(p.ranking.rel.copy(), p.ranking.offsets.copy()) for p in source._prepared]
    full = source.measure_scores()
    removed = source.judgments.removed(source.judgments.removal_ranks(1, range(3), source.relevant), 0.7)
    reduced = source.reduced_scores(removed, {m: s.queries for m, s in full.items()})
    assert np.array_equal(reduced["NumRet"], np.broadcast_to(full["NumRet"].scores, reduced["NumRet"].shape))
    assert not np.array_equal(reduced["AP"][0], full["AP"].scores)
    for run, (score, docs, queries) in zip(runs, copies):
        assert np.array_equal(run.score, score) and run.doc.to_pylist() == docs and run.query.to_pylist() == queries
    for p, (rel, offsets) in zip(source._prepared, rankings):
        assert np.array_equal(p.ranking.rel, rel) and np.array_equal(p.ranking.offsets, offsets)
    # the reduced qrels hold exactly the judgments kept, and every negative grade
    reduced_qrels = source.judgments.reduced_qrels(qrels, source.universe, removed[0])
    assert len(reduced_qrels) == len(qrels) - int(removed[0].sum())


@pytest.mark.parametrize("options", [EvalOptions(), EvalOptions(complete=True), EvalOptions(judged_only=True),
                                     EvalOptions(max_docs=7, relevance_level=2)], ids=["plain", "-c", "-J", "-M7 -l2"])
def test_reevaluating_prepared_rankings_equals_evaluating_the_reduced_qrels(options):
    measures = ["AP", "nDCG@10", "P@5", "RR", "bpref", "Rprec", "infAP", "nDCG", "R@10", "Judged@10", "set_F"]
    requests = parse_measures(measures)
    for seed in range(3):
        qrels, runs = tied_collection(seed)
        source = RankedSource(qrels, runs, measures, options)
        full = source.measure_scores()
        removed = source.judgments.removed(source.judgments.removal_ranks(3, range(3), source.relevant), 0.5)
        reduced = source.reduced_scores(removed, {m: s.queries for m, s in full.items()})
        for r in range(3):
            smaller = source.judgments.reduced_qrels(qrels, source.universe, removed[r])
            for j, run in enumerate(runs):
                again = evaluate_run(smaller, run, requests, options)
                names = [c.name for c in again.columns]
                row = {q: i for i, q in enumerate(again.query_ids)}
                for m, scores in full.items():
                    expected = [again.per_query[row[q], names.index(m)] if q in row else 0.0 for q in scores.queries]
                    assert np.allclose(reduced[m][r, :, j], np.nan_to_num(expected), rtol=0, atol=1e-12), (m, r, j)


def test_robustness_tau_and_flips_against_a_plain_recomputation(synthetic, source, full):
    qrels, runs = synthetic
    settings = ex.RobustnessSettings(fractions=(0.3, 0.8), repetitions=3, seed=11)
    result = ex.robustness_experiment(source, settings, full=full)
    assert list(result.table.columns[:5]) == list(COLUMNS["robustness"])
    assert result.table[["measure", "fraction"]].values.tolist() == [[m, f] for m in MEASURES for f in (0.3, 0.8)]
    ranks = source.judgments.removal_ranks(11, range(3), source.relevant)
    requests = parse_measures(["AP"])
    for fraction in (0.3, 0.8):
        removed = source.judgments.removed(ranks, fraction)
        taus, flips = [], []
        full_means = np.array([evaluate_run(qrels, run, requests).summary[0] for run in runs])
        for r in range(3):
            smaller = source.judgments.reduced_qrels(qrels, source.universe, removed[r])
            means = np.array([evaluate_run(smaller, run, requests).summary[0] for run in runs])
            taus.append(stats.kendalltau(full_means, means).statistic)
            flips.append(100 * np.mean([np.sign(full_means[i] - full_means[j]) * np.sign(means[i] - means[j]) < 0
                                        for i in range(4) for j in range(i + 1, 4)]))
        row = result.table[(result.table["measure"] == "AP") & (result.table["fraction"] == fraction)].iloc[0]
        assert row["kendall_tau"] == pytest.approx(np.mean(taus))
        assert row["kendall_tau_sd"] == pytest.approx(np.std(taus, ddof=1))
        assert row["flipped_pairs"] == pytest.approx(np.mean(flips))
        assert row["judgments_kept"] == pytest.approx(100 * (1 - removed.sum(axis=1).mean() / len(source.judgments)))
    bands = result.repetitions
    assert len(bands) == 4 * 2 * 3 and list(bands.columns) == ["measure", "fraction", "repetition", "kendall_tau",
                                                                "flipped_pairs"]


def test_robustness_settings_are_checked():
    with pytest.raises(ValueError, match="between 0 and 1"):
        ex.RobustnessSettings(fractions=(0.5, 1.0))
    with pytest.raises(ValueError, match="at least 1"):
        ex.RobustnessSettings(repetitions=0)


# ---------------------------------------------------------------------------------------- agreement

def test_agreement_by_hand_and_against_scipy():
    # 3 systems, 3 queries; measure b is a with the third query's order reversed
    a = np.array([[0.1, 0.4, 0.2], [0.5, 0.5, 0.3], [0.9, 0.2, 0.1]])
    b = a.copy()
    b[2] = [0.1, 0.2, 0.9]
    items = [MeasureScores.of_matrix("a", a, ["x", "y", "z"]), MeasureScores.of_matrix("b", b, ["x", "y", "z"])]
    result = ex.agreement_experiment(items)
    assert list(result.table.columns[:5]) == list(COLUMNS["agreement"])
    da, db = items[0].differences.ravel(), items[1].differences.ravel()
    row = result.table[(result.table["measure_a"] == "a") & (result.table["measure_b"] == "b")].iloc[0]
    # each pair in both orders
    assert row["pearson"] == pytest.approx(stats.pearsonr(np.r_[da, -da], np.r_[db, -db]).statistic)
    # cells (pair x query): q1 and q2 agree on all three pairs, q3 on none: 6 of 9
    assert row["sign_agreement"] == pytest.approx(100 * 6 / 9) and row["cells"] == 9
    assert row["kendall_tau"] == pytest.approx(stats.kendalltau(a.mean(axis=0), b.mean(axis=0)).statistic)
    matrix = result.matrix("pearson")
    assert matrix.loc["a", "a"] == pytest.approx(1.0) and matrix.loc["a", "b"] == matrix.loc["b", "a"]
    assert result.matrix("sign_agreement").loc["b", "b"] == 100.0


def test_agreement_over_the_queries_both_measures_have(full):
    ap = full["AP"]
    fewer = MeasureScores.of_matrix("P@10 (30 queries)", full["P@10"].scores[:30], ap.systems, ap.queries[:30])
    result = ex.agreement_experiment([ap, fewer])
    row = result.table.iloc[1]
    alone = ex.agreement_experiment([ap.restricted(ap.queries[:30]), fewer]).table.iloc[1]
    assert row["cells"] == 6 * 30
    assert row[["pearson", "sign_agreement", "kendall_tau"]].tolist() == \
        pytest.approx(alone[["pearson", "sign_agreement", "kendall_tau"]].tolist())


# ---------------------------------------------------------------------------------------- shared

def test_preference_measures_plug_in_as_pairs_by_queries(full):
    """A preference (pairs x queries, > 0: the first system preferred) goes where a measure goes,
    except stability; here the per-query differences of AP posing as one."""
    ap = full["AP"]
    twin = MeasureScores("AP as a preference", ap.systems, ap.queries, pair_values=ap.differences)
    power = ex.power_experiment([ap, twin], ex.PowerSettings(test="t"))
    assert power.table["significant_pairs"].nunique() == 1
    agreement = ex.agreement_experiment([ap, twin]).matrix("kendall_tau")
    assert agreement.loc["AP", "AP as a preference"] == pytest.approx(1.0)
    assert np.array_equal(np.argsort(twin.system_values), np.argsort(ap.system_values))
    with pytest.raises(ValueError, match="Tukey's HSD needs each system's scores"):
        ex.power_experiment([twin], ex.PowerSettings(test="tukey"))


def test_same_seed_same_tables_another_seed_others(source, full):
    def tables(seed):
        return [ex.stability_experiment(full, ex.StabilitySettings(set_sizes=(5,), sets=100, repetitions=2,
                                                                   seed=seed)).table,
                ex.power_experiment(full, ex.PowerSettings(samples=200, seed=seed)).pairs,
                ex.robustness_experiment(source, ex.RobustnessSettings(fractions=(0.5,), repetitions=3, seed=seed),
                                         full=full).repetitions,
                ex.agreement_experiment(full).table]
    first, again, other = tables(1), tables(1), tables(2)
    for a, b in zip(first, again):
        pd.testing.assert_frame_equal(a, b)
    assert not first[0]["error_rate"].equals(other[0]["error_rate"])
    assert not first[1]["p_value"].equals(other[1]["p_value"])
    assert not first[2]["kendall_tau"].equals(other[2]["kendall_tau"])


@pytest.mark.parametrize("experiment", list(ex.EXPERIMENTS))
def test_every_experiment_reports_progress_and_stops_on_cancel(synthetic, experiment):
    qrels, runs = synthetic
    settings = ex.SETTINGS[experiment]() if experiment != "stability" else ex.StabilitySettings(sets=100)
    reports = []
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.metaeval import request_of_settings, run_metaeval

    # The meta-evaluation workflow on data in memory, as the window hands it over.
    inputs = Inputs()
    inputs.add("<qrels>", qrels)
    paths = [inputs.add(f"<run {i}>", run) for i, run in enumerate(runs)]
    request = request_of_settings(settings, qrels="<qrels>", runs=paths, measures=MEASURES)

    def job(state):
        return run_metaeval(request, state, inputs).result
    result = job(JobState(lambda f, m: reports.append((f, m)), min_interval=0.0))
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(reports) > len(MEASURES)
    assert list(result.table.columns[:len(COLUMNS[experiment])]) == list(COLUMNS[experiment])
    # Cancel once the experiment itself has begun (past ranking the runs and evaluating them)
    heard = []

    def cancelled():
        return bool(heard) and not heard[-1].startswith(("Preparing", "Full judgments"))
    with pytest.raises(Cancelled):
        job(JobState(lambda f, m: heard.append(m), is_cancelled=cancelled, min_interval=0.0))
    assert not heard[-1].startswith(("Preparing", "Full judgments")) and heard[-1] != "Done"


def test_settings_round_trip_for_project_files():
    for settings in (ex.StabilitySettings(set_sizes=(5, 10), replacement=True), ex.PowerSettings(test="t", alpha=0.01),
                     ex.RobustnessSettings(fractions=(0.2, 0.4), repetitions=4), ex.AgreementSettings()):
        assert ex.settings_from_dict(ex.settings_dict(settings)) == settings
    with pytest.raises(ValueError, match="unknown experiment 'nope'"):
        ex.settings_from_dict({"experiment": "nope"})
    with pytest.raises(ValueError, match="power"):
        ex.settings_from_dict({"experiment": "power", "tests": "t"})


def test_sources_refuse_what_has_no_per_query_number(synthetic):
    qrels, runs = synthetic
    with pytest.raises(ValueError, match="two runs or more"):
        RankedSource(qrels, runs[:1], ["AP"])
    with pytest.raises(ValueError, match="num_q"):
        RankedSource(qrels, runs, ["num_q"])
    with pytest.raises(ValueError, match="same systems"):
        ex.agreement_experiment([MeasureScores.of_matrix("a", np.zeros((2, 2)), ["x", "y"]),
                                 MeasureScores.of_matrix("b", np.zeros((2, 2)), ["y", "x"])])


def test_the_experiments_are_a_registered_family():
    assert family("metaeval") is EXPERIMENTS
    assert list(EXPERIMENTS) == list(ex.EXPERIMENTS) == list(COLUMNS)
    for record in EXPERIMENTS.values():
        assert record.description and record.formula


def test_tidy_per_query_scores_give_the_ranked_sources_matrices(synthetic, full):
    qrels, runs = synthetic
    tidy = evaluate(qrels, runs, MEASURES)
    from_tidy = scores_from_tidy(tidy[tidy["query"] != "all"], list(NAMES), MEASURES,
                                 [str(q) for q in qrels.query_ids])
    for m in MEASURES:
        assert from_tidy[m].queries == full[m].queries and np.array_equal(from_tidy[m].scores, full[m].scores)
        assert from_tidy[m].query_set.policy == full[m].query_set.policy == "shared"


def test_a_measure_that_ties_every_system_has_no_tau(synthetic):
    # every run has the same number of relevant documents per query: no ordering, so τ is undefined (NaN,
    # as scipy), never a made-up number, and no pair can flip
    source = RankedSource(*synthetic, ["NumRel", "AP"])
    table = ex.robustness_experiment(source, ex.RobustnessSettings(fractions=(0.5,), repetitions=2)).table
    tied = table[table["measure"] == "NumRel"].iloc[0]
    assert np.isnan(tied["kendall_tau"]) and np.isnan(tied["kendall_tau_sd"]) and tied["flipped_pairs"] == 0.0
    assert table[table["measure"] == "AP"]["kendall_tau"].notna().all()


# ---------------------------------------------------------------------------------------- stability: speed,
# the same query sets for every measure, progress per repetition and Cancel

def test_query_sets_are_drawn_once_per_set_size_and_repetition_for_every_measure(full, monkeypatch):
    from evalgui.core.stats import stability as st

    drawn = []
    draw = st.query_sets
    monkeypatch.setattr(st, "query_sets", lambda *args: drawn.append(args[1]) or draw(*args))
    settings = ex.StabilitySettings(set_sizes=(5, 20), sets=300, repetitions=3)
    result = ex.stability_experiment(full, settings)
    assert drawn == [5] * 3 + [20] * 3              # one block of sets per (size, repetition), not per measure
    # the same sets: AP's per-query differences as a preference are decided exactly as AP (fuzziness 0)
    ap = full["AP"]
    twin = MeasureScores("AP as a preference", ap.systems, ap.queries, pair_values=ap.differences)
    both = ex.stability_experiment([ap, twin], ex.StabilitySettings(set_sizes=(5, 20), sets=300, repetitions=3,
                                                                     fuzziness=0.0))
    assert np.array_equal(both.counts["AP"], both.counts["AP as a preference"])
    rows = both.table.set_index(["measure", "set_size"])
    assert rows.loc["AP", ["error_rate", "tie_rate"]].equals(rows.loc["AP as a preference", ["error_rate", "tie_rate"]])
    # each measure's numbers are those of the shared stability arithmetic on its own
    for m in MEASURES:
        one = st.stability(full[m].scores, 20, 300, 0.05, False, 3, 42, full[m].higher_better)
        row = result.table[(result.table["measure"] == m) & (result.table["set_size"] == 20)].iloc[0]
        assert (row["error_rate"], row["tie_rate"], row["error_rate_sd"]) == \
            (one.error_rate, one.tie_rate, one.error_rate_sd)
        assert np.array_equal(result.counts[m], st.decision_matrix(one.counts, 4))


@pytest.mark.parametrize("replacement", [False, True])
def test_stability_is_the_same_whatever_the_blocks_of_sets(full, monkeypatch, replacement):
    settings = ex.StabilitySettings(set_sizes=(10, 25), sets=250, repetitions=2, replacement=replacement, seed=5)
    whole = ex.stability_experiment(full, settings)
    monkeypatch.setattr(ex, "_SET_CELLS", 7 * 50)           # 7 sets at a time
    blocks = ex.stability_experiment(full, settings)
    pd.testing.assert_frame_equal(whole.table, blocks.table)
    for m in MEASURES:
        assert np.array_equal(whole.counts[m], blocks.counts[m])


def test_stability_reports_each_set_size_and_repetition_and_stops_soon_after_cancel():
    import time

    from evalgui.core.jobs import Cancelled

    rng = np.random.default_rng(0)
    systems = [f"s{i}" for i in range(30)]
    items = [MeasureScores.of_matrix(f"m{k}", rng.random((500, 30)), systems) for k in range(5)]
    heard = []
    ex.stability_experiment(items, ex.StabilitySettings(set_sizes=(50, 250), sets=50, repetitions=3),
                            JobState(lambda f, m: heard.append((f, m)), min_interval=0.0))
    messages = list(dict.fromkeys(m for _, m in heard))
    assert messages[:-1] == [f"50 query sets of {size} (set size {i + 1} of 2), repetition {r} of 3"
                             for i, size in enumerate((50, 250)) for r in (1, 2, 3)]
    assert messages[-1] == "Done" and [f for f, _ in heard] == sorted(f for f, _ in heard)
    # Cancel is heard between blocks of query sets, not at the end
    deadline = time.perf_counter() + 0.3
    with pytest.raises(Cancelled):
        ex.stability_experiment(items, ex.StabilitySettings(set_sizes=(250,), sets=100_000, repetitions=20),
                                JobState(is_cancelled=lambda: time.perf_counter() > deadline))
    assert time.perf_counter() - deadline < CANCEL_PROMPTLY


# ---------------------------------------------------------------------------------------- preference measures

PREFERENCES = ["rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision"]


@pytest.fixture(scope="module")
def with_preferences(synthetic):
    source = RankedSource(*synthetic, ["AP", *PREFERENCES, "P.5,10"])
    return source, source.measure_scores()


def _preference_engine(qrels, runs, queries, level=1):
    """The preference engine's per-query values on ``queries`` (pairs x queries; 0 where it compares none)."""
    from evalgui.core.ranked import preference

    result = preference.compare(qrels, runs, PREFERENCES, binary_threshold=None if level == 1 else level)
    at = {q: i for i, q in enumerate(result.query_ids.tolist())}
    pairs = len(result.pair_a)
    return {m: np.stack([result.per_query[m][:, at[q]] if q in at else np.zeros(pairs) for q in queries], axis=1)
            for m in PREFERENCES}, result


def test_preference_measures_are_the_preference_engines_values(synthetic, with_preferences):
    qrels, runs = synthetic
    source, full = with_preferences
    assert source.measures == list(full) == ["AP", *PREFERENCES, "P_5", "P_10"]         # as asked
    expected, result = _preference_engine(qrels, runs, full["rpp"].queries)
    for m in PREFERENCES:
        assert full[m].is_preference and full[m].systems == list(NAMES) and full[m].n_queries == 50
        assert np.array_equal(full[m].pair_values, expected[m]), m
        assert full[m].query_set.policy == "shared" and not full[m].query_set.missing
        # the system ordering is the preference engine's ranking (mean preference, then win rate)
        ranks = result.ranking_frame().query("measure == @m").set_index("run")["rank"].reindex(NAMES)
        assert np.array_equal(full[m].ordering, pair_signs(-ranks.to_numpy(dtype=float))), m
        assert np.array_equal(full[m].decisions, np.sign(result.means[m]))


@pytest.mark.parametrize("options", [EvalOptions(), EvalOptions(complete=True), EvalOptions(relevance_level=2)],
                         ids=["plain", "-c", "-l2 (binary)"])
def test_preferences_with_judgments_removed_are_the_preference_engines_on_the_reduced_qrels(options):
    for seed in range(3):
        qrels, runs = tied_collection(seed)
        source = RankedSource(qrels, runs, PREFERENCES + ["AP"], options)
        full = source.measure_scores()
        queries = full["rpp"].queries
        assert ("q3" in queries) == options.complete          # r1 has no results for q3
        # with the full judgments, and with half of them removed in 3 ways at once
        expected, _ = _preference_engine(qrels, runs, queries, options.relevance_level)
        for m in PREFERENCES:
            assert np.array_equal(full[m].pair_values, expected[m]), (seed, m)
        removed = source.judgments.removed(source.judgments.removal_ranks(3, range(3), source.relevant), 0.5)
        reduced = source.reduced_scores(removed, {m: s.queries for m, s in full.items()})
        for r in range(3):
            smaller = source.judgments.reduced_qrels(qrels, source.universe, removed[r])
            expected, _ = _preference_engine(smaller, runs, queries, options.relevance_level)
            for m in PREFERENCES:
                assert reduced[m].shape == (3, 6, len(queries))
                assert np.allclose(reduced[m][r], expected[m], rtol=0, atol=1e-12), (seed, r, m)


@pytest.mark.parametrize("options", [EvalOptions(judged_only=True), EvalOptions(max_docs=7)], ids=["-J", "-M7"])
def test_preferences_with_judgments_removed_equal_ranking_the_reduced_qrels_again(options):
    # -J: a removed document leaves the ranking, those below move up; -M: the rankings are cut alike
    for seed in range(3):
        qrels, runs = tied_collection(seed)
        source = RankedSource(qrels, runs, PREFERENCES, options)
        full = source.measure_scores()
        removed = source.judgments.removed(source.judgments.removal_ranks(4, range(3), source.relevant), 0.6)
        reduced = source.reduced_scores(removed, {m: s.queries for m, s in full.items()})
        for r in range(3):
            smaller = source.judgments.reduced_qrels(qrels, source.universe, removed[r])
            again = RankedSource(smaller, runs, PREFERENCES, options).measure_scores()
            for m in PREFERENCES:
                at = {q: i for i, q in enumerate(again[m].queries)}
                expected = np.stack([again[m].pair_values[:, at[q]] if q in at else np.zeros(6)
                                     for q in full[m].queries], axis=1)
                assert np.allclose(reduced[m][r], expected, rtol=0, atol=1e-12), (seed, r, m)


def test_preference_ordering_breaks_mean_ties_by_win_rate():
    from evalgui.core.ranked.preference import PreferenceResult

    # pairs (a, b), (a, c), (b, c): a and b both prefer themselves by 0.1 on average, a beats two, b one
    values = np.array([[0.1], [0.1], [0.3]])
    measure = MeasureScores("p", ["a", "b", "c"], ["q"], pair_values=values)
    assert np.allclose(measure.system_values, [0.1, 0.1, -0.2])
    assert measure.ordering.tolist() == [1, 1, 1] and measure.decisions.tolist() == [1, 1, 1]
    result = PreferenceResult(["a", "b", "c"], np.array(["q"]), ["p"], np.array([0, 0, 1]), np.array([1, 2, 2]),
                              {"p": values})
    assert result.ranking_frame()["run"].tolist() == ["a", "b", "c"]
    # a pair's decision is its own mean preference, whatever the ordering says
    cycle = MeasureScores("p", ["a", "b", "c"], ["q"], pair_values=[[0.5], [-0.2], [0.5]])
    assert cycle.decisions.tolist() == [1, -1, 1]
    assert cycle.ordering.tolist() == [1, 1, 1]       # means 0.15, 0, -0.15


def test_stability_of_a_preference_by_hand_with_the_fuzziness_boundary():
    # One query per set. Pairs (A, B), (A, C), (B, C); q1: 0.05 (a tie at f = 0.05), 0.5, -0.2; q2: -0.5, 0.3, 0.2.
    # With k sets on q1 of N: (A, B) (0, N−k, k); (A, C) (N, 0, 0); (B, C) (N−k, k, 0)
    preference = MeasureScores("pref", ["A", "B", "C"], ["q1", "q2"], pair_values=[[0.05, -0.5], [0.5, 0.3],
                                                                                    [-0.2, 0.2]])
    n = 400
    result = ex.stability_experiment([preference], ex.StabilitySettings(set_sizes=(1,), sets=n, repetitions=1))
    counts = result.counts["pref"]
    k = int(counts[0, 1, 2])
    assert 0 < k < n
    assert counts[0, 1].tolist() == [0, n - k, k] and counts[1, 0].tolist() == [n - k, 0, k]
    assert counts[0, 2].tolist() == [n, 0, 0] and counts[1, 2].tolist() == [n - k, k, 0]
    row = result.table.iloc[0]
    assert row["error_rate"] == pytest.approx(100 * min(k, n - k) / (3 * n))
    assert row["tie_rate"] == pytest.approx(100 * k / (3 * n))
    sharper = ex.stability_experiment([preference], ex.StabilitySettings(set_sizes=(1,), sets=n, repetitions=1,
                                                                         fuzziness=0.049))
    assert sharper.counts["pref"][0, 1].tolist() == [k, n - k, 0]


def test_every_experiment_takes_preference_measures(synthetic, with_preferences):
    qrels, runs = synthetic
    source, full = with_preferences
    rpp, ap = full["rpp"], full["AP"]
    # stability: rates like any measure's, and the error rate falls with the set size
    table = ex.stability_experiment(full, ex.StabilitySettings(set_sizes=(5, 25), sets=200, repetitions=2)).table
    for m in PREFERENCES:
        rates = table[table["measure"] == m]
        assert rates["error_rate"].between(0, 50).all() and rates["error_rate"].iloc[1] <= rates["error_rate"].iloc[0]
    # power: the t-test is a one-sample t-test of each pair's per-query preferences against 0
    power = ex.power_experiment(full, ex.PowerSettings(test="t"))
    curve = power.curve("rpp").set_index(["system_a", "system_b"])
    for k, (i, j) in enumerate(zip(*np.triu_indices(4, 1))):
        p = stats.ttest_1samp(rpp.pair_values[k], 0.0).pvalue
        assert curve.loc[(NAMES[i], NAMES[j]), "p_value"] == pytest.approx(p, rel=1e-9)
    # agreement: the per-query preference against AP's per-query differences, both orders of every pair
    agreement = ex.agreement_experiment([ap, rpp]).table.set_index(["measure_a", "measure_b"])
    d, p = ap.differences.ravel(), rpp.pair_values.ravel()
    assert agreement.loc[("AP", "rpp"), "pearson"] == pytest.approx(stats.pearsonr(np.r_[d, -d], np.r_[p, -p])[0])
    same = np.mean(np.sign(np.round(d, 12)) == np.sign(np.round(p, 12)))
    assert agreement.loc[("AP", "rpp"), "sign_agreement"] == pytest.approx(100 * same)
    assert agreement.loc[("AP", "rpp"), "kendall_tau"] == pytest.approx(kendall_tau(ap.ordering, rpp.ordering))


def test_robustness_of_preferences_against_the_preference_engine_on_reduced_qrels(synthetic, with_preferences):
    qrels, runs = synthetic
    source, full = with_preferences
    settings = ex.RobustnessSettings(fractions=(0.4, 0.9), repetitions=3, seed=2)
    result = ex.robustness_experiment(source, settings, full=full)
    ranks = source.judgments.removal_ranks(2, range(3), source.relevant)
    _, whole = _preference_engine(qrels, runs, full["rpp"].queries)

    def ranking(engine, m):
        return engine.ranking_frame().query("measure == @m").set_index("run")["rank"].reindex(NAMES).to_numpy()
    for fraction in (0.4, 0.9):
        removed = source.judgments.removed(ranks, fraction)
        engines = [_preference_engine(source.judgments.reduced_qrels(qrels, source.universe, removed[r]), runs,
                                      full["rpp"].queries)[1] for r in range(3)]
        for m in PREFERENCES:
            taus = [stats.kendalltau(ranking(whole, m), ranking(e, m)).statistic for e in engines]
            flips = [100 * np.mean(np.sign(whole.means[m]) * np.sign(e.means[m]) < 0) for e in engines]
            row = result.table[(result.table["measure"] == m) & (result.table["fraction"] == fraction)].iloc[0]
            assert row["kendall_tau"] == pytest.approx(np.nanmean(taus)), (m, fraction)
            assert row["flipped_pairs"] == pytest.approx(np.mean(flips)), (m, fraction)


def test_preference_measures_refuse_what_they_cannot_do(synthetic):
    qrels, runs = synthetic
    with pytest.raises(ValueError, match="choose a level of 0 or more"):
        RankedSource(qrels, runs, ["rpp"], EvalOptions(relevance_level=-1)).measure_scores()
    with pytest.raises(ValueError, match="rpp: no query has a relevant document"):
        RankedSource(qrels, runs, ["rpp"], EvalOptions(relevance_level=9)).measure_scores()
