"""The case-base and similarity-results readers: formats, id column, types, and errors naming file, line and case."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalgui.core import inputs
from evalgui.core.errors import EvalInputError
from evalgui.core.inputs.case_base import infer_type, read_case_base
from evalgui.core.inputs.similarity import read_similarity_results
from evalgui.core.resources import sample_data

CARS = ("id,price,color,tags,name,emb\n"
        'c1,10000,red,sport;cheap,Golf GTI,"[0.1, 0.2]"\n'
        'c2,25000,blue,family,Passat Variant,"[0.3, 0.1]"\n'
        "\n"
        'c3,,red,sport,Polo,"[0.2, 0.2]"\n')


def write(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- case bases

def test_a_case_base_csv_with_every_type(tmp_path):
    loaded = inputs.read_input(write(tmp_path, "cars.csv", CARS))
    cb = loaded.data
    assert loaded.kind == "case base" and loaded.record.describe(loaded.summary) == "3 cases, 5 attributes"
    assert loaded.summary["types"] == "1 numeric, 1 categorical, 1 text, 1 set, 1 vector"
    assert "no query or document column" in loaded.kind_reason
    assert cb.id_column == "id" and cb.ids.tolist() == ["c1", "c2", "c3"]
    assert cb.types == {"price": "numeric", "color": "categorical", "tags": "set", "name": "text", "emb": "vector"}
    assert cb.lines.tolist() == [2, 3, 5]                         # the blank line 4 still counts
    assert np.isnan(cb.values("price")[2]) and cb.values("price")[:2].tolist() == [10000.0, 25000.0]
    assert cb.values("tags").tolist() == [("sport", "cheap"), ("family",), ("sport",)]
    assert cb.values("emb").tolist() == [[0.1, 0.2], [0.3, 0.1], [0.2, 0.2]]
    assert cb.values("color", "text").tolist() == ["red", "blue", "red"]
    assert cb.case("c2")["name"] == "Passat Variant"


def test_the_id_column_is_id_in_any_case_else_the_first_or_chosen(tmp_path):
    assert read_case_base(write(tmp_path, "a.csv", "name,ID,x\nn1,7,1\n")).id_column == "ID"
    assert read_case_base(write(tmp_path, "b.csv", "key,x\nk1,1\n")).ids.tolist() == ["k1"]
    chosen = read_case_base(write(tmp_path, "c.csv", "id,key,x\n1,k1,1\n"), id_column="key")
    assert chosen.ids.tolist() == ["k1"] and chosen.attributes == ["id", "x"]


def test_a_loaded_case_base_keyed_by_another_column(tmp_path):
    """What the window does when the user chooses the id column of a case base already loaded."""
    path = write(tmp_path, "k.csv", "id,key,price,tags\n1,k1,5,a;b\n2,k2,,b\n\n3,k1,7,c\n")
    cb = read_case_base(path)
    cb.types["tags"] = "categorical"                             # an edited type survives the change
    with pytest.raises(EvalInputError) as error:
        cb.with_id_column("key")
    assert "the case id 'k1' appears twice (lines 2 and 5)" in str(error.value) and error.value.line == 5
    with pytest.raises(EvalInputError, match="the case id is missing .* column price"):
        cb.with_id_column("price")
    cb2 = read_case_base(write(tmp_path, "k2.csv", "id,key,price\n1,k1,5\n2,k2,6\n"))
    keyed = cb2.with_id_column("key")
    assert keyed.ids.tolist() == ["k1", "k2"] and keyed.id_column == "key"
    assert keyed.attributes == ["id", "price"] and keyed.types == {"id": "numeric", "price": "numeric"}
    assert keyed.values("id").tolist() == [1.0, 2.0] and keyed.with_id_column("id").ids.tolist() == ["1", "2"]
    assert cb2.with_id_column("id") is cb2


def test_a_tsv_case_base_even_of_four_or_six_columns(tmp_path):
    """A .tsv without query and document columns looks like TREC lines: six fields a run, four qrels. Its
    header (names, not the numbers a run or qrels line has) says it is a table of cases."""
    six = "id\tprice\tcolor\ttags\tname\temb\nc1\t10000\tred\tsport;cheap\tGolf GTI\t[0.1, 0.2]\n" \
          "c2\t25000\tblue\tfamily\tPassat\t[0.3, 0.1]\n"
    loaded = inputs.read_input(write(tmp_path, "cars.tsv", six))
    assert loaded.kind == "case base" and loaded.data.ids.tolist() == ["c1", "c2"]
    assert loaded.data.types == {"price": "numeric", "color": "categorical", "tags": "set", "name": "text",
                                 "emb": "vector"}
    four = inputs.read_input(write(tmp_path, "four.tsv", "id\tprice\tcolor\tsize\n1\t5\tred\t2\n"))
    assert four.kind == "case base" and four.data.attributes == ["price", "color", "size"]
    # TREC files named .tsv are still what they are
    assert inputs.read_input(write(tmp_path, "r.tsv", "q1\tQ0\td1\t1\t2.5\tbm25\n")).kind == "run"
    assert inputs.read_input(write(tmp_path, "j.tsv", "q1\t0\td1\t1\n")).kind == "qrels"


def test_types_can_be_overridden_and_sets_take_a_delimiter(tmp_path):
    path = write(tmp_path, "z.csv", "id,zip,tags\n1,01067,a|b\n2,10115,b\n")
    assert read_case_base(path).types == {"zip": "numeric", "tags": "categorical"}
    cb = read_case_base(path, types={"zip": "categorical"}, delimiter="|")
    assert cb.types == {"zip": "categorical", "tags": "set"}
    assert cb.values("zip").tolist() == ["01067", "10115"] and cb.values("tags")[0] == ("a", "b")


@pytest.mark.parametrize("cells, kind", [
    (["1", "2.5", "", None], "numeric"), (["[1, 2]", "[3,4]"], "vector"), ([[1, 2], [3, 4]], "vector"),
    (["a;b", "c"], "set"), ([["x", "y"], ["z"]], "set"), (["red", "blue", "red"], "categorical"),
    (["a long text", "b"], "text"), ([f"w{i}" for i in range(60)], "text"), ([None, ""], "categorical"),
])
def test_type_inference(cells, kind):
    column = np.empty(len(cells), dtype=object)
    column[:] = cells
    assert infer_type(column) == kind


def test_json_array_json_lines_and_parquet(tmp_path):
    records = [{"id": 1, "price": 3.5, "tags": ["a", "b"], "v": [1, 2]}, {"id": 2, "price": None, "tags": ["b"]}]
    array = write(tmp_path, "cb.json", "[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    lines = write(tmp_path, "cb.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    for path, starts in ((array, [2, 3]), (lines, [1, 2])):
        loaded = inputs.read_input(path)
        cb = loaded.data
        assert loaded.kind == "case base" and cb.ids.tolist() == ["1", "2"] and cb.lines.tolist() == starts
        assert cb.types == {"price": "numeric", "tags": "set", "v": "vector"}
        assert np.isnan(cb.values("v")[1]).all()                  # a missing key is a missing value
    parquet = tmp_path / "cb.parquet"
    pd.DataFrame({"id": ["a", "b"], "size": [1.5, None], "kind": ["x", "y"]}).to_parquet(parquet)
    cb = inputs.read_input(parquet).data
    assert cb.types == {"size": "numeric", "kind": "categorical"} and np.isnan(cb.values("size")[1])


def test_json_judgments_are_still_qrels(tmp_path):
    path = write(tmp_path, "qrels.json", json.dumps({"q1": {"d1": 1}}))
    assert inputs.read_input(path).kind == "qrels"


@pytest.mark.parametrize("text, kind, words, line", [
    ("id,price\nc1,10\nc2,cheap\n", "numeric", ["case 'c2', column 'price'", "'cheap' is not a number"], 3),
    ('id,v\nc1,"[1, 2]"\nc2,"[1, 2, 3]"\n', "vector", ["case 'c2', column 'v'", "3 numbers, where case 'c1' has 2"], 3),
    ('id,v\nc1,"[1, 2]"\nc2,"[1, x]"\n', "vector", ["case 'c2', column 'v'", "not a list of numbers"], 3),
])
def test_values_that_do_not_fit_the_type_name_case_column_and_line(tmp_path, text, kind, words, line):
    cb = read_case_base(write(tmp_path, "cb.csv", text))
    column = cb.attributes[0]
    with pytest.raises(EvalInputError) as err:
        cb.values(column, kind)
    assert err.value.line == line and str(tmp_path / "cb.csv") in str(err.value)
    assert all(w in str(err.value) for w in words)


@pytest.mark.parametrize("text, kwargs, words, line", [
    ("id,x\nc1,1\nc1,2\n", {}, ["case id 'c1' appears twice (lines 2 and 3)"], 3),
    ("id,x\nc1,1\n,2\n", {}, ["case id is missing"], 3),
    ("id,x\n", {}, ["no cases"], None),
    ("id\nc1\n", {}, ["no attribute columns"], None),
    ("id,x\nc1,1\n", {"id_column": "key"}, ["no id column 'key' (columns: id, x)"], None),
    ("id,x\nc1,1\n", {"types": {"y": "set"}}, ["no column 'y'"], None),
    ("id,x\nc1,1\n", {"types": {"x": "graph"}}, ["unknown type 'graph'"], None),
])
def test_bad_case_bases(tmp_path, text, kwargs, words, line):
    with pytest.raises(EvalInputError) as err:
        read_case_base(write(tmp_path, "cb.csv", text), **kwargs)
    assert err.value.line == line and all(w in str(err.value) for w in words)


def test_bad_json_case_bases(tmp_path):
    with pytest.raises(EvalInputError, match="line 2.*invalid JSON"):
        read_case_base(write(tmp_path, "a.json", '[{"id": 1},\n {"id": 2,,}]'))
    with pytest.raises(EvalInputError, match="line 2.*one JSON object per case"):
        read_case_base(write(tmp_path, "b.jsonl", '{"id": 1, "x": 2}\n[1, 2]\n'))


def test_a_table_of_another_kind_is_not_taken_for_a_case_base(tmp_path):
    for name, text in [("run.csv", "qid,docno,score\nq1,d1,0.5\n"), ("sims.csv", "query,case,sim\nq,c,0.5\n"),
                       ("scores.csv", "run,query,measure,value\nr,q,P_10,0.5\n")]:
        assert "case base" not in [k.name for k, _ in inputs.claims(write(tmp_path, name, text))]


# ---------------------------------------------------------------- similarity results

def test_similarity_results_with_aliases_and_the_procake_example(tmp_path):
    loaded = inputs.read_input(sample_data("cbr", "procake_ground_truth.csv"))
    assert loaded.kind == "similarity results" and loaded.record.describe(loaded.summary) == "1 query, 3 cases, 3 pairs"
    sims = loaded.data
    assert sims.query_ids.tolist() == ["G1"] and sims.case_ids[sims.case_codes].tolist() == ["G2", "G3", "G4"]
    assert sims.similarity.tolist() == [0.5, 0.3, 0.2]
    aliased = read_similarity_results(write(tmp_path, "s.tsv", "Query\tCase\tScore\n007\t1\t1\n007\t2\t0\n"))
    assert aliased.query_ids.tolist() == ["007"] and aliased.similarity.tolist() == [1.0, 0.0]   # ids stay text


def test_similarity_results_from_parquet_and_warnings(tmp_path):
    path = tmp_path / "s.parquet"
    pd.DataFrame({"query_id": ["a", "a", "b"], "case_id": ["x", "y", "x"], "similarity": [0.5, 0.25, 1]}).to_parquet(path)
    loaded = inputs.read_input(path)
    assert loaded.summary["pairs"] == 3 and loaded.warnings == ["the queries have lists of different lengths (1 to 2 cases)"]


@pytest.mark.parametrize("text, words, line", [
    ("query_id,case_id,similarity\nq,c1,0.5\nq,c2,x\n", ["the similarity 'x' is not a number"], 3),
    ("query_id,case_id,similarity\nq,c1,0.5\n\nq,c2,1.5\n", ["the similarity 1.5 is outside [0, 1]"], 4),   # the blank line counts
    ("query_id,case_id,similarity\nq,c1,-0.1\n", ["outside [0, 1]"], 2),
    ("query_id,case_id,similarity\nq,c1,nan\n", ["'nan' is not a number"], 2),
    ("query_id,case_id,similarity\nq,c1,0.5\nq,c2\n", ["expected 3 fields", "(query_id, case_id, similarity), found 2"], 3),
    ("query_id,case_id,similarity\nq,c1,0.5\n,c2,0.5\n", ["the query id is missing"], 3),
    ("query_id,case_id,similarity\nq,c1,0.5\nq,c1,0.4\n", ["case 'c1' is given twice for query 'q' (lines 2 and 3)"], 3),
    ("query_id,case_id,sim\nq,c1,0.5\nq,c2,0.5,9\n", ["expected 3 fields", "found 4"], 3),
    ("query_id,doc,similarity\nq,c1,0.5\n", ["no case column"], 1),
    ("query_id,case_id,similarity\n", ["no rows"], None),
])
def test_bad_similarity_results_name_file_line_and_reason(tmp_path, text, words, line):
    path = write(tmp_path, "sims.csv", text)
    with pytest.raises(EvalInputError) as err:
        read_similarity_results(path)
    assert err.value.line == line and str(path) in str(err.value) and "\n" not in str(err.value)
    assert all(w in str(err.value) for w in words), str(err.value)


def test_an_outline_gives_an_attributes_values_and_span_worked_out_when_the_case_base_is_read(tmp_path):
    path = tmp_path / "cars.csv"
    path.write_text("id,make,price,note\n1, VW ,14500,a\n2,Audi,27500,\n3,VW,,b\n4,,9800,c\n")
    loaded = inputs.read_input(path, "case base")
    cases = loaded.data
    # the reader's worker worked every outline out (a window choosing the case base only looks them up)
    assert set(cases._outlines) == {"make", "price", "note"}
    assert cases.outline("make") == (["Audi", "VW"], None)           # distinct, stripped, sorted, no blanks
    assert cases.outline("price") == ([], 27500.0 - 9800.0)
    assert cases.outline("note") == (["a", "b", "c"], None)


def test_an_outline_lists_no_values_when_there_are_too_many(tmp_path):
    from evalgui.core.inputs.case_base import MAX_OUTLINE_VALUES

    n = MAX_OUTLINE_VALUES + 1
    frame = pd.DataFrame({"id": range(n), "code": [f"v{i}" for i in range(n)]})
    frame.to_csv(tmp_path / "codes.csv", index=False)
    cases = read_case_base(tmp_path / "codes.csv", types={"code": "categorical"})
    assert cases.outline("code") == ([], None)
