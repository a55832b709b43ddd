"""The loaded files of a session.

Reading runs on the worker (``core.inputs.load_files_job``; a two-million-line
run takes about a second); the session only keeps what came back and tells
the views when it changes.
"""

from __future__ import annotations

import itertools

from PySide6.QtCore import QObject, Signal

from evalgui.core.hashing import HashCache
from evalgui.core.inputs import LoadedInput, distinguishing_names

_loads = itertools.count(1)


def name_files_ahead(entries: list[tuple[str, str, str | None]]) -> None:
    """Work out the names a session of these files (path, kind, kind it acts as; in session order) will
    show, so that the change that brings them only looks them up: called on the worker while a project's
    files are read (naming 20,000 runs is a sizeable share of the window's turn otherwise)."""
    by_kind: dict[str, list[str]] = {}
    for path, kind, acts_as in entries:
        by_kind.setdefault(kind, []).append(path)
        if acts_as and acts_as != kind:
            by_kind.setdefault(acts_as, []).append(path)
    for paths in by_kind.values():
        distinguishing_names(paths)        # kept by its cache, with and without extensions


class Session(QObject):
    """The files loaded in this window. Paths are absolute and unique.

    Files of one kind that share a name are shown with the folders that tell them apart
    (``a/bm25.run``, ``b/bm25.run``: :attr:`LoadedInput.name`); :meth:`run_names` names runs
    in results the same way, without the extension.
    """

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._items: list[LoadedInput] = []
        self._versions: dict[str, int] = {}     # path -> which load; a reload gives a new number
        self._by_path: dict[str, LoadedInput] = {}
        # What the views work out from the files (runs of a kind, a picker's rows), kept until the files
        # change: five workspaces ask the same of 20,000 files after each change.
        self._cache: dict = {}
        # Content hashes of the files, worked out by save and report jobs on the worker: each file version is
        # hashed once however often it is saved (a stat tells whether the file changed since).
        self.hashes = HashCache()

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
        self._versions[item.path] = next(_loads)
        self._changed()

    def add_many(self, items: list[LoadedInput]) -> None:
        """Add files at once (one change signal: the views refresh once for a batch, not once per file)."""
        if not items:
            return
        where = {old.path: i for i, old in enumerate(self._items)}
        for item in items:
            if item.path in where:
                self._items[where[item.path]] = item
            else:
                where[item.path] = len(self._items)
                self._items.append(item)
            self._versions[item.path] = next(_loads)
        self._changed()

    def remove(self, path: str) -> None:
        self._items = [i for i in self._items if i.path != path]
        self._versions.pop(path, None)
        self._changed()

    def clear(self) -> None:
        self._items = []
        self._versions.clear()
        self._changed()

    def find(self, path: str) -> LoadedInput | None:
        return self._by_path.get(path)

    def of_kind(self, kind: str) -> list[LoadedInput]:
        return list(self.cached(("by kind",), self._by_kind).get(kind, ()))

    def _by_kind(self) -> dict[str, list[LoadedInput]]:
        """Every kind's files in one pass (a file also counts as the kind it acts as)."""
        by_kind: dict[str, list[LoadedInput]] = {}
        for item in self._items:
            by_kind.setdefault(item.kind, []).append(item)
            acts_as = item.record.acts_as
            if acts_as and acts_as != item.kind:
                by_kind.setdefault(acts_as, []).append(item)
        return by_kind

    def cached(self, key, compute):
        """``compute()``, worked out once until the files change (``key`` names what it is)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def version(self, path: str) -> int | None:
        """Which load of ``path`` the session holds (None: not loaded); reading the file again changes it."""
        return self._versions.get(path)

    def run_names(self, paths: list[str]) -> list[str]:
        """How results name these runs: file stems, with the folders that tell same-named runs apart."""
        def names():
            runs = [i.path for i in self.of_kind("run")]
            return dict(zip(runs, distinguishing_names(runs)))

        names = self.cached(("run names",), names)
        return [names[p] for p in paths]

    def _changed(self) -> None:
        self._cache.clear()
        self._by_path = {i.path: i for i in self._items}
        for kind in {i.kind for i in self._items}:
            items = self.of_kind(kind)
            for item, name in zip(items, distinguishing_names([i.path for i in items], keep_extension=True)):
                item.shown_name = name
        self.changed.emit()
