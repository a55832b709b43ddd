"""The loaded files of a session, and the engine job that reads them.

Reading runs on the worker (a two-million-line run takes about a second);
the session only keeps what came back and tells the views when it changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from evalgui.core.errors import EvalInputError

# What the data panel offers; only qrels and runs have readers so far.
KINDS = ("qrels", "run", "case base", "rank file", "similarity results")
READABLE_KINDS = ("qrels", "run")


@dataclass
class DataItem:
    path: str
    kind: str
    data: object               # Qrels or Run
    summary: dict
    warnings: list[str] = field(default_factory=list)
    kind_detected: bool = True  # False when the user chose the kind

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def badge(self) -> str:
        return "warning" if self.warnings else "ok"


@dataclass
class LoadFailure:
    path: str
    message: str


def _detect_kind(path: str) -> str:
    from evalgui.core.formats import detect_kind

    return detect_kind(path)


def _read(path: str, kind: str):
    from evalgui.core.formats import read_qrels, read_run

    if kind == "qrels":
        return read_qrels(path)
    if kind == "run":
        return read_run(path)
    raise EvalInputError(path, f"evalgui cannot read {kind} files yet (only qrels and runs)")


def _summarise(kind: str, data) -> tuple[dict, list[str]]:
    summary = data.summary()
    warnings = []
    if kind == "qrels" and summary["relevant"] == 0:
        warnings.append("no document is judged relevant (grade 1 or more)")
    return summary, warnings


def read_data_file(path: str, kind: str | None = None) -> DataItem:
    """Read one file; the kind comes from the content unless given. Raises EvalInputError."""
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise EvalInputError(path, "no such file")
    if os.path.isdir(path):
        raise EvalInputError(path, "this is a folder, not a file")
    detected = kind is None
    if kind is None:
        kind = _detect_kind(path)
    if kind == "unknown":
        # JSON and odd tables share one layout for both kinds: judgments are integers.
        try:
            data, kind = _read(path, "qrels"), "qrels"
        except EvalInputError:
            data, kind = _read(path, "run"), "run"
    else:
        data = _read(path, kind)
    summary, warnings = _summarise(kind, data)
    return DataItem(path, kind, data, summary, warnings, detected)


def load_files_job(requests: list[tuple[str, str | None]]):
    """An engine job reading files; each file arrives as a partial result (DataItem or LoadFailure)."""
    def job(state):
        n = len(requests)
        for i, (path, kind) in enumerate(requests):
            state.check()
            state.progress(i / max(n, 1), f"Reading {os.path.basename(path)} ({i + 1} of {n})")
            try:
                state.partial(read_data_file(path, kind))
            except EvalInputError as exc:
                state.partial(LoadFailure(path, str(exc)))
            except (OSError, MemoryError) as exc:
                state.partial(LoadFailure(path, f"{path}: {getattr(exc, 'strerror', None) or exc}"))
        state.progress(1.0, "Loaded")
        return n
    return job


class Session(QObject):
    """The files loaded in this window. Paths are absolute and unique."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._items: list[DataItem] = []

    @property
    def items(self) -> list[DataItem]:
        return list(self._items)

    def add(self, item: DataItem) -> None:
        """Add a file, replacing an earlier copy of the same path."""
        for i, old in enumerate(self._items):
            if old.path == item.path:
                self._items[i] = item
                break
        else:
            self._items.append(item)
        self.changed.emit()

    def remove(self, path: str) -> None:
        self._items = [i for i in self._items if i.path != path]
        self.changed.emit()

    def clear(self) -> None:
        self._items = []
        self.changed.emit()

    def find(self, path: str) -> DataItem | None:
        return next((i for i in self._items if i.path == path), None)

    def of_kind(self, kind: str) -> list[DataItem]:
        return [i for i in self._items if i.kind == kind]
