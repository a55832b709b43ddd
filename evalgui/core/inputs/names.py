"""Names that tell files apart: ``a/bm25`` and ``b/bm25`` rather than ``bm25`` and ``bm25-2``.

The window (Data dock, forms, result tables, plots) and ``evalgui-cli evaluate``
name runs with the same rule, :func:`distinguishing_names`.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from pathlib import PurePath


def distinguishing_names(paths, keep_extension: bool = False) -> list[str]:
    """See :func:`_both_names`; the last few answers are kept (the window asks for the same
    20,000 names from several views after each change of its files, with and without extensions)."""
    return list(_cached_names(tuple(os.fspath(p) for p in paths))[bool(keep_extension)])


@functools.lru_cache(maxsize=16)
def _cached_names(paths: tuple) -> tuple:
    """(names without extensions, names with them): one pass gives both."""
    return _both_names(paths)


def _parts(path: str) -> tuple:
    if os.sep == "/" and path.startswith("/"):       # the common case, without pathlib's cost
        return ("/", *[part for part in path[1:].split("/") if part])
    return PurePath(path).parts


def _absolute(path: str) -> str:
    """``os.path.abspath``, skipped for paths it would leave as they are (20,000 runs: a tenth of a second)."""
    if os.sep == "/" and path.startswith("/") and "//" not in path and "/." not in path and not path.endswith("/"):
        return path
    return os.path.abspath(path)


def _both_names(paths) -> tuple[tuple, tuple]:
    """For each path, its file name with the fewest parent folders that tell it apart from the others:
    (without extensions, with them).

    Names are file stems (``bm25`` for ``bm25.run`` or ``bm25.run.gz``, as runs are named), or whole file
    names in the second; files whose stems collide within one folder (``bm25.run``, ``bm25.txt``)
    keep their extension either way. Folders are joined with ``/``; a path that needs every
    folder to be told apart is shown whole. The same path twice cannot be told apart: ValueError.
    """
    full = [_absolute(os.fspath(p)) for p in paths]
    if len(set(full)) != len(full):
        repeated = [p for p, n in Counter(full).items() if n > 1]
        raise ValueError(f"{repeated[0]} is given twice: one file cannot have two names")
    from evalgui.core.formats._text import file_stem     # the same stem a run read from the file is named by

    # The common case: every stem differs, so the file names alone tell the files apart.
    base_names = [p.rpartition("/")[2] for p in full] if os.sep == "/" else [os.path.basename(p) for p in full]
    if all(base_names):
        base_stems = [file_stem(name) for name in base_names]
        if len(set(base_stems)) == len(base_stems):
            return tuple(base_stems), tuple(base_names)

    parts = [_parts(p) for p in full]
    stems = [file_stem(folders[-1]) for folders in parts]
    # Folders are compared on stems, so bm25.run in one folder and bm25.txt in another show their folders.
    keys = [folders[:-1] + (stem,) for folders, stem in zip(parts, stems)]
    same_stem_in_folder = Counter(keys)
    distinct = set(keys)

    # One trailing component (the stem) tells most files apart: that step without building slices.
    stem_counts = Counter(key[-1] for key in distinct)
    depth = [1] * len(full)               # trailing components of the key each name needs
    unresolved = [i for i, stem in enumerate(stems) if stem_counts[stem] > 1 and len(keys[i]) > 1]
    k = 2
    while unresolved:
        counts = Counter(key[-k:] for key in distinct)
        still = []
        for i in unresolved:
            if counts[keys[i][-k:]] == 1 or k >= len(keys[i]):
                depth[i] = k
            else:
                still.append(i)
        unresolved, k = still, k + 1

    def named(keep_extension: bool) -> tuple:
        names = []
        for path_parts, key, k in zip(parts, keys, depth):
            last = path_parts[-1] if keep_extension or same_stem_in_folder[key] > 1 else key[-1]
            if k >= len(key):                 # every folder, from the root (or drive)
                anchor = path_parts[0].replace("\\", "/")
                names.append(anchor + "/".join(path_parts[1:-1] + (last,)))
            elif k == 1:
                names.append(last)
            else:
                names.append("/".join(key[len(key) - k:-1] + (last,)))
        # Contrived names (a file "bm25.run.txt" next to another folder's bm25.run and bm25.txt) can
        # still meet: those show their whole path.
        if len(set(names)) == len(names):
            return tuple(names)
        clashes = {n for n, c in Counter(names).items() if c > 1}
        return tuple(p.replace("\\", "/") if n in clashes else n for p, n in zip(full, names))

    return named(False), named(True)
