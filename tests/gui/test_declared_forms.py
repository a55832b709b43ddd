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
