"""The similarity model: every local similarity by hand, block and pairs alike, the weighted mean with
missing values, and the model file's errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, MEASURES_BY_TYPE
from evalgui.core.cbr.local import PARAMETERS
from evalgui.core.cbr.model import Scorer, SimilarityModel, default_model, load_model
from evalgui.core.errors import EvalInputError
from evalgui.core.inputs.case_base import read_case_base


def case_base(tmp_path, name, header, *rows):
    path = tmp_path / name
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows))
    return read_case_base(path)


def model(*attributes) -> SimilarityModel:
    return SimilarityModel.from_dict({"attributes": list(attributes)})


def local(tmp_path, kind, measure, query, cases, parameters=None, header_cells=None):
    """One attribute's similarities of one query to each case, from the block and from pairs."""
    quote = lambda v: f'"{v}"' if ("," in v) else v
    test = case_base(tmp_path, "q.csv", "id,a", f"q,{quote(query)}")
    train = case_base(tmp_path, "c.csv", "id,a", *[f"c{i},{quote(v)}" for i, v in enumerate(cases)])
    scorer = Scorer(model({"name": "a", "type": kind, "measure": measure, "parameters": parameters or {}}),
                    test, train)
    block = scorer.block(np.array([0]))[0]
    pairs = scorer.pairs(np.zeros(len(cases), dtype=int), np.arange(len(cases)))
    np.testing.assert_array_equal(block, pairs)
    return block.tolist()


# ---------------------------------------------------------------- each local similarity by hand

def test_numeric_linear_over_the_data_range_or_a_given_range(tmp_path):
    # the values span 0..50 (query included): 1 - |20 - c| / 50
    assert local(tmp_path, "numeric", "linear", "20", ["20", "30", "0", "50"]) == [1.0, 0.8, 0.6, 0.4]
    assert local(tmp_path, "numeric", "linear", "20", ["30", "60"], {"range": 20}) == [0.5, 0.0]


def test_numeric_exponential_threshold_and_asymmetric(tmp_path):
    assert local(tmp_path, "numeric", "exponential", "5", ["5", "7"], {"alpha": 0.5}) == [1.0, math.exp(-1.0)]
    assert local(tmp_path, "numeric", "threshold", "5", ["5", "7", "8"], {"threshold": 2}) == [1.0, 1.0, 0.0]
    # more is better: a larger case value is fully similar, a smaller one falls over the range
    assert local(tmp_path, "numeric", "asymmetric", "10", ["15", "8", "0"], {"better": "more", "range": 10}) == \
        [1.0, 0.8, 0.0]
    assert local(tmp_path, "numeric", "asymmetric", "10", ["15", "8"], {"better": "less", "range": 10}) == [0.5, 1.0]


def test_categorical_equality_and_a_table(tmp_path):
    assert local(tmp_path, "categorical", "equality", "red", ["red", "blue"]) == [1.0, 0.0]
    table = {"table": {"red": {"orange": 0.8}, "orange": {"pink": 0.3}}, "default": 0.1}
    assert local(tmp_path, "categorical", "table", "red", ["red", "orange", "pink"], table) == [1.0, 0.8, 0.1]
    # symmetric: orange -> red is read from red -> orange
    assert local(tmp_path, "categorical", "table", "orange", ["red", "pink"], table) == [0.8, 0.3]
    one_way = dict(table, symmetric=False)
    assert local(tmp_path, "categorical", "table", "orange", ["red"], one_way) == [0.1]


def test_text_token_jaccard_and_normalised_levenshtein(tmp_path):
    assert local(tmp_path, "text", "token_jaccard_index", "Red sports car", ["red car", "blue van", "car, red sports"]) \
        == [2 / 3, 0.0, 1.0]
    # kitten -> sitting: 3 edits over 7 characters
    assert local(tmp_path, "text", "normalized_levenshtein", "kitten", ["sitting", "kitten", "KITTEN"]) == \
        [1 - 3 / 7, 1.0, 0.0]
    assert local(tmp_path, "text", "normalized_levenshtein", "kitten", ["KITTEN"], {"case_sensitive": False}) == [1.0]
    assert local(tmp_path, "text", "equality", "a b", ["a b", "a"]) == [1.0, 0.0]


@pytest.mark.parametrize("bit_sets, dense_queries", [(256, 4096), (0, 4096), (0, 0)],
                         ids=["bit sets", "sparse pairs", "sparse blocks"])
def test_set_jaccard_index_is_the_standard_one(tmp_path, monkeypatch, bit_sets, dense_queries):
    from evalgui.core.cbr import local as local_module

    monkeypatch.setattr(local_module, "_BIT_SET_MEMBERS", bit_sets)          # every way of intersecting
    monkeypatch.setattr(local_module, "_DENSE_VOCABULARY", dense_queries)
    # CBRkit's jaccard would give 1 / (1 + 0.25) for the first pair; the Jaccard index is 3/4
    assert local(tmp_path, "set", "jaccard_index", "a;b;c", ["a;b;c;d", "x", "c;a;b"]) == [0.75, 0.0, 1.0]
    many = ";".join(f"m{i}" for i in range(70))                              # more than one 64-bit word
    assert local(tmp_path, "set", "jaccard_index", many, [many, "m0;m69;zz"]) == [1.0, 2 / 71]


def test_vector_cosine_clips_negative_cosines(tmp_path):
    sims = local(tmp_path, "vector", "cosine", "[1, 0]", ["[2, 0]", "[1, 1]", "[-1, 0]", "[0, 0]"])
    assert sims == pytest.approx([1.0, math.sqrt(0.5), 0.0, 0.0], abs=1e-15)


def test_every_local_similarity_is_described_and_computed():
    assert set(LOCAL_SIMILARITIES) == set(PARAMETERS)
    assert {m for measures in MEASURES_BY_TYPE.values() for m in measures} == set(PARAMETERS)
    for name, parameters in PARAMETERS.items():
        assert {p.name for p in LOCAL_SIMILARITIES[name].parameters} == set(parameters), name


# ---------------------------------------------------------------- the global similarity

def test_the_weighted_mean_skips_missing_values_and_renormalises(tmp_path):
    test = case_base(tmp_path, "q.csv", "id,x,color", "q,10,red", "p,,")
    train = case_base(tmp_path, "c.csv", "id,x,color", "a,10,blue", "b,,red", "c,0,red")
    m = model({"name": "x", "type": "numeric", "measure": "linear", "weight": 3, "parameters": {"range": 10}},
              {"name": "color", "type": "categorical", "measure": "equality", "weight": 1})
    sims = Scorer(m, test, train).block(np.array([0, 1]))
    # q-a: (3*1 + 1*0)/4; q-b: x missing, colour only: 1; q-c: (3*0 + 1*1)/4; p has no value: 0 everywhere
    np.testing.assert_array_equal(sims, [[0.75, 1.0, 0.25], [0.0, 0.0, 0.0]])
    scorer = Scorer(m, test, train)
    assert scorer.explain(0, 1) == [("x", 3.0, None), ("color", 1.0, 1.0)]
    assert Scorer(m.subset(["color"]), test, train).block(np.array([0]))[0].tolist() == [0.0, 1.0, 1.0]


def test_a_zero_weight_leaves_the_attribute_out(tmp_path):
    test = case_base(tmp_path, "q.csv", "id,x,y", "q,1,a")
    train = case_base(tmp_path, "c.csv", "id,x,y", "c,1,b")
    m = model({"name": "x", "type": "numeric", "measure": "threshold"},
              {"name": "y", "type": "categorical", "measure": "equality", "weight": 0})
    assert Scorer(m, test, train).block(np.array([0])).tolist() == [[1.0]]


def test_fractional_weights_never_exceed_one(tmp_path):
    test = case_base(tmp_path, "q.csv", "id,a,b,c", "q,1,x,")
    train = case_base(tmp_path, "c.csv", "id,a,b,c", "c,1,x,y")
    m = model(*({"name": n, "type": t, "measure": "equality" if t == "categorical" else "threshold", "weight": 0.1}
                for n, t in (("a", "numeric"), ("b", "categorical"), ("c", "categorical"))))
    assert Scorer(m, test, train).block(np.array([0]))[0, 0] == 1.0


# ---------------------------------------------------------------- the model file

def test_the_model_file_round_trips_and_fills_defaults_from_the_case_base(tmp_path):
    cb = case_base(tmp_path, "cb.csv", "id,price,color,tags", "1,3,red,a;b")
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"attributes": [{"name": "price", "weight": 2}, {"name": "tags"}]}))
    m = load_model(path, cb)
    assert [(a.name, a.type, a.measure, a.weight) for a in m.attributes] == \
        [("price", "numeric", "linear", 2.0), ("tags", "set", "jaccard_index", 1.0)]
    m.save(tmp_path / "again.json")
    assert load_model(tmp_path / "again.json").to_dict() == m.to_dict()
    assert [a.measure for a in default_model(cb).attributes] == ["linear", "equality", "jaccard_index"]


@pytest.mark.parametrize("text, words, line", [
    ('{"attributes": [\n{"name": "price", "type": "numbr"}]}', ["attribute 'price': the type must be one of"], 2),
    ('{"attributes": [{"name": "price", "type": "numeric", "measure": "jaccard_index"}]}',
     ["does not fit a numeric attribute", "linear, exponential"], 1),
    ('{"attributes": [{"name": "price", "type": "numeric", "measure": "linear",\n "parameters": {"range": -1}}]}',
     ["range must be above 0"], 1),
    ('{"attributes": [{"name": "price", "type": "numeric", "measure": "exponential", "parameters": {"beta": 1}}]}',
     ["exponential takes no parameter 'beta' (it takes alpha)"], 1),
    ('{"attributes": [{"name": "c", "type": "categorical", "measure": "table", "parameters": {"table": {"a": {"b": 2}}}}]}',
     ["table['a']['b'] must be a similarity in [0, 1]"], 1),
    ('{"attributes": [{"name": "price", "type": "numeric", "weight": -1}]}', ["weight must be a number of at least 0"], 1),
    ('{"attributes": [{"name": "price", "type": "numeric", "weight": 0}]}', ["every weight is 0"], None),
    ('{"attributes": [{"name": "a", "type": "set"}, {"name": "a", "type": "set"}]}', ["'a' is given twice"], 1),
    ('{"attributes": [{"name": "a", "type": "set", "measure": "jaccard_index", "colour": 1}]}', ["unknown key 'colour'"], 1),
    ('{"attributes": []}', ["no attributes"], None),
    ('{"attribs": []}', ['expected an object {"attributes"'], None),
    ('{"attributes": [\n{"name": "a",}]}', ["invalid JSON"], 2),
])
def test_bad_model_files_name_the_file_line_and_reason(tmp_path, text, words, line):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(EvalInputError) as err:
        load_model(path)
    assert str(path) in str(err.value) and err.value.line == line and all(w in str(err.value) for w in words)


def test_a_model_naming_a_missing_attribute(tmp_path):
    cb = case_base(tmp_path, "cb.csv", "id,price", "1,3")
    m = model({"name": "colour", "type": "categorical"})
    with pytest.raises(EvalInputError, match=r"the attribute 'colour' is not a column of .*cb.csv \(its columns: price\)"):
        Scorer(m, cb, cb)


def test_values_not_fitting_the_models_type_name_case_column_and_line(tmp_path):
    cb = case_base(tmp_path, "cb.csv", "id,price", "c1,3", "c2,cheap")
    with pytest.raises(EvalInputError) as err:
        Scorer(model({"name": "price", "type": "numeric"}), cb, cb)
    assert err.value.line == 3 and "case 'c2', column 'price': 'cheap' is not a number" in str(err.value)
