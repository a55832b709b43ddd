"""Retrievers: the linear (exhaustive) retriever, which also gives the ground truth, and MAC/FAC.

Both work on blocks of queries: a block's similarities to every case are one
(queries x cases) matrix per attribute (see :class:`evalgui.core.cbr.model.Scorer`),
so memory stays bounded whatever the number of queries, and no Python code runs
per pair. Blocks run on a few threads at once (numpy, the sorts and rapidfuzz release
the GIL). Every retrieval is timed per block; a query's time is its block's time shared
evenly, scaled so that the queries' times add up to the retrieval's wall time.

MAC/FAC (Forbus, Gentner & Law; Bergmann & Stromer): MAC scores every case with a
cheaper model and keeps the ``filter_size`` best; FAC scores those with the full model
and returns the best ``k``. Ties are broken by case id everywhere, as in the lists.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evalgui.core.cbr.lists import RankedLists, from_matrix, id_order, order_rows
from evalgui.core.cbr.model import Scorer, SimilarityModel
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default

# Cells (queries x cases) per block: a float64 block is 16 MB (under glibc's largest mmap threshold,
# so that freed blocks are reused rather than faulted in again), and an attribute needs a few.
BLOCK_CELLS = 1 << 21
# Blocks computed at once, one thread each.
WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


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
        # At least one block per worker thread; at most BLOCK_CELLS cells each.
        size = max(1, min(-(-self.n_queries // WORKERS), BLOCK_CELLS // max(self.n_cases, 1)))
        for start in range(0, self.n_queries, size):
            yield np.arange(start, min(start + size, self.n_queries))

    def exclude(self, sims: np.ndarray, q: np.ndarray, value: float) -> None:
        rows = np.flatnonzero(self.self_case[q] >= 0)
        sims[rows, self.self_case[q][rows]] = value


def _lists(case_bases: CaseBases, lengths, cases, sims) -> RankedLists:
    """Lists from the blocks' pieces, in block order."""
    lengths = np.concatenate(lengths) if len(lengths) else np.zeros(0, dtype=np.int64)
    return RankedLists(case_bases.test.ids, case_bases.train.ids, np.concatenate(([0], np.cumsum(lengths))),
                       np.concatenate(cases).astype(np.int32, copy=False) if len(cases) else np.zeros(0, np.int32),
                       np.concatenate(sims) if len(sims) else np.zeros(0))


def top_rows(sims: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``size`` largest entries, ties broken by the lower column; NaN never chosen.
    Returns (row lengths, columns in column order, row after row)."""
    n_rows, n_cols = sims.shape
    if size >= n_cols:
        chosen = ~np.isnan(sims)
    else:
        kth = -np.partition(np.negative(sims), size - 1, axis=1)[:, size - 1]   # NaN sorts last
        chosen = sims >= kth[:, None]
        short = np.isnan(kth)                        # fewer than size cases: every one there is
        if short.any():
            chosen[short] = ~np.isnan(sims[short])
        # Ties at the boundary: keep the lowest columns (rare rows, one at a time).
        for row in np.flatnonzero(np.count_nonzero(chosen, axis=1) > size).tolist():
            tied = np.flatnonzero(sims[row] == kth[row])
            chosen[row, tied[size - np.count_nonzero(sims[row] > kth[row]):]] = False
    rows, cols = np.nonzero(chosen)
    return np.bincount(rows, minlength=n_rows), cols


def _order_rows(lengths: np.ndarray, cols: np.ndarray, sims: np.ndarray, k: int | None):
    """Sort each row's entries by similarity (descending, ties by column) and keep the first k.
    ``cols`` are ascending within each row."""
    if len(lengths) and (lengths == lengths[0]).all() and lengths[0]:
        # Rows of one length (MAC keeps filter_size of every query): one matrix, ordered by keys.
        width = int(lengths[0])
        position, ordered = order_rows(sims.reshape(-1, width))
        cut = width if k is None else min(k, width)
        taken = np.take_along_axis(cols.reshape(-1, width), position[:, :cut], axis=1)
        return np.full(len(lengths), cut), taken.ravel(), ordered[:, :cut].ravel()
    rows = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((cols, -sims, rows))
    if k is not None:
        starts = np.concatenate(([0], np.cumsum(lengths)))[:-1]
        keep = (np.arange(len(order)) - np.repeat(starts, lengths)) < k
        order = order[keep]
        lengths = np.minimum(lengths, k)
    return lengths, cols[order], sims[order]


def _each_block(case_bases: CaseBases, work, state: JobState, message: str) -> tuple[list, np.ndarray]:
    """Run ``work(q) -> (result, {label: seconds})`` on every block of queries, on WORKERS threads
    (numpy, the sorts and rapidfuzz release the GIL), in block order. Returns the results and, per
    label, each query's share of the elapsed time: its block's time over its queries, scaled so that
    they add up to the wall time the whole took (blocks overlap on several cores)."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    blocks = list(case_bases.blocks())
    n_q = case_bases.n_queries
    results, times = [None] * len(blocks), [None] * len(blocks)

    def timed(i: int):
        if state.cancelled():
            return
        tick = time.perf_counter()
        results[i], times[i] = work(blocks[i])
        times[i]["_block"] = time.perf_counter() - tick

    start = time.perf_counter()
    pool = ThreadPoolExecutor(WORKERS)
    try:
        pending = {pool.submit(timed, i) for i in range(len(blocks))}
        while pending:
            done, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()                        # a worker's exception surfaces here
            state.check()
            finished = sum(len(b) for b, t in zip(blocks, times) if t is not None)
            state.progress(finished / max(n_q, 1), f"{message}: {finished:,} of {n_q:,} queries")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    elapsed = time.perf_counter() - start
    scale = elapsed / max(sum(t["_block"] for t in times), 1e-12)
    labels = [label for label in times[0] if label != "_block"] if times else []
    seconds = {label: np.zeros(n_q) for label in labels}
    for q, t in zip(blocks, times):
        for label in labels:
            seconds[label][q] = t[label] * scale / len(q)
    return results, seconds


def linear(scorer: Scorer, case_bases: CaseBases, ks: tuple[int, ...] = (), state: JobState | None = None):
    """The ground truth: every query against every case, ordered. Also times the linear retriever
    for each k in ``ks`` (all similarities, then the top k), since that is a part of this work.

    Returns (ground-truth lists, seconds per query of the whole ordering, {k: seconds per query})."""
    state = state_or_default(state)
    # Every list's length is known beforehand (every case, less the query itself): the blocks write
    # their lists straight into place.
    lengths = np.full(case_bases.n_queries, case_bases.n_cases, dtype=np.int64) - (case_bases.self_case >= 0)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    cases = np.empty(offsets[-1], dtype=np.int32)
    sims = np.empty(offsets[-1])

    def work(q):
        tick = time.perf_counter()
        block = scorer.block(q)
        case_bases.exclude(block, q, np.nan)
        times = {"scored": time.perf_counter() - tick}
        for k in ks:                        # what a linear top-k retriever does after scoring
            state.check()                   # a block's steps each take a while on 100,000 cases
            tick = time.perf_counter()
            kept, cols = top_rows(block, k)
            _order_rows(kept, cols, block[np.repeat(np.arange(len(q)), kept), cols], k)
            times[k] = times["scored"] + time.perf_counter() - tick
        state.check()
        tick = time.perf_counter()
        ordered = from_matrix(block, case_bases.test.ids[q], case_bases.train.ids)   # ties in id order
        where = slice(offsets[q[0]], offsets[q[-1] + 1])
        cases[where], sims[where] = ordered.cases, ordered.sims
        times["ordered"] = times["scored"] + time.perf_counter() - tick
        return None, times

    _, seconds = _each_block(case_bases, work, state, "Linear retrieval")
    lists = RankedLists(case_bases.test.ids, case_bases.train.ids, offsets, cases, sims)
    return lists, seconds.get("ordered", np.zeros(0)), {k: seconds[k] for k in ks}


def macfac(mac: Scorer, fac: Scorer, case_bases: CaseBases, filter_size: int, k: int,
           state: JobState | None = None) -> Retrieval:
    """MAC keeps each query's ``filter_size`` best cases by the MAC model; FAC orders them by the
    full model and returns the best ``k``."""
    if filter_size < 1 or k < 1:
        raise EvalUsageError(f"filter sizes and ks must be at least 1 (got filter size {filter_size}, k {k})")
    state = state_or_default(state)

    def work(q):
        tick = time.perf_counter()
        block = mac.block(q)
        case_bases.exclude(block, q, np.nan)
        state.check()
        kept, cols = top_rows(block, filter_size)                    # MAC
        state.check()
        query_of = np.repeat(q, kept)
        final = _order_rows(kept, cols, fac.pairs(query_of, cols), k)   # FAC
        seconds = time.perf_counter() - tick
        # MAC's candidates, ordered by MAC's similarity (for mac_recall and the drill-down; not timed).
        candidates = _order_rows(kept, cols, block[query_of - q[0], cols], None)
        return (final, candidates), {"retrieval": seconds}

    parts, seconds = _each_block(case_bases, work, state, f"MAC/FAC {filter_size}/{k}")
    final = [p[0] for p in parts]
    kept = [p[1] for p in parts]
    return Retrieval("macfac", _lists(case_bases, *zip(*final)) if final else _lists(case_bases, [], [], []),
                     seconds["retrieval"], filter_size, k,
                     _lists(case_bases, *zip(*kept)) if kept else _lists(case_bases, [], [], []))


def scorers(model: SimilarityModel, mac_model: SimilarityModel | None, case_bases: CaseBases,
            check: Callable[[], None] | None = None):
    """The full model's scorer and MAC's (None without a MAC model); ``check``: a job's cancel check, called
    between attributes while they are encoded and scored."""
    full = Scorer(model, case_bases.test, case_bases.train, check=check)
    return full, (Scorer(mac_model, case_bases.test, case_bases.train, check=check) if mac_model is not None
                  else None)
