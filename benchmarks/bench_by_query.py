"""Benchmark: runs too large to hold, evaluated by query, against reading them whole and trec_eval.

A synthetic run of ``--lines`` lines (``--queries`` queries, tied scores rounded to two decimals, every
line shuffled: the hardest order for a reader, as no query's lines sit together) and its qrels are
written to ``benchmarks/_data/`` (git-ignored) and reused. Each tool then runs as a fresh process:

- ``evalgui by query``: ``evalgui-cli trec_eval`` as a user runs it (a run this size is evaluated by
  query automatically);
- ``evalgui whole``: the same with ``EVALGUI_HOLD_AT_MOST`` raised, so the run is read whole (today's path);
- ``evalgui by query (.gz)``: the run gzipped (trec_eval reads no .gz: compare with evalgui's own paths);
- ``trec_eval``: the 10.0 binary, when ``--trec-eval``, ``$EVALGUI_TREC_EVAL`` or ``trec_eval`` on PATH
  names it.

It reports wall time and peak resident memory (a small wrapper's ``RUSAGE_CHILDREN``), and checks
that every evalgui output is byte-identical to the others and to trec_eval's. Targets (issue 37): 20M
lines in at most 1 GiB, at most trec_eval's peak and at most half its wall time; 100M lines in at most
2 GiB.

    python benchmarks/bench_by_query.py --lines 2000000            # a quick look, writes nothing
    python benchmarks/bench_by_query.py --write                    # 20M lines, writes docs/benchmarks.md
    python benchmarks/bench_by_query.py --lines 100000000 --queries 1000000 --no-whole --write
    python benchmarks/bench_by_query.py --compare 100 --queries 10000 --lines 20000000 --old-checkout /tmp/old
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent

def markers(lines: int) -> tuple[str, str]:
    """Each size its own section of docs/benchmarks.md."""
    return f"<!-- bench_by_query {lines}: begin -->", f"<!-- bench_by_query {lines}: end -->"


def write_collection(folder: Path, lines: int, queries: int, seed: int = 11) -> tuple[Path, Path]:
    """The run (tied scores, lines shuffled) and its qrels (100 judgments a query, a third relevant; fewer
    when there are many queries, as a recommender's test set has: 2 million judgments at most)."""
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    depth = lines // queries
    n_docs = max(10 * depth, 1000)
    chunk = max(1, 2_000_000 // depth)                 # queries written at once
    order_of_queries = rng.permutation(queries)
    judged = judgments_per_query(queries, depth)
    if not run.exists():
        _write_run(run, rng, queries, depth, n_docs, chunk, order_of_queries)
    if not qrels.exists():
        _write_qrels(qrels, rng, queries, depth, n_docs, judged)
    return qrels, run


def judgments_per_query(queries: int, depth: int | None = None) -> int:
    """A query's judgments: at most one per rank position (documents are numbered by position, so more would
    repeat a document)."""
    judged = max(5, min(100, 2_000_000 // queries))
    return judged if depth is None else min(judged, depth)


def _write_run(run, rng, queries, depth, n_docs, chunk, order_of_queries):
    with open(run.with_suffix(".tmp"), "w") as fh:
        for start in range(0, queries, chunk):
            q = np.repeat(order_of_queries[start:start + chunk], depth)
            docs = rng.integers(0, n_docs, size=len(q)) * depth + np.tile(np.arange(depth), len(q) // depth)
            scores = np.round(rng.random(len(q)) * 10, 2)
            shuffle = rng.permutation(len(q))
            text = "\n".join(f"q{a} Q0 d{b} 0 {c:.2f} bench" for a, b, c in
                             zip(q[shuffle].tolist(), docs[shuffle].tolist(), scores[shuffle].tolist()))
            fh.write(text + "\n")
    os.replace(run.with_suffix(".tmp"), run)


def _write_qrels(qrels, rng, queries, depth, n_docs, judged):
    chunk = max(1, 2_000_000 // judged)
    with open(qrels.with_suffix(".tmp"), "w") as fh:
        for start in range(0, queries, chunk):
            q = np.repeat(np.arange(start, min(start + chunk, queries)), judged)
            docs = rng.integers(0, n_docs, size=len(q)) * depth + np.tile(np.arange(judged) % depth, len(q) // judged)
            grades = (rng.random(len(q)) < 1 / 3).astype(int) * rng.integers(1, 4, size=len(q))
            fh.write("\n".join(f"q{a} 0 d{b} {c}" for a, b, c in zip(q.tolist(), docs.tolist(), grades.tolist()))
                     + "\n")
    os.replace(qrels.with_suffix(".tmp"), qrels)


def gzipped(run: Path) -> Path:
    packed = run.with_suffix(".txt.gz")
    if not packed.exists():
        with open(run, "rb") as src, gzip.open(packed.with_suffix(".tmp"), "wb", compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, 16 << 20)
        os.replace(packed.with_suffix(".tmp"), packed)
    return packed


# A small wrapper process runs the tool and reads its children's peak RSS: a child forked straight from
# this process would count this process's pages (the generated data) as its own until it execs.
_WRAPPER = ("import resource, subprocess, sys, time; start = time.perf_counter(); "
            "status = subprocess.run(sys.argv[1:]).returncode; wall = time.perf_counter() - start; "
            "print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, status, file=sys.stderr)")


def measure(command: list[str], out: Path, env: dict | None = None) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (bytes) and exit status of one fresh process writing stdout to ``out``."""
    with open(out, "wb") as fh:
        done = subprocess.run([sys.executable, "-c", _WRAPPER, *command], stdout=fh, stderr=subprocess.PIPE,
                              env=env, text=True)
    wall, peak_kib, status = done.stderr.strip().splitlines()[-1].split()
    return float(wall), int(peak_kib) * 1024, int(status)


def compare_many(args) -> int:
    """``--compare N``: N run files of ``--queries`` queries (``--lines`` lines in all) compared in one
    ``evalgui-cli compare``: each file is read once and let go, so memory stays near one run's, not N runs'."""
    depth = max(1, args.lines // (args.compare * args.queries))
    folder = REPO / "benchmarks" / "_data" / f"by_query-compare-{args.compare}-{args.queries}-{depth}"
    print(f"writing or reusing {folder} ...", flush=True)
    runs = []
    for i in range(args.compare):
        sub = folder / f"system{i:03d}"
        qrels, run = write_collection(sub, depth * args.queries, args.queries, seed=100 + i) if i == 0 else \
            (None, None)
        if i == 0:
            qrels_path = qrels
        else:
            sub.mkdir(parents=True, exist_ok=True)
            run = sub / "run.txt"
            if not run.exists():
                rng = np.random.default_rng(100 + i)
                _write_run(run, rng, args.queries, depth, max(10 * depth, 1000), max(1, 2_000_000 // depth),
                           rng.permutation(args.queries))
        named = folder / f"system{i:03d}.run"
        if not named.exists():
            os.link(run, named)
        runs.append(str(named))
    command = ["compare", str(qrels_path), *runs, "-m", "AP", "-m", "nDCG@10", "--test", "t", "--correction", "holm"]
    tools = [("evalgui (this checkout)", [sys.executable, "-m", "evalgui.cli", *command],
              dict(os.environ, PYTHONPATH=str(REPO)))]
    if args.old_checkout:
        tools.append((f"evalgui ({args.old_checkout})", [sys.executable, "-m", "evalgui.cli", *command],
                      dict(os.environ, PYTHONPATH=args.old_checkout)))
    rows, outputs = [], {}
    for name, cmd, env in tools:
        out = folder / f"out-{len(rows)}.csv"
        wall, peak, status = measure(cmd, out, env)
        print(f"{name}: {wall:.1f} s, {peak / 2**20:,.0f} MiB, exit {status}", flush=True)
        rows.append((name, wall, peak, status))
        outputs[name] = out.read_bytes()
    same = {name: outputs[name] == outputs[tools[0][0]] for name in outputs}
    table = ["| tool | wall time (s) | peak memory (MiB) | output |", "|---|---:|---:|---|"]
    table += [f"| {name} | {wall:.1f} | {peak / 2**20:,.0f} | "
              f"{'exit ' + str(status) if status else ('identical' if same[name] else 'differs')} |"
              for name, wall, peak, status in rows]
    begin, end = f"<!-- bench_by_query compare: begin -->", f"<!-- bench_by_query compare: end -->"
    section = "\n".join([
        begin, f"## Comparing {args.compare} run files ({args.compare * args.queries * depth:,} lines)", "",
        f"`benchmarks/bench_by_query.py --compare {args.compare} --queries {args.queries} --lines {args.lines}`: "
        f"{args.compare} run files of {args.queries:,} queries × {depth} documents, compared on AP and nDCG@10 "
        f"(paired t test, Holm) by one `evalgui-cli compare`; peak resident memory as above. Machine: "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end.", "", *table, "", end, ""])
    print(section)
    if args.write:
        sys.path.insert(0, str(REPO / "benchmarks"))
        from bench_compare import write_section

        write_section(REPO / "docs" / "benchmarks.md", begin, end, section)
    return 0 if all(same.values()) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--trec-eval", default=os.environ.get("EVALGUI_TREC_EVAL") or shutil.which("trec_eval"))
    parser.add_argument("--no-whole", action="store_true", help="skip reading the run whole (too large for RAM)")
    parser.add_argument("--no-gz", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="write the results into docs/benchmarks.md")
    parser.add_argument("--compare", type=int, metavar="N", help="compare N run files instead (see compare_many)")
    parser.add_argument("--old-checkout", metavar="DIR", help="with --compare: also time the evalgui in DIR")
    args = parser.parse_args(argv)
    if args.compare:
        return compare_many(args)

    folder = REPO / "benchmarks" / "_data" / f"by_query-{args.lines}-{args.queries}"
    print(f"writing or reusing {folder} ...", flush=True)
    qrels, run = write_collection(folder, args.lines, args.queries)
    cli = [str(Path(sys.executable).parent / "evalgui-cli"), "trec_eval"]
    tools = [("evalgui by query", cli + [str(qrels), str(run)], None)]
    if not args.no_whole:
        whole = dict(os.environ, EVALGUI_HOLD_AT_MOST=str(1 << 60))
        tools.append(("evalgui whole (today's path)", cli + [str(qrels), str(run)], whole))
    if not args.no_gz:
        tools.append(("evalgui by query (.gz)", cli + [str(qrels), str(gzipped(run))], None))
    if args.trec_eval:
        tools.append(("trec_eval 10.0", [args.trec_eval, str(qrels), str(run)], None))

    rows, outputs = [], {}
    for name, command, env in tools:
        best = None
        for _ in range(args.repeat):
            out = folder / f"out-{len(outputs)}.txt"
            wall, peak, status = measure(command, out, env)
            print(f"{name}: {wall:.1f} s, {peak / 2**20:,.0f} MiB, exit {status}", flush=True)
            best = (wall, peak, status) if best is None or wall < best[0] else best
        outputs[name] = out.read_bytes()
        rows.append((name, *best))
    reference = outputs[tools[0][0]]
    same = {name: outputs[name] == reference for name in outputs}
    for name, equal in same.items():
        print(f"  {name}: output {'identical' if equal else 'DIFFERS'}")

    size = run.stat().st_size
    table = ["| tool | wall time (s) | peak memory (MiB) | output |", "|---|---:|---:|---|"]
    table += [f"| {name} | {wall:.1f} | {peak / 2**20:,.0f} | "
              f"{'exit ' + str(status) if status else ('identical' if same[name] else 'differs')} |"
              for name, wall, peak, status in rows]
    begin, end = markers(args.lines)
    section = "\n".join([
        begin, f"## Runs too large to hold: by query ({args.lines:,} lines)", "",
        f"`benchmarks/bench_by_query.py --lines {args.lines} --queries {args.queries}`: a run of {args.lines:,} "
        f"lines ({size / 2**20:,.0f} MiB, {args.queries:,} queries, tied scores, every line shuffled) and "
        f"{judgments_per_query(args.queries)} judgments a query; each tool a fresh process, best of {args.repeat}; peak resident memory "
        f"of that one process (`RUSAGE_CHILDREN` in a small wrapper). Machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end.", "",
        *table, "", end, ""])
    print(section)
    if args.write:
        sys.path.insert(0, str(REPO / "benchmarks"))
        from bench_compare import write_section

        write_section(REPO / "docs" / "benchmarks.md", begin, end, section)
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
