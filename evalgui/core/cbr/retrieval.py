"""Retrievers: the linear (exhaustive) retriever, which also gives the ground truth, and MAC/FAC.

Both work on blocks of queries: a block's similarities to every case are one
(queries x cases) matrix per attribute (see :class:`evalgui.core.cbr.model.Scorer`),
so memory stays bounded whatever the number of queries, and no Python code runs
per pair. Every retrieval is timed per block; a query's time is its block's time
shared evenly.

MAC/FAC (Forbus, Gentner & Law; Bergmann & Stromer): MAC scores every case with a
cheaper model and keeps the ``filter_size`` best; FAC scores those with the full model
and returns the best ``k``. Ties are broken by case id everywhere, as in the lists.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from evalgui.core.cbr.lists import RankedLists, id_order
from evalgui.core.cbr.model import Scorer, SimilarityModel
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default

# Cells (queries x cases) per block: a float64 block is 32 MB, and an attribute needs a few.
BLOCK_CELLS = 1 << 22


@dataclass
class Retrieval:
    """One retriever's result lists and times."""

    name: str                           # "linear", "macfac" or an imported retriever's name
    lists: RankedLists
    seconds: np.ndarray | None = None   # wall seconds per query (None: imported, not timed)
    filter_size: int | None = None
    k: int | None = None
    candidates: RankedLists | None = field(default=None, repr=False)   # MAC's survivors (MAC/FAC)

    @property
    def total_seconds(self) -> float:
        return float(self.seconds.sum()) if self.seconds is not None else float("nan")


@dataclass
class CaseBases:
    """Test (queries) and train (cases) case bases in id order, and which pairs are a case with itself."""

    test: object                        # CaseBase
    train: object
    self_case: np.ndarray               # per query: the code of the train case with the same id, or -1

    @classmethod
    def of(cls, test, train, exclude_self: bool) -> "CaseBases":
        import pandas as pd

        test, train = test.take(id_order(test.ids)), train.take(id_order(train.ids))
        same = pd.Index(train.ids).get_indexer(test.ids) if exclude_self else np.full(len(test), -1)
        return cls(test, train, same.astype(np.int64))

    @property
    def n_queries(self) -> int:
        return len(self.test)

    @property
    def n_cases(self) -> int:
        return len(self.train)

    def blocks(self):
        size = max(1, min(self.n_queries, BLOCK_CELLS // max(self.n_cases, 1)))
        for start in range(0, self.n_queries, size):
            yield np.arange(start, min(start + size, self.n_queries))

    def exclude(self, sims: np.ndarray, q: np.ndarray, value: float) -> None:
        rows = np.flatnonzero(self.self_case[q] >= 0)
        sims[rows, self.self_case[q][rows]] = value


def _lists(case_bases: CaseBases, lengths: list[np.ndarray], cases: list[np.ndarray], sims: list[np.ndarray]):
    lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    return RankedLists(case_bases.test.ids, case_bases.train.ids, np.concatenate(([0], np.cumsum(lengths))),
                       np.concatenate(cases).astype(np.int32) if cases else np.zeros(0, np.int32),
                       np.concatenate(sims) if sims else np.zeros(0))


def top_rows(sims: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``size`` largest entries, ties broken by the lower column; NaN never chosen.
    Returns (row lengths, columns in column order, row after row)."""
    n_rows, n_cols = sims.shape
    valid = ~np.isnan(sims)
    size = min(size, n_cols)
    if size < n_cols:
        scores = np.where(valid, sims, -np.inf)
        kth = -np.partition(-scores, size - 1, axis=1)[:, size - 1]     # each row's size-th largest value
        above = scores > kth[:, None]
        tied = scores == kth[:, None]
        room = size - np.count_nonzero(above, axis=1)
        chosen = above | (tied & (np.cumsum(tied, axis=1) <= room[:, None]))
        chosen &= valid
    else:
        chosen = valid
    rows, cols = np.nonzero(chosen)
    return np.bincount(rows, minlength=n_rows), cols


def _order_rows(lengths: np.ndarray, cols: np.ndarray, sims: np.ndarray, k: int | None):
    """Sort each row's entries by similarity (descending, ties by column) and keep the first k."""
    rows = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((cols, -sims, rows))
    if k is not None:
        starts = np.concatenate(([0], np.cumsum(lengths)))[:-1]
        keep = (np.arange(len(order)) - np.repeat(starts, lengths)) < k
        order = order[keep]
        lengths = np.minimum(lengths, k)
    return lengths, cols[order], sims[order]


def linear(scorer: Scorer, case_bases: CaseBases, ks: tuple[int, ...] = (), state: JobState | None = None):
    """The ground truth: every query against every case, ordered. Also times the linear retriever
    for each k in ``ks`` (all similarities, then the top k), since that is a part of this work.

    Returns (ground-truth lists, seconds per query of the whole ordering, {k: seconds per query})."""
    state = state_or_default(state)
    lengths, cases, sims = [], [], []
    n_q = case_bases.n_queries
    seconds = np.zeros(n_q)
    top_seconds = {k: np.zeros(n_q) for k in ks}
    for q in case_bases.blocks():
        state.check()
        state.progress(q[0] / max(n_q, 1), f"Linear retrieval: queries {q[0] + 1:,} to {q[-1] + 1:,} of {n_q:,}")
        start = time.perf_counter()
        block = scorer.block(q)
        case_bases.exclude(block, q, np.nan)
        scored = time.perf_counter()
        for k in ks:                        # what a linear top-k retriever does after scoring
            tick = time.perf_counter()
            kept, cols = top_rows(block, k)
            _order_rows(kept, cols, block[np.repeat(np.arange(len(q)), kept), cols], k)
            top_seconds[k][q] = (scored - start + time.perf_counter() - tick) / len(q)
        tick = time.perf_counter()
        order = np.argsort(-block, axis=1, kind="stable")   # stable: ties keep id order; NaN last
        present = np.count_nonzero(~np.isnan(block), axis=1)
        if (present == block.shape[1]).all():
            codes = order.ravel()
        else:
            codes = order[np.arange(block.shape[1])[None, :] < present[:, None]]
        rows = np.repeat(np.arange(len(q)), present)
        lengths.append(present)
        cases.append(codes.astype(np.int32))
        sims.append(block[rows, codes])
        seconds[q] = (scored - start + time.perf_counter() - tick) / len(q)
    state.progress(1.0, "Linear retrieval done")
    return _lists(case_bases, lengths, cases, sims), seconds, top_seconds


def macfac(mac: Scorer, fac: Scorer, case_bases: CaseBases, filter_size: int, k: int,
           state: JobState | None = None) -> Retrieval:
    """MAC keeps each query's ``filter_size`` best cases by the MAC model; FAC orders them by the
    full model and returns the best ``k``."""
    if filter_size < 1 or k < 1:
        raise EvalUsageError(f"filter sizes and ks must be at least 1 (got filter size {filter_size}, k {k})")
    state = state_or_default(state)
    n_q = case_bases.n_queries
    seconds = np.zeros(n_q)
    lengths, cases, sims = [], [], []
    kept_lengths, kept_cases, kept_sims = [], [], []
    for q in case_bases.blocks():
        state.check()
        state.progress(q[0] / max(n_q, 1), f"MAC/FAC {filter_size}/{k}: queries {q[0] + 1:,} to {q[-1] + 1:,}")
        start = time.perf_counter()
        block = mac.block(q)
        case_bases.exclude(block, q, np.nan)
        kept, cols = top_rows(block, filter_size)                    # MAC
        query_of = np.repeat(q, kept)
        full = fac.pairs(query_of, cols)                             # FAC
        n, codes, values = _order_rows(kept, cols, full, k)
        seconds[q] = (time.perf_counter() - start) / len(q)
        lengths.append(n)
        cases.append(codes)
        sims.append(values)
        kept_lengths.append(kept)
        kept_cases.append(cols)
        kept_sims.append(block[query_of - q[0], cols])
    state.progress(1.0, "MAC/FAC done")
    return Retrieval("macfac", _lists(case_bases, lengths, cases, sims), seconds, filter_size, k,
                     _lists(case_bases, kept_lengths, kept_cases, kept_sims))


def scorers(model: SimilarityModel, mac_model: SimilarityModel | None, case_bases: CaseBases):
    full = Scorer(model, case_bases.test, case_bases.train)
    return full, (Scorer(mac_model, case_bases.test, case_bases.train) if mac_model is not None else None)
