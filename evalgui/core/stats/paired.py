"""Paired comparisons of systems over the queries both have.

Every function takes a queries x systems DataFrame (NaN: the system has no
value for that query) and compares each pair of systems on the queries where
both have a value, never mixing query sets silently.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def shared_query_counts(scores: pd.DataFrame) -> pd.DataFrame:
    """Systems x systems: how many queries both systems have a value for."""
    present = scores.notna().to_numpy(dtype=np.float64)
    counts = present.T @ present
    return pd.DataFrame(counts.astype(np.int64), index=scores.columns, columns=scores.columns)


def mean_difference_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    """Systems x systems: the mean over shared queries of (row system − column system).

    NaN where two systems share no query; the diagonal is 0. Antisymmetric."""
    values = scores.to_numpy(dtype=np.float64)
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    weights = present.astype(np.float64)
    shared = weights.T @ weights
    # sum over shared queries of x_i - x_j = (x_i restricted to j's queries) - (x_j restricted to i's)
    totals = filled.T @ weights - weights.T @ filled
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(shared > 0, totals / np.where(shared > 0, shared, 1), np.nan)
    return pd.DataFrame(means, index=scores.columns, columns=scores.columns)
