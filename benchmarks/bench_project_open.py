"""Benchmark: opening a project that lists many files (issue 23 point 2: 20,000 files must not stall the window).

In a fresh offscreen process: a project naming one qrels and N one-line runs is opened through
``MainWindow.open_project``; a 5 ms heartbeat QTimer on the GUI thread records the longest gap while the
project is read, its files checked and loaded on the worker, and the views refreshed; with each gap, the
GUI thread's own CPU time in it (on a loaded machine the gap also holds the time spent waiting for a core).

    python benchmarks/bench_project_open.py            # 20,000 files; prints only
    python benchmarks/bench_project_open.py -n 2000

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

CHILD = r"""
import json, os, sys, time
project = sys.argv[1]
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from evalgui.gui.mainwindow import MainWindow
MainWindow.ask_trust = lambda self, path, outside: True
window = MainWindow()
window.ask_before_discarding = False
window.show()
app.processEvents()
ticks, loop = [], QEventLoop()
heartbeat = QTimer()
heartbeat.setInterval(5)
cpu = []            # the GUI thread's CPU time at each tick: what a gap would be on a quiet machine
heartbeat.timeout.connect(lambda: (ticks.append(time.perf_counter()), cpu.append(time.thread_time())))
def check():
    if getattr(window, "_opening", None) is None and not window._loaders and window.session.items:
        loop.quit()
    else:
        QTimer.singleShot(20, check)
heartbeat.start()
start = time.perf_counter()
ticks.append(start)
cpu.append(time.thread_time())
window.open_project(project)
QTimer.singleShot(20, check)
loop.exec()
app.processEvents()
end = time.perf_counter()
ticks.append(end)
cpu.append(time.thread_time())
gaps = sorted(((b - a, d - c) for a, b, c, d in zip(ticks, ticks[1:], cpu, cpu[1:])), reverse=True)
print(json.dumps({"total": end - start, "files": len(window.session.items), "gaps": [g for g, _ in gaps[:5]],
                  "cpu": [c for _, c in gaps[:5]]}))
window.close()
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20_000, help="how many runs the project lists")
    args = parser.parse_args(argv)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, repo)
    from evalgui.core.project import make_project

    with tempfile.TemporaryDirectory(prefix="bench-project-") as folder:
        data = os.path.join(folder, "data")
        os.mkdir(data)
        files = [(os.path.join(data, "qrels.txt"), "qrels")]
        with open(files[0][0], "w") as fh:
            fh.write("q1 0 d1 1\n")
        for i in range(args.n):
            path = os.path.join(data, f"r{i:05}.run")
            with open(path, "w") as fh:
                fh.write(f"q1 Q0 d{i} 1 1.0 r{i}\n")
            files.append((path, "run"))
        project = os.path.join(folder, "p.evalgui")
        with open(project, "w") as fh:
            json.dump(make_project(project, files, {}), fh)
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": repo,
               "EVALGUI_SETTINGS": os.path.join(folder, "settings.ini")}
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", CHILD, project], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"the GUI child failed:\n{out.stderr[-3000:]}")
        result = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, load average {load:.2f}: a project of {args.n:,} runs opened in "
          f"{result['total']:.1f} s ({result['files']:,} files in the session); longest GUI-thread gaps "
          + ", ".join(f"{g * 1000:.0f} ms" for g in result["gaps"])
          + "; the GUI thread's CPU time in those gaps "
          + ", ".join(f"{c * 1000:.0f} ms" for c in result["cpu"]) + " (a shared machine's wait left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
