"""Issue 9, point 12: runs with whole-number scores are runs; the values, then the files already loaded, decide."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalgui.core import inputs
from evalgui.core.inputs import qrels_or_run as format_kind
from evalgui.core.jobs import JobState

QUERIES = [f"q{q}" for q in range(4)]


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def integer_run(depth=20):
    """Scores depth..1 for each query, as a ranker with integer scores writes them."""
    return {q: {f"{q}-d{i}": depth - i for i in range(depth)} for q in QUERIES}


def graded_qrels(per_query=12):
    """Grades 0-4, repeated within each query (the usual graded judgments)."""
    return {q: {f"{q}-d{i}": (i * 7 + n) % 5 for i in range(per_query)} for n, q in enumerate(QUERIES)}


def rows(mapping):
    return [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]


def read(path, loaded=()):
    return inputs.read_input(path, loaded_kinds=loaded)


@pytest.mark.parametrize("mapping, why", [
    (integer_run(20), "20 different values"),
    (integer_run(8), "differ between the documents of each query"),
    (integer_run(5), "every query has 5 documents"),                         # 5..1: as few values as grades
    ({q: {f"{q}-d{i}": 1000 * (9 - i) for i in range(9)} for q in QUERIES}, "beyond relevance grades"),
    ({q: {f"{q}-d{i}": 2.5 - i / 4 for i in range(3)} for q in QUERIES}, "not whole numbers"),
])
def test_json_runs_are_runs_even_with_whole_number_scores(tmp_path, mapping, why):
    loaded = read(write(tmp_path, "run.json", mapping))
    assert loaded.kind == "run" and why in loaded.kind_reason and loaded.kind_detected
    assert format_kind(tmp_path / "run.json") == "run"


def test_json_judgments_with_grades_0_to_4_are_qrels(tmp_path):
    path = write(tmp_path, "qrels.json", graded_qrels())
    loaded = read(path)
    assert loaded.kind == "qrels" and "(0, 1, 2, 3, 4) repeated within queries" in loaded.kind_reason
    assert format_kind(path) == "qrels"
    # Clear evidence is not overruled by the files already loaded: a second qrels stays qrels.
    assert read(path, loaded=["qrels", "run"]).kind == "qrels"


def test_a_toss_up_goes_to_qrels_first_and_to_a_run_once_a_qrels_is_loaded(tmp_path):
    path = write(tmp_path, "tiny.json", {"q1": {"d1": 3, "d2": 2, "d3": 1}})   # grades or scores?
    first = read(path)
    assert first.kind == "qrels" and "no qrels file is loaded yet" in first.kind_reason
    after_qrels = read(path, loaded=["qrels"])
    assert after_qrels.kind == "run" and "a qrels file is loaded already" in after_qrels.kind_reason
    assert read(path, loaded=["run"]).kind == "qrels"          # a run loaded says nothing about this one
    assert inputs.detect_kind(path, ["qrels"]).name == "run"


def test_files_read_earlier_in_the_same_batch_count_as_loaded(tmp_path):
    qrels = write(tmp_path, "qrels.txt", "q1 0 d1 1\nq1 0 d2 0\n")
    run = write(tmp_path, "tiny.json", {"q1": {"d1": 3, "d2": 2, "d3": 1}})
    arrived = []
    inputs.load_files_job([(str(qrels), None), (str(run), None)])(JobState(on_partial=arrived.append))
    assert [item.kind for item in arrived] == ["qrels", "run"]
    arrived.clear()
    inputs.load_files_job([(str(run), None)], loaded_kinds=["qrels"])(JobState(on_partial=arrived.append))
    assert arrived[0].kind == "run"


def test_a_large_json_run_is_judged_from_its_head(tmp_path):
    mapping = {f"q{q}": {f"q{q}-doc{i:05d}": 1000 - i for i in range(1000)} for q in range(20)}
    path = write(tmp_path, "big.json", json.dumps(mapping, indent=1))
    assert path.stat().st_size > 1 << 16
    loaded = read(path)
    assert loaded.kind == "run" and loaded.summary["documents"] == 20_000


def test_judgments_whose_tail_is_not_judgments_fall_back_to_a_run_and_say_why(tmp_path):
    mapping = graded_qrels(per_query=3000)
    mapping["q3"]["late"] = 0.5                                  # beyond the head the sniffers read
    path = write(tmp_path, "mixed.json", json.dumps(mapping, indent=1))
    loaded = read(path)
    assert loaded.kind == "run" and "cannot be read as qrels" in loaded.kind_reason and "0.5" in loaded.kind_reason


@pytest.mark.parametrize("name, text, kind, why", [
    ("run.txt", "".join(f"q1 Q0 d{i} {i + 1} {10 - i} tag\n" for i in range(10)), "run", "six fields"),
    ("run2.txt", "".join(f"q{q} Q0 d{i} {i + 1} 1 tag\n" for q in range(3) for i in range(4)), "run", "six fields"),
    ("qrels.txt", "".join(f"q1 0 d{i} {i % 5}\n" for i in range(10)), "qrels", "four fields"),
    ("run.csv", "qid,docno,score\n" + "".join(f"q1,d{i},{10 - i}\n" for i in range(10)), "run", "score column"),
    ("run.tsv", "query\tdoc\tscore\n" + "".join(f"q1\td{i}\t{3 - i}\n" for i in range(3)), "run", "score column"),
    ("qrels.csv", "query,doc,relevance\n" + "".join(f"q1,d{i},{i % 5}\n" for i in range(10)), "qrels",
     "relevance column"),
])
def test_text_and_table_runs_with_integer_scores_and_graded_qrels(tmp_path, name, text, kind, why):
    loaded = read(write(tmp_path, name, text), loaded=["qrels"] if kind == "qrels" else ())
    assert loaded.kind == kind and why in loaded.kind_reason


def test_parquet_runs_with_integer_scores_are_runs(tmp_path):
    path = tmp_path / "run.parquet"
    q, d, v = zip(*rows(integer_run(10)))
    pq.write_table(pa.table({"qid": list(q), "docno": list(d), "score": pa.array(v, pa.int64())}), path)
    loaded = read(path)
    assert loaded.kind == "run" and loaded.kind_reason == "query, document and score columns"


def test_a_kind_chosen_by_the_user_says_so(tmp_path):
    loaded = inputs.read_input(write(tmp_path, "run.json", graded_qrels()), "run")
    assert loaded.kind == "run" and loaded.kind_reason == "kind chosen by you" and not loaded.kind_detected
