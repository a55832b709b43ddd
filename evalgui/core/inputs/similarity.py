"""Similarity results of a case-based retriever: query_id, case_id, similarity. No reader yet.

Sniffed already, so that such a table is never taken for a ranked run.
"""

from __future__ import annotations

from evalgui.core.formats import patterns
from evalgui.core.inputs import FileHead, InputKind

QUERY_COLUMNS = ("query_id", "query", "qid")
CASE_COLUMNS = ("case_id", "case", "caseid", "cid")
SIMILARITY_COLUMNS = ("similarity", "sim", "score")


def sniff(head: FileHead) -> float:
    names = head.header_names
    if any(n in names for n in QUERY_COLUMNS) and any(n in names for n in CASE_COLUMNS) \
            and any(n in names for n in SIMILARITY_COLUMNS):
        return 0.95
    return 0.0


KIND = InputKind(
    name="similarity results", label="Similarity results", patterns=patterns("csv", "tsv", "parquet"),
    expected="a table with query_id, case_id and similarity columns", sniff=sniff)
