"""Ranked runs: TREC run files, JSON, CSV/TSV/Parquet tables with a score column."""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import Claim, FileHead, InputKind


def sniff(head: FileHead) -> Claim:
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS, SCORE_COLUMNS

    fmt = head.format
    if fmt == "trec":
        return Claim(0.9, "six fields a line: query, Q0, document, rank, score, tag") if len(head.tokens) >= 6 \
            else Claim(0.0)
    if fmt == "json":
        # Judgments and runs share the layout: the values decide.
        lean = head.json_lean
        if lean.balanced:
            return Claim(0.45, lean.reason)
        # Never below MIN_CONFIDENCE: a file that is not judgments after all (a grade out of range) is read as a run.
        return Claim(max(0.4, 0.5 + 0.4 * lean.toward_run), lean.reason)
    if head.has_column(*QUERY_COLUMNS) and head.has_column(*DOC_COLUMNS) and head.has_column(*SCORE_COLUMNS):
        return Claim(0.9, "query, document and score columns")
    return Claim(0.0)


def read(path, *, name: str | None = None, state=None, too_large=None, **_):
    from evalgui.core.formats import read_run

    # A run too large to hold stays on disk, named by its file, and is evaluated by query (the window's loads).
    if too_large is not None and (file := too_large(path, state)) is not None:
        if name:
            file.name = name
        return file
    return read_run(path, name=name)


def summary(run) -> dict:
    return run.summary()


KIND = InputKind(
    name="run", label="Run", patterns=("*.run", "*.res", "*.trec", "*.txt", "*.gz")
    + patterns("json", "csv", "tsv", "parquet"),
    expected="TREC run 'query Q0 doc rank score tag', or a table with query, doc and score columns",
    sniff=sniff, read=read, summary=summary, headline=("queries", "documents"), reads_large=True)
