"""SIGINT (Ctrl+C), SIGTERM and SIGHUP end evalgui-cli at once, whatever it is doing.

The handler removes what is being written (the temporary files of atomic writes, the copies of pipes),
stops worker processes, writes one line and ends the process with status 128 + the signal's number.
It raises nothing: an exception raised from a handler lands wherever Python happens to be, and inside
Qt's drawing (a Python paint() called from C++), an import or a library's clean-up it was printed as a
traceback and ignored, or aborted the process. Nothing is lost by ending at once: every output is
written to a temporary name and renamed only when whole.

Light on purpose: installed before anything heavy is imported, so that a signal during start-up is
handled too.
"""

from __future__ import annotations

import os
import signal
import sys

PROG = "evalgui-cli"          # (here, not in common.py: this module imports nothing of evalgui's, to be first)
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# Folders of this process's own (the copies of pipes) that the handler removes.
FOLDERS: list[str] = []
# Child processes of this process's own (not multiprocessing's) that the handler ends.
PROCESSES: list[int] = []


def as_program() -> bool:
    """Whether this process is evalgui-cli itself (the installed command or ``python -m evalgui.cli``), not a
    program that imports it: only then may a signal end the process."""
    command = os.path.basename(sys.argv[0]) if sys.argv else ""
    original = getattr(sys, "orig_argv", [])
    return command.startswith("evalgui-cli") or any(
        option == "-m" and module == "evalgui.cli" for option, module in zip(original, original[1:]))


def stop_on_signals() -> None:
    """Install :func:`_stop` for the stopping signals (in the main thread only: elsewhere Python refuses)."""
    for signum in SIGNALS:
        try:
            signal.signal(signum, _stop)
        except (ValueError, OSError):
            pass


def _stop(signum, _frame) -> None:
    for other in SIGNALS:                   # a second signal must not cut the clean-up short
        try:
            signal.signal(other, signal.SIG_IGN)
        except (ValueError, OSError):
            pass
    try:
        _clean_up()
    finally:
        name = signal.Signals(signum).name
        line = f"{PROG}: stopped by {name}{' (Ctrl+C)' if name == 'SIGINT' else ''}\n"
        try:
            os.write(2, line.encode("utf-8", "replace"))     # not sys.stderr: it may be mid-write
        except OSError:
            pass
        os._exit(128 + signum)


def _clean_up() -> None:
    """Remove the files being written and this process's folders; stop worker processes."""
    export = sys.modules.get("evalgui.core.export")
    if export is not None:
        _quietly(export.remove_unfinished)
    scratch = sys.modules.get("evalgui.core.scratch")       # the by-query evaluation's partitions
    if scratch is not None:
        _quietly(scratch.remove_all)
    if FOLDERS:
        import shutil

        for folder in FOLDERS:
            _quietly(shutil.rmtree, folder, ignore_errors=True)
    for pid in PROCESSES:
        _quietly(os.kill, pid, signal.SIGKILL)
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None and multiprocessing.active_children():
        for child in multiprocessing.active_children():
            _quietly(child.terminate)
        # multiprocessing's own exit: the pools' finalizers, so that its resource tracker finds nothing
        # left to warn about ("leaked semaphore objects").
        util = sys.modules.get("multiprocessing.util")
        if util is not None:
            _quietly(util._exit_function)


def _quietly(action, *args, **named) -> None:
    try:
        action(*args, **named)
    except BaseException:                   # the process ends next whatever happens here
        pass
