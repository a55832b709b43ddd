"""The rank file input kind (core/inputs/rank_file.py) and ranks from TREC qrels + runs (core/rankfile/ranks.py)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError
from evalgui.core.inputs import detect_kind, kind, read_input
from evalgui.core.rankfile.ranks import RankFile, ranks_from_trec
from tests.test_cli import QRELS, RUN, write

RANKS = "Experiment1\tSystem1\tSystem2\tSystem3\nEntity1\t5.0\t4\t1\nEntity2\t10.5\t2\t5\n"


def read(tmp_path, text: str, name: str = "ranks.txt"):
    return kind("rank file").read(write(tmp_path, name, text))


def test_reads_names_and_fractional_ranks(tmp_path):
    ranks = read(tmp_path, RANKS)
    assert ranks.name == "Experiment1" and ranks.systems == ["System1", "System2", "System3"]
    assert ranks.entities == ["Entity1", "Entity2"]
    assert ranks.ranks.tolist() == [[5.0, 4.0, 1.0], [10.5, 2.0, 5.0]]
    assert ranks.summary() == {"systems": 3, "entities": 2, "largest rank": 10.5}


def test_is_detected_as_a_rank_file_not_a_run_or_qrels(tmp_path):
    # Four and six tab-separated fields: a qrels line and a run line have as many.
    four = write(tmp_path, "four.txt", RANKS)
    six = write(tmp_path, "six.txt", "E\tA\tB\tC\tD\tF\nx\t1\t2\t3\t4\t5\ny\t6\t7\t8\t9\t10\n")
    assert detect_kind(four).name == detect_kind(six).name == "rank file"
    loaded = read_input(six)
    assert loaded.kind == "rank file" and loaded.record.describe(loaded.summary) == "5 systems, 2 entities"
    assert detect_kind(write(tmp_path, "q.txt", QRELS)).name == "qrels"
    assert detect_kind(write(tmp_path, "r.txt", RUN)).name == "run"
    tabbed_qrels = QRELS.replace(" ", "\t")
    assert detect_kind(write(tmp_path, "tq.txt", tabbed_qrels)).name == "qrels"


@pytest.mark.parametrize("text, line, reason", [
    ("E\tA\tB\nx\t1\t2\ny\t0.5\t2\n", 3, "the rank 0.5 of system A is below 1"),
    ("E\tA\tB\nx\t1\t2\ny\t3\n", 3, "expected 3 tab-separated fields"),
    ("E\tA\tB\nx\t0\t2\ny\t3\t4\nz\t1\t1\n", 2, "the rank 0 of system A is below 1"),
])
def test_a_rank_file_with_a_bad_line_is_still_detected_so_reading_names_the_line(tmp_path, text, line, reason):
    path = write(tmp_path, "ranks.txt", text)
    assert detect_kind(path).name == "rank file"
    with pytest.raises(EvalInputError) as info:
        read_input(path)
    assert info.value.line == line and reason in info.value.reason


def test_crlf_bom_gzip_and_blank_lines(tmp_path):
    text = "\ufeff" + RANKS.replace("\n", "\r\n") + "\r\n\r\n"
    assert read(tmp_path, text).ranks.tolist() == [[5.0, 4.0, 1.0], [10.5, 2.0, 5.0]]
    path = tmp_path / "ranks.txt.gz"
    path.write_bytes(gzip.compress(RANKS.encode()))
    assert kind("rank file").read(str(path)).entities == ["Entity1", "Entity2"]


@pytest.mark.parametrize("text, line, reason", [
    (RANKS + "Entity3\t1\t2\n", 4, "expected 4 tab-separated fields (an entity id and one rank for each of the 3 "
                                   "systems), found 3"),
    (RANKS + "Entity3 1 2 3\n", 4, "is the file tab-separated"),
    (RANKS + "Entity3\t1\tx\t3\n", 4, "the rank 'x' of system System2 is not a number"),
    (RANKS + "Entity3\t1\t2\t0.5\n", 4, "the rank 0.5 of system System3 is below 1"),
    (RANKS + "Entity3\tnan\t2\t3\n", 4, "the rank 'nan' of system System1 is not a finite number"),
    (RANKS + "Entity1\t1\t2\t3\n", 4, "the entity 'Entity1' is listed twice (first on line 2)"),
    (RANKS + "\t1\t2\t3\n", 4, "the entity id (first field) is empty"),
    ("E\tA\tB\tA\nx\t1\t2\t3\n", 1, "the system 'A' is listed twice"),
    ("E\tA\t\tC\nx\t1\t2\t3\n", 1, "the system id in column 3 is empty"),
    ("Experiment\n1\n", 1, "the first line must be the experiment name and one id per system"),
])
def test_bad_files_name_the_line_and_the_reason(tmp_path, text, line, reason):
    with pytest.raises(EvalInputError) as info:
        read(tmp_path, text)
    assert info.value.line == line and reason in info.value.reason
    assert str(info.value).startswith(f"{tmp_path / 'ranks.txt'}, line {line}: ")


def test_a_header_alone_or_an_empty_file_is_an_error(tmp_path):
    with pytest.raises(EvalInputError, match="no entities"):
        read(tmp_path, "Experiment\tA\tB\n")
    with pytest.raises(EvalInputError, match="empty"):
        read(tmp_path, "")


def test_one_system_reads_with_a_warning(tmp_path):
    loaded = read_input(write(tmp_path, "one.txt", "E\tA\nx\t1\ny\t2\n"), "rank file")
    assert loaded.badge == "warning" and "at least two" in loaded.warnings[0]


def test_text_round_trip(tmp_path):
    ranks = read(tmp_path, RANKS)
    assert ranks.to_text() == "Experiment1\tSystem1\tSystem2\tSystem3\nEntity1\t5\t4\t1\nEntity2\t10.5\t2\t5\n"
    again = read(tmp_path, ranks.to_text(), "again.txt")
    assert again.ranks.tolist() == ranks.ranks.tolist() and again.systems == ranks.systems


# ---------------------------------------------------------------- ranks from qrels + runs

def test_ranks_of_the_relevant_documents_in_each_run():
    qrels = Qrels.from_dict({"q1": {"a": 1, "b": 2, "c": 0, "d": 1}, "q2": {"x": 1}})
    first = Run.from_dict({"q1": {"c": 0.9, "a": 0.8, "z": 0.7, "b": 0.6}, "q2": {"y": 1.0, "x": 0.5}}, name="one")
    # "two" misses d and a, and has no results for q2 at all
    second = Run.from_dict({"q1": {"b": 0.9, "c": 0.1, "e": 0.0}}, name="two")
    ranks = ranks_from_trec(qrels, [first, second])
    assert ranks.systems == ["one", "two"]
    assert ranks.entities == ["q1 a", "q1 b", "q1 d", "q2 x"]
    # one: a at 2, b at 4, d not retrieved (4 retrieved -> 5), x at 2
    # two: a not retrieved (3 retrieved -> 4), b at 1, d -> 4, x: q2 absent -> deepest (3) + 1
    assert ranks.ranks.tolist() == [[2, 4], [4, 1], [5, 4], [2, 4]]
    fixed = ranks_from_trec(qrels, [first, second], missing_rank=1000)
    assert fixed.ranks[:, 1].tolist() == [1000, 1, 1000, 1000]
    graded = ranks_from_trec(qrels, [first, second], relevance_level=2)
    assert graded.entities == ["q1 b"] and graded.ranks.tolist() == [[4, 1]]


def test_ranks_from_trec_read_back_as_a_rank_file(tmp_path):
    qrels = Qrels.from_dict({"q1": {"a": 1, "b": 1}})
    runs = [Run.from_dict({"q1": {"a": 2.0, "b": 1.0}}, name="r1"), Run.from_dict({"q1": {"b": 2.0}}, name="r1")]
    ranks = ranks_from_trec(qrels, runs)
    assert ranks.systems == ["r1", "r1-2"]
    back = read(tmp_path, ranks.to_text())
    assert back.entities == ["q1 a", "q1 b"] and back.ranks.tolist() == [[1, 2], [2, 1]]
    assert isinstance(back, RankFile) and np.array_equal(back.ranks, ranks.ranks)
