"""What the subcommands share: the parser class, messages and table output.

Light on purpose: importing this must not import numpy or pandas.
"""

from __future__ import annotations

import argparse
import os
import sys

from evalgui.cli.stopping import PROG  # noqa: F401 (the program's name, for the subcommands)

# "csv" and "tsv" of plain columns are written without pandas: importing it alone costs 0.2 s.
_DELIMITERS = {"csv": ",", "tsv": "\t"}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {one_line(message)} (see --help)\n")
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


# {copy of a pipe: the path the user gave}, so that messages name what the user typed.
SPOOLED: dict[str, str] = {}


def one_line(message: str) -> str:
    """``message`` as one line: spooled copies named as given, control characters (a newline in a file
    name or a cell) escaped."""
    for copy, path in SPOOLED.items():
        message = message.replace(copy, path)
    if message.isprintable():
        return message
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


def fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"{PROG}: error: {one_line(message)}\n")
    return status


def warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {one_line(message)}\n")


def listed(items: list[str], shown: int = 5) -> str:
    """The first few items, comma-separated, and how many more there are."""
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def warn_absent(run_source: str, absent: list[str]) -> None:
    """Judged queries a run has no results for, skipped (trec_eval's behaviour without -c)."""
    if absent:
        shown = listed(absent)
        warn(f"{len(absent)} judged quer{'y has' if len(absent) == 1 else 'ies have'} no results in "
             f"{run_source} and {'was' if len(absent) == 1 else 'were'} skipped ({shown}); use -c to score them 0")


def check_seed(option: str, seed) -> None:
    """A random seed is a whole number of 0 or more (numpy's generators refuse others)."""
    if seed is not None and seed < 0:
        raise UsageProblem(f"{option} (the random seed) must be a whole number of 0 or more, not {seed}")


# ------------------------------------------------------------------ tables out

def add_output_options(p: argparse.ArgumentParser) -> None:
    """--format and -o for a command that writes a table; read back with :func:`output_format`."""
    from evalgui.core.export import FORMATS

    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: from -o's extension, else csv); values are written exactly "
                        "(no spreadsheet quoting of cells starting with =), Markdown escapes what would render")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of standard output")


# The options that name a file the command writes, as the user typed them.
OUTPUT_OPTIONS = {"output": "-o", "save_ranks": "--save-ranks", "export_ground_truth": "--export-ground-truth",
                  "caveats": "--caveats"}


def check_outputs(args) -> None:
    """Refuse an output file that is also an input, or two outputs that are one file: the results
    would replace the data they come from, or each other."""
    for name, value in vars(args).items():
        if name in OUTPUT_OPTIONS and isinstance(value, str) and not value.strip():
            raise UsageProblem(f"{OUTPUT_OPTIONS[name]} needs a file name (leave the option out to write to "
                               "standard output)" if name == "output" else f"{OUTPUT_OPTIONS[name]} needs a file name")
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


# Inputs that are pipes or devices are copied to the temporary folder first; a copy stops here
# (raise it with the variable), or earlier when the folder's disk would keep less than the margin.
PIPE_LIMIT_VARIABLE = "EVALGUI_PIPE_LIMIT"
DEFAULT_PIPE_LIMIT = 16 << 30
FREE_SPACE_MARGIN = 256 << 20
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def pipe_limit() -> int:
    """The most bytes copied from one pipe or device: EVALGUI_PIPE_LIMIT (bytes, or with K, M, G, T)."""
    text = os.environ.get(PIPE_LIMIT_VARIABLE, "").strip().upper().removesuffix("B").removesuffix("I")
    if not text:
        return DEFAULT_PIPE_LIMIT
    number, unit = (text[:-1], text[-1]) if text[-1:] in _UNITS else (text, "")
    try:
        limit = int(float(number) * _UNITS[unit])
    except (ValueError, OverflowError):
        limit = -1
    if limit <= 0:
        raise UsageProblem(f"{PIPE_LIMIT_VARIABLE}={os.environ[PIPE_LIMIT_VARIABLE]} is not a size "
                           "(bytes, or a number with K, M, G or T, e.g. 64G)")
    return limit


def _size(n: int) -> str:
    unit = next((u for u in "TGMK" if n >= _UNITS[u]), "")
    return f"{n / _UNITS[unit]:,.{0 if not unit or n % _UNITS[unit] == 0 else 1}f} {unit}iB" if unit else f"{n:,} bytes"


def copy_pipe(path: str, copy: str) -> None:
    """Copy a pipe or device to ``copy`` with bounds: a text input's line may not pass MAX_LINE_BYTES
    (refused at its line number), and the copy stops at :func:`pipe_limit` or the free space of its
    disk less FREE_SPACE_MARGIN. Errors name ``path``."""
    import shutil

    from evalgui.core.errors import EvalInputError
    from evalgui.core.formats import _text

    limit = pipe_limit()
    free = shutil.disk_usage(os.path.dirname(copy)).free - FREE_SPACE_MARGIN
    cap = min(limit, max(free, 0))
    folder = os.path.dirname(os.path.dirname(os.path.dirname(copy)))
    total, line, line_length, text = 0, 1, 0, None
    try:
        with open(path, "rb") as source, open(copy, "wb") as target:
            while chunk := source.read(1 << 20):
                total += len(chunk)
                if total > cap:
                    if cap == limit:
                        reason = (f"stopped reading after {_size(limit)}, the limit for a pipe or device "
                                  f"(raise it with {PIPE_LIMIT_VARIABLE}=SIZE, e.g. 64G)")
                    else:
                        reason = (f"stopped reading after {_size(total - len(chunk))}: its copy would fill the "
                                  f"disk of the temporary folder {folder} (set TMPDIR to a folder with more room)")
                    raise EvalInputError(path, reason)
                if text is None:          # gzip, Parquet and JSON may be one long line
                    head = chunk.lstrip(b"\xef\xbb\xbf")
                    text = not (head[:2] == b"\x1f\x8b" or head[:4] == b"PAR1" or _text.looks_like_json(head))
                if text:
                    first = chunk.find(b"\n")
                    long_at = -1
                    if first < 0:
                        line_length += len(chunk)
                    elif line_length + first > _text.MAX_LINE_BYTES:
                        long_at = 0
                    else:
                        last = chunk.rfind(b"\n")
                        inner = _text.long_line_start(chunk, _text.MAX_LINE_BYTES, first + 1, last)
                        if inner >= 0:
                            line, long_at = line + chunk.count(b"\n", 0, inner), inner
                        else:
                            line += chunk.count(b"\n")
                            line_length = len(chunk) - last - 1
                    if long_at >= 0 or line_length > _text.MAX_LINE_BYTES:
                        raise EvalInputError(path, f"a line longer than {_text.MAX_LINE_BYTES:,} bytes: not a text "
                                                   "file evalgui reads", line)
                target.write(chunk)
    except OSError as exc:
        if exc.filename == path:
            raise
        raise EvalInputError(path, f"cannot copy it to the temporary folder {folder} "
                                   f"({exc.strerror or exc})") from None


def spool_pipes(args, folder: str) -> dict[str, str]:
    """Copy the inputs that are pipes (a named pipe, ``<(zcat run.gz)``, ``/dev/stdin``) to plain files in
    ``folder`` and point ``args`` at the copies: readers open a file twice (to guess its format, then to
    read it), and a pipe can be read only once. Returns {copy: path as given}, for messages. A copy keeps
    its file name, from which runs are named. Each copy is bounded (:func:`copy_pipe`)."""
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
        copy_pipe(path, copy)
        copies[copy] = SPOOLED[copy] = path
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
