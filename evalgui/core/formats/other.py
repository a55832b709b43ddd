"""Qrels and runs in formats other than TREC text.

- Relevant-document lists: one document id per line for one topic (as in the
  search-results tutorial), ``#`` comments, also after the id on the same line.
- JSON in the ranx / ir_datasets style: ``{query: {doc: grade_or_score}}``.
- CSV, TSV and Parquet with named columns.
"""

from __future__ import annotations

import io
import json
import math
import os
import re

import numpy as np
import pyarrow as pa

from evalgui.core.data import MAX_GRADE, MIN_GRADE, Qrels, Run, grade_problem
from evalgui.core.arrow import duplicate_pair_rows
from evalgui.core.errors import EvalInputError
from evalgui.core.formats import _text
from evalgui.core.formats.extensions import extension_of, table_separator

QUERY_COLUMNS = ("query", "qid", "query_id", "topic", "topic_id")
DOC_COLUMNS = ("doc", "docno", "doc_id", "docid", "document")
REL_COLUMNS = ("relevance", "rel", "grade", "label", "judgment", "judgement")
SCORE_COLUMNS = ("score", "sim", "similarity")


# ---------------------------------------------------------------- relevant lists

def read_relevant_list(path: str | os.PathLike, topic: str | None = None) -> Qrels:
    """Read a per-topic list of relevant documents as binary qrels for ``topic``.

    Without a topic id the file's name (without extension) is used.
    """
    source = os.fspath(path)
    data = _text.load_bytes(source)
    topic = str(topic) if topic is not None else _text.file_stem(source)
    docs, linenos = [], []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        line = _text.decode_line(raw, source, lineno).split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        if len(tokens) != 1:
            raise EvalInputError(source, f"expected one document id per line, found {len(tokens)} fields", lineno)
        docs.append(tokens[0])
        linenos.append(lineno)
    if not docs:
        raise EvalInputError(source, "no document ids (only comments or blank lines)")
    queries, doc_ids = pa.array([topic] * len(docs), pa.string()), pa.array(docs, pa.string())
    dups = duplicate_pair_rows(queries, doc_ids)
    if len(dups):
        raise _text.duplicates_error(source, queries, doc_ids, np.asarray(linenos), dups, "relevant-document list")
    return Qrels(queries, doc_ids, np.ones(len(docs), dtype=np.int64), source=source)


# ---------------------------------------------------------------- JSON

def _json_line_of(text: str, *keys: str) -> int | None:
    """Best-effort line of a nested key, for error messages."""
    pos = 0
    for key in keys:
        found = text.find(json.dumps(key), pos)
        if found < 0:
            return None
        pos = found
    return text.count("\n", 0, pos) + 1


def _read_json_mapping(path, kind: str):
    source = os.fspath(path)
    text, obj = _text.parse_json(_text.load_bytes(source), source)
    if not isinstance(obj, dict):
        raise EvalInputError(source, "expected a JSON object {query: {document: value}}", 1)
    queries, docs, values = [], [], []
    for q, per_doc in obj.items():
        if not isinstance(per_doc, dict):
            raise EvalInputError(source, f"query '{q}' should map to an object {{document: value}}", _json_line_of(text, q))
        for d, v in per_doc.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise EvalInputError(source, f"query '{q}', document '{d}': the {kind} {v!r} is not a number",
                                     _json_line_of(text, q, d))
            if kind == "score" and not _finite(v):      # 1e400 and a 400-digit integer alike
                raise EvalInputError(source, f"query '{q}', document '{d}': the score {_short(v)} is not a finite "
                                             "number", _json_line_of(text, q, d))
            if kind == "relevance" and isinstance(v, float) and not v.is_integer():
                raise EvalInputError(source, f"query '{q}', document '{d}': the relevance {v!r} is not an integer",
                                     _json_line_of(text, q, d))
            if isinstance(v, float) and math.isnan(v):
                raise EvalInputError(source, f"query '{q}', document '{d}': the {kind} is NaN", _json_line_of(text, q, d))
            if kind == "relevance":
                if isinstance(v, int) or math.isfinite(v):
                    problem = grade_problem(int(v))
                    problem = problem and problem.replace(str(int(v)), _short(int(v)))
                else:
                    problem = f"the relevance {v!r} is not an integer"
                if problem:
                    raise EvalInputError(source, f"query '{q}', document '{d}': {problem}", _json_line_of(text, q, d))
            queries.append(str(q))
            docs.append(str(d))
            values.append(v)
    if not queries:
        raise EvalInputError(source, "the JSON object holds no judgments" if kind == "relevance" else "the JSON object holds no results")
    return source, queries, docs, values


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:               # an integer beyond any float
        return False


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text):,} digits)"


def read_json_qrels(path) -> Qrels:
    source, queries, docs, values = _read_json_mapping(path, "relevance")
    return Qrels(pa.array(queries, pa.string()), pa.array(docs, pa.string()), np.asarray(values, dtype=np.int64), source=source)


def read_json_run(path, name: str | None = None) -> Run:
    source, queries, docs, values = _read_json_mapping(path, "score")
    name = name or _text.file_stem(source)
    return Run(pa.array(queries, pa.string()), pa.array(docs, pa.string()), np.asarray(values, dtype=np.float64),
               runid=name, name=name, source=source)


# ---------------------------------------------------------------- CSV / TSV / Parquet

def _pick_column(columns: list[str], candidates: tuple[str, ...], what: str, source: str) -> str:
    lowered = {c.strip().lower(): c for c in columns}
    for cand in candidates:
        if cand in lowered:
            return lowered[cand]
    raise EvalInputError(source, f"no {what} column: expected one of {', '.join(candidates)}; "
                                 f"found {', '.join(map(str, columns)) or 'none'}", 1)


def _load_frame(path):
    """Read a table; also return the file line (or Parquet row) number of every row."""
    import pandas as pd

    source = os.fspath(path)
    if extension_of(source) == "parquet":
        import pyarrow.parquet as pq

        try:
            frame = pq.read_table(source).to_pandas()
        except FileNotFoundError:
            raise EvalInputError(source, "no such file") from None
        except (pa.ArrowInvalid, OSError) as exc:
            raise EvalInputError(source, f"not a readable Parquet file ({exc})") from None
        return source, frame, np.arange(1, len(frame) + 1)
    data = _text.load_bytes(source)
    sep = table_separator(source, data)

    record_lines = _check_field_counts(data, sep, source)
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, dtype=str, keep_default_na=False, skip_blank_lines=False,
                            encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EvalInputError(source, "not UTF-8 text", data.count(b"\n", 0, exc.start) + 1) from None
    except pd.errors.ParserError as exc:
        # pandas' text ends in a newline and starts with its tokenizer's name: keep one line, the reason.
        reason = " ".join(str(exc).split()).replace("Error tokenizing data. C error: ", "")
        line = re.search(r"in line (\d+)", reason)
        raise EvalInputError(source, f"not a well-formed {'TSV' if sep == chr(9) else 'CSV'} file ({reason})",
                             int(line.group(1)) if line else None) from None
    # Blank lines come through as empty rows: drop them but keep counting them.
    lines = record_lines if record_lines is not None and len(record_lines) == len(frame) else np.arange(len(frame)) + 2
    blank = frame.isna().all(axis=1).to_numpy() | (frame.fillna("").astype(str).apply(lambda c: c.str.strip()) == "").all(axis=1).to_numpy()
    return source, frame[~blank].reset_index(drop=True), lines[~blank]


def _check_field_counts(data: bytes, sep: str, source: str) -> np.ndarray | None:
    """Refuse a row with more or fewer fields than the header (pandas would take one extra field for an
    index and shift the columns, and fill a short row with empty cells). Returns the first line of every
    record after the header when quoted fields may span lines, else None (one line a record)."""
    what = "TSV" if sep == "\t" else "CSV"
    if b'"' in data:                       # quoted fields may hold separators and newlines: parse them
        import csv

        text = data.decode("utf-8", "replace").lstrip("\ufeff")
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        starts, expected, previous_end = [], None, 0
        try:
            for fields in reader:
                start, previous_end = previous_end + 1, reader.line_num
                if expected is None:
                    expected, names = len(fields), fields
                    continue
                starts.append(start)
                if fields and len(fields) != expected and any(f.strip() for f in fields):
                    raise EvalInputError(source, _fields_problem(names, len(fields)), start)
        except csv.Error as exc:
            raise EvalInputError(source, f"not a well-formed {what} file ({exc})", reader.line_num) from None
        return np.array(starts, dtype=np.int64)
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == ord("\n"))
    if not len(raw) or raw[-1] != ord("\n"):
        ends = np.append(ends, len(raw))                    # a last line without its newline
    starts = np.concatenate(([0], ends[:-1] + 1))
    separators_before = np.searchsorted(np.flatnonzero(raw == ord(sep)), ends)
    fields = np.diff(separators_before, prepend=0) + 1

    def blank(line: int) -> bool:
        return not data[starts[line]:ends[line]].strip()

    header = next((line for line in range(len(ends)) if not blank(line)), None)
    if header is None:
        return None
    for line in np.flatnonzero(fields != fields[header]):   # few: blank lines, or the rows in error
        if line > header and not blank(line):
            names = data[starts[header]:ends[header]].decode("utf-8", "replace").lstrip("\ufeff").strip().split(sep)
            raise EvalInputError(source, _fields_problem(names, int(fields[line])), int(line) + 1)
    return None


def _fields_problem(header: list[str], found: int) -> str:
    names = ", ".join(name.strip() for name in header[:8]) + (", ..." if len(header) > 8 else "")
    return f"expected {len(header)} fields, as in the header ({names}), found {found}"


def _numeric(frame, column: str, source: str, lines: np.ndarray, integer: bool) -> np.ndarray:
    import pandas as pd

    values = pd.to_numeric(frame[column], errors="coerce")
    bad = np.array(values.isna().to_numpy(), dtype=bool)  # a writable copy
    if integer:
        as_float = values.fillna(0).to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            bad |= ~np.isfinite(as_float) | (as_float % 1 != 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        kind = "an integer" if integer else "a number"
        value = frame[column].iloc[row]
        if _is_missing(value):
            raise EvalInputError(source, f"the {column} is missing (an empty cell)", int(lines[row]))
        raise EvalInputError(source, f"the {column} '{_plain(value)}' is not {kind}", int(lines[row]))
    if integer:
        # Grades beyond the range would wrap around silently when made int64.
        out_of_range = (as_float > MAX_GRADE) | (as_float < MIN_GRADE)
        if out_of_range.any():
            row = int(np.flatnonzero(out_of_range)[0])
            raise EvalInputError(source, grade_problem(int(as_float[row])), int(lines[row]))
    return values.to_numpy(dtype=np.int64 if integer else np.float64)


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _plain(value) -> str:
    """A cell as a person reads it: 'x', 2.5 (not np.float64(2.5)), bytes decoded where possible."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value.item() if isinstance(value, np.generic) else value)


def _ids(frame, column: str, what: str, source: str, lines: np.ndarray) -> pa.Array:
    """An id column as strings; a missing id or one that is not UTF-8 text is an input error with its line."""
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.argmax(missing))
        raise EvalInputError(source, f"the {what} id is missing (an empty cell in column {column})", int(lines[row]))
    items = values.tolist()
    if values.dtype == object and any(isinstance(v, bytes) for v in items):
        for row, v in enumerate(items):   # binary ids (Parquet): each must be UTF-8 text
            if isinstance(v, bytes):
                try:
                    items[row] = v.decode("utf-8")
                except UnicodeDecodeError:
                    raise EvalInputError(source, f"the {what} id in column {column} is not UTF-8 text "
                                                 f"({v[:20]!r})", int(lines[row])) from None
    return pa.array([v if isinstance(v, str) else _plain(v) for v in items], pa.string())


def _read_table(path, value_columns: tuple[str, ...], what: str, integer: bool):
    """(source, queries, docs, values) from a table with named columns."""
    source, frame, lines = _load_frame(path)
    columns = list(frame.columns)
    qcol = _pick_column(columns, QUERY_COLUMNS, "query", source)
    dcol = _pick_column(columns, DOC_COLUMNS, "document", source)
    vcol = _pick_column(columns, value_columns, what, source)
    if not len(frame):
        raise EvalInputError(source, "no rows under the header")
    values = _numeric(frame, vcol, source, lines, integer=integer)
    q, d = _ids(frame, qcol, "query", source, lines), _ids(frame, dcol, "document", source, lines)
    dups = duplicate_pair_rows(q, d)
    if len(dups):
        raise _text.duplicates_error(source, q, d, lines, dups, "table")
    return source, q, d, values


def read_table_qrels(path) -> Qrels:
    source, q, d, rel = _read_table(path, REL_COLUMNS, "relevance", integer=True)
    return Qrels(q, d, rel, source=source)


def read_table_run(path, name: str | None = None) -> Run:
    source, q, d, score = _read_table(path, SCORE_COLUMNS, "score", integer=False)
    name = name or _text.file_stem(source)
    return Run(q, d, score, runid=name, name=name, source=source)
