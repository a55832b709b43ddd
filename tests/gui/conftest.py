"""Helpers for the desktop application's tests: a main window, loading files, running an evaluation.

Everything waits on signals or on conditions (never sleeps). An autouse fixture
stops and waits for every background worker a test left running, so no thread
outlives the widgets it reports to.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from evalgui.core.resources import sample_data  # noqa: E402

SAMPLE_DATA = sample_data()

SYNTHETIC = SAMPLE_DATA / "synthetic"
MEIC = SAMPLE_DATA / "meic"
SYNTHETIC_RUNS = ("bm25", "dense", "rerank", "random")

LOAD_TIMEOUT = 20_000
RUN_TIMEOUT = 30_000


@pytest.fixture(autouse=True)
def _no_worker_left_running(qtbot):
    """After each test: cancel and wait for the workers still running (before qtbot closes the windows)."""
    yield
    from evalgui.gui import worker as worker_module

    for worker in list(getattr(worker_module, "_RUNNING", ())):
        try:
            worker.cancel()
        except RuntimeError:      # its C++ side is gone already
            pass
    qtbot.waitUntil(lambda: not getattr(worker_module, "_RUNNING", ()), timeout=10_000)


@pytest.fixture(autouse=True)
def _questions_answered(monkeypatch):
    """A modal question would wait for a click: windows discard unsaved changes and stop a running
    evaluation without asking. Tests of the questions replace these answers on their window."""
    from PySide6.QtWidgets import QMessageBox

    from evalgui.gui.mainwindow import MainWindow

    monkeypatch.setattr(MainWindow, "ask_save_changes", lambda self: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(MainWindow, "ask_stop_job", lambda self, then: True)
    monkeypatch.setattr(MainWindow, "ask_trust", lambda self, path, outside: True)
    monkeypatch.setattr(MainWindow, "ask_open_report", lambda self, path: False)
    monkeypatch.setattr(MainWindow, "ask_stop_saving", lambda self: True)


@pytest.fixture
def make_window(qtbot):
    """Factory: a shown MainWindow that qtbot closes at the end of the test."""
    from evalgui.gui.mainwindow import MainWindow

    def make():
        window = MainWindow()
        qtbot.addWidget(window)
        window.show()
        return window
    return make


@pytest.fixture
def window(make_window):
    return make_window()


def load(qtbot, window, files, timeout=LOAD_TIMEOUT):
    """Load [(path, kind or None)] or [path] through the window and wait until the batch is read."""
    requests = [(str(f), None) if isinstance(f, (str, Path)) else (str(f[0]), f[1]) for f in files]
    with qtbot.waitSignal(window.files_loaded, timeout=timeout):
        window.load_files(requests)


def open_in_new_window(qtbot, make_window, project):
    """A fresh window with ``project`` opened in it, once its files are read and its forms restored."""
    window = make_window()
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(str(project))
    qtbot.waitUntil(lambda: not window._loaders, timeout=20_000)
    return window


def not_busy(busy):
    return busy is False


def run_and_wait(qtbot, workspace, timeout=RUN_TIMEOUT, click=True):
    """Press Run (the real button) and wait until the evaluation is over."""
    from PySide6.QtCore import Qt

    with qtbot.waitSignal(workspace.busy_changed, check_params_cb=not_busy, timeout=timeout):
        if click:
            qtbot.mouseClick(workspace.run_button, Qt.MouseButton.LeftButton)
        else:
            workspace.run()


def open_demo_and_wait(qtbot, window, timeout=RUN_TIMEOUT, only=("ranked",)):
    """The demo in the ranked workspace (``only``: those workspaces' keys; None: all); wait until it is over."""
    with qtbot.waitSignal(window.demo_finished, timeout=timeout):
        window.open_demo(only=only)
    return window.workspaces["ranked"]


def load_synthetic(qtbot, window, runs=SYNTHETIC_RUNS, folder: Path = SYNTHETIC):
    load(qtbot, window, [(folder / "qrels.txt", None)] + [(folder / f"{r}.run", None) for r in runs])


def copy_synthetic(dest: Path, runs=SYNTHETIC_RUNS) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(SYNTHETIC / "qrels.txt", dest / "qrels.txt")
    for r in runs:
        shutil.copy(SYNTHETIC / f"{r}.run", dest / f"{r}.run")
    return dest


def write_big_collection(folder: Path, n_queries=300, n_docs=1000, seed=7) -> tuple[Path, Path]:
    """Graded qrels and one TREC run of n_queries x n_docs lines (numpy-generated, seeded)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
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


@pytest.fixture(scope="session")
def big_collection(tmp_path_factory):
    return write_big_collection(tmp_path_factory.mktemp("big"))


def load_long_job(qtbot, window, big_collection, copies=40):
    """Load the big qrels and run from disk, then register ``copies`` more runs sharing the run's data
    (as if the same file were loaded under other names): a job of many runs, cheap to set up."""
    qrels, run = big_collection
    load(qtbot, window, [(qrels, None), (run, None)])
    session = window.session
    item = session.find(str(run))
    assert item is not None and item.kind == "run"
    for i in range(1, copies):
        session.add(dataclasses.replace(item, path=os.path.join(os.path.dirname(item.path), f"big_copy{i}.run")))
    ranked = window.workspaces["ranked"]
    ranked.set_qrels(str(qrels))
    assert len(ranked.form.checked_run_paths()) == copies
    return ranked


def spare_core() -> bool:
    """The machine had a core to spare (load average): then a wall-clock stall is our code's, not other processes'."""
    return os.getloadavg()[0] < (os.cpu_count() or 1) - 0.5


# Half a second without an answer is a window its user sees freeze. Tests check that no turn of the GUI thread
# comes near it, which only work done on the wrong thread can; how short the turns are (tens of ms) is a speed
# target, measured by benchmarks/bench_gui_workspaces.py (and bench_gui.py), not asserted here: CI machines are
# slower.
FREEZE = 0.5


class Heartbeat:
    """A 10 ms timer on the GUI thread that notes, at each beat, the wall clock and the GUI
    thread's own CPU time.

    Work our code does on the GUI thread shows as GUI-thread CPU time between two beats; a machine busy
    with other processes only stretches the wall-clock gaps. So :meth:`check` always bounds the former,
    and bounds the wall-clock gaps only when the machine had a core to spare."""

    def __init__(self):
        from PySide6.QtCore import Qt, QTimer

        self.beats: list[tuple[float, float]] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(lambda: self.beats.append((time.perf_counter(), time.thread_time())))

    def __enter__(self):
        self.timer.start(10)
        return self

    def __exit__(self, *exc):
        self.timer.stop()

    def check(self, start: float, end: float) -> str:
        """The window answered all along from ``start`` to ``end``: it beat, and no turn came near a freeze."""
        import numpy as np

        during = np.array([b for b in self.beats if start <= b[0] <= end]).reshape(-1, 2)
        assert len(during) >= 2, f"the GUI thread never beat in {1000 * (end - start):.0f} ms"
        wall_gaps = np.diff(np.concatenate([[start], during[:, 0], [end]]))
        cpu_gaps = np.diff(during[:, 1])
        report = (f"{len(during)} beats in {1000 * (end - start):.0f} ms; longest gap {1000 * wall_gaps.max():.1f} ms "
                  f"wall, {1000 * cpu_gaps.max():.1f} ms of GUI-thread CPU")
        assert cpu_gaps.max() < FREEZE, f"the GUI thread was busy {cpu_gaps.max():.3f} s between beats ({report})"
        spare = spare_core()
        if spare:
            assert wall_gaps.max() < 2 * FREEZE, f"the GUI thread stalled {wall_gaps.max():.3f} s ({report})"
        return report + ("" if spare else "; machine loaded: wall-clock gaps not checked")
