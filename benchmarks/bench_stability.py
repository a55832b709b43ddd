"""Benchmark: measure stability on ranks of test entities (evalgui-cli stability) against the original tool.

Whole, fresh processes (start-up, reading, every experiment, writing):

* the original's default experiment on its own example, testranks.txt (5 systems x 14 entities):
  ``--splits 2``, 50 iterations, 1,000 bootstrap samples, the 5 default significance levels,
  the 9 default measures, with ``-e`` (target: under 10 s on 2 cores);
* a generated 20-system x 2,000-entity rank file with the defaults (``--splits 10``; target:
  under 60 s on 2 cores);
* the original tool (its Python 3 port, which gives the same numbers, in ``../shared/peers``) on
  the small case in the same run, once (about 10 CPU-minutes). On the large case it needs about
  7 CPU-hours (the port's own measurement, extrapolated from whole iterations): not run here.

It also checks, on the small case, that ``--compat dunaiski2018`` gives the original's actual
values and its significance matrix of Average.

From the repository root, with the project's environment::

    python benchmarks/bench_stability.py --quick        # 10 iterations (the original: 2), print only
    python benchmarks/bench_stability.py                # writes its section of docs/benchmarks.md

evalgui runs from this checkout (``python -m evalgui.cli`` with the repository on PYTHONPATH).
The generated file goes to ``benchmarks/_data/`` (git-ignored). The machine's load average is
recorded before every measurement: on a shared machine the wall times are upper bounds and the
CPU times (user + system of every process of the run) are the figures to compare.
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402  (the measuring wrapper and machine report are shared)

BEGIN, END = "<!-- bench_stability:begin -->", "<!-- bench_stability:end -->"
SHARED = br.REPO.parent / "shared"
TESTRANKS = Path(os.environ.get("EVALGUI_CONFORMANCE", SHARED / "conformance")) / "ranking_evaluation" / "testranks.txt"
PORT = Path(os.environ.get("EVALGUI_PEERS", SHARED / "peers")) / "rankeval_py3" / "RankingEvaluation"
GENERATOR_VERSION = 1
SMALL_ARGS = ["--splits", "2", "-i", "50", "-b", "1000", "-e", "-n", "100000", "-p", "all"]
BIG_ARGS = ["-n", "100000", "-p", "all"]          # everything else at the defaults: --splits 10
SMALL_TARGET, BIG_TARGET = 10.0, 60.0
PORT_BIG_REFERENCE = "about 7 CPU-hours (6.9 h: 494 s per iteration x 50, the port's own measurement)"


@dataclass
class Timing:
    name: str
    case: str
    processes: int
    runs: list[br.Measurement] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    failed: str = ""

    @property
    def best(self) -> float:
        return min(m.wall for m in self.runs)

    @property
    def median(self) -> float:
        return float(np.median([m.wall for m in self.runs]))

    @property
    def cpu(self) -> float:
        return float(np.median([m.cpu for m in self.runs]))

    @property
    def rss(self) -> float:
        return max(m.rss_mb for m in self.runs)


def generate(path: Path, systems: int = 20, entities: int = 2000, top: int = 100_000, seed: int = 1) -> None:
    """Correlated systems: each entity has a latent log-rank, each system a bias and its own noise;
    ranks rounded, a few halves (ties), at most ``top``."""
    stamp = path.with_suffix(".params")
    params = f"{systems} {entities} {top} {seed} {GENERATOR_VERSION}"
    if path.exists() and stamp.exists() and stamp.read_text() == params:
        return
    rng = np.random.default_rng(seed)
    latent = rng.normal(6.5, 2.0, entities)
    bias = rng.normal(0.0, 0.3, systems)
    noise = rng.uniform(0.4, 1.2, systems)
    ranks = np.clip(np.round(np.exp(latent[:, None] + bias + rng.normal(0.0, 1.0, (entities, systems)) * noise)),
                    1, top)
    ranks = np.where((rng.random(ranks.shape) < 0.05) & (ranks > 1), ranks - 0.5, ranks)
    lines = ["Generated\t" + "\t".join(f"System{s + 1}" for s in range(systems))]
    lines += [f"Entity{e + 1}\t" + "\t".join(f"{v:g}" for v in row) for e, row in enumerate(ranks.tolist())]
    path.parent.mkdir(parents=True, exist_ok=True)
    br._write_atomic(path, "\n".join(lines) + "\n")
    stamp.write_text(params)


def evalgui_command(rank_file: Path, args: list[str], processes: int, out: Path, compat: bool = False) -> list[str]:
    return ["/usr/bin/env", f"PYTHONPATH={br.REPO}", sys.executable, "-m", "evalgui.cli", "stability", str(rank_file),
            *args, "-t", str(processes), "-o", str(out), "--format", "tsv",
            *(["--compat", "dunaiski2018"] if compat else [])]


def port_command(rank_file: Path, processes: int, out: Path, iterations: int = 50, boot: int = 1000) -> list[str]:
    """The original (its port) with the same experiment: seeded workers, the published measure set."""
    script = (f"cd {shlex.quote(str(PORT))} && exec {shlex.quote(sys.executable)} RankingEvaluation.py "
              f"-f {shlex.quote(str(rank_file))} --boot {boot} --iter {iterations} --threads {processes} --splits 2 "
              f"--seed 1 --printing all -n 100000 -e --measureset readme --seed-workers -o {shlex.quote(str(out))}")
    return ["/bin/sh", "-c", script]


def timed(timing: Timing, command: list[str], repeat: int) -> Timing:
    for i in range(repeat):
        timing.loads.append(os.getloadavg()[0])
        m = br.measure(command)
        if m.returncode != 0:
            timing.failed = (m.stderr.strip().splitlines() or ["?"])[-1]
            print(f"  {timing.name}: failed: {timing.failed}", flush=True)
            return timing
        timing.runs.append(m)
        print(f"  [{i + 1}/{repeat}] {timing.name}: wall {m.wall:.2f} s, CPU {m.cpu:.2f} s, "
              f"load {timing.loads[-1]:.2f}", flush=True)
    return timing


def tables(path: Path) -> list[list[str]]:
    """The tab-separated tables of an output (ours with -p all, or the original's), as lists of lines."""
    found, current = [], []
    for line in path.read_text().splitlines() + [""]:
        if line.strip() and not line.startswith("#") and line != "Results:":
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found


def check_against_the_original(ours: Path, theirs: Path) -> list[str]:
    import pandas as pd

    def frame(lines: list[str], text: bool = False) -> pd.DataFrame:
        return pd.read_csv(io.StringIO("\n".join(lines)), sep="\t", keep_default_na=False,
                           na_values=[] if text else ["", "nan"], dtype=str if text else None)

    mine, original = tables(ours), tables(theirs)
    a = frame(next(t for t in mine if t[0].startswith("measure\tSystem"))).set_index("measure")
    b = frame(next(t for t in original if t[0].startswith("Measure\t"))).set_index("Measure")
    same = sum(1 for m in b.index for s in b.columns
               if (pd.isna(a.loc[m, s]) and pd.isna(b.loc[m, s])) or round(a.loc[m, s], 4) == round(b.loc[m, s], 4))
    out = [f"- `--printing actual` with `--compat dunaiski2018` against the original's: {same} of {b.size} values "
           "agree to 4 decimals."]
    sign = frame(next(t for t in mine if "\tSystems\t" in t[0]), text=True)
    ours_average = [[c.strip() for c in row] for row in sign[sign.measure == "Average"].iloc[:, 5:].values.tolist()]
    block = next(t for t in original if t[0].startswith("Average\tSignificance"))
    theirs_average = [[c.strip() for c in line.split("\t")[1:]] for line in block[2:]]
    verdict = "the same marks" if ours_average == theirs_average else \
        f"different marks (evalgui {ours_average}, the original {theirs_average})"
    out.append(f"- The significance matrix of Average, `--compat dunaiski2018` against the original's: {verdict}.")
    return out


def render(machine: dict, timings: list[Timing], checks: list[str], took: float, started: str, end_load) -> str:
    lines = [BEGIN, "## Measure stability (benchmarks/bench_stability.py)", "",
             f"Produced on {started} (took {took / 60:.1f} min), commit {machine['commit']}, {machine['cpu']}, "
             f"{machine['usable_cores']} cores, Python {machine['python']}. The machine was shared: load average "
             f"{' / '.join(f'{x:.2f}' for x in machine['loadavg'])} (1 / 5 / 15 min) at the start, "
             f"{' / '.join(f'{x:.2f}' for x in end_load)} at the end, and as in the table before each "
             "measurement; so the wall times are upper bounds, and the CPU times (user + system of every process "
             "of the run) are the ones to compare.", "",
             "- Small: testranks.txt (5 systems x 14 entities), `--splits 2 -i 50 -b 1000 -e -n 100000 -p all`: "
             "5 significance levels x 9 measures x 50 iterations.",
             "- Large: a generated file of 20 systems x 2,000 entities, the defaults (`--splits 10`, 50 iterations, "
             "1,000 bootstrap samples, 5 levels, 9 measures) with `-n 100000 -p all`.",
             "- The reference: the original needs about 10 CPU-minutes for the small case and about 7 CPU-hours "
             "for the large one (its Python 3 port's own measurements, which give the same numbers: 654 s of CPU "
             "for the small case with `-e`; 494 s per iteration of the large one, 50 iterations).",
             "- `-t 2` allows two processes; evalgui starts the second only for work worth its start-up (about "
             "a second), so the small case runs in one either way. The original runs with `--threads 2`, seeded "
             "workers and the published measure set (`--measureset readme --seed-workers`, options of the port).",
             "",
             "| case | tool | `-t` | wall best (s) | wall median (s) | CPU (s) | peak RSS (MB) | load avg | target |",
             "|:---|:---|---:|---:|---:|---:|---:|---:|:---|"]
    for t in timings:
        if t.failed or not t.runs:
            lines.append(f"| {t.case} | {t.name} | {t.processes} | failed: {t.failed} | | | | | |")
            continue
        target = ""
        if t.name == "evalgui" and t.processes == 2:
            limit = SMALL_TARGET if t.case == "small" else BIG_TARGET
            target = f"< {limit:.0f} s: {'met' if t.median < limit else 'missed'}"
        loads = f"{min(t.loads):.1f}-{max(t.loads):.1f}" if len(t.loads) > 1 else f"{t.loads[0]:.1f}"
        lines.append(f"| {t.case} | {t.name} | {t.processes} | {t.best:.2f} | {t.median:.2f} | {t.cpu:.2f} | "
                     f"{t.rss:.0f} | {loads} | {target} |")
    lines.append(f"| large | the original (Python 3 port) | 1 | not run | | | | | {PORT_BIG_REFERENCE} |")
    lines += ["", *checks, END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="10 iterations, one repeat, the original on 2; print only")
    p.add_argument("--repeat", type=int, default=3, help="repeats of each evalgui run (default 3; large: 2)")
    p.add_argument("--no-original", action="store_true", help="do not run the original (about 10 CPU-minutes)")
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    args = p.parse_args(argv)
    if not TESTRANKS.exists():
        print(f"testranks.txt not found at {TESTRANKS} (set EVALGUI_CONFORMANCE)")
        return 2
    small_args, big_args, repeat = list(SMALL_ARGS), list(BIG_ARGS), args.repeat
    if args.quick:
        small_args[small_args.index("-i") + 1] = "10"
        big_args += ["-i", "10"]
        repeat = 1
    started_at = time.time()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started_at))
    machine = br.machine_info(Path(sys.executable).parent)
    big = br.REPO / "benchmarks" / "_data" / "stability_s20_e2000_seed1" / "ranks.txt"
    generate(big)
    timings, checks = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for processes in (2, 1):
            timings.append(timed(Timing("evalgui", "small", processes),
                                 evalgui_command(TESTRANKS, small_args, processes, tmp / "small.tsv"), repeat))
        compat = timed(Timing("evalgui --compat dunaiski2018", "small", 2),
                       evalgui_command(TESTRANKS, small_args, 2, tmp / "compat.tsv", compat=True), 1)
        timings.append(compat)
        for processes in (2, 1):
            timings.append(timed(Timing("evalgui", "large", processes),
                                 evalgui_command(big, big_args, processes, tmp / "big.tsv"),
                                 min(repeat, 2) if processes == 2 else 1))
        if not args.no_original:
            if (PORT / "RankingEvaluation.py").exists():
                # --quick: 2 iterations of 50 bootstrap samples, to try the whole benchmark out
                original = timed(Timing("the original (Python 3 port)", "small", 2),
                                 port_command(TESTRANKS, 2, tmp / "original.txt", *((2, 50) if args.quick else ())), 1)
                timings.append(original)
                if original.runs and compat.runs:
                    checks += check_against_the_original(tmp / "compat.tsv", tmp / "original.txt")
                    ours = min(t.cpu for t in timings if t.name == "evalgui" and t.case == "small" and t.runs)
                    checks.append(f"- The original needs {original.cpu:.0f} s of CPU for the small case, evalgui "
                                  f"{ours:.1f} s: {original.cpu / ours:.0f} times less.")
            else:
                print(f"the original's port is not at {PORT} (set EVALGUI_PEERS): not run")
    end_load = os.getloadavg()
    for t in timings:
        if t.runs:
            print(f"{t.case:5} {t.name:32} -t {t.processes}: best {t.best:.2f} s, median {t.median:.2f} s, "
                  f"CPU {t.cpu:.2f} s, RSS {t.rss:.0f} MB")
    for line in checks:
        print(line)
    if not args.quick:
        section = render(machine, timings, checks, time.time() - started_at, started, end_load)
        path = Path(args.output)
        text = path.read_text() if path.exists() else "# Benchmarks\n\n"
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            text = head + section + rest.split(END, 1)[1].lstrip("\n")
        else:
            text = text.rstrip("\n") + "\n\n" + section
        br._write_atomic(path, text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
