"""Subtopic (diversity) qrels: TREC Web track judgments ``query subtopic doc grade``.

A TREC qrels file in which a (query, document) pair repeats under different
second-column values is read as subtopic qrels. :class:`SubtopicQrels` is a
:class:`~evalgui.core.data.Qrels` whose rows hold each (query, document) pair
once with its highest grade over the subtopics, so every ordinary measure works
on it unchanged; the lines themselves, subtopic included, are kept in
``lines`` for the diversity measures (:mod:`evalgui.core.ranked.diversity`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.data import Qrels, grade_problem
from evalgui.core.errors import EvalInputError

_INTEGER = re.compile(r"[+-]?[0-9]+")
MAX_GRADE_WARNING = ("subtopic qrels: measures other than the diversity ones use each document's highest grade "
                     "over its subtopics")


@dataclass(eq=False)
class SubtopicQrels(Qrels):
    """Qrels with subtopics. The Qrels rows: one per (query, doc), its highest grade over the subtopics.
    ``lines``: every judgment as read, columns query, subtopic, doc, rel."""

    lines: pa.Table | None = field(default=None, repr=False)

    @classmethod
    def from_lines(cls, query, subtopic, doc, rel, source: str = "<memory>") -> "SubtopicQrels":
        lines = pa.table({"query": pa.array(query, pa.string()) if not isinstance(query, pa.Array) else query,
                          "subtopic": pa.array(subtopic, pa.string()) if not isinstance(subtopic, pa.Array)
                          else subtopic,
                          "doc": pa.array(doc, pa.string()) if not isinstance(doc, pa.Array) else doc,
                          "rel": pa.array(np.asarray(rel, dtype=np.int64))})
        best = lines.group_by(["query", "doc"], use_threads=False).aggregate([("rel", "max")])
        out = cls(best.column("query").combine_chunks(), best.column("doc").combine_chunks(),
                  np.asarray(best.column("rel_max").to_numpy(), dtype=np.int64), source=source)
        out.lines = lines
        return out

    @property
    def subtopic_ids(self) -> list[str]:
        return sorted(pc.unique(self.lines.column("subtopic")).to_pylist())

    def summary(self, relevance_level: int = 1) -> dict:
        out = super().summary(relevance_level)
        n_pairs = len(pc.unique(pc.binary_join_element_wise(self.lines.column("query"),
                                                            self.lines.column("subtopic"), "\x00")))
        out = {"queries": out["queries"], "subtopics": n_pairs, "judged": out["judged"],
               "relevant": out["relevant"], "lines": self.lines.num_rows,
               "min_grade": out["min_grade"], "max_grade": out["max_grade"]}
        return out


def _parse_lines(data: bytes, source: str):
    from evalgui.core.formats import _text

    queries, subtopics, docs, rels, linenos = [], [], [], [], []
    for lineno, tok in _text.iter_content_lines(data, source, 1, comment_after_blanks=False):
        if len(tok) != 4:
            raise EvalInputError(source, f"expected 4 columns (query subtopic doc relevance), found {len(tok)}",
                                 lineno)
        text = tok[3].decode()
        if not _INTEGER.fullmatch(text):   # as C's atol takes a whole field
            raise EvalInputError(source, f"the relevance '{text}' is not an integer", lineno)
        rel = int(text)
        problem = grade_problem(rel)
        if problem:
            raise EvalInputError(source, problem, lineno)
        queries.append(tok[0].decode())
        subtopics.append(tok[1].decode())
        docs.append(tok[2].decode())
        rels.append(rel)
        linenos.append(lineno)
    if not queries:
        raise EvalInputError(source, "no qrels lines (only comments or blank lines)")
    return queries, subtopics, docs, rels, np.asarray(linenos)


def _some_pair_in_two_subtopics(query, query_subtopic, doc) -> bool:
    """Whether some (query, doc) pair is judged under two different subtopics."""
    def distinct(a):
        return len(pa.table({"a": a, "d": doc}).group_by(["a", "d"], use_threads=False).aggregate([]))
    return distinct(query_subtopic) > distinct(query)


def read_subtopic_qrels(path: str | os.PathLike, *, require_repeats: bool = False) -> SubtopicQrels | None:
    """Read a TREC qrels file as subtopic qrels (the second column is the subtopic).

    A (query, subtopic, doc) triple given twice is an input error naming its lines. With
    ``require_repeats``, a file in which no (query, doc) pair is judged under two subtopics is
    not subtopic qrels: None is returned (the caller reads it as plain qrels, or refuses it)."""
    from evalgui.core.arrow import duplicate_pair_rows
    from evalgui.core.formats import _text

    source = os.fspath(path)
    queries, subtopics, docs, rels, linenos = _parse_lines(_text.load_bytes(source), source)
    q = pa.array(queries, pa.string())
    d = pa.array(docs, pa.string())
    # A pair is (query, doc) with the subtopic folded into the query, so one subtopic's duplicates show.
    qs = pc.binary_join_element_wise(q, pa.array(subtopics, pa.string()), "\x00")
    dups = duplicate_pair_rows(qs, d)
    if require_repeats and not _some_pair_in_two_subtopics(q, qs, d):
        return None
    if len(dups):
        shown = [f"{qq} (subtopic {s})" for qq, s in zip(queries, subtopics)]
        raise _text.duplicates_error(source, shown, docs, linenos, dups, "qrels file (within one subtopic)")
    return SubtopicQrels.from_lines(q, pa.array(subtopics, pa.string()), d, rels, source=source)
