"""Generate ``citations.tsv``: the ranks five systems give 60 test entities (seeded: same file every time).

The Ranking Evaluation Tool's format: the first row names the experiment and the systems, every
further row is an entity and the rank each system gives it (1 is best; tied ranks share their mean,
e.g. 10.5). Each system ranks the entities of a 5,000-item list by a noisy score of how relevant
the entity is, so stronger systems give smaller ranks.

    python resources/sample_data/rankfile/make_ranks.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261125
N_ENTITIES = 60
N_ITEMS = 5_000
# system -> how strongly its score follows relevance (0: random)
SYSTEMS = {"PageRank": 2.0, "CiteRank": 2.6, "HITS": 1.4, "Counts": 1.0, "Random": 0.0}


def make(path: Path) -> None:
    rng = np.random.default_rng(SEED)
    relevance = np.zeros(N_ITEMS)
    entity_items = rng.choice(N_ITEMS, N_ENTITIES, replace=False)
    relevance[entity_items] = rng.uniform(1.0, 3.0, N_ENTITIES)
    columns = []
    for strength in SYSTEMS.values():
        score = strength * relevance + rng.normal(0.0, 1.0, N_ITEMS)
        # rank 1 = highest score; no ties with continuous noise
        order = np.argsort(-score, kind="stable")
        ranks = np.empty(N_ITEMS, dtype=np.int64)
        ranks[order] = np.arange(1, N_ITEMS + 1)
        columns.append(ranks[entity_items])
    lines = ["\t".join(["citations", *SYSTEMS])]
    lines += ["\t".join([f"E{i + 1:03d}", *(str(col[i]) for col in columns)]) for i in range(N_ENTITIES)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    make(Path(__file__).resolve().parent / "citations.tsv")
