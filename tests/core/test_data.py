"""Tests for the columnar helpers in evalgui.core.data (duplicate detection over chunked docnos)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from evalgui.core.data import Run
from evalgui.core.arrow import duplicate_pair_rows, from_numpy, index_in, string_array, to_numpy


def _brute_force(queries, docs):
    seen: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(zip(queries, docs)):
        seen.setdefault(key, []).append(i)
    return sorted(i for rows in seen.values() if len(rows) > 1 for i in rows)


def _chunked_dictionaries(docs, cuts):
    """Docnos split into chunks, each with its own dictionary (as pyarrow's CSV reader gives them)."""
    bounds = [0, *cuts, len(docs)]
    return pa.chunked_array([pc.dictionary_encode(pa.array(docs[a:b], pa.string()))
                             for a, b in zip(bounds, bounds[1:])])


@pytest.mark.parametrize("seed", range(30))
def test_duplicates_across_chunks(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    sorted_queries = seed % 2 == 0  # runs sorted by query (few queries span chunks) or shuffled
    q = np.sort(rng.integers(0, 8, n)) if sorted_queries else rng.integers(0, 8, n)
    queries = [f"q{x}" for x in q]
    docs = [f"d{x}" for x in rng.integers(0, 40, n)]
    cuts = sorted(set(rng.integers(1, n, int(rng.integers(0, 6))).tolist())) if n > 1 else []
    doc_column = _chunked_dictionaries(docs, cuts)
    expected = _brute_force(queries, docs)
    assert duplicate_pair_rows(pa.array(queries, pa.string()), doc_column).tolist() == expected
    assert duplicate_pair_rows(pa.array(queries, pa.string()), pa.array(docs, pa.string())).tolist() == expected
    run = Run(pa.array(queries, pa.string()), doc_column, np.zeros(n))
    assert duplicate_pair_rows(run.query, run.doc_codes).tolist() == expected
    assert run.doc.to_pylist() == docs


def test_arrow_numpy_helpers():
    values = np.array([3, 1, 2], dtype=np.int32)
    assert to_numpy(from_numpy(values)).tolist() == [3, 1, 2]
    assert to_numpy(from_numpy(np.arange(5.0)).slice(2)).tolist() == [2.0, 3.0, 4.0]
    vocabulary = string_array(["b", "日本", ""])
    assert vocabulary.to_pylist() == ["b", "日本", ""]
    assert index_in(pa.array(["", "x", "日本", "b"]).slice(1), vocabulary).tolist() == [-1, 1, 0]


def test_string_hashes():
    from evalgui.core.arrow import string_hashes

    words = ["", "a", "b", "ab", "ba", "日本", "a" * 300, "doc-1", "doc-10", "", "ab"]
    h = string_hashes(pa.array(words, pa.string()))
    assert h.dtype == np.uint64 and len(h) == len(words)
    by_word = {}
    for w, x in zip(words, h.tolist()):
        assert by_word.setdefault(w, x) == x                 # equal strings, equal hashes
    assert len(set(by_word.values())) == len(by_word)        # these distinct strings do not collide
    sliced = pa.array(words, pa.string()).slice(3, 5)
    assert string_hashes(sliced).tolist() == h[3:8].tolist()
    assert string_hashes(pa.array([], pa.string())).tolist() == []


@pytest.mark.parametrize("collide", [False, True])
def test_duplicates_in_a_shuffled_run_by_hash_are_exact(monkeypatch, collide):
    import evalgui.core.arrow as arrow

    if collide:   # every hash equal: the exact comparison alone must tell duplicates apart
        monkeypatch.setattr(arrow, "string_hashes", lambda strings: np.zeros(len(strings), dtype=np.uint64))
    rng = np.random.default_rng(5)
    n = 3000
    queries = [f"q{x}" for x in rng.integers(0, 30, n)]
    docs = [f"d{x}" for x in rng.permutation(n)]
    for a, b in ((10, 2500), (700, 701), (42, 2999)):           # plant duplicates far apart
        queries[b], docs[b] = queries[a], docs[a]
    doc_column = _chunked_dictionaries(docs, list(range(200, n, 200)))
    run = Run(pa.array(queries, pa.string()), doc_column, np.zeros(n))
    assert duplicate_pair_rows(run.query, run.doc_codes).tolist() == _brute_force(queries, docs) \
        == [10, 42, 700, 701, 2500, 2999]


def test_ids_of_any_string_type_become_plain_strings():
    run = Run(pa.array(["q1", "q1"], pa.large_string()), pa.array(["d1", "d2"], pa.large_string()), [1.0, 0.5])
    assert run.query.dictionary.type == pa.string() and run.doc.type == pa.string()
    assert run.doc.to_pylist() == ["d1", "d2"]


def test_a_missing_query_id_is_an_input_error_whatever_the_encoding():
    from evalgui.core.errors import EvalInputError

    for queries in (pa.array(["q1", None]), pc.dictionary_encode(pa.array(["q1", None]))):
        with pytest.raises(EvalInputError, match="missing query id"):
            Run(queries, pa.array(["a", "b"]), [1.0, 0.5])


def test_a_grade_too_large_in_memory_is_refused_when_ranking():
    from evalgui.core.data import Qrels
    from evalgui.core.errors import EvalInputError
    from evalgui.core.ranked.ranking import prepare

    qrels = Qrels.from_dict({"q": {"a": 10_000}})
    run = Run.from_dict({"q": {"a": 1.0}})
    with pytest.raises(EvalInputError, match="larger than evalgui reads"):
        prepare(qrels, run)
