"""What a workflow returns: named tidy tables, notes for the user, and how they were made.

One encoding of a DataFrame in JSON serves every workspace (projects, ``evalgui-cli run
--check``, the report): column names, one dtype tag per column and the columns' values, with
NaN as null. Floats go through ``repr``-exact JSON numbers, so a saved outcome reads back equal
to the last bit.
"""

from __future__ import annotations

import datetime
import math
import os
from dataclasses import dataclass, field
from typing import Any

from evalgui.core.hashing import content_hash


ENCODING = "columns-1"


def frame_to_json(frame) -> dict:
    """A DataFrame as JSON-able columns (the index is dropped: tidy tables keep keys in columns); a table kept
    as a dict of columns (long tables an outcome builds only when asked) too."""
    import pandas as pd

    if isinstance(frame, dict):
        frame = pd.DataFrame(frame)
    columns, dtypes, data = [], [], []
    for name in frame.columns:
        series = frame[name]
        kind = series.dtype.kind
        if kind == "b":
            tag, values = "bool", [bool(v) for v in series.tolist()]
        elif kind in "iu" and series.hasnans:                       # a nullable integer column with gaps
            tag, values = "int?", [None if v is None or v is pd.NA else int(v) for v in series.tolist()]
        elif kind in "iu":
            tag, values = "int", [int(v) for v in series.tolist()]
        elif isinstance(series.dtype, pd.StringDtype):
            tag, values = "str", _plain_all(series.tolist())
        elif kind == "f":
            tag, values = "float", [None if math.isnan(v) else float(v) for v in series.tolist()]
        else:
            tag, values = "object", _plain_all(series.tolist())
        columns.append(str(name))
        dtypes.append(tag)
        data.append(values)
    return {"encoding": ENCODING, "columns": columns, "dtypes": dtypes, "data": data}


def _plain_all(values: list) -> list:
    # names (runs, queries) are mostly all plain str: then nothing needs converting, one by one
    return values if all(type(v) is str for v in values) else [_plain(v) for v in values]


def _plain(value):
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def frame_from_json(data):
    """What :func:`frame_to_json` wrote (a DataFrame); ValueError when ``data`` is not that."""
    import numpy as np
    import pandas as pd

    if not isinstance(data, dict) or data.get("encoding") != ENCODING:
        raise ValueError("not a saved table")
    columns, dtypes, values = data.get("columns"), data.get("dtypes"), data.get("data")
    if not (isinstance(columns, list) and isinstance(dtypes, list) and isinstance(values, list)
            and len(columns) == len(dtypes) == len(values)):
        raise ValueError("a saved table's columns, types and values do not match")
    lengths = {len(v) if isinstance(v, list) else -1 for v in values}
    if -1 in lengths or len(lengths) > 1:
        raise ValueError("a saved table's columns differ in length")
    out = {}
    for name, tag, column in zip(columns, dtypes, values):
        if tag == "float":
            out[str(name)] = np.array([np.nan if v is None else float(v) for v in column], dtype=np.float64)
        elif tag == "int":
            out[str(name)] = np.array([int(v) for v in column], dtype=np.int64)
        elif tag == "int?":
            out[str(name)] = pd.array([None if v is None else int(v) for v in column], dtype="Int64")
        elif tag == "bool":
            out[str(name)] = np.array([bool(v) for v in column], dtype=bool)
        elif tag == "str":
            # pandas' default string type (object before pandas 3, where "str" would turn None into "None")
            out[str(name)] = pd.Series(column, dtype=pd.Series([""]).dtype)
        elif tag == "object":
            out[str(name)] = pd.Series(column, dtype=object)
        else:
            raise ValueError(f"a saved table has a column of unknown type {tag!r}")
    return pd.DataFrame(out, columns=[str(c) for c in columns])


def describe_inputs(paths: list[str], hashes=None, check=None) -> list[dict]:
    """Each input file's path, size and content hash (in-memory inputs: their name only); ``hashes``: a
    :class:`evalgui.core.hashing.HashCache` (a file version it knows is not read again); ``check``: a job's
    cancel check, called while a file is read."""
    digest = content_hash if hashes is None else hashes.content_hash
    out = []
    for path in dict.fromkeys(paths):
        entry: dict[str, Any] = {"path": path}
        if os.path.isfile(path):
            entry["size"] = os.path.getsize(path)
            entry["hash"] = digest(path) if check is None else digest(path, check)
        out.append(entry)
    return out


def encoding_notes(paths: list[str]) -> list[str]:
    """One note per input file whose UTF-8 byte-order mark the readers left out."""
    from evalgui.core.formats._text import utf8_bom_note

    notes = []
    for path in dict.fromkeys(paths):
        if os.path.isfile(path) and (note := utf8_bom_note(path)) is not None:
            notes.append(f"{path} {note}")
    return notes


def version() -> str:
    from evalgui.core.distribution import version as installed

    return installed()


@dataclass(frozen=True, repr=False)
class MeasureNote:
    """A note about one measure ("map: 49 of 50 queries…"): the window names the measure as papers do (AP: 49
    of 50…); the command line and Python as it was asked for."""

    measure: str
    rest: str                   # what follows the measure's name, from ": "

    def for_window(self) -> str:
        from evalgui.core.display import paper_name

        return paper_name(self.measure) + self.rest

    def for_cli(self) -> str:
        return self.measure + self.rest

    for_python = __str__ = for_cli

    def __repr__(self) -> str:
        return repr(self.for_python())


@dataclass
class Outcome:
    """A workflow's answer: named tidy tables, notes for the user, and provenance.

    ``tables`` hold everything the views, exports and reports show, so none of them recomputes
    anything. ``provenance`` records the workspace, the request, the inputs (path, size, content
    hash), the evalgui version and the time.
    """

    workspace: str
    request: Any                                        # the workflow's Request
    tables: dict = field(default_factory=dict)    # name -> pandas DataFrame
    notes: list = field(default_factory=list)          # str, or Problem-like notes naming parameters
    provenance: dict = field(default_factory=dict)

    def notes_for_window(self) -> list[str]:
        texts = [n.for_window() if hasattr(n, "for_window") else str(n) for n in self.notes]
        return [t[:1].upper() + t[1:] for t in texts]

    def notes_for_cli(self) -> list[str]:
        return [n.for_cli() if hasattr(n, "for_cli") else str(n) for n in self.notes]

    def notes_for_python(self) -> list[str]:
        return [n.for_python() if hasattr(n, "for_python") else str(n) for n in self.notes]

    def __getitem__(self, name: str):
        return self.tables[name]

    @property
    def caveats(self):
        """What to watch in these results (:mod:`evalgui.core.advisor`): the ``caveats`` table, a DataFrame."""
        from evalgui.core.advisor import empty_table, table

        if "caveats" in self.tables:
            return self.tables["caveats"]
        listed = getattr(self, "caveat_list", None)
        return table(listed) if listed is not None else empty_table()

    def stamp(self, inputs: list[dict] | None = None) -> "Outcome":
        """Fill in the provenance from the request (called by the workflow when it is done), and say which
        input files began with a UTF-8 byte-order mark that was left out."""
        inputs = inputs if inputs is not None else describe_inputs(self.request.files())

        def key(note) -> str:               # a saved outcome's notes were written capitalised (notes_for_window)
            return str(note)[:1].upper() + str(note)[1:]

        told = {key(n) for n in self.notes}
        self.notes += [n for n in encoding_notes([e["path"] for e in inputs]) if key(n) not in told]
        self.provenance = {
            "workspace": self.workspace,
            "request": self.request.to_json(),
            "inputs": inputs,
            "version": version(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        return self

    def to_json(self) -> dict:
        return {"workspace": self.workspace, "request": self.request.to_json(),
                "tables": {name: frame_to_json(frame) for name, frame in self.tables.items()},
                "notes": self.notes_for_window(), "provenance": self.provenance}

    @classmethod
    def from_json(cls, data, request_type) -> "Outcome":
        """What :meth:`to_json` wrote, with its request read as ``request_type``; ValueError when it is not that."""
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise ValueError("not a saved outcome")
        request = request_type.from_json(data.get("request", {}))
        tables = {str(name): frame_from_json(frame) for name, frame in data["tables"].items()}
        notes = [str(n) for n in data.get("notes", []) if isinstance(n, str)]
        provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
        return cls(str(data.get("workspace", request_type.WORKSPACE)), request, tables, notes, provenance)
