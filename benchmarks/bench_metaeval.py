"""Benchmark: the meta-evaluation experiments (evalgui.core.metaeval, evalgui-cli metaeval).

On bench_compare's collection (30 runs x 500 queries, graded qrels; five measures AP, nDCG@10,
P@10, R@100, RR), in one process, after reading the files and ranking the runs once:

* stability: 1,000 query sets of 250 queries for the 5 measures (target: under 10 s);
* discriminative power: Sakai's paired bootstrap, B = 1,000, every pair, 5 measures (under 10 s);
* robustness: 9 fractions x 10 repetitions of removed judgments, 5 measures (under 30 s);
* agreement between the 5 measures (no target);
* stability with its defaults (the curve over 10 set sizes x 1,000 sets x 5 repetitions), and the
  experiments on the 5 preference measures (rpp, dcgrpp, invrpp, lexirecall, lexiprecision: a value
  per pair of runs, so the query-set means are runs x runs wide);

then each as a whole ``evalgui-cli metaeval`` process (reading and ranking included), how soon
each stops after Cancel, and on a small case (10 runs x 100 queries) each experiment against a
straightforward Python loop over pairs, repetitions and samples written here, with the same
random draws: the ratio of their times, and a check that their numbers agree.

From the repository root::

    python benchmarks/bench_metaeval.py --quick     # 5 runs x 100 queries, print only
    python benchmarks/bench_metaeval.py             # writes its section of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bench_compare as bc  # noqa: E402  (the collection generator)
import bench_ranked as br  # noqa: E402  (the process wrapper and the machine report)

from evalgui.core.inputs import kind  # noqa: E402
from evalgui.core.jobs import Cancelled, JobState  # noqa: E402
from evalgui.core.metaeval import experiments as ex  # noqa: E402
from evalgui.core.metaeval.scores import RankedSource  # noqa: E402
from evalgui.core.ranked.evaluate import evaluate_run  # noqa: E402
from evalgui.core.ranked.specs import parse_measures  # noqa: E402
from evalgui.core.stats.significance import NOISE, resample_counts  # noqa: E402

MEASURES = list(bc.MEASURES)
PREFERENCES = ["rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision"]
BEGIN, END = "<!-- bench_metaeval:begin -->", "<!-- bench_metaeval:end -->"
TARGETS = {"stability": 10.0, "power": 10.0, "robustness": 30.0, "stability-default": 10.0}


def timed(fn, repeat: int) -> tuple[list[float], list[float], object]:
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return walls, cpus, result


def load(c: bc.Collection, runs: int):
    qrels = kind("qrels").read(str(c.qrels))
    return qrels, [kind("run").read(str(c.run(i))) for i in range(runs)]


def target_settings(queries: int) -> dict[str, ex.StabilitySettings | ex.PowerSettings | ex.RobustnessSettings |
                                          ex.AgreementSettings]:
    return {"stability": ex.StabilitySettings(set_sizes=(queries // 2,), sets=1000, repetitions=1),
            "power": ex.PowerSettings(test="bootstrap", samples=1000),
            "robustness": ex.RobustnessSettings(),
            "agreement": ex.AgreementSettings()}


def run_one(source, full, settings):
    return ex.run_experiment(source, settings, full=full)


def cancel_latency(source, full, settings, after: float) -> float:
    """Seconds from asking to stop (``after`` seconds into the experiment) until it has stopped."""
    stop = threading.Event()
    stopped = {}

    def work():
        try:
            ex.run_experiment(source, settings, JobState(is_cancelled=stop.is_set), full=full)
        except Cancelled:
            stopped["at"] = time.perf_counter()
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(after)
    asked = time.perf_counter()
    stop.set()
    thread.join()
    return stopped["at"] - asked if "at" in stopped else float("nan")    # NaN: it finished first


# ----------------------------------------------------------------------------- the plain loops

def naive_stability(scores: np.ndarray, size: int, sets: int, fuzziness: float, repetitions: int, seed: int):
    """Buckley & Voorhees by the book: per repetition, per query set, per pair, the means by hand.
    The query sets are drawn with the same random numbers as the engine (stability.query_sets: the
    set_size smallest of n random keys, one generator per set size and repetition)."""
    n, systems = scores.shape
    table = scores.tolist()
    rates = []
    for r in range(repetitions):
        keys = np.random.default_rng([seed, size, r]).random((sets, n))
        chosen = np.argpartition(keys, size - 1, axis=1)[:, :size].tolist()
        errors = ties = total = 0
        counts = {}
        for picked in chosen:
            means = [sum(table[q][s] for q in picked) / size for s in range(systems)]
            for i, j in itertools.combinations(range(systems), 2):
                a, b = means[i], means[j]
                c = counts.setdefault((i, j), [0, 0, 0])
                if abs(a - b) <= fuzziness * max(abs(a), abs(b)) + NOISE:
                    c[2] += 1
                elif a > b:
                    c[0] += 1
                else:
                    c[1] += 1
        for better, worse, equal in counts.values():
            errors += min(better, worse)
            ties += equal
            total += better + worse + equal
        rates.append((100 * errors / total, 100 * ties / total))
    return float(np.mean([r[0] for r in rates])), float(np.mean([r[1] for r in rates]))


def naive_power(scores: np.ndarray, samples: int, seed: int, alpha: float) -> int:
    """Sakai's bootstrap pair by pair, sample by sample (the same resampled queries as the engine)."""
    n, systems = scores.shape
    counts = resample_counts(n, samples, seed)
    draws = [np.repeat(np.arange(n), counts[b].astype(int)) for b in range(samples)]
    significant = 0
    for i, j in itertools.combinations(range(systems), 2):
        z = scores[:, i] - scores[:, j]
        if not (np.abs(z) > NOISE).any():
            continue
        sd = z.std(ddof=1)
        t_obs = abs(z.mean() / (sd / np.sqrt(n))) if sd > 0 else np.inf
        w = z - z.mean()
        hits = 0
        for b in range(samples):
            sample = w[draws[b]]
            s = sample.std(ddof=1)
            t = sample.mean() / (s / np.sqrt(n)) if s > 0 else 0.0
            hits += abs(t) >= t_obs * (1 - 1e-9)
        significant += hits / samples < alpha
    return significant


def naive_robustness(qrels, runs, source, fractions, repetitions: int, seed: int, measure: str):
    """Per repetition and fraction: the reduced qrels written out, every run ranked and evaluated again
    from scratch, scipy's Kendall's tau, and the flipped pairs counted pair by pair."""
    from scipy import stats

    requests = parse_measures([measure])
    full = np.array([evaluate_run(qrels, run, requests).summary[0] for run in runs])
    judgments = source.judgments
    ranks = judgments.removal_ranks(seed, range(repetitions), source.relevant)
    out = {}
    for fraction in fractions:
        removed = judgments.removed(ranks, fraction)
        taus, flips = [], []
        for r in range(repetitions):
            smaller = judgments.reduced_qrels(qrels, source.universe, removed[r])
            means = np.array([evaluate_run(smaller, run, requests).summary[0] for run in runs])
            taus.append(stats.kendalltau(full, means).statistic)
            pairs = list(itertools.combinations(range(len(runs)), 2))
            flips.append(100 * sum(np.sign(full[i] - full[j]) * np.sign(means[i] - means[j]) < 0
                                   for i, j in pairs) / len(pairs))
        out[fraction] = (float(np.mean(taus)), float(np.mean(flips)))
    return out


def naive_agreement(full) -> dict[tuple[str, str], tuple[float, float]]:
    """Pearson (both orders) and sign agreement by hand over every measure pair, system pair and query."""
    out = {}
    names = list(full)
    for a, b in itertools.product(names, names):
        x, y = full[a].scores.tolist(), full[b].scores.tolist()
        systems = len(full[a].systems)
        sxy = sxx = syy = 0.0
        same = cells = 0
        for i, j in itertools.combinations(range(systems), 2):
            for q in range(len(x)):
                dx, dy = x[q][i] - x[q][j], y[q][i] - y[q][j]
                sxy += dx * dy
                sxx += dx * dx
                syy += dy * dy
                sx = (dx > NOISE) - (dx < -NOISE)
                sy = (dy > NOISE) - (dy < -NOISE)
                same += sx == sy
                cells += 1
        out[(a, b)] = (sxy / (sxx * syy) ** 0.5, 100 * same / cells)
    return out


def against_loops(c: bc.Collection, runs: int) -> list[tuple[str, float, float, str]]:
    """(experiment, naive seconds, engine seconds, agreement) on the small case."""
    qrels, loaded = load(c, runs)
    rows = []
    w = time.perf_counter()
    source = RankedSource(qrels, loaded, MEASURES)
    full = source.measure_scores()
    prepare = time.perf_counter() - w

    n = len(full["AP"].queries)
    settings = ex.StabilitySettings(set_sizes=(n // 2,), sets=200, repetitions=2, seed=3)
    w = time.perf_counter()
    ours = ex.stability_experiment(full, settings).table
    mine = time.perf_counter() - w
    w = time.perf_counter()
    theirs = [naive_stability(full[m].scores, n // 2, 200, 0.05, 2, 3) for m in MEASURES]
    naive = time.perf_counter() - w
    worst = max(max(abs(a - b[0]), abs(t - b[1])) for a, t, b in
                zip(ours["error_rate"], ours["tie_rate"], theirs))
    rows.append(("stability (200 sets of n/2, 2 repetitions)", naive, mine, f"rates equal within {worst:.1e}"))

    settings = ex.PowerSettings(test="bootstrap", samples=1000, seed=5)
    w = time.perf_counter()
    ours = ex.power_experiment(full, settings).table["significant_pairs"].tolist()
    mine = time.perf_counter() - w
    w = time.perf_counter()
    theirs = [naive_power(full[m].scores, 1000, 5, 0.05) for m in MEASURES]
    naive = time.perf_counter() - w
    rows.append(("power (bootstrap B=1,000)", naive, mine,
                 "same significant pairs" if ours == theirs else f"DIFFER: {ours} vs {theirs}"))

    fractions, reps = (0.3, 0.6, 0.9), 3
    settings = ex.RobustnessSettings(fractions=fractions, repetitions=reps, seed=9)
    w = time.perf_counter()
    table = ex.robustness_experiment(source, settings, full=full).table
    mine = time.perf_counter() - w + prepare        # the engine's ranking once is part of its cost
    w = time.perf_counter()
    theirs = {m: naive_robustness(qrels, loaded, source, fractions, reps, 9, m) for m in MEASURES}
    naive = time.perf_counter() - w
    worst = max(max(abs(row.kendall_tau - theirs[row.measure][row.fraction][0]),
                    abs(row.flipped_pairs - theirs[row.measure][row.fraction][1]))
                for row in table.itertuples())
    rows.append((f"robustness ({len(fractions)} fractions x {reps} repetitions; ranking included)", naive, mine,
                 f"tau and flips equal within {worst:.1e}"))

    w = time.perf_counter()
    table = ex.agreement_experiment(full).table
    mine = time.perf_counter() - w
    w = time.perf_counter()
    theirs = naive_agreement(full)
    naive = time.perf_counter() - w
    worst = max(max(abs(row.pearson - theirs[(row.measure_a, row.measure_b)][0]),
                    abs(row.sign_agreement - theirs[(row.measure_a, row.measure_b)][1]))
                for row in table.itertuples())
    rows.append(("agreement", naive, mine, f"equal within {worst:.1e}"))
    return rows


# ----------------------------------------------------------------------------- report

def render(c: bc.Collection, small: bc.Collection, machine: dict, load_end: tuple, steps: list, engine: list,
           processes: list, cancels: dict, loops: list, took: float) -> str:
    lines = [BEGIN, "## Meta-evaluation (`benchmarks/bench_metaeval.py`)", "",
             f"Collection (bench_compare's generator): {c.runs} runs x {c.queries} queries x {c.docs} documents "
             f"per query, graded qrels (about 30 judgments per query); measures {', '.join(MEASURES)}. "
             f"Machine: {machine['cpu']}, {machine['usable_cores']} cores, Python {machine['python']}; commit "
             f"{machine['commit']}. **Shared and loaded**: load average {machine['loadavg'][0]:.2f} / "
             f"{machine['loadavg'][1]:.2f} / {machine['loadavg'][2]:.2f} when the run began, "
             f"{load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f} when it ended, on "
             f"{machine['usable_cores']} cores: these times are upper bounds.", "",
             "In one process; the experiments start from the runs ranked once (`RankedSource`):", "",
             "| Step | Best (s) | Median (s) | CPU median (s) | Target |", "|:---|---:|---:|---:|:---|"]
    for name, walls, cpus in steps:
        lines.append(f"| {name} | {min(walls):.2f} | {statistics.median(walls):.2f} | "
                     f"{statistics.median(cpus):.2f} | |")
    for name, label, walls, cpus in engine:
        target = TARGETS.get(name)
        verdict = f"< {target:.0f} s: {'met' if statistics.median(walls) < target else 'MISSED'}" if target else ""
        lines.append(f"| {label} | {min(walls):.2f} | {statistics.median(walls):.2f} | "
                     f"{statistics.median(cpus):.2f} | {verdict} |")
    lines += ["", "Whole `evalgui-cli metaeval` processes (start-up, reading the files, ranking, the experiment, "
              "writing the CSV):", "", "| Command | Best (s) | Median (s) | CPU median (s) | Peak RSS (MB) |",
              "|:---|---:|---:|---:|---:|"]
    for r in processes:
        if r.ok:
            lines.append(f"| `{r.note}` | {r.best:.2f} | {r.median:.2f} | {r.cpu:.2f} | {r.rss_mb:.0f} |")
        else:
            lines.append(f"| `{r.note}` | - | - | - | {r.skipped or r.failed} |")
    lines += ["", "Cancel: seconds from asking to stop, part-way through, until the experiment has stopped "
              "(the workspace's promise is half a second): " +
              ", ".join(f"{name} {value:.3f} s" if value == value else f"{name}: done before the request"
                        for name, value in cancels.items()) + ".", "",
              f"Against a plain Python loop (written in the benchmark: per pair, per query set, per repetition, per "
              f"bootstrap sample; robustness evaluates every run again from scratch on each reduced qrels) on a small "
              f"case, {small.runs} runs x {small.queries} queries, the same random draws:", "",
              "| Experiment | Loop (s) | evalgui (s) | Ratio | Same numbers |", "|:---|---:|---:|---:|:---|"]
    for name, naive, mine, agree in loops:
        lines.append(f"| {name} | {naive:.2f} | {mine:.3f} | {naive / mine:.0f}x | {agree} |")
    lines += ["", f"Benchmark run took {took / 60:.1f} min.", END, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="5 runs x 100 queries, one repeat; print only")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    args = p.parse_args(argv)
    if args.quick:
        args.runs, args.queries, args.repeat = 5, 100, 1
    started = time.time()
    c = bc.Collection(args.runs, args.queries, args.docs, args.seed)
    small = bc.Collection(10, 100, args.docs, args.seed)
    for collection in (c, small):
        bc.ensure(collection)
    machine = br.machine_info(Path(sys.executable).parent)
    print(f"{c.folder.relative_to(br.REPO)}; load average {os.getloadavg()}", flush=True)

    steps = []
    walls, cpus, (qrels, runs) = timed(lambda: load(c, args.runs), args.repeat)
    steps.append((f"read the qrels and {args.runs} runs", walls, cpus))
    walls, cpus, source = timed(lambda: RankedSource(qrels, runs, MEASURES), args.repeat)
    steps.append(("rank every run once (`RankedSource`)", walls, cpus))
    walls, cpus, full = timed(source.measure_scores, args.repeat)
    steps.append(("5 measures with the full judgments", walls, cpus))
    for s in steps:
        print(f"  {s[0]:<45} {min(s[1]):7.2f} s", flush=True)

    settings = target_settings(args.queries)
    labels = {"stability": f"stability: 1,000 query sets of {args.queries // 2}, 5 measures",
              "power": "power: bootstrap B = 1,000, every pair, 5 measures",
              "robustness": "robustness: 9 fractions x 10 repetitions, 5 measures",
              "agreement": "agreement: every two of the 5 measures"}
    engine = []
    for name, s in settings.items():
        walls, cpus, _ = timed(lambda: run_one(source, full, s), args.repeat)
        engine.append((name, labels[name], walls, cpus))
        print(f"  {labels[name]:<55} {min(walls):7.2f} s (median {statistics.median(walls):.2f})", flush=True)
    default = ex.StabilitySettings()
    curve = f"the curve ({len(ex.default_set_sizes(args.queries))} set sizes) x 1,000 sets x 5 repetitions"
    walls, cpus, _ = timed(lambda: run_one(source, full, default), args.repeat)
    engine.append(("stability-default", f"stability, defaults: {curve}, 5 measures", walls, cpus))
    print(f"  {engine[-1][1]:<55} {min(walls):7.2f} s", flush=True)

    # The preference measures: ranked once more (a source of their own), then the same experiments.
    walls, cpus, preferences = timed(lambda: RankedSource(qrels, runs, PREFERENCES), args.repeat)
    steps.append(("rank every run once for the 5 preference measures", walls, cpus))
    walls, cpus, preferred = timed(preferences.measure_scores, args.repeat)
    steps.append(("5 preference measures with the full judgments (every pair of runs)", walls, cpus))
    for name, label, s in (("stability-default", f"stability, defaults: {curve}, 5 preference measures", default),
                           ("power", "power: bootstrap B = 1,000, every pair, 5 preference measures",
                            settings["power"]),
                           ("robustness", "robustness: 9 fractions x 10 repetitions, 5 preference measures",
                            settings["robustness"]),
                           ("agreement", "agreement: every two of the 5 preference measures", settings["agreement"])):
        walls, cpus, _ = timed(lambda: run_one(preferences, preferred, s), args.repeat)
        engine.append((f"{name}-preferences", label, walls, cpus))
        print(f"  {label:<55} {min(walls):7.2f} s", flush=True)

    cancels = {}
    for name, s in (*settings.items(), ("stability-default", default)):
        if name == "agreement":
            continue
        took = statistics.median(next(e[2] for e in engine if e[0] == name))
        cancels[name] = cancel_latency(source, full, s, 0.4 * took)
    print(f"  cancel latency: {cancels}", flush=True)

    env = {**os.environ, "PYTHONPATH": str(br.REPO)}
    processes = []
    tools = []
    with __import__("tempfile").TemporaryDirectory() as tmp:
        for name, extra in (("stability", ["--set-size", str(args.queries // 2), "--repetitions", "1"]),
                            ("power", ["--samples", "1000"]), ("robustness", []), ("agreement", [])):
            cmd = [sys.executable, "-m", "evalgui.cli", "metaeval", str(c.qrels),
                   *[str(c.run(i)) for i in range(args.runs)], *[a for m in MEASURES for a in ("-m", m)],
                   "--experiment", name, *extra, "-o", str(Path(tmp) / f"{name}.csv")]
            tool = br.Tool(f"evalgui-cli metaeval --experiment {name}", "", cmd, lambda m: {}, env=env)
            tool.note = (f"evalgui-cli metaeval QRELS RUN x{args.runs} -m ... x5 --experiment {name} "
                         + " ".join(extra)).strip()
            tools.append(tool)
        processes = br.run_tools(tools, args.repeat)
    for t, r in zip(tools, processes):
        r.note = t.note

    print("small case against plain loops ...", flush=True)
    loops = against_loops(small, small.runs)
    for row in loops:
        print(f"  {row[0]:<60} loop {row[1]:7.2f} s, evalgui {row[2]:7.3f} s, {row[1] / row[2]:6.0f}x; {row[3]}")

    if not args.quick:
        section = render(c, small, machine, os.getloadavg(), steps, engine, processes, cancels, loops,
                         time.time() - started)
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
