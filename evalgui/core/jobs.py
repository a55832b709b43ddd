"""The protocol every long engine job follows: one :class:`JobState` handed in.

A job is a plain callable ``job(state) -> result``. Through the state it
reports progress (``state.progress(fraction, message)``), hands over pieces
of the result early (``state.partial(value)``) and asks whether to stop
(``state.cancelled()``, or ``state.check()`` which raises :class:`Cancelled`).
Jobs never own threads: the GUI's worker builds a state whose callbacks emit
Qt signals, the command line passes none (:data:`NO_STATE`).

Progress is throttled here, once for every job, so that a job may report as
often as it likes without flooding the GUI thread with signals.
"""

from __future__ import annotations

import time
from typing import Any, Callable

ProgressFn = Callable[[float, str], None]

# At most this many progress reports a second reach the listener (the first and the last always do).
MAX_REPORTS_PER_SECOND = 20


class Cancelled(Exception):
    """Raised inside a job when its cancel check says stop."""


class JobState:
    """What a long job is handed: where to report progress and partial results, and whether to stop.

    ``on_progress(fraction, message)``, ``on_partial(value)`` and ``is_cancelled()`` are
    the listener's callbacks; any of them may be None.
    """

    def __init__(self, on_progress: ProgressFn | None = None, on_partial: Callable[[Any], None] | None = None,
                 is_cancelled: Callable[[], bool] | None = None, *,
                 min_interval: float | None = None, clock: Callable[[], float] = time.monotonic):
        self._on_progress = on_progress
        self._on_partial = on_partial
        self._is_cancelled = is_cancelled
        self._min_interval = 1.0 / MAX_REPORTS_PER_SECOND if min_interval is None else min_interval
        self._clock = clock
        self._last_report = -float("inf")

    def progress(self, fraction: float, message: str = "") -> None:
        """Report how far the job is (0 to 1). Reports closer together than the throttle allows are
        dropped, except the final one (fraction >= 1)."""
        if self._on_progress is None:
            return
        now = self._clock()
        if fraction < 1.0 and now - self._last_report < self._min_interval:
            return
        self._last_report = now
        self._on_progress(min(max(float(fraction), 0.0), 1.0), message)

    def partial(self, value: Any) -> None:
        """Hand over a finished piece of the result (e.g. one run's rows) before the job ends."""
        if self._on_partial is not None:
            self._on_partial(value)

    def cancelled(self) -> bool:
        return self._is_cancelled is not None and bool(self._is_cancelled())

    def check(self) -> None:
        """Raise :class:`Cancelled` when the listener asked the job to stop."""
        if self.cancelled():
            raise Cancelled()

    def scaled(self, start: float, stop: float, prefix: str = "") -> "JobState":
        """A state for one step of this job: its progress 0..1 maps onto ``start..stop`` of this
        one, its messages are prefixed; partial results and cancel checks pass straight through."""
        def report(fraction: float, message: str) -> None:
            text = f"{prefix}{message[:1].lower()}{message[1:]}" if prefix and message else prefix or message
            self.progress(start + (stop - start) * fraction, text)

        # The parent throttles: the child reports everything to it (a final child report is not final here).
        return JobState(report if self._on_progress is not None else None, self._on_partial, self._is_cancelled,
                        min_interval=0.0, clock=self._clock)


NO_STATE = JobState()
"""For callers that neither watch nor cancel (the command line, tests)."""


def state_or_default(state: JobState | None) -> JobState:
    return NO_STATE if state is None else state


def check_cap(what: str, value: int, cap: int, protects: str) -> None:
    """Every number that sizes a job has a ceiling: refuse ``value`` above ``cap`` (ValueError) with a
    message that says what the ceiling protects (memory, the running time)."""
    if value > cap:
        raise ValueError(f"{what} can be at most {cap:,}, not {value:,} (a limit that protects {protects})")
