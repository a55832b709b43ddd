"""The input registry: every kind sniffed and read, unreadable kinds refused plainly, a new kind in one module."""

import sys
import textwrap

import numpy as np
import pytest

from evalgui.core import inputs
from evalgui.core.errors import EvalInputError
from evalgui.core.jobs import Cancelled, JobState

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d1 1 0.9 bm25\nq1 Q0 d2 2 0.5 bm25\nq2 Q0 d3 1 0.7 bm25\n"
SCORES = ("run,query,measure,value\n"
          "bm25,q1,P_10,0.5\nbm25,q2,P_10,0.25\nbm25,all,P_10,0.375\n"
          "dense,q1,P_10,0.75\ndense,q2,P_10,\ndense,all,P_10,0.75\n")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_registry_lists_every_kind_and_says_which_are_readable():
    assert list(inputs.kinds()) == ["qrels", "subtopic qrels", "run", "per-query scores", "rank file", "case base",
                                    "similarity results"]
    assert [k.name for k in inputs.readable_kinds()] == ["qrels", "subtopic qrels", "run", "per-query scores", "rank file",
                                                          "case base", "similarity results"]
    filters = inputs.open_dialog_filters()
    assert "Per-query scores (*.csv *.tsv *.tab *.parquet *.pq)" in filters
    assert all(f"{kind.label} (" in filters for kind in inputs.readable_kinds())
    assert filters.endswith("All files (*)")


@pytest.mark.parametrize("name, text, kind", [
    ("q.txt", QRELS, "qrels"),
    ("list.txt", "d1\nd2\n", "qrels"),
    ("q.csv", "query,doc,relevance\nq1,d1,1\n", "qrels"),
    ("r.txt", RUN, "run"),
    ("r.csv", "qid,docno,score\nq1,d1,0.5\n", "run"),
    ("scores.csv", SCORES, "per-query scores"),
    ("scores.tsv", SCORES.replace(",", "\t"), "per-query scores"),
    ("scores.txt", SCORES, "per-query scores"),            # a table without a .csv extension
    ("sims.csv", "query_id,case_id,similarity\nq1,c1,0.9\n", "similarity results"),
    ("sims2.csv", "Query,Case,Sim\nq1,c1,0.9\n", "similarity results"),
])
def test_every_kind_is_sniffed(tmp_path, name, text, kind):
    assert inputs.detect_kind(write(tmp_path, name, text)).name == kind


def test_a_similarity_table_is_not_taken_for_a_run(tmp_path):
    path = write(tmp_path, "sims.csv", "query_id,case_id,similarity\nq1,c1,0.9\nq1,c2,0.4\n")
    claimed = [k.name for k, _ in inputs.claims(path)]
    assert "run" not in claimed and claimed[0] == "similarity results"
    assert inputs.read_input(path).kind == "similarity results"


def test_a_file_no_kind_claims_names_what_was_expected(tmp_path):
    path = write(tmp_path, "x.txt", "a b c\n")
    with pytest.raises(EvalInputError) as err:
        inputs.read_input(path)
    message = str(err.value)
    assert str(path) in message and "TREC qrels" in message and "TREC run" in message and "\n" not in message


def test_read_input_reads_each_readable_kind(tmp_path):
    qrels = inputs.read_input(write(tmp_path, "q.txt", QRELS))
    assert (qrels.kind, qrels.summary["queries"], qrels.summary["relevant"]) == ("qrels", 2, 2)
    assert qrels.record.describe(qrels.summary) == "2 queries, 3 judged, 2 relevant"
    run = inputs.read_input(write(tmp_path, "r.txt", RUN))
    assert (run.kind, run.summary["documents"], run.kind_detected) == ("run", 3, True)
    scores = inputs.read_input(write(tmp_path, "s.csv", SCORES))
    assert scores.kind == "per-query scores"
    assert scores.summary == {"runs": 2, "measures": 1, "queries": 2, "rows": 6}
    assert scores.warnings == []


def test_the_kind_can_be_chosen(tmp_path):
    import json

    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"q1": {"d1": 3, "d2": 1}}))
    assert inputs.read_input(path).kind == "qrels"                 # integers: judgments first
    chosen = inputs.read_input(path, "run")
    assert chosen.kind == "run" and not chosen.kind_detected
    floats = tmp_path / "run.json"
    floats.write_text(json.dumps({"q1": {"d1": 0.5, "d2": 0.25}}))
    assert inputs.read_input(floats).kind == "run"                 # not judgments: the next kind reads it


def test_per_query_scores_matrix_and_summaries(tmp_path):
    scores = inputs.read_input(write(tmp_path, "s.csv", SCORES)).data
    assert scores.runs == ["bm25", "dense"] and scores.measures == ["P_10"] and scores.query_ids == ["q1", "q2"]
    matrix = scores.matrix("P_10")
    assert list(matrix.columns) == ["bm25", "dense"] and list(matrix.index) == ["q1", "q2"]
    assert matrix.loc["q1", "dense"] == 0.75 and np.isnan(matrix.loc["q2", "dense"])
    assert sorted(scores.summaries["value"]) == [0.375, 0.75]


def test_per_query_scores_read_what_evaluate_writes(tmp_path):
    from evalgui.cli import main

    root = tmp_path
    qrels, run = write(root, "q.txt", QRELS), write(root, "r.txt", RUN)
    out = root / "per_query.csv"
    assert main(["evaluate", str(qrels), str(run), "-m", "P@1", "-m", "AP", "--per-query", "-o", str(out)]) == 0
    loaded = inputs.read_input(out)
    assert loaded.kind == "per-query scores"
    assert loaded.data.runs == ["r"] and loaded.data.measures == ["P@1", "AP"] and loaded.data.query_ids == ["q1", "q2"]


@pytest.mark.parametrize("text, words, line", [
    ("run,query,measure\nbm25,q1,P_10\n", ["no value column"], 1),
    ("run,query,measure,value\nbm25,q1,P_10,0.5\nbm25,q2,P_10,x\n", ["'x' is not a number"], 3),
    ("run,query,measure,value\nbm25,q1,P_10,0.5\nbm25,q1,P_10,0.6\n", ["appears twice", "lines 2 and 3"], 3),
    ("run,query,measure,value\nbm25,,P_10,0.5\n", ["empty"], 2),
])
def test_per_query_scores_bad_input_names_the_line(tmp_path, text, words, line):
    path = write(tmp_path, "s.csv", text)
    with pytest.raises(EvalInputError) as err:
        inputs.read_input(path, "per-query scores")
    assert err.value.line == line and all(w in str(err.value) for w in words)


def test_per_query_scores_warn_about_summary_only_tables(tmp_path):
    loaded = inputs.read_input(write(tmp_path, "s.csv", "run,query,measure,value\nbm25,all,P_10,0.5\n"))
    assert loaded.badge == "warning" and "per-query values" in loaded.warnings[0]


def test_load_files_job_hands_over_each_file_and_stops_when_cancelled(tmp_path):
    good, bad = write(tmp_path, "q.txt", QRELS), tmp_path / "missing.txt"
    arrived = []
    result = inputs.load_files_job([(str(good), None), (str(bad), None)])(JobState(on_partial=arrived.append))
    assert result == 2
    assert isinstance(arrived[0], inputs.LoadedInput) and arrived[0].kind == "qrels"
    assert isinstance(arrived[1], inputs.LoadFailure) and "no such file" in arrived[1].message
    with pytest.raises(Cancelled):
        inputs.load_files_job([(str(good), None)])(JobState(is_cancelled=lambda: True))


FAKE_KIND = '''
from evalgui.core.inputs import InputKind

def read(path, **_):
    return open(path).read().split()

KIND = InputKind(name="word list", label="Word list", patterns=("*.words",), expected="one word per line",
                 sniff=lambda head: 0.99 if head.name.endswith(".words") else 0.0, read=read,
                 summary=lambda words: {"words": len(words)}, headline=("words",))
'''


def test_a_new_kind_is_one_module_and_one_registry_line(tmp_path, monkeypatch):
    package = tmp_path / "fake_kinds"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "words.py").write_text(textwrap.dedent(FAKE_KIND))   # the one module
    monkeypatch.syspath_prepend(str(tmp_path))
    inputs.register("fake_kinds.words")                             # the one registry line
    try:
        loaded = inputs.read_input(write(tmp_path, "w.words", "a\nb\nc\n"))
        assert loaded.kind == "word list" and loaded.data == ["a", "b", "c"]
        assert loaded.record.describe(loaded.summary) == "3 words"
        assert "Word list (*.words)" in inputs.open_dialog_filters()
    finally:
        inputs.unregister("fake_kinds.words")
        for name in ("fake_kinds.words", "fake_kinds"):
            sys.modules.pop(name, None)
    assert "word list" not in inputs.kinds()


def test_the_headline_says_one_query_not_one_queries():
    qrels = inputs.kinds()["qrels"]
    assert qrels.describe({"queries": 1, "judged": 1, "relevant": 1}) == "1 query, 1 judged, 1 relevant"
    assert inputs.kinds()["run"].describe({"queries": 1, "documents": 1}) == "1 query, 1 document"
    assert qrels.describe({"queries": 1200, "judged": 2, "relevant": 0}) == "1,200 queries, 2 judged, 0 relevant"
