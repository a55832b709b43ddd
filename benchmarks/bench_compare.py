"""Benchmark: comparing systems (evalgui-cli compare) against ranx.compare and PyTerrier's Experiment.

Whole, fresh processes that read the same TREC qrels and run files, evaluate five
measures (AP, nDCG@10, P@10, R@100, RR) and test every pair of runs:

* evalgui on 30 runs x 500 queries: Fisher's randomization test with B = 10,000 and
  Sakai's paired bootstrap with B = 1,000 (target: under 10 s each, reading included);
* evalgui and ``ranx.compare`` (Fisher's randomization, 10,000 permutations) on the
  first 5 runs, in the same benchmark run, and their ratio: ranx needs about 0.2 s
  of CPU per pair and measure, a quarter of an hour for 30 runs;
* PyTerrier's ``pt.Experiment`` (t-test, Holm correction, one baseline) on the 5
  runs, when python-terrier is installed in the benchmark venv and works without Java.

It also checks that the tools agree: the randomization p-values of evalgui and ranx
(different random permutations, so within Monte Carlo error) and PyTerrier's t-test
p-values against evalgui's (exactly: both are scipy's).

Set up the peers in their own virtualenv (see bench_ranked.py), plus PyTerrier::

    /tmp/benchvenv/bin/pip install -e . ranx python-terrier

then from the repository root::

    /tmp/benchvenv/bin/python benchmarks/bench_compare.py --quick     # 5 runs x 100 queries, print only
    /tmp/benchvenv/bin/python benchmarks/bench_compare.py             # writes its section of docs/benchmarks.md

The collection is generated deterministically (``--seed``) into ``benchmarks/_data/``
(git-ignored): 30 runs of differing quality over the same 500 queries, ``--docs``
documents each (default 100: a re-ranking depth; the comparison itself does not
depend on it, the reading does — ``--docs 1000`` makes 15 million lines).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402  (the measuring wrapper and machine report are shared)

MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
RANX_METRICS = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "R@100": "recall@100", "RR": "mrr"}
BEGIN, END = "<!-- bench_compare:begin -->", "<!-- bench_compare:end -->"
GENERATOR_VERSION = 1

RANX_SCRIPT = r"""
import json, sys
from ranx import Qrels, Run, compare
metrics = json.loads(sys.argv[1])
qrels = Qrels.from_file(sys.argv[2], kind="trec")
runs = []
for path in sys.argv[3:]:
    run = Run.from_file(path, kind="trec")
    run.name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    runs.append(run)
report = compare(qrels, runs, metrics=list(metrics.values()), stat_test="fisher", n_permutations=10000,
                 max_p=0.05, random_seed=42)
names = {v: k for k, v in metrics.items()}
p = {}
for pair, by_metric in report.comparisons.items():      # keys are frozensets: the pair, unordered
    a, b = sorted(pair)
    for metric, value in by_metric.items():
        p[f"{names[metric]}|{a}|{b}"] = value["p_value"]
print(json.dumps(p))
"""

PYTERRIER_SCRIPT = r"""
import json, sys
import pandas as pd
import pyterrier as pt
from pyterrier.measures import AP, nDCG, P, R, RR
qrels = pd.read_csv(sys.argv[1], sep=r"\s+", header=None, names=["qid", "iter", "docno", "label"],
                    dtype={"qid": str, "docno": str})[["qid", "docno", "label"]]
runs, names = [], []
for path in sys.argv[2:]:
    run = pd.read_csv(path, sep=r"\s+", header=None, names=["qid", "Q0", "docno", "rank", "score", "tag"],
                      dtype={"qid": str, "docno": str})
    runs.append(run[["qid", "docno", "score", "rank"]])
    names.append(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})
table = pt.Experiment(runs, topics, qrels, [AP, nDCG @ 10, P @ 10, R @ 100, RR], names=names, baseline=0,
                      correction="holm")
p = {}
for _, row in table.iterrows():
    for col in table.columns:
        if col.endswith(" p-value") and row[col] == row[col]:
            measure = col[:-len(" p-value")]
            a, b = sorted((names[0], row["name"]))
            p[f"{measure}|{a}|{b}"] = float(row[col])
print(json.dumps(p))
"""


@dataclass(frozen=True)
class Collection:
    runs: int
    queries: int
    docs: int
    seed: int

    @property
    def folder(self) -> Path:
        return br.REPO / "benchmarks" / "_data" / f"compare_r{self.runs}_q{self.queries}_d{self.docs}_s{self.seed}"

    @property
    def qrels(self) -> Path:
        return self.folder / "qrels.txt"

    def run(self, i: int) -> Path:
        return self.folder / f"system{i + 1:02d}.run"

    def params(self) -> dict:
        return {"runs": self.runs, "queries": self.queries, "docs": self.docs, "seed": self.seed,
                "generator": GENERATOR_VERSION}


def generate(c: Collection) -> None:
    """Graded qrels (about 30 judged documents per query) and ``c.runs`` runs over one shared pool.

    Run i ranks each query's pool by relevance grade plus noise whose size falls with i, so the
    systems differ in quality by small steps (the case where a test has something to decide)."""
    rng = np.random.default_rng(c.seed)
    pool_size = c.docs + c.docs // 2
    c.folder.mkdir(parents=True, exist_ok=True)
    qids = [f"q{q + 1:04d}" for q in range(c.queries)]
    pools = rng.choice(10_000_000, size=(c.queries, pool_size), replace=True)
    grades = np.zeros((c.queries, pool_size), dtype=np.int64)
    judged = rng.random((c.queries, pool_size)) < 30 / pool_size
    grades[judged] = rng.choice(4, size=int(judged.sum()), p=[0.55, 0.25, 0.12, 0.08])
    difficulty = rng.uniform(0.5, 2.0, size=(c.queries, 1))
    qrels_lines = [f"{qids[q]} 0 D{pools[q, d]:07d}x{d} {grades[q, d]}"
                   for q in range(c.queries) for d in np.flatnonzero(judged[q]).tolist()]
    br._write_atomic(c.qrels, "\n".join(qrels_lines) + "\n")
    for i in range(c.runs):
        noise = 1.2 + 0.03 * (c.runs - i) + rng.normal(0, 0.3)
        scores = grades + rng.normal(0, noise, size=grades.shape) * difficulty
        top = np.argsort(-scores, axis=1, kind="stable")[:, :c.docs]
        lines = []
        for q in range(c.queries):
            picked = top[q]
            lines.extend(f"{qids[q]} Q0 D{pools[q, d]:07d}x{d} {r + 1} {scores[q, d]:.6f} system{i + 1:02d}"
                         for r, d in enumerate(picked.tolist()))
        br._write_atomic(c.run(i), "\n".join(lines) + "\n")
    (c.folder / "params.json").write_text(json.dumps(c.params()))


def ensure(c: Collection) -> bool:
    stamp = c.folder / "params.json"
    if stamp.exists() and json.loads(stamp.read_text()) == c.params() and c.run(c.runs - 1).exists():
        return True
    print(f"generating {c.folder.relative_to(br.REPO)} ...", flush=True)
    generate(c)
    return False


def evalgui_compare(bin_dir: Path, c: Collection, runs: int, test: str, samples: int, out: Path,
                    name: str) -> br.Tool:
    cmd = [str(bin_dir / "evalgui-cli"), "compare", str(c.qrels), *[str(c.run(i)) for i in range(runs)]]
    for m in MEASURES:
        cmd += ["-m", m]
    cmd += ["--test", test, "--samples", str(samples), "--correction", "none", "-o", str(out)]

    def parse(_: br.Measurement) -> dict[str, float]:
        import csv

        with open(out, newline="") as f:
            return {_key(r["measure"], r["run_a"], r["run_b"]): float(r["p_value"]) for r in csv.DictReader(f)}

    return br.Tool(name, "evalgui", cmd, parse)


def record_load() -> None:
    """From now on every measurement notes the 1-minute load average before and after it (``load``: the
    pair), since the machine is shared and a wall time means little without it."""
    if getattr(br.measure, "records_load", False):
        return
    plain = br.measure

    def measure(command: list[str], env: dict[str, str] | None = None) -> br.Measurement:
        before = os.getloadavg()[0]
        m = plain(command, env)
        m.load = (before, os.getloadavg()[0])
        return m

    measure.records_load = True
    br.measure = measure


def write_section(path: Path, begin: str, end: str, section: str) -> None:
    """Replace the marked section of the report (or append it), keep the rest; UTF-8, atomically (other
    sections may hold more than ASCII)."""
    from evalgui.core.export import write_atomic

    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + section.rstrip("\n") + "\n" + ("\n" + tail if tail else "")     # a blank line before the rest
    else:
        text = text.rstrip("\n") + "\n\n" + section
    write_atomic(path, text)


def load_range(r: br.ToolResult) -> str:
    """The load averages seen around a tool's measurements, lowest to highest."""
    loads = [x for m in r.runs for x in getattr(m, "load", ())]
    return f"{min(loads):.1f}-{max(loads):.1f}" if loads else "-"


def _key(measure: str, a: str, b: str) -> str:
    return f"{measure}|{min(a, b)}|{max(a, b)}"


def script_tool(name: str, module: str, script: str, bin_dir: Path, args: list[str], **kw) -> br.Tool:
    return br.Tool(name, module, [str(bin_dir / "python"), "-c", script, *args], br._json_means, **kw)


def agreement(ours: dict[str, float], theirs: dict[str, float]) -> tuple[int, float]:
    shared = [k for k in theirs if k in ours]
    if not shared:
        return 0, float("nan")
    return len(shared), max(abs(ours[k] - theirs[k]) for k in shared)


def pyterrier_t(bin_dir: Path, c: Collection, runs: int, out: Path) -> br.Tool:
    """evalgui's t-test with Holm against the first run, to set beside PyTerrier's Experiment."""
    cmd = [str(bin_dir / "evalgui-cli"), "compare", str(c.qrels), *[str(c.run(i)) for i in range(runs)],
           *[a for m in MEASURES for a in ("-m", m)], "--test", "t", "--correction", "holm",
           "--baseline", "system01", "-o", str(out)]

    def parse(_: br.Measurement) -> dict[str, float]:
        import csv

        with open(out, newline="") as f:
            return {_key(r["measure"], r["run_a"], r["run_b"]): float(r["p_value"]) for r in csv.DictReader(f)}

    return br.Tool("evalgui, t-test + Holm vs one baseline", "evalgui", cmd, parse)


def render(c: Collection, machine: dict, results: list[br.ToolResult], checks: list[str], took: float) -> str:
    lines = [BEGIN, "## Comparing systems (`benchmarks/bench_compare.py`)", "",
             f"Collection: {c.runs} runs x {c.queries} queries x {c.docs} documents per query "
             f"({c.runs * c.queries * c.docs:,} run lines), graded qrels, five measures "
             f"({', '.join(MEASURES)}), all pairs. Machine: {machine['cpu']}, {machine['usable_cores']} cores, "
             f"Python {machine['python']}, load average at start {machine['loadavg'][0]:.2f}; "
             f"commit {machine['commit']}. Each figure is a whole fresh process (start-up, reading the runs, "
             f"evaluating, testing, writing); best and median of the repeats, the median CPU time of all its "
             f"threads, and the 1-minute load average around its measurements (the machine is shared: on 2 "
             f"cores, a load above 2 means other jobs took turns with it).", "",
             "| Tool | Runs | Best (s) | Median (s) | CPU (s) | Load | Peak RSS (MB) |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        n = r.note or ""
        if r.ok:
            lines.append(f"| {r.name} | {n} | {r.best:.2f} | {r.median:.2f} | {r.cpu:.2f} | {load_range(r)} | "
                         f"{r.rss_mb:.0f} |")
        else:
            lines.append(f"| {r.name} | {n} | - | - | - | - | {r.skipped or r.failed} |")
    lines += ["", *checks, "", f"Benchmark run took {took / 60:.1f} min.", END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="5 runs x 100 queries; print only")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--peer-runs", type=int, default=5, help="runs given to ranx and PyTerrier (default 5)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    p.add_argument("--bin-dir", type=Path, default=Path(sys.executable).parent)
    args = p.parse_args(argv)
    if args.quick:
        args.runs, args.queries, args.repeat = 5, 100, 1
    started = time.time()
    c = Collection(args.runs, args.queries, args.docs, args.seed)
    ensure(c)
    machine = br.machine_info(args.bin_dir)
    peer_runs = min(args.peer_runs, args.runs)
    pairs_all = args.runs * (args.runs - 1) // 2
    pairs_peer = peer_runs * (peer_runs - 1) // 2
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tools = [
            evalgui_compare(args.bin_dir, c, args.runs, "randomization", 10_000, tmp / "rand.csv",
                            "evalgui, randomization B=10,000"),
            evalgui_compare(args.bin_dir, c, args.runs, "bootstrap", 1_000, tmp / "boot.csv",
                            "evalgui, bootstrap B=1,000"),
            evalgui_compare(args.bin_dir, c, peer_runs, "randomization", 10_000, tmp / "rand5.csv",
                            f"evalgui, randomization B=10,000, {peer_runs} runs"),
            script_tool(f"ranx.compare, Fisher 10,000, {peer_runs} runs", "ranx", RANX_SCRIPT, args.bin_dir,
                        [json.dumps(RANX_METRICS), str(c.qrels), *[str(c.run(i)) for i in range(peer_runs)]],
                        warmup=True),
            pyterrier_t(args.bin_dir, c, peer_runs, tmp / "t5.csv"),
            script_tool(f"PyTerrier pt.Experiment, t-test + Holm, {peer_runs} runs", "pyterrier",
                        PYTERRIER_SCRIPT, args.bin_dir, [str(c.qrels), *[str(c.run(i)) for i in range(peer_runs)]]),
        ]
        notes = [f"{args.runs} ({pairs_all} pairs)", f"{args.runs} ({pairs_all} pairs)",
                 f"{peer_runs} ({pairs_peer} pairs)", f"{peer_runs} ({pairs_peer} pairs)",
                 f"{peer_runs} (4 vs baseline)", f"{peer_runs} (4 vs baseline)"]
        for t, n in zip(tools, notes):
            t.note = n
        print(f"{c.folder.relative_to(br.REPO)}: {args.runs} runs x {args.queries} queries x {args.docs} docs")
        record_load()
        results = br.run_tools(tools, args.repeat)
    for r in results:
        if r.skipped or r.failed:
            print(f"  {r.name}: {r.skipped or 'failed: ' + r.failed}")
    by_name = {r.name: r for r in results}
    checks = []
    ours5, ranx, ours_t, pt_ = (by_name[t.name] for t in (tools[2], tools[3], tools[4], tools[5]))
    if ours5.ok and ranx.ok:
        n, worst = agreement(ours5.means, ranx.means)
        checks.append(f"- evalgui vs ranx, {peer_runs} runs: {ranx.median / ours5.median:.0f}x faster (median wall "
                      f"time); the randomization p-values of {n} pair-measures agree within {worst:.3f} "
                      f"(different random permutations: Monte Carlo error).")
    if ours_t.ok and pt_.ok:
        n, worst = agreement(ours_t.means, pt_.means)
        checks.append(f"- evalgui vs PyTerrier, t-test: {n} p-values, largest difference {worst:.2g}.")
    for name in (tools[0].name, tools[1].name):
        r = by_name[name]
        if r.ok:
            verdict = "meets" if r.median < 10 else "misses"
            checks.append(f"- {name} on {args.runs} runs: median {r.median:.2f} s, best {r.best:.2f} s "
                          f"({r.cpu:.2f} s of CPU over all threads); {verdict} the 10 s target at load average "
                          f"{load_range(r)} on {machine['usable_cores']} cores.")
    for line in checks:
        print(line)
    if not args.quick:
        path = Path(args.output)
        write_section(path, BEGIN, END, render(c, machine, results, checks, time.time() - started))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
