"""Benchmark: every ndeval measure on a 2M-line diversity run, evalgui against pyndeval.

Issue 26's target: evaluating every ndeval measure (alpha-DCG, alpha-nDCG, ERR-IA, nERR-IA and P-IA
and StRecall at 5, 10, 20; NRBP, nNRBP, MAP-IA) on a 2,000,000-line run takes at most half of
pyndeval's time, whole process. pyndeval (ndeval.c behind a Python binding, what ir_measures calls)
is called directly: a plain Python loop reads the qrels into ``SubtopicQrel`` and the run into
``ScoredDoc`` tuples (its reading time included), then ``pyndeval.ndeval`` computes the 21 default
measures. evalgui runs ``evalgui-cli evaluate QRELS RUN -m alpha_DCG -m alpha_nDCG ...``.

Both run as fresh processes under ``bench_ranked.py``'s measuring wrapper (wall time, CPU time of
all threads, peak RSS), interleaved over ``--repeat`` rounds; the means of all 21 values are
cross-checked. Scores are distinct within a query, so both tools rank alike (pyndeval breaks ties
by docno ascending, ndeval -traditional and evalgui descending).

From the repository root, in an environment with numpy, pyarrow and pyndeval::

    PYTHONPATH=. python benchmarks/bench_diversity.py            # writes docs/benchmarks.md's section
    PYTHONPATH=. python benchmarks/bench_diversity.py --quick    # 200,000 lines; prints only

The data is generated deterministically (``--seed``) into ``benchmarks/_data/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402
from bench_compare import write_section  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench_diversity:begin -->", "<!-- bench_diversity:end -->"
OURS = ["alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"]
NDEVAL = {"alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
          "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA", "StRecall": "strec"}
TARGET_RATIO = 0.5
TOLERANCE = 1e-9

PYNDEVAL_SCRIPT = r"""
import json, sys
import pyndeval
from pyndeval import SubtopicQrel, ScoredDoc
qrels = []
with open(sys.argv[1]) as f:
    for line in f:
        q, s, d, r = line.split()
        qrels.append(SubtopicQrel(q, s, d, int(r)))
run = []
with open(sys.argv[2]) as f:
    for line in f:
        q, _, d, _, score, _ = line.split()
        run.append(ScoredDoc(q, d, float(score)))
result = pyndeval.ndeval(qrels, run)
names = next(iter(result.values())).keys()
print(json.dumps({n: sum(v[n] for v in result.values()) / len(result) for n in names}))
"""


def generate(folder: Path, n_q: int, per_q: int, seed: int) -> tuple[Path, Path]:
    """A run of n_q x per_q lines in rank order (distinct scores) and subtopic qrels: about 400 judged
    documents per query over 3 to 6 subtopics, a quarter of them relevant to two subtopics."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    pool = per_q * 2
    with open(qrels_path, "w") as q_out, open(run_path, "w") as r_out:
        for q in range(n_q):
            qid = str(100 + q)
            n_sub = int(rng.integers(3, 7))
            judged = rng.choice(pool, size=400, replace=False)
            lines = []
            for d in judged:
                subs = rng.choice(np.arange(1, n_sub + 1), size=2 if rng.random() < 0.25 else 1, replace=False)
                lines += [f"{qid} {s} clueweb09-en{d:07d} {int(rng.random() < 0.4)}\n" for s in subs]
            q_out.write("".join(lines))
            # half the judged documents in the first 400 ranks, the rest of the ranking from the pool
            top = judged[:200]
            rest = rng.permutation(np.setdiff1d(np.arange(pool), top))[:per_q - len(top)]
            docs = np.concatenate((rng.permutation(np.concatenate((top, rest[:200]))), rest[200:]))
            scores = np.arange(per_q, 0, -1) / per_q * 30.0
            r_out.write("".join(f"{qid} Q0 clueweb09-en{d:07d} {i + 1} {s:.6f} bench\n"
                                for i, (d, s) in enumerate(zip(docs, scores))))
    return qrels_path, run_path


def ours_means(stdout: str) -> dict[str, float]:
    out = {}
    for row in csv.DictReader(io.StringIO(stdout)):
        if row["query"] == "all":
            name = row["measure"]
            base, _, k = name.rpartition("_") if name[-1].isdigit() else (name, "", "")
            out[NDEVAL[base] + (f"@{k}" if k else "")] = float(row["value"])
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="200,000 lines, print only")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args(argv)
    n_q, per_q = (20, 10_000) if args.quick else (200, 10_000)
    folder = REPO / "benchmarks" / "_data" / f"diversity_q{n_q}_d{per_q}_s{args.seed}"
    t0 = time.time()
    qrels, run = generate(folder, n_q, per_q, args.seed)
    n_lines = sum(1 for _ in open(run))
    n_qrels = sum(1 for _ in open(qrels))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ours_cmd = [sys.executable, "-m", "evalgui.cli", "evaluate", str(qrels), str(run)]
    for m in OURS:
        ours_cmd += ["-m", m]
    peer_cmd = [sys.executable, "-c", PYNDEVAL_SCRIPT, str(qrels), str(run)]
    walls = {"evalgui": [], "pyndeval": []}
    cpus = {"evalgui": [], "pyndeval": []}
    rss = {"evalgui": [], "pyndeval": []}
    loads = []
    means = {}
    for _ in range(args.repeat):
        for name, cmd in (("evalgui", ours_cmd), ("pyndeval", peer_cmd)):
            loads.append(os.getloadavg()[0])
            m = br.measure(cmd, env)
            if m.returncode != 0:
                print(m.stderr, file=sys.stderr)
                return 1
            walls[name].append(m.wall)
            cpus[name].append(m.cpu)
            rss[name].append(m.rss_mb)
            means[name] = ours_means(m.stdout) if name == "evalgui" else json.loads(m.stdout)
    worst = max(abs(means["evalgui"][k] - v) for k, v in means["pyndeval"].items())
    ratio = min(walls["evalgui"]) / min(walls["pyndeval"])
    med_ratio = statistics.median(walls["evalgui"]) / statistics.median(walls["pyndeval"])
    rows = [f"| {n} | {min(walls[n]):.2f} | {statistics.median(walls[n]):.2f} | {statistics.median(cpus[n]):.2f} "
            f"| {max(rss[n]):.0f} |" for n in walls]
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    section = "\n".join([
        BEGIN,
        "## Diversity measures, every ndeval measure (benchmarks/bench_diversity.py)",
        "",
        f"Produced on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (took {(time.time() - t0) / 60:.1f} min), "
        f"{platform.machine()}, {os.cpu_count()} cores, load average {min(loads):.1f}-{max(loads):.1f}; commit "
        f"{commit}. Re-run with `PYTHONPATH=. python benchmarks/bench_diversity.py`.",
        "",
        f"Data (numpy seed {args.seed}, git-ignored): a run of {n_lines:,} lines ({n_q} queries x {per_q:,} "
        f"documents, distinct scores) and subtopic qrels of {n_qrels:,} lines (400 judged documents per query, "
        "3 to 6 subtopics, a quarter of the documents judged for two subtopics, 40% of judgments relevant).",
        "",
        f"Each tool runs {args.repeat} times as a fresh process (interleaved); wall time includes start-up, imports "
        "and reading both files. All 21 of ndeval's values: ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, P-IA and "
        "strec at 5, 10 and 20, NRBP, nNRBP and MAP-IA (alpha = beta = 0.5). pyndeval is called directly with "
        "SubtopicQrel / ScoredDoc lists read by a plain Python loop.",
        "",
        "| tool | wall best (s) | wall median (s) | CPU median (s) | peak RSS (MB) |",
        "|:---|---:|---:|---:|---:|",
        *rows,
        "",
        "Commands:",
        "",
        f"- evalgui: `evalgui-cli evaluate qrels.txt run.txt {' '.join('-m ' + m for m in OURS)}`",
        "- pyndeval: a Python loop building `SubtopicQrel`/`ScoredDoc` lists, then `pyndeval.ndeval(qrels, run)`",
        "",
        f"Target: at most {TARGET_RATIO}x pyndeval's time: **{'met' if ratio <= TARGET_RATIO else 'not met'}** - "
        f"{ratio:.2f}x on the best times, {med_ratio:.2f}x on the medians; on CPU time (less sensitive to a "
        f"shared machine's load) {statistics.median(cpus['evalgui']) / statistics.median(cpus['pyndeval']):.2f}x.",
        f"Cross-check: the 21 means agree within {worst:.1e} (tolerance {TOLERANCE:g}).",
        END,
        "",
    ])
    print(section)
    if worst > TOLERANCE:
        print(f"means disagree by {worst}", file=sys.stderr)
        return 1
    if not args.quick:
        write_section(REPO / "docs" / "benchmarks.md", BEGIN, END, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
