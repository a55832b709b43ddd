"""What the subcommands share: the parser class, messages and table output.

Light on purpose: importing this must not import numpy or pandas.
"""

from __future__ import annotations

import argparse
import os
import sys

PROG = "evalgui-cli"
# "csv" and "tsv" of plain columns are written without pandas: importing it alone costs 0.2 s.
_DELIMITERS = {"csv": ",", "tsv": "\t"}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)


class UsageProblem(Exception):
    """Bad usage found after parsing (a value out of range, an unknown name): exit status 2, one line."""


def for_one_pass() -> None:
    """Called before numpy is imported by subcommands that read their input once, compute and quit:

    - no linear algebra here, so OpenBLAS need not start a thread per core as numpy loads (20-70 ms
      of every run on a busy machine);
    - numpy is not to ask the kernel for huge pages for its large arrays: a process that touches its
      memory once pays for each huge-page fault (2 MB zeroed, memory compacted when fragmented) more
      than it gains (0.2 s of a 1.2 s run on 2M lines, Linux with THP in "madvise" mode).

    Values the user set are kept."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return status


def warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {message}\n")


def listed(items: list[str], shown: int = 5) -> str:
    """The first few items, comma-separated, and how many more there are."""
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def warn_absent(run_source: str, absent: list[str]) -> None:
    """Judged queries a run has no results for, skipped (trec_eval's behaviour without -c)."""
    if absent:
        shown = listed(absent)
        warn(f"{len(absent)} judged quer{'y has' if len(absent) == 1 else 'ies have'} no results in "
             f"{run_source} and {'was' if len(absent) == 1 else 'were'} skipped ({shown}); use -c to score them 0")


# ------------------------------------------------------------------ tables out

def add_output_options(p: argparse.ArgumentParser) -> None:
    """--format and -o for a command that writes a table; read back with :func:`output_format`."""
    from evalgui.core.export import FORMATS

    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: from -o's extension, else csv)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of standard output")


# The options that name a file the command writes, as the user typed them.
OUTPUT_OPTIONS = {"output": "-o", "save_ranks": "--save-ranks", "export_ground_truth": "--export-ground-truth"}


def check_outputs(args) -> None:
    """Refuse an output file that is also an input, or two outputs that are one file: the results
    would replace the data they come from, or each other."""
    outputs = [(OUTPUT_OPTIONS[name], value) for name, value in vars(args).items()
               if name in OUTPUT_OPTIONS and isinstance(value, str) and value]
    if not outputs:
        return
    inputs = []
    for name, value in vars(args).items():
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            if name not in OUTPUT_OPTIONS and isinstance(item, str) and item:
                inputs.append(item)
                if "=" in item:                             # NAME=FILE
                    inputs.append(item.split("=", 1)[1])
    for i, (option, output) in enumerate(outputs):
        for candidate in inputs:
            if _same_file(output, candidate):
                raise UsageProblem(f"{option} {output} is also an input: the results would overwrite it")
        for other_option, other in outputs[i + 1:]:
            if _same_file(output, other):
                raise UsageProblem(f"{option} and {other_option} name the same file ({output})")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:                        # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


def spool_pipes(args, folder: str) -> dict[str, str]:
    """Copy the inputs that are pipes (a named pipe, ``<(zcat run.gz)``, ``/dev/stdin``) to plain files in
    ``folder`` and point ``args`` at the copies: readers open a file twice (to guess its format, then to
    read it), and a pipe can be read only once. Returns {copy: path as given}, for messages. A copy keeps
    its file name, from which runs are named."""
    import shutil
    import stat

    copies: dict[str, str] = {}

    def spooled(value: str) -> str:
        name, eq, path = value.partition("=") if "=" in value and not os.path.exists(value) else ("", "", value)
        try:
            is_pipe = not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path)
        except OSError:
            return value
        if not is_pipe:
            return value
        copy = os.path.join(folder, str(len(copies)), os.path.basename(path) or "input")
        os.makedirs(os.path.dirname(copy))
        with open(path, "rb") as source, open(copy, "wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
        copies[copy] = path
        return f"{name}{eq}{copy}"

    for option, value in vars(args).items():
        if option in OUTPUT_OPTIONS:
            continue
        if isinstance(value, str) and value:
            setattr(args, option, spooled(value))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            setattr(args, option, [spooled(v) if v else v for v in value])
    return copies


def output_format(args) -> str:
    from evalgui.core.export import format_from_path

    return args.format or (format_from_path(args.output) if args.output else "csv")


def write_table(table, fmt: str, output: str | None = None) -> None:
    """Write a DataFrame, or a dict of equal-length numpy columns, in one of export.FORMATS.

    To standard output, or to ``output`` atomically (the old file stays whole if anything fails).
    """
    from evalgui.core import export

    if fmt not in export.FORMATS:
        raise UsageProblem(f"unknown format '{fmt}' (choose from {', '.join(export.FORMATS)})")
    if isinstance(table, dict) and fmt in _DELIMITERS:
        text = export.columns_to_delimited(table, _DELIMITERS[fmt])
    else:
        if isinstance(table, dict):
            import pandas as pd

            table = pd.DataFrame(table)
        text = export.to_text(table, fmt)
    if output:
        export.write_atomic(output, text)
    else:
        sys.stdout.write(text)
