"""The extensions of each table format, in one place: readers, sniffing and the Open dialog's patterns.

A module of its own, below the readers (:mod:`evalgui.core.formats` and its submodules all use it).
"""

from __future__ import annotations

import os

EXTENSIONS = {"json": (".json", ".jsonl"), "parquet": (".parquet", ".pq"), "csv": (".csv",), "tsv": (".tsv", ".tab")}


def extension_of(source: str) -> str | None:
    """The table format a file's extension names (a trailing .gz ignored), or None."""
    lower = os.fspath(source).lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    return next((fmt for fmt, extensions in EXTENSIONS.items() if lower.endswith(extensions)), None)


def patterns(*formats: str) -> tuple[str, ...]:
    """File-dialog patterns for these table formats, e.g. ("*.csv", "*.tsv", "*.tab")."""
    return tuple(f"*{ext}" for fmt in formats for ext in EXTENSIONS[fmt])
