"""evalgui-cli: the engines, headless.

    evalgui-cli trec_eval [-q] [-c] [-n] [-l N] [-M N] [-m MEASURE[.params]]... QRELS RUN
    evalgui-cli evaluate QRELS RUN [RUN ...] -m MEASURE [-m ...] [--per-query] [--format F] [-o FILE]
    evalgui-cli similarity --ground-truth GT.csv --predicted NAME=FILE... [-m METRIC]... [-k K]...
    evalgui-cli casebase --train T [--test Q] --model M.json [--mac-model M2.json] [--filter-sizes F,.. --ks K,..]
    evalgui-cli measures [--family F] [NAME]
    evalgui-cli run PROJECT.evalgui -o DIR [--check]
    evalgui-cli preference QRELS RUN RUN [RUN ...] [-m MEASURE]... [--binary-threshold N] [--per-query] [--format F] [-o FILE]

Each subcommand is one module of this package with ``NAME``, ``HELP``,
``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``, listed
once in :data:`SUBCOMMANDS`. Its heavy imports happen inside ``run``, so that
start-up stays small.

Bad usage or bad input: exit status 2 and one line on stderr, never a traceback.
A bug: exit status 1 and one line (the traceback with EVALGUI_DEBUG=1).
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

from evalgui.cli.common import PROG, Parser, UsageProblem, check_outputs, fail, spool_pipes
from evalgui.core.distribution import VersionAction

# The subcommands, in the order --help lists them: modules of this package.
SUBCOMMANDS = ("trec_eval", "evaluate", "compare", "preference", "metaeval", "stability", "similarity", "casebase",
               "measures", "run")


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
        _end_process(_main(None))
    return _main(argv)


def _end_process(status: int) -> None:
    """Flush and leave without tearing the interpreter down.

    At interpreter exit pyarrow's thread pools are destroyed while a worker may still be
    running, and a loaded machine then sometimes aborts with "terminate called without an
    active exception" (status 134, apache/arrow#34314) after all the output was written.
    Every file we write is closed (and renamed) by now, so nothing is lost by skipping that.
    """
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

    with tempfile.TemporaryDirectory(prefix="evalgui-pipes-") as folder:
        copies: dict[str, str] = {}
        try:
            return _run(args, folder, copies)
        except _Failure as failure:
            message = failure.message
            for copy, path in copies.items():        # name the pipe the user gave, not our copy
                message = message.replace(copy, path)
            return fail(message, failure.status)


class _Failure(Exception):
    """What :func:`_run` has to say on its one line of stderr, and the exit status."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.message, self.status = message, status


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
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        raise _Failure(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")) from None
    except Exception as exc:  # a bug, not bad input: still one line, with a way to see more
        if os.environ.get("EVALGUI_DEBUG"):
            raise
        raise _Failure(f"internal error: {type(exc).__name__}: {exc} (set EVALGUI_DEBUG=1 for details)", 1) from None
