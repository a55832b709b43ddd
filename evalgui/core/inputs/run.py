"""Ranked runs: TREC run files, JSON, CSV/TSV/Parquet tables with a score column."""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import FileHead, InputKind


def sniff(head: FileHead) -> float:
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS, SCORE_COLUMNS

    fmt = head.format
    if fmt == "trec":
        return 0.9 if len(head.tokens) >= 6 else 0.0
    if fmt == "json":
        return 0.4
    if head.has_column(*QUERY_COLUMNS) and head.has_column(*DOC_COLUMNS) and head.has_column(*SCORE_COLUMNS):
        return 0.9
    return 0.0


def read(path, *, name: str | None = None, **_):
    from evalgui.core.formats import read_run

    return read_run(path, name=name)


def summary(run) -> dict:
    return run.summary()


KIND = InputKind(
    name="run", label="Run", patterns=("*.run", "*.res", "*.trec", "*.txt", "*.gz")
    + patterns("json", "csv", "tsv", "parquet"),
    expected="TREC run 'query Q0 doc rank score tag', or a table with query, doc and score columns",
    sniff=sniff, read=read, summary=summary, headline=("queries", "documents"))
