"""Shared helpers for text formats: loading bytes, gzip, BOM, binary detection."""

from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

from evalgui.core.errors import EvalInputError

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
# Whitespace as C's isspace() sees it, less the newline.
_WS_BYTES = (32, 9, 13, 11, 12)


def load_bytes(path: str | os.PathLike) -> bytes:
    """Read a file's bytes, gunzipping by extension or magic number; strip a UTF-8 BOM.

    Raises EvalInputError for missing, unreadable, empty or binary files.
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise EvalInputError(source, "no such file") from None
    except IsADirectoryError:
        raise EvalInputError(source, "is a folder, not a file") from None
    except PermissionError:
        raise EvalInputError(source, "permission denied") from None
    except OSError as exc:
        raise EvalInputError(source, f"cannot read the file ({exc.strerror or exc})") from None
    if source.lower().endswith(".gz") or data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            raise EvalInputError(source, "not a valid gzip file (truncated or corrupt)") from None
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if not data or data.isspace():
        raise EvalInputError(source, "the file is empty")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise EvalInputError(source, "binary data (a NUL byte), not a text file", data.count(b"\n", 0, nul) + 1)
    return data


def load_head(path: str | os.PathLike, size: int) -> bytes:
    """``load_bytes(path)[:size]``, reading (and for .gz, decompressing) only the head when that is enough."""
    source = os.fspath(path)
    gz = source.lower().endswith(".gz")
    try:
        with (gzip.open if gz else open)(source, "rb") as fh:
            head = fh.read(size + len(_BOM) + 1)
    except (OSError, EOFError, zlib.error):
        head = b""
    if head.startswith(_BOM):
        head = head[len(_BOM):]
    # Anything unusual (short file, gzip without .gz, NUL, only blanks): load_bytes decides, with its errors.
    if len(head) > size and head[:2] != _GZIP_MAGIC and b"\x00" not in head and not head.isspace():
        return head[:size]
    return load_bytes(source)[:size]


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


def drop_comment_lines(data: bytes) -> bytes:
    """Remove lines whose first non-blank character is '#'."""
    if b"#" not in data:
        return data
    return b"\n".join(line for line in data.split(b"\n") if not line.lstrip().startswith(b"#"))


def decode_line(raw: bytes, source: str, lineno: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EvalInputError(source, "not UTF-8 text (is this a binary file?)", lineno) from None


def iter_content_lines(data: bytes, source: str):
    """Yield (line number, whitespace-split byte tokens) for non-blank, non-comment lines."""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        tokens = raw.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        decode_line(raw, source, lineno)
        yield lineno, tokens


def file_stem(source: str) -> str:
    """The file's name without folders, a trailing .gz, and its extension."""
    name = os.path.basename(source)
    if name.lower().endswith(".gz"):
        name = name[:-3]
    stem, _ = os.path.splitext(name)
    return stem or name
