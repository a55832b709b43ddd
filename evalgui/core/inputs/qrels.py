"""Relevance judgments: TREC qrels, relevant-document lists, JSON, CSV/TSV/Parquet tables."""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import FileHead, InputKind


def sniff(head: FileHead) -> float:
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS, REL_COLUMNS

    fmt = head.format
    if fmt == "trec":
        return 0.9 if len(head.tokens) == 4 else 0.0
    if fmt == "relevant_list":
        return 0.6                       # one id per line: could be anything, but that is what it looks like
    if fmt == "json":
        return 0.5                       # judgments and runs share the layout: judgments are read first
    if head.has_column(*QUERY_COLUMNS) and head.has_column(*DOC_COLUMNS) and head.has_column(*REL_COLUMNS):
        return 0.9
    return 0.0


def read(path, *, topic: str | None = None, **_):
    from evalgui.core.formats import read_qrels

    return read_qrels(path, topic=topic)


def summary(qrels) -> dict:
    return qrels.summary()


def warnings(qrels, counts: dict) -> list[str]:
    return ["no document is judged relevant (grade 1 or more)"] if counts["relevant"] == 0 else []


KIND = InputKind(
    name="qrels", label="Qrels", patterns=("*.qrels", "*.txt", "*.gz") + patterns("json", "csv", "tsv", "parquet"),
    expected="TREC qrels 'query iter doc relevance', a list of relevant documents, or a table with query, doc "
             "and relevance columns",
    sniff=sniff, read=read, summary=summary, headline=("queries", "judged", "relevant"), warnings=warnings)
