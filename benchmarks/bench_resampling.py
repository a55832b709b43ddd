"""Benchmark: resampling in chunks. Cancel latency and peak memory at B = 5,000,000, and the speed of the
rank-file stability experiment's inner steps (``stability.swap_trials``, the bootstrap of ``asl_rates``).

Targets (issue 23, point 9): at B = 5,000,000 a Cancel stops the test within 0.3 s and the test's
memory stays near 200 MB (before chunking: 24-32 s and 4-6 GB); ``swap_trials`` is no slower than
before it (a previous chunking made the stability experiment time out).

* Cancel: a compare of 6 pairs x 50 queries with the randomization test, then the bootstrap test, at
  B = 5,000,000 runs in a thread; Cancel is asked 1 s in, and the time until the job has stopped is
  the latency.
* Peak memory: the same tests (and the confidence interval of the difference, as compare computes
  it) run to the end in a fresh process each (Linux): the process's peak resident memory during
  the test (VmHWM, reset before it), what the test added to the resident memory before it, and
  tracemalloc's peak of the test.
* ``swap_trials`` and ``bootstrap_test``: best of 5, CPU milliseconds per call (one BLAS thread, as
  the stability experiment runs), on the shapes the stability experiment gives (pairs x queries,
  B = 1,000), and one large B; with ``--before``, that checkout's too, interleaved.

From the repository root::

    python benchmarks/bench_resampling.py --quick                 # B = 500,000, print only
    python benchmarks/bench_resampling.py --before /work/main     # also times swap_trials of that checkout
    python benchmarks/bench_resampling.py --write                 # writes its section of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench_resampling:begin -->", "<!-- bench_resampling:end -->"
PAIRS, QUERIES = 6, 50
SHAPES = ((10, 2, 1_000), (45, 10, 1_000), (190, 10, 1_000), (6, 50, 100_000))   # rows, queries, B


def _diffs(rows: int, n: int):
    import numpy as np

    return np.random.default_rng(7).random((rows, n)) - 0.45


def cancel_latency(test: str, samples: int, after: float = 1.0) -> dict:
    """Run the test in a thread, ask it to stop ``after`` seconds in; seconds until it stopped."""
    from evalgui.core.jobs import Cancelled, JobState
    from evalgui.core.stats.compare import CompareOptions, _pair_statistics

    asked = threading.Event()
    state = JobState(is_cancelled=asked.is_set)
    outcome: dict = {}

    def job():
        try:
            _pair_statistics(_diffs(PAIRS, QUERIES), CompareOptions(test=test, samples=samples), state)
            outcome["finished"] = True
        except Cancelled:
            outcome["cancelled"] = time.perf_counter()

    worker = threading.Thread(target=job)
    worker.start()
    time.sleep(after)
    asked_at = time.perf_counter()
    asked.set()
    worker.join()
    stopped = outcome.get("cancelled", time.perf_counter())
    return {"test": test, "samples": samples, "latency": stopped - asked_at, "finished": "finished" in outcome}


def peak_memory(test: str, samples: int) -> dict:
    """In this (fresh) process: the test run to the end; extra resident memory and tracemalloc's peak."""
    import tracemalloc

    from evalgui.core.jobs import NO_STATE
    from evalgui.core.stats import significance as sig
    from evalgui.core.stats.compare import CompareOptions, _pair_statistics

    diffs = _diffs(PAIRS, QUERIES)
    sig.randomization_test(diffs, 10, 1)                     # load numpy, scipy, the BLAS
    status = Path("/proc/self/status")
    Path("/proc/self/clear_refs").write_text("5")            # Linux: the peak (VmHWM) starts again from here
    before = _status_mb(status, "VmRSS")
    tracemalloc.start()
    started = time.perf_counter()
    _pair_statistics(diffs, CompareOptions(test=test, samples=samples), NO_STATE)   # test + CI
    took = time.perf_counter() - started
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = _status_mb(status, "VmHWM")
    return {"test": test, "samples": samples, "seconds": took, "rss_mb": peak, "rss_extra_mb": peak - before,
            "traced_mb": traced / 2 ** 20}


def _status_mb(status: Path, key: str) -> float:
    line = next(line for line in status.read_text().splitlines() if line.startswith(key + ":"))
    return int(line.split()[1]) / 1024


def profile_swap(repeats: int = 5) -> list[dict]:
    """Best-of milliseconds per call of swap_trials and bootstrap_test (5 levels) on the stability shapes."""
    from evalgui.core.stats import stability
    from evalgui.core.stats.significance import bootstrap_test

    out = []
    for rows, n, samples in SHAPES:
        diffs = _diffs(rows, n)
        calls = max(1, 20_000_000 // (rows * n * samples))
        row = {"rows": rows, "queries": n, "samples": samples}
        for name, call in (("swap_trials", lambda s: stability.swap_trials(diffs, samples, s)),
                           ("bootstrap", lambda s: bootstrap_test(diffs, samples, s, [0.001, 0.01, 0.05, 0.1, 0.2]))):
            best = float("inf")
            for _ in range(repeats):
                started = time.process_time()          # CPU time (one BLAS thread): steadier than wall time
                for seed in range(calls):
                    call(seed)
                best = min(best, (time.process_time() - started) / calls)
            row[name] = 1000 * best
        out.append(row)
    return out


TESTRANKS = Path(os.environ.get("EVALGUI_CONFORMANCE", REPO.parent / "shared" / "conformance")) / \
    "ranking_evaluation" / "testranks.txt"
STABILITY_ARGS = ["--splits", "2", "-i", "50", "-b", "1000", "-e", "-n", "100000", "-p", "all"]


def stability_cpu(pythonpath: Path) -> tuple[float, str]:
    """CPU seconds of ``evalgui-cli stability`` on the original's example (bench_stability's small case),
    and its output."""
    import resource

    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "evalgui.cli", "stability", str(TESTRANKS), *STABILITY_ARGS],
                          env=env, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout


def _child(args: list[str], pythonpath: Path) -> object:
    # One BLAS thread, as the stability experiment runs (evalgui.core.rankfile.use_one_blas_thread).
    env = dict(os.environ, PYTHONPATH=str(pythonpath), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def render(profiles: dict[str, list[dict]], cancels: list[dict], memories: list[dict],
           whole: dict[str, tuple[float, str]], took: float) -> str:
    lines = [BEGIN, "## Resampling in chunks (`benchmarks/bench_resampling.py`)", "",
             f"{PAIRS} pairs x {QUERIES} queries (the compare engine's pair tests). Load average "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: wall times are upper bounds.", "",
             "| test | B | Cancel latency (s) | target |", "|---|---|---|---|"]
    for c in cancels:
        if c["finished"]:
            lines.append(f"| {c['test']} | {c['samples']:,} | done before the request | |")
        else:
            lines.append(f"| {c['test']} | {c['samples']:,} | {c['latency']:.3f} | < 0.3 s: "
                         f"{'met' if c['latency'] < 0.3 else 'NOT met'} |")
    lines += ["", "| test (to the end) | B | seconds | peak RSS (MB) | RSS added by the test (MB) | "
                  "tracemalloc peak (MB) |", "|---|---|---|---|---|---|"]
    for m in memories:
        lines.append(f"| {m['test']} | {m['samples']:,} | {m['seconds']:.1f} | {m['rss_mb']:.0f} | "
                     f"{m['rss_extra_mb']:.0f} | {m['traced_mb']:.0f} |")
    lines += ["", "Before chunking (issue 23): Cancel 24-32 s, peak memory 4-6 GB at B = 5,000,000.", "",
              "The rank-file stability experiment's inner steps, CPU milliseconds per call (best of 5 x 2 rounds, "
              "before and now interleaved):", "",
              "| pairs | queries | B | " + " | ".join(f"swap_trials {k}" for k in profiles) + " | " +
              " | ".join(f"bootstrap_test {k}" for k in profiles) + " |",
              "|---|---|---|" + "---|" * (2 * len(profiles))]
    for i, (rows, n, samples) in enumerate(SHAPES):
        lines.append(f"| {rows} | {n} | {samples:,} | " +
                     " | ".join(f"{p[i]['swap_trials']:.2f}" for p in profiles.values()) + " | " +
                     " | ".join(f"{p[i]['bootstrap']:.2f}" for p in profiles.values()) + " |")
    if whole:
        same = len({out for _, out in whole.values()}) == 1
        lines += ["", "The whole `evalgui-cli stability testranks.txt " + " ".join(STABILITY_ARGS) + "`, CPU seconds "
                  "(best of 2): " + ", ".join(f"{name} {cpu:.2f}" for name, (cpu, _) in whole.items()) +
                  ("; the outputs are identical." if same else "; the outputs DIFFER.")]
    lines += ["", f"Benchmark run took {took:.0f} s.", END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="B = 500,000, print only")
    parser.add_argument("--before", type=Path, help="a checkout whose swap_trials to time as well (e.g. main)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/benchmarks.md")
    parser.add_argument("--profile-only", action="store_true", help="only time swap_trials and bootstrap_test")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        result = profile_swap() if kind == "profile" else peak_memory(rest[0], int(rest[1]))
        print(json.dumps(result))
        return 0
    started = time.time()
    samples = 500_000 if args.quick else 5_000_000
    # Before and now interleaved, three rounds, the best of each cell: the machine's load moves.
    checkouts = {"before": args.before.resolve()} if args.before else {}
    checkouts["now"] = REPO
    rounds = {name: [] for name in checkouts}
    for _ in range(2 if args.before else 1):
        for name, where in checkouts.items():
            rounds[name].append(_child(["--child", "profile"], where))
    profiles = {name: [{key: (min(r[i][key] for r in runs) if key in ("swap_trials", "bootstrap") else value)
                        for key, value in runs[0][i].items()} for i in range(len(SHAPES))]
                for name, runs in rounds.items()}
    whole = {}
    if TESTRANKS.exists():
        for _ in range(2):
            for name, where in checkouts.items():
                cpu, out = stability_cpu(where)
                best, first = whole.get(name, (float("inf"), out))
                whole[name] = (min(best, cpu), first)
    if args.profile_only:
        print(json.dumps(profiles, indent=1))
        print({name: cpu for name, (cpu, _) in whole.items()})
        return 0
    sys.path.insert(0, str(REPO))
    cancels = [cancel_latency(test, samples) for test in ("randomization", "bootstrap")]
    memories = [_child(["--child", "memory", test, str(samples)], REPO) for test in ("randomization", "bootstrap")]
    section = render(profiles, cancels, memories, whole, time.time() - started)
    print(section)
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_compare import write_section

        write_section(REPO / "docs" / "benchmarks.md", BEGIN, END, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
