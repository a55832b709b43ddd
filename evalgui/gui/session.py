"""The loaded files of a session.

Reading runs on the worker (``core.inputs.load_files_job``; a two-million-line
run takes about a second); the session only keeps what came back and tells
the views when it changes.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from evalgui.core.inputs import LoadedInput


class Session(QObject):
    """The files loaded in this window. Paths are absolute and unique."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._items: list[LoadedInput] = []

    @property
    def items(self) -> list[LoadedInput]:
        return list(self._items)

    def add(self, item: LoadedInput) -> None:
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

    def find(self, path: str) -> LoadedInput | None:
        return next((i for i in self._items if i.path == path), None)

    def of_kind(self, kind: str) -> list[LoadedInput]:
        return [i for i in self._items if i.kind == kind]
