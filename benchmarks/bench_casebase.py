"""Benchmark: case-based retrieval's ground truth and a MAC/FAC sweep, against CBRkit and a per-pair Python loop.

A synthetic case base (seeded, written to ``benchmarks/_data/``, git-ignored): 50,000 train
cases and 500 test cases (queries), 10 attributes: 6 numeric (linear x3, asymmetric,
exponential, threshold), 2 categorical (equality, a similarity table), 1 set-valued
(Jaccard index) and 1 short text (normalised Levenshtein). Measured, each in a fresh process:

* ``evalgui-cli casebase`` computing the ground truth (every test x train similarity, each
  query's list ordered): target under 15 s on 2 cores with peak memory under 4 GB; also with
  ``--export-ground-truth`` (25 million rows of CSV);
* CBRkit (``cbrkit.retrieval``, ``attribute_value`` with the same local similarities and
  weights) on a sample of queries, in the same run: seconds per query and the ratio to
  evalgui's; CBRkit needs Python >= 3.12, so it runs in its own virtualenv (``--cbrkit-python``,
  default ``/work/venv-cbrkit/bin/python`` or ``$CBRKIT_PYTHON``) and is skipped with a message
  when there is none;
* a straightforward per-pair Python loop of the same model, as a second reference;
* the MAC/FAC sweep (MAC: price and make; filter sizes 50..5,000, k = 10): each pair's real
  wall time, speed-up over the linear retriever at k = 10, and quality.

Both references' similarities are checked against evalgui's ground truth (largest difference).
The machine's load average is recorded (the numbers are upper bounds on a loaded machine).

    python benchmarks/bench_casebase.py --quick   # 50 x 5,000, print only
    python benchmarks/bench_casebase.py           # writes its section of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402  (the measuring wrapper and the machine report are shared)

BEGIN, END = "<!-- bench_casebase:begin -->", "<!-- bench_casebase:end -->"
GENERATOR_VERSION = 1
MAKES = [f"make{i:02d}" for i in range(30)]
COLORS = ["black", "white", "silver", "grey", "blue", "red", "green", "yellow", "orange", "brown", "beige", "purple"]
FEATURES = [f"feature{i:02d}" for i in range(40)]
SYLLABLES = ["ka", "to", "mi", "ra", "ne", "so", "lu", "ve", "di", "po", "xa", "ze", "qui", "bo", "fa", "ri"]
COLOR_TABLE = {"black": {"grey": 0.6, "brown": 0.3}, "white": {"silver": 0.7, "beige": 0.6, "grey": 0.4},
               "silver": {"grey": 0.8}, "blue": {"purple": 0.4, "green": 0.2}, "red": {"orange": 0.6, "purple": 0.3},
               "yellow": {"orange": 0.5, "beige": 0.3}}
MODEL = {"attributes": [
    {"name": "price", "type": "numeric", "measure": "linear", "weight": 3, "parameters": {"range": 100000}},
    {"name": "year", "type": "numeric", "measure": "asymmetric", "weight": 1,
     "parameters": {"better": "more", "range": 30}},
    {"name": "mileage", "type": "numeric", "measure": "linear", "weight": 1, "parameters": {"range": 300000}},
    {"name": "power", "type": "numeric", "measure": "exponential", "weight": 1, "parameters": {"alpha": 0.01}},
    {"name": "doors", "type": "numeric", "measure": "threshold", "weight": 0.5, "parameters": {"threshold": 1}},
    {"name": "consumption", "type": "numeric", "measure": "linear", "weight": 1, "parameters": {"range": 15}},
    {"name": "make", "type": "categorical", "measure": "equality", "weight": 2},
    {"name": "color", "type": "categorical", "measure": "table", "weight": 1, "parameters": {"table": COLOR_TABLE}},
    {"name": "features", "type": "set", "measure": "jaccard_index", "weight": 2},
    {"name": "model", "type": "text", "measure": "normalized_levenshtein", "weight": 1},
]}
MAC_MODEL = {"attributes": [MODEL["attributes"][0], MODEL["attributes"][6]]}
FILTER_SIZES, KS = (50, 200, 1000, 5000), (10, 10, 10, 10)
SWEEP_METRICS = ("hits_normalized", "quality_mueller", "quality_stromer")


@dataclass(frozen=True)
class Data:
    train: int
    test: int
    seed: int

    @property
    def folder(self) -> Path:
        return br.REPO / "benchmarks" / "_data" / f"casebase_t{self.train}_q{self.test}_s{self.seed}_v{GENERATOR_VERSION}"

    def path(self, name: str) -> Path:
        return self.folder / name


def _cases(rng: np.random.Generator, n: int, prefix: str) -> str:
    price = rng.integers(2, 200, n) * 500
    year = rng.integers(1995, 2025, n)
    mileage = rng.integers(0, 300, n) * 1000
    power = rng.integers(40, 400, n)
    doors = rng.choice([2, 3, 4, 5], n)
    consumption = np.round(rng.uniform(3, 15, n), 1)
    make = rng.choice(MAKES, n)
    color = rng.choice(COLORS, n)
    sizes = rng.integers(1, 7, n)
    words = rng.integers(2, 5, n)
    out = io.StringIO()
    out.write("id,price,year,mileage,power,doors,consumption,make,color,features,model\n")
    for i in range(n):
        features = ";".join(sorted(rng.choice(FEATURES, sizes[i], replace=False).tolist()))
        model = "".join(rng.choice(SYLLABLES, words[i]).tolist()) + f" {rng.integers(1, 10)}"
        out.write(f"{prefix}{i},{price[i]},{year[i]},{mileage[i]},{power[i]},{doors[i]},{consumption[i]},"
                  f"{make[i]},{color[i]},{features},{model}\n")
    return out.getvalue()


def ensure(data: Data) -> None:
    if data.path("model.json").exists():
        return
    data.folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(data.seed)
    data.path("train.csv").write_text(_cases(rng, data.train, ""))
    data.path("test.csv").write_text(_cases(rng, data.test, "q"))
    data.path("mac_model.json").write_text(json.dumps(MAC_MODEL, indent=1))
    data.path("model.json").write_text(json.dumps(MODEL, indent=1))


# ---------------------------------------------------------------- the references (run as scripts)

# Shared by the CBRkit script and the per-pair loop: reading the cases and the model's local similarities.
COMMON = r"""
import csv, json, math, sys, time
from rapidfuzz.distance import Levenshtein

def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cases = {}
    for r in rows:
        cases[r["id"]] = {"price": float(r["price"]), "year": float(r["year"]), "mileage": float(r["mileage"]),
                          "power": float(r["power"]), "doors": float(r["doors"]),
                          "consumption": float(r["consumption"]), "make": r["make"], "color": r["color"],
                          "features": frozenset(r["features"].split(";")), "model": r["model"]}
    return cases

model = json.load(open(sys.argv[3]))
weights = {a["name"]: a["weight"] for a in model["attributes"]}
table = {}
for a in model["attributes"]:
    if a["measure"] == "table":
        for x, row in a["parameters"]["table"].items():
            for y, s in row.items():
                table[(x, y)] = s
                table.setdefault((y, x), s)

def linear(span):
    return lambda x, y: max(0.0, 1.0 - abs(x - y) / span)

def newer_is_better(span):
    return lambda q, c: 1.0 if c >= q else max(0.0, 1.0 - abs(q - c) / span)

def color_table(x, y):
    return 1.0 if x == y else table.get((x, y), 0.0)

def jaccard_index(x, y):
    return len(x & y) / len(x | y) if x or y else 1.0

LOCAL = {"price": linear(100000), "year": newer_is_better(30), "mileage": linear(300000),
         "power": lambda x, y: math.exp(-0.01 * abs(x - y)), "doors": lambda x, y: 1.0 if abs(x - y) <= 1 else 0.0,
         "consumption": linear(15), "make": lambda x, y: 1.0 if x == y else 0.0, "color": color_table,
         "features": jaccard_index, "model": Levenshtein.normalized_similarity}
train, test = read(sys.argv[1]), read(sys.argv[2])
queries = list(test)[:int(sys.argv[4])]
"""

LOOP_SCRIPT = COMMON + r"""
total = sum(weights.values())
def similarity(q, c):
    return sum(weights[a] * LOCAL[a](q[a], c[a]) for a in LOCAL) / total

seconds, sims = [], {}
for qid in queries:
    q = test[qid]
    start = time.perf_counter()
    scores = {cid: similarity(q, c) for cid, c in train.items()}
    ranking = sorted(scores, key=lambda cid: -scores[cid])
    seconds.append(time.perf_counter() - start)
    sims[qid] = scores
json.dump({"seconds": seconds, "sims": sims}, open(sys.argv[5], "w"))
"""

CBRKIT_SCRIPT = COMMON + r"""
import cbrkit
# CBRkit's own numeric functions where one is the same function; plain callables elsewhere (its
# jaccard is 1/(1 + distance), its levenshtein rapidfuzz's Indel ratio: other functions).
LOCAL["price"] = cbrkit.sim.numbers.linear(100000)
LOCAL["mileage"] = cbrkit.sim.numbers.linear(300000)
LOCAL["consumption"] = cbrkit.sim.numbers.linear(15)
LOCAL["power"] = cbrkit.sim.numbers.exponential(0.01)
LOCAL["doors"] = cbrkit.sim.numbers.threshold(1)
LOCAL["make"] = cbrkit.sim.generic.equality()
# CBRkit calls a similarity as sim(case, query): the asymmetric one takes them the other way round.
_newer = LOCAL["year"]
LOCAL["year"] = lambda c, q: _newer(q, c)
sim = cbrkit.sim.attribute_value(attributes=LOCAL, aggregator=cbrkit.sim.aggregator("mean", weights))
retriever = cbrkit.retrieval.build(sim)
seconds, sims = [], {}
for qid in queries:
    start = time.perf_counter()
    result = cbrkit.retrieval.apply_query(train, test[qid], retriever)
    seconds.append(time.perf_counter() - start)
    sims[qid] = {cid: float(getattr(s, "value", s)) for cid, s in result.similarities.items()}
json.dump({"seconds": seconds, "sims": sims, "version": cbrkit.__version__ if hasattr(cbrkit, "__version__") else ""},
          open(sys.argv[5], "w"))
"""


def cbrkit_python(given: str | None) -> tuple[str | None, str]:
    """A Python >= 3.12 that imports cbrkit, or (None, why not)."""
    candidates = [given, os.environ.get("CBRKIT_PYTHON"), "/work/venv-cbrkit/bin/python", sys.executable]
    for python in filter(None, candidates):
        if not Path(python).exists():
            continue
        probe = subprocess.run([python, "-c", "import sys, importlib.metadata as m; import cbrkit; "
                                              "print(sys.version.split()[0], m.version('cbrkit'))"],
                               capture_output=True, text=True)
        if probe.returncode == 0:
            return python, probe.stdout.strip()
    return None, ("CBRkit not measured: it needs Python >= 3.12 with cbrkit installed (pip install cbrkit; "
                  f"this is Python {sys.version.split()[0]}); give one with --cbrkit-python")


def reference(python: str, script: str, data: Data, queries: int, out: Path) -> tuple[br.Measurement, dict]:
    measured = br.measure([python, "-c", script, str(data.path("train.csv")), str(data.path("test.csv")),
                           str(data.path("model.json")), str(queries), str(out)])
    if measured.returncode != 0:
        raise RuntimeError(measured.stderr.strip().splitlines()[-1] if measured.stderr.strip() else "failed")
    return measured, json.loads(out.read_text())


def agreement(theirs: dict, ground_truth: Path) -> float:
    """The largest difference between a reference's similarities and evalgui's ground truth."""
    import pandas as pd

    gt = pd.read_csv(ground_truth, dtype={"query_id": str, "case_id": str})
    gt = gt[gt["query_id"].isin(list(theirs))]
    mine = {(q, c): s for q, c, s in zip(gt["query_id"], gt["case_id"], gt["similarity"])}
    return max(abs(mine[(q, c)] - s) for q, per in theirs.items() for c, s in per.items())


# ---------------------------------------------------------------- evalgui

def evalgui(data: Data, extra: list[str], out: Path) -> br.Measurement:
    command = [sys.executable, "-m", "evalgui.cli", "casebase", "--train", str(data.path("train.csv")),
               "--test", str(data.path("test.csv")), "--model", str(data.path("model.json")), *extra, "-o", str(out)]
    env = dict(os.environ, PYTHONPATH=str(br.REPO))
    measured = br.measure(command, env=env)
    if measured.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {measured.stderr.strip()}")
    return measured


def ground_truth_seconds(data: Data) -> tuple[float, float]:
    """The ground truth's own time, in this process: (every similarity and the ordering, seconds; of it the
    similarities). Reading the case bases is left out."""
    sys.path.insert(0, str(br.REPO))
    from evalgui.core.cbr import retrieval
    from evalgui.core.cbr.model import Scorer, load_model
    from evalgui.core.inputs.case_base import read_case_base

    train, test = read_case_base(data.path("train.csv")), read_case_base(data.path("test.csv"))
    bases = retrieval.CaseBases.of(test, train, exclude_self=False)
    scorer = Scorer(load_model(data.path("model.json"), train), bases.test, bases.train)
    start = time.perf_counter()
    for q in bases.blocks():
        scorer.block(q)
    similarities = time.perf_counter() - start
    _, seconds, _ = retrieval.linear(scorer, bases)
    return float(seconds.sum()), similarities


# ---------------------------------------------------------------- report

def render(data: Data, machine: dict, rows: list[str], checks: list[str], sweep: list[str], took: float,
           load_after: tuple) -> str:
    return "\n".join([
        BEGIN, "## Case-based retrieval (`benchmarks/bench_casebase.py`)", "",
        f"Case base: {data.train:,} train cases, {data.test:,} queries ({data.train * data.test:,} pairs), 10 "
        "attributes: 6 numeric (linear x3, asymmetric, exponential, threshold), 2 categorical (equality, a "
        "similarity table), 1 set (Jaccard index), 1 short text (normalised Levenshtein). "
        f"Machine: {machine['cpu']}, {machine['usable_cores']} cores, Python {machine['python']}, "
        f"commit {machine['commit']}. The machine was shared: load average {machine['loadavg'][0]:.2f} "
        f"at the start, {load_after[0]:.2f} at the end, so these are upper bounds. Whole fresh processes "
        "(start-up and reading the case bases included) unless said otherwise.", "",
        "| What | Wall (s) | CPU (s) | Peak RSS (MB) | Per query (s) |", "|:---|---:|---:|---:|---:|",
        *rows, "", *checks, "",
        "MAC/FAC sweep (MAC: price and make; FAC: the full model; k = 10), each pair timed on its own, the "
        "linear retriever's top 10 as reference:", "",
        "| Retriever | Filter size | k | Retrieval (s) | Speed-up | hits_normalized | quality_mueller | "
        "quality_stromer | mac_recall |", "|:---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *sweep, "", f"Benchmark run took {took / 60:.1f} min.", END, ""])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="5,000 train x 50 test cases; print only")
    p.add_argument("--train", type=int, default=50_000)
    p.add_argument("--test", type=int, default=500)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--sample", type=int, default=3, help="queries given to CBRkit and the Python loop (default 3)")
    p.add_argument("--cbrkit-python", help="a Python >= 3.12 with cbrkit installed")
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    args = p.parse_args(argv)
    if args.quick:
        args.train, args.test = 5_000, 50
    started = time.time()
    data = Data(args.train, args.test, args.seed)
    ensure(data)
    machine = br.machine_info(Path(sys.executable).parent)
    print(f"{data.folder.relative_to(br.REPO)}: load average {machine['loadavg'][0]:.2f}")
    rows, checks, sweep = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gt_run = evalgui(data, ["--ks", "10", "-m", "hits"], tmp / "linear.csv")
        in_process, similarities = ground_truth_seconds(data)
        ours_per_query = in_process / data.test
        rows.append(f"| evalgui-cli casebase: ground truth + linear top 10 | {gt_run.wall:.2f} | {gt_run.cpu:.2f} | "
                    f"{gt_run.rss_mb:.0f} | {gt_run.wall / data.test:.4f} |")
        rows.append(f"| of which the ground truth alone (in process: similarities {similarities:.2f} s, then "
                    f"ordering every list) | {in_process:.2f} | | | {ours_per_query:.4f} |")
        exported = tmp / "gt.csv"
        export_run = evalgui(data, ["--ks", "10", "-m", "hits", "--export-ground-truth", str(exported)],
                             tmp / "linear2.csv")
        rows.append(f"| the same with --export-ground-truth ({data.train * data.test:,} rows of CSV) | "
                    f"{export_run.wall:.2f} | {export_run.cpu:.2f} | {export_run.rss_mb:.0f} | |")
        top10 = tmp / "top10.csv"                    # a retriever's top 10, as an imported file
        import pandas as pd

        pd.read_csv(exported, dtype=str).groupby("query_id", sort=False).head(10).to_csv(top10, index=False)
        reread = br.measure([sys.executable, "-m", "evalgui.cli", "similarity", "--ground-truth", str(exported),
                             "--predicted", f"top10={top10}", "-k", "10", "-o", str(tmp / "similarity.csv")],
                            env=dict(os.environ, PYTHONPATH=str(br.REPO)))
        if reread.returncode != 0:
            raise RuntimeError(reread.stderr)
        rows.append(f"| evalgui-cli similarity: that ground truth file against a top-10 file, every metric | "
                    f"{reread.wall:.2f} | {reread.cpu:.2f} | {reread.rss_mb:.0f} | |")
        target = "meets" if gt_run.wall < 15 and gt_run.rss_mb < 4096 else "misses"
        checks.append(f"- Target (ground truth for {data.test} x {data.train:,} under 15 s, peak memory under "
                      f"4 GB): {target} it ({gt_run.wall:.1f} s, {gt_run.rss_mb:,.0f} MB, the whole command).")
        loop, loop_out = reference(sys.executable, LOOP_SCRIPT, data, args.sample, tmp / "loop.json")
        loop_per_query = float(np.mean(loop_out["seconds"]))
        rows.append(f"| per-pair Python loop, {args.sample} queries | {loop.wall:.2f} | {loop.cpu:.2f} | "
                    f"{loop.rss_mb:.0f} | {loop_per_query:.2f} |")
        checks.append(f"- Per-pair Python loop: {loop_per_query:.2f} s per query, {loop_per_query / ours_per_query:,.0f}x "
                      f"evalgui's ground truth per query; similarities agree within "
                      f"{agreement(loop_out['sims'], exported):.1e}.")
        python, about = cbrkit_python(args.cbrkit_python)
        if python is None:
            checks.append(f"- {about}.")
            print(about)
        else:
            kit, kit_out = reference(python, CBRKIT_SCRIPT, data, args.sample, tmp / "cbrkit.json")
            kit_per_query = float(np.mean(kit_out["seconds"]))
            rows.append(f"| CBRkit {about.split()[1]} (Python {about.split()[0]}), {args.sample} queries | "
                        f"{kit.wall:.2f} | {kit.cpu:.2f} | {kit.rss_mb:.0f} | {kit_per_query:.2f} |")
            ratios = ", ".join(f"{s / ours_per_query:,.0f}x" for s in kit_out["seconds"])
            checks.append(f"- CBRkit: {kit_per_query:.2f} s per query (one process, as it runs by default), "
                          f"{kit_per_query / ours_per_query:,.0f}x evalgui's ground truth per query (per sampled "
                          f"query: {ratios}); {data.test} queries would take it about "
                          f"{kit_per_query * data.test / 60:.0f} min. Similarities agree within "
                          f"{agreement(kit_out['sims'], exported):.1e}.")
        sweep_args = ["--mac-model", str(data.path("mac_model.json")), "--filter-sizes",
                      ",".join(map(str, FILTER_SIZES)), "--ks", ",".join(map(str, KS)), *sum((["-m", m] for m in
                                                                                           SWEEP_METRICS), [])]
        evalgui(data, sweep_args, tmp / "sweep.csv")
        import pandas as pd

        table = pd.read_csv(tmp / "sweep.csv", dtype={"filter_size": "Int64"})
        for (name, f), rows_of in table.groupby(["retriever", "filter_size"], dropna=False, sort=False):
            v = rows_of.set_index("metric")["value"]
            recall = f"{v['mac_recall']:.4f}" if "mac_recall" in v else ""
            sweep.append(f"| {name} | {'' if pd.isna(f) else f} | 10 | {v['retrieval_seconds']:.2f} | "
                         f"{v['speedup']:.1f}x | {v['hits_normalized']:.4f} | {v['quality_mueller']:.4f} | "
                         f"{v['quality_stromer']:.4f} | {recall} |")
    load_after = os.getloadavg()
    for line in rows + checks + sweep:
        print(line)
    if not args.quick:
        section = render(data, machine, rows, checks, sweep, time.time() - started, load_after)
        path = Path(args.output)
        text = path.read_text() if path.exists() else "# Benchmarks\n\n"
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            text = head + section + rest.split(END, 1)[1].lstrip("\n")
        else:
            text = text.rstrip("\n") + "\n\n" + section
        path.write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
