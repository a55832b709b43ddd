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
from evalgui.core.formats import extension_of, patterns
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


def arrow_table(source: str):
    """The table's columns as Arrow string arrays (Parquet: as stored), or None when Arrow's CSV
    reader fails (the pandas reader then says why, with the line). Blank lines are skipped:
    :func:`data_lines` gives the file line of each row when a message needs it."""
    import pyarrow as pa

    fmt = extension_of(source)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(source)
        except FileNotFoundError:
            raise EvalInputError(source, "no such file") from None
        except (pa.ArrowInvalid, OSError) as exc:
            raise EvalInputError(source, f"not a readable Parquet file ({exc})") from None
    import pyarrow.csv as pacsv

    from evalgui.core.formats import _text

    data = _text.load_bytes(source)          # gunzipped, BOM stripped; missing and empty files refused
    sep = "\t" if fmt == "tsv" else ","
    header = data.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    names = [n.strip().strip('"') for n in header.split(sep)]
    try:
        return pacsv.read_csv(pa.BufferReader(data), parse_options=pacsv.ParseOptions(delimiter=sep),
                              convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                                   strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _encode_ids(column, what: str, source: str, lines) -> tuple[np.ndarray, np.ndarray]:
    """(distinct ids, per-row codes) of an id column; an empty id is an error naming its line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    strings = pc.utf8_trim_whitespace(column.cast(pa.string()))
    empty = pc.or_kleene(pc.is_null(strings), pc.equal(pc.utf8_length(strings), 0))
    if pc.any(empty).as_py():
        row = int(np.flatnonzero(np.asarray(empty.to_numpy(zero_copy_only=False), dtype=bool))[0])
        raise _error_at(source, lines, row, f"the {what} id is missing (an empty cell)")
    encoded = pc.dictionary_encode(strings)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.unify_dictionaries().combine_chunks() if encoded.num_chunks else \
            pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    ids = np.array(encoded.dictionary.to_pylist(), dtype=object)
    return ids, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)


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

    source = os.fspath(path)
    table, lines = arrow_table(source), None
    if table is None:                       # malformed for Arrow: the pandas reader names the line
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


def _refuse_repeated_pairs(results: SimilarityResults) -> None:
    key = results.query_codes.astype(np.int64) * max(len(results.case_ids), 1) + results.case_codes
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(repeated):
        second = order[repeated + 1]
        at = int(second.min())                         # the first repeat met in file order
        first = int(order[np.flatnonzero(order == at)[0] - 1])
        q, c = results.query_ids[results.query_codes[at]], results.case_ids[results.case_codes[at]]
        raise EvalInputError(results.source, f"case '{c}' is given twice for query '{q}' (lines "
                                             f"{results.line_of(first)} and {results.line_of(at)})",
                             results.line_of(at))


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
