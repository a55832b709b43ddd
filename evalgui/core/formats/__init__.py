"""Readers for qrels and runs. Use :func:`read_qrels` and :func:`read_run`.

``format="auto"`` picks the reader from the extension (.json, .csv, .tsv,
.parquet) and, for plain text, from the shape of the first content line:
one field is a relevant-document list, four fields are TREC qrels, six or
more are a TREC run.
"""

from __future__ import annotations

import contextlib
import os

from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError
from evalgui.core.formats import _text
from evalgui.core.formats.extensions import EXTENSIONS, extension_of, patterns, table_separator  # noqa: F401  (this package's interface)

FORMATS = ("auto", "trec", "relevant_list", "json", "csv", "tsv", "parquet")


def _extension_format(source: str) -> str | None:
    """Formats decided by the extension alone (a .tsv needs its header to be one)."""
    fmt = extension_of(source)
    return None if fmt == "tsv" else fmt


def _is_number(token: bytes) -> bool:
    try:
        float(token)
        return True
    except ValueError:
        return False


def first_content_tokens(source: str) -> list[bytes]:
    """The first content line's fields (blank and comment lines skipped; an inline comment cut off,
    except in a whole TREC line, whose iteration may be '#')."""
    for raw in _text.load_head(source, 1 << 16).split(b"\n"):
        tokens = raw.split()
        if not tokens or tokens[0].startswith(b"#"):      # blank or comment line
            continue
        # A whole TREC line is taken as it is, even with a '#' field ("q1 # d1 1": iteration '#').
        if len(tokens) == 4 and tokens[3].lstrip(b"+-").isdigit() or len(tokens) >= 6 and _is_number(tokens[4]):
            return tokens
        # Otherwise an inline comment (a relevant list's "doc  # note") starts a field; "q#1" is an id.
        cut = next((i for i, t in enumerate(tokens) if t.startswith(b"#")), len(tokens))
        return tokens[:cut]
    return []


def _looks_like_header(tokens: list[bytes]) -> bool:
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS

    names = {t.decode("utf-8", "replace").strip().lower() for t in tokens}
    return bool(names & set(QUERY_COLUMNS)) and bool(names & set(DOC_COLUMNS))


def sniff_format(path: str | os.PathLike) -> str:
    """Best guess of a file's format: one of FORMATS other than "auto"."""
    return sniff_format_and_tokens(os.fspath(path))[0]


def sniff_format_and_tokens(source: str) -> tuple[str, list[bytes] | None]:
    """The format, and the first content line's fields when they were read for it."""
    by_ext = _extension_format(source)
    if by_ext:
        return by_ext, None
    tokens = first_content_tokens(source)
    return _format_of(source, tokens), tokens


def _format_of(source: str, tokens: list[bytes]) -> str:
    if extension_of(source) == "tsv" and _looks_like_header(tokens):
        return "tsv"
    if len(tokens) == 1:
        first = tokens[0].decode("utf-8", "replace")
        return "csv" if "," in first and _looks_like_header([t.encode() for t in first.split(",")]) else "relevant_list"
    return "trec"


def table_column_names(source: str, fmt: str) -> list[str]:
    """The column names of a CSV, TSV or Parquet table, as written in its header."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(source).names)
        except Exception:           # not a readable Parquet file: the reader will say why
            return []
    header = _text.load_head(source, 1 << 16).split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("\ufeff")
    return [t.strip() for t in header.rstrip("\r").split("\t" if fmt == "tsv" else ",")]


@contextlib.contextmanager
def _memory_as_input_error(source: str):
    """A file too big for memory is an input problem (exit 2, naming the file), not a crash. Under a
    memory limit it is refused before reading when it cannot fit: a failed C++ allocation aborts."""
    from evalgui.core import memory as _memory

    _text.check_head(source)
    _memory.check_room(source)
    try:
        yield
    except MemoryError:
        raise EvalInputError(source, _memory.out_of_memory(source)) from None


def read_qrels(path: str | os.PathLike, *, format: str = "auto", topic: str | None = None) -> Qrels:
    """Read relevance judgments. ``topic`` names the query of a relevant-document list; in any other
    format it keeps that query's judgments only (an error when it has none)."""
    source = os.fspath(path)
    with _memory_as_input_error(source):
        qrels = _read_qrels(source, format, topic)
    if topic is None or qrels.query_ids.tolist() == [str(topic)]:
        return qrels
    return _one_topic(qrels, str(topic))


def _one_topic(qrels: Qrels, topic: str) -> Qrels:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from evalgui.core.arrow import to_numpy

    keep = np.flatnonzero(to_numpy(pc.cast(pc.equal(qrels.query, topic), "uint8")))
    if not len(keep):
        shown = ", ".join(qrels.query_ids[:5].tolist()) + (" ..." if len(qrels.query_ids) > 5 else "")
        raise EvalInputError(qrels.source, f"no judgments for the topic '{topic}' (the queries are {shown})")
    rows = pa.array(keep)
    return Qrels(qrels.query.take(rows), qrels.doc.take(rows), qrels.rel[keep], source=qrels.source)


def _read_qrels(source: str, format: str, topic: str | None) -> Qrels:
    from evalgui.core.formats import other, trec

    fmt = sniff_format(source) if format == "auto" else format
    if fmt == "trec":
        return trec.read_trec_qrels(source)
    if fmt == "relevant_list":
        return other.read_relevant_list(source, topic)
    if fmt == "json":
        return other.read_json_qrels(source)
    if fmt in ("csv", "tsv", "parquet"):
        return other.read_table_qrels(source)
    raise EvalInputError(source, f"unknown format '{format}' (choose from {', '.join(FORMATS)})")


def read_run(path: str | os.PathLike, *, format: str = "auto", name: str | None = None) -> Run:
    """Read a ranked run. ``name`` defaults to the file name without its extension."""
    source = os.fspath(path)
    with _memory_as_input_error(source):
        return _read_run(source, format, name)


def _read_run(source: str, format: str, name: str | None) -> Run:
    from evalgui.core.formats import other, trec

    fmt = sniff_format(source) if format == "auto" else format
    if fmt in ("trec", "relevant_list"):
        return trec.read_trec_run(source, name)
    if fmt == "json":
        return other.read_json_run(source, name)
    if fmt in ("csv", "tsv", "parquet"):
        return other.read_table_run(source, name)
    raise EvalInputError(source, f"unknown format '{format}' (choose from {', '.join(FORMATS)})")
