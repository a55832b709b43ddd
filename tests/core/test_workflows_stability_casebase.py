"""The rank-file stability and case-based workflows: parameters declared once, bounds from the inputs, problems
worded by label (window) or flag (command line), the model's attribute records checked by name, the wide grid,
outcomes through JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalgui.core.resources import sample_data
from evalgui.core.workflows import workflows
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.workflows.params import RequestError

CBR = sample_data("cbr")


def _ranks(entities: int = 8, systems: int = 3):
    from evalgui.core.rankfile.ranks import RankFile

    ranks = np.arange(1, entities * systems + 1, dtype=float).reshape(entities, systems)
    return RankFile("E", [f"S{s}" for s in range(systems)], [f"e{e}" for e in range(entities)], ranks)


def test_the_workflows_are_registered():
    flows = workflows()
    assert {"stability", "casebase", "similarity"} <= set(flows)
    assert flows["similarity"].workspace == "casebase" and flows["stability"].workspace == "stability"


def test_stability_labels_say_what_the_flags_mean():
    from evalgui.core.workflows.stability import StabilityRequest

    assert StabilityRequest.param("splits").label == "Queries (splits)"
    assert StabilityRequest.param("splits").flag == "--splits"
    compat = StabilityRequest.param("compat")
    assert compat.label == "Reproduce the published tool's output" and compat.flag == "--compat"
    for param in StabilityRequest.PARAMS:             # plain words: no flag, no identifier in a label
        assert "-" not in param.label[:1] and "_" not in param.label, param.name


def test_splits_are_bounded_by_the_rank_files_entities_and_worded_per_front_end():
    from evalgui.core.workflows.stability import StabilityRequest

    inputs = Inputs({"r.txt": _ranks(8)})
    request = StabilityRequest(rank_file="r.txt", measures=("AP",), splits=(10,))
    assert request.problems() == []                       # without the inputs, nothing to bound it by
    (problem,) = request.problems(inputs)
    assert problem.for_window() == "Queries (splits): 8 entities cannot be split into 10 queries; choose 8 or fewer"
    assert problem.for_cli() == "--splits 10: 8 entities cannot be split into 10 queries; choose 8 or fewer"
    assert StabilityRequest.param("splits").limits(request, inputs)[:2] == (2, 8)
    # entities drawn lower the bound; systems and entities drawn are bounded by the file too
    assert request.replace(entities=(5,), splits=(6,)).problems(inputs)[0].for_window().startswith(
        "Queries (splits): 5 entities cannot be split into 6 queries")
    assert request.replace(splits=(2,), systems=(4,)).problems(inputs)[0].for_cli() == \
        "--systems 4: the ranks hold 3 systems: choose from 2 to 3"
    assert request.replace(splits=(2,), entities=(9,)).problems(inputs)[0].for_cli() == \
        "--entities 9: the ranks hold 8 entities: choose from 1 to 8"
    # only the values on all entities: the ranges do not apply
    assert request.replace(experiments=False).problems(inputs) == []


def test_stability_caps_say_what_they_protect():
    from evalgui.core.workflows.stability import StabilityRequest

    request = StabilityRequest(rank_file="r.txt", measures=("AP",))
    assert request.replace(bootstrap=10**8).problems()[0].for_cli() == \
        "-b 100000000: must be at most 10,000,000 (a limit that protects the running time)"
    assert "running time" in request.replace(iterations=10**7).problems()[0].for_window()
    assert "memory" in request.replace(threads=1000).problems()[0].for_window()
    # the swap method keeps every trial of every pair: B is bounded by the systems of the rank file
    inputs = Inputs({"r.txt": _ranks(8, systems=3)})
    (problem,) = request.replace(splits=(2,), bootstrap=9_000_000).problems(inputs)
    assert problem.for_window().startswith("Bootstrap samples: at most 8,333,333 with 3 systems (a limit that "
                                           "protects memory")


def test_stability_problems_across_parameters_name_the_parameter():
    from evalgui.core.workflows.stability import StabilityRequest

    request = StabilityRequest(rank_file="r.txt", measures=("AP_inter_per", "Average@k"))
    texts = [p.for_window() for p in request.problems()]
    assert "Total ranks T: AP_inter_per needs the total number of ranked entities (how many the systems ranked)" \
        in texts
    assert "Cut-offs k: Average@k: give the cut-offs (e.g. 10, 100)" in texts
    assert StabilityRequest(measures=("AP",)).problems()[0].for_cli() == \
        "give -f FILE, or --qrels QRELS and at least two RUNs"
    assert "unknown rank measure 'Nope'" in StabilityRequest(rank_file="r", measures=("Nope",)).problems()[0].message


def test_stability_runs_on_data_in_memory_and_its_outcome_survives_json():
    from evalgui.core.workflows.stability import StabilityRequest, run_stability

    request = StabilityRequest(rank_file="<ranks>", measures=("AP", "Average"), splits=(2,), iterations=3,
                               bootstrap=20, error_rates=True)
    outcome = run_stability(request, inputs=Inputs({"<ranks>": _ranks(8)}, {"<ranks>": "eight"}))
    assert outcome["ranks"].to_dict("records") == [{"source": "eight", "systems": 3, "entities": 8}]
    assert outcome["methods"]["method"].tolist() == ["AP", "Average"]
    assert outcome["actual"].columns.tolist() == ["measure", "S0", "S1", "S2"]
    back = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), StabilityRequest)
    assert back.request == request
    for name, table in outcome.tables.items():
        pd.testing.assert_frame_equal(back[name], table, check_dtype=False)
    assert StabilityRequest.from_json(request.to_json()) == request


def test_the_model_is_a_list_of_attribute_records_checked_by_name():
    from evalgui.core.workflows.casebase import CasebaseRequest

    def problems(model, **values):
        return [p.for_window() for p in CasebaseRequest(train="t.csv", model=model, **values).problems()]

    assert problems([{"name": "price", "type": "numeric", "measure": "linear"}]) == []
    assert problems({"attributes": [{"name": "price", "type": "numeric"}]}) == []
    assert problems("price") == ["Similarity model: expected a list of attribute records (name, type, measure, "
                                 "weight, parameters)"]
    assert problems([{"name": "price", "type": "numeric"}, {"type": "numeric"}]) == [
        "Similarity model: attribute 2 needs a name (the case base's column)"]
    (text,) = problems([{"name": "price", "type": "numeric", "measure": "jaccard_index"}])
    assert text.startswith("Similarity model: attribute 'price': ")
    (text,) = problems([{"name": "price", "type": "numeric", "weight": -1}])
    assert text == "Similarity model: attribute 'price': the weight must be a number of at least 0, not -1"
    # a record without its type is checked against the case base, when it is at hand
    from evalgui.core.inputs.case_base import read_case_base

    cars = read_case_base(CBR / "cars.csv")
    request = CasebaseRequest(train="cars", model=[{"name": "price", "measure": "jaccard_index"}])
    assert request.problems() == []
    assert "attribute 'price'" in request.problems(Inputs({"cars": cars}))[0].for_window()


def test_casebase_cross_checks_are_worded_per_front_end():
    from evalgui.core.workflows.casebase import CasebaseRequest

    request = CasebaseRequest(train="t.csv", model_file="m.json", filter_sizes=(10,), ks=(5,))
    assert request.problems()[0].for_cli() == "MAC/FAC needs MAC's model: --mac-model M2.json or " \
                                              "--mac-attributes A,B"
    assert request.problems()[0].for_window() == "MAC/FAC needs MAC's model: ‘MAC model file’ or ‘MAC's attributes’"
    assert "pair up position by position" in request.replace(mac_attributes=("price",), ks=()).problems()[0].message
    assert request.replace(ks=(10**13,)).problems()[0].for_cli() == \
        "--ks 10000000000000: must be at most 1,000,000,000,000 (a limit that protects the arrays' whole numbers)"


def test_the_wide_table_has_a_row_per_configuration_and_a_column_per_metric():
    from evalgui.core.workflows.casebase import wide_table

    tidy = pd.DataFrame({"retriever": ["linear", "linear", "macfac", "macfac", "x", "x"],
                         "filter_size": pd.array([None, None, 10, 10, None, None], dtype="Int64"),
                         "k": pd.array([5, 5, 5, 5, None, None], dtype="Int64"),
                         "metric": ["hits", "mae", "hits", "mae", "hits", "mae"],
                         "value": [5.0, 0.0, 4.0, 0.1, 3.0, np.nan]})
    wide = wide_table(tidy)
    assert wide.columns.tolist() == ["retriever", "filter_size", "k", "hits", "mae"]
    assert wide["retriever"].tolist() == ["linear", "macfac", "x"]
    assert wide["hits"].tolist() == [5.0, 4.0, 3.0] and wide["mae"].tolist()[:2] == [0.0, 0.1]
    assert np.isnan(wide["mae"].iloc[2])
    with_queries = tidy.assign(query="all")
    per_query = with_queries.assign(query="q1", value=1.0)
    pd.testing.assert_frame_equal(wide_table(pd.concat([per_query, with_queries], ignore_index=True)), wide)


def test_the_iterations_in_all_are_capped():
    from evalgui.core.workflows.stability import StabilityRequest

    request = StabilityRequest(rank_file="r.txt", measures=("AP",), splits=(2, 3), iterations=60_000)
    (problem,) = request.problems()
    assert problem.for_window() == "2 combinations of ‘Queries (splits)’, ‘Systems drawn’ and ‘Entities drawn’, " \
                                   "each run 60,000 times (‘Iterations’): at most 100,000 iterations in all (a limit " \
                                   "that protects the running time)"
    assert problem.for_cli().startswith("2 combinations of --splits Q, --systems S and --entities E, each run")
