"""Where a workflow gets the data its request names: files read once, or data already in memory.

A request names its inputs by path. The command line and ``evalgui-cli run`` hand the workflow an
:class:`Inputs` that reads each file when first asked (and names it in any error); the window hands
one holding what its session has loaded already; the Python API adds DataFrames and dicts under
names of their own (``<runs[0]>``), which the request then names like files.
"""

from __future__ import annotations

import os
from typing import Any

from evalgui.core.errors import EvalInputError


def in_memory(path: str) -> bool:
    """Whether a request's ``path`` names data the Python API holds in memory: the ``<name>`` form that no
    existing file holds (a real file may be called ``<b>.run``, or even ``<b>``)."""
    return path.startswith("<") and path.endswith(">") and not os.path.lexists(path)


class Inputs:
    """Data by path: ``get(path, kind)`` reads a file on first use and keeps it."""

    def __init__(self, loaded: dict[str, Any] | None = None, names: dict[str, str] | None = None):
        self._data: dict[str, Any] = dict(loaded or {})         # given by the front end, whatever the kind
        self._read: dict[tuple[str, str], Any] = {}              # (path, kind) -> read here
        self._names: dict[str, str] = dict(names or {})     # path -> what results call it

    def add(self, key: str, data: Any, name: str | None = None) -> str:
        """Data already in memory, under ``key`` (what the request names it)."""
        self._data[key] = data
        if name is not None:
            self._names[key] = name
        return key

    def name(self, path: str) -> str | None:
        """What the results call this input, when the front end chose it (the window's names)."""
        return self._names.get(path)

    def has(self, path: str) -> bool:
        return path in self._data

    def get(self, path: str, kind: str, **options) -> Any:
        if path in self._data:
            return self._data[path]
        if in_memory(path):
            raise EvalInputError(path, "no such input in memory")
        key = (path, kind)
        if key not in self._read:
            from evalgui.core.inputs import kind as input_kind

            self._read[key] = input_kind(kind).read(path, **options)
        return self._read[key]

    def files(self) -> list[str]:
        """The paths of real files among the inputs."""
        paths = list(self._data) + [path for path, _ in self._read]
        return [p for p in dict.fromkeys(paths) if not in_memory(p) and os.path.exists(p)]
