"""Content hashes of input files: what projects and outcomes record, so that a changed file is noticed."""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def content_hash(path: str) -> str | None:
    """The SHA-256 of a regular file's content ("sha256:…"); None when it cannot be read."""
    try:
        if not os.path.isfile(path):
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(_CHUNK), b""):
                digest.update(chunk)
        return "sha256:" + digest.hexdigest()
    except OSError:
        return None
