"""Content hashes of input files: what projects and outcomes record, so that a changed file is noticed."""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def content_hash(path: str, check=None) -> str | None:
    """The SHA-256 of a regular file's content ("sha256:…"); None when it cannot be read. ``check()``: a job's
    cancel check, called between chunks (a huge file, or one on a slow mount, is not read to its end)."""
    try:
        if not os.path.isfile(path):
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(_CHUNK), b""):
                if check is not None:
                    check()
                digest.update(chunk)
        return "sha256:" + digest.hexdigest()
    except OSError:
        return None


def _signature(info: os.stat_result) -> tuple:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


class HashCache:
    """Content hashes already worked out, each kept while its file's size, times and inode stay the same: a
    file version is hashed once, however often its project is saved or reported (the window's session keeps
    one). Used on worker threads; a lock keeps two jobs from mixing their updates."""

    MAX_ENTRIES = 100_000

    def __init__(self):
        import threading

        self._known: dict[str, tuple[tuple, str]] = {}
        self._lock = threading.Lock()

    def content_hash(self, path: str, check=None) -> str | None:
        """:func:`content_hash`, read only when this version of the file was not hashed before."""
        try:
            before = os.stat(path)
        except OSError:
            return None
        signature = _signature(before)
        with self._lock:
            entry = self._known.get(path)
        if entry is not None and entry[0] == signature:
            return entry[1]
        digest = content_hash(path) if check is None else content_hash(path, check)
        try:
            unchanged = digest is not None and _signature(os.stat(path)) == signature
        except OSError:
            unchanged = False
        if unchanged:               # a file written to while it was read is hashed again next time
            with self._lock:
                if len(self._known) >= self.MAX_ENTRIES:
                    self._known.clear()
                self._known[path] = (signature, digest)
        return digest
