"""Ranks derived from TREC data. The rank file itself (:class:`RankFile`) is an input, read and
defined in :mod:`evalgui.core.inputs.rank_file`; it is named here too for the engine's callers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evalgui.core.inputs.rank_file import RankFile

if TYPE_CHECKING:                      # pyarrow stays out of the experiments' worker processes
    from evalgui.core.data import Qrels, Run

__all__ = ["RankFile", "ranks_from_trec"]


def ranks_from_trec(qrels: Qrels, runs: list[Run], *, relevance_level: int = 1,
                    missing_rank: float | None = None, name: str = "TREC") -> RankFile:
    """The rank of every relevant document (at ``relevance_level``) in every run.

    The entities are the qrels' (query, document) pairs judged relevant, named "query document".
    A relevant document a run did not retrieve gets ``missing_rank``, by default one more than
    the documents the run retrieved for that query (for a query the run has no results for: one
    more than the most it retrieved for any query)."""
    from evalgui.core.ranked.evaluate import unique_run_names
    from evalgui.core.ranked.ranking import prepare

    relevant = np.flatnonzero(qrels.rel >= relevance_level)
    queries = qrels.query.take(relevant).to_pylist()
    docs = qrels.doc.take(relevant).to_pylist()
    entities = [f"{q} {d}" for q, d in zip(queries, docs)]
    if len(set(entities)) != len(entities):        # a document judged twice for a query: keep the first
        first = dict.fromkeys(zip(queries, docs))
        queries, docs = [q for q, _ in first], [d for _, d in first]
        entities = [f"{q} {d}" for q, d in zip(queries, docs)]
    ranks = np.empty((len(entities), len(runs)))
    for column, run in enumerate(runs):
        ranking, _absent = prepare(qrels, run, relevance_level=relevance_level)
        found = ranking.relevant
        rows = ranking.run_rows[found.idx]
        found_docs = run.doc.take(rows).to_pylist() if len(rows) else []
        found_queries = ranking.query_ids[found.seg].tolist()
        rank_of = dict(zip(zip(found_queries, found_docs), (found.pos + 1).tolist()))
        depth = dict(zip(ranking.query_ids.tolist(), ranking.num_ret.tolist()))
        deepest = max(depth.values(), default=0)
        for row, key in enumerate(zip(queries, docs)):
            rank = rank_of.get(key)
            if rank is None:
                rank = missing_rank if missing_rank is not None else depth.get(key[0], deepest) + 1
            ranks[row, column] = rank
    return RankFile(name, unique_run_names(runs), entities, ranks, source=qrels.source)
