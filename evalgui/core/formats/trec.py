"""TREC qrels (``qid iter docno rel``) and TREC runs (``qid Q0 docno rank score tag``).

Reading follows trec_eval 10.0: fields are split by any run of whitespace,
``#`` starts a comment line, blank lines are skipped, fields after the run tag
are ignored, the rank column is ignored, and the run id is the tag of the last
line. Unlike trec_eval, every error names the line it was found on.

Well-formed plain files take a fast path: pyarrow's multi-threaded CSV parser,
fed 8 MB of whole lines at a time (so the file's bytes never sit in memory all
at once). Anything else (gzip, UTF-16, comments, uneven spacing) is read whole,
with a vectorised whitespace clean-up when needed. Whatever the fast path
rejects (a bad line, a duplicate, a grade out of range) is parsed again line
by line, which either reads an unusual-but-valid layout (e.g. extra trailing
columns) or reports the first bad line with its number.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pyarrow as pa

from evalgui.core.data import MAX_GRADE, Qrels, Run, grade_problem
from evalgui.core.arrow import duplicate_pair_rows, from_numpy, to_numpy
from evalgui.core.errors import EvalInputError
from evalgui.core.formats import _text

RUN_LAYOUT = "query Q0 doc rank score tag"
QRELS_LAYOUT = "query 0 doc grade"


# What C's atol/atof accept as a whole field (Python's int/float also take "1_0" and non-ASCII digits).
_INTEGER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity)", re.IGNORECASE)


def _looks_integer(token: bytes) -> bool:
    return _INTEGER.fullmatch(token.decode("utf-8", "replace")) is not None


def _read_delimited(data: bytes, sep: str, n_columns: int, types: dict[int, pa.DataType]) -> pa.Table | None:
    import pyarrow.csv as pcsv

    names = [f"c{i}" for i in range(n_columns)]
    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(column_names=names),
            parse_options=pcsv.ParseOptions(delimiter=sep, quote_char=False, double_quote=False,
                                            escape_char=False, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(
                column_types={names[i]: t for i, t in types.items()},
                include_columns=[names[i] for i in sorted(types)],
                null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowException):
        return None


def _fast_table(data: bytes, n_columns: int, types: dict[int, pa.DataType],
                comment_after_blanks: bool = True) -> pa.Table | None:
    """Parse whitespace-separated text with pyarrow; None if it does not fit.

    Single spaces or single tabs are read as they are: any other spacing
    (padding, runs of blanks, a lone carriage return) gives lines the wrong
    number of fields, or would break a line, and only then is the text
    rewritten with single spaces. Comments go first (a qrels line " #q ..."
    is data, see :func:`_text.drop_comment_lines`).
    """
    if data.startswith(_text._BOM):   # kept (keeping_utf8_bom): pyarrow would drop it, the line parser keeps it
        return None
    if not data.isascii():
        try:
            data.decode("utf-8")  # pyarrow checks only the columns it converts
        except UnicodeDecodeError:
            return None
    data = _text.drop_comment_lines(data, comment_after_blanks)
    if not data or data.isspace():
        return None
    if b"\x0b" in data or b"\x0c" in data or _text.has_lone_cr(data):  # blanks to C, not to a CSV parser
        return _read_delimited(_text.collapse_whitespace(data), " ", n_columns, types)
    for sep, other in ((" ", b"\t"), ("\t", b" ")):
        if other not in data:
            table = _read_delimited(data, sep, n_columns, types)
            if table is not None:
                return table
    return _read_delimited(_text.collapse_whitespace(data), " ", n_columns, types)


_PIECE = 8 << 20


def _plain_separator(piece: bytes) -> str | None:
    """The separator of a piece that pyarrow can read as it is; None if it needs the careful path."""
    if not piece.isascii():
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if b"#" in piece or b"\x00" in piece or b"\x0b" in piece or b"\x0c" in piece or _text.has_lone_cr(piece):
        return None
    if b"\t" not in piece:
        return " "
    return "\t" if b" " not in piece else None


_BISECT_BELOW = 64 << 10


def _check_bad_piece(piece: bytes, first_line: int, n_columns: int, types, check_lines) -> None:
    """A piece pyarrow refused: narrow it down by halves with pyarrow (fast), then read the small
    part that still fails line by line, which raises the error with its line number. Returns if
    that part is merely unusual (comments, mixed blanks...): the caller then reads the whole file."""
    while len(piece) > _BISECT_BELOW:
        half = piece.rfind(b"\n", 0, len(piece) // 2) + 1
        if half <= 0:
            break
        left = piece[:half]
        sep = _plain_separator(left)
        if sep is None or _read_delimited(left, sep, n_columns, types) is None:
            piece = left
        else:
            first_line += left.count(b"\n")
            piece = piece[half:]
    check_lines(piece, first_line)


def _newlines_before(source: str, end: int | None = None) -> int:
    """Newline bytes in the file before byte ``end`` (in all of it: None). Read again: error messages only."""
    count, left = 0, end
    with open(source, "rb") as fh:
        while left is None or left > 0:
            chunk = fh.read(_PIECE if left is None else min(_PIECE, left))
            if not chunk:
                break
            count += chunk.count(b"\n")
            left = None if left is None else left - len(chunk)
    return count


def _ends_with_newline(source: str) -> bool:
    with open(source, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            return True
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def _stream_table(source: str, n_columns: int, types: dict[int, pa.DataType],
                  check_lines=None):
    """Parse a plain, well-formed file a few MB of whole lines at a time, so that its bytes are
    never all in memory (they would add the file's size to the peak). Returns the table, the
    last piece with rows (for the run tag) and a function telling whether row i is line i + 1
    (no empty lines); None if anything is unusual (the caller then loads the whole file: gzip,
    comments, mixed spacing...). A piece with a bad line is narrowed down and read by
    ``check_lines(piece, first_line)``, which raises the error: the rest of the file is not read
    again. Lines are counted only for error messages (counting them costs 50 ms on 70 MB)."""
    if source.lower().endswith(".gz"):
        return None
    try:
        fh = open(source, "rb")
    except OSError:
        return None
    tables, last, rest, first = [], b"", b"", True
    offset, rows = 0, 0        # file bytes before the piece; rows read so far
    with fh:
        while True:
            chunk = fh.read(_PIECE)
            piece = rest + chunk
            if first:
                if piece[:2] == _text._GZIP_MAGIC or _text.wide_encoding(piece):
                    return None
                kept = _text.skip_utf8_bom(piece)
                if kept.startswith(_text._BOM):
                    return None                 # a mark read as text: see _fast_table
                piece, offset = kept, len(piece) - len(kept)
                first = False
            if chunk:
                cut = piece.rfind(b"\n") + 1
                piece, rest = piece[:cut], piece[cut:]
            if piece and not piece.isspace():  # (strip() would copy the piece)
                sep = _plain_separator(piece)
                table = _read_delimited(piece, sep, n_columns, types) if sep else None
                if table is None:
                    if check_lines is not None and b"\x00" not in piece:
                        _check_bad_piece(piece, 1 + _newlines_before(source, offset), n_columns, types, check_lines)
                    return None
                if table.num_rows:
                    tables.append(table)
                    last = piece
                    rows += table.num_rows
            offset += len(piece)
            if not chunk:
                break
    if not tables:
        return None

    def rows_are_lines() -> bool:
        # The parser skips empty lines: as many rows as lines means none was skipped.
        return rows == _newlines_before(source) + (not _ends_with_newline(source))

    return pa.concat_tables(tables), last, rows_are_lines


def _column(table: pa.Table, i: int) -> pa.Array:
    return table.column(f"c{i}").combine_chunks()


def _last_run_tag(data: bytes) -> str:
    """The run id trec_eval reports: the sixth field of the last content line."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        tokens = data[start:end].split()
        if len(tokens) >= 6 and not tokens[0].startswith(b"#"):
            return tokens[5].decode("utf-8", "replace")
        end = start - 1
    return ""


# ---------------------------------------------------------------- runs

def _parse_run_slow(data: bytes, source: str, first_line: int = 1):
    queries, docs, scores, linenos = [], [], [], []
    runid = ""
    for lineno, tok in _text.iter_content_lines(data, source, first_line):
        if len(tok) < 6:
            if len(tok) == 4 and _looks_integer(tok[3]):
                raise EvalInputError(source, f"this line has 4 columns, like a qrels file ({QRELS_LAYOUT}); "
                                             f"a run needs 6: {RUN_LAYOUT}", lineno)
            raise EvalInputError(source, f"expected 6 columns ({RUN_LAYOUT}), found {len(tok)}", lineno)
        text = tok[4].decode()
        if text.lower() in ("nan", "+nan", "-nan"):
            raise EvalInputError(source, "the score is NaN (not a number)", lineno)
        if not _REAL.fullmatch(text):
            raise EvalInputError(source, f"the score '{text}' is not a number", lineno)
        score = float(text)
        queries.append(tok[0].decode())
        docs.append(tok[2].decode())
        scores.append(score)
        linenos.append(lineno)
        runid = tok[5].decode()
    return queries, docs, np.asarray(scores, dtype=np.float64), np.asarray(linenos), runid


def read_trec_run(path: str | os.PathLike, name: str | None = None) -> Run:
    """Read a TREC run file. Raises EvalInputError naming file, line and reason."""
    source = os.fspath(path)
    name = name or _text.file_stem(source)
    # Ids as dictionaries: the parser builds one per block, in parallel (see arrow.DocCodes).
    ids = pa.dictionary(pa.int32(), pa.string())
    types = {0: ids, 2: ids, 4: pa.float64()}
    data = None
    streamed = _stream_table(source, 6, types, lambda piece, line: _parse_run_slow(piece, source, line))
    table, tail, rows_are_lines = streamed or (None, b"", lambda: False)
    if table is None:
        data = tail = _text.load_bytes(source)
        table = _fast_table(data, 6, types)
    if table is not None and table.num_rows:
        scores = to_numpy(table.column("c4"))
        nan = np.isnan(scores)
        if nan.any() and rows_are_lines():
            raise EvalInputError(source, "the score is NaN (not a number)", int(np.argmax(nan)) + 1)
        if not nan.any():
            run = Run(table.column("c0"), table.column("c2"), scores, runid=_last_run_tag(tail), name=name,
                      source=source)
            del table, tail
            dups = duplicate_pair_rows(run.query, run.doc_codes)
            if not len(dups):
                return run
            if rows_are_lines():   # row i is line i + 1: no need to read the file again
                # Only the repeated rows' ids (a take across the file's many dictionaries would be slow).
                raise _text.duplicates_error(source, run.query.take(from_numpy(dups)), run.doc_codes.docnos(dups),
                                             dups + 1, np.arange(len(dups)), "run")
    if data is None:
        data = _text.load_bytes(source)
    queries, docs, scores, linenos, runid = _parse_run_slow(data, source)
    if not queries:
        raise EvalInputError(source, "no run lines (only comments or blank lines)")
    dups = duplicate_pair_rows(pa.array(queries, pa.string()), pa.array(docs, pa.string()))
    if len(dups):
        raise _text.duplicates_error(source, queries, docs, linenos, dups, "run")
    return Run(pa.array(queries, pa.string()), pa.array(docs, pa.string()), scores,
               runid=runid, name=name, source=source)


# ---------------------------------------------------------------- qrels

def _parse_qrels_slow(data: bytes, source: str, first_line: int = 1):
    queries, docs, rels, linenos = [], [], [], []
    # trec_eval's qrels reader takes '#' for a comment only in a line's first column.
    for lineno, tok in _text.iter_content_lines(data, source, first_line, comment_after_blanks=False):
        if len(tok) != 4:
            if len(tok) >= 6:
                raise EvalInputError(source, f"this line has {len(tok)} columns, like a run file ({RUN_LAYOUT}); "
                                             f"qrels need 4: {QRELS_LAYOUT}", lineno)
            raise EvalInputError(source, f"expected 4 columns ({QRELS_LAYOUT}), found {len(tok)}", lineno)
        text = tok[3].decode()
        if not _INTEGER.fullmatch(text):
            raise EvalInputError(source, f"the relevance '{text}' is not an integer", lineno)
        rel = int(text)
        problem = grade_problem(rel)
        if problem:
            raise EvalInputError(source, problem, lineno)
        queries.append(tok[0].decode())
        docs.append(tok[2].decode())
        rels.append(rel)
        linenos.append(lineno)
    return queries, docs, np.asarray(rels, dtype=np.int64), np.asarray(linenos)


def _subtopic_qrels_or_error(source: str, error) -> Qrels:
    """A (query, doc) pair repeats: subtopic qrels if it repeats under other subtopics (second column),
    else ``error()``. A pair repeated within one subtopic is an error naming its lines."""
    from evalgui.core.subtopics import read_subtopic_qrels

    found = read_subtopic_qrels(source, require_repeats=True)
    if found is None:
        raise error()
    return found


def read_trec_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file. Raises EvalInputError naming file, line and reason."""
    source = os.fspath(path)
    types = {0: pa.string(), 2: pa.string(), 3: pa.int64()}
    data = None
    streamed = _stream_table(source, 4, types, lambda piece, line: _parse_qrels_slow(piece, source, line))
    table, _, rows_are_lines = streamed or (None, b"", lambda: False)
    if table is None:
        data = _text.load_bytes(source)
        table = _fast_table(data, 4, types, comment_after_blanks=False)
    if table is not None and table.num_rows:
        qrels = Qrels(_column(table, 0), _column(table, 2), to_numpy(table.column("c3")), source=source)
        too_high = qrels.rel > MAX_GRADE
        if too_high.any() and rows_are_lines():
            row = int(np.argmax(too_high))
            raise EvalInputError(source, grade_problem(int(qrels.rel[row])), row + 1)
        # Otherwise a grade out of range is reported by the line parser below, which knows its line.
        if not too_high.any():
            dups = duplicate_pair_rows(qrels.query, qrels.doc)
            if not len(dups):
                return qrels
            if rows_are_lines():
                return _subtopic_qrels_or_error(source, lambda: _text.duplicates_error(
                    source, qrels.query, qrels.doc, np.arange(1, len(qrels) + 1), dups, "qrels file"))
    if data is None:
        data = _text.load_bytes(source)
    queries, docs, rels, linenos = _parse_qrels_slow(data, source)
    if not queries:
        raise EvalInputError(source, "no qrels lines (only comments or blank lines)")
    dups = duplicate_pair_rows(pa.array(queries, pa.string()), pa.array(docs, pa.string()))
    if len(dups):
        return _subtopic_qrels_or_error(
            source, lambda: _text.duplicates_error(source, queries, docs, linenos, dups, "qrels file"))
    return Qrels(pa.array(queries, pa.string()), pa.array(docs, pa.string()), rels, source=source)
