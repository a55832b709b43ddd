"""Case bases for case-based retrieval: an id column and attribute columns. No reader yet."""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import InputKind

KIND = InputKind(
    name="case base", label="Case base", patterns=patterns("csv", "tsv", "json", "parquet"),
    expected="a table with an id column and attribute columns",
    sniff=lambda head: 0.0)
