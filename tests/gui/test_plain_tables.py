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


def _every_output_name():
    """Every measure name an evaluation (so an export) can hold: each registered measure at its defaults."""
    from evalgui.core.ranked.measures import REGISTRY
    from evalgui.core.ranked.specs import parse_measures

    return [name for record in REGISTRY.values() if record.value_type != "text"
            for request in parse_measures([record.name]) for name in request.names]


def _measures_read(names):
    """What evalgui-cli's measure parser makes of ``names``: (measure, parameters, relevance level) per name."""
    from evalgui.core.ranked.specs import parse_measures

    def params(r):                  # rbp's default p (0.9), written out or not, is the same measure
        return (("p", 0.9),) if r.measure.name == "rbp" and not r.params else r.params

    return [(r.measure.name, params(r), r.relevance_level) for name in names for r in parse_measures([name])]


def test_both_namings_of_every_measure_read_back_as_the_same_measures():
    from evalgui.core import display

    names = _every_output_name()
    assert {"map", "P_10", "ndcg_cut_10", "iprec_at_recall_0.10", "gm_map", "alpha_nDCG_10"} <= set(names)
    as_named = _measures_read(names)
    assert _measures_read([display.paper_name(n) for n in names]) == as_named
    assert _measures_read([display.trec_name(display.paper_name(n)) for n in names]) == as_named


def test_exports_write_measures_in_the_chosen_naming_and_read_back(qtbot, naming, tmp_path, monkeypatch):
    """A wide table (measures as columns) and a tidy one (a measure column), exported as papers name
    the measures, then as trec_eval does: evalgui-cli's parser reads the same measures back."""
    from PySide6.QtWidgets import QFileDialog

    from evalgui.core import display
    from evalgui.gui.tables import DataFrameModel, FrameTableView

    names = _every_output_name()
    wide = pd.DataFrame([["bm25", *range(len(names))]], columns=["run", *names])
    tidy = pd.DataFrame({"run": "bm25", "query": "1", "measure": names, "value": 0.5})
    models = []                     # kept alive: they follow the naming until the test ends
    for chosen in (display.PAPER, display.TREC_EVAL):
        naming.set_current(chosen)
        for frame, file in ((wide, "wide.csv"), (tidy, "tidy.tsv")):
            models.append(DataFrameModel(frame, best=None))
            view = FrameTableView(models[-1])
            qtbot.addWidget(view)
            path = tmp_path / f"{chosen}-{file}"
            monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, p=path, **k: (str(p), "")))
            view.export_dialog()
            back = pd.read_csv(path, sep="\t" if file.endswith(".tsv") else ",", dtype=str)
            if file == "wide.csv":
                written = list(back.columns[1:])
                assert back.columns[0] == "Run"
            else:
                written = back["Measure"].tolist()
                assert list(back.columns) == ["Run", "Query", "Measure", "Value"]      # the headers the window shows
            assert written == [display.measure_label(n, chosen) for n in names]
            if chosen == display.PAPER:
                assert {"AP", "P@10", "nDCG@10", "RR", "R@100"} <= set(written)
            assert _measures_read(written) == _measures_read(names)


def test_the_paper_table_heads_follow_the_naming():
    from evalgui.core import display
    from evalgui.core.stats.compare import compare, paper_table

    scores = pd.DataFrame({"run": ["a"] * 6 + ["b"] * 6, "query": [str(q) for q in (1, 2, 3)] * 4,
                           "measure": (["map"] * 3 + ["P_10"] * 3) * 2,
                           "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.2, 0.4, 0.3, 0.6, 0.6]})
    comparison = compare(scores, ["a", "b"], ["map", "P_10"])
    assert "| Run | map | P_10 |" in paper_table(comparison, "markdown")          # the CLI's, unchanged
    assert "| Run | AP | P@10 |" in paper_table(comparison, "markdown", naming=display.PAPER)
    assert "Run & map & P\\_10" in paper_table(comparison, "latex", naming=display.TREC_EVAL)
