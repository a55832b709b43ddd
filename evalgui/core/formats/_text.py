"""Shared helpers for text formats: loading bytes, gzip, BOM, binary detection."""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import os
import zlib

import numpy as np

from evalgui.core.errors import EvalInputError

_BOM = b"\xef\xbb\xbf"
# UTF-32's marks first: UTF-32LE's begins with UTF-16LE's.
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"), (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
              (b"\xff\xfe", "utf-16-le", "UTF-16"), (b"\xfe\xff", "utf-16-be", "UTF-16"))
_GZIP_MAGIC = b"\x1f\x8b"
# Whitespace as C's isspace() sees it, less the newline.
_WS_BYTES = (32, 9, 13, 11, 12)
# A .gz file is not decompressed past this: a few megabytes of gzip can expand to gigabytes.
MAX_GUNZIPPED_BYTES = 2 << 30


def check_regular(path: str | os.PathLike) -> None:
    """EvalInputError unless ``path`` is a regular file that reports its size: a FIFO would block the
    reader for good, a device (/dev/zero) never ends, a /proc-style file reports no size."""
    import stat

    source = os.fspath(path)
    try:
        info = os.stat(source)
    except FileNotFoundError:
        raise EvalInputError(source, "no such file") from None
    except OSError as exc:
        raise EvalInputError(source, f"cannot read the file ({exc.strerror or exc})") from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise EvalInputError(source, "is a folder, not a file")
    if not stat.S_ISREG(mode):
        what = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise EvalInputError(source, f"{what}, not a regular file: not read")
    if info.st_size == 0:
        try:
            with open(source, "rb") as fh:
                empty = not fh.read(1)
        except OSError as exc:
            raise EvalInputError(source, f"cannot read the file ({exc.strerror or exc})") from None
        if not empty:
            raise EvalInputError(source, "the file reports no size (a /proc-style file), so it is not read")


def gunzip(data: bytes, source: str, limit: int | None = None) -> bytes:
    """Decompress gzip ``data``, refusing to go past ``limit`` bytes (default MAX_GUNZIPPED_BYTES)."""
    import io

    limit = MAX_GUNZIPPED_BYTES if limit is None else limit
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            out = fh.read(limit + 1)
    except (OSError, EOFError, zlib.error):
        raise EvalInputError(source, "not a valid gzip file (truncated or corrupt)") from None
    if len(out) > limit:
        raise EvalInputError(source, f"decompresses to more than {limit:,} bytes: stopped there (a file this large "
                                     "is not an evaluation input, or it is a gzip bomb)")
    return out


# No line of a text input is longer (JSON, which may be one line, excepted): a longer one is not
# text we read (/dev/zero, a binary file), and refusing it early bounds what a pipe makes us keep.
MAX_LINE_BYTES = 1 << 20


def long_line_start(data: bytes, limit: int, start: int = 0, end: int | None = None) -> int:
    """Where the first line of ``data[start:end]`` longer than ``limit`` bytes (newline left out) starts,
    or -1. Steps a window's length at a time (one memrchr per step), not line by line."""
    end = len(data) if end is None else end
    pos = start
    while end - pos > limit:
        last = data.rfind(b"\n", pos, pos + limit + 1)
        if last < 0:
            return pos
        pos = last + 1
    return -1


def looks_like_json(data: bytes) -> bool:
    return data[:64].removeprefix(_BOM).lstrip()[:1] in (b"{", b"[")


def check_line_lengths(data: bytes, source: str) -> None:
    """Refuse a line longer than MAX_LINE_BYTES, at its line number (JSON may be a single line)."""
    if len(data) <= MAX_LINE_BYTES or looks_like_json(data):
        return
    at = long_line_start(data, MAX_LINE_BYTES)
    if at >= 0:
        raise EvalInputError(source, f"a line longer than {MAX_LINE_BYTES:,} bytes: not a text file evalgui reads",
                             data.count(b"\n", 0, at) + 1)


# A job reading a file with a progress bar reads it this much at a time, checking for Cancel in between.
READ_CHUNK_BYTES = 1 << 20


def _read_in_chunks(fh, source: str, state) -> bytes:
    """The rest of ``fh``, a chunk at a time: progress after each chunk, and Cancel checked in between (a slow
    disk or network share keeps a job in one ``read`` otherwise)."""
    try:
        size = os.fstat(fh.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = 0
    name = os.path.basename(source)
    chunks, done = [], 0
    while True:
        state.check()
        chunk = fh.read(READ_CHUNK_BYTES)
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
        state.progress(min(done / size, 1.0) if size else 0.0,
                       f"Reading {name}: {done / 1e6:,.1f} of {size / 1e6:,.1f} MB" if size else f"Reading {name}")
    state.check()
    return b"".join(chunks)


# trec_eval reads a UTF-8 byte-order mark as part of the first field ("\ufeff1"): `evalgui-cli trec_eval`
# keeps it, to print what the binary prints; every other reader leaves it out and says so (utf8_bom_note).
_KEEP_UTF8_BOM: contextvars.ContextVar[bool] = contextvars.ContextVar("evalgui_keep_utf8_bom", default=False)


@contextlib.contextmanager
def keeping_utf8_bom():
    """Within: a UTF-8 byte-order mark is read as text, as trec_eval reads it."""
    token = _KEEP_UTF8_BOM.set(True)
    try:
        yield
    finally:
        _KEEP_UTF8_BOM.reset(token)


def skip_utf8_bom(data: bytes) -> bytes:
    return data[len(_BOM):] if data.startswith(_BOM) and not _KEEP_UTF8_BOM.get() else data


def wide_encoding(data: bytes) -> tuple[str, str, int] | None:
    """(codec, name, length of the mark) when ``data`` starts with a UTF-16 or UTF-32 byte-order mark."""
    for mark, codec, name in _WIDE_BOMS:
        if data.startswith(mark):
            return codec, name, len(mark)
    return None


def from_wide(data: bytes, source: str, head: bool = False) -> bytes:
    """UTF-16 or UTF-32 text (told by its byte-order mark) as UTF-8, so that every reader reads it as it
    reads UTF-8; other bytes as they are. ``head``: ``data`` is the file's beginning only (a character
    cut at its end is left for later)."""
    found = wide_encoding(data)
    if found is None:
        return data
    import codecs

    codec, name, skip = found
    try:
        text = codecs.getincrementaldecoder(codec)().decode(data[skip:], final=not head)
    except UnicodeDecodeError as exc:
        line = data[skip:skip + exc.start].decode(codec, "replace").count("\n") + 1
        raise EvalInputError(source, f"not valid {name} text ({exc.reason}): save it as UTF-8", line) from None
    return text.encode("utf-8")


def _nul_problem(data: bytes, source: str) -> None:
    nul = data.find(b"\x00")
    if nul < 0:
        return
    line = data.count(b"\n", 0, nul) + 1
    sample = data[:256 - len(data[:256]) % 2]
    if len(sample) >= 8 and sample.count(0) * 2 == len(sample) and (not any(sample[1::2]) or not any(sample[0::2])):
        raise EvalInputError(source, "UTF-16 text without a byte-order mark (every other byte is 0): save it as "
                                     "UTF-8 (or as UTF-16 with a byte-order mark)", line)
    raise EvalInputError(source, "binary data, not a text file", line)


HEAD_CHECK_BYTES = 1 << 16


def _unpacked_head(source: str, size: int) -> bytes | None:
    """The first ``size`` bytes of a file, decompressed when it is gzip; None when it cannot be read."""
    try:
        with open(source, "rb") as fh:
            head = fh.read(size)
            if head[:2] == _GZIP_MAGIC:
                fh.seek(0)
                with gzip.GzipFile(fileobj=fh) as unpacked:
                    head = unpacked.read(size)
    except (OSError, EOFError, zlib.error):
        return None
    return head


def is_wide_file(path: str | os.PathLike) -> bool:
    """Whether the file is UTF-16 or UTF-32 text with a byte-order mark (readers that hand a path to Arrow
    read it through :func:`load_bytes` instead)."""
    return wide_encoding(_unpacked_head(os.fspath(path), 4) or b"") is not None


def check_head(path: str | os.PathLike) -> None:
    """Refuse a file whose first block is not text (a NUL byte) before anything reads the rest or
    estimates the memory it needs: a 2 GiB file of NUL bytes is refused after reading 64 KiB. Parquet
    (binary by design) and unreadable files pass: their reader says what is wrong."""
    source = os.fspath(path)
    head = _unpacked_head(source, HEAD_CHECK_BYTES)
    if head is None or head[:4] == b"PAR1":
        return
    _nul_problem(from_wide(head, source, head=True), source)


def utf8_bom_note(path: str | os.PathLike) -> str | None:
    """What to tell the user (after the file's name) when ``path`` starts with a UTF-8 byte-order mark, which
    the readers leave out; None when it does not."""
    head = _unpacked_head(os.fspath(path), len(_BOM))
    if head is None or not head.startswith(_BOM):
        return None
    return ("starts with a UTF-8 byte-order mark (an invisible character some editors write first): it was left "
            "out, so the first line reads as it looks")


@contextlib.contextmanager
def reading_errors(source: str):
    """Within: an OSError reading ``source`` is an EvalInputError saying what is wrong in words."""
    try:
        yield
    except FileNotFoundError:
        raise EvalInputError(source, "no such file") from None
    except IsADirectoryError:
        raise EvalInputError(source, "is a folder, not a file") from None
    except PermissionError:
        raise EvalInputError(source, "permission denied") from None
    except OSError as exc:
        raise EvalInputError(source, f"cannot read the file ({exc.strerror or exc})") from None


def load_bytes(path: str | os.PathLike, state=None) -> bytes:
    """Read a file's bytes, gunzipping by extension or magic number; UTF-16 and UTF-32 (with a byte-order
    mark) as UTF-8; strip a UTF-8 BOM (unless :func:`keeping_utf8_bom`).

    Raises EvalInputError for missing, unreadable, empty or binary files. With a job's ``state``
    (:class:`evalgui.core.jobs.JobState`) the file is read in chunks, reporting progress and stopping
    at Cancel (:class:`evalgui.core.jobs.Cancelled`) between chunks.
    """
    source = os.fspath(path)
    from evalgui.core import memory

    check_head(source)                   # a binary file is refused from its first block, whatever its size
    memory.check_room(source)            # under a memory limit: refused before, not aborted during
    with reading_errors(source):
        with open(source, "rb") as fh:
            data = fh.read() if state is None else _read_in_chunks(fh, source, state)
    if source.lower().endswith(".gz") or data[:2] == _GZIP_MAGIC:
        data = gunzip(data, source)
    data = skip_utf8_bom(from_wide(data, source))
    if not data or data.isspace():
        raise EvalInputError(source, "the file is empty")
    _nul_problem(data, source)
    check_line_lengths(data, source)
    return data


def load_head(path: str | os.PathLike, size: int) -> bytes:
    """``load_bytes(path)[:size]``, reading (and for .gz, decompressing) only the head when that is enough."""
    source = os.fspath(path)
    gz = source.lower().endswith(".gz")
    try:
        with (gzip.open if gz else open)(source, "rb") as fh:
            head = fh.read(size + len(_BOM) + 1)
            if wide_encoding(head):                       # UTF-32 takes 4 bytes a character
                head += fh.read(3 * size + 4)
    except (OSError, EOFError, zlib.error):
        head = b""
    if head[:2] != _GZIP_MAGIC:
        head = skip_utf8_bom(from_wide(head, source, head=True))
        _nul_problem(head, source)          # not text: refused here, not after reading the whole file
    # Anything unusual (short file, gzip without .gz, only blanks): load_bytes decides, with its errors.
    if len(head) > size and head[:2] != _GZIP_MAGIC and not head.isspace():
        return head[:size]
    return load_bytes(source)[:size]


def parse_json(data: bytes, source: str):
    """The JSON value of a file's bytes. Anything Python's parser refuses (nesting too deep for it,
    an integer of more than 4,300 digits) is an EvalInputError naming the file."""
    import json

    try:
        text = data.decode("utf-8").removeprefix("\ufeff")     # kept only for trec_eval's text formats
    except UnicodeDecodeError as exc:
        raise EvalInputError(source, "not UTF-8 text", data.count(b"\n", 0, exc.start) + 1) from None
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvalInputError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except RecursionError:
        raise EvalInputError(source, "the JSON is nested too deeply to read") from None
    except ValueError as exc:           # e.g. "Exceeds the limit (4300 digits) for integer string conversion"
        raise EvalInputError(source, f"invalid JSON: {str(exc).split(';')[0]}") from None


def collapse_whitespace(data: bytes) -> bytes:
    """Rewrite every run of blanks as one space and trim each line (vectorised).

    This lets a single-character-delimiter CSV parser read trec_eval's
    "any run of whitespace" format without a per-line Python loop.
    """
    if not data:
        return data
    a = np.frombuffer(data, dtype=np.uint8)
    ws = np.isin(a, _WS_BYTES)
    after_blank = np.empty(len(a), dtype=bool)
    after_blank[0] = True
    after_blank[1:] = ws[:-1] | (a[:-1] == 10)
    b = a[~(ws & after_blank)]
    ws = np.isin(b, _WS_BYTES)
    before_newline = np.empty(len(b), dtype=bool)
    if len(b):
        before_newline[-1] = True
        before_newline[:-1] = b[1:] == 10
    b = b[~(ws & before_newline)]
    b[np.isin(b, _WS_BYTES)] = 32
    return b.tobytes()


def drop_comment_lines(data: bytes, after_blanks: bool = True) -> bytes:
    """Remove comment lines: lines whose first non-blank character is '#' (trec_eval's runs), or,
    without ``after_blanks``, lines whose very first character is '#' (its qrels: " #q 0 d 1" is data)."""
    if b"#" not in data:
        return data
    if not after_blanks:
        return b"\n".join(line for line in data.split(b"\n") if not line.startswith(b"#"))
    return b"\n".join(line for line in data.split(b"\n") if not line.lstrip().startswith(b"#"))


def has_lone_cr(data: bytes) -> bool:
    """A carriage return not followed by a newline: a blank inside the line to trec_eval (C's isspace),
    a line break to a CSV parser."""
    return b"\r" in data and data.count(b"\r") != data.count(b"\r\n")


def decode_line(raw: bytes, source: str, lineno: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EvalInputError(source, "not UTF-8 text (is this a binary file?)", lineno) from None


def iter_content_lines(data: bytes, source: str, first_line: int = 1, comment_after_blanks: bool = True):
    """Yield (line number, whitespace-split byte tokens) for non-blank, non-comment lines.

    ``comment_after_blanks`` as ``after_blanks`` in :func:`drop_comment_lines`."""
    for lineno, raw in enumerate(data.split(b"\n"), first_line):
        tokens = raw.split()
        if not tokens or (tokens[0] if comment_after_blanks else raw).startswith(b"#"):
            continue
        decode_line(raw, source, lineno)
        yield lineno, tokens


def _and_list(items: list[str], more: int = 0) -> str:
    if more:
        return f"{', '.join(items)} and {more:,} more"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def duplicates_error(source: str, queries, docs, lines: np.ndarray, rows: np.ndarray, kind: str,
                     groups_shown: int = 3, lines_shown: int = 3) -> EvalInputError:
    """The one message for (query, document) pairs given more than once, whatever the format.

    ``rows`` (ascending) are every row of a repeated pair; ``queries``/``docs`` hold the ids of
    all rows (lists or Arrow arrays), ``lines`` their line numbers. The first few pairs are named,
    each with its first few lines, then counts: a file of 3,000 duplicates gives a short line.
    The line reported is where the first repeat is met (the second line of its pair).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = np.asarray(rows, dtype=np.int64)
    def strings(ids) -> pa.Array:    # the rows' ids as one plain string array
        ids = ids if isinstance(ids, (pa.Array, pa.ChunkedArray)) else pa.array(ids, pa.string())
        taken = ids.take(pa.array(rows)).cast(pa.string())
        return taken.combine_chunks() if isinstance(taken, pa.ChunkedArray) else taken

    q, d = strings(queries), strings(docs)
    qc, dc = (np.asarray(pc.dictionary_encode(x).indices, dtype=np.int64) for x in (q, d))
    _, group = np.unique(qc * (int(dc.max()) + 1) + dc, return_inverse=True)
    order = np.argsort(group, kind="stable")          # rows of each pair together, in row order
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    repeat_at = order[starts + 1]                     # the second row of each pair
    first = np.argsort(repeat_at, kind="stable")[:groups_shown]
    lines = np.asarray(lines)
    shown = []
    for g in first.tolist():
        members = lines[rows[order[starts[g]:starts[g] + min(sizes[g], lines_shown)]]].tolist()
        where = _and_list([str(n) for n in members], int(sizes[g]) - len(members))
        at = int(order[starts[g]])
        shown.append(f"'{d[at].as_py()}' for query '{q[at].as_py()}' (lines {where})")
    more = len(starts) - len(shown)
    return EvalInputError(
        source,
        f"the same document is given twice for one query in this {kind}: {'; '.join(shown)}"
        + (f"; and {more:,} more" if more else "") + (" (a run ranks each document once per query)" if kind == "run" else ""),
        int(lines[rows[repeat_at[first[0]]]]),
    )


def file_stem(source: str) -> str:
    """The file's name without folders, a trailing .gz, and its extension."""
    name = os.path.basename(source)
    if name.lower().endswith(".gz"):
        name = name[:-3]
    stem, _ = os.path.splitext(name)
    return stem or name
