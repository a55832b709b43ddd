"""The search-results tutorial's worked example (MEIC courses, information-systems topic)."""

import pytest

from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.evaluate import evaluate
from tests.conftest import SAMPLE_DATA

MEIC = SAMPLE_DATA / "meic"


def test_tutorial_values():
    qrels = read_qrels(MEIC / "information_systems.qrels")
    assert qrels.summary()["relevant"] == 6 and list(qrels.query_ids) == ["information_systems"]
    runs = [read_run(MEIC / "base.run"), read_run(MEIC / "enhanced.run")]
    table = evaluate(qrels, runs, ["AP(norm=retrieved)", "AP", "P@10"], per_query=False)
    got = {(r.run, r.measure): r.value for r in table.itertuples()}
    # The tutorial averages over the relevant courses retrieved (5): 0.91 and 1.0.
    assert got["base", "AP(norm=retrieved)"] == pytest.approx(0.9111, abs=5e-5)
    assert got["enhanced", "AP(norm=retrieved)"] == pytest.approx(1.0)
    # trec_eval's AP divides by all 6 relevant courses (M.EIC028 is never retrieved).
    assert got["base", "AP"] == pytest.approx(0.7593, abs=5e-5)
    assert got["enhanced", "AP"] == pytest.approx(0.8333, abs=5e-5)
    assert got["base", "P@10"] == 0.5 and got["enhanced", "P@10"] == 0.5
