"""Issue 8, point 12: exact sums and at most 15 significant digits in evaluate's tables and exports."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from evalgui.core import export
from evalgui.core.data import Qrels, Run
from evalgui.core.ranked.evaluate import evaluate_columns, evaluate_run
from evalgui.core.ranked.trec_eval import format_lines, requests_for


def p10_collection():
    """2,000 queries: 1,092 with 5 relevant documents in the top 10, 908 with 4, so mean P@10 = 0.4546."""
    qrels, run = {}, {}
    five = np.random.default_rng(0).permutation(2000) < 1092   # in query order, 0.5s and 0.4s sum with noise
    for i in range(2000):
        hits = 5 if five[i] else 4
        qrels[f"q{i}"] = {f"d{j}": 1 for j in range(hits)}
        run[f"q{i}"] = {f"d{j}": 10.0 - j for j in range(10)}
    return Qrels.from_dict(qrels), Run.from_dict(run)


def test_mean_is_summed_exactly():
    qrels, run = p10_collection()
    columns = evaluate_columns(qrels, run, ["P@10"], per_query=False)
    assert columns["value"].tolist() == [0.4546]
    # trec_eval's own printout keeps its query-order sum and %6.4f.
    result = evaluate_run(qrels, run, requests_for(["P.10"]))
    assert format_lines(result) == ["P_10                  \tall\t0.4546"]
    assert result.trec_summary[0] == np.cumsum(result.per_query[:, 0])[-1] / 2000


def test_csv_and_exports_write_at_most_15_significant_digits():
    noisy = {"run": np.array(["r", "r"], dtype=object), "query": np.array(["all", "1"], dtype=object),
             "measure": np.array(["P@10", "AP"], dtype=object), "value": np.array([0.5559999999999998, 2 / 3])}
    text = export.columns_to_delimited(noisy)
    assert text.splitlines()[1:] == ["r,all,P@10,0.556", "r,1,AP,0.666666666666667"]
    frame = pd.DataFrame(noisy)
    assert export.to_text(frame, "csv") == text
    assert "0.556\n" in export.to_text(frame, "tsv")
    assert [row["value"] for row in json.loads(export.to_text(frame, "json"))] == [0.556, 0.666666666666667]


def test_missing_values_stay_missing():
    frame = pd.DataFrame({"measure": ["a"], "value": [float("nan")]})
    assert export.to_text(frame, "csv").splitlines()[1] == "a,"
    assert json.loads(export.to_text(frame, "json"))[0]["value"] is None
