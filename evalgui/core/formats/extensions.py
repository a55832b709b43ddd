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


def table_separator(source: str, data: bytes | None = None) -> str:
    """The separator of a CSV or TSV table: by the extension, else (a .txt, say: evaluate -o x.txt
    writes TSV) a tab when the header line has one, else a comma. ``data``: the file's bytes, if read."""
    fmt = extension_of(source)
    if fmt in ("csv", "tsv"):
        return "\t" if fmt == "tsv" else ","
    if data is None:
        from evalgui.core.formats import _text

        data = _text.load_head(source, 1 << 16)
    head = data[:1 << 16]
    header = next((line for line in head.split(b"\n") if line.strip()), b"")
    return "\t" if b"\t" in header else ","
