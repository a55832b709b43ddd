"""Benchmark: saving a project and writing a report keep the window answering (issue 23 point 2).

In a fresh offscreen process: the 2-million-line run of ``bench_ranked.py`` (2,000 queries x 1,000
documents) and its qrels are loaded and evaluated (AP, nDCG@10, P@10, R@100 and RR), then the project is
saved (``MainWindow.write_project``, results included) and the report written (``write_report``), each
``--repeat`` times; a 10 ms heartbeat QTimer on the GUI thread records the longest gap between two beats
while each runs, and the most CPU time the GUI thread itself spent between two beats (on a loaded machine a
gap also holds the wait for a core; the CPU time does not).
The first save hashes the files; later ones find the hashes known.

    python benchmarks/bench_save.py                       # data of bench_ranked.py (made when missing)
    python benchmarks/bench_save.py --data DIR            # a folder holding qrels.txt and run.txt
    python benchmarks/bench_save.py --tree /work/old      # an older checkout, for a before/after

Numbers only, no asserts; docs/benchmarks.md quotes them by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, os, sys, time
qrels, run, folder, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication([])
from evalgui.gui.mainwindow import MainWindow
MainWindow.ask_save_changes = lambda self: QMessageBox.StandardButton.Discard
MainWindow.ask_open_report = lambda self, path: False
window = MainWindow()
window.ask_before_discarding = False
window.show()
app.processEvents()
ranked = window.workspaces["ranked"]
ranked.form.picker.set_checked({})
for m in ("AP", "nDCG@10", "P@10", "R@100", "RR"):
    ranked.form.picker.add_custom(m)
loop = QEventLoop()
ranked.busy_changed.connect(lambda busy: None if busy else loop.quit())
window.load_files([(qrels, "qrels"), (run, "run")], then=ranked.run)
loop.exec()
for _ in range(20):
    app.processEvents()
beats = []
heartbeat = QTimer()
heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
heartbeat.timeout.connect(lambda: beats.append((time.perf_counter(), time.thread_time())))

def measure(action):
    beats.clear()
    heartbeat.start(10)
    beats.append((time.perf_counter(), time.thread_time()))
    start = time.perf_counter()
    assert action()
    took = time.perf_counter() - start
    app.processEvents()
    heartbeat.stop()
    beats.append((time.perf_counter(), time.thread_time()))
    gaps = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(beats, beats[1:])]
    return {"took": took, "gap": max(g for g, _ in gaps), "cpu": max(c for _, c in gaps)}

out = {"save": [], "report": []}
for _ in range(repeat):
    out["save"].append(measure(lambda: window.write_project(os.path.join(folder, "p.evalgui"), True)))
    out["report"].append(measure(lambda: window.write_report(os.path.join(folder, "r.html"))))
print(json.dumps(out))
window.close()
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="a folder with qrels.txt and run.txt (default: bench_ranked.py's data)")
    parser.add_argument("--tree", help="the evalgui checkout to measure (default: this one)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    repo = Path(__file__).resolve().parent.parent
    if args.data:
        data = Path(args.data)
    else:
        sys.path.insert(0, str(repo / "benchmarks"))
        import bench_ranked as br

        spec = br.DataSpec(2000, 1000, 30, 42)
        br.ensure_data(spec)
        data = spec.folder
    with tempfile.TemporaryDirectory(prefix="bench-save-") as folder:
        # (run in the temporary folder: ``python -c`` imports from its working directory before PYTHONPATH)
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": args.tree or str(repo),
               "EVALGUI_SETTINGS": os.path.join(folder, "settings.ini")}
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", CHILD, str(data / "qrels.txt"), str(data / "run.txt"), folder,
                              str(args.repeat)], capture_output=True, text=True, env=env, cwd=folder)
        if out.returncode != 0:
            raise SystemExit(f"the GUI child failed:\n{out.stderr[-3000:]}")
        result = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, load average {load:.2f}, {args.tree or repo}:")
    for what, runs in result.items():
        print(f"  {what}: took " + ", ".join(f"{r['took'] * 1000:.0f}" for r in runs) + " ms; longest GUI-thread gap "
              + ", ".join(f"{r['gap'] * 1000:.0f}" for r in runs) + " ms; most GUI-thread CPU time between two beats "
              + ", ".join(f"{r['cpu'] * 1000:.0f}" for r in runs) + " ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
