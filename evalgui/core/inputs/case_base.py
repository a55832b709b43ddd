"""Case bases for case-based retrieval: an id column and attribute columns.

A table in CSV, TSV, Parquet, JSON (an array of objects) or JSON lines. The id
column is chosen by the user; by default the column named ``id`` (any case),
else the first column. Every other column is an attribute whose type is
inferred and can be overridden (the similarity model names the type it wants):

- ``numeric``: every value a number;
- ``vector``: every value a list of numbers, ``[0.1, 0.3]`` (JSON lists too);
- ``set``: a value holds the delimiter (default ``;``), ``red;green`` (JSON lists of strings too);
- ``text``: free text (a value with a space, or more than 50 distinct values that rarely repeat);
- ``categorical``: the rest.

An empty cell (JSON ``null`` or a missing key) is a missing value: the
similarity model then leaves that attribute out of the pair's weighted mean.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import extension_of, patterns
from evalgui.core.inputs import Claim, FileHead, InputKind

TYPES = ("numeric", "categorical", "text", "set", "vector")
DEFAULT_DELIMITER = ";"
DEFAULT_ID_COLUMN = "id"
MAX_CATEGORIES = 50                 # more distinct values than this (and few repeats): inferred as text
MAX_OUTLINE_VALUES = 3000           # an outline lists no more distinct values than this (a form cannot show them)

_VECTOR_TEXT = re.compile(r"^\s*\[(.*)\]\s*$", re.S)
_VECTOR_SPLIT = re.compile(r"[,;\s]+")


def is_missing(cell) -> bool:
    if cell is None:
        return True
    if isinstance(cell, float):
        return math.isnan(cell)
    if isinstance(cell, str):
        return not cell.strip()
    return False


def _plain(cell) -> str:
    """A cell as text: '3' for the number 3, 'true' for JSON true, numpy scalars unwrapped."""
    if isinstance(cell, (bool, np.bool_)):
        return "true" if cell else "false"
    if isinstance(cell, np.generic):
        cell = cell.item()
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return str(cell).strip()


def _is_list(cell) -> bool:
    return isinstance(cell, (list, tuple, np.ndarray))


def _number(cell) -> float | None:
    """The cell as a finite number, or None."""
    if isinstance(cell, (bool, np.bool_)):
        return None
    if isinstance(cell, (int, float, np.integer, np.floating)):
        value = float(cell)
    elif isinstance(cell, str):
        try:
            value = float(cell)
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def _vector(cell) -> list[float] | None:
    """The cell as a list of finite numbers, or None."""
    if _is_list(cell):
        items = list(cell)
    elif isinstance(cell, str):
        match = _VECTOR_TEXT.match(cell)
        if not match:
            return None
        items = [t for t in _VECTOR_SPLIT.split(match.group(1).strip()) if t]
    else:
        return None
    numbers = [_number(item) for item in items]
    return None if not numbers or any(n is None for n in numbers) else numbers


def _members(cell, delimiter: str) -> tuple[str, ...]:
    """A set value's members: a list's items, or the text split at the delimiter; blanks dropped, each once."""
    items = list(cell) if _is_list(cell) else str(cell).split(delimiter)
    return tuple(dict.fromkeys(m for m in (_plain(i) for i in items if not is_missing(i)) if m))


def _stripped(strings):
    """An Arrow string column stripped, null where blank (Arrow's compute functions: C++, the GIL released)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    stripped = pc.utf8_trim_whitespace(strings)
    return pc.if_else(pc.equal(pc.utf8_length(stripped), 0), pa.scalar(None, pa.string()), stripped)


def _arrow_text(cells: np.ndarray):
    """The cells as an Arrow string array, stripped (null where missing), when every cell is text or
    missing, as in a CSV column; else None. Arrow's compute functions then work on it in C."""
    import pyarrow as pa

    try:
        strings = pa.array(cells, pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return _stripped(strings)


def _text_cells(text) -> tuple[np.ndarray, np.ndarray]:
    """(the cells of an Arrow text column as str, None where missing; where missing)."""
    return text.to_numpy(zero_copy_only=False).astype(object), text.is_null().to_numpy(zero_copy_only=False)


def infer_type(cells, delimiter: str = DEFAULT_DELIMITER, text=None) -> str:
    """The type a column's values suggest (see the module's docstring). ``text``: the cells as
    :func:`_arrow_text` gives them, when the reader kept them (else converted here)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cells = np.asarray(cells, dtype=object)
    if text is None:
        text = _arrow_text(cells)
    if text is not None:                        # a text column (CSV, TSV): Arrow's compute functions
        present = text.drop_null()
        if not len(present):
            return "categorical"
        try:
            if pc.all(pc.is_finite(pc.cast(present, pa.float64()))).as_py():
                return "numeric"
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        if pc.all(pc.match_substring_regex(present, r"^\[.*\]$")).as_py() and \
                all(_vector(c) is not None for c in present.to_pylist()):
            return "vector"
        if pc.any(pc.match_substring(present, delimiter)).as_py():
            return "set"
        many_words = pc.any(pc.match_substring(present, " ")).as_py()
        distinct = pc.count_distinct(present).as_py()
    else:                                       # numbers and lists (JSON, Parquet): cell by cell
        present = [c for c in cells.tolist() if not is_missing(c)]
        if not present:
            return "categorical"
        if all(_number(c) is not None for c in present):
            return "numeric"
        if all(_vector(c) is not None for c in present):
            return "vector"
        if any(_is_list(c) for c in present) or any(isinstance(c, str) and delimiter in c for c in present):
            return "set"
        plain = [_plain(c) for c in present]
        many_words, distinct = any(" " in t for t in plain), len(set(plain))
    if many_words or (distinct > MAX_CATEGORIES and distinct > len(present) // 2):
        return "text"
    return "categorical"


@dataclass(eq=False)
class CaseBase:
    """Cases as read: ids, the raw cells of each attribute column, the file line of each case, and
    each attribute's type (inferred, or as the user set it)."""

    source: str
    id_column: str
    ids: np.ndarray                       # str, in file order
    cells: dict[str, np.ndarray]          # attribute -> raw cells (object): str, number, list or None
    types: dict[str, str]
    delimiter: str = DEFAULT_DELIMITER
    rows: np.ndarray | None = None        # each case's data row in the file (None: 0, 1, 2...)
    row_lines: np.ndarray | None = None   # the file line of each data row (None: counted when needed)
    file_columns: tuple[str, ...] = ()    # every column, the id column too, in the file's order
    # column -> its cells as an Arrow string array, stripped, null where missing (None: not all text).
    # Kept from the reader: converting 50,000 Python strings to Arrow holds the GIL.
    texts: dict = field(default_factory=dict, repr=False)
    _parsed: dict = field(default_factory=dict, repr=False)
    _outlines: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.rows is None:
            self.rows = np.arange(len(self.ids))

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def lines(self) -> np.ndarray:
        """The file line of each case (JSON: where its record starts), for messages."""
        if self.row_lines is None:
            from evalgui.core.inputs.similarity import data_lines

            self.row_lines = data_lines(self.source)
        return self.row_lines[self.rows]

    @property
    def attributes(self) -> list[str]:
        return list(self.cells)

    def summary(self) -> dict:
        counts = {t: sum(1 for a in self.types.values() if a == t) for t in TYPES}
        return {"cases": len(self), "attributes": len(self.cells), "id_column": self.id_column,
                "types": ", ".join(f"{n} {t}" for t, n in counts.items() if n)}

    def outline(self, column: str) -> tuple[list[str], float | None]:
        """What a model editor offers for an attribute: its distinct values, sorted (categorical and text; none
        when there are more than MAX_OUTLINE_VALUES), and the span of its numbers (numeric; None without any).
        Worked out once per case base: the reader's worker does it for every attribute (:meth:`outlines`), so a
        window choosing this case base only looks them up."""
        if column not in self._outlines:
            values, span = [], None
            kind = self.types.get(column)
            try:
                if kind in ("categorical", "text"):
                    import pandas as pd

                    cells = pd.Series(self.values(column, kind), dtype=object).dropna()
                    distinct = pd.unique(cells[cells != ""])
                    values = sorted(distinct.tolist()) if len(distinct) <= MAX_OUTLINE_VALUES else []
                elif kind == "numeric":
                    numbers = self.values(column, kind)
                    numbers = numbers[~np.isnan(numbers)]
                    span = float(numbers.max() - numbers.min()) if len(numbers) else None
            except EvalInputError:
                pass                # a column that cannot be read as its type: nothing to offer (Run says why)
            self._outlines[column] = (values, span)
        return self._outlines[column]

    def outlines(self) -> None:
        """Every attribute's :meth:`outline`, worked out now (on the thread that read the case base)."""
        for column in self.cells:
            self.outline(column)

    def take(self, rows: np.ndarray) -> "CaseBase":
        """The cases at ``rows``, in that order (the retrievers put cases in id order)."""
        return CaseBase(self.source, self.id_column, self.ids[rows], {c: v[rows] for c, v in self.cells.items()},
                        dict(self.types), self.delimiter, self.rows[rows], self.row_lines, self.file_columns,
                        {c: None if t is None else t.take(rows) for c, t in self.texts.items()})

    def text(self, column: str):
        """The column's cells as an Arrow string array (stripped, null where missing), or None when a cell is
        not text (JSON numbers, Parquet lists)."""
        if column not in self.texts:
            self.texts[column] = _arrow_text(self.cells[column])
        return self.texts[column]

    def with_id_column(self, column: str) -> "CaseBase":
        """The same cases keyed by another column (the id column so far becomes an attribute, its type
        inferred; the others keep theirs). EvalInputError when that column has a missing or repeated id."""
        if column == self.id_column:
            return self
        cells = {c: self.ids if c == self.id_column else self.cells[c] for c in self.file_columns}
        if column not in cells:
            raise EvalInputError(self.source, f"no id column '{column}' (columns: {', '.join(self.file_columns)})")
        types = {c: t for c, t in self.types.items() if c != column}
        return _keyed(self.source, list(self.file_columns), cells, self.row_lines, self.rows, column, types,
                      self.delimiter, self.texts)

    def case(self, case_id: str) -> dict:
        """One case's raw values by attribute (the model editor's preview)."""
        where = np.flatnonzero(self.ids == case_id)
        if not len(where):
            raise EvalInputError(self.source, f"no case with id '{case_id}'")
        return {name: cells[where[0]] for name, cells in self.cells.items()}

    def _bad(self, row: int, column: str, reason: str) -> EvalInputError:
        return EvalInputError(self.source, f"case '{self.ids[row]}', column '{column}': {reason}", int(self.lines[row]))

    def values(self, column: str, kind: str | None = None, delimiter: str | None = None):
        """The column parsed as ``kind`` (default: its type here). Missing values are NaN (numeric; a
        row of NaN for vectors) or None. numeric: float64 array; categorical and text: object array of
        str; set: object array of tuples of str; vector: float64 (cases x dimensions).
        A value that does not fit the type is an error naming the case id, the column and the line."""
        if column not in self.cells:
            raise EvalInputError(self.source, f"no column '{column}' (columns: {', '.join(self.attributes)})")
        kind = kind or self.types[column]
        delimiter = delimiter or self.delimiter
        key = (column, kind, delimiter if kind == "set" else None)
        if key not in self._parsed:
            self._parsed[key] = self._parse(column, kind, delimiter)
        return self._parsed[key]

    def _parse_text(self, column: str, kind: str, delimiter: str, text):
        """A column of text cells (CSV, TSV), vectorised where it counts."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if kind == "numeric":
            try:            # Arrow parses in C++ with the GIL released (pandas' to_numeric holds it)
                numbers = np.array(pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                numbers = None
            missing = text.is_null().to_numpy(zero_copy_only=False)
            if numbers is None or not np.isfinite(numbers[~missing]).all():
                return self._parse_numbers(column, *_text_cells(text))
            numbers[missing] = np.nan
            return numbers
        values, missing = _text_cells(text)
        if kind in ("categorical", "text"):
            return values
        if kind == "set":
            out = np.empty(len(values), dtype=object)
            out[:] = [None if v is None else tuple(dict.fromkeys(m for m in (p.strip() for p in v.split(delimiter))
                                                                 if m)) for v in values.tolist()]
            return out
        return self._parse_cells(column, kind, delimiter, values, missing)

    def _parse_numbers(self, column: str, values: np.ndarray, missing: np.ndarray) -> np.ndarray:
        """Text cells as numbers, one by one (pandas); the first that is no finite number is an error."""
        import pandas as pd

        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64,
                                                                                          copy=True)
        bad = ~missing & ~np.isfinite(numbers)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise self._bad(row, column, f"'{values[row]}' is not a number")
        numbers[missing] = np.nan
        return numbers

    def _parse(self, column: str, kind: str, delimiter: str):
        cells = self.cells[column]
        text = self.text(column)
        if text is not None:
            return self._parse_text(column, kind, delimiter, text)
        missing = np.fromiter((is_missing(c) for c in cells), dtype=bool, count=len(cells))
        return self._parse_cells(column, kind, delimiter, cells, missing)

    def _parse_cells(self, column: str, kind: str, delimiter: str, cells: np.ndarray, missing: np.ndarray):
        """Any cells (JSON, Parquet), one by one."""
        if kind == "numeric":
            out = np.full(len(cells), np.nan)
            present = np.flatnonzero(~missing)
            try:            # fast path: numpy parses numbers and numeric text alike
                with np.errstate(invalid="ignore"):
                    out[present] = np.array(cells[present].tolist(), dtype=np.float64)
                if np.isfinite(out[present]).all() and not any(isinstance(c, (bool, np.bool_)) for c in cells[present]):
                    return out
            except (ValueError, TypeError):
                pass
            for row in present.tolist():
                value = _number(cells[row])
                if value is None:
                    raise self._bad(row, column, f"'{_plain(cells[row])}' is not a number")
                out[row] = value
            return out
        if kind in ("categorical", "text"):
            return np.array([None if m else _plain(c) for c, m in zip(cells.tolist(), missing.tolist())], dtype=object)
        if kind == "set":
            out = np.empty(len(cells), dtype=object)
            out[:] = [None if m else _members(c, delimiter) for c, m in zip(cells.tolist(), missing.tolist())]
            return out
        if kind == "vector":
            vectors, dims = {}, {}
            for row in np.flatnonzero(~missing).tolist():
                vector = _vector(cells[row])
                if vector is None:
                    raise self._bad(row, column, f"'{_plain(cells[row])}' is not a list of numbers such as [0.1, 0.3]")
                vectors[row] = vector
                dims.setdefault(len(vector), row)
            if len(dims) > 1:
                (n1, first), (n2, other) = sorted(dims.items(), key=lambda d: d[1])[:2]
                raise self._bad(other, column, f"{n2} numbers, where case '{self.ids[first]}' has {n1} "
                                               "(every vector of a column must have the same length)")
            out = np.full((len(cells), next(iter(dims), 0)), np.nan)
            for row, vector in vectors.items():
                out[row] = vector
            return out
        raise EvalInputError(self.source, f"column '{column}': unknown type '{kind}' (choose from {', '.join(TYPES)})")


# ---------------------------------------------------------------- reading

def _json_records(source: str) -> tuple[list[dict], list[int]]:
    """Records of a JSON array of objects or of JSON lines, with the line each starts on."""
    from evalgui.core.formats import _text

    data = _text.load_bytes(source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvalInputError(source, "not UTF-8 text", data.count(b"\n", 0, exc.start) + 1) from None
    decoder = json.JSONDecoder()
    records, lines = [], []
    start = len(text) - len(text.lstrip())
    as_array = text.startswith("[", start)
    pos = start + 1 if as_array else start
    while True:
        while pos < len(text) and (text[pos].isspace() or (as_array and text[pos] == "," and records)):
            pos += 1
        if pos >= len(text) or (as_array and text[pos] == "]"):
            break
        line = text.count("\n", 0, pos) + 1
        try:
            record, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise EvalInputError(source, f"invalid JSON: {exc.msg}", exc.lineno) from None
        except RecursionError:
            raise EvalInputError(source, "the JSON is nested too deeply to read", line) from None
        except ValueError as exc:           # an integer of more than 4,300 digits
            raise EvalInputError(source, f"invalid JSON: {str(exc).split(';')[0]}", line) from None
        if not isinstance(record, dict):
            raise EvalInputError(source, "expected one JSON object per case (an array of objects, or JSON lines)",
                                 line)
        records.append(record)
        lines.append(line)
    if as_array and (pos >= len(text) or text[pos] != "]"):
        raise EvalInputError(source, "invalid JSON: the array is not closed", text.count("\n") + 1)
    return records, lines


def _load_cells(source: str) -> tuple[list[str], dict[str, np.ndarray], np.ndarray | None, dict]:
    """(column names, cells by column, line of each row or None: counted when a message needs it, the text
    columns as Arrow arrays: see CaseBase.texts)."""
    if extension_of(source) == "json":
        records, lines = _json_records(source)
        columns = list(dict.fromkeys(k for r in records for k in r))
        cells = {}
        for c in columns:
            column = np.empty(len(records), dtype=object)
            column[:] = [r.get(c) for r in records]
            cells[c] = column
        return columns, cells, np.asarray(lines, dtype=np.int64), {}
    import pyarrow as pa

    from evalgui.core.inputs.similarity import arrow_table

    table = arrow_table(source)                 # CSV and TSV as text, Parquet as stored
    if table is not None:
        columns = [str(c).strip() for c in table.column_names]
        cells, texts = {}, {}
        for i, name in enumerate(columns):
            data = table.column(i)
            if pa.types.is_string(data.type) or pa.types.is_large_string(data.type):
                cells[name] = data.to_numpy(zero_copy_only=False).astype(object, copy=False)
                texts[name] = _stripped(data.combine_chunks().cast(pa.string()))
                continue
            column = np.empty(table.num_rows, dtype=object)       # lists (Parquet) stay one cell each
            column[:] = list(data.to_numpy(zero_copy_only=False))
            cells[name] = column
        return columns, cells, None, texts
    from evalgui.core.formats.other import _load_frame

    _, frame, lines = _load_frame(source)       # Arrow could not parse it: pandas names the line
    columns = [str(c).strip() for c in frame.columns]
    cells = {}
    for name, c in zip(columns, frame.columns):
        column = np.empty(len(frame), dtype=object)
        column[:] = frame[c].tolist()
        cells[name] = column
    return columns, cells, np.asarray(lines, dtype=np.int64), {}


def read_case_base(path: str | os.PathLike, *, id_column: str | None = None, types: dict[str, str] | None = None,
                   delimiter: str = DEFAULT_DELIMITER) -> CaseBase:
    """Read a case base. ``types`` overrides the inferred type of some columns."""
    from evalgui.core import memory
    from evalgui.core.formats import _text

    source = os.fspath(path)
    _text.check_head(source)      # not text: refused from its first block, before the memory estimate
    memory.check_room(source)
    if not isinstance(delimiter, str) or not delimiter:
        from evalgui.core.errors import EvalUsageError

        raise EvalUsageError("the delimiter of set values must be at least one character (default ';')")
    columns, cells, lines, texts = _load_cells(source)
    if not columns:
        raise EvalInputError(source, "no columns")
    return _keyed(source, columns, cells, lines, None, id_column, types or {}, delimiter, texts)


def _keyed(source: str, columns: list[str], cells: dict[str, np.ndarray], lines: np.ndarray | None,
           rows: np.ndarray | None, id_column: str | None, types: dict[str, str], delimiter: str,
           texts: dict | None = None) -> CaseBase:
    """The case base of these columns keyed by ``id_column`` (None: ``id`` in any case, else the first):
    its ids checked (none missing, none twice), the other columns' types given in ``types`` or inferred.
    ``texts``: the columns' Arrow text the reader kept (CaseBase.texts)."""
    import pandas as pd
    import pyarrow.compute as pc

    if id_column is None:
        id_column = next((c for c in columns if c.lower() == DEFAULT_ID_COLUMN), columns[0])
    elif id_column not in cells:
        raise EvalInputError(source, f"no id column '{id_column}' (columns: {', '.join(columns)})")
    attributes = {c: v for c, v in cells.items() if c != id_column}
    raw_ids = cells[id_column]
    if not len(raw_ids):
        raise EvalInputError(source, "no cases (only the header)")
    base = CaseBase(source, id_column, raw_ids, attributes, {}, delimiter, rows=rows, row_lines=lines,
                    file_columns=tuple(columns), texts=dict(texts or {}))
    id_text = base.texts[id_column] if id_column in base.texts else _arrow_text(raw_ids)
    if id_text is not None:
        ids, missing = _text_cells(id_text)
    else:
        missing = np.fromiter((is_missing(c) for c in raw_ids.tolist()), dtype=bool, count=len(raw_ids))
        ids = np.array([None if m else _plain(c) for c, m in zip(raw_ids.tolist(), missing.tolist())], dtype=object)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise EvalInputError(source, f"the case id is missing (an empty cell in column {id_column})",
                             int(base.lines[row]))
    distinct = id_text is not None and pc.count_distinct(id_text).as_py() == len(ids)    # in C++: no repeat
    repeated = np.zeros(len(ids), dtype=bool) if distinct else pd.Series(ids, dtype=object).duplicated().to_numpy()
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        first = int(np.flatnonzero(ids == ids[row])[0])
        raise EvalInputError(source, f"the case id '{ids[row]}' appears twice (lines {base.lines[first]} and "
                                     f"{base.lines[row]})", int(base.lines[row]))
    base.ids = ids
    if not attributes:
        raise EvalInputError(source, f"no attribute columns besides the id column '{id_column}'")
    for column, kind in types.items():
        if column not in attributes:
            raise EvalInputError(source, f"no column '{column}' to give the type '{kind}' "
                                         f"(columns: {', '.join(attributes)})")
        if kind not in TYPES:
            raise EvalInputError(source, f"column '{column}': unknown type '{kind}' (choose from {', '.join(TYPES)})")
    base.types = {c: types[c] if c in types else infer_type(v, delimiter, base.text(c))
                  for c, v in attributes.items()}
    return base


# ---------------------------------------------------------------- the kind

def _other_kinds_columns(names: set[str]) -> bool:
    """Headers that belong to the table kinds of ranked retrieval and similarity results."""
    from evalgui.core import tidy
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS
    from evalgui.core.inputs.similarity import CASE_COLUMNS

    return bool(names & set(QUERY_COLUMNS)) and bool(names & (set(DOC_COLUMNS) | set(CASE_COLUMNS))) \
        or set(tidy.COLUMNS) <= names


def sniff(head: FileHead) -> Claim:
    if extension_of(head.path) == "json":
        from evalgui.core.formats import _text

        first = _text.load_head(head.path, 1 << 12).lstrip()[:1]
        # An array of objects or JSON lines; {query: {doc: value}} is qrels or a run.
        # Above the 0.5 JSON judgments get, which cannot be an array.
        if first == b"[":
            return Claim(0.6, "a JSON array of records")
        if first == b"{" and head.name.endswith((".jsonl", ".jsonl.gz")):
            return Claim(0.6, "JSON lines, one record each")
        return Claim(0.0)
    if head.format == "trec" and extension_of(head.path) == "tsv":
        # A .tsv without query and document columns is sniffed as whitespace-separated TREC lines, and one
        # of six fields as a run. A header line is neither a run's nor a qrels line: its fields are names,
        # never the numbers (rank, score, grade) those need.
        names = head.header_names
        if len(names) >= 2 and len(set(names)) == len(names) and not _other_kinds_columns(set(names)) \
                and not any(_number(t.decode("utf-8", "replace")) is not None for t in head.tokens):
            return Claim(0.95, "a tab-separated table whose first line names its columns (none a query or "
                               "document column): cases and their attributes")
        return Claim(0.0)
    if head.format not in ("csv", "tsv", "parquet"):
        return Claim(0.0)
    names = set(head.columns)
    if len(names) < 2 or _other_kinds_columns(names):
        return Claim(0.0)
    return Claim(0.4, "a table with named columns and no query or document column: cases and their attributes")


def read(path, **options) -> CaseBase:
    return read_case_base(path, **options)


def summary(case_base: CaseBase) -> dict:
    case_base.outlines()            # on the worker that read it, not when a window first shows its attributes
    return case_base.summary()


KIND = InputKind(
    name="case base", label="Case base", patterns=patterns("csv", "tsv", "json", "parquet"),
    expected="a table with an id column and attribute columns", sniff=sniff, read=read, summary=summary,
    headline=("cases", "attributes"))
