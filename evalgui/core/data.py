"""In-memory relevance judgments (qrels) and runs, stored column-wise.

Ids are pyarrow arrays and values numpy arrays, so a two-million-line run costs
a few arrays rather than millions of Python objects. Qrels keep plain string
columns; a run keeps its queries dictionary-encoded and its docnos as read (a
chunked column, one dictionary per block of the file, see :class:`DocCodes`).
All ids are strings: "007" and "7" are different queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.arrow import (DocCodes, as_dictionary_array, as_doc_column, as_string_array, codes_of, from_numpy,
                                index_in, string_array)

# Grades are counted in a dense (queries x grades) table, so they must stay small; negative
# grades (judged, not relevant) only need to fit in 64 bits.
MAX_GRADE = 9_999
MIN_GRADE = -(2**63)


def grade_problem(value) -> str | None:
    """Why ``value`` (an int) cannot be a relevance grade, or None if it can."""
    if value > MAX_GRADE:
        return f"the relevance {value} is larger than evalgui reads (grades up to {MAX_GRADE:,})"
    if value < MIN_GRADE:
        return f"the relevance {value} is out of range"
    return None


def byte_sorted(ids) -> list[str]:
    """Ids in trec_eval's order (strcmp on the UTF-8 bytes), which for Python strings is code-point order."""
    return sorted(ids)


@dataclass(eq=False)
class Qrels:
    """Relevance judgments: one row per (query, document) with an integer grade.

    Negative grades are kept: trec_eval counts them as judged but not relevant
    (and as "in the pool but unjudged" for infAP and bpref).
    """

    query: pa.Array
    doc: pa.Array
    rel: np.ndarray
    source: str = "<memory>"
    _query_ids: np.ndarray | None = field(default=None, init=False, repr=False)
    _query_codes: np.ndarray | None = field(default=None, init=False, repr=False)
    _doc_dictionary: pa.DictionaryArray | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        self.query = as_string_array(self.query, "query")
        self.doc = as_string_array(self.doc, "document")
        self.rel = np.asarray(self.rel, dtype=np.int64)
        if not (len(self.query) == len(self.doc) == len(self.rel)):
            raise ValueError("query, doc and rel must have the same length")

    def __len__(self) -> int:
        return len(self.rel)

    @property
    def query_ids(self) -> np.ndarray:
        """Distinct query ids, sorted as trec_eval sorts them (byte order)."""
        if self._query_ids is None:
            self._query_ids = np.array(byte_sorted(pc.unique(self.query).to_pylist()), dtype=object)
        return self._query_ids

    @property
    def query_codes(self) -> np.ndarray:
        """Each row's query as an index into :attr:`query_ids` (cached: every run's ranking needs it)."""
        if self._query_codes is None:
            self._query_codes = index_in(self.query, string_array(self.query_ids.tolist()))
        return self._query_codes

    @property
    def doc_dictionary(self) -> pa.DictionaryArray:
        """The docnos dictionary-encoded (cached: every run's ranking looks its docnos up in it)."""
        if self._doc_dictionary is None:
            self._doc_dictionary = as_dictionary_array(self.doc, "document")
        return self._doc_dictionary

    def summary(self, relevance_level: int = 1) -> dict:
        """Counts for the data panel: queries, judged pairs, relevant pairs, grade range."""
        return {
            "queries": len(self.query_ids),
            "judged": int(len(self.rel)),
            "relevant": int(np.count_nonzero(self.rel >= relevance_level)),
            "min_grade": int(self.rel.min()) if len(self.rel) else 0,
            "max_grade": int(self.rel.max()) if len(self.rel) else 0,
        }

    @classmethod
    def from_dict(cls, judgments: dict, source: str = "<memory>") -> "Qrels":
        """Build from ``{query: {doc: grade}}`` (the ranx / ir_datasets style)."""
        queries, docs, rels = [], [], []
        for q, per_doc in judgments.items():
            for d, r in per_doc.items():
                queries.append(str(q))
                docs.append(str(d))
                rels.append(r)
        return cls(pa.array(queries, pa.string()), pa.array(docs, pa.string()), np.asarray(rels, dtype=np.int64), source)


@dataclass(eq=False)
class Run:
    """A ranked retrieval run: one row per (query, document) with a score.

    The rank column of a TREC run is not kept: like trec_eval, evalgui ranks by
    score (descending) and breaks ties by document id (descending).
    """

    query: pa.DictionaryArray       # any ids on input; dictionary-encoded strings once built
    doc: pa.ChunkedArray            # string or dictionary<string> chunks, as read (see DocCodes)
    score: np.ndarray
    runid: str = ""
    name: str = "run"
    source: str = "<memory>"
    _query_ids: np.ndarray | None = field(default=None, init=False, repr=False)
    _doc_codes: DocCodes | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        # Queries are dictionary-encoded (few distinct); docnos are kept as read, see DocCodes.
        self.query = as_dictionary_array(self.query, "query")
        self.doc = as_doc_column(self.doc, "document")
        self.score = np.asarray(self.score, dtype=np.float64)
        if not (len(self.query) == len(self.doc) == len(self.score)):
            raise ValueError("query, doc and score must have the same length")

    def __len__(self) -> int:
        return len(self.score)

    @property
    def doc_codes(self) -> DocCodes:
        if self._doc_codes is None:
            self._doc_codes = DocCodes.of(self.doc)
        return self._doc_codes

    @property
    def query_ids(self) -> np.ndarray:
        if self._query_ids is None:
            used = np.flatnonzero(np.bincount(codes_of(self.query), minlength=len(self.query.dictionary)))
            self._query_ids = np.array(byte_sorted(self.query.dictionary.take(from_numpy(used)).to_pylist()),
                                       dtype=object)
        return self._query_ids

    def summary(self) -> dict:
        n_q = len(self.query_ids)
        return {
            "queries": n_q,
            "documents": int(len(self.score)),
            "max_per_query": int(np.bincount(codes_of(self.query)).max()) if n_q else 0,
            "runid": self.runid,
        }

    @classmethod
    def from_dict(cls, scores: dict, name: str = "run", source: str = "<memory>", runid: str = "") -> "Run":
        """Build from ``{query: {doc: score}}``."""
        queries, docs, values = [], [], []
        for q, per_doc in scores.items():
            for d, s in per_doc.items():
                queries.append(str(q))
                docs.append(str(d))
                values.append(s)
        return cls(pa.array(queries, pa.string()), pa.array(docs, pa.string()), np.asarray(values, dtype=np.float64),
                   runid=runid or name, name=name, source=source)
