"""Benchmark: how promptly the desktop application's Cancel stops a job, in every workspace (issue 23, point 9).

Target: "The GUI's Cancel stops every job within 0.5 s." This measures evalgui only: none of
the reference tools has a window with a Cancel button.

Headless (``QT_QPA_PLATFORM=offscreen``), one process, the real main window. For each of the
five workspaces, a job that runs for several seconds on large generated inputs (written to a
temporary folder):

- Ranked retrieval: the sample qrels and bm25 run replicated under new query ids (300,000 run
  lines), evaluated as 16 runs;
- Compare systems: a per-query scores table (10 runs x 500 queries), randomization test at
  B = 5,000,000;
- Meta-evaluation: stability of 3 measures over the sample runs, 400,000 query sets of 10 and 25,
  4 repetitions;
- Measure stability: ``citations.tsv``'s columns replicated into a rank file of 20 systems x 3,000
  entities, 8 splits, 40 iterations, 500 bootstrap samples;
- Case-based retrieval: 100,000 cases generated from ``cars.csv``'s columns, 200 queries, MAC/FAC
  filter sizes 3 and 6 (the sample's model files).

Each job is started by clicking Run, Cancel is clicked (the real button) at the job's first
progress report ("at first report") and, separately, one second later ("mid-job"); the
latency is the time from the click until the workspace says it is no longer busy (its
``busy_changed(False)`` signal: the worker's thread has finished and the window knows).
Waits are on signals and timers, never sleeps. Each latency is the median of ``--repeat``
tries. "Whole job" is one uncancelled run, stopped at ``--cap`` seconds and then extrapolated
from the progress bar's fraction (marked ~).

    python benchmarks/bench_cancel.py             # writes its section of docs/benchmarks.md
    python benchmarks/bench_cancel.py --print     # prints only
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

BEGIN, END = "<!-- bench_cancel:begin -->", "<!-- bench_cancel:end -->"
TARGET = 0.5
SAMPLE = ROOT / "resources" / "sample_data"


# ---------------------------------------------------------------------------- generated inputs
def write_ranked(folder: Path, copies: int = 60) -> tuple[Path, Path]:
    """The synthetic qrels and bm25 run, each query replicated ``copies`` times under new ids."""
    def replicate(src: Path, dst: Path) -> Path:
        lines = src.read_text().splitlines()
        with dst.open("w") as out:
            for c in range(copies):
                out.write("".join(f"{q}_{c} {rest}\n" for q, _, rest in (line.partition(" ") for line in lines)))
        return dst
    return (replicate(SAMPLE / "synthetic" / "qrels.txt", folder / "big_qrels.txt"),
            replicate(SAMPLE / "synthetic" / "bm25.run", folder / "big.run"))


def write_scores(path: Path, n_runs: int = 10, n_queries: int = 500, seed: int = 3) -> Path:
    rng = np.random.default_rng(seed)
    frames = [pd.DataFrame({"run": f"r{r:02d}", "query": [f"q{q}" for q in range(n_queries)], "measure": "AP",
                            "value": np.clip(rng.normal(0.3 + 0.01 * r, 0.15, n_queries), 0, 1)})
              for r in range(n_runs)]
    pd.concat(frames).to_csv(path, index=False)
    return path


def write_ranks(path: Path, copies: int = 4, entity_copies: int = 50, seed: int = 5) -> Path:
    """citations.tsv's systems replicated ``copies`` times and its entities ``entity_copies`` times, each copy's
    ranks perturbed a little (so the systems differ)."""
    table = pd.read_csv(SAMPLE / "rankfile" / "citations.tsv", sep="\t", index_col=0)
    rng = np.random.default_rng(seed)
    ranks = np.tile(table.to_numpy(float), (entity_copies, copies))
    ranks = np.maximum(1, np.round(ranks * rng.uniform(0.8, 1.25, ranks.shape)))
    systems = [f"{s}{c}" for c in range(copies) for s in table.columns]
    entities = [f"E{i}" for i in range(ranks.shape[0])]
    pd.DataFrame(ranks.astype(int), index=pd.Index(entities, name=table.index.name), columns=systems).to_csv(
        path, sep="\t")
    return path


def write_cases(folder: Path, n_cases: int = 100_000, n_queries: int = 200, seed: int = 1) -> tuple[Path, Path]:
    cars = pd.read_csv(SAMPLE / "cbr" / "cars.csv")
    rng = np.random.default_rng(seed)
    big = cars.sample(n=n_cases, replace=True, random_state=seed).reset_index(drop=True)
    big["id"] = [f"c{i}" for i in range(n_cases)]
    big["price"] = big["price"] + rng.integers(-2000, 2000, n_cases)
    big["mileage"] = big["mileage"] + rng.integers(-5000, 5000, n_cases)
    cases, queries = folder / "many_cars.csv", folder / "many_queries.csv"
    big.to_csv(cases, index=False)
    big.sample(n=n_queries, random_state=seed + 1).assign(id=[f"q{i}" for i in range(n_queries)]).to_csv(
        queries, index=False)
    return cases, queries


# ---------------------------------------------------------------------------- waiting on signals
def wait_signal(signal, accept=lambda *args: True, timeout: float = 120.0, before=None) -> bool:
    """Run ``before()`` (e.g. a click), then the event loop until ``signal`` fires with arguments ``accept``
    takes; False on timeout."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    seen = []

    def slot(*args):
        if accept(*args):
            seen.append(args)
            loop.quit()
    signal.connect(slot)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(int(timeout * 1000))
    try:
        if before is not None:
            before()
        if not seen:
            loop.exec()
    finally:
        timer.stop()
        signal.disconnect(slot)
    return bool(seen)


def wait_timer(seconds: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def click(button) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def choose(combo, data) -> None:
    index = combo.findData(data)
    if index < 0:
        raise SystemExit(f"{data!r} is not offered by {combo.objectName()}")
    combo.setCurrentIndex(index)


def load(window, paths) -> None:
    if not wait_signal(window.files_loaded, timeout=300,
                       before=lambda: window.load_files([(str(p), None) for p in paths])):
        raise SystemExit(f"loading {paths} took too long")


# ---------------------------------------------------------------------------- the five set-ups
def set_up_ranked(window, folder: Path):
    import dataclasses

    qrels, run = write_ranked(folder)
    load(window, [qrels, run])
    session = window.session
    item = session.find(str(run))
    for i in range(1, 16):         # the same data under other names: a job of 16 runs, cheap to set up
        session.add(dataclasses.replace(item, path=str(folder / f"big_copy{i}.run")))
    ranked = window.workspaces["ranked"]
    ranked.set_qrels(str(qrels))
    return ranked, "300,000-line run (the sample's bm25 run x 60 under new query ids) as 16 runs, default measures"


def set_up_compare(window, folder: Path):
    scores = write_scores(folder / "scores.csv")
    load(window, [scores])
    compare = window.workspaces["compare"]
    choose(compare.form.source_combo, "scores")
    choose(compare.form.scores_combo, str(scores))
    choose(compare.form.test_combo, "randomization")
    compare.form.samples_spin.setValue(5_000_000)
    return compare, "scores of 10 runs x 500 queries (45 pairs), randomization test, B = 5,000,000"


def set_up_metaeval(window, folder: Path):
    synthetic = SAMPLE / "synthetic"
    load(window, [synthetic / "qrels.txt"] + [synthetic / f"{r}.run" for r in ("bm25", "dense", "rerank", "random")])
    metaeval = window.workspaces["metaeval"]
    form = metaeval.form
    form.picker.set_checked({"map": "", "P": "10", "recip_rank": ""})
    choose(form.experiment_combo, "stability")
    form.set_sizes_edit.setText("10, 25")
    form.sets_spin.setValue(400_000)
    form.stability_repetitions_spin.setValue(4)
    return metaeval, "stability of AP, P@10, RR on the 4 sample runs: 400,000 sets of 10 and 25 queries, 4 repetitions"


def set_up_stability(window, folder: Path):
    ranks = write_ranks(folder / "ranks.tsv")
    load(window, [ranks])
    stability = window.workspaces["stability"]
    form = stability.form
    form.picker.tick_only(("AP", "Average", "nDCG@Avg", "Average@10", "P@500_per"))
    form.total_spin.setValue(10_000)
    form.splits_edit.setText("5, 6, 8, 10, 12, 15, 20, 30")
    form.iterations_spin.setValue(40)
    form.bootstrap_spin.setValue(500)
    return stability, ("citations.tsv replicated to 20 systems x 3,000 entities; 5 measures, 8 splits, "
                       "40 iterations, 500 bootstrap samples")


def set_up_casebase(window, folder: Path):
    from PySide6.QtWidgets import QFileDialog

    cases, queries = write_cases(folder)
    load(window, [cases, queries])
    casebase = window.workspaces["casebase"]
    form = casebase.form
    choose(form.train_combo, str(cases))
    choose(form.test_combo, str(queries))
    original = QFileDialog.getOpenFileName
    try:
        for path, button in ((SAMPLE / "cbr" / "model.json", form.editor.load_button),
                             (SAMPLE / "cbr" / "mac_model.json", form.mac_file_button)):
            QFileDialog.getOpenFileName = staticmethod(lambda *a, _p=path, **k: (str(_p), ""))
            click(button)
    finally:
        QFileDialog.getOpenFileName = original
    form.filter_sizes.setText("3,6")
    form.ks.setText("3,3")
    return casebase, "100,000 cases from cars.csv's columns, 200 queries, the sample's model, MAC/FAC 3 and 6"


SET_UPS = {"Ranked retrieval": set_up_ranked, "Compare systems": set_up_compare, "Meta-evaluation": set_up_metaeval,
           "Measure stability": set_up_stability, "Case-based retrieval": set_up_casebase}


# ---------------------------------------------------------------------------- measuring
def start(workspace) -> str:
    """Click Run and wait for the job's first progress report; returns it."""
    reports = []
    workspace.status_message.connect(reports.append)
    try:
        if not wait_signal(workspace.busy_changed, lambda busy: busy, timeout=10, before=lambda: click(workspace.run_button)):
            raise SystemExit(f"{workspace.title}: Run did not start a job ({workspace.progress_label.text()})")
        if not reports and not wait_signal(workspace.status_message, timeout=120):
            raise SystemExit(f"{workspace.title}: no progress report")
    finally:
        workspace.status_message.disconnect(reports.append)
    return reports[0] if reports else ""


def cancel_latency(workspace, delay: float) -> tuple[float, str]:
    """Start the job, click Cancel ``delay`` seconds after its first progress report; seconds until not busy."""
    start(workspace)
    if delay:
        wait_timer(delay)
    if not workspace.is_busy():
        raise SystemExit(f"{workspace.title}: the job ended before it could be cancelled")
    at = workspace.progress_label.text()
    clicked = time.perf_counter()
    if not wait_signal(workspace.busy_changed, lambda busy: not busy, timeout=120,
                       before=lambda: click(workspace.cancel_button)):
        raise SystemExit(f"{workspace.title}: still busy 120 s after Cancel")
    latency = time.perf_counter() - clicked
    if "Cancelled" not in workspace.progress_label.text():
        raise SystemExit(f"{workspace.title}: not cancelled: {workspace.progress_label.text()}")
    return latency, at


def whole_job(workspace, cap: float) -> tuple[float, bool]:
    """One uncancelled run: its duration, or (stopped at ``cap``) the duration the progress bar extrapolates."""
    began = time.perf_counter()
    done = wait_signal(workspace.busy_changed, lambda busy: not busy, timeout=cap,
                       before=lambda: click(workspace.run_button))
    elapsed = time.perf_counter() - began
    if done:
        return elapsed, False
    fraction = workspace.progress.value() / workspace.progress.maximum()
    wait_signal(workspace.busy_changed, lambda busy: not busy, timeout=120, before=lambda: click(workspace.cancel_button))
    return (elapsed / fraction if fraction > 0 else float("inf")), True


def measure(repeat: int, cap: float, only: list[str] | None) -> list[dict]:
    from PySide6.QtWidgets import QApplication, QMessageBox

    from evalgui.gui.mainwindow import MainWindow

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp(prefix="bench-cancel-"))
    rows = []
    try:
        for title, set_up in SET_UPS.items():
            if only and not any(o.lower() in title.lower() for o in only):
                continue
            window = MainWindow()
            window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard     # closing asks nothing
            window.show()
            workspace, job = set_up(window, folder)
            window.tabs.setCurrentWidget(workspace)
            first = [cancel_latency(workspace, 0.0) for _ in range(repeat)]
            later = [cancel_latency(workspace, 1.0) for _ in range(repeat)]
            total, extrapolated = whole_job(workspace, cap)
            row = {"workspace": title, "job": job, "first": [t for t, _ in first], "later": [t for t, _ in later],
                   "first_at": first[0][1], "later_at": later[0][1], "total": total, "extrapolated": extrapolated}
            rows.append(row)
            print(f"{title}: at first report {', '.join(f'{1000 * t:.0f}' for t in row['first'])} ms; "
                  f"mid-job {', '.join(f'{1000 * t:.0f}' for t in row['later'])} ms; whole job "
                  f"{'~' if extrapolated else ''}{total:.1f} s", flush=True)
            print(f"    cancelled at: {row['first_at']!r} / {row['later_at']!r}", flush=True)
            window.setWindowModified(False)
            window.close()
            window.deleteLater()
            app.processEvents()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def machine() -> str:
    load1, load5, _ = os.getloadavg()
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; load average {load1:.1f} (1 min) / {load5:.1f} (5 min) when it started")


def render(rows: list[dict], repeat: int, cap: float, where: str, took: float) -> str:
    def ms(values):
        return f"{1000 * statistics.median(values):.0f} ms"

    def verdict(values):
        return "met" if statistics.median(values) < TARGET else "**NOT met**"

    lines = [BEGIN, "## Cancel in every workspace (`benchmarks/bench_cancel.py`)", "",
             f"{datetime.date.today().isoformat()}; {where}. evalgui only: no reference tool has a GUI. "
             f"The desktop window offscreen, one process; Run and Cancel clicked through the real buttons; the "
             f"latency runs from the Cancel click to the workspace's `busy_changed(False)` (the worker's thread "
             f"has finished). Median of {repeat} tries. \"Whole job\": one uncancelled run, extrapolated from the "
             f"progress bar after {cap:.0f} s when marked ~. Target: {1000 * TARGET:.0f} ms. "
             f"The benchmark took {took:.0f} s.", "",
             "| Workspace | Job | Cancel at the first progress report | Cancel 1 s later | Whole job |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['workspace']} | {r['job']} | {ms(r['first'])} ({verdict(r['first'])}) | "
                     f"{ms(r['later'])} ({verdict(r['later'])}) | {'~' if r['extrapolated'] else ''}"
                     f"{r['total']:.1f} s |")
    lines += ["", "Where the job was when Cancel was clicked (the progress line):", ""]
    lines += [f"- {r['workspace']}: \"{r['first_at']}\"; 1 s later: \"{r['later_at']}\"" for r in rows]
    lines += ["", "On a loaded machine (the load average above the number of cores) the latency includes waiting "
              "for a core: the worker and the window's thread share them with other processes.", END]
    return "\n".join(lines) + "\n"



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cap", type=float, default=6.0, help="seconds an uncancelled job may run before it is "
                        "stopped and its duration extrapolated")
    parser.add_argument("--only", nargs="*", help="workspaces whose title contains one of these words")
    parser.add_argument("--print", action="store_true", help="print only, do not write docs/benchmarks.md")
    args = parser.parse_args()
    os.environ.setdefault("EVALGUI_SETTINGS", os.path.join(tempfile.mkdtemp(prefix="bench-cancel-settings-"),
                                                           "settings.ini"))
    where = machine()
    began = time.perf_counter()
    rows = measure(args.repeat, args.cap, args.only)
    text = render(rows, args.repeat, args.cap, where, time.perf_counter() - began)
    print(text)
    if not args.print and not args.only:
        from bench_compare import write_section

        write_section(ROOT / "docs" / "benchmarks.md", BEGIN, END, text)


if __name__ == "__main__":
    main()
