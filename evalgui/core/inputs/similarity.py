"""Similarity results of a case-based retriever: one row per (query, case) with a similarity in [0, 1].

Columns ``query_id, case_id, similarity`` (CSV, TSV or Parquet; names matched
case-insensitively, with the aliases below). What evalgui's linear retriever
exports as ground truth, and what ProCAKE, CBRkit or a neural model can write.
Ids are strings ("007" and "7" differ). Sniffed so that such a table is never
taken for a ranked run.

Large files (a ground truth of 25 million pairs) are parsed by Arrow's CSV
reader; a file it cannot parse is read again by the line-counting reader so
that the message names the line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import extension_of, patterns, table_separator
from evalgui.core.inputs import Claim, FileHead, InputKind

QUERY_COLUMNS = ("query_id", "query", "qid", "queryid")
CASE_COLUMNS = ("case_id", "case", "caseid", "cid")
SIMILARITY_COLUMNS = ("similarity", "sim", "score")


@dataclass(eq=False)
class SimilarityResults:
    """Rows (query, case, similarity), the ids dictionary-encoded: a 25-million-row ground truth
    costs a few arrays, not millions of Python strings."""

    source: str
    query_ids: np.ndarray          # distinct query ids (str), in order of first appearance
    query_codes: np.ndarray        # each row's query, an index into query_ids
    case_ids: np.ndarray           # distinct case ids (str), in order of first appearance
    case_codes: np.ndarray
    similarity: np.ndarray         # float64 in [0, 1]
    _lines: np.ndarray | None = field(default=None, repr=False)   # file line of each row, when known

    def __len__(self) -> int:
        return len(self.similarity)

    def line_of(self, row: int) -> int | None:
        """The file line of row ``row`` (counted only when a message needs it)."""
        if self._lines is None:
            self._lines = data_lines(self.source)
        return int(self._lines[row]) if row < len(self._lines) else None

    def summary(self) -> dict:
        per_query = np.bincount(self.query_codes, minlength=len(self.query_ids)) if len(self) else np.zeros(1, int)
        return {"queries": len(self.query_ids), "cases": len(self.case_ids), "pairs": len(self),
                "min_per_query": int(per_query.min()), "max_per_query": int(per_query.max()),
                "min_similarity": float(self.similarity.min()) if len(self) else 0.0,
                "max_similarity": float(self.similarity.max()) if len(self) else 0.0}


def data_lines(source: str) -> np.ndarray:
    """The line numbers of the data rows (the header and blank lines skipped, as the readers do)."""
    if extension_of(source) == "parquet":
        import pyarrow.parquet as pq

        return np.arange(1, pq.read_metadata(source).num_rows + 1)
    from evalgui.core.formats import _text

    lines = _text.load_bytes(source).split(b"\n")
    return np.array([i for i, raw in enumerate(lines[1:], 2) if raw.strip()], dtype=np.int64)


def _error_at(results_source: str, lines: np.ndarray | None, row: int, reason: str) -> EvalInputError:
    lines = data_lines(results_source) if lines is None else lines
    return EvalInputError(results_source, reason, int(lines[row]) if row < len(lines) else None)


def _header(source: str, sep: str) -> list[str]:
    from evalgui.core.formats import _text

    line = _text.load_head(source, 1 << 16).split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    return [n.strip().strip('"') for n in line.split(sep)]


def arrow_table(source: str, column_types: dict | None = None):
    """The table read by Arrow, or None when Arrow's CSV reader cannot (the pandas reader then says
    why, with the line). CSV and TSV columns are text unless ``column_types`` (name -> Arrow type,
    only those columns read) says otherwise; Parquet as stored. Blank lines are skipped:
    :func:`data_lines` gives the file line of each row when a message needs it."""
    import pyarrow as pa

    fmt = extension_of(source)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(source, columns=list(column_types) if column_types else None)
        except FileNotFoundError:
            raise EvalInputError(source, "no such file") from None
        except (pa.ArrowInvalid, OSError) as exc:
            raise EvalInputError(source, f"not a readable Parquet file ({exc})") from None
    import pyarrow.csv as pacsv

    from evalgui.core.formats import _text

    if _text.is_wide_file(source):       # UTF-16 or UTF-32: the pandas reader reads it, as UTF-8
        return None
    try:
        sep = table_separator(source)
        types = column_types or {n: pa.string() for n in _header(source, sep)}
        # The path, not the bytes: Arrow reads (and gunzips) a 25-million-row file in parallel.
        return pacsv.read_csv(source, parse_options=pacsv.ParseOptions(delimiter=sep),
                              convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types)
                                                                   if column_types else None,
                                                                   strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError, EvalInputError, OSError):
        return None


def _encode_ids(column, what: str, source: str, lines) -> tuple[np.ndarray, np.ndarray]:
    """(distinct ids, per-row codes) of an id column, blanks around ids dropped; an empty id is an
    error naming its line. Only the distinct ids are trimmed (a dictionary column needs no pass over
    its rows)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column.cast(pa.string()))
    chunks = column.unify_dictionaries().chunks if isinstance(column, pa.ChunkedArray) else [column]
    dictionary = chunks[0].dictionary.cast(pa.string()) if chunks else pa.array([], pa.string())
    indices = pa.chunked_array([c.indices for c in chunks], type=pa.int32()) if chunks else pa.array([], pa.int32())
    trimmed = pc.utf8_trim_whitespace(dictionary)
    blank = np.asarray(pc.or_kleene(pc.is_null(trimmed), pc.equal(pc.utf8_length(trimmed), 0))
                       .to_numpy(zero_copy_only=False), dtype=bool)
    codes = indices.to_numpy().astype(np.int32) if indices.null_count == 0 else None
    if codes is None or blank.any():
        missing = pc.is_null(indices).to_numpy(zero_copy_only=False)
        if codes is None:
            codes = pc.fill_null(indices, 0).to_numpy().astype(np.int32)
        missing = missing | blank[codes]
        if missing.any():
            raise _error_at(source, lines, int(np.flatnonzero(missing)[0]), f"the {what} id is missing (an empty cell)")
    again = pc.dictionary_encode(trimmed)              # "a" and " a" are one id
    remap = again.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    return np.array(again.dictionary.to_pylist(), dtype=object), remap[codes]


def _similarities(column, source: str, lines) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
        values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
        text = None
    else:
        text = pc.utf8_trim_whitespace(column.cast(pa.string()))
        try:
            values = pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            values = None
    if values is None or np.isnan(values).any():
        import pandas as pd

        cells = text.to_pandas() if text is not None else pd.Series(column.to_pandas(), dtype=object)
        parsed = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
        row = int(np.flatnonzero(np.isnan(parsed) | pd.isna(cells).to_numpy())[0])
        cell = cells.iloc[row]
        if cell is None or (isinstance(cell, float) and np.isnan(cell)) or cell == "":
            raise _error_at(source, lines, row, "the similarity is missing (an empty cell)")
        raise _error_at(source, lines, row, f"the similarity '{cell}' is not a number")
    outside = ~((values >= 0.0) & (values <= 1.0))
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise _error_at(source, lines, row, f"the similarity {float(values[row])!r} is outside [0, 1]")
    return np.ascontiguousarray(values, dtype=np.float64)


def read_similarity_results(path: str | os.PathLike) -> SimilarityResults:
    """Read a similarity table. Raises EvalInputError naming the file, the line and the reason."""
    import pyarrow as pa

    from evalgui.core.formats.other import _load_frame, _pick_column

    from evalgui.core import memory
    from evalgui.core.formats import _text

    source = os.fspath(path)
    _text.check_head(source)      # not text: refused from its first block, before the memory estimate
    memory.check_room(source)
    fmt = extension_of(source)
    table, lines = None, None
    if fmt == "json":
        table, lines = _json_table(source)
    elif fmt != "parquet":
        # Typed as read (ids dictionary-encoded, similarities as numbers): the fast way for big files.
        try:
            header = _header(source, table_separator(source))
        except EvalInputError:
            header = []
        picked = [_find(header, names) for names in (QUERY_COLUMNS, CASE_COLUMNS, SIMILARITY_COLUMNS)]
        if all(picked):
            ids = pa.dictionary(pa.int32(), pa.string())
            table = arrow_table(source, dict(zip(picked, (ids, ids, pa.float64()))))
            if table is not None and np.isnan(table[picked[2]].to_numpy(zero_copy_only=False)).any():
                table = None                         # empty or "nan": read as text, to say which
    if table is None:
        table = arrow_table(source)                  # every column as text
    if table is None:                                # malformed for Arrow: the pandas reader names the line
        _, frame, lines = _load_frame(source)
        table = pa.Table.from_pandas(frame, preserve_index=False)
    names = list(table.column_names)
    qcol = _pick_column(names, QUERY_COLUMNS, "query", source)
    ccol = _pick_column(names, CASE_COLUMNS, "case", source)
    scol = _pick_column(names, SIMILARITY_COLUMNS, "similarity", source)
    if table.num_rows == 0:
        raise EvalInputError(source, "no rows under the header")
    query_ids, query_codes = _encode_ids(table[qcol], "query", source, lines)
    case_ids, case_codes = _encode_ids(table[ccol], "case", source, lines)
    sims = _similarities(table[scol], source, lines)
    results = SimilarityResults(source, query_ids, query_codes, case_ids, case_codes, sims, lines)
    _refuse_repeated_pairs(results)
    return results


def _json_table(source: str):
    """A JSON list of records {query_id, case_id, similarity} (what the JSON export writes) as a table of
    text columns, and the line where each record starts."""
    import json
    import re

    import pyarrow as pa

    from evalgui.core.formats import _text

    text, _ = _text.parse_json(_text.load_bytes(source), source)     # checked whole first: depth, syntax
    expected = "expected a JSON list of records {query_id, case_id, similarity}"
    if not text.lstrip().startswith("["):
        raise EvalInputError(source, expected, 1)
    decoder, records, lines = json.JSONDecoder(), [], []
    pos, line, counted = text.index("[") + 1, 1, 0
    blanks = re.compile(r"[\s,]*")
    while True:                       # record by record, to know the line each starts on
        start = blanks.match(text, pos).end()
        if text.startswith("]", start):
            break
        record, pos = decoder.raw_decode(text, start)
        line, counted = line + text.count("\n", counted, start), start
        if not isinstance(record, dict):
            raise EvalInputError(source, expected, line)
        records.append(record)
        lines.append((line, start))
    names = list(dict.fromkeys(name for record in records for name in record))
    columns = {}
    for name in names:
        cells = []
        for (at, _), record in zip(lines, records):
            value = record.get(name)
            if isinstance(value, (dict, list)):
                raise EvalInputError(source, f"the {name} is not a plain value", at)
            cells.append("" if value is None else str(value))
        columns[name] = pa.array(cells, pa.string())
    return pa.table(columns), np.array([at for at, _ in lines], dtype=np.int64)


def _find(names: list[str], candidates: tuple[str, ...]) -> str | None:
    lowered = {n.strip().lower(): n for n in names}
    return next((lowered[c] for c in candidates if c in lowered), None)


def pair_keys(results: SimilarityResults) -> tuple[np.ndarray, int]:
    """Each row's (query, case) as one number, and how many there can be."""
    width = max(len(results.case_ids), 1)
    return results.query_codes.astype(np.int64) * width + results.case_codes, len(results.query_ids) * width


def _refuse_repeated_pairs(results: SimilarityResults) -> None:
    keys, possible = pair_keys(results)
    if possible <= 4 * len(keys) + (1 << 20):    # nearly every pair given (a ground truth): count them
        repeated = (np.bincount(keys, minlength=possible) > 1).any()
    else:
        ordered = np.sort(keys)
        repeated = (ordered[1:] == ordered[:-1]).any()
    if not repeated:
        return
    seen: dict[int, int] = {}
    for row, key in enumerate(keys.tolist()):      # only when there is one: which, and where
        first = seen.setdefault(key, row)
        if first != row:
            q, c = results.query_ids[results.query_codes[row]], results.case_ids[results.case_codes[row]]
            raise EvalInputError(results.source, f"case '{c}' is given twice for query '{q}' (lines "
                                                 f"{results.line_of(first)} and {results.line_of(row)})",
                                 results.line_of(row))


def sniff(head: FileHead) -> Claim:
    names = head.header_names
    if any(n in names for n in QUERY_COLUMNS) and any(n in names for n in CASE_COLUMNS) \
            and any(n in names for n in SIMILARITY_COLUMNS):
        return Claim(0.95, "query, case and similarity columns")
    return Claim(0.0)


def read(path, **_) -> SimilarityResults:
    return read_similarity_results(path)


def summary(results: SimilarityResults) -> dict:
    return results.summary()


def warnings(results: SimilarityResults, counts: dict) -> list[str]:
    if counts["min_per_query"] != counts["max_per_query"]:
        return [f"the queries have lists of different lengths ({counts['min_per_query']:,} to "
                f"{counts['max_per_query']:,} cases)"]
    return []


KIND = InputKind(
    name="similarity results", label="Similarity results", patterns=patterns("csv", "tsv", "parquet"),
    expected="a table with query_id, case_id and similarity columns", sniff=sniff, read=read, summary=summary,
    headline=("queries", "cases", "pairs"), warnings=warnings)
