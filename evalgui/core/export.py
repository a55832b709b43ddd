"""Writing result tables: atomically (temp file + rename) in CSV, TSV, JSON, LaTeX or Markdown."""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import secrets
import stat
from collections.abc import Iterator

FORMATS = ("csv", "tsv", "json", "latex", "markdown")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".json": "json", ".tex": "latex", ".md": "markdown"}


def format_from_path(path: str, default: str = "csv") -> str:
    return _EXTENSIONS.get(os.path.splitext(path)[1].lower(), default)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ".tmp") -> Iterator[str]:
    """Yield a temporary path in ``path``'s folder to write; on success it is renamed over ``path``.

    On failure the temporary file is removed and ``path`` keeps its old content. The new file gets
    the mode a plain ``open(path, "w")`` would give (0666 less the umask), or the mode of the file
    it replaces. ``suffix`` lets writers that pick the format from the name (images) see it.
    A symbolic link is written through (the link stays, its target gets the new content), and a
    path that is not a regular file (``/dev/stdout``, a named pipe) is written in place: a rename
    would replace the device or pipe with a plain file.
    Errors name ``path``, never the temporary file.
    """
    shown = os.fspath(path)
    try:
        existing = os.stat(shown)
    except (FileNotFoundError, NotADirectoryError):
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", shown)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        try:
            yield shown
        except OSError as exc:             # /dev/full: a write error names no file
            if exc.filename is None and exc.errno is not None:
                raise type(exc)(exc.errno, exc.strerror, shown) from exc
            raise
        return
    path = os.path.realpath(shown)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"the folder {os.path.dirname(os.path.abspath(shown))} does not exist",
                                shown)
    if folder not in _TIDIED:                  # once per folder: what a killed writer left there
        _TIDIED.add(folder)
        remove_abandoned_temporaries(folder)
    try:
        tmp = _create_temp(folder, suffix)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, shown) from None
    try:
        yield tmp
        if existing is not None:
            os.chmod(tmp, stat.S_IMODE(existing.st_mode))
        with open(tmp, "rb") as fh:        # the data is on disk before the rename makes it visible
            os.fsync(fh.fileno())
        try:
            os.replace(tmp, path)
        except OSError as exc:             # e.g. the target became a folder meanwhile
            raise type(exc)(exc.errno, exc.strerror, shown) from None
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        UNFINISHED.discard(tmp)
        # A full disk or a file-size limit (write() names no file): the output's name, not the temporary one's.
        if isinstance(exc, OSError) and exc.filename in (tmp, None) and exc.errno is not None:
            raise type(exc)(exc.errno, exc.strerror, shown) from exc
        raise
    UNFINISHED.discard(tmp)


# The temporary files being written now: a signal's handler removes them before the process ends at once.
UNFINISHED: set[str] = set()

# .evalgui-PID-XXXXXXXX.ext: the writer's process id, so that a file a killed process left can be told apart.
TEMP_PREFIX = ".evalgui-"
_TEMP_NAME = re.compile(r"\.evalgui-(?:(\d+)-)?[0-9a-f]{8}(?:\.[A-Za-z0-9]{1,8})?")
# A temporary file without a process id (written by an older evalgui) is abandoned after this long.
ABANDONED_AFTER = 24 * 3600
# The folders this process has written into (and so removed the abandoned temporary files of).
_TIDIED: set[str] = set()


def remove_unfinished() -> None:
    """Remove the temporary files being written (for a signal's handler: the process ends next)."""
    for tmp in list(UNFINISHED):
        try:
            os.unlink(tmp)
        except OSError:
            pass
    UNFINISHED.clear()


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (on this computer); someone else's process counts as running, and on
    Windows every process (there ``os.kill`` would end it)."""
    if pid == os.getpid() or os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def remove_abandoned_temporaries(folder: str | os.PathLike) -> list[str]:
    """Remove the temporary files that writers killed mid-write (SIGKILL, a power cut) left in ``folder``: ours
    (by name), owned by this user, and either of a process that no longer runs or older than
    :data:`ABANDONED_AFTER` (a process id used again, a file of an older evalgui without one). Returns their
    names."""
    import time

    try:
        names = [n for n in os.listdir(folder) if n.startswith(TEMP_PREFIX)]
    except OSError:
        return []
    removed = []
    for name in names:
        found = _TEMP_NAME.fullmatch(name)
        if not found:
            continue
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
                continue
            recent = time.time() - info.st_mtime < ABANDONED_AFTER
            if recent and (found.group(1) is None or process_alive(int(found.group(1)))):
                continue
            os.unlink(path)
            removed.append(name)
        except OSError:
            continue
    return removed


def _create_temp(folder: str, suffix: str) -> str:
    # Not tempfile.mkstemp: it creates files 0600. Created with 0666 the kernel applies the umask
    # (and a default ACL) exactly as for open(path, "w"), without reading the process-wide umask.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}{suffix}")
        try:
            os.close(os.open(tmp, flags, 0o666))
            UNFINISHED.add(tmp)
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", folder)


def write_atomic(path: str | os.PathLike, text: str, check=None) -> None:
    """Write ``text`` (UTF-8) so that ``path`` holds either its old content or all of the new one.
    ``check()``, called before the rename, may raise (a job's cancel check): ``path`` is then left as it was."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if check is not None:
            check()


def _cell(value) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.4f}"
    return str(value)


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}")):
        text = text.replace(a, b)
    return text


# Markdown that would render from a name: HTML (as entities: every renderer reads them), and with a backslash
# the code span, emphasis, strikethrough, link and image marks and the table's cell separator. An underscore
# inside a word emphasises nothing (CommonMark, GFM, Python-Markdown), so run_a keeps its underscore bare.
_MARKDOWN_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MARKDOWN_SPECIAL = re.compile(r"[\\`*~\[\]|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|[&<>]|[\r\n]+")


def markdown_escape(text: str) -> str:
    """``text`` as Markdown that shows it literally (in a table cell too): no tag, link, image or emphasis."""
    def escaped(match: re.Match) -> str:
        mark = match.group()
        if mark in _MARKDOWN_ENTITIES:
            return _MARKDOWN_ENTITIES[mark]
        return " " if mark[0] in "\r\n" else "\\" + mark

    return _MARKDOWN_SPECIAL.sub(escaped, text)


# OWASP's advice against formula injection: a spreadsheet runs a cell that starts with one of these.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Harmless however a spreadsheet reads them: a number written as text (a query id -1), a mark of dashes ("--").
_NO_FORMULA = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|-+")


def spreadsheet_text(value):
    """A text cell for a spreadsheet: one a spreadsheet would run as a formula gets a leading '."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NO_FORMULA.fullmatch(value):
        return "'" + value
    return value


def _spreadsheet_frame(frame):
    """A copy whose text cells (and column names) cannot run as formulas; number columns untouched."""
    text = [c for c in frame.columns if frame[c].dtype.kind not in "biufcmM"]
    renamed = {c: spreadsheet_text(c) for c in frame.columns if isinstance(c, str) and spreadsheet_text(c) != c}
    if not text and not renamed:
        return frame
    frame = frame.copy()
    for c in text:
        frame[c] = frame[c].map(spreadsheet_text)
    return frame.rename(columns=renamed)


SIGNIFICANT_DIGITS = 15  # what a double holds exactly in decimal, and what spreadsheets show


def clean_number(value: float) -> float:
    """``value`` to 15 significant digits, so that its shortest repr carries no floating-point noise
    (0.4546000000000011 -> 0.4546); infinities and NaN unchanged."""
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def _number_text(value: float) -> str:
    return "" if value != value else repr(clean_number(value))


def columns_to_delimited(columns: dict, sep: str = ",") -> str:
    """CSV/TSV of named columns, as pandas' ``to_csv(index=False)`` writes it, without importing pandas.

    Numbers have at most 15 significant digits; a missing value (NaN) is an empty cell."""
    import csv
    import io

    import numpy as np

    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(list(columns))
    cells = [[_number_text(v) if isinstance(v, float) else v for v in np.asarray(c).tolist()]
             for c in columns.values()]
    writer.writerows(zip(*cells))
    return out.getvalue()


def _clean_frame(frame):
    """A copy whose float columns have at most 15 significant digits."""
    import numpy as np

    floats = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    if not floats:
        return frame
    frame = frame.copy()
    for c in floats:
        values = frame[c].to_numpy(dtype=np.float64, copy=True)
        finite = np.isfinite(values)
        values[finite] = [clean_number(v) for v in values[finite].tolist()]
        frame[c] = values
    return frame


def to_text(frame, fmt: str, spreadsheet: bool = False) -> str:
    """Render a DataFrame in one of FORMATS (CSV/TSV/JSON: 15 significant digits; the others 4 decimals).

    ``spreadsheet``: CSV and TSV for a spreadsheet (the window's exports): text cells that would run as
    formulas start with '. Without it every value is written exactly, as programs read it."""
    if fmt in ("csv", "tsv", "json"):
        frame = _clean_frame(frame)
    if spreadsheet and fmt in ("csv", "tsv"):
        frame = _spreadsheet_frame(frame)
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    if fmt == "tsv":
        return frame.to_csv(index=False, sep="\t", lineterminator="\n")
    if fmt == "json":
        import json

        import numpy as np

        # Missing values (NaN, NA) and infinities have no JSON number: they are written as null.
        # json.dumps writes floats with repr(): full precision (pandas' to_json rounds to 10 places).
        plain = frame.replace([np.inf, -np.inf], np.nan).astype(object)
        plain = plain.where(plain.notna(), None)
        return json.dumps(plain.to_dict(orient="records"), indent=1, allow_nan=False, default=str) + "\n"
    columns = [str(c) for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    numeric = [frame[c].dtype.kind in "fiu" for c in frame.columns]
    if fmt == "markdown":
        out = ["| " + " | ".join(markdown_escape(c) for c in columns) + " |",
               "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
        out += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
        return "\n".join(out) + "\n"
    if fmt == "latex":
        spec = "".join("r" if n else "l" for n in numeric)
        out = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
               " & ".join(_latex_escape(c) for c in columns) + " \\\\", "\\midrule"]
        out += [" & ".join(_latex_escape(c) for c in row) + " \\\\" for row in rows]
        out += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(out) + "\n"
    raise ValueError(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
