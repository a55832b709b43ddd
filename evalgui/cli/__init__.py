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

from evalgui.cli import stopping

if stopping.as_program():          # first: a signal during the imports ends the program cleanly too
    stopping.stop_on_signals()

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
        stopping.stop_on_signals()
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
    if not _libraries_load():
        from evalgui.core import memory

        return fail(memory.too_little_to_start())
    try:
        with tempfile.TemporaryDirectory(prefix=f"{SPOOL_PREFIX}{os.getpid()}-") as folder:
            stopping.FOLDERS.append(folder)
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
    finally:
        stopping.FOLDERS.clear()


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
    # OpenBLAS (numpy's, scipy's) allocates a 32 MiB buffer per thread as it loads, and scipy's retries a failed
    # one for ever: the process hung under ulimit -v.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).mallopt(-8, 2)        # M_ARENA_MAX (glibc)
        except (OSError, AttributeError):
            pass


# What every subcommand loads; the probe loads them with this much room kept back (the data's part comes later).
_LIBRARIES = ("numpy", "pyarrow", "pyarrow.compute")
_PROBE_MARGIN = 32 << 20


def _libraries_load() -> bool:
    """Under an address-space limit (ulimit -v), whether numpy, Arrow and pandas can be loaded: a forked child
    loads them first. A library that cannot map itself or allocate while it loads does not always raise: Arrow's
    allocators abort the process ("<jemalloc>: arena 0 background thread creation failed", std::bad_alloc:
    status 134) or it crashes. Without such a limit, or once they are loaded, nothing is checked."""
    import importlib

    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return True
    if soft == resource.RLIM_INFINITY or not hasattr(os, "fork") or any(m in sys.modules for m in _LIBRARIES):
        return True
    pid = os.fork()
    if pid == 0:                        # the child: silent (a library's own complaint is not the user's business)
        status = 1
        try:
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            import mmap

            kept = mmap.mmap(-1, _PROBE_MARGIN)            # noqa: F841 (address space held, never touched)
            for name in _LIBRARIES:
                importlib.import_module(name)
            status = 0
        finally:
            os._exit(status)
    stopping.PROCESSES.append(pid)
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        stopping.PROCESSES.remove(pid)
    return status == 0


# Pipes are copied into a folder named after the process (evalgui-pipes-PID-xxxx), so that one left by
# a killed run (SIGKILL leaves no time to clean up) can be told from a running one's and removed.
SPOOL_PREFIX = "evalgui-pipes-"


def _remove_abandoned_spools(temp: str) -> None:
    import re
    import shutil

    from evalgui.core.export import process_alive

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
            if os.lstat(path).st_uid != os.getuid() or process_alive(int(found.group(1))):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)


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


# What the dynamic loader says of a library it has no memory to map (glibc; ENOMEM's text).
_NO_ROOM_TO_LOAD = ("failed to map segment", "Cannot allocate memory")

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
    except KeyboardInterrupt:                  # Ctrl+C in a program that calls main(argv) (see stopping.py)
        return 128 + signal.SIGINT
    except MemoryError as exc:                 # a reader's own MemoryError names its file already
        from evalgui.core import memory

        raise _Failure(memory.ran_out() + (f" ({exc})" if str(exc) else "")) from None
    except OSError as exc:
        where = exc.filename
        if where is None and exc.errno in _DISK_FULL:    # outputs to files name them: this is standard output
            where = "standard output"
        raise _Failure(f"{where or ''}: {exc.strerror or exc}".lstrip(": ")) from None
    except Exception as exc:  # a bug, not bad input: still one line, with a way to see more
        from evalgui.core import memory

        if isinstance(exc, ImportError) and any(words in str(exc) for words in _NO_ROOM_TO_LOAD):
            # a library loaded late (scipy, Qt) that the memory limit leaves no room to map
            raise _Failure(memory.too_little_to_start()) from None
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc) and memory.limited():
            raise _Failure(memory.ran_out()) from None
        if os.environ.get("EVALGUI_DEBUG"):
            raise
        raise _Failure(f"internal error: {type(exc).__name__}: {exc} (set EVALGUI_DEBUG=1 for details)", 1) from None
