"""The rank file: the rank each system gives each test entity, and ranks derived from TREC data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:                      # pyarrow stays out of the experiments' worker processes
    from evalgui.core.data import Qrels, Run


@dataclass(eq=False)
class RankFile:
    """Ranks of test entities: ``ranks[e, s]`` is the (1-based, possibly fractional) rank that
    system ``s`` gives entity ``e``."""

    name: str                  # the experiment name (first field of the header)
    systems: list[str]
    entities: list[str]
    ranks: np.ndarray          # entities x systems, float64, every value >= 1
    source: str = "<memory>"

    def __post_init__(self):
        self.ranks = np.asarray(self.ranks, dtype=np.float64).reshape(len(self.entities), len(self.systems))

    def summary(self) -> dict:
        return {"systems": len(self.systems), "entities": len(self.entities),
                "largest rank": _number(float(self.ranks.max())) if self.ranks.size else 0}

    def to_text(self) -> str:
        """The rank file's tab-separated text (what :func:`evalgui.core.inputs.rank_file.read` reads)."""
        lines = ["\t".join([self.name, *self.systems])]
        cells = [[_plain(v) for v in row] for row in self.ranks.tolist()]
        lines += ["\t".join([entity, *row]) for entity, row in zip(self.entities, cells)]
        return "\n".join(lines) + "\n"


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def _plain(value: float) -> str:
    """5.0 -> "5", 10.5 -> "10.5": ranks as people write them."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


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
