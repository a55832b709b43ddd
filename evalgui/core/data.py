"""In-memory relevance judgments (qrels) and runs, stored column-wise.

Both hold pyarrow string arrays for ids and a numpy array for the values, so a
two-million-line run costs a few arrays rather than millions of Python objects.
All ids are strings: "007" and "7" are different queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.errors import EvalInputError


def _as_string_array(values, what: str) -> pa.Array:
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, type=pa.string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = pc.cast(arr, pa.string())
    if arr.null_count:
        raise EvalInputError(None, f"missing {what} id")
    return arr


def as_dictionary_array(values, what: str) -> pa.DictionaryArray:
    """Ids as a dictionary-encoded array: int codes plus one copy of each distinct id."""
    if isinstance(values, pa.ChunkedArray):
        values = values.unify_dictionaries().combine_chunks() if pa.types.is_dictionary(values.type) \
            else values.combine_chunks()
    if isinstance(values, pa.DictionaryArray):
        if not (pa.types.is_string(values.dictionary.type) or pa.types.is_large_string(values.dictionary.type)):
            values = pc.dictionary_encode(pc.cast(values.cast(values.dictionary.type), pa.string()))
        return values
    return pc.dictionary_encode(_as_string_array(values, what))


def codes_of(values: pa.DictionaryArray) -> np.ndarray:
    return values.indices.to_numpy(zero_copy_only=False).astype(np.int64)


def duplicate_pair_rows(query, doc) -> np.ndarray:
    """Row indices of every (query, doc) pair that occurs more than once, in row order."""
    if len(query) < 2:
        return np.empty(0, dtype=np.int64)
    q = as_dictionary_array(query, "query")
    d = as_dictionary_array(doc, "document")
    keys = codes_of(q) * max(len(d.dictionary), 1) + codes_of(d)
    sorted_keys = np.sort(keys)
    if not (sorted_keys[1:] == sorted_keys[:-1]).any():
        return np.empty(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    same_as_next = keys[order][1:] == keys[order][:-1]
    dup = np.zeros(len(keys), dtype=bool)
    dup[:-1] |= same_as_next
    dup[1:] |= same_as_next
    return np.sort(order[dup])


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
    _query_ids: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        self.query = _as_string_array(self.query, "query")
        self.doc = _as_string_array(self.doc, "document")
        self.rel = np.asarray(self.rel, dtype=np.int64)
        if not (len(self.query) == len(self.doc) == len(self.rel)):
            raise ValueError("query, doc and rel must have the same length")

    def __len__(self) -> int:
        return len(self.rel)

    @property
    def query_ids(self) -> np.ndarray:
        """Distinct query ids, sorted as trec_eval sorts them (byte order)."""
        if self._query_ids is None:
            self._query_ids = np.array(sorted(pc.unique(self.query).to_pylist(), key=lambda q: q.encode()),
                                       dtype=object)
        return self._query_ids

    def summary(self, relevance_level: int = 1) -> dict:
        """Counts for the data panel: queries, judged pairs, relevant pairs, grade range."""
        return {
            "queries": len(self.query_ids),
            "judged": int(len(self.rel)),
            "relevant": int(np.count_nonzero(self.rel >= relevance_level)),
            "min_grade": int(self.rel.min()) if len(self.rel) else 0,
            "max_grade": int(self.rel.max()) if len(self.rel) else 0,
        }

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"query": self.query.to_pylist(), "doc": self.doc.to_pylist(), "rel": self.rel})

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

    query: pa.Array
    doc: pa.Array
    score: np.ndarray
    runid: str = ""
    name: str = "run"
    source: str = "<memory>"
    _query_ids: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        # Dictionary-encoded once here; ranking and the qrels join then work on int codes.
        self.query = as_dictionary_array(self.query, "query")
        self.doc = as_dictionary_array(self.doc, "document")
        self.score = np.asarray(self.score, dtype=np.float64)
        if not (len(self.query) == len(self.doc) == len(self.score)):
            raise ValueError("query, doc and score must have the same length")

    def __len__(self) -> int:
        return len(self.score)

    @property
    def query_ids(self) -> np.ndarray:
        if self._query_ids is None:
            used = np.unique(codes_of(self.query))
            self._query_ids = np.array(sorted(self.query.dictionary.take(pa.array(used)).to_pylist(),
                                              key=lambda q: q.encode()), dtype=object)
        return self._query_ids

    def summary(self) -> dict:
        n_q = len(self.query_ids)
        return {
            "queries": n_q,
            "documents": int(len(self.score)),
            "max_per_query": int(np.bincount(codes_of(self.query)).max()) if n_q else 0,
            "runid": self.runid,
        }

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"query": self.query.cast(pa.string()).to_pylist(),
                             "doc": self.doc.cast(pa.string()).to_pylist(), "score": self.score})

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
