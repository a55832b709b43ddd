"""evalgui-cli: the engines, headless.

    evalgui-cli trec_eval [-q] [-c] [-n] [-l N] [-M N] [-m MEASURE[.params]]... QRELS RUN
    evalgui-cli evaluate QRELS RUN [RUN ...] -m MEASURE [-m ...] [--per-query] [--format F] [-o FILE]
    evalgui-cli similarity --ground-truth GT.csv --predicted NAME=FILE... [-m METRIC]... [-k K]...
    evalgui-cli casebase --train T [--test Q] --model M.json [--mac-model M2.json] [--filter-sizes F,.. --ks K,..]
    evalgui-cli measures [--family F] [NAME]
    evalgui-cli run PROJECT.evalgui -o DIR [--check]
    evalgui-cli report PROJECT.evalgui -o report.html
    evalgui-cli preference QRELS RUN RUN [RUN ...] [-m MEASURE]... [--binary-threshold N] [--per-query] [--format F] [-o FILE]

Each subcommand is one module of this package with ``NAME``, ``HELP``,
``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``, listed
once in :data:`SUBCOMMANDS`. Its heavy imports happen inside ``run``, so that
start-up stays small.

Bad usage or bad input: exit status 2 and one line on stderr, never a traceback.
A bug: exit status 1 and one line (the traceback with EVALGUI_DEBUG=1).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import warnings
from importlib import import_module

from evalgui.cli.common import PROG, SPOOLED, Parser, UsageProblem, check_outputs, fail, spool_pipes
from evalgui.core.distribution import VersionAction

# The subcommands, in the order --help lists them: modules of this package.
SUBCOMMANDS = ("trec_eval", "evaluate", "compare", "preference", "metaeval", "stability", "similarity", "casebase",
               "measures", "run", "report")


def _subcommands() -> dict:
    return {module.NAME: module for module in (import_module(f"{__name__}.{name}") for name in SUBCOMMANDS)}


def build_parser() -> Parser:
    parser = Parser(prog=PROG, description="Evaluate retrieval runs (trec_eval-exact measures) from the command line.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in _subcommands().items():
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.DESCRIPTION))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line. Called without ``argv`` (as the program), the process then ends here."""
    if argv is None:
        from evalgui.core.memory import fit_allocators_to_limit

        fit_allocators_to_limit()
        _end_process(_main(None))
    return _main(argv)


def _end_process(status: int) -> None:
    """Flush and leave without tearing the interpreter down.

    At interpreter exit pyarrow's thread pools are destroyed while a worker may still be
    running, and a loaded machine then sometimes aborts with "terminate called without an
    active exception" (status 134, apache/arrow#34314) after all the output was written.
    Every file we write is closed (and renamed) by now, so nothing is lost by skipping that.
    """
    if "evalgui.core.scratch" in sys.modules:      # os._exit runs no atexit handler: temporary files go now
        sys.modules["evalgui.core.scratch"].remove_all()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe (`| head`): nothing more to say there
            pass
    os._exit(status)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    import tempfile

    SPOOLED.clear()
    _remove_abandoned_spools(tempfile.gettempdir())
    _thrifty_under_a_memory_limit()
    previous = _stop_on_signals()
    try:
        with tempfile.TemporaryDirectory(prefix=f"{SPOOL_PREFIX}{os.getpid()}-") as folder:
            copies: dict[str, str] = {}
            try:
                caught: list = []
                with warnings.catch_warnings():
                    warnings.simplefilter("default", RuntimeWarning)
                    shown = warnings.showwarning

                    def keep(message, category, *rest, **named):    # numpy's arithmetic warnings, and scipy's
                        if issubclass(category, RuntimeWarning):
                            caught.append(warnings.WarningMessage(message, category, *rest, **named))
                        else:
                            shown(message, category, *rest, **named)
                    warnings.showwarning = keep
                    status = _run(args, folder, copies)
                if status == 0:                      # an error is said in its one line alone
                    _say_warnings(caught)
                return status
            except _Failure as failure:
                message = failure.message
                for copy, path in copies.items():        # name the pipe the user gave, not our copy
                    message = message.replace(copy, path)
                return fail(message, failure.status)
    except Stopped as stop:                     # while the folder was made or removed
        return 128 + stop.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _thrifty_under_a_memory_limit() -> None:
    """Under a memory limit (ulimit -v, a cgroup's memory.max): Arrow's system memory pool, and at most two
    malloc arenas. jemalloc and glibc's per-thread arenas reserve hundreds of MiB of address space for
    Arrow's threads, and a 1 MiB qrels then no longer fits under a limit that the data would fit in."""
    from evalgui.core import memory

    if not memory.limited():
        return
    if "pyarrow" in sys.modules:
        import pyarrow

        pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    else:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).mallopt(-8, 2)        # M_ARENA_MAX (glibc)
        except (OSError, AttributeError):
            pass


# Pipes are copied into a folder named after the process (evalgui-pipes-PID-xxxx), so that one left by
# a killed run (SIGKILL leaves no time to clean up) can be told from a running one's and removed.
SPOOL_PREFIX = "evalgui-pipes-"


def _remove_abandoned_spools(temp: str) -> None:
    import re
    import shutil

    try:
        names = [n for n in os.listdir(temp) if n.startswith(SPOOL_PREFIX)]
    except OSError:
        return
    for name in names:
        found = re.fullmatch(rf"{SPOOL_PREFIX}(\d+)-\w+", name)
        if not found or int(found.group(1)) == os.getpid():
            continue
        path = os.path.join(temp, name)
        try:
            if os.lstat(path).st_uid != os.getuid() or _alive(int(found.group(1))):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True              # someone else's process: leave its folder alone
    return True


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, so that what is being written is removed as on
    Ctrl+C (SIGINT); the exit status is then 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop_on_signals() -> dict:
    """Handlers raising :class:`Stopped` for SIGTERM and SIGHUP; returns the ones they replace. A second
    signal is ignored, so that cleaning up is not cut short."""
    def stop(signum, _frame):
        for other in stopping:
            signal.signal(other, signal.SIG_IGN)
        raise Stopped(signum)

    stopping = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    previous = {}
    for signum in stopping:
        try:
            previous[signum] = signal.signal(signum, stop)
        except (ValueError, OSError):          # not the main thread (main() called from a worker)
            pass
    return previous


def _say_warnings(caught: list) -> None:
    """Python's warnings (numpy's "overflow encountered", say) as at most one line: the first, and how
    many more. On an error there is only the error's line."""
    from evalgui.cli.common import warn

    if caught:
        first = caught[0]
        more = f"; {len(caught) - 1} more warning{'s' if len(caught) > 2 else ''}" if len(caught) > 1 else ""
        warn(f"{first.message} ({first.category.__name__}{more}): check the results for NaN or infinite values")


class _Failure(Exception):
    """What :func:`_run` has to say on its one line of stderr, and the exit status."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.message, self.status = message, status


# A full disk, a file-size limit (RLIMIT_FSIZE), a quota.
_DISK_FULL = {getattr(errno, name) for name in ("ENOSPC", "EFBIG", "EDQUOT") if hasattr(errno, name)}


def _run(args, folder: str, copies: dict[str, str]) -> int:
    from evalgui.core.errors import EvalInputError, EvalUsageError

    try:
        check_outputs(args)
        copies.update(spool_pipes(args, folder))
        return _subcommands()[args.command].run(args)
    except (EvalInputError, EvalUsageError, UsageProblem) as exc:
        raise _Failure(str(exc)) from None
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); that is not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except KeyboardInterrupt as exc:           # Ctrl+C (SIGINT), or SIGTERM / SIGHUP (Stopped)
        stopped = 128 + getattr(exc, "signum", signal.SIGINT)
    except MemoryError as exc:                 # a reader's own MemoryError names its file already
        from evalgui.core import memory

        raise _Failure(memory.ran_out() + (f" ({exc})" if str(exc) else "")) from None
    except OSError as exc:
        where = exc.filename
        if where is None and exc.errno in _DISK_FULL:    # outputs to files name them: this is standard output
            where = "standard output"
        raise _Failure(f"{where or ''}: {exc.strerror or exc}".lstrip(": ")) from None
    except Exception as exc:  # a bug, not bad input: still one line, with a way to see more
        if os.environ.get("EVALGUI_DEBUG"):
            raise
        raise _Failure(f"internal error: {type(exc).__name__}: {exc} (set EVALGUI_DEBUG=1 for details)", 1) from None
    # Stopped: the interrupted work is let go of now, so that what it holds is released before the process
    # ends with os._exit (stability -t's worker processes get no signal of their own from `kill PID`).
    import gc

    gc.collect()
    if "multiprocessing" in sys.modules:
        for child in sys.modules["multiprocessing"].active_children():
            child.terminate()
    return stopped
