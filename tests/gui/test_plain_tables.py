"""Tables show plain headers, measures as papers name them (or as trec_eval does, View ▸ Measure names),
and numbers that read as numbers; copies and exports keep the machine column names."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from PySide6.QtCore import Qt


@pytest.fixture
def naming():
    from evalgui.core import display
    from evalgui.gui import naming as module

    yield module
    module.set_current(display.PAPER)


FRAME = pd.DataFrame({"measure": ["ndcg_cut_10", "map"], "n_queries": [3.0, 50.0], "p_value": [0.0, 0.03],
                      "p_adjusted": [1e-6, math.nan], "ci_low": [0.1, 0.2], "P_10": [0.5, 0.25]})


def _texts(model, row):
    return [model.data(model.index(row, c)) for c in range(model.columnCount())]


def test_headers_cells_and_numbers(qtbot, naming):
    from evalgui.gui.tables import DataFrameModel

    model = DataFrameModel(best=None)
    model.resamples = 10_000
    model.set_frame(FRAME)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Measure", "Queries", "p", "p (adjusted)", "95 % CI (low)", "P@10"]
    assert _texts(model, 0) == ["nDCG@10", "3", "< 1/10,000", "< 0.0001", "0.1000", "0.5000"]
    assert _texts(model, 1) == ["AP", "50", "0.0300", "–", "0.2000", "0.2500"]
    assert model.data(model.index(1, 3), Qt.ItemDataRole.ToolTipRole).startswith("Undefined")
    assert "ci_low" in model.headerData(4, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    model.resamples = None
    model.set_frame(FRAME)
    assert _texts(model, 0)[2] == "< 0.0001"


def test_measure_names_as_in_trec_eval_and_in_exports(qtbot, naming, tmp_path):
    from evalgui.core import display
    from evalgui.gui.tables import DataFrameModel, FrameTableView, with_measure_names

    model = DataFrameModel(FRAME, best=None)
    view = FrameTableView(model)
    qtbot.addWidget(view)
    assert with_measure_names(FRAME)["measure"].tolist() == ["nDCG@10", "AP"]
    with qtbot.waitSignal(naming.NAMING.changed):
        naming.set_current(display.TREC_EVAL)
    assert model.headerData(5, Qt.Orientation.Horizontal) == "P_10"
    assert _texts(model, 0)[0] == "ndcg_cut_10"
    assert with_measure_names(FRAME)["measure"].tolist() == ["ndcg_cut_10", "map"]
    # remembered in the settings
    naming.NAMING.value = None
    assert naming.current() == display.TREC_EVAL
    # a copy keeps the machine column names
    view.selectAll()
    assert view.selection_tsv().split("\n")[0].split("\t") == list(FRAME.columns)


def test_the_view_menu_switches_the_naming(qtbot, window, naming):
    from evalgui.core import display

    actions = {a.data(): a for a in window.measure_names_menu.actions()}
    assert set(actions) == {display.PAPER, display.TREC_EVAL} and actions[display.PAPER].isChecked()
    actions[display.TREC_EVAL].trigger()
    assert naming.current() == display.TREC_EVAL and not actions[display.PAPER].isChecked()
