"""Relevance judgments: TREC qrels, relevant-document lists, JSON, CSV/TSV/Parquet tables."""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import Claim, FileHead, InputKind


def sniff(head: FileHead) -> Claim:
    from evalgui.core.formats.other import DOC_COLUMNS, QUERY_COLUMNS, REL_COLUMNS

    fmt = head.format
    if fmt == "trec":
        return Claim(0.9, "four fields a line: query, iteration, document, grade") if len(head.tokens) == 4 \
            else Claim(0.0)
    if fmt == "relevant_list":
        # One id per line: could be anything, but that is what it looks like.
        return Claim(0.6, "one document a line: a list of relevant documents")
    if fmt == "json":
        # Judgments and runs share the layout: the values decide, and a toss-up goes to judgments.
        lean = head.json_lean
        if not lean.whole_numbers:
            return Claim(0.0)
        return Claim(0.5 if lean.balanced else 0.5 - 0.4 * lean.toward_run, lean.reason)
    if head.has_column(*QUERY_COLUMNS) and head.has_column(*DOC_COLUMNS) and head.has_column(*REL_COLUMNS):
        return Claim(0.9, "query, document and relevance columns")
    return Claim(0.0)


def read(path, *, topic: str | None = None, **_):
    from evalgui.core.formats import read_qrels

    return read_qrels(path, topic=topic)


def summary(qrels) -> dict:
    return qrels.summary()


def warnings(qrels, counts: dict) -> list[str]:
    return ["no document is judged relevant (grade 1 or more)"] if counts["relevant"] == 0 else []


KIND = InputKind(
    name="qrels", label="Qrels", patterns=("*.qrels", "*.txt", "*.gz") + patterns("json", "csv", "tsv", "parquet"),
    expected="TREC qrels 'query 0 doc grade', a list of relevant documents, or a table with query, doc "
             "and relevance columns",
    sniff=sniff, read=read, summary=summary, headline=("queries", "judged", "relevant"), warnings=warnings,
    usually_one_per_session=True, kind_of=lambda data: "subtopic qrels" if hasattr(data, "lines") else "qrels")
