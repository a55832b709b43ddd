"""Benchmark: what the evaluation advisor (the caveats) adds to each workflow's time.

In one process, on bench_compare's collection (30 runs x 500 queries x 100 documents, graded qrels, read
once before timing: the workflow's own work is what the caveats are compared with, so the share is the
harshest), each workflow runs with its caveats and without them (the advisor's entry points replaced by
no-ops), alternately, ``--repeat`` times:

* Ranked retrieval as the window and ``eg.evaluate`` run it (every table), and as ``evalgui-cli evaluate``
  runs it (the lean path), five measures;
* Compare: t test with Holm's correction over every pair (435 pairs x 5 measures);
* Preferences: RPP between every two runs, t test;
* Meta-evaluation: discriminative power (bootstrap, B = 200) on the first 10 runs.

Besides the two medians, the advisor's own time is clocked inside the runs with caveats (its entry points
timed as they are called), so the overhead is read without the noise of a shared machine. The target is at
most 10 % on data without ties (the tie passes run only for runs whose ties change a value).

From the repository root::

    python benchmarks/bench_advisor.py --quick     # 5 runs x 100 queries, print only
    python benchmarks/bench_advisor.py             # writes its section of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_compare as bc  # noqa: E402  (the collection and the report's section writer)
import bench_ranked as br  # noqa: E402

MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
BEGIN, END = "<!-- bench_advisor:begin -->", "<!-- bench_advisor:end -->"
TARGET = 0.10
# The advisor's entry points the workflows call (module attribute names).
ENTRY_POINTS = ("compare_caveats", "preference_caveats", "metaeval_caveats", "source_caveats", "judged_data")


class Advisor:
    """Switch the advisor off (its entry points return nothing) and clock it while it is on."""

    def __init__(self):
        from evalgui.core import advisor

        self.module = advisor
        self.original = {name: getattr(advisor, name) for name in ENTRY_POINTS}
        self.original_add = advisor.RunChecks.add
        self.original_finish = advisor.RunChecks.finish
        self.seconds = 0.0
        self.depth = 0
        self.on()

    def _timed(self, function):
        def timed(*args, **kwargs):
            if self.depth:                        # called from another entry point: counted there
                return function(*args, **kwargs)
            self.depth += 1
            started = time.process_time()        # CPU, as the workflows are timed
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - started
                self.depth -= 1
        return timed

    def on(self) -> None:
        for name, function in self.original.items():
            setattr(self.module, name, self._timed(function))
        self.module.RunChecks.add = self._timed(self.original_add)
        self.module.RunChecks.finish = self._timed(self.original_finish)

    def off(self) -> None:
        for name in ENTRY_POINTS:
            setattr(self.module, name, lambda *args, **kwargs: [])
        self.module.judged_data = lambda *args, **kwargs: None       # a preference run's shares: none
        self.module.RunChecks.add = lambda *args, **kwargs: None
        self.module.RunChecks.finish = lambda *args, **kwargs: []


def workflows(c: bc.Collection, runs: int, meta_runs: int):
    """(name, job) of each workflow on the collection, its files read once into the Inputs."""
    from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest, run_compare, run_preference
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval
    from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

    qrels, paths = str(c.qrels), [str(c.run(i)) for i in range(runs)]
    inputs = Inputs()
    inputs.add(qrels, inputs.get(qrels, "qrels"))
    for path in paths:
        inputs.add(path, inputs.get(path, "run"))
    evaluate = EvaluateRequest(qrels=qrels, runs=tuple(paths), measures=MEASURES, per_query=True)
    pairs = runs * (runs - 1) // 2
    return [
        (f"Ranked retrieval, every table ({runs} runs)", lambda: run_evaluate(evaluate, inputs=inputs)),
        (f"Ranked retrieval, the CLI's lean path ({runs} runs)",
         lambda: run_evaluate(evaluate, inputs=inputs, tables=("results",))),
        (f"Compare, t test + Holm ({pairs} pairs x {len(MEASURES)} measures)",
         lambda: run_compare(CompareRequest(qrels=qrels, runs=paths, measures=list(MEASURES)), inputs=inputs)),
        (f"Preferences, RPP + t test ({pairs} pairs)",
         lambda: run_preference(PreferenceRequest(qrels=qrels, runs=paths, measures=["RPP"], test="t"),
                                inputs=inputs)),
        (f"Meta-evaluation, discriminative power B=200 ({meta_runs} runs)",
         lambda: run_metaeval(MetaevalRequest(qrels=qrels, runs=paths[:meta_runs], measures=MEASURES,
                                              experiment="power", test="bootstrap", samples=200), inputs=inputs)),
    ]


def measure(advisor: Advisor, jobs, repeat: int) -> list[dict]:
    rows = []
    for name, job in jobs:
        job()                                   # warm: imports, caches
        with_, without, own = [], [], []
        for _ in range(repeat):
            for state in ("off", "on"):         # alternately, so a busier moment hits both alike
                getattr(advisor, state)()
                advisor.seconds = 0.0
                started = time.process_time()
                outcome = job()
                spent = time.process_time() - started
                (with_ if state == "on" else without).append(spent)
                if state == "on":
                    own.append(advisor.seconds)
                    caveats = len(outcome.caveats)
        advisor.on()
        row = {"name": name, "without": statistics.median(without), "with": statistics.median(with_),
               "advisor": statistics.median(own), "caveats": caveats,
               "load": os.getloadavg()[0]}
        row["share"] = row["advisor"] / row["without"]
        print(f"  {name}: {row['without']:.2f} s without, {row['with']:.2f} s with; the advisor "
              f"{row['advisor']:.3f} s = {100 * row['share']:.1f} % ({caveats} caveats)", flush=True)
        rows.append(row)
    return rows


def render(c: bc.Collection, machine: dict, rows: list[dict], repeat: int, took: float) -> str:
    lines = [BEGIN, "## The evaluation advisor's caveats (`benchmarks/bench_advisor.py`)", "",
             f"Collection: bench_compare's, {c.runs} runs x {c.queries} queries x {c.docs} documents per query, "
             f"graded qrels, five measures ({', '.join(MEASURES)}); files read once before timing. Machine: "
             f"{machine['cpu']}, {machine['usable_cores']} cores, Python {machine['python']}; commit "
             f"{machine['commit']}. One process; each workflow run {repeat} times with its caveats and {repeat} "
             "times without (the advisor's entry points made no-ops), alternately; medians of the process's CPU "
             "time. 'Advisor' is the advisor's own time clocked inside the runs with caveats (median): the "
             "overhead without the noise of a shared machine (the two medians differ by more, or less, than it "
             "when other jobs take turns with the benchmark: see the load).", "",
             "| Workflow | Without (s) | With (s) | Advisor (s) | Advisor share | Caveats | Load |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['without']:.2f} | {r['with']:.2f} | {r['advisor']:.3f} | "
                     f"{100 * r['share']:.1f} % | {r['caveats']} | {r['load']:.1f} |")
    worst = max(rows, key=lambda r: r["share"])
    verdict = "meets" if worst["share"] <= TARGET else "misses"
    lines += ["", f"- Largest share: {worst['name']}, {100 * worst['share']:.1f} % of the workflow's time; "
                  f"{verdict} the {100 * TARGET:.0f} % target (data without ties that change a value: the tie "
                  "passes, two evaluations of a tied run, are not run).",
              "", f"Benchmark run took {took / 60:.1f} min.", END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="5 runs x 100 queries; print only")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--meta-runs", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    args = p.parse_args(argv)
    if args.quick:
        args.runs, args.queries, args.repeat, args.meta_runs = 5, 100, 1, 5
    started = time.time()
    c = bc.Collection(args.runs, args.queries, args.docs, args.seed)
    bc.ensure(c)
    machine = br.machine_info(Path(sys.executable).parent)
    advisor = Advisor()
    print(f"{c.folder.relative_to(br.REPO)}: {args.runs} runs x {args.queries} queries x {args.docs} docs")
    import warnings

    warnings.simplefilter("ignore")
    rows = measure(advisor, workflows(c, args.runs, min(args.meta_runs, args.runs)), args.repeat)
    if not args.quick:
        path = Path(args.output)
        bc.write_section(path, BEGIN, END, render(c, machine, rows, args.repeat, time.time() - started))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
