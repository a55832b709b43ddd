"""The protocol long engine jobs follow: report progress, honour cancellation.

A job takes ``progress(fraction, message)`` and ``cancelled() -> bool``
callables. It calls ``check(cancelled)`` between steps; the GUI's worker turns
these into Qt signals, the CLI passes no-ops. Jobs never own threads.
"""

from __future__ import annotations

from typing import Callable

ProgressFn = Callable[[float, str], None]
CancelFn = Callable[[], bool]


class Cancelled(Exception):
    """Raised inside a job when its cancel check says stop."""


def no_progress(fraction: float, message: str = "") -> None:
    return None


def never_cancelled() -> bool:
    return False


def check(cancelled: CancelFn | None) -> None:
    if cancelled is not None and cancelled():
        raise Cancelled()
