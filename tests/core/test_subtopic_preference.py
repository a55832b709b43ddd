"""ST-RPP (subtopic Recall-Paired Preference): a hand-computed example, and plain RPP with one subtopic."""

from __future__ import annotations

import numpy as np
import pytest

from evalgui.core.data import Qrels, Run
from evalgui.core.ranked.preference import REGISTRY, compare
from evalgui.core.subtopics import SubtopicQrels


def mean(result, measure):
    return float(result.means[measure][0])


# Subtopic 1: a and b relevant; subtopic 2: c. X ranks a, c, b; Y ranks c, b, a.
X = Run(["q"] * 3, ["a", "c", "b"], [3.0, 2.0, 1.0], name="X")
Y = Run(["q"] * 3, ["c", "b", "a"], [3.0, 2.0, 1.0], name="Y")


def test_hand_computed_binary():
    qrels = SubtopicQrels.from_lines(["q"] * 3, ["1", "1", "2"], ["a", "b", "c"], [1, 1, 1])
    result = compare(qrels, [X, Y], ["st_rpp", "st_rpp_rel", "rpp"])
    # subtopic 1: X [1, 3], Y [2, 3]: signs +1, 0 -> 1/2. Subtopic 2: X [2], Y [1] -> -1.
    assert mean(result, "st_rpp") == pytest.approx(0.5 * 0.5 + 0.5 * -1)          # -1/4
    assert mean(result, "st_rpp_rel") == pytest.approx(2 / 3 * 0.5 + 1 / 3 * -1)   # 0
    # plain RPP on each document's highest grade: X [1, 2, 3], Y [1, 2, 3]
    assert mean(result, "rpp") == 0


def test_hand_computed_graded():
    qrels = SubtopicQrels.from_lines(["q"] * 3, ["1", "1", "2"], ["a", "b", "c"], [2, 1, 1])
    result = compare(qrels, [X, Y], ["st_rpp"])
    # subtopic 1, grade >= 1: 1/2 as above (m = 2); grade 2: a at 1 vs 3: +1 (m = 1) -> (2 * 1/2 + 1) / 3
    assert mean(result, "st_rpp") == pytest.approx(0.5 * (2 / 3) + 0.5 * -1)
    binary = compare(qrels, [X, Y], ["st_rpp"], binary_threshold=1)
    assert mean(binary, "st_rpp") == pytest.approx(-0.25)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [None, 1, 2])
def test_one_subtopic_is_plain_rpp(seed, threshold):
    rng = np.random.default_rng(seed)
    queries, docs, grades = [], [], []
    for q in range(5):
        judged = rng.choice(40, size=15, replace=False)
        queries += [f"q{q}"] * 15
        docs += [f"d{d}" for d in judged]
        grades += rng.integers(0, 4, size=15).tolist()
    grades[0] = 3
    sub = SubtopicQrels.from_lines(queries, ["7"] * len(docs), docs, grades)
    plain = Qrels(queries, docs, grades)
    runs = []
    for name in "ABC":
        q = [f"q{i}" for i in range(5) for _ in range(25)]
        d = [f"d{x}" for _ in range(5) for x in rng.choice(40, size=25, replace=False)]
        runs.append(Run(q, d, rng.random(len(d)), name=name))
    ours = compare(sub, runs, ["st_rpp", "st_rpp_rel"], binary_threshold=threshold)
    ref = compare(plain, runs, ["rpp"], binary_threshold=threshold)
    for m in ("st_rpp", "st_rpp_rel"):
        np.testing.assert_allclose(ours.per_query[m], ref.per_query["rpp"], rtol=1e-12, atol=1e-15)


def test_plain_qrels_make_st_rpp_rpp():
    qrels = Qrels(["q"] * 3, ["a", "b", "c"], [1, 1, 1])
    result = compare(qrels, [X, Y], ["st_rpp", "rpp"])
    assert mean(result, "st_rpp") == mean(result, "rpp")


def test_in_the_registry():
    assert REGISTRY["st_rpp"].subtopics == "uniform" and REGISTRY["st_rpp_rel"].subtopics == "relevant"


def test_tied_documents_of_one_grade_are_ordered_by_docno():
    """a and b tie in X and share a grade, but not a subtopic: trec_eval's order (b before a) decides."""
    qrels = SubtopicQrels.from_lines(["q", "q"], ["1", "2"], ["a", "b"], [1, 1])
    x = Run(["q"] * 3, ["a", "b", "c"], [1.0, 1.0, 0.5], name="X")     # ranked b, a, c
    y = Run(["q"] * 3, ["a", "c", "b"], [3.0, 2.0, 1.0], name="Y")
    # subtopic 1: a at 2 vs 1 -> -1; subtopic 2: b at 1 vs 3 -> +1 (a before b would give 0 and +1)
    assert mean(compare(qrels, [x, y], ["st_rpp"]), "st_rpp") == 0
