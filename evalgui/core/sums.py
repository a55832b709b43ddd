"""Sums and means over queries, correctly rounded: the engines and the statistics share them, so a
mean in a summary table, a curve and a comparison agree bit for bit."""

from __future__ import annotations

import math

import numpy as np


def column_sums(values: np.ndarray, exact: bool) -> np.ndarray:
    # trec_eval adds query after query to 0.0 (so -0.0 values sum to 0.0); the exact sum is correctly
    # rounded instead: 2,000 values of 0.4 sum to 800, not 800.0000000000023.
    if exact:
        return np.array([math.fsum(values[:, j]) for j in range(values.shape[1])]) + 0.0
    return np.cumsum(values, axis=0)[-1] + 0.0


def query_mean(values: np.ndarray, n_queries: int, exact: bool = True) -> np.ndarray:
    """Mean over queries (axis 0; any trailing shape). Summary tables and curves both use it, so
    their means agree bit for bit."""
    if n_queries == 0 or values.shape[0] == 0:
        return np.zeros(values.shape[1:])
    flat = values.reshape(len(values), -1)
    return (column_sums(flat, exact) / n_queries).reshape(values.shape[1:])
