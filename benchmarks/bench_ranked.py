"""Benchmark: evalgui against pytrec_eval, ir_measures and ranx on one synthetic collection.

Every tool runs as a whole, fresh process that reads the same TREC qrels and
run files and computes AP, nDCG@10, P@10, R@100 and RR; we report its wall
time (best and median of ``--repeat``), CPU time and peak resident memory,
check that the tools agree on the five means, and time evalgui in-process
(load run + qrels, then every trec_eval measure, ``all_trec``).

Three runs are timed: the sorted run, the same lines shuffled, and a run with
tied scores (rounded to 4 significant digits) and each query's lines shuffled,
as BM25 systems write them. When a trec_eval 10.0 binary is given
(``--trec-eval``, ``$EVALGUI_TREC_EVAL`` or ``trec_eval`` on PATH) it is timed
on the sorted and the tied run too. Build it outside the repository, e.g.
``git clone -b v10.0 https://github.com/usnistgov/trec_eval /tmp/trec_eval && make -C /tmp/trec_eval``.

Set up a separate virtualenv (the project's own test environment stays clean)::

    python3 -m venv /tmp/benchvenv
    /tmp/benchvenv/bin/pip install -e . pytrec-eval-terrier ir_measures ranx

then, from the repository root::

    /tmp/benchvenv/bin/python benchmarks/bench_ranked.py --quick      # ~200 queries, smoke run, writes nothing
    /tmp/benchvenv/bin/python benchmarks/bench_ranked.py              # full size, writes docs/benchmarks.md

The tools are run from the directory of the interpreter running this script
(``--bin-dir`` to change it); a peer that is not installed there is skipped
and marked so in the table. The synthetic data is generated deterministically
(``--seed``) into ``benchmarks/_data/`` (git-ignored) and reused while the
parameters stay the same.

How memory is measured: each measurement starts a fresh, small Python wrapper
that runs the tool with ``subprocess`` and then reads
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``; the wrapper has waited for
exactly one child, so that is the tool process's peak RSS. Wall time is taken
in the wrapper around the child (interpreter start-up and imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
TOLERANCE = 1e-4
TIED_EVALGUI = "evalgui, tied scores, lines shuffled"
TIED_PYTREC = "pytrec_eval, tied scores, lines shuffled"
TIED_TREC_EVAL = "trec_eval 10.0 binary, tied scores, lines shuffled"
# Other scripts write their own sections of the same file between <!-- NAME:begin --> and
# <!-- NAME:end --> marks; this one keeps every such section when it rewrites the file.
OTHER_SECTION = re.compile(r"<!-- ([\w-]+):begin -->.*?<!-- \1:end -->", re.S)
GENERATOR_VERSION = 1  # bump when the data generator changes, so cached data is regenerated

# ----------------------------------------------------------------------------- code run in child processes

# The measuring wrapper: runs argv[1] (a JSON command list), reports wall time, CPU time and peak RSS.
WRAPPER = r"""
import json, resource, subprocess, sys, time
cmd = json.loads(sys.argv[1])
t0 = time.perf_counter()
proc = subprocess.run(cmd, capture_output=True, text=True)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss,
                  "returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}))
"""

PYTREC_EVAL_SCRIPT = r"""
import collections, json, sys
import pytrec_eval

def parse_qrel(f):
    qrel = collections.defaultdict(dict)
    for line in f:
        qid, _, doc, rel = line.split()
        qrel[qid][doc] = int(rel)
    return qrel

def parse_run(f):
    run = collections.defaultdict(dict)
    for line in f:
        qid, _, doc, _, score, _ = line.split()
        run[qid][doc] = float(score)
    return run

parse_qrel = getattr(pytrec_eval, "parse_qrel", parse_qrel)
parse_run = getattr(pytrec_eval, "parse_run", parse_run)
with open(sys.argv[1]) as f:
    qrels = parse_qrel(f)
with open(sys.argv[2]) as f:
    run = parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"})
per_query = evaluator.evaluate(run)
keys = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "R@100": "recall_100", "RR": "recip_rank"}
n = len(per_query)
print(json.dumps({name: sum(v[key] for v in per_query.values()) / n for name, key in keys.items()}))
"""

IR_MEASURES_SCRIPT = r"""
import json, sys
import ir_measures
from ir_measures import AP, nDCG, P, R, RR
qrels = ir_measures.read_trec_qrels(sys.argv[1])
run = ir_measures.read_trec_run(sys.argv[2])
result = ir_measures.calc_aggregate([AP, nDCG@10, P@10, R@100, RR], qrels, run)
print(json.dumps({str(measure): value for measure, value in result.items()}))
"""

RANX_SCRIPT = r"""
import json, sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
result = evaluate(qrels, run, ["map", "ndcg@10", "precision@10", "recall@100", "mrr"])
keys = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "R@100": "recall@100", "RR": "mrr"}
print(json.dumps({name: float(result[key]) for name, key in keys.items()}))
"""

# evalgui in-process: import, load, all_trec; then (for the breakdown) the five measures; is pandas imported by then?
EVALGUI_INPROCESS_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.evaluate import evaluate_run
from evalgui.core.ranked.specs import parse_measures
from evalgui.core.ranked.trec_eval import requests_for
t1 = time.perf_counter()
pandas_after_import = "pandas" in sys.modules
qrels = read_qrels(sys.argv[1])
t2 = time.perf_counter()
run = read_run(sys.argv[2])
t3 = time.perf_counter()
pandas_after_load = "pandas" in sys.modules
full = evaluate_run(qrels, run, requests_for(["all_trec"]))
t4 = time.perf_counter()
five = evaluate_run(qrels, run, parse_measures(sys.argv[3:]))
t5 = time.perf_counter()
print(json.dumps({
    "import": t1 - t0, "read_qrels": t2 - t1, "read_run": t3 - t2, "all_trec": t4 - t3,
    "five": t5 - t4, "all_trec_columns": len(full.columns), "pandas_after_import": pandas_after_import,
    "pandas_after_load": pandas_after_load,
    "queries": len(full.query_ids),
    "means": {c.name: float(v) for c, v in zip(five.columns, five.summary)},
}))
"""

VERSIONS_SCRIPT = r"""
import json
from importlib import metadata
out = {}
for name in ("evalgui", "pytrec-eval-terrier", "pytrec_eval", "ir_measures", "ranx", "numba", "numpy",
             "pyarrow", "pandas"):
    try:
        out[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
providers = {}
try:
    import ir_measures
    from ir_measures import AP, nDCG, P, R, RR
    for m in (AP, nDCG@10, P@10, R@100, RR):
        names = [p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(m)]
        providers[str(m)] = names[0] if names else "?"
except Exception:
    pass
out["_ir_measures_providers"] = providers
print(json.dumps(out))
"""

# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class DataSpec:
    queries: int
    docs: int
    judged: int
    seed: int

    @property
    def folder(self) -> Path:
        return REPO / "benchmarks" / "_data" / f"q{self.queries}_d{self.docs}_j{self.judged}_s{self.seed}"

    @property
    def run_path(self) -> Path:
        return self.folder / "run.txt"

    @property
    def qrels_path(self) -> Path:
        return self.folder / "qrels.txt"

    @property
    def params_path(self) -> Path:
        return self.folder / "params.json"

    def params(self) -> dict:
        return {**asdict(self), "generator": GENERATOR_VERSION}


@dataclass
class DataSummary:
    run_lines: int
    qrels_lines: int
    relevant: int
    judged_in_run: int
    run_mb: float
    qrels_mb: float
    reused: bool


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="ascii")
    os.replace(tmp, path)


def generate_data(spec: DataSpec) -> None:
    """A TREC run (scores strictly descending, no ties) and graded qrels, from numpy seed ``spec.seed``.

    About 70% of each query's judged documents are drawn from its run, biased towards
    the top ranks (weight 1/(rank+20)); the rest are judged but not retrieved. Grades
    0..3 are likelier to be high near the top of the run.
    """
    rng = np.random.default_rng(spec.seed)
    collection = max(1_000_000, 4 * (spec.docs + 2 * spec.judged))
    ranks = np.arange(1, spec.docs + 1)
    weights = 1.0 / (ranks + 20.0)
    weights /= weights.sum()
    grades_top = [0.35, 0.30, 0.20, 0.15]    # judged docs retrieved in the top 50
    grades_rest = [0.65, 0.20, 0.10, 0.05]   # judged docs retrieved below rank 50
    grades_out = [0.55, 0.25, 0.12, 0.08]    # judged docs not retrieved
    run_lines: list[str] = []
    qrels_lines: list[str] = []
    for q in range(spec.queries):
        qid = f"q{q + 1:05d}"
        n_judged = int(rng.integers(max(1, spec.judged * 2 // 3), spec.judged * 4 // 3 + 1))
        n_in = min(int(rng.binomial(n_judged, 0.7)), spec.docs)
        n_out = n_judged - n_in
        pool = rng.choice(collection, size=spec.docs + n_out, replace=False)
        docs = [f"D{d:07d}" for d in pool.tolist()]
        scores = 20.0 - np.cumsum(rng.uniform(0.001, 0.02, spec.docs))  # gaps > 1e-4: no ties after rounding
        run_lines.extend(f"{qid} Q0 {docs[i]} {i + 1} {s:.4f} bench" for i, s in enumerate(scores.tolist()))
        judged_ranks = rng.choice(spec.docs, size=n_in, replace=False, p=weights)
        top = judged_ranks < 50
        grades = np.empty(n_in, dtype=np.int64)
        grades[top] = rng.choice(4, size=int(top.sum()), p=grades_top)
        grades[~top] = rng.choice(4, size=int((~top).sum()), p=grades_rest)
        judged = [(docs[r], g) for r, g in zip(judged_ranks.tolist(), grades.tolist())]
        out_grades = rng.choice(4, size=n_out, p=grades_out).tolist()
        judged += [(docs[spec.docs + i], g) for i, g in enumerate(out_grades)]
        order = rng.permutation(len(judged))
        qrels_lines.extend(f"{qid} 0 {judged[i][0]} {judged[i][1]}" for i in order.tolist())
    spec.folder.mkdir(parents=True, exist_ok=True)
    _write_atomic(spec.run_path, "\n".join(run_lines) + "\n")
    _write_atomic(spec.qrels_path, "\n".join(qrels_lines) + "\n")
    _write_atomic(spec.params_path, json.dumps(spec.params(), indent=1) + "\n")


def ensure_shuffled(spec: DataSpec) -> Path:
    """The same run with its lines in a random (seeded) order: no query's lines together, no rank order."""
    path = spec.folder / "run_shuffled.txt"
    stamp = spec.folder / "run_shuffled.params"
    if not (path.exists() and stamp.exists() and stamp.read_text() == json.dumps(spec.params())):
        lines = spec.run_path.read_bytes().splitlines(keepends=True)
        order = np.random.default_rng(spec.seed + 1).permutation(len(lines))
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.writelines(lines[i] for i in order)
        os.replace(tmp, path)
        stamp.write_text(json.dumps(spec.params()))
    return path


def ensure_tied(spec: DataSpec) -> Path:
    """The run as BM25-like systems write it: scores rounded to 4 significant digits (so many tie)
    and each query's lines in a random (seeded) order. Same documents and order of merit as run.txt."""
    path = spec.folder / "run_tied_shuffled.txt"
    stamp = spec.folder / "run_tied_shuffled.params"
    if not (path.exists() and stamp.exists() and stamp.read_text() == json.dumps(spec.params())):
        rng = np.random.default_rng(spec.seed + 2)
        lines = spec.run_path.read_bytes().decode("ascii").splitlines()
        out = []
        for start in range(0, len(lines), spec.docs):      # one query's block (spec.docs lines)
            block = [line.split() for line in lines[start:start + spec.docs]]
            for i in rng.permutation(len(block)).tolist():
                qid, q0, doc, rank, score, tag = block[i]
                out.append(f"{qid} {q0} {doc} {rank} {float(score):.4g} {tag}\n")
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(out), encoding="ascii")
        os.replace(tmp, path)
        stamp.write_text(json.dumps(spec.params()))
    return path


def tie_share(path: Path) -> float:
    """The fraction of lines whose (query, score) another line of the file shares."""
    seen: dict[tuple[str, str], int] = {}
    with open(path) as f:
        for line in f:
            qid, _, _, _, score, _ = line.split()
            seen[(qid, score)] = seen.get((qid, score), 0) + 1
    return sum(n for n in seen.values() if n > 1) / max(sum(seen.values()), 1)


def ensure_data(spec: DataSpec) -> DataSummary:
    reused = (spec.params_path.exists() and spec.run_path.exists() and spec.qrels_path.exists()
              and json.loads(spec.params_path.read_text()) == spec.params())
    if not reused:
        print(f"generating {spec.folder.relative_to(REPO)} ...", flush=True)
        generate_data(spec)
    run_docs: dict[str, set[str]] = {}
    run_lines = 0
    with open(spec.run_path) as f:
        for line in f:
            qid, _, doc, *_ = line.split()
            run_docs.setdefault(qid, set()).add(doc)
            run_lines += 1
    qrels_lines = relevant = judged_in_run = 0
    with open(spec.qrels_path) as f:
        for line in f:
            qid, _, doc, rel = line.split()
            qrels_lines += 1
            relevant += int(rel) > 0
            judged_in_run += doc in run_docs.get(qid, ())
    return DataSummary(run_lines, qrels_lines, relevant, judged_in_run,
                       spec.run_path.stat().st_size / 1e6, spec.qrels_path.stat().st_size / 1e6, reused)


# ----------------------------------------------------------------------------- measuring


@dataclass
class Measurement:
    wall: float
    cpu: float
    rss_mb: float
    returncode: int
    stdout: str
    stderr: str


def measure(command: list[str], env: dict[str, str] | None = None) -> Measurement:
    """Run ``command`` under a fresh wrapper process; its wall time, CPU time and peak RSS."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, json.dumps(command)],
                         capture_output=True, text=True, check=True, env=env)
    r = json.loads(out.stdout)
    return Measurement(r["wall"], r["cpu"], r["maxrss_kb"] / 1024, r["returncode"], r["stdout"], r["stderr"])


@dataclass
class ToolResult:
    name: str
    command: str                      # shown in the doc
    runs: list[Measurement] = field(default_factory=list)
    means: dict[str, float] = field(default_factory=dict)
    skipped: str = ""                 # why the tool was not run
    failed: str = ""                  # stderr tail of a failing run
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.skipped and not self.failed and bool(self.runs)

    @property
    def best(self) -> float:
        return min(m.wall for m in self.runs)

    @property
    def median(self) -> float:
        return statistics.median(m.wall for m in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(m.cpu for m in self.runs)

    @property
    def rss_mb(self) -> float:
        return max(m.rss_mb for m in self.runs)


@dataclass
class Tool:
    """How to run one tool: a command per (qrels, run), how to read its five means, the env to use."""
    name: str
    module: str                       # importable module that must exist, "" for none
    command: list[str]
    parse: object                     # callable(Measurement) -> dict[str, float]
    env: dict[str, str] | None = None
    fresh_env: object = None          # callable() -> env, called before every measurement
    warmup: bool = False              # one untimed run first (fills ranx's numba cache)
    note: str = ""


def _json_means(m: Measurement) -> dict[str, float]:
    return {k: float(v) for k, v in json.loads(m.stdout.strip().splitlines()[-1]).items()}


def evalgui_tool(bin_dir: Path, qrels: Path, run: Path, out_csv: Path,
                 name: str = "evalgui (evalgui-cli evaluate)") -> Tool:
    cmd = [str(bin_dir / "evalgui-cli"), "evaluate", str(qrels), str(run)]
    for m in MEASURES:
        cmd += ["-m", m]
    cmd += ["-o", str(out_csv)]

    def parse(_: Measurement) -> dict[str, float]:
        import csv

        with open(out_csv, newline="") as f:
            return {row["measure"]: float(row["value"]) for row in csv.DictReader(f) if row["query"] == "all"}

    return Tool(name, "evalgui", cmd, parse)


TREC_EVAL_MEASURES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "R@100": "recall_100", "RR": "recip_rank"}


def trec_eval_binary(given: str | None) -> str | None:
    """The trec_eval binary to time: --trec-eval, else $EVALGUI_TREC_EVAL, else trec_eval on PATH."""
    import shutil

    found = given or os.environ.get("EVALGUI_TREC_EVAL") or shutil.which("trec_eval")
    return found if found and os.access(found, os.X_OK) else None


def trec_eval_tool(binary: str, qrels: Path, run: Path, name: str) -> Tool:
    cmd = [binary, "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "recall.100", "-m", "recip_rank",
           str(qrels), str(run)]

    def parse(m: Measurement) -> dict[str, float]:
        values = {f[0].strip(): float(f[2]) for f in (line.split("\t") for line in m.stdout.splitlines())
                  if len(f) == 3 and f[1] == "all"}
        return {k: values[v] for k, v in TREC_EVAL_MEASURES.items() if v in values}

    return Tool(name, "", cmd, parse)


def python_tool(name: str, module: str, script: str, bin_dir: Path, qrels: Path, run: Path, **kw) -> Tool:
    return Tool(name, module, [str(bin_dir / "python"), "-c", script, str(qrels), str(run)], _json_means, **kw)


def ranx_cold_env(tmp: Path):
    """An env whose NUMBA_CACHE_DIR is a new empty folder: ranx compiles its numba code as on first use."""
    counter = iter(range(10**6))

    def make() -> dict[str, str]:
        folder = tmp / f"numba-cache-{next(counter)}"
        folder.mkdir()
        return {**os.environ, "NUMBA_CACHE_DIR": str(folder)}

    return make


def byte_compile_evalgui(bin_dir: Path) -> None:
    """Compile evalgui's modules, as ``pip install`` does; an editable install run with
    PYTHONDONTWRITEBYTECODE set would otherwise compile ~50 modules at every start (~70 ms) while
    the peers, installed from wheels, start from bytecode."""
    script = "import compileall, os, evalgui; compileall.compile_dir(os.path.dirname(evalgui.__file__), quiet=1)"
    subprocess.run([str(bin_dir / "python"), "-c", script], check=True, env={
        k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})


def peer_available(bin_dir: Path, module: str) -> str:
    """'' if ``module`` imports with the benchmark interpreter, else the reason it does not."""
    python = bin_dir / "python"
    if not python.exists():
        return f"no interpreter at {python}"
    proc = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, text=True)
    if proc.returncode:
        return f"not installed ({(proc.stderr.strip().splitlines() or ['import failed'])[-1]})"
    return ""


def display_command(tool: Tool) -> str:
    if tool.command[1:2] == ["-c"]:
        return f"{Path(tool.command[0]).name} -c <{tool.module} script> QRELS RUN"
    return " ".join(shlex.quote(Path(a).name if os.sep in a else a) for a in tool.command)


def run_tools(tools: list[Tool], repeat: int) -> list[ToolResult]:
    """Interleave the tools (round-robin over repeats) so background load hits them alike."""
    results = [ToolResult(t.name, display_command(t), note=t.note) for t in tools]
    for t, r in zip(tools, results):
        if t.module:
            r.skipped = peer_available(Path(t.command[0]).parent, t.module)
        if t.warmup and not r.skipped:
            print(f"  [warm-up] {t.name}", flush=True)
            measure(t.command, t.env)
    for i in range(repeat):
        for t, r in zip(tools, results):
            if r.skipped or r.failed:
                continue
            env = t.fresh_env() if t.fresh_env else t.env
            m = measure(t.command, env)
            if m.returncode:
                r.failed = (m.stderr.strip().splitlines() or [f"exit status {m.returncode}"])[-1]
                continue
            r.runs.append(m)
            if not r.means:
                r.means = t.parse(m)
            print(f"  [{i + 1}/{repeat}] {t.name:<38} {m.wall:7.2f} s  {m.rss_mb:7.0f} MB", flush=True)
    return results


@dataclass
class InProcess:
    runs: list[dict]
    rss_mb: float
    pandas_import: float              # seconds to import pandas once numpy and pyarrow are imported

    def best(self, key: str) -> float:
        return min(r[key] for r in self.runs)

    def median(self, key: str) -> float:
        return statistics.median(r[key] for r in self.runs)

    @property
    def load_plus_all_trec(self) -> list[float]:
        return [r["read_qrels"] + r["read_run"] + r["all_trec"] for r in self.runs]


def run_inprocess(bin_dir: Path, qrels: Path, run: Path, repeat: int) -> InProcess:
    """evalgui in-process, a fresh process per repeat (so every load is a first load)."""
    cmd = [str(bin_dir / "python"), "-c", EVALGUI_INPROCESS_SCRIPT, str(qrels), str(run), *MEASURES]
    runs, rss = [], 0.0
    for i in range(repeat):
        m = measure(cmd)
        if m.returncode:
            raise SystemExit(f"evalgui in-process run failed:\n{m.stderr}")
        r = json.loads(m.stdout.strip().splitlines()[-1])
        r["load"] = r["read_qrels"] + r["read_run"]
        r["load_all_trec"] = r["load"] + r["all_trec"]
        runs.append(r)
        rss = max(rss, m.rss_mb)
        print(f"  [{i + 1}/{repeat}] evalgui in-process: load {r['load']:.3f} s, all_trec {r['all_trec']:.3f} s",
              flush=True)
    probe = ("import time, numpy, pyarrow; t = time.perf_counter(); import pandas; "
             "print(time.perf_counter() - t)")
    pandas_import = min(float(subprocess.run([str(bin_dir / "python"), "-c", probe], capture_output=True,
                                             text=True, check=True).stdout) for _ in range(repeat))
    return InProcess(runs, rss, pandas_import)


# ----------------------------------------------------------------------------- cross-check


@dataclass
class Disagreement:
    tool: str
    measure: str
    value: float
    reference: float

    @property
    def diff(self) -> float:
        return self.value - self.reference


def cross_check(results: list[ToolResult], reference: dict[str, float],
                tied_reference: dict[str, float] | None = None) -> list[Disagreement]:
    """Tools on the tied file are compared with evalgui on the tied file (ties change the ranking)."""
    out = []
    for r in results:
        ref = tied_reference if "tied" in r.name else reference
        if r.ok and ref:
            out += [Disagreement(r.name, m, r.means[m], ref[m]) for m in MEASURES
                    if m in r.means and abs(r.means[m] - ref[m]) > TOLERANCE]
    return out


# The conventions behind known, legitimate differences (shown next to a flagged measure).
CONVENTIONS: dict[tuple[str, str], str] = {}


# ----------------------------------------------------------------------------- machine and report


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info(bin_dir: Path) -> dict:
    proc = subprocess.run([str(bin_dir / "python"), "-c", VERSIONS_SCRIPT], capture_output=True, text=True)
    versions = json.loads(proc.stdout) if proc.returncode == 0 else {}
    py = subprocess.run([str(bin_dir / "python"), "-c", "import platform; print(platform.python_version())"],
                        capture_output=True, text=True).stdout.strip()

    def git(*args: str) -> str:
        p = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ""

    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "python": py or platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "versions": {k: v for k, v in versions.items() if not k.startswith("_")},
        "ir_measures_providers": versions.get("_ir_measures_providers", {}),
        "commit": git("rev-parse", "--short", "HEAD"),
        "dirty": [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()],
        "loadavg": os.getloadavg(),
    }


def _ratio(r: ToolResult, ref: ToolResult) -> str:
    return f"{r.best / ref.best:.2f}x" if r.ok and ref.ok else "-"


def results_table(results: list[ToolResult], ref: ToolResult) -> list[str]:
    lines = ["| tool | wall best (s) | wall median (s) | CPU median (s) | peak RSS (MB) | wall / evalgui's (best) |",
             "|:---|---:|---:|---:|---:|---:|"]
    for r in results:
        if r.skipped:
            lines.append(f"| {r.name} | skipped: {r.skipped} | | | | |")
        elif r.failed:
            lines.append(f"| {r.name} | failed: {r.failed} | | | | |")
        else:
            lines.append(f"| {r.name} | {r.best:.2f} | {r.median:.2f} | {r.cpu:.2f} | {r.rss_mb:.0f} | {_ratio(r, ref)} |")
    return lines


def print_table(results: list[ToolResult], ref: ToolResult, inproc: InProcess) -> None:
    print()
    print(f"{'tool':<40} {'best s':>8} {'median s':>9} {'cpu s':>7} {'peak MB':>8} {'vs evalgui':>10}")
    for r in results:
        if not r.ok:
            print(f"{r.name:<40} {'skipped: ' + r.skipped if r.skipped else 'failed: ' + r.failed}")
            continue
        print(f"{r.name:<40} {r.best:8.2f} {r.median:9.2f} {r.cpu:7.2f} {r.rss_mb:8.0f} {_ratio(r, ref):>10}")
    print(f"\nevalgui in-process (best of {len(inproc.runs)}): load {inproc.best('load'):.3f} s, "
          f"all_trec {inproc.best('all_trec'):.3f} s, load + all_trec {min(inproc.load_plus_all_trec):.3f} s")


def print_means(results: list[ToolResult], reference: dict[str, float], disagreements: list[Disagreement]) -> None:
    print(f"\n{'means':<40} " + " ".join(f"{m:>9}" for m in MEASURES))
    print(f"{'evalgui (in-process, reference)':<40} " + " ".join(f"{reference[m]:9.5f}" for m in MEASURES))
    for r in results:
        if r.ok:
            print(f"{r.name:<40} " + " ".join(f"{r.means.get(m, float('nan')):9.5f}" for m in MEASURES))
    for d in disagreements:
        print(f"DIFFERS: {d.tool} {d.measure}: {d.value:.6f} vs evalgui {d.reference:.6f} ({d.diff:+.6f})")
    if not disagreements:
        print(f"all tools agree with evalgui within {TOLERANCE:g}")


@dataclass
class Targets:
    speedup_best: float | None
    speedup_median: float | None
    rss_evalgui: float | None
    rss_pytrec: float | None
    inprocess_best: float
    inprocess_median: float

    @property
    def speed_met(self) -> bool | None:
        return None if self.speedup_best is None else self.speedup_best >= 2.0

    @property
    def memory_met(self) -> bool | None:
        return None if self.rss_pytrec is None else self.rss_evalgui <= self.rss_pytrec

    @property
    def inprocess_met(self) -> bool:
        return self.inprocess_best < 1.0

    # The tied, shuffled run (issue 8, point 13): medians, as the issue measured them.
    tied_ratio: float | None = None        # evalgui / pytrec_eval wall time; target <= 0.45
    tied_vs_binary: float | None = None    # evalgui / trec_eval binary wall time; target < 1
    tied_rss: tuple[float, float] | None = None  # (evalgui, pytrec_eval) peak MB; target evalgui <= pytrec_eval


def compute_targets(ref: ToolResult, pytrec: ToolResult | None, inproc: InProcess,
                    results: list[ToolResult] = ()) -> Targets:
    have = pytrec is not None and pytrec.ok and ref.ok
    by_name = {r.name: r for r in results if r.ok}
    ev, py, te = (by_name.get(n) for n in (TIED_EVALGUI, TIED_PYTREC, TIED_TREC_EVAL))
    return Targets(
        tied_ratio=ev.median / py.median if ev and py else None,
        tied_vs_binary=ev.median / te.median if ev and te else None,
        tied_rss=(ev.rss_mb, py.rss_mb) if ev and py else None,
        speedup_best=pytrec.best / ref.best if have else None,
        speedup_median=pytrec.median / ref.median if have else None,
        rss_evalgui=ref.rss_mb if ref.ok else None,
        rss_pytrec=pytrec.rss_mb if have else None,
        inprocess_best=min(inproc.load_plus_all_trec),
        inprocess_median=statistics.median(inproc.load_plus_all_trec),
    )


def tied_target_lines(t: Targets) -> list[str]:
    lines = []
    if t.tied_ratio is not None:
        lines.append(f"- Tied, shuffled run: evalgui's whole process at most 0.45x pytrec_eval's (medians): "
                     f"{_yes_no(t.tied_ratio <= 0.45)} - {t.tied_ratio:.2f}x.")
    if t.tied_vs_binary is not None:
        lines.append(f"- Tied, shuffled run: faster than the trec_eval 10.0 binary (medians): "
                     f"{_yes_no(t.tied_vs_binary < 1)} - evalgui / trec_eval = {t.tied_vs_binary:.2f}.")
    else:
        lines.append("- Tied, shuffled run: faster than the trec_eval 10.0 binary: not measured (no binary; "
                     "pass --trec-eval or set EVALGUI_TREC_EVAL).")
    if t.tied_rss is not None:
        lines.append(f"- Tied, shuffled run: no more peak memory than pytrec_eval: "
                     f"{_yes_no(t.tied_rss[0] <= t.tied_rss[1])} - {t.tied_rss[0]:.0f} MB vs {t.tied_rss[1]:.0f} MB.")
    return lines


def _slower(speedup: float) -> str:
    return f" (evalgui is {1 / speedup:.2f}x *slower*)" if speedup < 1 else ""


def pandas_note(inproc: InProcess) -> str:
    first = inproc.runs[0]
    if first["pandas_after_import"]:
        return "pandas is already imported by `import evalgui.core...` (counted in the import row)."
    if first["pandas_after_load"]:
        return ("pandas is not imported by `import evalgui.core...` but is by the time the files are loaded: "
                "pyarrow imports it lazily the first time an Arrow array is converted (`Array.to_numpy()`, "
                "`pa.array()` on Python objects), so the first load in a process includes pandas' import "
                f"(`import pandas` after numpy and pyarrow, best in a fresh process: {inproc.pandas_import:.2f} s).")
    return "pandas is not imported while loading."


def _yes_no(met: bool | None) -> str:
    return "not measured" if met is None else ("**met**" if met else "**NOT met**")


def render_markdown(*, command: str, spec: DataSpec, data: DataSummary, tied_path: Path, machine: dict, repeat: int,
                    results: list[ToolResult], ref: ToolResult, inproc: InProcess, reference: dict[str, float],
                    disagreements: list[Disagreement], targets: Targets, started: str, elapsed: float) -> str:
    v = machine["versions"]
    pytrec_version = v.get("pytrec-eval-terrier") or v.get("pytrec_eval") or "not installed"
    out = [
        "# Benchmarks: ranked evaluation",
        "",
        f"Produced by `benchmarks/bench_ranked.py` on {started} (took {elapsed / 60:.1f} min). Re-run with:",
        "",
        "```",
        command,
        "```",
        "",
        "## Machine",
        "",
        f"- CPU: {machine['cpu']}, {machine['cores']} cores ({machine['usable_cores']} usable)",
        f"- OS: {machine['os']}; Python {machine['python']}",
        f"- load average when the run began: {' / '.join(f'{x:.2f}' for x in machine['loadavg'])} "
        "(other work may run on this machine; hence best **and** median)",
        f"- evalgui {v.get('evalgui', '?')} at commit {machine['commit'] or '?'}"
        + (f", with uncommitted changes in {', '.join(f'`{p}`' for p in machine['dirty'])}" if machine["dirty"] else ""),
        f"- peers: pytrec_eval (pytrec-eval-terrier) {pytrec_version}, ir_measures {v.get('ir_measures', 'not installed')}, "
        f"ranx {v.get('ranx', 'not installed')} (numba {v.get('numba', '-')})",
        f"- shared: numpy {v.get('numpy', '?')}, pyarrow {v.get('pyarrow', '?')}, pandas {v.get('pandas', '?')}",
        "",
        "## Data",
        "",
        f"Synthetic, generated with numpy seed {spec.seed} into `{spec.folder.relative_to(REPO)}/` (git-ignored):",
        "",
        f"- run: {spec.queries:,} queries x {spec.docs:,} documents = {data.run_lines:,} lines, {data.run_mb:.1f} MB "
        "(`qid Q0 docno rank score tag`, scores strictly descending, no ties)",
        f"- qrels: {data.qrels_lines:,} judgments (~{spec.judged} per query), grades 0..3, "
        f"{data.relevant:,} relevant (grade >= 1); {data.judged_in_run:,} "
        f"({100 * data.judged_in_run / max(data.qrels_lines, 1):.0f}%) of the judged documents are in the run, "
        f"{data.qrels_mb:.1f} MB",
        "",
        "## Whole process: read both files, compute AP, nDCG@10, P@10, R@100, RR",
        "",
        f"Each tool runs {repeat} times as a fresh process (the tools interleaved), started by a small wrapper "
        "that reads `getrusage(RUSAGE_CHILDREN).ru_maxrss` after the child exits. Wall time includes interpreter "
        "start-up and imports. CPU time is user + system over all threads. evalgui's modules are byte-compiled "
        "first, as `pip install` leaves them (the peers come from wheels). On this shared 2-core VM the machine's "
        "speed drifts by up to 30 % within minutes; the tied run's ratio moved between 0.41x and 0.49x over "
        "one session's runs (the code changing little between them), so compare tools within one run, not across runs.",
        "",
        *results_table(results, ref),
        "",
        "Commands (QRELS and RUN are the two files above):",
        "",
    ]
    out += [f"- {r.name}: `{r.command}`" + (f" {r.note}" if r.note else "") for r in results]
    out += [
        "",
        "Footnotes:",
        "",
        "- ranx compiles its metrics with numba on first use and caches the machine code on disk "
        "(`@njit(cache=True)`, in its package folder). *ranx (first run)* points `NUMBA_CACHE_DIR` at a new "
        "empty folder for every repetition, so it pays the compilation each time, as a user does on the first "
        "call after installing; *ranx (numba cache warm)* is every later call (it follows one untimed run that "
        "fills the cache). Even warm, each fresh process pays for importing numba and loading the cached code. "
        "Neither number is hidden.",
        "- ir_measures computes these measures through "
        + ", ".join(f"{m}: {p}" for m, p in machine["ir_measures_providers"].items())
        + " (the first provider that supports each), so its values should equal pytrec_eval's; "
          "its extra time is its own parsing and conversion.",
        "- pytrec_eval reads the files with its own `parse_qrel` / `parse_run` (plain Python loops).",
        "- *run lines shuffled*: the same run with its lines in a random order (`run_shuffled.txt`, seed + 1). "
        "TREC runs are normally sorted by query and rank, and evalgui takes fast paths for that; a shuffled "
        "run needs the full sort and the hashed duplicate check. Its ratio column is still against evalgui "
        "on the sorted file; compare the two shuffled rows with each other.",
        f"- *tied scores, lines shuffled*: `run_tied_shuffled.txt` (seed + 2), the run as BM25-like systems "
        f"write it: scores rounded to 4 significant digits ({100 * tie_share(tied_path):.0f}% of the lines share "
        "their query's score with another line) and each query's lines in a random order. Ties are broken by "
        "docno, as trec_eval does, so its means differ from the other rows'; its rows are cross-checked "
        "against evalgui on the same file. The trec_eval 10.0 rows are the C binary built from its v10.0 tag "
        "(not part of this repository), when one was given.",
        "",
        "## evalgui in-process",
        "",
        f"A fresh process per repetition ({repeat}); modules imported before the clock starts. "
        f"`all_trec` is every trec_eval 10.0 measure ({inproc.runs[0]['all_trec_columns']} columns) "
        f"over {inproc.runs[0]['queries']:,} queries.",
        "",
        "| step | best (s) | median (s) |",
        "|:---|---:|---:|",
    ]
    for key, label in (("import", "import evalgui.core (numpy, pyarrow)"), ("read_qrels", "read_qrels"),
                       ("read_run", "read_run"), ("load", "**load** (read_qrels + read_run)"),
                       ("all_trec", "**evaluate_run, all_trec**"), ("load_all_trec", "**load + all_trec**"),
                       ("five", "evaluate_run, the five measures (after all_trec)")):
        out.append(f"| {label} | {inproc.best(key):.3f} | {inproc.median(key):.3f} |")
    out += [
        "",
        f"Peak RSS of the in-process child (including all_trec): {inproc.rss_mb:.0f} MB.",
        "",
        pandas_note(inproc),
        "",
        "## Targets",
        "",
    ]
    pytrec_name = "pytrec_eval"
    if targets.speedup_best is None:
        out.append(f"- Whole `evalgui-cli evaluate` process at least 2x faster than {pytrec_name}'s whole process: "
                   "not measured (pytrec_eval or evalgui did not run).")
    else:
        out.append(f"- Whole `evalgui-cli evaluate` process at least 2x faster than {pytrec_name}'s whole process: "
                   f"{_yes_no(targets.speed_met)} - pytrec_eval's time / evalgui's = {targets.speedup_best:.2f} "
                   f"by best time, {targets.speedup_median:.2f} by median" + _slower(targets.speedup_best) + ".")
        out.append(f"- ... with no more peak memory than {pytrec_name}: {_yes_no(targets.memory_met)} - "
                   f"{targets.rss_evalgui:.0f} MB for evalgui vs {targets.rss_pytrec:.0f} MB for pytrec_eval.")
    out += tied_target_lines(targets)
    out.append(f"- In-process load + all_trec under 1 s on a 2-core machine: {_yes_no(targets.inprocess_met)} - "
               f"{targets.inprocess_best:.3f} s best, {targets.inprocess_median:.3f} s median "
               f"(this machine: {machine['usable_cores']} usable cores).")
    out += [
        "",
        "## Cross-check: mean over queries",
        "",
        "Reference: evalgui in-process, full precision. A value is flagged when it differs from evalgui's by more "
        f"than {TOLERANCE:g}.",
        "",
        "| tool | " + " | ".join(MEASURES) + " |",
        "|:---|" + "---:|" * len(MEASURES),
        "| evalgui (in-process) | " + " | ".join(f"{reference[m]:.6f}" for m in MEASURES) + " |",
    ]
    flagged = {(d.tool, d.measure) for d in disagreements}
    for r in results:
        if r.ok:
            cells = [f"{r.means.get(m, float('nan')):.6f}" + (" (!)" if (r.name, m) in flagged else "")
                     for m in MEASURES]
            out.append(f"| {r.name} | " + " | ".join(cells) + " |")
    out.append("")
    if disagreements:
        out.append("Differences larger than the tolerance:")
        out.append("")
        for d in disagreements:
            why = next((text for (tool, m), text in CONVENTIONS.items() if tool in d.tool and m == d.measure), "")
            out.append(f"- {d.tool}, {d.measure}: {d.value:.6f} vs {d.reference:.6f} ({d.diff:+.6f})"
                       + (f". {why}." if why else "."))
    else:
        out.append(f"Every tool agrees with evalgui within {TOLERANCE:g} on all five measures.")
    out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--queries", type=int, default=None, help="number of queries (default 2000; 200 with --quick)")
    p.add_argument("--docs", type=int, default=1000, help="retrieved documents per query (default 1000)")
    p.add_argument("--judged", type=int, default=30, help="judged documents per query, on average (default 30)")
    p.add_argument("--repeat", type=int, default=3, help="measurements per tool; best and median reported (default 3)")
    p.add_argument("--quick", action="store_true",
                   help="200 queries, a fast smoke run; writes the doc only if --output is given")
    p.add_argument("--output", default=None, help="markdown report (default docs/benchmarks.md)")
    p.add_argument("--no-write", action="store_true", help="print only; do not write the markdown report")
    p.add_argument("--seed", type=int, default=42, help="numpy seed of the synthetic data (default 42)")
    p.add_argument("--trec-eval", default=None,
                   help="trec_eval binary to time too (default: $EVALGUI_TREC_EVAL, else trec_eval on PATH)")
    p.add_argument("--bin-dir", type=Path, default=Path(sys.executable).parent,
                   help="folder with python and evalgui-cli of the benchmark venv (default: this interpreter's)")
    args = p.parse_args(argv)
    if args.queries is None:
        args.queries = 200 if args.quick else 2000
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started_wall = time.time()
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    write_to = None if args.no_write or (args.quick and args.output is None) else Path(args.output or REPO / "docs" / "benchmarks.md")
    bin_dir = args.bin_dir.absolute()
    if not (bin_dir / "evalgui-cli").exists():
        raise SystemExit(f"no evalgui-cli in {bin_dir}; run with the benchmark venv's python or pass --bin-dir")

    machine = machine_info(bin_dir)
    byte_compile_evalgui(bin_dir)
    spec = DataSpec(args.queries, args.docs, args.judged, args.seed)
    data = ensure_data(spec)
    shuffled = ensure_shuffled(spec)
    tied = ensure_tied(spec)
    binary = trec_eval_binary(args.trec_eval)
    print(f"data: {spec.folder.relative_to(REPO)} ({'reused' if data.reused else 'generated'}), "
          f"run {data.run_lines:,} lines, qrels {data.qrels_lines:,} lines")
    print(f"machine: {machine['cpu']}, {machine['usable_cores']} cores, Python {machine['python']}, "
          f"load average {machine['loadavg'][0]:.2f}")

    with tempfile.TemporaryDirectory(prefix="bench-ranked-") as tmp_name:
        tmp = Path(tmp_name)
        q, r = spec.qrels_path, spec.run_path
        ref_tool = evalgui_tool(bin_dir, q, r, tmp / "evalgui.csv")
        tools = [
            ref_tool,
            python_tool("pytrec_eval", "pytrec_eval", PYTREC_EVAL_SCRIPT, bin_dir, q, r),
            python_tool("ir_measures", "ir_measures", IR_MEASURES_SCRIPT, bin_dir, q, r),
            python_tool("ranx (first run: numba compiles)", "ranx", RANX_SCRIPT, bin_dir, q, r,
                        fresh_env=ranx_cold_env(tmp), note="(fresh empty `NUMBA_CACHE_DIR` each time)"),
            python_tool("ranx (numba cache warm)", "ranx", RANX_SCRIPT, bin_dir, q, r,
                        warmup=True, note="(after one untimed run that fills the cache)"),
            # Runs are usually sorted by query; a shuffled one takes the slow paths (full sort, hashed
            # duplicate check), so it is measured too, against pytrec_eval on the same shuffled file.
            evalgui_tool(bin_dir, q, shuffled, tmp / "evalgui-shuffled.csv",
                         name="evalgui, run lines shuffled"),
            python_tool("pytrec_eval, run lines shuffled", "pytrec_eval", PYTREC_EVAL_SCRIPT, bin_dir, q, shuffled),
            # Real runs (BM25) have tied scores and need not be in rank order: ties are broken by docno.
            evalgui_tool(bin_dir, q, tied, tmp / "evalgui-tied.csv", name=TIED_EVALGUI),
            python_tool(TIED_PYTREC, "pytrec_eval", PYTREC_EVAL_SCRIPT, bin_dir, q, tied),
        ]
        if binary:
            tools += [trec_eval_tool(binary, q, r, "trec_eval 10.0 binary (C)"),
                      trec_eval_tool(binary, q, tied, TIED_TREC_EVAL)]
        print(f"\nwhole processes, {args.repeat} repetition(s) each:")
        results = run_tools(tools, args.repeat)
        print("\nevalgui in-process:")
        inproc = run_inprocess(bin_dir, q, r, args.repeat)

    ref = results[0]
    if not ref.ok:
        raise SystemExit(f"evalgui-cli failed: {ref.failed or ref.skipped}")
    reference = inproc.runs[0]["means"]
    cli_vs_inprocess = max(abs(ref.means[m] - reference[m]) for m in MEASURES)
    if cli_vs_inprocess > 1e-12:
        print(f"warning: evalgui-cli's CSV differs from in-process by {cli_vs_inprocess:g}")
    tied_ref = next((x.means for x in results if x.name == TIED_EVALGUI and x.ok), None)
    disagreements = cross_check(results, reference, tied_ref)
    pytrec = next((x for x in results if x.name == "pytrec_eval"), None)
    targets = compute_targets(ref, pytrec, inproc, results)

    print_table(results, ref, inproc)
    print_means(results, reference, disagreements)
    print()
    if targets.speedup_best is not None:
        print(f"target: evalgui-cli >= 2x faster than pytrec_eval: pytrec_eval/evalgui = {targets.speedup_best:.2f} -> "
              f"{'met' if targets.speed_met else 'NOT met'}")
        print(f"target: evalgui peak RSS <= pytrec_eval's: {targets.rss_evalgui:.0f} vs {targets.rss_pytrec:.0f} MB -> "
              f"{'met' if targets.memory_met else 'NOT met'}")
    for line in tied_target_lines(targets):
        print("target:", line[2:].replace("**", ""))
    print(f"target: in-process load + all_trec < 1 s: {targets.inprocess_best:.3f} s -> "
          f"{'met' if targets.inprocess_met else 'NOT met'}")

    if write_to is not None:
        shown_args = [a for a in (argv if argv is not None else sys.argv[1:])]
        command = " ".join([str(bin_dir / "python"), "benchmarks/bench_ranked.py", *map(shlex.quote, shown_args)])
        text = render_markdown(command=command, spec=spec, data=data, tied_path=tied, machine=machine,
                               repeat=args.repeat,
                               results=results, ref=ref, inproc=inproc, reference=reference,
                               disagreements=disagreements, targets=targets, started=started,
                               elapsed=time.time() - started_wall)
        write_to.parent.mkdir(parents=True, exist_ok=True)
        # Other benchmark scripts keep their own marked sections of the same file (bench_gui.py).
        old = write_to.read_text(encoding="utf-8") if write_to.exists() else ""
        kept = [m.group(0) for m in OTHER_SECTION.finditer(old)]
        write_to.write_text(text.rstrip("\n") + "".join("\n\n" + k for k in kept) + "\n", encoding="utf-8")
        print(f"\nwrote {write_to}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
