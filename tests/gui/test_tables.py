"""Result tables: export (CSV, LaTeX, plots), best value in bold, filter and sort, copy as TSV."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QFileDialog

from tests.gui.conftest import SYNTHETIC_RUNS, open_demo_and_wait


@pytest.fixture
def demo(qtbot, window):
    return open_demo_and_wait(qtbot, window)


def _save_as(monkeypatch, path, chosen_filter=""):
    calls = []

    def fake(*args, **kwargs):
        calls.append((args, kwargs))
        return str(path), chosen_filter
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    return calls


def _read_csv(path, **kwargs):
    # Floats parsed by Python's float() (exact round trip of repr), so equality can be exact.
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    for column in frame.columns:
        if column not in kwargs.get("dtype", {}) and column not in ("run", "query", "Run", "Query"):
            frame[column] = [float(v) if v != "" else float("nan") for v in frame[column]]
    return frame


def _as_exported(frame):
    """The frame as exports write it: floats to 15 significant digits (issue 8, point 12)."""
    from evalgui.core.export import clean_number

    frame = frame.reset_index(drop=True).copy()
    for column in frame.columns:
        if frame[column].dtype.kind == "f":
            frame[column] = [clean_number(v) if math.isfinite(v) else v for v in frame[column]]
    return frame


def _no_temp_files(folder):
    return [name for name in os.listdir(folder) if name.startswith(".evalgui-") or name.endswith(".tmp")]


# ---------------------------------------------------------------------------- export
def test_export_summary_csv_through_the_dialog(qtbot, demo, tmp_path, monkeypatch):
    path = tmp_path / "summary.csv"
    calls = _save_as(monkeypatch, path)
    demo.summary.view.export_dialog()
    assert calls, "the save dialog was not asked"
    back = _read_csv(path)
    frame = demo.summary.model.frame
    # the headers the window shows, the measures as it names them (View ▸ Measure names: papers' by default),
    # every number at full precision
    assert list(back.columns) == ["Run", "AP", "RR", "P@10", "R@100", "nDCG@10"]
    assert list(frame.columns) == ["run", "map", "recip_rank", "P_10", "recall_100", "ndcg_cut_10"]
    pd.testing.assert_frame_equal(back, frame.reset_index(drop=True).set_axis(back.columns, axis=1),
                                  check_exact=True, check_dtype=False)
    assert list(back["Run"]) == list(SYNTHETIC_RUNS)
    assert _no_temp_files(tmp_path) == []


def test_export_per_query_csv_through_the_dialog_and_export_frame(qtbot, demo, tmp_path, monkeypatch):
    frame = demo.per_query.model.frame
    assert len(frame) == 50 and list(frame.columns) == ["query"] + list(SYNTHETIC_RUNS)

    # Through the dialog: tidy rows naming the measure (what the per-query scores kind reads back).
    path = tmp_path / "per_query.csv"
    _save_as(monkeypatch, path)
    demo.per_query.view.export_dialog()
    back = _read_csv(path, dtype={"Query": str, "Measure": str})
    assert list(back.columns) == ["Run", "Query", "Measure", "Value"] and set(back["Measure"]) == {"AP"}
    wide = back.pivot(index="Query", columns="Run", values="Value").reset_index().rename(columns={"Query": "query"})
    pd.testing.assert_frame_equal(wide[list(frame.columns)].rename_axis(columns=None), frame.reset_index(drop=True),
                                  check_exact=True, check_dtype=False)

    from evalgui.gui.tables import export_frame

    direct = tmp_path / "direct.csv"
    export_frame(frame, str(direct))
    pd.testing.assert_frame_equal(_read_csv(direct, dtype={"query": str}), _as_exported(frame),
                                  check_exact=True, check_dtype=False)
    assert _no_temp_files(tmp_path) == []


def test_export_csv_with_default_pandas_reader_is_within_15_digits(qtbot, demo, tmp_path):
    from evalgui.gui.tables import export_frame

    path = tmp_path / "summary.csv"
    export_frame(demo.summary.model.frame, str(path))
    back = pd.read_csv(path)
    numeric = demo.summary.model.frame.columns[1:]
    np.testing.assert_allclose(back[numeric].to_numpy(), demo.summary.model.frame[numeric].to_numpy(),
                               rtol=1e-14, atol=0)


def test_export_shows_what_the_view_shows(qtbot, demo, tmp_path, monkeypatch):
    """A filtered, sorted view exports its visible rows in its order."""
    view = demo.per_query.view
    demo.per_query.filter.setText("12")
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    path = tmp_path / "visible.csv"
    _save_as(monkeypatch, path)
    view.export_dialog()
    back = _read_csv(path, dtype={"Query": str, "Measure": str})
    frame = demo.per_query.model.frame
    expected = frame[frame["query"].str.contains("12")].sort_values("bm25", ascending=False, kind="stable")
    bm25 = back[back["Run"] == "bm25"]                     # tidy rows, run by run (issue 9, point 2)
    assert list(bm25["Query"]) == list(expected["query"])
    assert bm25["Value"].tolist() == expected["bm25"].tolist()


def test_export_latex_and_markdown(qtbot, demo, tmp_path, monkeypatch):
    from evalgui.gui.tables import export_frame

    path = tmp_path / "summary.tex"
    _save_as(monkeypatch, path, "LaTeX (*.tex)")
    demo.summary.view.export_dialog()
    text = path.read_text()
    assert "\\begin{tabular}" in text and "\\end{tabular}" in text
    assert "P@10" in text and "nDCG@10" in text        # the measures as the window names them
    bm25 = demo.summary.model.frame.iloc[0]
    assert f"{bm25['map']:.4f}" in text
    export_frame(demo.summary.model.frame, str(tmp_path / "machine.tex"))
    assert "P\\_10" in (tmp_path / "machine.tex").read_text()               # escaped machine names

    export_frame(demo.per_query.model.frame, str(tmp_path / "per_query.tex"))
    assert "\\begin{tabular}{lrrrr}" in (tmp_path / "per_query.tex").read_text()
    export_frame(demo.summary.model.frame, str(tmp_path / "summary.md"))
    assert (tmp_path / "summary.md").read_text().startswith("| run |")
    assert _no_temp_files(tmp_path) == []


def test_export_into_a_missing_folder_reports_it(qtbot, demo, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *args: shown.append(args)))
    _save_as(monkeypatch, tmp_path / "no" / "such" / "summary.csv")
    demo.summary.view.export_dialog()
    assert shown and "summary.csv" in shown[0][2]
    assert not (tmp_path / "no").exists()


def test_cancelled_export_dialog_writes_nothing(qtbot, demo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _save_as(monkeypatch, "")
    demo.summary.view.export_dialog()
    assert os.listdir(tmp_path) == [] or all(not n.endswith(".csv") for n in os.listdir(tmp_path))


# SVG export used to fail for every plot: Qt's QSvgGenerator writes the close-path command 'Z' as its
# own token in <path d=...>, which pyqtgraph 0.14's SVGExporter cannot parse (ValueError).
@pytest.mark.parametrize("ext", [".png", ".svg"])
def test_export_pr_plot(qtbot, demo, tmp_path, ext):
    from evalgui.gui.plots import export_plot

    folder = tmp_path / "out"
    folder.mkdir()
    path = folder / f"pr{ext}"
    try:
        export_plot(demo.curves.plot.getPlotItem(), str(path))
    finally:
        assert _no_temp_files(folder) == []                 # not even when the export fails
    data = path.read_bytes()
    assert len(data) > 1000
    if ext == ".png":
        assert data[:4] == b"\x89PNG"
    else:
        import xml.etree.ElementTree as ET

        root = ET.fromstring(data)
        assert root.tag.endswith("svg")
        text = data.decode("utf-8")
        for run in SYNTHETIC_RUNS:                          # the legend is in the drawing
            assert run in text
    assert sorted(os.listdir(folder)) == [path.name]


@pytest.mark.parametrize("ext", [".png", ".svg"])
def test_export_plots_through_the_dialog(qtbot, demo, tmp_path, monkeypatch, ext):
    from PySide6.QtWidgets import QMessageBox

    from evalgui.gui.plots import export_plot_dialog

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *args: shown.append(args)))
    folder = tmp_path / "out"
    folder.mkdir()
    for name, plot in (("pr", demo.curves.plot), ("diff", demo.differences.chart)):
        _save_as(monkeypatch, folder / f"{name}{ext}")
        export_plot_dialog(demo, plot, name)
        assert (folder / f"{name}{ext}").stat().st_size > 1000
    assert shown == []
    assert sorted(os.listdir(folder)) == [f"diff{ext}", f"pr{ext}"]


def test_failed_plot_export_shows_a_message(qtbot, demo, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from evalgui.gui.plots import export_plot_dialog

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *args: shown.append(args)))
    _save_as(monkeypatch, tmp_path / "missing" / "pr.svg")
    export_plot_dialog(demo, demo.curves.plot, "precision_recall")
    assert len(shown) == 1 and "pr.svg" in shown[0][2]
    assert not (tmp_path / "missing").exists()


def test_export_targets_cover_tables_and_plots(qtbot, demo):
    labels = [label for label, _ in demo.export_targets()]
    assert any("Summary" in s for s in labels) and any("Per-query" in s for s in labels)
    assert any("recision-recall" in s for s in labels) and any("ifference" in s for s in labels)


# ---------------------------------------------------------------------------- bold, alignment, precision
def test_best_value_per_column_is_bold_in_the_summary(qtbot, demo):
    model = demo.summary.model
    frame = model.frame
    for c, column in enumerate(frame.columns):
        for r in range(len(frame)):
            font = model.data(model.index(r, c), Qt.ItemDataRole.FontRole)
            bold = font is not None and font.bold()
            if c == 0:
                assert not bold
            else:
                assert bold == (frame[column].iloc[r] == frame[column].max()), (column, r)
    # rerank has the best map of the demo; random is never bold
    assert model.data(model.index(2, 1), Qt.ItemDataRole.FontRole).bold()
    assert all(model.data(model.index(3, c), Qt.ItemDataRole.FontRole) is None for c in range(len(frame.columns)))


def test_numbers_are_right_aligned_with_fixed_precision(qtbot, demo):
    model = demo.summary.model
    value = model.frame.iloc[0, 1]
    index = model.index(0, 1)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == f"{value:.4f}"
    assert model.data(index, Qt.ItemDataRole.TextAlignmentRole) & int(Qt.AlignmentFlag.AlignRight)
    assert model.data(model.index(0, 0), Qt.ItemDataRole.TextAlignmentRole) & int(Qt.AlignmentFlag.AlignLeft)
    assert model.data(index, Qt.ItemDataRole.ToolTipRole) == repr(float(value))   # full precision on hover


def test_a_shared_best_value_is_not_bold_and_nan_never(qtbot):
    from evalgui.gui.tables import DataFrameModel

    # A tie for the best shows no bold (issue 9, point 10: bold only when strictly best as shown).
    model = DataFrameModel(pd.DataFrame({"run": ["a", "b", "c"], "x": [0.5, 0.5, 0.1], "y": [math.nan, 0.2, 0.3]}))
    bold = [[bool(model.data(model.index(r, c), Qt.ItemDataRole.FontRole)) for c in range(3)] for r in range(3)]
    assert bold == [[False, False, False], [False, False, False], [False, False, True]]
    assert model.data(model.index(0, 2), Qt.ItemDataRole.DisplayRole) == "–"        # never "nan"
    assert model.data(model.index(0, 2), Qt.ItemDataRole.ToolTipRole).startswith("Undefined")


# ---------------------------------------------------------------------------- filter and sort
def test_per_query_filter_box_and_sort_by_raw_values(qtbot, demo):
    view, proxy = demo.per_query.view, demo.per_query.view.proxy
    assert proxy.rowCount() == 50
    qtbot.keyClicks(demo.per_query.filter, "13")
    shown = [proxy.index(r, 0).data() for r in range(proxy.rowCount())]
    assert shown and all("13" in q for q in shown)
    assert sorted(shown) == sorted(q for q in demo.per_query.model.frame["query"] if "13" in q)
    demo.per_query.filter.clear()
    assert proxy.rowCount() == 50

    column = list(demo.per_query.model.frame.columns).index("dense")
    qtbot.mouseClick(view.horizontalHeader().viewport(), Qt.MouseButton.LeftButton,
                     pos=view.horizontalHeader().rect().topLeft()
                     + _section_centre(view.horizontalHeader(), column))
    order = view.horizontalHeader().sortIndicatorOrder()
    values = [proxy.index(r, column).data(Qt.ItemDataRole.UserRole + 1) for r in range(proxy.rowCount())]
    expected = sorted(demo.per_query.model.frame["dense"], reverse=order == Qt.SortOrder.DescendingOrder)
    assert values == expected
    assert view.horizontalHeader().sortIndicatorSection() == column


def _section_centre(header, logical):
    from PySide6.QtCore import QPoint

    return QPoint(header.sectionViewportPosition(logical) + header.sectionSize(logical) // 2, header.height() // 2)


def test_sort_uses_raw_values_not_display_text(qtbot):
    from evalgui.gui.tables import DataFrameModel, FrameTableView

    frame = pd.DataFrame({"q": ["a", "b", "c", "d"], "v": [0.10004, 0.10001, 0.09, math.nan]})
    view = FrameTableView(DataFrameModel(frame, precision=2))
    qtbot.addWidget(view)
    view.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    order = [view.proxy.index(r, 0).data() for r in range(4)]
    assert order == ["d", "c", "b", "a"]          # NaN first, then 0.09 < 0.10001 < 0.10004 (both shown "0.10")


# ---------------------------------------------------------------------------- copy
def test_copy_selection_as_tsv_with_header_and_full_precision(qtbot, demo):
    from PySide6.QtGui import QGuiApplication

    view = demo.summary.view
    model = view.model()
    selection = view.selectionModel()
    selection.clearSelection()
    for r in (0, 2):
        for c in (0, 1, 3):
            selection.select(model.index(r, c), QItemSelectionModel.SelectionFlag.Select)
    text = view.selection_tsv()
    lines = text.rstrip("\n").split("\n")
    frame = demo.summary.model.frame
    columns = [frame.columns[c] for c in (0, 1, 3)]
    assert lines[0].split("\t") == columns
    for line, r in zip(lines[1:], (0, 2)):
        cells = line.split("\t")
        assert cells[0] == frame.iloc[r, 0]
        assert float(cells[1]) == frame.iloc[r, 1] and cells[1] == repr(float(frame.iloc[r, 1]))
        assert float(cells[2]) == frame.iloc[r, 3]
    assert len(lines) == 3

    view.setFocus()
    view.copy_selection()
    assert QGuiApplication.clipboard().text() == text


def test_copy_of_a_sorted_view_follows_the_view(qtbot, demo):
    view = demo.summary.view
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    view.selectAll()
    lines = view.selection_tsv().rstrip("\n").split("\n")
    frame = demo.summary.model.frame.sort_values("map", ascending=False)
    assert [line.split("\t")[0] for line in lines[1:]] == list(frame["run"])


def test_copy_with_nothing_selected_is_empty(qtbot, demo):
    demo.summary.view.selectionModel().clearSelection()
    assert demo.summary.view.selection_tsv() == ""
