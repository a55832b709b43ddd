"""How many judged queries each run answers (the run pickers grey out runs with none): counted for every run
in one pass (a project of 20,000 runs), with the same answer as a set per run."""

from evalgui.core.ranked.evaluate import runs_sharing_no_query, shared_query_counts
from evalgui.core.workflows.memory import qrels_from, run_from


def test_hand_counted_judged_queries_per_run():
    qrels = qrels_from({"q1": {"d1": 1}, "q2": {"d2": 0}, "q3": {"d3": 2}})
    runs = [run_from({"q1": {"d1": 1.0, "d9": 0.5}, "q2": {"d2": 1.0}, "q7": {"d1": 1.0}}, "a"),   # q1, q2
            run_from({"q8": {"d1": 1.0}}, "b"),                                                    # none
            run_from({"q3": {"d3": 1.0}}, "c"),                                                    # q3
            run_from({"q1": {"d1": 1.0}, "q2": {"d1": 1.0}, "q3": {"d1": 1.0}}, "d")]              # all three
    assert shared_query_counts(qrels, runs) == [2, 0, 1, 3]
    assert [r.name for r in runs_sharing_no_query(qrels, runs)] == ["b"]
    assert shared_query_counts(qrels, []) == []


def test_many_runs_match_a_set_per_run():
    qrels = qrels_from({f"q{i}": {"d": 1} for i in range(0, 40, 3)})
    runs = [run_from({f"q{j}": {"d": 1.0} for j in range(i % 7, i % 7 + i % 11 + 1)}, f"r{i}") for i in range(300)]
    judged = set(qrels.query_ids.tolist())
    assert shared_query_counts(qrels, runs) == [len(judged & set(r.query_ids.tolist())) for r in runs]
