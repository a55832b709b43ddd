"""Benchmark: the preference matrix (Recall-Paired Preference and lexicographic preferences), against pref_eval.

Issue 10's target: the preference matrix of 30 runs x 500 queries x 1,000 documents in under 5 s
on 2 cores, whole process (reading the 30 TREC runs included). The peer is diazf/pref_eval, the
reference implementation (plain Python): it needs minutes for 30 runs, so both are timed on the
first 5 runs in the same benchmark run (the ratio is reported there, and the values are
cross-checked), and evalgui alone on all 30.

Every tool runs as a whole, fresh process under ``bench_ranked.py``'s measuring wrapper (wall
time, CPU time of all threads, peak RSS), the tools interleaved over ``--repeat`` rounds.
evalgui computes all five preferences (rpp, dcgrpp, invrpp, lexirecall, lexiprecision) for every
pair of runs, graded (its default) on 30 runs; on the 5 runs both tools use binary relevance
(``--binary-threshold 1`` / ``-b 1``), where their definitions agree (pref_eval's graded RPP
reads the binary vector: see ``evalgui-cli measures rpp``). Also timed: the 30 runs ranked with
every pair's preferences tested (``--ranking --test randomization``, B = 10,000). A fresh in-process
run breaks evalgui's 30-run time into its steps (wall and CPU time each), the tests included. Every
measurement notes the load average around it: the machine may be shared.

Set up (the project's test environment stays clean)::

    python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install -e .
    git clone https://github.com/diazf/pref_eval /tmp/pref_eval      # outside the repository

then, from the repository root::

    /tmp/benchvenv/bin/python benchmarks/bench_preference.py --pref-eval /tmp/pref_eval
    /tmp/benchvenv/bin/python benchmarks/bench_preference.py --quick   # 50 queries, 6 runs; prints only

``--pref-eval`` defaults to ``$EVALGUI_PREF_EVAL``; without a checkout pref_eval is marked skipped.
The data is generated deterministically (``--seed``) into ``benchmarks/_data/`` (git-ignored) and
reused while the parameters stay the same. The report is the ``<!-- preference -->`` section of
``docs/benchmarks.md``; the other sections are kept.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402
from bench_compare import load_range, record_load, write_section  # noqa: E402

BEGIN, END = "<!-- preference:begin -->", "<!-- preference:end -->"
MEASURES = ("rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision")
TARGET_SECONDS = 5.0
PEER_RUNS = 5
TOLERANCE = 1e-9
GENERATOR_VERSION = 1  # bump when the generator changes, so cached data is regenerated

# evalgui in-process, step by step (a fresh process): wall and CPU time (all threads) of each step.
INPROCESS_SCRIPT = r"""
import json, os, sys, time
from functools import partial
steps, marks = {}, [(time.perf_counter(), time.process_time())]
def step(name):
    marks.append((time.perf_counter(), time.process_time()))
    steps[name] = [marks[-1][0] - marks[-2][0], marks[-1][1] - marks[-2][1]]
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.preference import RelevanceVectors, compare_vectors
from evalgui.core.stats.compare import CompareOptions, compare_preferences
import scipy.stats  # noqa: F401  (the tests' imports belong here, not to the first test)
step("import")
workers = min(os.cpu_count() or 1, 4)    # as evalgui-cli preference
qrels = read_qrels(sys.argv[1])
step("read_qrels")
vectors = RelevanceVectors.of(qrels, [partial(read_run, p) for p in sys.argv[2:]], workers=workers)
step("runs_to_vectors")
result = compare_vectors(vectors, ["rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision"], workers=workers)
step("compare")
means = result.means
step("means")
compare_preferences(result, CompareOptions(test="t"))
step("t_test")
compare_preferences(result, CompareOptions(test="randomization"))
step("randomization")
print(json.dumps({"steps": steps, "load": os.getloadavg()[0], "slots": int(vectors.layout.n_slots),
                  "queries": int(vectors.layout.n_queries), "pairs": int(len(result.pair_a))}))
"""
STEPS = {"import": "import", "read_qrels": "read the qrels", "runs_to_vectors": "read the runs and make their "
         "relevance vectors", "compare": "compare every pair on five preferences", "means": "means",
         "t_test": "t-tests of the 5 x 435 pairs (with Holm)",
         "randomization": "randomization tests of the 5 x 435 pairs, B = 10,000"}


# ----------------------------------------------------------------------------- data

@dataclass(frozen=True)
class Spec:
    runs: int
    queries: int
    docs: int
    judged: int
    seed: int

    @property
    def folder(self) -> Path:
        return br.REPO / "benchmarks" / "_data" / \
            f"pref_r{self.runs}_q{self.queries}_d{self.docs}_j{self.judged}_s{self.seed}"

    @property
    def qrels_path(self) -> Path:
        return self.folder / "qrels.txt"

    def run_path(self, i: int) -> Path:
        return self.folder / f"sys{i:02d}.run"

    @property
    def params_path(self) -> Path:
        return self.folder / "params.json"

    def params(self) -> dict:
        return {**asdict(self), "generator": GENERATOR_VERSION}


def generate(spec: Spec) -> None:
    """Graded qrels and ``spec.runs`` runs of different quality, from numpy seed ``spec.seed``.

    Each query has a judged pool of about ``spec.judged`` documents, graded 0..3 (about half
    relevant). A run scores each pooled document by grade x its quality plus noise and each of
    ``spec.docs`` other documents (from a million) by noise alone, and keeps its best
    ``spec.docs``, written in rank order with 6 decimals (so a few scores tie, as in real runs,
    and ties are broken by docno). Every seventh run lacks a few queries.
    """
    rng = np.random.default_rng(spec.seed)
    quality = np.linspace(0.2, 1.5, spec.runs)[rng.permutation(spec.runs)]
    qrels_lines: list[str] = []
    run_lines: list[list[str]] = [[] for _ in range(spec.runs)]
    for q in range(spec.queries):
        qid = f"q{q + 1:04d}"
        n_pool = int(rng.integers(spec.judged // 2, spec.judged * 3 // 2 + 1))
        pool = rng.choice(1_000_000, size=n_pool + spec.docs, replace=False)
        grades = rng.choice(4, size=n_pool, p=[0.5, 0.25, 0.15, 0.10])
        qrels_lines += [f"{qid} 0 D{d:07d} {g}" for d, g in zip(pool[:n_pool].tolist(), grades.tolist())]
        for r in range(spec.runs):
            if r % 7 == 6 and q % 50 == 0:
                continue
            scores = np.concatenate((grades * quality[r], np.zeros(spec.docs))) + rng.normal(0, 1, len(pool))
            top = np.argsort(-scores, kind="stable")[:spec.docs]
            run_lines[r] += [f"{qid} Q0 D{d:07d} {i + 1} {s:.6f} sys{r:02d}"
                             for i, (d, s) in enumerate(zip(pool[top].tolist(), scores[top].tolist()))]
    spec.folder.mkdir(parents=True, exist_ok=True)
    br._write_atomic(spec.qrels_path, "\n".join(qrels_lines) + "\n")
    for r, lines in enumerate(run_lines):
        br._write_atomic(spec.run_path(r), "\n".join(lines) + "\n")
    br._write_atomic(spec.params_path, json.dumps(spec.params(), indent=1) + "\n")


def ensure_data(spec: Spec) -> bool:
    """Generate unless the same parameters are on disk; True if reused."""
    reused = spec.params_path.exists() and json.loads(spec.params_path.read_text()) == spec.params() and \
        spec.qrels_path.exists() and all(spec.run_path(i).exists() for i in range(spec.runs))
    if not reused:
        print(f"generating {spec.folder.relative_to(br.REPO)} ...", flush=True)
        generate(spec)
    return reused


# ----------------------------------------------------------------------------- tools

def evalgui_tool(bin_dir: Path, spec: Spec, n_runs: int, out_csv: Path, binary: bool, name: str,
                 extra: tuple[str, ...] = ()) -> br.Tool:
    cmd = [str(bin_dir / "evalgui-cli"), "preference", str(spec.qrels_path),
           *[str(spec.run_path(i)) for i in range(n_runs)], "-o", str(out_csv), *extra]
    if binary:
        cmd += ["--binary-threshold", "1"]

    def parse(_: br.Measurement) -> dict[str, float]:
        if extra:          # the ranking: nothing to cross-check
            return {}
        with open(out_csv, newline="") as f:
            return {f"{r['measure']} {r['run_a']} {r['run_b']}": float(r["value"]) for r in csv.DictReader(f)}

    return br.Tool(name, "", cmd, parse)


def pref_eval_tool(bin_dir: Path, folder: Path, spec: Spec, n_runs: int) -> br.Tool:
    cmd = [str(bin_dir / "python"), str(folder / "pref_eval.py"), "-R", str(spec.qrels_path),
           *[a for m in MEASURES for a in ("-m", m)], "-b", "1", *[str(spec.run_path(i)) for i in range(n_runs)]]

    def parse(m: br.Measurement) -> dict[str, float]:
        out = {}
        for line in m.stdout.splitlines():
            row = json.loads(line)
            # pref_eval names a run after its file (sys00.run); evalgui after its stem (sys00).
            a, b = (Path(row[k]).stem for k in ("runi", "runj"))
            out.update({f"{name} {a} {b}": float(row[name]) for name in MEASURES})
        return out

    return br.Tool(f"pref_eval, {n_runs} runs, binary", "", cmd, parse)


def cross_check(ours: dict[str, float], theirs: dict[str, float]) -> list[str]:
    problems = [f"{k}: pref_eval {theirs[k]:.12g}, evalgui {ours.get(k, float('nan')):.12g}" for k in theirs
                if k not in ours or abs(ours[k] - theirs[k]) > TOLERANCE]
    if ours.keys() != theirs.keys():
        problems.append(f"different pairs or measures: {sorted(ours.keys() ^ theirs.keys())[:5]}")
    return problems


def run_inprocess(bin_dir: Path, spec: Spec, repeat: int) -> list[dict]:
    cmd = [str(bin_dir / "python"), "-c", INPROCESS_SCRIPT, str(spec.qrels_path),
           *[str(spec.run_path(i)) for i in range(spec.runs)]]
    out = []
    for i in range(repeat):
        m = br.measure(cmd)
        if m.returncode:
            raise SystemExit(f"evalgui in-process run failed:\n{m.stderr}")
        r = json.loads(m.stdout.strip().splitlines()[-1])
        out.append(r)
        print(f"  [{i + 1}/{repeat}] in-process (load {r['load']:.1f}): " + ", ".join(
            f"{name} {wall:.2f} s ({cpu:.2f} s CPU)" for name, (wall, cpu) in r["steps"].items()), flush=True)
    return out


# ----------------------------------------------------------------------------- report

def render(*, command: str, spec: Spec, reused: bool, machine: dict, repeat: int, results: list[br.ToolResult],
           full: br.ToolResult, small: br.ToolResult, peer: br.ToolResult, inproc: list[dict],
           problems: list[str] | None, started: str, elapsed: float) -> str:
    v = machine["versions"]
    run_mb = sum(spec.run_path(i).stat().st_size for i in range(spec.runs)) / 1e6
    lines = [BEGIN, "## Preferences between runs (benchmarks/bench_preference.py)", "",
             f"Produced on {started} (took {elapsed / 60:.1f} min), {machine['cpu']}, {machine['usable_cores']} "
             f"usable cores, load average {machine['loadavg'][0]:.2f} at the start; evalgui "
             f"{v.get('evalgui', '?')} at commit {machine['commit'] or '?'}. Re-run with:", "",
             "```", command, "```", "",
             f"Data (numpy seed {spec.seed}, `{spec.folder.relative_to(br.REPO)}/`, git-ignored, "
             f"{'reused' if reused else 'generated'}): {spec.runs} runs x {spec.queries} queries x {spec.docs:,} "
             f"documents ({run_mb:.0f} MB of run files in rank order, scores with 6 decimals: "
             f"{100 * br.tie_share(spec.run_path(0)):.2f}% of the first run's lines tie, so every run takes the "
             f"sorting path); graded qrels (0..3), "
             f"about {spec.judged} judged documents per query; every seventh run lacks a few queries.", "",
             f"Each tool runs {repeat} times as a fresh process (interleaved); wall time includes start-up, "
             "imports and reading every file; CPU is the median CPU time of all its threads, load the 1-minute "
             "load average around its measurements (the machine is shared: on 2 cores, a load above 2 means other "
             "jobs took turns with it). All five preferences (rpp, dcgrpp, invrpp, lexirecall, lexiprecision) for "
             "every pair of runs.", "",
             "| tool | wall best (s) | wall median (s) | CPU median (s) | load | peak RSS (MB) | wall / evalgui's (best) |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if r.ok:
            lines.append(f"| {r.name} | {r.best:.2f} | {r.median:.2f} | {r.cpu:.2f} | {load_range(r)} | "
                         f"{r.rss_mb:.0f} | {r.best / small.best:.2f}x |")
        else:
            lines.append(f"| {r.name} | {r.skipped or 'failed: ' + r.failed} | | | | | |")
    lines += ["", "Commands:", ""]
    lines += [f"- {r.name}: `{r.command}`" for r in results]
    lines += ["", "The ratio column is against evalgui on the same 5 runs. pref_eval (diazf/pref_eval, plain "
              "Python) reads every run line by line and compares pairs query by query; both use binary "
              "relevance there (grade >= 1), where the two definitions agree.", ""]
    if inproc:
        best = min(inproc, key=lambda r: sum(wall for wall, _ in r["steps"].values()))
        loads = [r["load"] for r in inproc]
        lines += [f"evalgui in-process on the {spec.runs} runs ({best['pairs']} pairs, {best['queries']} queries, "
                  f"{best['slots']:,} relevance-vector slots per run; the quickest of {len(inproc)} fresh processes, "
                  f"load average {min(loads):.1f}-{max(loads):.1f}), wall time (CPU time of all threads): "
                  + ", ".join(f"{STEPS[name]} {wall:.2f} s ({cpu:.2f} s)" for name, (wall, cpu) in best["steps"].items())
                  + ".", ""]
    lines.append("Targets:")
    lines.append("")
    if full.ok:
        met = full.median < TARGET_SECONDS          # the median: this VM's speed drifts, the best flatters
        lines.append(f"- Preference matrix, {spec.runs} runs x {spec.queries} queries x {spec.docs:,} documents, whole "
                     f"process under {TARGET_SECONDS:g} s on 2 cores: {'**met**' if met else '**NOT met**'} on the "
                     f"median - {full.median:.2f} s median, {full.best:.2f} s best at load {load_range(full)}; "
                     f"{full.cpu:.2f} s of CPU over all threads, so about {full.cpu / 2:.1f} s on 2 otherwise idle "
                     "cores.")
    if peer.ok and small.ok:
        lines.append(f"- Against pref_eval on {PEER_RUNS} runs: pref_eval takes {peer.best / small.best:.0f}x "
                     f"evalgui's time (best {peer.best:.1f} s vs {small.best:.2f} s).")
    elif peer.skipped:
        lines.append(f"- pref_eval: skipped ({peer.skipped}).")
    if problems is not None:
        lines.append("- Cross-check with pref_eval on the 5 runs (every pair's mean, five preferences): "
                     + ("all agree within " + f"{TOLERANCE:g}." if not problems else
                        f"**{len(problems)} differ**: " + "; ".join(problems[:5])))
    lines += [END, ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=None, help="runs (default 30; 6 with --quick)")
    p.add_argument("--queries", type=int, default=None, help="queries (default 500; 50 with --quick)")
    p.add_argument("--docs", type=int, default=1000, help="retrieved documents per query (default 1000)")
    p.add_argument("--judged", type=int, default=100, help="judged documents per query, on average (default 100)")
    p.add_argument("--repeat", type=int, default=3, help="measurements per tool (default 3)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--quick", action="store_true", help="a small smoke run; prints only")
    p.add_argument("--pref-eval", default=os.environ.get("EVALGUI_PREF_EVAL"),
                   help="a checkout of diazf/pref_eval (default: $EVALGUI_PREF_EVAL)")
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    p.add_argument("--bin-dir", type=Path, default=Path(sys.executable).parent,
                   help="folder with python and evalgui-cli of the benchmark venv (default: this interpreter's)")
    args = p.parse_args(argv)
    args.runs = args.runs or (6 if args.quick else 30)
    args.queries = args.queries or (50 if args.quick else 500)
    if args.runs < PEER_RUNS:
        p.error(f"--runs must be at least {PEER_RUNS}")
    bin_dir = args.bin_dir.absolute()
    if not (bin_dir / "evalgui-cli").exists():
        raise SystemExit(f"no evalgui-cli in {bin_dir}; run with the benchmark venv's python or pass --bin-dir")
    started_wall, started = time.time(), time.strftime("%Y-%m-%d %H:%M %Z")
    spec = Spec(args.runs, args.queries, args.docs, args.judged, args.seed)
    reused = ensure_data(spec)
    machine = br.machine_info(bin_dir)
    print(f"data: {spec.folder.relative_to(br.REPO)} ({'reused' if reused else 'generated'}); machine: "
          f"{machine['usable_cores']} cores, load average {machine['loadavg'][0]:.2f}", flush=True)

    folder = Path(args.pref_eval) if args.pref_eval else None
    with tempfile.TemporaryDirectory(prefix="bench-preference-") as tmp_name:
        tmp = Path(tmp_name)
        tools = [evalgui_tool(bin_dir, spec, spec.runs, tmp / "full.csv", False, f"evalgui, {spec.runs} runs, graded"),
                 evalgui_tool(bin_dir, spec, PEER_RUNS, tmp / "small.csv", True, f"evalgui, {PEER_RUNS} runs, binary")]
        peer_tool = pref_eval_tool(bin_dir, folder, spec, PEER_RUNS) if folder else None
        if peer_tool and (folder / "pref_eval.py").exists():
            tools.append(peer_tool)
        tested = evalgui_tool(bin_dir, spec, spec.runs, tmp / "ranking.csv", False,
                              f"evalgui, {spec.runs} runs, graded, --ranking --test randomization",
                              ("--ranking", "--test", "randomization"))
        print(f"\nwhole processes, {args.repeat} repetition(s) each:")
        record_load()
        results = br.run_tools(tools + [tested], args.repeat)
        tested = results.pop()
        if len(results) == 2:
            skipped = br.ToolResult(f"pref_eval, {PEER_RUNS} runs, binary", "pref_eval.py ...")
            skipped.skipped = f"no checkout at {folder}" if folder else "no checkout given (--pref-eval)"
            results.append(skipped)
        print("\nevalgui in-process:")
        inproc = run_inprocess(bin_dir, spec, args.repeat)
    full, small, peer = results
    results.insert(1, tested)
    for r in (full, small):
        if not r.ok:
            raise SystemExit(f"{r.name} failed: {r.failed or r.skipped}")
    problems = cross_check(small.means, peer.means) if peer.ok else None
    print()
    for r in results:
        print(f"{r.name:<32} " + (f"best {r.best:7.2f} s  median {r.median:7.2f} s  cpu {r.cpu:6.2f} s  "
                                  f"load {load_range(r)}  {r.rss_mb:5.0f} MB" if r.ok else (r.skipped or r.failed)))
    if problems is not None:
        print("cross-check with pref_eval:", "agrees" if not problems else f"{len(problems)} differ: {problems[:3]}")
    print(f"target: {spec.runs} runs under {TARGET_SECONDS:g} s: median {full.median:.2f} s -> "
          f"{'met' if full.median < TARGET_SECONDS else 'NOT met'}")
    if not args.quick:
        shown = argv if argv is not None else sys.argv[1:]
        command = " ".join([str(bin_dir / "python"), "benchmarks/bench_preference.py", *map(shlex.quote, shown)])
        section = render(command=command, spec=spec, reused=reused, machine=machine, repeat=args.repeat,
                         results=results, full=full, small=small, peer=peer, inproc=inproc, problems=problems,
                         started=started, elapsed=time.time() - started_wall)
        write_section(Path(args.output), BEGIN, END, section)
        print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
