"""Benchmark: the desktop application's speed targets (issue 3), with pytrec_eval alongside.

Measured in fresh processes, offscreen (``QT_QPA_PLATFORM=offscreen``):

1. start-up: from launching the process to the main window shown and painted;
2. loading and evaluating the 2-million-line run of ``bench_ranked.py`` (2,000
   queries x 1,000 documents) through the GUI: files read by the worker, then
   AP, nDCG@10, P@10, R@100 and RR evaluated by the worker, until the results
   are in the tables; pytrec_eval's whole process on the same files is shown
   for scale;
3. the longest stall of the GUI thread during (2), seen by a 5 ms heartbeat
   QTimer (the largest gap between two ticks);
4. redrawing the precision-recall plot (switching query or curve kind, and
   painting the widget).

    /tmp/benchvenv/bin/python benchmarks/bench_gui.py            # writes its section of docs/benchmarks.md
    /tmp/benchvenv/bin/python benchmarks/bench_gui.py --quick    # 200 queries, prints only
    /tmp/benchvenv/bin/python benchmarks/bench_gui.py --baseline /work/old   # an older checkout, interleaved

Targets: start-up < 2 s; load + evaluate < 3 s; longest stall < 100 ms; PR redraw < 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ranked as br  # noqa: E402

BEGIN, END = "<!-- bench_gui:begin -->", "<!-- bench_gui:end -->"
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")

CHILD = r"""
import json, os, statistics, sys, time
launched = float(sys.argv[1]); qrels, run = sys.argv[2], sys.argv[3]
measures = json.loads(sys.argv[4])
import resource
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from evalgui.gui.mainwindow import MainWindow
window = MainWindow()
# Answer the questions as the tests do (tests/gui/conftest.py): a modal prompt at close would wait forever.
from PySide6.QtWidgets import QMessageBox
MainWindow.ask_save_changes = lambda self: QMessageBox.StandardButton.Discard
MainWindow.ask_stop_job = lambda self, then: True
window.ask_before_discarding = False
window.show()
window.grab()                       # the first paint
app.processEvents()
visible = time.time() - launched

ticks = []
heartbeat = QTimer(); heartbeat.setInterval(5)
heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
ranked = window.workspaces["ranked"]
ranked.form.picker.set_checked({})
for m in measures:
    ranked.form.picker.add_custom(m)
marks = {}
loop = QEventLoop()
def evaluate():
    marks["loaded"] = time.perf_counter()
    ranked.run()
ranked.busy_changed.connect(lambda busy: None if busy else loop.quit())
heartbeat.start()
ticks.append(time.perf_counter())
marks["start"] = time.perf_counter()
window.load_files([(qrels, "qrels"), (run, "run")], then=evaluate)
loop.exec()
app.processEvents()                 # the last rows reach the tables
marks["done"] = time.perf_counter()
heartbeat.stop()
ticks.append(marks["done"])
gaps = [b - a for a, b in zip(ticks, ticks[1:])]

plot = ranked.curves.plot
queries = [ranked.curves.query.itemData(i) for i in range(ranked.curves.query.count())]
redraws = []
for i in range(12):
    kind = "interpolated" if i % 2 else "uninterpolated"
    query = queries[(i * 37) % len(queries)]
    t = time.perf_counter()
    plot.show_curves(kind=kind, query=query)
    plot.grab()                     # paint it, as the screen would
    redraws.append(time.perf_counter() - t)
summary = ranked.summary_frame()
means = {m: float(summary[m].iloc[0]) for m in measures}
window.close()
print(json.dumps({
    "startup": visible, "load": marks["loaded"] - marks["start"], "evaluate": marks["done"] - marks["loaded"],
    "total": marks["done"] - marks["start"], "max_stall": max(gaps), "ticks": len(ticks),
    "redraw_best": min(redraws[2:]), "redraw_median": statistics.median(redraws[2:]),
    "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "means": means,
}))
"""


def run_child(python: str, qrels: Path, run: Path, tree: str | None = None) -> dict:
    """One fresh GUI process; ``tree``: the evalgui checkout it imports (default: as PYTHONPATH says)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "EVALGUI_SETTINGS": os.path.join(tempfile.mkdtemp(prefix="bench-gui-"), "settings.ini")}
    if tree:
        env["PYTHONPATH"] = tree
    launched = time.time()
    out = subprocess.run([python, "-c", CHILD, repr(launched), str(qrels), str(run), json.dumps(MEASURES)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"the GUI child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def baseline_sentence(tree: str, runs: list[dict]) -> str:
    """The medians of an older checkout's children, run interleaved with this one's."""
    try:
        commit = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "?"

    def med(key):
        return statistics.median(r[key] for r in runs)

    return (f"The older code at {commit}, measured by the same child processes interleaved with these "
            f"({len(runs)} each): start-up {med('startup'):.2f} s, read {med('load'):.2f} s, evaluate "
            f"{med('evaluate'):.2f} s, load + evaluate {med('total'):.2f} s, longest stall "
            f"{med('max_stall') * 1000:.0f} ms (worst {max(r['max_stall'] for r in runs) * 1000:.0f} ms), "
            f"PR redraw {med('redraw_median') * 1000:.1f} ms (medians).")


def render(spec, data, machine, runs: list[dict], pytrec: br.ToolResult | None, repeat: int, took: float,
           baseline: str = "") -> str:
    best = {k: min(r[k] for r in runs) for k in ("startup", "load", "evaluate", "total", "max_stall", "redraw_best")}
    med = {k: statistics.median(r[k] for r in runs) for k in ("startup", "load", "evaluate", "total", "max_stall",
                                                              "redraw_median")}
    worst_stall = max(r["max_stall"] for r in runs)
    rss = max(r["maxrss_mb"] for r in runs)

    def met(value, limit):
        return "met" if value < limit else "**NOT met**"

    lines = [
        BEGIN,
        "## The desktop application (benchmarks/bench_gui.py)",
        "",
        f"Produced on {time.strftime('%Y-%m-%d %H:%M %Z')} (took {took / 60:.1f} min), offscreen Qt, "
        f"{machine['cpu']}, {machine['usable_cores']} cores, load average {machine['loadavg'][0]:.2f} at the start. "
        f"Data: the run and qrels above ({data.run_lines:,} run lines, {data.qrels_lines:,} judgments). "
        f"{repeat} fresh process(es); best and median.",
        "",
        "| step | best | median | target |",
        "|:---|---:|---:|:---|",
        f"| start-up to a painted main window | {best['startup']:.2f} s | {med['startup']:.2f} s | < 2 s: "
        f"{met(med['startup'], 2)} |",
        f"| read qrels + run on the worker | {best['load']:.2f} s | {med['load']:.2f} s | |",
        f"| evaluate 5 measures on the worker, results in the tables and plot | {best['evaluate']:.2f} s | "
        f"{med['evaluate']:.2f} s | |",
        f"| **load + evaluate** | {best['total']:.2f} s | {med['total']:.2f} s | < 3 s: {met(med['total'], 3)} |",
        f"| longest GUI-thread stall during load + evaluate (5 ms heartbeat) | {best['max_stall'] * 1000:.0f} ms | "
        f"{med['max_stall'] * 1000:.0f} ms (worst {worst_stall * 1000:.0f} ms) | < 100 ms: "
        f"{met(worst_stall, 0.1)} |",
        f"| precision-recall plot redraw (switch query/kind + paint) | {best['redraw_best'] * 1000:.1f} ms | "
        f"{med['redraw_median'] * 1000:.1f} ms | < 50 ms: {met(med['redraw_median'], 0.05)} |",
        "",
        f"Peak RSS of the GUI process: {rss:.0f} MB.",
    ]
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        lines += ["", "PYTHONDONTWRITEBYTECODE was set, so every start compiled the evalgui modules it imports "
                      "(an installed evalgui starts from compiled ones: its start-up is shorter)."]
    if baseline:
        lines += ["", baseline]
    if pytrec is not None and pytrec.ok:
        lines += ["", f"For scale, pytrec_eval's whole process (read both files with its own parsers, compute the same "
                      f"five measures, no GUI) on the same files: best {pytrec.best:.2f} s, median {pytrec.median:.2f} s, "
                      f"peak RSS {pytrec.rss_mb:.0f} MB."]
    means = runs[0]["means"]
    lines += ["", "Means shown in the summary table: " + ", ".join(f"{m} {v:.4f}" for m, v in means.items())
              + " (the same as `bench_ranked.py`'s cross-check).", END, ""]
    return "\n".join(lines)



def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="200 queries; print only")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--output", default=str(br.REPO / "docs" / "benchmarks.md"))
    p.add_argument("--baseline", metavar="CHECKOUT",
                   help="an older evalgui checkout (git worktree) measured interleaved with this one, "
                        "its medians in the section")
    args = p.parse_args(argv)
    started = time.time()
    spec = br.DataSpec(200 if args.quick else 2000, 1000, 30, 42)
    data = br.ensure_data(spec)
    bin_dir = Path(sys.executable).parent
    machine = br.machine_info(bin_dir)
    runs, older = [], []
    for i in range(args.repeat):
        for tree, into, label in ((args.baseline, older, "older"), (None, runs, "run")):
            if label == "older" and not args.baseline:
                continue
            r = run_child(sys.executable, spec.qrels_path, spec.run_path, tree)
            print(f"{label} {i + 1}: start-up {r['startup']:.2f} s, load {r['load']:.2f} s, evaluate "
                  f"{r['evaluate']:.2f} s, longest stall {r['max_stall'] * 1000:.0f} ms, PR redraw "
                  f"{r['redraw_median'] * 1000:.1f} ms", flush=True)
            into.append(r)
    pytrec = None
    if br.peer_available(bin_dir, "pytrec_eval") == "":
        tool = br.python_tool("pytrec_eval", "pytrec_eval", br.PYTREC_EVAL_SCRIPT, bin_dir,
                              spec.qrels_path, spec.run_path)
        pytrec = br.run_tools([tool], args.repeat)[0]
    baseline = baseline_sentence(args.baseline, older) if older else ""
    section = render(spec, data, machine, runs, pytrec, args.repeat, time.time() - started, baseline)
    print(section)
    if not args.quick:
        from bench_compare import write_section

        write_section(Path(args.output), BEGIN, END, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
