"""The background worker: results, progress, partial results, errors, cancel, a responsive GUI thread."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QTimer  # noqa: E402

from evalgui.core.errors import EvalInputError  # noqa: E402
from evalgui.gui.worker import Worker  # noqa: E402


def test_success_with_progress_and_partial_results(qtbot):
    def job(state):
        for i in range(3):
            state.partial(i)
            state.progress((i + 1) / 3, f"step {i}")
        return "done"

    worker = Worker(job)
    partials, fractions = [], []
    worker.partial.connect(partials.append)
    worker.progress.connect(lambda f, m: fractions.append(f))
    with qtbot.waitSignal(worker.succeeded, timeout=5000) as blocker, qtbot.waitSignal(worker.done, timeout=5000):
        worker.start()
    assert blocker.args == ["done"]
    assert partials == [0, 1, 2] and fractions[-1] == 1.0


def test_bad_input_reaches_the_gui_as_a_message(qtbot):
    def job(state):
        raise EvalInputError("run.txt", "the score 'x' is not a number", 3)

    worker = Worker(job)
    with qtbot.waitSignal(worker.failed, timeout=5000) as blocker, qtbot.waitSignal(worker.done, timeout=5000):
        worker.start()
    assert blocker.args[0] == "run.txt, line 3: the score 'x' is not a number"
    assert blocker.args[1] == ""  # no traceback for bad input


def test_unexpected_error_is_reported_with_details(qtbot):
    def job(state):
        return 1 / 0

    worker = Worker(job)
    with qtbot.waitSignal(worker.failed, timeout=5000) as blocker, qtbot.waitSignal(worker.done, timeout=5000):
        worker.start()
    assert blocker.args[0].startswith("ZeroDivisionError") and "Traceback" in blocker.args[1]


def test_cancel_stops_a_long_job_and_the_gui_thread_keeps_running(qtbot):
    import time

    def job(state):
        while True:  # a long job that checks for cancellation between steps
            state.check()
            time.sleep(0.005)

    beats = []
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: beats.append(1))
    heartbeat.start(10)
    worker = Worker(job)
    worker.start()
    qtbot.waitUntil(lambda: len(beats) >= 10, timeout=5000)  # the GUI thread is not starved
    with qtbot.waitSignal(worker.cancelled, timeout=500), qtbot.waitSignal(worker.done, timeout=500):
        worker.cancel()
    heartbeat.stop()
    assert not worker.is_running()


def test_a_dropped_worker_finishes_without_crashing(qtbot):
    from evalgui.gui import worker as worker_module

    def job(state):
        return 42

    worker = Worker(job)
    done = worker.done
    with qtbot.waitSignal(done, timeout=5000):
        worker.start()
        del worker  # the owner lets go while the thread runs
    qtbot.waitUntil(lambda: not worker_module._RUNNING, timeout=2000)


def test_cycles_are_collected_in_the_gui_thread_only(qtbot):
    """A worker thread must never free Qt objects: no automatic collection while workers run."""
    import gc
    import threading

    from PySide6.QtCore import QObject

    enabled = []
    worker = Worker(lambda state: enabled.append(gc.isenabled()))
    with qtbot.waitSignal(worker.done, timeout=10_000):
        worker.start()
    assert enabled == [False]                             # off while it ran,
    qtbot.waitUntil(gc.isenabled, timeout=2000)           # on again one turn after

    freed_in = []

    class Holder(QObject):
        def __del__(self):
            freed_in.append(threading.current_thread() is threading.main_thread())

    holder = Holder()
    holder.cycle = holder                 # only the cycle collector can free it
    del holder
    worker = Worker(lambda state: [[] for _ in range(200_000)])   # allocates: would trigger a collection
    with qtbot.waitSignal(worker.done, timeout=10_000):
        worker.start()
    assert freed_in == []                 # the worker's allocations did not collect it
    gc.collect()                          # the GUI thread's next automatic collection
    assert freed_in == [True]


def test_a_job_started_right_after_another_still_runs_without_the_collector(qtbot):
    """The collector comes back one turn after the last job: a job started in between keeps it off."""
    import gc

    seen = []
    first, second = Worker(lambda state: None), Worker(lambda state: seen.append(gc.isenabled()))
    first.done.connect(second.start)       # in the same turn as the first job's end
    with qtbot.waitSignal(second.done, timeout=10_000):
        first.start()
    assert seen == [False]
    qtbot.waitUntil(gc.isenabled, timeout=2000)
