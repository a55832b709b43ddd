"""Wide grids where people compare: the meta-evaluation's key column first, Run × run without a scroll bar."""

from __future__ import annotations

import os

import pytest

from tests.gui.conftest import open_demo_and_wait
from tests.gui.test_metaeval_workspace import _run

SHOTS = os.environ.get("EVALGUI_SHOTS")       # a folder: the screens are saved there to be looked at


def _shot(widget, name):
    if SHOTS:
        widget.grab().save(os.path.join(SHOTS, name))


@pytest.mark.parametrize("experiment, values, key", [
    ("stability", {"set_sizes_edit": "5, 10", "sets_spin": 100, "stability_repetitions_spin": 1},
     ["error_rate", "tie_rate"]),
    ("power", {}, ["discriminative_power", "significant_pairs"]),
])
def test_the_meta_evaluations_key_column_comes_first_and_is_in_sight(qtbot, window, experiment, values, key):
    window.resize(1366, 768)
    metaeval = _run(qtbot, window, experiment, **values)
    table = metaeval.table
    metaeval.results_tabs.setCurrentWidget(table.page)
    shown = table.key_columns_in_sight()
    assert shown[0] == "measure" and shown[1:3] == key
    assert list(table.model.frame.columns) == list(metaeval.outcome.result.table.columns)   # exports: documented
    view, header = table.view, table.view.horizontalHeader()
    column = list(table.model.frame.columns).index(key[0])
    right = header.sectionViewportPosition(column) + header.sectionSize(column)
    assert 0 <= header.sectionViewportPosition(column) and right <= view.viewport().width()
    _shot(window, f"metaeval_{experiment}.png")


def test_run_by_run_table_is_fully_visible(qtbot, window):
    window.resize(1366, 768)
    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    ranked.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    qtbot.wait(50)
    table = view.table
    assert not table.horizontalScrollBar().isVisible() and not table.verticalScrollBar().isVisible()
    header = table.horizontalHeader()
    last = table.model().columnCount() - 1
    assert header.sectionViewportPosition(last) + header.sectionSize(last) <= table.viewport().width()
    _shot(window, "run_by_run.png")
