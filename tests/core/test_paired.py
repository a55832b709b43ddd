"""Paired differences between systems over the queries both have."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evalgui.core.stats.paired import mean_difference_matrix, shared_query_counts


def test_hand_computed_means_over_shared_queries():
    scores = pd.DataFrame({"a": [0.5, 0.25, 1.0], "b": [0.25, np.nan, 0.5], "c": [np.nan, np.nan, np.nan]},
                          index=["q1", "q2", "q3"])
    diff = mean_difference_matrix(scores)
    assert diff.loc["a", "b"] == ((0.5 - 0.25) + (1.0 - 0.5)) / 2      # q2 is not shared
    assert diff.loc["b", "a"] == -diff.loc["a", "b"]
    assert diff.loc["a", "a"] == 0 and np.isnan(diff.loc["a", "c"])
    assert shared_query_counts(scores).loc["a", "b"] == 2


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 5)),
              elements=st.one_of(st.floats(0, 1), st.just(np.nan))))
def test_matches_a_plain_loop(values):
    scores = pd.DataFrame(values, columns=[f"s{i}" for i in range(values.shape[1])])
    diff = mean_difference_matrix(scores)
    for i in scores.columns:
        for j in scores.columns:
            both = pd.DataFrame({"x": scores[i], "y": scores[j]}).dropna()
            expected = (both["x"] - both["y"]).mean() if len(both) else np.nan
            assert np.isclose(diff.loc[i, j], expected, equal_nan=True, atol=1e-12)
