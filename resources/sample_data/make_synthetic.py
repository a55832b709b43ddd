"""Generate the synthetic demo collection in ``synthetic/`` (seeded: same files every time).

50 queries, 200 candidate documents each, graded judgments (0-3) for a pool of
about 40 documents per query, and four runs of 100 documents per query whose
quality differs: each run scores a document by its grade times a strength plus
Gaussian noise, so a stronger signal ranks relevant documents higher.

    python resources/sample_data/make_synthetic.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261121
N_QUERIES = 50
N_CANDIDATES = 200
POOL = 40
DEPTH = 100
# run name -> how strongly the score follows the grade (0: a random ranking)
RUNS = {"bm25": 1.2, "dense": 1.6, "rerank": 2.4, "random": 0.0}


def make(folder: Path) -> None:
    rng = np.random.default_rng(SEED)
    folder.mkdir(parents=True, exist_ok=True)
    qids = [f"{q:03d}" for q in range(101, 101 + N_QUERIES)]
    docs = np.array([f"D{i:05d}" for i in range(20_000)])
    qrels_lines, grades_by_query = [], []
    for qid in qids:
        candidates = rng.choice(len(docs), N_CANDIDATES, replace=False)
        # Skewed grades: most candidates are not relevant, a few are highly relevant.
        grades = rng.choice(4, N_CANDIDATES, p=[0.7, 0.15, 0.1, 0.05])
        grades_by_query.append((candidates, grades))
        pool = rng.choice(N_CANDIDATES, POOL, replace=False)
        pool = np.union1d(pool, np.flatnonzero(grades > 0)[:25])   # most relevant documents are judged
        for i in np.sort(pool):
            qrels_lines.append(f"{qid} 0 {docs[candidates[i]]} {grades[i]}")
    (folder / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")

    for name, strength in RUNS.items():
        lines = []
        for qid, (candidates, grades) in zip(qids, grades_by_query):
            scores = strength * grades + rng.normal(0.0, 1.0, N_CANDIDATES)
            top = np.argsort(-scores, kind="stable")[:DEPTH]
            for rank, i in enumerate(top, 1):
                lines.append(f"{qid} Q0 {docs[candidates[i]]} {rank} {10 + scores[i]:.4f} {name}")
        (folder / f"{name}.run").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    make(Path(__file__).resolve().parent / "synthetic")
