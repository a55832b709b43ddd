"""Benchmark: the window's longest GUI-thread stall while each workspace's long job runs, with peers for scale.

Target: **no turn of the GUI thread takes 100 ms or more of its CPU while a workspace's long job runs**.
The GUI tests (tests/gui, ``Heartbeat.check``) only check that the window never freezes (0.5 s), since
CI's machines are slower; this script holds the 100 ms target.

One scenario per workspace, at the sizes of the GUI tests' heartbeat tests (the data is generated here,
seeded, into a temporary folder; nothing is imported from tests/):

- ranked: the big collection (300 queries x 1,000 documents, graded) evaluated as 8 runs, the default
  measures (tests/gui/test_mainwindow.py);
- compare: a per-query scores table of 30 runs x 500 queries x 2 measures, randomization test, B = 10,000
  over the 435 pairs, then the matrix tab shown (test_compare_workspace.py);
- preferences: 30 TREC runs x 100 queries x 300 documents, the 5 preferences without subtopics,
  randomization test, the Preferences tab drawn (test_compare_preferences.py);
- metaeval: the sample's 4 runs under 7 names each (28 runs), stability of AP, P@10, RR over 2,000 query
  sets, then the decisions tab (test_metaeval_workspace.py);
- stability: a rank file of 20 systems x 200 entities, 5 measures, splits 5 and 10, 10 iterations,
  B = 500, then the significance and trade-off tabs (test_stability_workspace.py);
- casebase: 50,000 cases: load the file, choose the sample model, type an id into the preview (a key at a
  time), choose another (test_casebase_scale.py).

Each scenario runs in ``--repeat`` fresh processes, offscreen (``QT_QPA_PLATFORM=offscreen``). A 10 ms
heartbeat QTimer on the GUI thread notes, at each beat, the wall clock and ``time.thread_time()`` (the GUI
thread's own CPU time). From the turn that starts the job to the one after its results are drawn, it
reports the job's wall time, the longest wall gap between two beats (which also holds waits for a core
and for the GIL), the longest GUI-thread CPU gap (our code's work on the GUI thread: the target) and the
number of turns over 50 ms. Medians over the processes; the verdict reads the worst process.

There is no peer GUI. Where a command-line peer does the same work it is timed for scale (pytrec_eval
for the ranked scenario); otherwise the row says "no peer".

    python benchmarks/bench_gui_workspaces.py                  # writes its section of docs/benchmarks.md
    python benchmarks/bench_gui_workspaces.py --quick          # smaller data, one process each, prints only
    python benchmarks/bench_gui_workspaces.py --quick --tiny --output /tmp/b.md   # the smoke test's run
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import bench_ranked as br  # noqa: E402
from bench_cancel import choose, click  # noqa: E402  (driving the window as a user does)

BEGIN, END = "<!-- bench_gui_workspaces:begin -->", "<!-- bench_gui_workspaces:end -->"
TARGET = 0.100               # seconds of GUI-thread CPU in one turn
LONG_TURN = 0.050            # turns counted
HEARTBEAT_MS = 10            # as the GUI tests' Heartbeat
SAMPLE = ROOT / "resources" / "sample_data"
STABILITY_MEASURES = ("AP", "Average", "nDCG@Avg", "Average@10", "P@500_per")
METAEVAL_MEASURES = {"map": "", "P": "10", "recip_rank": ""}
RANKED_MEASURES = {"map", "P.10", "ndcg_cut.10", "recall.100", "recip_rank"}   # the ranked form's defaults


@dataclasses.dataclass(frozen=True)
class Sizes:
    ranked_queries: int = 300
    ranked_docs: int = 1000
    ranked_copies: int = 8
    compare_runs: int = 30
    compare_queries: int = 500
    samples: int = 10_000                 # randomization tests (the form's default)
    pref_runs: int = 30
    pref_queries: int = 100
    pref_docs: int = 300
    metaeval_names: int = 7               # names per sample run: 4 x 7 = 28 runs
    metaeval_sets: int = 2000
    stability_systems: int = 20
    stability_entities: int = 200
    stability_iterations: int = 10
    stability_bootstrap: int = 500
    cases: int = 50_000


FULL = Sizes()
QUICK = Sizes(ranked_queries=100, ranked_copies=4, compare_runs=15, compare_queries=200, samples=2000, pref_runs=10,
              pref_queries=50, metaeval_names=3, metaeval_sets=500, stability_systems=10, stability_iterations=4,
              stability_bootstrap=200, cases=10_000)
TINY = Sizes(ranked_queries=20, ranked_docs=100, ranked_copies=2, compare_runs=4, compare_queries=30, samples=200,
             pref_runs=3, pref_queries=10, pref_docs=50, metaeval_names=1, metaeval_sets=50, stability_systems=4,
             stability_entities=30, stability_iterations=2, stability_bootstrap=50, cases=500)


# ---------------------------------------------------------------------------- data (seeded, as the tests make it)
def write_big_collection(folder: Path, n_queries: int, n_docs: int, seed: int = 7) -> tuple[Path, Path]:
    """Graded qrels and one TREC run of n_queries x n_docs lines."""
    import numpy as np

    rng = np.random.default_rng(seed)
    pool = 5 * n_docs
    qrels_lines = []
    for q in range(n_queries):
        docs = rng.choice(pool, size=100, replace=False)
        grades = rng.integers(0, 3, size=100)
        qrels_lines.extend(f"q{q} 0 d{d} {g}\n" for d, g in zip(docs, grades))
    qrels = folder / "big_qrels.txt"
    qrels.write_text("".join(qrels_lines))
    queries = np.repeat(np.arange(n_queries), n_docs)
    docs = np.concatenate([rng.permutation(pool)[:n_docs] for _ in range(n_queries)])
    ranks = np.tile(np.arange(1, n_docs + 1), n_queries)
    scores = (n_docs - ranks) + rng.random(n_queries * n_docs)
    run = folder / "big.run"
    run.write_text("".join(f"q{q} Q0 d{d} {r} {s:.4f} big\n" for q, d, r, s in zip(queries, docs, ranks, scores)))
    return qrels, run


def write_scores(path: Path, n_runs: int, n_queries: int, measures=("AP", "nDCG@10"), seed: int = 3) -> Path:
    """A per-query scores CSV (run, query, measure, value) of runs of steadily rising quality."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        for m in measures:
            values = np.clip(rng.normal(0.3 + 0.01 * r, 0.15, n_queries), 0, 1)
            rows += [(f"run{r:02d}", f"q{q:03d}", m, v) for q, v in enumerate(values)]
    pd.DataFrame(rows, columns=["run", "query", "measure", "value"]).to_csv(path, index=False)
    return path


def write_runs(folder: Path, n_runs: int, n_queries: int, n_docs: int, seed: int = 2) -> list[Path]:
    """Graded qrels and ``n_runs`` TREC runs of rising quality."""
    import numpy as np

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    quality = np.linspace(0.2, 1.5, n_runs)
    judged = min(60, n_docs)
    qrels, runs = [], [[] for _ in range(n_runs)]
    for q in range(n_queries):
        pool = rng.choice(10 * n_docs, size=n_docs, replace=False)
        grades = rng.choice(4, size=judged, p=[0.5, 0.25, 0.15, 0.1])
        qrels += [f"q{q} 0 d{d} {g}\n" for d, g in zip(pool[:judged], grades)]
        for r in range(n_runs):
            scores = np.concatenate((grades * quality[r], np.zeros(n_docs - judged))) + rng.normal(0, 1, n_docs)
            runs[r] += [f"q{q} Q0 d{d} 0 {s:.5f} r\n" for d, s in zip(pool, scores)]
    (folder / "qrels.txt").write_text("".join(qrels))
    for r, lines in enumerate(runs):
        (folder / f"system{r:02d}.run").write_text("".join(lines))
    return [folder / "qrels.txt"] + [folder / f"system{r:02d}.run" for r in range(n_runs)]


def write_ranks(path: Path, systems: int, entities: int, seed: int = 8, top: int = 10_000) -> Path:
    """A rank file of correlated systems (a shared latent log-rank, each system its own noise), some ties."""
    import numpy as np

    rng = np.random.default_rng(seed)
    latent = rng.normal(4.5, 1.5, entities)
    noise = rng.normal(0, 1, (entities, systems)) * rng.uniform(0.3, 1.2, systems)
    ranks = np.clip(np.round(np.exp(latent[:, None] + noise)), 1, top)
    ranks = np.where(rng.random(ranks.shape) < 0.1, ranks + 0.5, ranks)
    lines = ["Generated\t" + "\t".join(f"S{s + 1}" for s in range(systems))]
    lines += [f"E{e + 1}\t" + "\t".join(f"{v:g}" for v in row) for e, row in enumerate(ranks)]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_cases(path: Path, n_cases: int, seed: int = 11) -> Path:
    """``n_cases`` cars with the sample's columns, prices and mileages spread around the sample's."""
    import numpy as np
    import pandas as pd

    cars = pd.read_csv(SAMPLE / "cbr" / "cars.csv")
    rng = np.random.default_rng(seed)
    big = cars.sample(n=n_cases, replace=True, random_state=seed).reset_index(drop=True)
    big["id"] = [f"c{i}" for i in range(n_cases)]
    big["price"] = big["price"] + rng.integers(-3000, 3000, n_cases)
    big["mileage"] = np.maximum(big["mileage"] + rng.integers(-20000, 20000, n_cases), 0)
    big.to_csv(path, index=False)
    return path


def write_data(folder: Path, sizes: Sizes) -> None:
    (folder / "ranked").mkdir()
    write_big_collection(folder / "ranked", sizes.ranked_queries, sizes.ranked_docs)
    write_scores(folder / "scores.csv", sizes.compare_runs, sizes.compare_queries)
    write_runs(folder / "preferences", sizes.pref_runs, sizes.pref_queries, sizes.pref_docs)
    write_ranks(folder / "ranks.txt", sizes.stability_systems, sizes.stability_entities)
    write_cases(folder / "many_cars.csv", sizes.cases)


# ---------------------------------------------------------------------------- in the child: waiting, the heartbeat
class Heartbeat:
    """A 10 ms timer on the GUI thread noting (wall clock, GUI-thread CPU time) at each beat."""

    def __init__(self):
        from PySide6.QtCore import Qt, QTimer

        self.beats: list[tuple[float, float]] = []
        self.phases: list[tuple[float, str]] = []        # (when, what the scenario did then)
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(lambda: self.beats.append((time.perf_counter(), time.thread_time())))

    def phase(self, what: str) -> None:
        """From now on the scenario is doing ``what`` (named with the longest turn)."""
        self.phases.append((time.perf_counter(), what))

    def turns(self, start: float, job_end: float, end: float) -> dict:
        """The gaps between beats from the last beat before ``start`` to the first after ``end``; the longest
        CPU turn also split into those ending by ``job_end`` (the job ran) and after (its results drawn)."""
        import numpy as np

        beats = np.array(self.beats)
        first = max(int(np.searchsorted(beats[:, 0], start, side="right")) - 1, 0)
        last = min(int(np.searchsorted(beats[:, 0], end, side="left")), len(beats) - 1)
        during = beats[first:last + 1]
        wall, cpu = np.diff(during[:, 0]), np.diff(during[:, 1])
        in_job = during[1:, 0] <= job_end
        longest_end = during[1 + int(cpu.argmax()), 0]
        where = [what for when, what in self.phases if when < longest_end]
        return {"longest_in": where[-1] if where else "","beats": len(during), "max_wall": float(wall.max()), "max_cpu": float(cpu.max()),
                "max_cpu_job": float(cpu[in_job].max(initial=0)), "max_cpu_results": float(cpu[~in_job].max(initial=0)),
                "long_wall": int((wall > LONG_TURN).sum()), "long_cpu": int((cpu > LONG_TURN).sum())}


def wait_until(condition, timeout: float = 120.0, what: str = "") -> None:
    """Run the event loop until ``condition()`` holds (checked every 10 ms)."""
    from PySide6.QtCore import QEventLoop, QTimer

    if condition():
        return
    loop, deadline = QEventLoop(), time.perf_counter() + timeout
    poll = QTimer()
    poll.timeout.connect(lambda: loop.quit() if condition() or time.perf_counter() > deadline else None)
    poll.start(10)
    loop.exec()
    poll.stop()
    if not condition():
        raise SystemExit(f"timed out waiting for {what() if callable(what) else what or condition}")


def wait_signal(signal, accept=lambda *args: True, before=None, timeout: float = 120.0, what: str = "") -> None:
    """Run ``before()`` (a click), then the event loop until ``signal`` fires with arguments ``accept`` takes."""
    seen = []

    def slot(*args):
        if accept(*args):
            seen.append(args)
    signal.connect(slot)
    try:
        if before is not None:
            before()
        wait_until(lambda: bool(seen), timeout, what)
    finally:
        signal.disconnect(slot)


def next_beats(heartbeat: Heartbeat, n: int = 1) -> None:
    """Let the window have ``n`` turns (as it has between two things a user does)."""
    target = len(heartbeat.beats) + n
    wait_until(lambda: len(heartbeat.beats) >= target, 10, "the heartbeat")


def load(window, paths) -> None:
    wait_signal(window.files_loaded, before=lambda: window.load_files([(str(p), None) for p in paths]),
                what=f"loading {len(paths)} file(s)")


def not_busy(busy) -> bool:
    return busy is False


def add_names(window, path: Path, names: list[str]) -> None:
    """The loaded file at ``path`` registered again under each of ``names`` (the same data, as a copy loaded
    under another name would be): a job of many runs, cheap to set up."""
    item = window.session.find(str(path))
    if item is None:
        raise SystemExit(f"{path} was not loaded")
    for name in names:
        window.session.add(dataclasses.replace(item, path=str(path.parent / name)))


def run_job(workspace, heartbeat: Heartbeat) -> tuple[float, float]:
    """Click Run and wait until the job is over; (start, end of the job)."""
    heartbeat.phase("the job")
    start = time.perf_counter()
    if not workspace.run_button.isEnabled():
        raise SystemExit(f"{workspace.title}: Run is disabled ({workspace.progress_label.text()})")
    errors, done = [], []
    workspace.error.connect(lambda title, message: errors.append(f"{title}: {message}"))
    workspace.busy_changed.connect(lambda busy: done.append(True) if not busy else None)
    click(workspace.run_button)
    wait_until(lambda: done or errors, 120, lambda: f"the {workspace.title} job ({workspace.progress_label.text()})")
    if errors:
        raise SystemExit(f"{workspace.title}: {errors[0]}")
    return start, time.perf_counter()


def show_tab(workspace, page, heartbeat: Heartbeat) -> None:
    """Bring a result tab into sight and let it draw and paint (a few turns)."""
    heartbeat.phase(f"showing the {workspace.results_tabs.tabText(workspace.results_tabs.indexOf(page))} tab")
    workspace.results_tabs.setCurrentWidget(page)
    next_beats(heartbeat, 3)


# ---------------------------------------------------------------------------- the scenarios (each in its own child)
def scenario_ranked(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    qrels, run = data / "ranked" / "big_qrels.txt", data / "ranked" / "big.run"
    load(window, [qrels, run])
    add_names(window, run, [f"big_copy{i}.run" for i in range(1, sizes.ranked_copies)])
    ranked = window.workspaces["ranked"]
    window.tabs.setCurrentWidget(ranked)
    ranked.set_qrels(str(qrels))
    assert len(ranked.form.checked_run_paths()) == sizes.ranked_copies
    next_beats(heartbeat, 3)
    start, job_end = run_job(ranked, heartbeat)
    heartbeat.phase("the results shown")
    next_beats(heartbeat, 3)
    end = time.perf_counter()
    assert len(set(ranked.results["run"])) == sizes.ranked_copies, "the job did not run to the end"
    return {"start": start, "job_end": job_end, "end": end}


def scenario_compare(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    scores = data / "scores.csv"
    load(window, [scores])
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    choose(compare.form.source_combo, "scores")
    choose(compare.form.scores_combo, str(scores))
    choose(compare.form.test_combo, "randomization")
    compare.form.samples_spin.setValue(sizes.samples)
    next_beats(heartbeat, 3)
    start, job_end = run_job(compare, heartbeat)
    show_tab(compare, compare.matrix.page, heartbeat)          # the matrix catches up when shown
    end = time.perf_counter()
    pairs = sizes.compare_runs * (sizes.compare_runs - 1) // 2
    assert compare.comparison is not None and len(compare.comparison.table) == 2 * pairs, "the job did not finish"
    return {"start": start, "job_end": job_end, "end": end}


def scenario_preferences(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    from evalgui.core.ranked import preference

    folder = data / "preferences"
    load(window, [folder / "qrels.txt"] + sorted(folder.glob("system*.run")))
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    form = compare.form
    choose(form.source_combo, "runs")
    form.picker.set_checked({})
    ticked = [name for name, record in preference.REGISTRY.items() if not record.subtopics]
    for name in preference.REGISTRY:
        form.preference_list.set_checked(name, name in ticked)     # plain qrels: ST-RPP would be rpp again
    choose(form.test_combo, "randomization")
    form.samples_spin.setValue(sizes.samples)
    compare.results_tabs.setCurrentWidget(compare.preference_view.page)
    next_beats(heartbeat, 3)
    start, job_end = run_job(compare, heartbeat)
    heartbeat.phase("the Preferences tab drawn")
    # the tab in sight draws the heatmap, its marks and the tables when the results come, then paints them
    wait_until(lambda: compare.preference_view.model.rowCount() == sizes.pref_runs, 30, "the preference heatmap")
    next_beats(heartbeat, 5)
    end = time.perf_counter()
    pairs = sizes.pref_runs * (sizes.pref_runs - 1) // 2
    assert compare.preferences is not None and len(compare.preferences.table) == len(ticked) * pairs
    return {"start": start, "job_end": job_end, "end": end}


def scenario_metaeval(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    synthetic = SAMPLE / "synthetic"
    runs = [synthetic / f"{r}.run" for r in ("bm25", "dense", "rerank", "random")]
    load(window, [synthetic / "qrels.txt"] + runs)
    for run in runs:                                   # each sample run under more names: 28 runs
        add_names(window, run, [f"{run.stem}_{i}.run" for i in range(1, sizes.metaeval_names)])
    metaeval = window.workspaces["metaeval"]
    window.tabs.setCurrentWidget(metaeval)
    form = metaeval.form
    form.picker.set_checked(METAEVAL_MEASURES)
    choose(form.experiment_combo, "stability")
    form.sets_spin.setValue(sizes.metaeval_sets)
    n_runs = 4 * sizes.metaeval_names
    assert len(form.data.checked_run_paths()) == n_runs
    next_beats(heartbeat, 3)
    start, job_end = run_job(metaeval, heartbeat)
    show_tab(metaeval, metaeval.decisions.page, heartbeat)         # drawn when shown: runs x runs cells
    end = time.perf_counter()
    assert metaeval.outcome is not None and len(metaeval.outcome.runs) == n_runs, "the job did not finish"
    assert metaeval.decisions.model.frame.shape == (n_runs, n_runs)
    return {"start": start, "job_end": job_end, "end": end}


def scenario_stability(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    ranks = data / "ranks.txt"
    load(window, [ranks])
    stability = window.workspaces["stability"]
    window.tabs.setCurrentWidget(stability)
    form = stability.form
    form.picker.tick_only(STABILITY_MEASURES)
    form.total_spin.setValue(10_000)
    form.splits_edit.setText("5, 10")
    form.iterations_spin.setValue(sizes.stability_iterations)
    form.bootstrap_spin.setValue(sizes.stability_bootstrap)
    next_beats(heartbeat, 3)
    start, job_end = run_job(stability, heartbeat)
    show_tab(stability, stability.significance.page, heartbeat)      # drawn when shown: systems x systems
    show_tab(stability, stability.tradeoff.page, heartbeat)
    end = time.perf_counter()
    n = sizes.stability_systems
    assert stability.outcome is not None and len(stability.outcome.systems) == n, "the job did not finish"
    assert stability.significance.model.frame.shape == (n, n)
    return {"start": start, "job_end": job_end, "end": end}


def scenario_casebase(window, data: Path, sizes: Sizes, heartbeat: Heartbeat) -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    cases = data / "many_cars.csv"
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    form, box = casebase.form, casebase.form.preview
    query = "c31337" if sizes.cases > 31337 else f"c{sizes.cases // 2}"     # as the test: c31337 and c49999
    case = f"c{sizes.cases - 1}"
    next_beats(heartbeat, 3)
    heartbeat.phase("loading the file")
    start = time.perf_counter()
    load(window, [cases])                                       # train and test: the same file
    next_beats(heartbeat)
    heartbeat.phase("choosing the model")
    form.load_model(str(SAMPLE / "cbr" / "model.json"))
    wait_until(lambda: not form.reading_files(), 60, "the model file")
    wait_until(lambda: not casebase.preview_pending(), 60, "the first preview")
    assert box.query.count() == box.case.count() == sizes.cases
    heartbeat.phase("typing an id")
    box.query.lineEdit().selectAll()
    for key in query:                                           # a key at a time, the window answering each
        QTest.keyClicks(box.query.lineEdit(), key)
        next_beats(heartbeat)
    QTest.keyClick(box.query.lineEdit(), Qt.Key.Key_Return)
    next_beats(heartbeat)
    heartbeat.phase("choosing another case")
    choose(box.case, case)
    wait_until(lambda: not casebase.preview_pending(), 60, "the preview")
    next_beats(heartbeat, 3)
    end = time.perf_counter()
    assert box.query.currentData() == query and box.case.currentData() == case, "the cases were not chosen"
    return {"start": start, "job_end": end, "end": end}


SCENARIOS = {
    "ranked": ("Ranked retrieval", scenario_ranked),
    "compare": ("Compare systems", scenario_compare),
    "preferences": ("Compare systems: preferences", scenario_preferences),
    "metaeval": ("Meta-evaluation", scenario_metaeval),
    "stability": ("Measure stability", scenario_stability),
    "casebase": ("Case-based retrieval", scenario_casebase),
}


def describe(key: str, s: Sizes) -> str:
    """What the scenario's job is, in words, at these sizes."""
    pairs = {n: n * (n - 1) // 2 for n in (s.compare_runs, s.pref_runs)}
    return {
        "ranked": f"{s.ranked_queries:,} queries x {s.ranked_docs:,} documents evaluated as {s.ranked_copies} runs, "
                  f"the 5 default measures",
        "compare": f"scores of {s.compare_runs} runs x {s.compare_queries:,} queries x 2 measures, randomization "
                   f"test B = {s.samples:,} over {pairs[s.compare_runs]:,} pairs; the matrix tab shown",
        "preferences": f"{s.pref_runs} runs x {s.pref_queries:,} queries x {s.pref_docs:,} documents, 5 preferences, "
                       f"randomization test B = {s.samples:,} over {pairs[s.pref_runs]:,} pairs; the tab drawn",
        "metaeval": f"the 4 sample runs as {4 * s.metaeval_names}, stability of AP, P@10, RR over "
                    f"{s.metaeval_sets:,} query sets; the decisions tab shown",
        "stability": f"{s.stability_systems} systems x {s.stability_entities:,} entities, 5 measures, splits 5 and "
                     f"10, {s.stability_iterations} iterations, B = {s.stability_bootstrap:,}; two matrix tabs shown",
        "casebase": f"{s.cases:,} cases: load the file, choose the sample model, type an id into the preview, "
                    f"choose another",
    }[key]


def child(keys: list[str], data: Path, sizes: Sizes) -> None:
    """The scenarios ``keys`` in this (fresh) process, each in a new main window; prints a JSON line for each."""
    import resource

    if not os.environ.get("EVALGUI_SETTINGS"):      # never the user's settings
        os.environ["EVALGUI_SETTINGS"] = os.path.join(tempfile.mkdtemp(prefix="bench-gui-ws-"), "settings.ini")
    from PySide6.QtWidgets import QApplication, QMessageBox

    app = QApplication([])
    from evalgui.gui.mainwindow import MainWindow

    # Answer the questions as the tests do (tests/gui/conftest.py): a modal question would wait forever.
    MainWindow.ask_save_changes = lambda self: QMessageBox.StandardButton.Discard
    MainWindow.ask_stop_job = lambda self, then: True
    MainWindow.ask_trust = lambda self, path, outside: True
    MainWindow.ask_open_report = lambda self, path: False
    for key in keys:
        window = MainWindow()
        window.show()
        window.grab()
        app.processEvents()
        heartbeat = Heartbeat()
        heartbeat.timer.start(HEARTBEAT_MS)
        load_before = os.getloadavg()[0]
        marks = SCENARIOS[key][1](window, data, sizes, heartbeat)
        heartbeat.timer.stop()
        turns = heartbeat.turns(marks["start"], marks["job_end"], marks["end"])
        window.close()
        window.deleteLater()
        app.processEvents()
        print(json.dumps({"key": key, "job": marks["job_end"] - marks["start"], "span": marks["end"] - marks["start"],
                          **turns, "load": load_before,
                          "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)


def run_child(keys: list[str], data: Path, sizes: Sizes) -> list[dict]:
    """A fresh GUI process running the scenarios ``keys``; their numbers."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "EVALGUI_SETTINGS": os.path.join(tempfile.mkdtemp(prefix="bench-gui-ws-"), "settings.ini")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", ",".join(keys),
                          "--data", str(data), "--sizes", json.dumps(dataclasses.asdict(sizes))],
                         capture_output=True, text=True, env=env)
    shutil.rmtree(os.path.dirname(env["EVALGUI_SETTINGS"]), ignore_errors=True)
    if out.returncode != 0:
        raise SystemExit(f"the GUI process for {', '.join(keys)} failed:\n{out.stderr[-3000:]}")
    results = [json.loads(line) for line in out.stdout.splitlines() if line.startswith('{"key"')]
    if [r["key"] for r in results] != keys:
        raise SystemExit(f"the GUI process for {', '.join(keys)} reported {[r['key'] for r in results]}")
    return results


# ---------------------------------------------------------------------------- peers (for scale)
PYTREC_EVAL_RUNS = r"""
import json, sys
import pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(json.loads(sys.argv[4])))
for _ in range(int(sys.argv[3])):                 # the same run under every name, as the window's job
    per_query = evaluator.evaluate(run)
print(json.dumps({"map": sum(v["map"] for v in per_query.values()) / len(per_query)}))
"""

NO_PEER = {
    "compare": "no peer run here (ranx, bench_compare.py's peer, needs about 0.2 s of CPU per pair and measure)",
    "preferences": "no peer run here (pref_eval, bench_preference.py's peer, needs minutes for 30 runs)",
    "metaeval": "no peer",
    "stability": "no peer run here (the Ranking Evaluation Tool's port needs CPU-hours at this size)",
    "casebase": "no peer (no command-line tool has an interactive preview)",
}


def peer_ranked(data: Path, sizes: Sizes, repeat: int) -> str:
    bin_dir = Path(sys.executable).parent
    why = br.peer_available(bin_dir, "pytrec_eval")
    if why:
        return f"pytrec_eval {why}"
    tool = br.Tool("pytrec_eval", "pytrec_eval",
                   [sys.executable, "-c", PYTREC_EVAL_RUNS, str(data / "ranked" / "big_qrels.txt"),
                    str(data / "ranked" / "big.run"), str(sizes.ranked_copies), json.dumps(sorted(RANKED_MEASURES))],
                   br._json_means)
    result = br.run_tools([tool], repeat)[0]
    if not result.ok:
        return f"pytrec_eval failed: {result.failed or result.skipped}"
    return (f"pytrec_eval's whole process (read both files, evaluate the run {sizes.ranked_copies} times): "
            f"median {result.median:.2f} s")


# ---------------------------------------------------------------------------- the section
def render(rows: list[dict], sizes_name: str, repeat: int, machine: dict, load_end: float, took: float) -> str:
    def ms(seconds: float) -> str:
        return f"{1000 * seconds:.0f} ms"

    lines = [
        BEGIN,
        "## The window while each workspace's long job runs (benchmarks/bench_gui_workspaces.py)",
        "",
        f"Produced on {time.strftime('%Y-%m-%d %H:%M %Z')} (took {took / 60:.1f} min), offscreen Qt, {machine['cpu']}, "
        f"{machine['usable_cores']} cores; **load average {machine['loadavg'][0]:.2f} at the start, {load_end:.2f} "
        f"at the end** (the machine is shared: wall times are upper bounds). Data: {sizes_name}. Each scenario in "
        f"{repeat} fresh process(es); medians, the worst process in brackets. evalgui at {machine['commit']}"
        f"{' (with uncommitted changes)' if machine['dirty'] else ''}; re-run with "
        "`python benchmarks/bench_gui_workspaces.py` (the checkout on PYTHONPATH).",
        "",
        f"A {HEARTBEAT_MS} ms heartbeat QTimer on the GUI thread notes the wall clock and the GUI thread's CPU time "
        "(`time.thread_time`) at each beat, from the turn that starts the job until its results are drawn. The "
        "longest wall gap also holds waits for a core and for the GIL; the GUI-thread CPU gap is our code's work "
        f"in one turn: the target is that it stays under {ms(TARGET)}.",
        "",
        f"| workspace | job | job wall time | longest wall gap | longest GUI-thread CPU turn | of which: while "
        f"the job ran / showing its results | turns over {ms(LONG_TURN)} (wall / CPU) | < {ms(TARGET)} CPU | "
        "peer, for scale |",
        "|:---|:---|---:|---:|---:|---:|---:|:---|:---|",
    ]
    for r in rows:
        runs = r["runs"]

        def med(k):
            return statistics.median(x[k] for x in runs)

        worst_cpu = max(x["max_cpu"] for x in runs)
        verdict = "met" if worst_cpu < TARGET else "**NOT met**"
        lines.append(
            f"| {r['title']} | {r['job']} | {med('job'):.2f} s | {ms(med('max_wall'))} "
            f"({ms(max(x['max_wall'] for x in runs))}) | {ms(med('max_cpu'))} ({ms(worst_cpu)}) | "
            f"{ms(med('max_cpu_job'))} / {ms(med('max_cpu_results')) if r['key'] != 'casebase' else '–'} | "
            f"{med('long_wall'):g} / {med('long_cpu'):g} | {verdict} | {r['peer']} |")
    rss = max(x["maxrss_mb"] for r in rows for x in r["runs"])
    lines += ["", "Where the worst process's longest GUI-thread turn was: " + "; ".join(
        f"{r['title']}, {worst['longest_in']} ({ms(worst['max_cpu'])})"
        for r in rows for worst in [max(r["runs"], key=lambda x: x["max_cpu"])]) + "."]
    lines += [
        "",
        f"Peak RSS of a GUI process: {rss:.0f} MB. A job's wall time runs from the Run click until the workspace is "
        "no longer busy; its files were read before (the ranked peer's time includes reading them). For the "
        "case-based row the job is the whole sequence, from the load until the second preview is shown.",
        "",
        "The GUI tests (tests/gui, `Heartbeat.check` in tests/gui/conftest.py) check only that the window never "
        "freezes: no GUI-thread turn near 0.5 s while these jobs run. How short the turns are is this script's "
        "business: a timed test failed on CI's slower machine.",
        END,
        "",
    ]
    return "\n".join(lines)



def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller data, one process per scenario; print only "
                   "unless --output is given")
    p.add_argument("--tiny", action="store_true", help="with --quick: the smallest data (the smoke test's)")
    p.add_argument("--repeat", type=int, help="fresh processes per scenario (default 3, --quick 1)")
    p.add_argument("--only", nargs="*", choices=list(SCENARIOS), help="these scenarios only (prints only)")
    p.add_argument("--output", help="the Markdown file whose section is written (default docs/benchmarks.md)")
    p.add_argument("--child", help=argparse.SUPPRESS)              # scenario keys, comma-separated
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--sizes", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child.split(","), Path(args.data), Sizes(**json.loads(args.sizes)))
        return 0

    started = time.time()
    sizes, sizes_name = ((TINY, "tiny (the smoke test's)") if args.tiny else (QUICK, "reduced (--quick)")) \
        if args.quick else (FULL, "the GUI tests' sizes")
    repeat = args.repeat or (1 if args.quick else 3)
    machine = br.machine_info(Path(sys.executable).parent)
    keys = args.only or list(SCENARIOS)
    # a fresh process per scenario, the scenarios taken in turn at each repeat (background load hits them alike);
    # the smoke test's tiny run takes them all in one process (start-up is most of its time)
    batches = [keys] if args.tiny else [[key] for key in keys]
    runs: dict[str, list[dict]] = {key: [] for key in keys}
    folder = Path(tempfile.mkdtemp(prefix="bench-gui-workspaces-"))
    try:
        write_data(folder, sizes)
        print(f"data written in {time.time() - started:.1f} s", flush=True)
        for i in range(repeat):
            for batch in batches:
                for r in run_child(batch, folder, sizes):
                    runs[r["key"]].append(r)
                    print(f"{SCENARIOS[r['key']][0]} {i + 1}/{repeat}: job {r['job']:.2f} s, longest gap "
                          f"{1000 * r['max_wall']:.0f} ms wall, {1000 * r['max_cpu']:.0f} ms GUI-thread CPU (in "
                          f"{r['longest_in']}; job {1000 * r['max_cpu_job']:.0f}, results "
                          f"{1000 * r['max_cpu_results']:.0f}); turns over 50 ms {r['long_wall']} / {r['long_cpu']} "
                          f"({r['beats']} beats, load {r['load']:.1f})", flush=True)
        rows = [{"key": key, "title": SCENARIOS[key][0], "job": describe(key, sizes), "runs": runs[key],
                 "peer": peer_ranked(folder, sizes, repeat) if key == "ranked" else NO_PEER[key]} for key in keys]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    section = render(rows, sizes_name, repeat, machine, os.getloadavg()[0], time.time() - started)
    print(section)
    if args.output or not (args.quick or args.only):
        from bench_compare import write_section

        write_section(Path(args.output or ROOT / "docs" / "benchmarks.md"), BEGIN, END, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
