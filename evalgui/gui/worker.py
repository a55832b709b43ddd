"""Run engine jobs on a background QThread and report back through Qt signals.

An engine job is a plain callable ``job(state) -> result`` taking one
:class:`evalgui.core.jobs.JobState`: the worker's state turns its progress
(throttled) and partial results into Qt signals, and its cancel check into
the worker's stop flag (the job then raises :class:`evalgui.core.jobs.Cancelled`).
The GUI thread only ever receives queued signals, so it never blocks.
"""

from __future__ import annotations

import gc
import sys
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import Cancelled, JobState

# Workers whose thread is running: a QThread destroyed while running aborts the process,
# so a worker keeps itself alive until its thread has finished, whatever its owner does.
_RUNNING: set["Worker"] = set()

_SWITCH_INTERVAL = 0.001
_GC_DELAY_MS = 50           # the collection gets a turn of its own after the job's results are shown

# Python's cycle collector runs in whichever thread happens to allocate. If it frees a Qt
# object on a worker thread (a closed window's widgets, a finished worker), Qt's destructor
# there can deadlock with the GUI thread. So automatic collection is off while any worker
# runs, and switched back on from the GUI thread one turn of the event loop after the last
# one has finished: the collection of what the job left then costs a turn of its own, not
# a share of the turn that shows the results.
_GC_OWED = False         # we switched the collector off and owe switching it back on


def _collector_off() -> None:
    global _GC_OWED
    if gc.isenabled():
        gc.disable()
        _GC_OWED = True


def _collector_back_on() -> None:
    global _GC_OWED
    if _GC_OWED and not _RUNNING:
        _GC_OWED = False
        gc.collect(1)
        gc.enable()

_GC_TIMER: QTimer | None = None


def _collector_timer() -> QTimer:
    """One single-shot timer (on the GUI thread) that brings the collector back: not at once, as a 0 ms timer
    runs before the paints and timers waiting since the turn that showed the job's results."""
    global _GC_TIMER
    if _GC_TIMER is None:
        _GC_TIMER = QTimer()
        _GC_TIMER.setSingleShot(True)
        _GC_TIMER.setInterval(_GC_DELAY_MS)
        _GC_TIMER.timeout.connect(_collector_back_on)
    return _GC_TIMER


Job = Callable[[JobState], Any]


def cancel_all() -> None:
    """Ask every running job to stop."""
    for worker in list(_RUNNING):
        worker.cancel()


def wait_all(msecs: int = 5000) -> bool:
    """Wait for every running job's thread to finish (before the application quits)."""
    return all(worker.wait(msecs) for worker in list(_RUNNING))


class _Runner(QObject):
    progress = Signal(float, str)
    partial = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)      # one-line message, details (traceback for unexpected errors)
    cancelled = Signal()

    def __init__(self, job: Job, stop: threading.Event):
        super().__init__()
        self._job = job
        self._stop = stop

    @Slot()
    def run(self):
        try:
            result = self._job(JobState(self.progress.emit, self.partial.emit, self._stop.is_set))
        except Cancelled:
            self.cancelled.emit()
        except (EvalInputError, EvalUsageError) as exc:
            self.failed.emit(str(exc), "")
        except Exception as exc:  # a bug: still reported, never a vanished window
            self.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            if self._stop.is_set():
                self.cancelled.emit()
            else:
                self.succeeded.emit(result)
        finally:
            # Quit from this thread: a queued quit() would wait for the GUI thread's event loop,
            # which is blocked when the GUI thread waits for us (closing the window).
            QThread.currentThread().quit()


class Worker(QObject):
    """One background job. Connect to the signals, then call :meth:`start`.

    ``done`` fires last, whatever the outcome (success, failure or cancel).
    """

    progress = Signal(float, str)
    partial = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, job: Job, parent: QObject | None = None):
        # Usually no parent: a running worker is kept alive by _RUNNING, not by a widget that may
        # be deleted first.
        super().__init__(parent)
        self._stop = threading.Event()
        self._thread = QThread()
        self._runner = _Runner(job, self._stop)
        self._runner.moveToThread(self._thread)
        self._thread.started.connect(self._runner.run)
        for name in ("progress", "partial", "succeeded", "failed", "cancelled"):
            getattr(self._runner, name).connect(getattr(self, name))
        self._thread.finished.connect(self._finished)

    def start(self) -> None:
        _collector_off()
        # Hand the GIL over every millisecond (Python's default: 5 ms) so the GUI thread,
        # which gives it up on every call into Qt, is not kept waiting behind the job.
        if sys.getswitchinterval() > _SWITCH_INTERVAL:
            sys.setswitchinterval(_SWITCH_INTERVAL)
        _RUNNING.add(self)
        self._thread.start()

    @Slot()
    def _finished(self) -> None:
        _RUNNING.discard(self)
        if not _RUNNING and _GC_OWED:
            _collector_timer().start()      # restarted: 50 ms after the last job, not after each
        self.done.emit()

    def cancel(self) -> None:
        """Ask the job to stop at its next cancel check."""
        self._stop.set()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def wait(self, msecs: int = 5000) -> bool:
        """Block until the thread has finished (used when the window closes)."""
        return self._thread.wait(msecs)
