"""Arrow helpers the readers and the engines share: string and dictionary arrays, codes,
numpy conversions without copies, 64-bit string hashes and the duplicate (query, doc) check.

Kept apart from the data models in :mod:`evalgui.core.data`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core.errors import EvalInputError


def as_string_array(values, what: str) -> pa.Array:
    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, type=pa.string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_string(arr.type):
        arr = pc.cast(arr, pa.string())   # large_string and numbers alike: one id type everywhere
    if arr.null_count:
        raise EvalInputError(None, f"missing {what} id")
    return arr


def as_dictionary_array(values, what: str) -> pa.DictionaryArray:
    """Ids as a dictionary-encoded array: int codes plus one copy of each distinct id."""
    if isinstance(values, pa.ChunkedArray):
        values = values.unify_dictionaries().combine_chunks() if pa.types.is_dictionary(values.type) \
            else values.combine_chunks()
    if isinstance(values, pa.DictionaryArray):
        if values.null_count:
            raise EvalInputError(None, f"missing {what} id")
        if not pa.types.is_string(values.dictionary.type):
            values = pc.dictionary_encode(as_string_array(values.cast(values.dictionary.type), what))
        return values
    return pc.dictionary_encode(as_string_array(values, what))


# pyarrow's Array.to_numpy() and pa.array() import pandas (0.2 s) on first use; these helpers do not.
_NUMPY_TYPES = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
                pa.uint8(): np.uint8, pa.uint16(): np.uint16, pa.uint32(): np.uint32, pa.uint64(): np.uint64,
                pa.float32(): np.float32, pa.float64(): np.float64}


def to_numpy(arr) -> np.ndarray:
    """A fixed-width Arrow array as numpy (a view where possible); nulls not allowed."""
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 1:
            return to_numpy(arr.chunk(0))
        return np.concatenate([to_numpy(c) for c in arr.chunks]) if arr.num_chunks else \
            np.empty(0, _NUMPY_TYPES[arr.type])
    if arr.null_count:
        raise ValueError("unexpected nulls")
    dtype = np.dtype(_NUMPY_TYPES[arr.type])
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def from_numpy(values: np.ndarray) -> pa.Array:
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def string_array(items) -> pa.Array:
    """A pyarrow string array from Python strings (few: one per query, say)."""
    encoded = [s.encode() for s in items]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]).cast(pa.string())


def index_in(values, vocabulary: pa.Array, dtype=np.int64) -> np.ndarray:
    """Position of each value in ``vocabulary``, -1 where absent."""
    idx = pc.index_in(values, value_set=vocabulary)
    if isinstance(idx, pa.ChunkedArray):
        idx = idx.combine_chunks()
    out = np.frombuffer(idx.buffers()[1], dtype=np.int32, count=len(idx), offset=idx.offset * 4).astype(dtype)
    if idx.null_count:
        valid = np.unpackbits(np.frombuffer(idx.buffers()[0], dtype=np.uint8), bitorder="little")
        out[valid[idx.offset:idx.offset + len(idx)] == 0] = -1
    return out


def codes_of(values: pa.DictionaryArray) -> np.ndarray:
    return to_numpy(values.indices).astype(np.int64)


def as_doc_column(values, what: str) -> pa.ChunkedArray:
    """Chunks of string or dictionary<string> arrays, kept as they come (encoding 2M docnos costs 0.3 s)."""
    if isinstance(values, pa.DictionaryArray):
        values = pa.chunked_array([values])
    elif not isinstance(values, pa.ChunkedArray):
        values = pa.chunked_array([as_string_array(values, what)])
    if pa.types.is_dictionary(values.type):
        if not (pa.types.is_string(values.type.value_type) or pa.types.is_large_string(values.type.value_type)):
            values = pa.chunked_array([as_string_array(pc.cast(c.cast(c.dictionary.type), pa.string()), what)
                                       for c in values.chunks], pa.string())
        elif values.null_count:
            raise EvalInputError(None, f"missing {what} id")
    elif not pa.types.is_string(values.type):
        values = pa.chunked_array([as_string_array(c, what) for c in values.chunks], pa.string())
    elif values.null_count:
        raise EvalInputError(None, f"missing {what} id")
    return values


@dataclass(frozen=True, eq=False)
class DocCodes:
    """An int code per row such that equal codes mean equal docnos.

    The converse holds only within one chunk: each chunk has its own
    dictionary (the CSV reader builds one per block, in parallel), so one
    docno may have a code in each chunk. ``vocabulary`` is the chunks'
    dictionaries end to end: ``vocabulary[code]`` is the docno.
    """

    codes: np.ndarray         # (rows,) int32 (int64 beyond 2**31 codes)
    vocabulary: pa.ChunkedArray  # string
    chunk_starts: np.ndarray  # (chunks + 1,) first row of each chunk
    code_starts: np.ndarray   # (chunks + 1,) first code of each chunk

    def docnos(self, rows: np.ndarray) -> pa.Array:
        """The docnos of some rows (ascending), as a string array."""
        parts = []
        bounds = np.searchsorted(rows, self.chunk_starts)
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            if b > a:  # a chunked take resolves the chunk of every index: slow
                local = self.codes[rows[a:b]] - self.code_starts[i]
                parts.append(self.vocabulary.chunk(i).take(from_numpy(local)))
        return pa.chunked_array(parts, pa.string()).combine_chunks()

    @classmethod
    def of(cls, doc: pa.ChunkedArray) -> "DocCodes":
        chunks = [c if pa.types.is_dictionary(c.type) else pc.dictionary_encode(c) for c in doc.chunks]
        starts = np.concatenate(([0], np.cumsum([len(c) for c in chunks], dtype=np.int64)))
        total = sum(len(c.dictionary) for c in chunks)
        codes = np.empty(starts[-1], dtype=np.int32 if total < 2**31 else np.int64)
        base = 0
        for chunk, a, b in zip(chunks, starts[:-1], starts[1:]):
            np.add(to_numpy(chunk.indices), base, out=codes[a:b], casting="unsafe")
            base += len(chunk.dictionary)
        vocabulary = pa.chunked_array([c.dictionary.cast(pa.string()) for c in chunks], pa.string())
        code_starts = np.concatenate(([0], np.cumsum([len(c.dictionary) for c in chunks], dtype=np.int64)))
        return cls(codes, vocabulary, starts, code_starts)


_HASH_BASE = np.uint64(0x100000001B3)       # FNV's 64-bit prime, as the polynomial's base
_HASH_MIX = np.uint64(0x9E3779B97F4A7C15)    # golden-ratio constant, to mix in the query


def _mix64(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit reaches every output bit."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def string_hashes(strings: pa.Array) -> np.ndarray:
    """A 64-bit hash of each string, vectorised over the array's bytes (equal strings, equal hashes)."""
    strings = strings.cast(pa.large_string()) if not pa.types.is_large_string(strings.type) else strings
    n = len(strings)
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    _, offsets_buf, data_buf = strings.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[strings.offset:strings.offset + n + 1]
    start, end = offsets[0], offsets[-1]
    data = np.frombuffer(data_buf, dtype=np.uint8)[start:end] if data_buf is not None and end > start \
        else np.empty(0, dtype=np.uint8)
    lengths = np.diff(offsets)
    position = np.arange(len(data), dtype=np.int64) - np.repeat(offsets[:-1] - start, lengths)
    longest = int(lengths.max()) if n else 0
    with np.errstate(over="ignore"):
        powers = np.cumprod(np.full(max(longest, 1), _HASH_BASE, dtype=np.uint64))   # wraps mod 2**64
        total = np.concatenate(([np.uint64(0)], np.cumsum((data.astype(np.uint64) + np.uint64(1)) * powers[position],
                                                         dtype=np.uint64)))
        h = total[offsets[1:] - start] - total[offsets[:-1] - start]
        return _mix64(h + lengths.astype(np.uint64))


def _sharing_a_key(keys: np.ndarray) -> np.ndarray:
    """Ascending positions of the keys that occur more than once."""
    sorted_keys = np.sort(keys)  # cheaper than argsort, and repeats are rare
    if not (sorted_keys[1:] == sorted_keys[:-1]).any():
        return np.empty(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    same_as_next = ordered[1:] == ordered[:-1]
    repeated = np.zeros(len(keys), dtype=bool)
    repeated[:-1] |= same_as_next
    repeated[1:] |= same_as_next
    return np.sort(order[repeated])


def _duplicates_by_hash(q: np.ndarray, dc: "DocCodes") -> np.ndarray:
    with np.errstate(over="ignore"):
        row_hash = np.concatenate([string_hashes(c) for c in dc.vocabulary.chunks])[dc.codes]
        keys = _mix64(row_hash ^ (q.astype(np.uint64) * _HASH_MIX))
    # Rows sharing a key are duplicates or (very rarely) a collision: compare their docnos exactly.
    rows = _sharing_a_key(keys)
    if not len(rows):
        return rows
    exact = to_numpy(pc.dictionary_encode(dc.docnos(rows)).indices).astype(np.int64)
    return rows[_sharing_a_key(q[rows].astype(np.int64) * (int(exact.max()) + 1) + exact)]


def duplicate_pair_rows(query, doc) -> np.ndarray:
    """Row indices of every (query, doc) pair that occurs more than once, in row order."""
    if len(query) < 2:
        return np.empty(0, dtype=np.int64)
    q = to_numpy(as_dictionary_array(query, "query").indices)
    dc = doc if isinstance(doc, DocCodes) else DocCodes.of(as_doc_column(doc, "document"))
    codes = dc.codes
    if len(dc.chunk_starts) > 2:
        # A query whose rows all sit in one chunk compares docnos by chunk code. The rows of
        # queries spread over chunks (few, in a run sorted by query) are encoded again together.
        stretch_start = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1))
        stretch_end = np.concatenate((stretch_start[1:], [len(q)])) - 1
        n_q = int(q.max()) + 1
        first = np.full(n_q, len(dc.chunk_starts), dtype=np.int64)
        last = np.full(n_q, -1, dtype=np.int64)
        np.minimum.at(first, q[stretch_start], np.searchsorted(dc.chunk_starts, stretch_start, side="right") - 1)
        np.maximum.at(last, q[stretch_start], np.searchsorted(dc.chunk_starts, stretch_end, side="right") - 1)
        spread = first != last
        if spread.any():
            rows = np.flatnonzero(spread[q])
            if len(rows) > len(q) // 8:
                # Queries all over the file (a shuffled run): hashing each chunk's dictionary is
                # cheaper than encoding every docno again; equal hashes are then checked exactly.
                return _duplicates_by_hash(q, dc)
            again = pc.dictionary_encode(dc.docnos(rows))
            codes = codes.astype(np.int64)
            codes[rows] = to_numpy(again.indices) + int(codes.max()) + 1
    # Only rows whose code occurs more than once can be duplicates; sort just those.
    counts = np.bincount(codes)
    cand = np.flatnonzero(counts[codes] > 1)
    if not len(cand):
        return np.empty(0, dtype=np.int64)
    return cand[_sharing_a_key(q[cand].astype(np.int64) * (int(codes.max()) + 1) + codes[cand])]
