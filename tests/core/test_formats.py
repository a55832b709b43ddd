"""Tests for the qrels / run readers in evalgui.core.formats."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import read_qrels, read_run, sniff_format
from evalgui.core.formats import _text, trec
from evalgui.core.inputs import qrels_or_run as detect_kind

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"
RUN = "1 Q0 d1 1 3.5 tagA\n1 Q0 d2 2 1.25 tagA\n2 Q0 d3 1 -0.5 tagA\n"


# ---------------------------------------------------------------- helpers

def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def qrels_rows(qrels):
    return list(zip(qrels.query.to_pylist(), qrels.doc.to_pylist(), qrels.rel.tolist()))


def run_rows(run):
    return list(zip(run.query.to_pylist(), run.doc.to_pylist(), run.score.tolist()))


def input_error(fn, path, *words, line=None, **kwargs) -> str:
    """Call ``fn(path)``, expect an EvalInputError naming the path, the line and the reason words."""
    with pytest.raises(EvalInputError) as info:
        fn(path, **kwargs)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    if line is not None:
        assert info.value.line == line
        assert f", line {line}:" in message
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    return message


# ---------------------------------------------------------------- TREC qrels: layouts

def test_qrels_spaces(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_tabs(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS.replace(" ", "\t")))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_mixed_whitespace(tmp_path):
    text = "1 \t 0   d1\t\t1\n1\t0 d2  0\n2  0\td3 \t2\n"
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", text))) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_leading_and_trailing_blanks(tmp_path):
    text = "   1 0 d1 1   \n\t1 0 d2 0\t\n 2 0 d3 2 \n"
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", text))) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_comment_lines(tmp_path):
    text = "# judged by the assessors\n1 0 d1 1\n1 0 d2 0\n#2 0 dx 1\n2 0 d3 2\n"
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", text))) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_hash_after_a_blank_is_data_as_in_trec_eval(tmp_path):
    # trec_eval's qrels reader takes '#' for a comment only in the first column (its run reader after blanks).
    text = "1 0 d1 1\n #q 0 d2 1\n"
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", text))) == [("1", "d1", 1), ("#q", "d2", 1)]
    input_error(read_qrels, write(tmp_path, "q2.txt", "1 0 d1 1\n  # indented comment\n"), "found 3", line=2)
    assert run_rows(read_run(write(tmp_path, "r.txt", "1 Q0 d1 1 2 t\n #q Q0 d2 1 1 t\n"))) == [("1", "d1", 2.0)]


def test_qrels_with_hash_iteration_is_not_a_relevant_list(tmp_path):
    path = write(tmp_path, "q.txt", "1 # d1 1\n1 # d2 0\n")
    assert sniff_format(path) == "trec"
    assert qrels_rows(read_qrels(path)) == [("1", "d1", 1), ("1", "d2", 0)]


@pytest.mark.parametrize("pieces", [False, True])
def test_lone_carriage_return_is_a_blank_inside_the_line(tmp_path, monkeypatch, pieces):
    # trec_eval (C's isspace) reads "d\r2" as two fields; a CSV parser would break the line there.
    if pieces:
        monkeypatch.setattr(trec, "_PIECE", 16)
    path = write(tmp_path, "r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d\r2 2 2.0 t\n1 Q0 d3\r3 1.0 t\r\n")
    assert run_rows(read_run(path)) == [("1", "d1", 3.0), ("1", "d", 2.0), ("1", "d3", 1.0)]
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", "1 0 d1\r1\n"))) == [("1", "d1", 1)]
    # A lone CR between two whole lines: one line to trec_eval, its fields after the tag ignored.
    path = write(tmp_path, "r2.txt", "1 Q0 d1 1 3.0 t\r1 Q0 d2 2 2.0 t\n1 Q0 d3 3 1.0 t\n")
    assert run_rows(read_run(path)) == [("1", "d1", 3.0), ("1", "d3", 1.0)]
    input_error(read_qrels, write(tmp_path, "q2.txt", "1 0 d1 1\r1 0 d2 1\n"), "8 columns", line=1)


def test_qrels_blank_lines(tmp_path):
    text = "\n1 0 d1 1\n\n\n1 0 d2 0\n   \n2 0 d3 2\n\n"
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", text))) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_crlf(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS.replace("\n", "\r\n")))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_utf8_bom(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", b"\xef\xbb\xbf" + QRELS.encode()))
    assert qrels.query.to_pylist()[0] == "1"
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_gzip(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt.gz", gzip.compress(QRELS.encode())))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_qrels_negative_relevance_kept(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", "1 0 d1 -1\n1 0 d2 -2\n1 0 d3 1\n"))
    assert qrels.rel.tolist() == [-1, -2, 1]


def test_qrels_ids_are_strings(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", "007 0 d1 1\n7 0 d1 0\n"))
    assert qrels.query.to_pylist() == ["007", "7"]
    assert sorted(qrels.query_ids) == ["007", "7"]


def test_qrels_unicode_doc_ids(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", "1 0 dé 1\n1 0 日本 0\n"))
    assert qrels.doc.to_pylist() == ["dé", "日本"]


# ---------------------------------------------------------------- TREC runs: layouts

EXPECTED_RUN = [("1", "d1", 3.5), ("1", "d2", 1.25), ("2", "d3", -0.5)]


def test_run_spaces(tmp_path):
    run = read_run(write(tmp_path, "r.txt", RUN))
    assert run_rows(run) == EXPECTED_RUN
    assert run.runid == "tagA"


def test_run_tabs(tmp_path):
    assert run_rows(read_run(write(tmp_path, "r.txt", RUN.replace(" ", "\t")))) == EXPECTED_RUN


def test_run_mixed_whitespace(tmp_path):
    text = "1\t Q0  d1 1\t3.5 tagA\n1 Q0\t\td2 2 1.25  tagA\n2  Q0 d3\t1 -0.5\ttagA\n"
    assert run_rows(read_run(write(tmp_path, "r.txt", text))) == EXPECTED_RUN


def test_run_leading_and_trailing_blanks(tmp_path):
    text = "".join(f"  {line} \t\n" for line in RUN.splitlines())
    assert run_rows(read_run(write(tmp_path, "r.txt", text))) == EXPECTED_RUN


def test_run_comments_and_blank_lines(tmp_path):
    text = "# my run\n\n" + RUN.replace("\n", "\n\n  # note\n", 1) + "\n\n"
    assert run_rows(read_run(write(tmp_path, "r.txt", text))) == EXPECTED_RUN


def test_run_crlf(tmp_path):
    run = read_run(write(tmp_path, "r.txt", RUN.replace("\n", "\r\n")))
    assert run_rows(run) == EXPECTED_RUN
    assert run.runid == "tagA"


def test_run_utf8_bom(tmp_path):
    run = read_run(write(tmp_path, "r.txt", b"\xef\xbb\xbf" + RUN.encode()))
    assert run_rows(run) == EXPECTED_RUN


def test_run_gzip(tmp_path):
    run = read_run(write(tmp_path, "r.txt.gz", gzip.compress(RUN.encode())))
    assert run_rows(run) == EXPECTED_RUN


def test_run_extra_trailing_columns_ignored(tmp_path):
    text = "1 Q0 d1 1 3.5 tagA extra stuff\n1 Q0 d2 2 1.25 tagA\n2 Q0 d3 1 -0.5 tagA 99\n"
    run = read_run(write(tmp_path, "r.txt", text))
    assert run_rows(run) == EXPECTED_RUN
    assert run.runid == "tagA"


def test_run_rank_column_ignored(tmp_path):
    text = "1 Q0 d1 99 3.5 t\n1 Q0 d2 x 1.25 t\n"
    assert run_rows(read_run(write(tmp_path, "r.txt", text))) == [("1", "d1", 3.5), ("1", "d2", 1.25)]


def test_run_scientific_notation_scores(tmp_path):
    text = "1 Q0 d1 1 1.5e-3 t\n1 Q0 d2 2 2E+2 t\n1 Q0 d3 3 -4.0E-1 t\n"
    assert read_run(write(tmp_path, "r.txt", text)).score.tolist() == [0.0015, 200.0, -0.4]


def test_run_scientific_notation_scores_slow_path(tmp_path):
    text = "1 Q0 d1 1 1.5e-3 t extra\n1 Q0 d2 2 2E+2 t\n"
    assert read_run(write(tmp_path, "r.txt", text)).score.tolist() == [0.0015, 200.0]


def test_runid_is_tag_of_last_line(tmp_path):
    text = "1 Q0 d1 1 3 first\n1 Q0 d2 2 2 second\n2 Q0 d3 1 1 last\n# trailing comment x y z w v\n\n"
    assert read_run(write(tmp_path, "r.txt", text)).runid == "last"


def test_runid_is_tag_of_last_line_slow_path(tmp_path):
    text = "1 Q0 d1 1 3 first extra\n1 Q0 d2 2 2 second\n2 Q0 d3 1 1 last\n"
    assert read_run(write(tmp_path, "r.txt", text)).runid == "last"


def test_run_name_is_file_stem(tmp_path):
    assert read_run(write(tmp_path, "bm25.run", RUN)).name == "bm25"
    assert read_run(write(tmp_path, "dense.txt.gz", gzip.compress(RUN.encode()))).name == "dense"
    assert read_run(write(tmp_path, "plain", RUN)).name == "plain"


def test_run_name_argument(tmp_path):
    assert read_run(write(tmp_path, "bm25.run", RUN), name="mine").name == "mine"


def test_run_ids_are_strings(tmp_path):
    run = read_run(write(tmp_path, "r.txt", "007 Q0 0042 1 1 t\n7 Q0 42 1 1 t\n"))
    assert run.query.to_pylist() == ["007", "7"]
    assert run.doc.to_pylist() == ["0042", "42"]


# ---------------------------------------------------------------- fast path == slow path

IRREGULAR_RUN = "\ufeff# header\r\n 1\tQ0  d1 1 3.5\ttagA \r\n\r\n1 Q0 d2 2 1.25e0 tagA\r\n2\t\tQ0 d3 1 -5E-1 tagA\r\n"
IRREGULAR_QRELS = "# header\r\n 1\t0  d1 1\r\n\r\n1 0 d2\t 0 \r\n2 0\t\td3 2\r\n"


def test_fast_and_slow_run_paths_agree(tmp_path):
    regular = read_run(write(tmp_path, "a.txt", RUN))
    irregular_path = write(tmp_path, "b.txt", IRREGULAR_RUN)
    irregular = read_run(irregular_path)
    slow_only = read_run(write(tmp_path, "c.txt", RUN.replace("tagA\n", "tagA extra\n", 1)))  # forces the slow path
    queries, docs, scores, _, runid = trec._parse_run_slow(_text.load_bytes(irregular_path), "b.txt")
    for run in (irregular, slow_only):
        assert run.query.to_pylist() == regular.query.to_pylist()
        assert run.doc.to_pylist() == regular.doc.to_pylist()
        np.testing.assert_array_equal(run.score, regular.score)
        assert run.runid == regular.runid
    assert (queries, docs, scores.tolist(), runid) == (
        regular.query.to_pylist(), regular.doc.to_pylist(), regular.score.tolist(), regular.runid)


def test_fast_and_slow_qrels_paths_agree(tmp_path):
    regular = read_qrels(write(tmp_path, "a.txt", QRELS))
    irregular = read_qrels(write(tmp_path, "b.txt", IRREGULAR_QRELS))
    queries, docs, rels, _ = trec._parse_qrels_slow(IRREGULAR_QRELS.encode(), "b.txt")
    assert qrels_rows(irregular) == qrels_rows(regular)
    assert list(zip(queries, docs, rels.tolist())) == qrels_rows(regular)


def test_fast_path_handles_many_lines(tmp_path):
    lines = [f"{q} Q0 doc{d} {d} {1.0 / (d + 1)!r} t" for q in range(5) for d in range(200)]
    regular = read_run(write(tmp_path, "a.txt", "\n".join(lines) + "\n"))
    padded = read_run(write(tmp_path, "b.txt", "\n".join("  " + l.replace(" ", " \t ") for l in lines)))
    assert len(regular) == 1000
    assert run_rows(padded) == run_rows(regular)


# ---------------------------------------------------------------- TREC errors

def test_run_wrong_number_of_columns(tmp_path):
    path = write(tmp_path, "r.txt", "1 Q0 d1 1 3.5 t\n1 Q0 d2 2 t\n")
    input_error(read_run, path, "expected 6 columns", "found 5", line=2)


def test_run_wrong_number_of_columns_irregular_whitespace(tmp_path):
    path = write(tmp_path, "r.txt", "# c\r\n\r\n1\tQ0 d1 1 3.5 t\r\n  1 Q0 d2\r\n")
    input_error(read_run, path, "found 3", line=4)


def test_qrels_wrong_number_of_columns(tmp_path):
    path = write(tmp_path, "q.txt", "1 0 d1 1\n\n1 0 d2\n")
    input_error(read_qrels, path, "expected 4 columns", "found 3", line=3)


def test_qrels_five_columns(tmp_path):
    path = write(tmp_path, "q.txt", "1 0 d1 1\n1 0 d2 1 x\n")
    input_error(read_qrels, path, "found 5", line=2)


def test_run_non_numeric_score(tmp_path):
    path = write(tmp_path, "r.txt", "1 Q0 d1 1 3.5 t\n1 Q0 d2 2 high t\n")
    input_error(read_run, path, "'high'", "not a number", line=2)


def test_qrels_relevance_with_underscore(tmp_path):
    input_error(read_qrels, write(tmp_path, "q.txt", "1 0 d1 1_0\n"), "not an integer", line=1)


def test_run_nan_score(tmp_path):
    path = write(tmp_path, "r.txt", "1 Q0 d1 1 3.5 t\n1 Q0 d2 2 1 t\n1 Q0 d3 3 NaN t\n")
    input_error(read_run, path, "nan", line=3)


@pytest.mark.parametrize("value", ["1.5", "x"])
def test_qrels_non_integer_relevance(tmp_path, value):
    path = write(tmp_path, "q.txt", f"1 0 d1 1\n1 0 d2 {value}\n")
    input_error(read_qrels, path, f"'{value}'", "not an integer", line=2)


def test_run_duplicate_document_names_both_lines(tmp_path):
    path = write(tmp_path, "r.txt", "1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n2 Q0 d1 1 1 t\n1 Q0 d1 3 1 t\n")
    message = input_error(read_run, path, "twice", "'d1'", "query '1'", "lines 1 and 4", line=4)
    assert "more" not in message


def test_run_many_duplicates_lists_first_few(tmp_path):
    lines = [f"1 Q0 d{i} {i} 1 t" for i in range(6)] * 2
    path = write(tmp_path, "r.txt", "\n".join(lines) + "\n")
    message = input_error(read_run, path, "'d0'", "lines 1 and 7", "'d1'", "lines 2 and 8", "'d2'", "and 3 more", line=7)
    assert "'d3'" not in message


def test_qrels_duplicate_document(tmp_path):
    path = write(tmp_path, "q.txt", "1 0 d1 1\n1 0 d2 0\n1 0 d1 0\n")
    input_error(read_qrels, path, "twice", "'d1'", "lines 1 and 3", line=3)


def test_same_document_for_two_queries_is_fine(tmp_path):
    assert len(read_qrels(write(tmp_path, "q.txt", "1 0 d1 1\n2 0 d1 1\n"))) == 2
    assert len(read_run(write(tmp_path, "r.txt", "1 Q0 d1 1 1 t\n2 Q0 d1 1 1 t\n"))) == 2


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_file(tmp_path, reader):
    input_error(reader, write(tmp_path, "empty.txt", ""), "empty")


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_blank_only_file(tmp_path, reader):
    input_error(reader, write(tmp_path, "blank.txt", " \n\n\t\n"), "empty")


def test_run_only_comments(tmp_path):
    input_error(read_run, write(tmp_path, "r.txt", "# a\n# b c d e f g\n"), "no run lines", "comments", format="trec")


def test_qrels_only_comments(tmp_path):
    input_error(read_qrels, write(tmp_path, "q.txt", "# a b c\n\n# d\n"), "no qrels lines", "comments", format="trec")


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_binary_file_with_nul_byte(tmp_path, reader):
    path = write(tmp_path, "bin.dat", b"1 0 d1 1\n1 0 d2 1\nab\x00cd\x01\x02\n")
    input_error(reader, path, "binary", "nul", line=3)


def test_run_invalid_utf8(tmp_path):
    path = write(tmp_path, "r.txt", b"1 Q0 d1 1 3 t\n1 Q0 d\xff\xfe2 2 2 t\n")
    input_error(read_run, path, "utf-8", line=2)


def test_qrels_invalid_utf8(tmp_path):
    path = write(tmp_path, "q.txt", b"1 0 d1 1\n\n1 0 d\xe92 1\n")
    input_error(read_qrels, path, "utf-8", line=3)


def test_invalid_utf8_in_comment_is_ignored(tmp_path):
    assert len(read_qrels(write(tmp_path, "q.txt", b"# caf\xe9\n1 0 d1 1\n"))) == 1


def test_run_invalid_utf8_in_q0_column(tmp_path):
    path = write(tmp_path, "r.txt", b"1 Q0 d1 1 3 t\n1 Q\xff d2 2 2 t\n")
    input_error(read_run, path, "utf-8", line=2)


def test_run_invalid_utf8_in_tag_column(tmp_path):
    path = write(tmp_path, "r.txt", b"1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\xff\n")
    input_error(read_run, path, "utf-8", line=2)


def test_qrels_file_passed_to_read_run(tmp_path):
    path = write(tmp_path, "q.txt", QRELS)
    input_error(read_run, path, "like a qrels file", "4 columns", line=1)


def test_run_file_passed_to_read_qrels(tmp_path):
    path = write(tmp_path, "r.txt", RUN)
    input_error(read_qrels, path, "like a run file", "6 columns", line=1)


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_missing_file(tmp_path, reader):
    input_error(reader, tmp_path / "nope.txt", "no such file")


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_missing_json_file(tmp_path, reader):
    input_error(reader, tmp_path / "nope.json", "no such file")


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_directory(tmp_path, reader):
    folder = tmp_path / "folder"
    folder.mkdir()
    input_error(reader, folder, "folder")


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_corrupt_gzip(tmp_path, reader):
    blob = gzip.compress(QRELS.encode())
    input_error(reader, write(tmp_path, "x.txt.gz", blob[: len(blob) // 2]), "gzip")


def test_gzip_detected_by_magic_number(tmp_path):
    assert qrels_rows(read_qrels(write(tmp_path, "q.txt", gzip.compress(QRELS.encode())))) == [
        ("1", "d1", 1), ("1", "d2", 0), ("2", "d3", 2)]


def test_unknown_format_argument(tmp_path):
    input_error(read_qrels, write(tmp_path, "q.txt", QRELS), "unknown format", format="xml")
    input_error(read_run, write(tmp_path, "r.txt", RUN), "unknown format", format="xml")


# ---------------------------------------------------------------- relevant-document lists

RELEVANT_LIST = "# relevant for topic 401\nM.EIC003 # Information Processing\n\nM.EIC017\n  M.EIC020  \n"


def test_relevant_list_default_topic_is_file_stem(tmp_path):
    qrels = read_qrels(write(tmp_path, "topic401.txt", RELEVANT_LIST))
    assert qrels_rows(qrels) == [("topic401", "M.EIC003", 1), ("topic401", "M.EIC017", 1), ("topic401", "M.EIC020", 1)]


def test_relevant_list_topic_argument(tmp_path):
    qrels = read_qrels(write(tmp_path, "list.txt", RELEVANT_LIST), topic="401")
    assert set(qrels.query.to_pylist()) == {"401"}
    assert qrels.rel.tolist() == [1, 1, 1]


def test_relevant_list_gzip_stem(tmp_path):
    qrels = read_qrels(write(tmp_path, "t9.lst.gz", gzip.compress(RELEVANT_LIST.encode())))
    assert set(qrels.query.to_pylist()) == {"t9"}


def test_relevant_list_crlf(tmp_path):
    qrels = read_qrels(write(tmp_path, "t.txt", RELEVANT_LIST.replace("\n", "\r\n")), topic="1")
    assert qrels.doc.to_pylist() == ["M.EIC003", "M.EIC017", "M.EIC020"]


def test_relevant_list_two_ids_on_a_line(tmp_path):
    path = write(tmp_path, "t.txt", "M.EIC003\nM.EIC017\nM.EIC020 M.EIC021\n")
    input_error(read_qrels, path, "one document id per line", "found 2", line=3)


def test_relevant_list_duplicate(tmp_path):
    path = write(tmp_path, "t.txt", "M.EIC003\nM.EIC017 # again below\n\nM.EIC017\n")
    input_error(read_qrels, path, "'M.EIC017'", "twice", "lines 2 and 4", line=4)


def test_relevant_list_only_comments(tmp_path):
    input_error(read_qrels, write(tmp_path, "t.txt", "# nothing\n"), "comments", format="relevant_list")


# ---------------------------------------------------------------- JSON

def test_json_qrels(tmp_path):
    path = write(tmp_path, "q.json", json.dumps({"1": {"d1": 1, "d2": 0}, "007": {"d3": 2.0, "d4": -1}}))
    assert qrels_rows(read_qrels(path)) == [("1", "d1", 1), ("1", "d2", 0), ("007", "d3", 2), ("007", "d4", -1)]
    assert read_qrels(path).rel.dtype == np.int64


def test_json_run(tmp_path):
    path = write(tmp_path, "bm25.json", json.dumps({"1": {"d1": 3.5, "d2": 1}, "2": {"d3": -0.5}}))
    run = read_run(path)
    assert run_rows(run) == [("1", "d1", 3.5), ("1", "d2", 1.0), ("2", "d3", -0.5)]
    assert run.name == "bm25"


def test_json_gzip(tmp_path):
    path = write(tmp_path, "q.json.gz", gzip.compress(b'{"1": {"d1": 1}}'))
    assert qrels_rows(read_qrels(path)) == [("1", "d1", 1)]


def test_json_invalid(tmp_path):
    path = write(tmp_path, "q.json", '{\n "1": {"d1": 1},\n "2": {"d2": }\n}\n')
    input_error(read_qrels, path, "invalid json", line=3)


def test_json_qrels_non_integer_relevance(tmp_path):
    path = write(tmp_path, "q.json", '{\n "1": {\n  "d1": 1,\n  "d2": 1.5\n }\n}\n')
    input_error(read_qrels, path, "'d2'", "not an integer", line=4)


def test_json_qrels_string_relevance(tmp_path):
    path = write(tmp_path, "q.json", '{"1": {"d1": "1"}}')
    input_error(read_qrels, path, "not a number", line=1)


def test_json_run_non_numeric_score(tmp_path):
    path = write(tmp_path, "r.json", '{\n "1": {"d1": 2.5},\n "2": {"d2": "high"}\n}\n')
    input_error(read_run, path, "'high'", "not a number", line=3)


def test_json_run_boolean_score(tmp_path):
    input_error(read_run, write(tmp_path, "r.json", '{"1": {"d1": true}}'), "not a number")


@pytest.mark.parametrize("text", ['[["1", "d1", 1]]', '"qrels"', "42"])
def test_json_top_level_not_an_object(tmp_path, text):
    input_error(read_qrels, write(tmp_path, "q.json", text), "expected a json object", line=1)


def test_json_query_not_mapping_to_object(tmp_path):
    input_error(read_run, write(tmp_path, "r.json", '{\n "1": {"d1": 1},\n "2": [1, 2]\n}'), "query '2'", line=3)


def test_json_empty_object(tmp_path):
    input_error(read_qrels, write(tmp_path, "q.json", '{"1": {}}'), "no judgments")
    input_error(read_run, write(tmp_path, "r.json", "{}"), "no results")


# ---------------------------------------------------------------- CSV / TSV / Parquet



def test_csv_qrels(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.csv", "query,doc,relevance\n1,d1,1\n007,d2,0\n"))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("007", "d2", 0)]


def test_csv_run(tmp_path):
    run = read_run(write(tmp_path, "bm25.csv", "query,doc,score\n1,d1,3.5\n007,d2,1e-3\n"))
    assert run_rows(run) == [("1", "d1", 3.5), ("007", "d2", 0.001)]
    assert run.name == "bm25"


def test_tsv_run(tmp_path):
    run = read_run(write(tmp_path, "r.tsv", "qid\tdocno\tscore\n1\td1\t3.5\n1\td2\t1\n"))
    assert run_rows(run) == [("1", "d1", 3.5), ("1", "d2", 1.0)]


def test_tsv_qrels(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.tsv", "qid\tdocno\trel\n1\td1\t1\n1\td2\t0\n"))
    assert qrels_rows(qrels) == [("1", "d1", 1), ("1", "d2", 0)]


@pytest.mark.parametrize("qcol", ["query", "qid", "query_id", "topic", "QID"])
@pytest.mark.parametrize("dcol", ["doc", "docno", "doc_id", "docid"])
@pytest.mark.parametrize("scol", ["score", "sim"])
def test_csv_run_column_aliases(tmp_path, qcol, dcol, scol):
    run = read_run(write(tmp_path, "r.csv", f"{qcol},{dcol},{scol}\n1,d1,2\n"))
    assert run_rows(run) == [("1", "d1", 2.0)]


@pytest.mark.parametrize("rcol", ["relevance", "rel", "grade", "label"])
def test_csv_qrels_relevance_aliases(tmp_path, rcol):
    qrels = read_qrels(write(tmp_path, "q.csv", f"topic,docid,{rcol}\n1,d1,2\n"))
    assert qrels_rows(qrels) == [("1", "d1", 2)]


def test_csv_run_extra_columns_and_order(tmp_path):
    run = read_run(write(tmp_path, "r.csv", "rank,score,docno,note,qid\n1,0.5,d1,x,q1\n"))
    assert run_rows(run) == [("q1", "d1", 0.5)]


def test_csv_run_missing_score_column(tmp_path):
    path = write(tmp_path, "r.csv", "query,doc,value\n1,d1,2\n")
    input_error(read_run, path, "no score column", "score, sim", "found query, doc, value", line=1)


def test_csv_qrels_missing_relevance_column(tmp_path):
    path = write(tmp_path, "q.csv", "query,doc,value\n1,d1,2\n")
    input_error(read_qrels, path, "no relevance column", "relevance, rel, grade, label", line=1)


def test_csv_missing_query_column(tmp_path):
    path = write(tmp_path, "r.csv", "q,doc,score\n1,d1,2\n")
    input_error(read_run, path, "no query column", "query, qid, query_id, topic", line=1)


def test_csv_missing_doc_column(tmp_path):
    path = write(tmp_path, "r.csv", "query,d,score\n1,d1,2\n")
    input_error(read_run, path, "no document column", "doc, docno, doc_id, docid", line=1)


def test_csv_run_bad_score_names_line(tmp_path):
    path = write(tmp_path, "r.csv", "query,doc,score\n1,d1,2\n1,d2,3\n1,d3,high\n")
    input_error(read_run, path, "'high'", "not a number", line=4)


def test_csv_run_bad_score_in_first_row(tmp_path):
    input_error(read_run, write(tmp_path, "r.csv", "query,doc,score\n1,d1,x\n"), "not a number", line=2)


def test_csv_run_empty_score(tmp_path):
    input_error(read_run, write(tmp_path, "r.csv", "query,doc,score\n1,d1,1\n1,d2,\n"), "not a number", line=3)


def test_csv_run_bad_score_after_blank_line(tmp_path):
    input_error(read_run, write(tmp_path, "r.csv", "query,doc,score\n1,d1,1\n\n1,d2,x\n"), "'x'", line=4)


@pytest.mark.parametrize("value", ["1.5", "x"])
def test_csv_qrels_bad_relevance_names_line(tmp_path, value):
    path = write(tmp_path, "q.csv", f"query,doc,rel\n1,d1,1\n1,d2,{value}\n")
    input_error(read_qrels, path, f"'{value}'", "not an integer", line=3)


def test_csv_run_duplicate(tmp_path):
    path = write(tmp_path, "r.csv", "query,doc,score\n1,d1,1\n1,d2,2\n1,d1,3\n")
    input_error(read_run, path, "'d1'", "twice", "lines 2 and 4", line=4)


def test_csv_qrels_duplicate(tmp_path):
    path = write(tmp_path, "q.csv", "query,doc,rel\n1,d1,1\n1,d1,0\n")
    input_error(read_qrels, path, "'d1'", "twice", "lines 2 and 3", line=3)


def test_csv_header_only(tmp_path):
    input_error(read_run, write(tmp_path, "r.csv", "query,doc,score\n"), "no rows")


def test_csv_with_bom_and_crlf(tmp_path):
    run = read_run(write(tmp_path, "r.csv", b"\xef\xbb\xbfquery,doc,score\r\n1,d1,2\r\n"))
    assert run_rows(run) == [("1", "d1", 2.0)]


def test_csv_content_without_csv_extension(tmp_path):
    path = write(tmp_path, "r.txt", "query,doc,score\n1,d1,2\n")
    assert sniff_format(path) == "csv"
    assert run_rows(read_run(path)) == [("1", "d1", 2.0)]


def write_parquet(tmp_path, name, columns: dict):
    path = tmp_path / name
    pq.write_table(pa.table(columns), path)
    return path


def test_parquet_run(tmp_path):
    path = write_parquet(tmp_path, "dense.parquet", {"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.5, 1.0]})
    run = read_run(path)
    assert run_rows(run) == [("1", "d1", 2.5), ("1", "d2", 1.0)]
    assert run.name == "dense"


def test_parquet_run_integer_ids(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"query_id": [7, 7], "doc_id": [1, 2], "sim": [2.5, 1.0]})
    assert run_rows(read_run(path)) == [("7", "1", 2.5), ("7", "2", 1.0)]


def test_parquet_qrels(tmp_path):
    path = write_parquet(tmp_path, "q.parquet", {"topic": ["1", "1"], "doc": ["d1", "d2"], "grade": [2, 0]})
    assert qrels_rows(read_qrels(path)) == [("1", "d1", 2), ("1", "d2", 0)]


def test_parquet_missing_column(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"qid": ["1"], "docno": ["d1"]})
    input_error(read_run, path, "no score column", "score, sim")


def test_parquet_bad_score_names_row(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"qid": ["1", "1"], "docno": ["d1", "d2"], "score": ["1", "x"]})
    input_error(read_run, path, "'x'", line=2)


def test_parquet_duplicate(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"qid": ["1", "1"], "docno": ["d1", "d1"], "score": [1.0, 2.0]})
    input_error(read_run, path, "twice", line=2)


def test_parquet_corrupt(tmp_path):
    input_error(read_run, write(tmp_path, "r.parquet", b"this is not parquet at all\n"), "parquet")


def test_parquet_missing_file(tmp_path):
    input_error(read_run, tmp_path / "nope.parquet", "no such file")


# ---------------------------------------------------------------- sniff_format / detect_kind

def test_sniff_and_detect_trec_qrels(tmp_path):
    path = write(tmp_path, "q", "# c\n\n" + QRELS)
    assert (sniff_format(path), detect_kind(path)) == ("trec", "qrels")


def test_sniff_and_detect_trec_run(tmp_path):
    path = write(tmp_path, "r", RUN)
    assert (sniff_format(path), detect_kind(path)) == ("trec", "run")


def test_sniff_and_detect_gzip_run(tmp_path):
    path = write(tmp_path, "r.gz", gzip.compress(RUN.encode()))
    assert (sniff_format(path), detect_kind(path)) == ("trec", "run")


def test_sniff_and_detect_relevant_list(tmp_path):
    path = write(tmp_path, "t.txt", RELEVANT_LIST)
    assert (sniff_format(path), detect_kind(path)) == ("relevant_list", "qrels")


def test_detect_unknown_trec_shape(tmp_path):
    path = write(tmp_path, "x.txt", "a b c\n")
    assert (sniff_format(path), detect_kind(path)) == ("trec", "unknown")


@pytest.mark.parametrize("name", ["x.json", "x.JSON", "x.json.gz", "x.jsonl"])
def test_sniff_and_detect_json(tmp_path, name):
    text = '{"1": {"d1": 1}}'
    path = write(tmp_path, name, gzip.compress(text.encode()) if name.endswith(".gz") else text)
    assert (sniff_format(path), detect_kind(path)) == ("json", "unknown")


def test_sniff_and_detect_csv(tmp_path):
    qrels = write(tmp_path, "q.csv", "query,doc,rel\n1,d1,1\n")
    run = write(tmp_path, "r.csv", "qid,docno,score\n1,d1,1\n")
    assert (sniff_format(qrels), detect_kind(qrels)) == ("csv", "qrels")
    assert (sniff_format(run), detect_kind(run)) == ("csv", "run")


def test_sniff_tsv(tmp_path):
    assert sniff_format(write(tmp_path, "q.tsv", "query\tdoc\trel\n1\td1\t1\n")) == "tsv"


def test_tsv_without_header_is_trec(tmp_path):
    assert sniff_format(write(tmp_path, "q.tsv", QRELS.replace(" ", "\t"))) == "trec"


def test_detect_tsv(tmp_path):
    assert detect_kind(write(tmp_path, "q.tsv", "query\tdoc\trel\n1\td1\t1\n")) == "qrels"


def test_sniff_and_detect_parquet(tmp_path):
    qrels = write_parquet(tmp_path, "q.parquet", {"qid": ["1"], "docno": ["d1"], "rel": [1]})
    run = write_parquet(tmp_path, "r.pq", {"qid": ["1"], "docno": ["d1"], "score": [1.0]})
    assert (sniff_format(qrels), detect_kind(qrels)) == ("parquet", "qrels")
    assert (sniff_format(run), detect_kind(run)) == ("parquet", "run")


# ---------------------------------------------------------------- grades out of range (found in review)

@pytest.mark.parametrize("grade, words", [
    ("99999999999999999999", ["larger than evalgui reads"]),
    ("-99999999999999999999", ["out of range"]),
    ("10000", ["larger than evalgui reads", "9,999"]),
])
def test_trec_qrels_grade_out_of_range(tmp_path, grade, words):
    path = write(tmp_path, "q.txt", f"1 0 a 1\n1 0 b {grade}\n")
    input_error(read_qrels, path, *words, line=2)


@pytest.mark.parametrize("value, words", [("1e20", ["larger than evalgui reads"]),
                                          ("123456789012345678901234567890", ["larger than evalgui reads"]),
                                          ("-1e300", ["out of range"])])
def test_json_qrels_grade_out_of_range(tmp_path, value, words):
    path = write(tmp_path, "q.json", '{"1": {"a": 1,\n "b": %s}}' % value)
    input_error(read_qrels, path, *words, line=2)


@pytest.mark.parametrize("value, words", [("1e30", ["larger than evalgui reads"]),
                                          ("1.0000000001", ["not an integer"]),
                                          ("inf", ["not an integer"])])
def test_csv_qrels_grade_must_be_a_whole_number_in_range(tmp_path, value, words):
    path = write(tmp_path, "q.csv", f"query,doc,relevance\n1,a,1\n1,b,{value}\n")
    input_error(read_qrels, path, *words, line=3)


def test_a_hash_inside_an_id_is_not_a_comment(tmp_path):
    from evalgui.core.inputs import qrels_or_run as detect_kind

    path = write(tmp_path, "q.txt", "q#1 0 a 1\nq#1 0 b 0\n")
    assert detect_kind(path) == "qrels"
    assert qrels_rows(read_qrels(path)) == [("q#1", "a", 1), ("q#1", "b", 0)]
    listed = write(tmp_path, "list.txt", "# relevant courses\ncourse-1   # an inline comment\ncourse-2\n")
    assert qrels_rows(read_qrels(listed, topic="t")) == [("t", "course-1", 1), ("t", "course-2", 1)]


# ---------------------------------------------------------------- issue 8, points 8, 9, 11

def test_parquet_null_query_id_is_an_input_error(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]})
    message = input_error(read_run, path, "query id is missing", line=2)
    assert "\n" not in message


def test_parquet_binary_doc_id_not_utf8_is_an_input_error(tmp_path):
    table = pa.table({"qid": ["1", "1"], "docno": pa.array([b"a", b"\xff"], pa.binary()), "score": [1.0, 2.0]})
    pq.write_table(table, tmp_path / "r.parquet")
    input_error(read_run, tmp_path / "r.parquet", "not UTF-8", line=2)
    table = pa.table({"qid": ["1", "1"], "docno": pa.array([b"a", b"b"], pa.binary()), "score": [1.0, 2.0]})
    pq.write_table(table, tmp_path / "ok.parquet")
    assert run_rows(read_run(tmp_path / "ok.parquet")) == [("1", "a", 1.0), ("1", "b", 2.0)]


def test_parquet_missing_score_is_named_plainly(tmp_path):
    path = write_parquet(tmp_path, "r.parquet", {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, None]})
    message = input_error(read_run, path, "score is missing", line=2)
    assert "np." not in message and "nan" not in message


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_a_file_too_big_for_memory_is_an_input_error(tmp_path, monkeypatch, reader):
    path = write(tmp_path, "f.txt", RUN if reader is read_run else QRELS)

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(trec, "_stream_table", no_memory)
    input_error(reader, path, "too big")


def test_ragged_csv_message_is_one_line(tmp_path):
    path = write(tmp_path, "r.csv", "query,doc,score\n1,a,1\n1,b,2,3\n")
    message = input_error(read_run, path, "expected 3 fields", line=3)
    assert "\n" not in message


def test_many_duplicates_make_a_short_message(tmp_path):
    path = write(tmp_path, "r.txt", "".join(f"1 Q0 d{i % 3} {i} 1 t\n" for i in range(3000)))
    message = input_error(read_run, path, "lines 1, 4, 7 and 997 more", line=4)
    assert len(message) < 400


@pytest.mark.parametrize("name,text,kind", [
    ("r.txt", "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", "run"),
    ("q.txt", "1 0 a 1\n1 0 a 0\n", "qrels file"),
    ("t.txt", "a\na\n", "relevant-document list"),
    ("r.csv", "query,doc,score\n1,a,1\n1,a,2\n", "table"),
])
def test_one_duplicate_message_for_every_reader(tmp_path, name, text, kind):
    path = write(tmp_path, name, text)
    reader = read_run if name.startswith("r") else read_qrels
    line = 3 if name.endswith(".csv") else 2
    first = line - 1
    input_error(reader, path, f"the same document is given twice for one query in this {kind}: 'a'",
                f"(lines {first} and {line})", line=line)
