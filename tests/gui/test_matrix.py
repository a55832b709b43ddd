"""Matrix views: coloured table model, table view (copy, export) and heatmap, which agree on colours."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QEvent, QItemSelectionModel, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QHelpEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QToolTip

from evalgui.gui.matrix import HeatmapPlot, MatrixModel, MatrixView, colour_map, contrast_text

RUNS = ["bm25", "dense", "rerank"]


def _frame(values, rows=RUNS, columns=RUNS) -> pd.DataFrame:
    frame = pd.DataFrame(np.asarray(values, dtype=float), index=list(rows), columns=list(columns))
    frame.index.name = "run"
    return frame


MIXED = _frame([[0.0, 0.08, -0.02], [-0.08, 0.0, 0.1], [0.02, -0.1, 0.0]])


def _colour(model, r, c) -> QColor:
    return model.data(model.index(r, c), Qt.ItemDataRole.BackgroundRole)


def _luminance(colour: QColor) -> float:
    return 0.2126 * colour.redF() + 0.7152 * colour.greenF() + 0.0722 * colour.blueF()


# ---------------------------------------------------------------------------- model
def test_headers_are_the_row_and_column_labels(qtbot):
    model = MatrixModel(_frame(np.zeros((2, 3)), rows=["a", "b"], columns=RUNS))
    assert (model.rowCount(), model.columnCount()) == (2, 3)
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == RUNS
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(2)] == ["a", "b"]


def test_fixed_levels_keep_colours_across_updates_and_clip(qtbot):
    model = MatrixModel(MIXED, levels=(-0.1, 0.1))
    assert model.diverging and model.levels == (-0.1, 0.1)
    before = _colour(model, 0, 1).getRgb()                    # 0.08
    model.set_frame(_frame([[0.08, 0.5, -0.5], [0.0, 0.1, -0.1], [0.2, -0.2, 0.08]]))
    assert _colour(model, 0, 0).getRgb() == before            # the same value, the same colour
    assert _colour(model, 2, 2).getRgb() == before
    # Beyond the levels the colour is the end of the scale.
    assert _colour(model, 0, 1).getRgb() == _colour(model, 1, 1).getRgb()
    assert _colour(model, 0, 2).getRgb() == _colour(model, 1, 2).getRgb()
    assert model.levels == (-0.1, 0.1)


def test_diverging_scale_is_white_at_zero_and_blue_to_red(qtbot):
    model = MatrixModel(MIXED)
    assert model.diverging and model.levels == (-0.1, 0.1)    # symmetric around 0 by default
    centre = _colour(model, 0, 0)
    assert min(centre.red(), centre.green(), centre.blue()) >= 240
    low, high = _colour(model, 2, 1), _colour(model, 1, 2)    # -0.1 and 0.1
    assert low.blue() > low.red() and high.red() > high.blue()
    # Asymmetric fixed levels still put white at 0.
    model.set_levels((-0.05, 0.2))
    centre = _colour(model, 0, 0)
    assert min(centre.red(), centre.green(), centre.blue()) >= 240


def test_sequential_scale_when_values_keep_their_sign(qtbot):
    model = MatrixModel(_frame([[0.1, 0.5, 0.9], [0.2, 0.3, 0.4], [0.6, 0.7, 0.8]]))
    assert not model.diverging and model.levels == (0.1, 0.9)
    assert _luminance(_colour(model, 0, 0)) > _luminance(_colour(model, 0, 2))   # light low, dark high
    forced = MatrixModel(_frame([[0.1, 0.5, 0.9]] * 3), diverging=True)
    assert forced.diverging and forced.levels == (-0.9, 0.9)


def test_text_stays_readable_on_its_background(qtbot):
    model = MatrixModel(MIXED, levels=(-0.1, 0.1))
    fg = lambda r, c: model.data(model.index(r, c), Qt.ItemDataRole.ForegroundRole)   # noqa: E731
    assert fg(0, 0) == QColor("black")               # white-ish centre: dark text
    assert fg(1, 2) == QColor("white")               # dark red: light text
    assert fg(2, 1) == QColor("white")               # dark blue: light text
    assert contrast_text(QColor("#ffff00")) == QColor("black")
    assert contrast_text(QColor("#000080")) == QColor("white")


def test_masked_diagonal_is_empty_and_grey(qtbot):
    model = MatrixModel(MIXED, mask_diagonal=True)
    for i in range(3):
        index = model.index(i, i)
        assert model.data(index, Qt.ItemDataRole.DisplayRole) == ""
        grey = model.data(index, Qt.ItemDataRole.BackgroundRole)
        assert grey.red() == grey.green() == grey.blue() < 240
        assert model.value(i, i) is None
    assert model.data(model.index(0, 1), Qt.ItemDataRole.DisplayRole) == "0.080"
    assert math.isnan(model.shown_frame().iloc[1, 1])


def test_fixed_precision_nan_empty_marks_and_tooltips(qtbot):
    frame = _frame([[0.123456, math.nan, -0.5], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    marks = pd.DataFrame({"rerank": ["*", "", "**"], "bm25": ["", "*", None]}, index=RUNS)
    tips = pd.DataFrame({"dense": ["p = 0.01", None, None]}, index=RUNS)
    model = MatrixModel(precision=2)
    model.set_frame(frame, marks=marks, tooltips=tips)
    text = lambda r, c: model.data(model.index(r, c), Qt.ItemDataRole.DisplayRole)   # noqa: E731
    tip = lambda r, c: model.data(model.index(r, c), Qt.ItemDataRole.ToolTipRole)    # noqa: E731
    assert text(0, 0) == "0.12" and text(0, 1) == "" and text(0, 2) == "-0.50*"     # NaN: blank, never "nan"
    assert text(1, 0) == "1.00*" and text(2, 2) == "0.00**"
    assert model.data(model.index(0, 1), Qt.ItemDataRole.BackgroundRole) is None     # NaN: no colour
    model.undefined_text = "–"            # a matrix whose empty cells are undefined values says so
    model.set_frame(frame, marks=marks, tooltips=tips)
    assert text(0, 1) == "–"
    assert tip(0, 1) == "p = 0.01"
    assert tip(0, 0) == "bm25 · bm25: 0.123456"                                        # the full value
    assert tip(0, 1) and tip(1, 1) is not None


def test_view_does_not_sort(qtbot):
    model = MatrixModel(MIXED)
    view = MatrixView(model)
    qtbot.addWidget(view)
    assert not view.isSortingEnabled()
    view.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    model.sort(1, Qt.SortOrder.AscendingOrder)
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(3)] == RUNS
    assert not view.verticalHeader().isHidden()             # the row labels


# ---------------------------------------------------------------------------- view: copy and export
def test_ctrl_c_copies_the_selection_as_tsv_with_labels(qtbot):
    model = MatrixModel(MIXED, mask_diagonal=True)
    view = MatrixView(model)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    selection = view.selectionModel()
    for r in (0, 1):
        for c in (1, 2):
            selection.select(model.index(r, c), QItemSelectionModel.SelectionFlag.Select)
    view.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QGuiApplication.clipboard().text()
    assert text == "\tdense\trerank\nbm25\t0.08\t-0.02\ndense\t\t0.1\n"     # (1, 1) is masked
    assert text == view.selection_tsv()


def test_export_csv_has_row_labels_and_is_atomic(qtbot, tmp_path, monkeypatch):
    model = MatrixModel(MIXED, mask_diagonal=True)
    view = MatrixView(model, name="run_by_run")
    qtbot.addWidget(view)
    asked = []

    def save_as(parent, caption, start, filters):
        asked.append((start, filters))
        return str(tmp_path / "matrix"), "CSV (*.csv)"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    view.export_dialog()
    assert asked and asked[0][0].endswith("Run by run.csv") and "LaTeX (*.tex)" in asked[0][1]     # words
    assert sorted(os.listdir(tmp_path)) == ["evalgui-settings.ini", "matrix.csv"]   # no temporary file left
    lines = (tmp_path / "matrix.csv").read_text().splitlines()
    assert lines[0] == "Run,bm25,dense,rerank"
    assert lines[1] == "bm25,,0.08,-0.02"
    back = pd.read_csv(tmp_path / "matrix.csv", index_col=0)
    pd.testing.assert_frame_equal(back, model.shown_frame(), check_names=False)


# ---------------------------------------------------------------------------- heatmap
def test_heatmap_image_levels_and_labels_follow_the_model(qtbot):
    model = MatrixModel(levels=(-0.2, 0.2), mask_diagonal=True)
    plot = HeatmapPlot(model)
    qtbot.addWidget(plot)
    model.set_frame(MIXED)
    k = plot.cell_pixels
    image = plot.image.image
    assert image.shape == (3 * k, 3 * k, 4)
    np.testing.assert_array_equal(image[::k, ::k], model.rgba())            # the table's colours
    assert tuple(plot.colour_bar.levels()) == (-0.2, 0.2)
    assert plot.getPlotItem().getViewBox().state["yInverted"]                # row 0 at the top
    rect = plot.image.mapRectToParent(plot.image.boundingRect())
    assert (rect.left(), rect.top(), rect.width(), rect.height()) == (-0.5, -0.5, 3, 3)
    top = plot.getPlotItem().getAxis("top")._tickLevels[0]
    left = plot.getPlotItem().getAxis("left")._tickLevels[0]
    assert top == [(0, "bm25"), (1, "dense"), (2, "rerank")] and [t for _, t in left] == RUNS
    assert plot.value_labels() == ["0.080", "-0.020", "-0.080", "0.100", "0.020", "-0.100"]
    # The colour bar shows the model's map.
    lut = plot.colour_bar.colorMap().getLookupTable(nPts=3, mode="byte")
    assert tuple(lut[0][:3]) == tuple(model.colour_map.map(0.0, mode="byte")[:3])

    model.set_levels((-1, 1))
    assert tuple(plot.colour_bar.levels()) == (-1, 1)


# ---------------------------------------------------------------------------- heatmap: 30 runs
N = 30
NAMES = [f"{kind}_{i:02d}" for i, kind in zip(range(N), ["bm25", "bm25+rm3", "dense_tasb", "monoT5_rerank"] * 8)]


def _big(qtbot, width, height, **kwargs) -> HeatmapPlot:
    """A 30 x 30 run matrix, masked diagonal, a "*" on a third of the cells, shown at width x height."""
    rng = np.random.default_rng(1)
    values = rng.normal(0, 0.05, (N, N))
    values = values - values.T
    marks = pd.DataFrame(np.where(rng.random((N, N)) < 0.33, "*", ""), index=NAMES, columns=NAMES)
    plot = HeatmapPlot(MatrixModel(mask_diagonal=True), **kwargs)
    qtbot.addWidget(plot)
    plot.set_frame(_frame(values, rows=NAMES, columns=NAMES), marks=marks)
    _resize(qtbot, plot, width, height)
    return plot


def _resize(qtbot, plot, width, height) -> None:
    before = plot.cell_texts.cell_size()
    plot.resize(width, height)
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.waitUntil(lambda: plot.cell_texts.cell_size() != before and plot.cell_texts.cell_size()[0] > 0)


def _marked(plot) -> int:
    model = plot.model
    return sum(1 for r in range(N) for c in range(N) if model.mark(r, c))


def test_cells_show_their_values_or_else_their_marks_at_any_size(qtbot):
    plot = _big(qtbot, 2600, 1800)                     # cells ~80 x 50 px: every value
    labels = plot.value_labels()
    assert not plot.marks_only() and len(labels) == N * (N - 1)
    assert sum(t.endswith("*") for t in labels) == _marked(plot) and "*" not in labels     # value and mark
    _resize(qtbot, plot, 700, 560)                     # cells ~15 x 12 px (a 30-run matrix on a laptop)
    assert plot.marks_only() and plot.value_labels() == ["*"] * _marked(plot) and _marked(plot) > 200
    _resize(qtbot, plot, 140, 120)                     # cells of a pixel or two: nothing fits
    assert plot.value_labels() == []
    never = _big(qtbot, 2600, 1800, show_values=False)
    assert never.value_labels() == []


def test_column_labels_stand_on_end_and_labels_never_collide(qtbot):
    from PySide6.QtGui import QFontMetricsF

    plot = _big(qtbot, 700, 560)
    item = plot.getPlotItem()
    top, left = item.getAxis("top"), item.getAxis("left")
    assert plot.column_labels_on_end()
    font, on_end, placed = top.placed()
    widest = max(QFontMetricsF(font).horizontalAdvance(name) for name in NAMES)
    assert on_end and top.height() >= widest                             # tall enough for them on end
    # On end, neighbouring labels are a cell apart: their lines must fit that (else every other one)
    for axis in (top, left):
        font, _, placed = axis.placed()
        positions = [anchor.x() if axis is top else anchor.y() for anchor, _ in placed]
        gaps = np.abs(np.diff(positions))
        assert len(placed) >= N // 2 and gaps.min() >= QFontMetricsF(font).height() - 0.5, axis.orientation
    # the labels drawn are the names, whole (they are short), every step-th
    shown = plot.shown_labels("top")
    step = N // len(shown) if len(shown) < N else 1
    assert shown == NAMES[::step]
    # a few short names lie flat above their columns
    small = HeatmapPlot(MatrixModel(MIXED, mask_diagonal=True))
    qtbot.addWidget(small)
    _resize(qtbot, small, 500, 400)
    assert not small.column_labels_on_end() and small.shown_labels("top") == RUNS
    flat = small.getPlotItem().getAxis("top")
    assert flat.height() < 2 * QFontMetricsF(flat.base_font()).height()


def test_long_labels_are_shortened_and_hover_shows_them_whole(qtbot):
    long_names = [f"run {i}: BM25 with RM3 expansion, fb_docs=10, fb_terms=20, k1=0.9, b=0.4" for i in range(N)]
    plot = _big(qtbot, 900, 700)
    frame = plot.model.frame.copy()
    frame.index, frame.columns = long_names, long_names
    plot.set_frame(frame, tooltips=pd.DataFrame("the pair's details", index=long_names, columns=long_names))
    _resize(qtbot, plot, 900, 700)
    for side in ("top", "left"):
        shown = plot.shown_labels(side)
        assert shown and all(t.endswith("…") and len(t) < len(long_names[0]) for t in shown), side
    item = plot.getPlotItem()
    top, left, view = item.getAxis("top"), item.getAxis("left"), item.getViewBox()
    # hovering a column label, a row label, a cell
    column = view.mapViewToScene(QPointF(7, 0))
    over_top = top.mapToScene(top.mapFromScene(column).x(), top.boundingRect().bottom() - 10)
    assert plot.hover_text(over_top) == long_names[7]
    row = view.mapViewToScene(QPointF(0, 11))
    over_left = left.mapToScene(left.boundingRect().right() - 10, left.mapFromScene(row).y())
    assert plot.hover_text(over_left) == long_names[11]
    assert plot.hover_text(view.mapViewToScene(QPointF(3, 4))) == "the pair's details"
    plot.scene().sigMouseMoved.emit(view.mapViewToScene(QPointF(3, 4)))
    assert plot.toolTip() == "the pair's details"


def test_hover_details_stay_when_qt_asks_for_a_tooltip(qtbot):
    # A resting pointer makes Qt send the view's viewport a ToolTip event; the scene then looked for a
    # graphics item with a tooltip of its own, found none and hid the cell's details ~1 s after they showed.
    plot = HeatmapPlot(MatrixModel())
    qtbot.addWidget(plot)
    plot.set_frame(MIXED, tooltips=pd.DataFrame("the pair's details", index=RUNS, columns=RUNS))
    _resize(qtbot, plot, 500, 400)
    view = plot.getPlotItem().getViewBox()
    scene_point = view.mapViewToScene(QPointF(1, 2))
    viewport = plot.viewport()
    local = plot.mapFromScene(scene_point)      # viewport coordinates
    plot.scene().sigMouseMoved.emit(scene_point)
    qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text() == "the pair's details")
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, local, viewport.mapToGlobal(local)))
    # Qt hides a tooltip 300 ms after it is told to: still there well after that
    later = QTimer(plot, singleShot=True, interval=800)
    with qtbot.waitSignal(later.timeout):
        later.start()
    assert QToolTip.isVisible() and QToolTip.text() == "the pair's details"
    # over nothing (the colour bar), the details go
    corner = QPoint(viewport.width() - 3, 3)
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, corner, viewport.mapToGlobal(corner)))
    qtbot.waitUntil(lambda: not QToolTip.isVisible())


def test_reversed_palette_makes_small_p_values_dark(qtbot):
    p_values = _frame([[0.0, 0.001, 0.9], [0.001, 0.0, 0.04], [0.9, 0.04, 0.0]])
    model = MatrixModel(p_values, levels=(0.0, 1.0), diverging=False, mask_diagonal=True)
    assert _luminance(_colour(model, 0, 1)) > _luminance(_colour(model, 0, 2))     # default: small is light
    model.set_reverse(True)
    assert model.reverse
    assert _luminance(_colour(model, 0, 1)) < _luminance(_colour(model, 1, 2)) < _luminance(_colour(model, 0, 2))
    plot = HeatmapPlot(model)
    qtbot.addWidget(plot)
    lut = plot.colour_bar.colorMap().getLookupTable(nPts=2, mode="byte")
    assert tuple(lut[0][:3]) == tuple(model.colour_map.map(0.0, mode="byte")[:3])      # the bar agrees
    assert MatrixModel(p_values, reverse=True, diverging=False).reverse
    assert colour_map(False, (0, 1), reverse=True).map(0.0, mode="byte")[:3].tolist() == \
        colour_map(False, (0, 1)).map(1.0, mode="byte")[:3].tolist()


def test_a_30_run_heatmap_exports_its_marks_and_labels(qtbot, tmp_path):
    from evalgui.gui.plots import export_plot

    plot = _big(qtbot, 700, 560)
    path = tmp_path / "big.svg"
    export_plot(plot, str(path))
    text = path.read_text(encoding="utf-8")
    assert text.count(">*<") == _marked(plot)
    assert all(name in text for name in plot.shown_labels("top"))
    export_plot(plot, str(tmp_path / "big.png"))
    assert (tmp_path / "big.png").stat().st_size > 5000


@pytest.mark.parametrize("ext", [".png", ".svg"])
def test_heatmap_exports(qtbot, tmp_path, ext):
    from evalgui.gui.plots import export_plot

    plot = HeatmapPlot(MatrixModel(MIXED, mask_diagonal=True))
    qtbot.addWidget(plot)
    plot.resize(400, 320)
    plot.show()
    qtbot.waitExposed(plot)
    path = tmp_path / f"heatmap{ext}"
    export_plot(plot, str(path))
    data = path.read_bytes()
    assert len(data) > 1000
    if ext == ".png":
        assert data[:4] == b"\x89PNG"
    else:
        text = data.decode("utf-8")
        assert "<svg" in text and "rerank" in text and "0.080" in text


def test_colour_map_puts_white_at_zero():
    cmap = colour_map(True, (-1.0, 3.0))
    white = cmap.map(0.25, mode="byte")            # 0 is a quarter of the way from -1 to 3
    assert min(white[:3]) >= 240
    assert tuple(colour_map(False, (0, 1)).map(0.0, mode="byte")[:3]) != tuple(white[:3])
