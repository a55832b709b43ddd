"""The meta-evaluation, measure-stability and case-based forms on the declarations: bound controls, states by the
request's names, older projects' states restored, and bounds that fit the loaded data."""

from __future__ import annotations

from tests.gui.conftest import load
from tests.gui.test_stability_workspace import write_ranks


# ---------------------------------------------------------------------------- measure stability
def test_stability_queries_fit_a_rank_file_of_8_entities(qtbot, window, tmp_path):
    from evalgui.core.workflows.stability import StabilityRequest

    form = window.workspaces["stability"].form
    assert form.splits_edit.text() == "10"                          # the declared default
    assert form.bindings["splits"].label.text() == "Queries (splits)"
    load(qtbot, window, [write_ranks(tmp_path, systems=3, entities=8)])
    # 8 entities cannot take 10 queries: the form offers 8, and says why (the declaration's limits)
    assert form.splits_edit.text() == "8"
    note = form.limit_notes["splits"]
    assert not note.isHidden()
    assert note.text() == "At most 8: 8 entities cannot be split into 10 queries; choose 8 or fewer."
    assert "from 2 to 8" in form.splits_edit.toolTip()
    assert form.splits_edit.toolTip().startswith(StabilityRequest.param("splits").help.rstrip("."))
    # the other settings the ranks bound: their ranges in the tooltips, numbers too large brought down
    assert "from 2 to 3" in form.systems_edit.toolTip() and "from 1 to 8" in form.entities_edit.toolTip()
    assert form.limit_notes["systems"].isHidden()                   # "all" fits
    request, _ = form.request()
    assert request.splits == (8,)
    # an empty box is the default cut to the data, too
    form.splits_edit.setText("")
    assert form.splits_edit.placeholderText() == "8" and form.request()[0].splits == (8,)
    # a larger rank file lifts the bound; the note goes
    load(qtbot, window, [write_ranks(tmp_path, systems=3, entities=40, name="bigger.txt")])
    form.set_rank_file(str(tmp_path / "bigger.txt"))
    assert note.isHidden() and "from 2 to 40" in form.splits_edit.toolTip()


def test_stability_state_is_by_the_request_names_and_an_old_state_restores(qtbot, window):
    form = window.workspaces["stability"].form
    state = form.state()
    assert {"level", "missing_rank", "total_ranks", "splits", "sigs", "compat", "seed"} <= set(state)
    assert "relevance_level" not in state and state["splits"] == [10] and state["compat"] is None
    assert state["missing_rank"] is None and state["total_ranks"] is None
    # a state saved before the declarations: other names, the boxes' texts, 0 for "not given", compat a bool
    form.restore({"source": "trec", "relevance_level": 2, "missing_rank": 0, "total_ranks": 5000, "splits": "2, 4",
                  "systems": "", "iterations": 7, "compat": True, "error_rates": False})
    assert form.level_spin.value() == 2 and form.missing_spin.text() == "retrieved + 1"
    assert form.total_spin.value() == 5000 and form.splits_edit.text() == "2, 4"
    assert form.iterations_spin.value() == 7 and form.compat_check.isChecked() and not form.error_check.isChecked()
    state = form.state()
    assert state["level"] == 2 and state["splits"] == [2, 4] and state["compat"] == "dunaiski2018"
    form.restore({**state, "missing_rank": 1000})
    assert form.state()["missing_rank"] == 1000 and form.state()["splits"] == [2, 4]


# ---------------------------------------------------------------------------- meta-evaluation
def test_metaeval_state_is_by_the_request_names_and_an_old_state_restores(qtbot, window):
    from evalgui.core.workflows.metaeval import MetaevalRequest

    form = window.workspaces["metaeval"].form
    assert form.bindings["sets"].label.text() == MetaevalRequest.param("sets").label
    state = form.state()
    assert {"level", "complete", "experiment", "fuzziness", "set_sizes", "sets", "test", "correction", "alpha",
            "samples", "fractions", "seed", "stability_repetitions", "robustness_repetitions"} <= set(state)
    assert "relevance_level" not in state and "fill_missing" not in state
    assert state["fractions"] == list(MetaevalRequest.param("fractions").default) and state["samples"] == 1000
    # a version-1 state: other names, the boxes' texts, B per test under "samples"
    form.restore({"relevance_level": 2, "fill_missing": True, "experiment": "power", "test": "randomization",
                  "samples": {"randomization": 2000, "bootstrap": 300}, "set_sizes": "5, 10", "fractions": "0.5",
                  "alpha": 0.1, "stability_repetitions": 3})
    assert form.level_spin.value() == 2 and form.fill_check.isChecked() and form.experiment() == "power"
    assert form.samples_spin.value() == 2000 and form.set_sizes_edit.text() == "5, 10"
    assert form.fractions_edit.text() == "0.5" and form.alpha_spin.value() == 0.1
    assert form.stability_repetitions_spin.value() == 3
    state = form.state()
    assert state["level"] == 2 and state["complete"] is True and state["set_sizes"] == [5, 10]
    assert state["samples"] == 2000 and state["samples_per_test"]["bootstrap"] == 300
    # and today's state restores itself
    form.test_combo.setCurrentIndex(form.test_combo.findData("bootstrap"))
    assert form.samples_spin.value() == 300                 # B as last set for each test
    form.restore(state)
    assert form.state() == state


# ---------------------------------------------------------------------------- case-based
def test_casebase_settings_are_bound_and_an_old_state_restores(qtbot, window):
    from evalgui.core.workflows.casebase import CasebaseRequest

    form = window.workspaces["casebase"].form
    assert form.ties_combo.currentData() == "case_id"
    assert [form.ties_combo.itemText(i) for i in range(form.ties_combo.count())] == \
        [text for _, text in CasebaseRequest.param("ties").choices]
    assert form.include_self.text() == CasebaseRequest.param("include_self").label
    assert form.ks.toolTip().startswith(CasebaseRequest.param("ks").help)
    state = form.state()
    assert {"include_self", "filter_sizes", "ks", "ties", "relevance_thresholds"} <= set(state)
    # before the declarations, the thresholds were saved with the ranked measures, as typed
    form.restore({"filter_sizes": "3,6", "ks": "3,3", "ties": "interchangeable", "include_self": True,
                  "ranked": {"on": True, "thresholds": "0.6,0.8", "measures": {}}})
    assert form.filter_sizes.text() == "3,6" and form.ks.text() == "3,3" and form.include_self.isChecked()
    assert form.thresholds.text() == "0.6,0.8" and form.ranked_check.isChecked()
    state = form.state()
    assert state["relevance_thresholds"] == [0.6, 0.8] and state["filter_sizes"] == [3, 6]
    assert state["ties"] == "interchangeable" and "thresholds" not in state["ranked"]
