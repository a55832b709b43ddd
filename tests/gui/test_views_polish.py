"""The ranked workspace's form and result views, as a new user met them (issue 9, points 2, 3, 9, 10):
per-query exports that name their measure, cutoffs checked while typed, frozen row labels, and the
small visible defects (export menu, combo boxes, axis prefixes, help filter, drill-down columns,
bold ties, exported legends, the About box)."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit

from tests.gui.conftest import (SYNTHETIC, SYNTHETIC_RUNS, load, load_synthetic, open_demo_and_wait,
                                run_and_wait)


@pytest.fixture
def demo(qtbot, window):
    return open_demo_and_wait(qtbot, window)


def _save_as(monkeypatch, path, chosen_filter=""):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), chosen_filter)))


def _picker_item(picker, name):
    return next(i for i in picker._items() if i.data(0, Qt.ItemDataRole.UserRole) == name)


def _bold(model, row, column) -> bool:
    font = model.data(model.index(row, column), Qt.ItemDataRole.FontRole)
    return font is not None and font.bold()


# ---------------------------------------------------------------------------- 2. per-query exports
def test_per_query_csv_export_reads_back_as_per_query_scores(qtbot, demo, window, tmp_path, monkeypatch):
    from evalgui.core.inputs.scores import read_per_query_scores

    view = demo.per_query
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    path = tmp_path / "exported.csv"
    _save_as(monkeypatch, path)
    view.view.export_dialog()

    scores = read_per_query_scores(path)
    # the measure as the window names it (View ▸ Measure names: papers by default), which evalgui-cli reads too
    assert scores.measures == ["P@10"] and scores.runs == list(SYNTHETIC_RUNS)
    wide = view.model.frame.set_index("query")
    assert scores.matrix("P@10").equals(wide[list(SYNTHETIC_RUNS)].rename_axis(index="query", columns="run"))
    # The window reads it as what it is.
    load(qtbot, window, [path])
    assert window.session.find(str(path)).kind == "per-query scores"


def test_per_query_export_follows_the_view_and_leaves_out_queries_a_run_lacks(qtbot, window, tmp_path,
                                                                                monkeypatch):
    lines = (SYNTHETIC / "dense.run").read_text().splitlines()
    (tmp_path / "partial.run").write_text("\n".join(l for l in lines if not l.startswith("112 ")) + "\n")
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run", tmp_path / "partial.run"])
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    view = ranked.per_query
    qtbot.keyClicks(view.filter, "11")
    view.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    path = tmp_path / "per_query.tsv"
    _save_as(monkeypatch, path)
    view.view.export_dialog()

    back = pd.read_csv(path, sep="\t", dtype={"Query": str})
    assert list(back.columns) == ["Run", "Query", "Measure", "Value"] and set(back["Measure"]) == {"AP"}
    shown = [view.view.proxy.index(r, 0).data() for r in range(view.view.proxy.rowCount())]
    assert list(back.loc[back["Run"] == "bm25", "Query"]) == shown          # the view's filter and order
    assert list(back.loc[back["Run"] == "partial", "Query"]) == [q for q in shown if q != "112"]


def test_per_query_latex_export_names_the_measure(qtbot, demo, tmp_path, monkeypatch):
    view = demo.per_query
    view.measure.setCurrentIndex(view.measure.findData("ndcg_cut_10"))
    path = tmp_path / "table"
    captured = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (captured.append(a[2]), (str(path), "LaTeX (*.tex)"))[1]))
    view.view.export_dialog()
    assert captured[0].endswith("Per query - nDCG@10.csv")              # the measure in the offered name
    lines = (tmp_path / "table.tex").read_text().splitlines()
    assert lines[2].startswith("Query & Measure & bm25")
    assert lines[4].startswith("101 & nDCG@10 & ")


# ---------------------------------------------------------------------------- 3. cutoffs checked while typed
def _edit_parameters(qtbot, picker, name):
    """Double-click the measure's Parameters cell, as a user does; the cell's editor."""
    window = picker.window()
    window.tabs.setCurrentWidget(window.workspaces["ranked"])
    item = _picker_item(picker, name)
    picker.tree.scrollToItem(item)
    rect = picker.tree.visualItemRect(item)
    x = picker.tree.header().sectionViewportPosition(1) + 10
    cell = QPoint(x, rect.center().y())
    # A double click is a click then a double-click event (QTest sends only the latter).
    qtbot.mouseClick(picker.tree.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.mouseDClick(picker.tree.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.waitUntil(lambda: picker.tree.findChild(QLineEdit, "parametersEditor") is not None)
    return item, picker.tree.findChild(QLineEdit, "parametersEditor")


def test_a_bad_cutoff_is_marked_while_typed_and_not_kept(qtbot, window):
    picker = window.workspaces["ranked"].form.picker
    item, editor = _edit_parameters(qtbot, picker, "map_cut")
    before = item.text(1)
    editor.selectAll()
    qtbot.keyClicks(editor, "5,x,-3")
    assert editor.property("invalid") is True and "'x' is not a number" in editor.toolTip()
    assert "is not valid for map_cut: 'x' is not a number" in picker.help.toPlainText()
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: picker.tree.findChild(QLineEdit, "parametersEditor") is None)   # closed (queued)
    assert item.text(1) == before                                          # not kept
    assert "Not changed" in picker.help.toPlainText() and "map_cut keeps" in picker.help.toPlainText()

    item, editor = _edit_parameters(qtbot, picker, "map_cut")
    editor.selectAll()
    qtbot.keyClicks(editor, "5,-3")
    assert editor.property("invalid") is True and "positive" in picker.help.toPlainText()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClicks(editor, "20")
    assert editor.property("invalid") is False
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: picker.tree.findChild(QLineEdit, "parametersEditor") is None)
    item.setCheckState(0, Qt.CheckState.Checked)
    assert item.text(1) == "5,20" and "map_cut.5,20" in picker.specs()


def test_the_add_box_marks_what_it_refuses(qtbot, window):
    picker = window.workspaces["ranked"].form.picker
    qtbot.keyClicks(picker.custom, "P@x")
    qtbot.keyClick(picker.custom, Qt.Key.Key_Return)
    assert picker.custom.property("invalid") is True and "Not a measure" in picker.help.toPlainText()
    qtbot.keyClick(picker.custom, Qt.Key.Key_Backspace)                   # typing clears the mark
    assert picker.custom.property("invalid") is False


def test_run_with_a_bad_measure_is_refused_and_keeps_the_results(qtbot, demo, window):
    summary = demo.summary.model.frame.copy()
    per_query = demo.per_query.model.frame.copy()
    item = _picker_item(demo.form.picker, "map_cut")
    item.setText(1, "5,x,-3")                     # e.g. from an old project: the editor was never used
    item.setCheckState(0, Qt.CheckState.Checked)
    with qtbot.waitSignal(window.error_shown, timeout=5000) as shown:
        qtbot.mouseClick(demo.run_button, Qt.MouseButton.LeftButton)
    assert "map_cut.5,x,-3" in shown.args[1] and "'x' is not a number" in shown.args[1]
    assert not demo.is_busy()
    pd.testing.assert_frame_equal(demo.summary.model.frame, summary)
    pd.testing.assert_frame_equal(demo.per_query.model.frame, per_query)
    assert demo.curves.plot.runs() == list(SYNTHETIC_RUNS)

    demo.form.picker.set_checked({})
    with qtbot.waitSignal(window.error_shown, timeout=5000) as shown:
        demo.run()
    assert shown.args[0] == "Nothing to evaluate" and "measure" in shown.args[1]
    pd.testing.assert_frame_equal(demo.summary.model.frame, summary)


# ---------------------------------------------------------------------------- 9. frozen row labels
def _cell_at_left_edge(view, row):
    """The (widget, text) a user sees at the table's left edge on ``row``: what is drawn on top there."""
    point = QPoint(view.viewport().x() + 5, view.viewport().y() + view.rowViewportPosition(row) + 5)
    widget = view.childAt(point)
    inner = widget.mapFrom(view, point)
    table = widget.parent()
    return table.indexAt(inner).data()


def _header_at_left_edge(view):
    point = QPoint(view.viewport().x() + 5, view.horizontalHeader().y() + 5)
    header = view.childAt(point)
    while header is not None and not hasattr(header, "logicalIndexAt"):
        header = header.parent()
    return header, header.model().headerData(header.logicalIndexAt(header.mapFrom(view, point)),
                                              Qt.Orientation.Horizontal)


@pytest.fixture
def wide_summary(qtbot, window):
    load_synthetic(qtbot, window)
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": "", "P": "5,10,15,20,30,100,200,500,1000", "ndcg_cut": "5,10,15,20,30"})
    run_and_wait(qtbot, ranked)
    return ranked


def test_row_labels_stay_in_sight_when_a_wide_summary_scrolls_right(qtbot, wide_summary):
    view = wide_summary.summary.view
    bar = view.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    assert view.columnViewportPosition(0) < -view.columnWidth(0) + 5  # the table's own run column is out of sight
    assert [_cell_at_left_edge(view, r) for r in range(4)] == list(SYNTHETIC_RUNS)
    header, text = _header_at_left_edge(view)
    assert text == "Run"

    # Its header sorts the table; copy and export still have the run column.
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, header.height() // 2))
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, header.height() // 2))
    assert [_cell_at_left_edge(view, r) for r in range(4)] == sorted(SYNTHETIC_RUNS, reverse=True)
    view.selectAll()
    lines = view.selection_tsv().splitlines()
    assert lines[0].split("\t")[:2] == ["run", "map"]
    assert [line.split("\t")[0] for line in lines[1:]] == sorted(SYNTHETIC_RUNS, reverse=True)
    exported = view.exported("csv")
    assert list(exported["run"]) == sorted(SYNTHETIC_RUNS, reverse=True)
    assert list(exported.columns) == list(wide_summary.summary.model.frame.columns)


def test_clicking_a_frozen_row_label_selects_the_row_in_the_table(qtbot, wide_summary):
    view = wide_summary.summary.view
    frozen = view.frozen
    rect = frozen.visualRect(frozen.model().index(2, 0))
    qtbot.mouseClick(frozen.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert {i.row() for i in view.selectionModel().selectedIndexes()} == {2}
    assert view.selection_tsv().splitlines()[1] == "rerank"
    assert view.hasFocus()                                  # Ctrl+C goes to the table

    frozen.horizontalHeader().resizeSection(0, 150)        # the user widens the run column
    assert view.columnWidth(0) == 150 and frozen.width() == 150


def test_per_query_query_column_is_frozen_and_scrolls_with_the_rows(qtbot, demo):
    view = demo.per_query.view
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    last = view.rowAt(view.viewport().height() - 3)
    assert _cell_at_left_edge(view, last) == view.proxy.index(last, 0).data()


# ---------------------------------------------------------------------------- best value in bold
def test_a_best_value_is_bold_only_when_no_other_shows_the_same(qtbot):
    from evalgui.gui.tables import DataFrameModel

    frame = pd.DataFrame({"run": ["a", "b", "c"],
                          "tie": [0.5, 0.5, 0.1],              # an exact tie: no bold
                          "looks_tied": [0.00001, 0.0, -0.2],  # both shown 0.0000: no bold
                          "apart": [0.50006, 0.5, 0.1],        # 0.5001 beats 0.5000
                          "missing": [np.nan, 0.2, 0.3],
                          # 0.12355 is stored as 0.1235499...: shown 0.1235 like 0.12345 (0.1234500...)
                          "rounding": [0.12345, 0.12355, 0.1]})
    model = DataFrameModel(frame)
    assert model.display_text(0, 5) == model.display_text(1, 5) == "0.1235"
    bold = [[_bold(model, r, c) for c in range(6)] for r in range(3)]
    assert bold == [[False, False, False, True, False, False],
                    [False, False, False, False, False, False],
                    [False, False, False, False, True, False]]


def test_identical_runs_share_the_best_values_and_nothing_is_bold(qtbot, window, tmp_path):
    shutil.copy(SYNTHETIC / "bm25.run", tmp_path / "bm25_again.run")
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run", tmp_path / "bm25_again.run"])
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    summary, per_query = ranked.summary.model, ranked.per_query.model
    assert not any(_bold(summary, r, c) for r in range(2) for c in range(summary.columnCount()))
    assert not any(_bold(per_query, r, c) for r in range(per_query.rowCount()) for c in range(3))


def test_per_query_bold_is_the_one_best_shown_value_of_its_row(qtbot, demo):
    model = demo.per_query.model
    for r in range(model.rowCount()):
        texts = [model.display_text(r, c) for c in range(1, model.columnCount())]
        values = [float(t) for t in texts]
        bold = [c for c in range(1, model.columnCount()) if _bold(model, r, c)]
        if values.count(max(values)) == 1:
            assert bold == [1 + values.index(max(values))], (r, texts)
        else:
            assert bold == [], (r, texts)


# ---------------------------------------------------------------------------- 10. the small ones
def test_export_menu_opens_under_its_toolbar_button_or_at_the_pointer(qtbot, demo, window):
    from PySide6.QtGui import QCursor

    window.tabs.setCurrentWidget(demo)
    button = window.toolbar.widgetForAction(window.export_action)
    qtbot.mouseMove(button)                    # QTest clicks do not move the pointer; a user's do
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    menu = window.export_menu
    qtbot.waitUntil(menu.isVisible)
    assert menu.geometry().topLeft() == button.mapToGlobal(button.rect().bottomLeft())
    assert any("Summary" in a.text() for a in menu.actions())
    menu.close()

    qtbot.mouseMove(demo.results_tabs, QPoint(20, 40))       # room for the menu right of the pointer
    qtbot.waitUntil(lambda: not menu.isVisible())
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)     # the shortcut
    qtbot.waitUntil(menu.isVisible)
    assert menu.geometry().topLeft() == QCursor.pos()
    menu.close()


def test_the_curve_type_box_shows_its_longest_entry_whole(qtbot, demo, window):
    from PySide6.QtWidgets import QComboBox

    demo.results_tabs.setCurrentWidget(demo.curves.page)
    kind = demo.curves.kind
    whole = QComboBox()                        # the same entries, sized to show them whole
    for i in range(kind.count()):
        whole.addItem(kind.itemText(i))
    whole.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    qtbot.addWidget(whole)
    qtbot.waitUntil(kind.isVisible)
    assert kind.width() >= whole.sizeHint().width()


def test_no_plot_axis_gets_an_si_prefix(qtbot, window):
    import pyqtgraph as pg

    from tests.gui.conftest import MEIC

    load(qtbot, window, [MEIC / "information_systems.qrels", MEIC / "base.run", MEIC / "enhanced.run"])
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    ranked.results_tabs.setCurrentWidget(ranked.differences.page)
    chart = ranked.differences.chart
    assert len(chart.frame) == 1                             # the tutorial has one query
    item = chart.getPlotItem()
    for side in ("left", "bottom"):
        assert "(x" not in item.getAxis(side).labelString(), item.getAxis(side).labelString()
    plots = window.findChildren(pg.PlotWidget)
    assert len(plots) >= 3                                   # curves, differences, heatmap
    for plot in plots:
        for side in ("left", "bottom", "right", "top"):
            assert not plot.getPlotItem().getAxis(side).autoSIPrefix, (plot.objectName(), side)


def test_measures_reference_never_describes_an_entry_the_filter_hides(qtbot):
    from evalgui.gui.help import MeasuresReference

    dialog = MeasuresReference()
    qtbot.addWidget(dialog)
    dialog.show()
    first = dialog.record_of(dialog.tree.currentItem()).name
    qtbot.keyClicks(dialog.search, "ndcg_cut")
    shown = dialog.record_of(dialog.tree.currentItem())
    assert shown.name == "ndcg_cut" and first != "ndcg_cut"
    assert dialog.text.toPlainText().startswith("ndcg_cut")
    qtbot.keyClicks(dialog.search, "zzz")
    assert dialog.tree.currentItem() is None and "Nothing matches" in dialog.text.toPlainText()
    assert first not in dialog.text.toPlainText().split()


def test_the_picker_help_never_describes_a_measure_the_filter_hides(qtbot, window):
    picker = window.workspaces["ranked"].form.picker
    picker.tree.setCurrentItem(_picker_item(picker, "map"))
    assert picker.help.toPlainText().startswith("AP")           # as papers write it (trec_eval: map)
    qtbot.keyClicks(picker.search, "bpref")
    assert picker.tree.currentItem().data(0, Qt.ItemDataRole.UserRole) == "bpref"
    assert picker.help.toPlainText().startswith("Bpref")
    qtbot.keyClicks(picker.search, "zzz")
    assert picker.tree.currentItem() is None and "No measure matches" in picker.help.toPlainText()


def _drill_columns_whole(view) -> bool:
    """Every column in sight without scrolling, each but the docs (elided) as wide as its texts."""
    header, model, metrics = view.horizontalHeader(), view.source_model, view.fontMetrics()
    if header.length() > view.viewport().width():
        return False
    for c in range(model.columnCount()):
        texts = [str(model.headerData(c, Qt.Orientation.Horizontal))]
        texts += [model.display_text(r, c) for r in range(min(model.rowCount(), 40))]
        if c != 1 and view.columnWidth(c) < max(metrics.horizontalAdvance(t) for t in texts) + 6:
            return False
    return True


@pytest.mark.parametrize("size", [(1360, 860), (1920, 1000)])
def test_drill_down_shows_every_column_at_the_default_size(qtbot, window, size):
    window.resize(*size)
    ranked = open_demo_and_wait(qtbot, window)
    drill = ranked.drill_down
    ranked.results_tabs.setCurrentWidget(drill.page)
    qtbot.waitUntil(lambda: drill.model_a.rowCount() > 0 and drill.model_b.rowCount() > 0)
    assert list(drill.model_a.frame.columns) == ["rank", "doc", "judgment", "grade", "score", "rank in B"]
    qtbot.waitUntil(lambda: _drill_columns_whole(drill.view_a) and _drill_columns_whole(drill.view_b))
    # Side by side where both fit, one above the other where they do not.
    wide = size[0] >= 1920
    assert drill.sides.orientation() == (Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)


def test_exported_png_legend_scales_with_the_image(qtbot, tmp_path):
    from PySide6.QtGui import QColor, QImage

    from evalgui.gui.plots import PALETTE, PrecisionRecallPlot, export_plot

    plot = PrecisionRecallPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 400)
    plot.show()
    plot.set_run("bm25", {})          # no curve: the run's colour is only in the legend's sample line

    def sample_width(image: QImage) -> int:
        colour = QColor(PALETTE[0])
        image = image.convertToFormat(QImage.Format.Format_RGB888)
        pixels = np.frombuffer(image.constBits(), np.uint8)
        pixels = pixels.reshape(image.height(), image.bytesPerLine())[:, :image.width() * 3]
        pixels = pixels.reshape(image.height(), image.width(), 3).astype(int)
        close = (np.abs(pixels - [colour.red(), colour.green(), colour.blue()]).sum(axis=2) < 60)
        columns = np.flatnonzero(close.any(axis=0))
        return int(columns[-1] - columns[0] + 1)

    on_screen = sample_width(plot.grab().toImage())
    export_plot(plot, str(tmp_path / "pr.png"))
    exported = QImage(str(tmp_path / "pr.png"))
    scale = exported.width() / plot.width()
    assert scale >= 1.5
    assert sample_width(exported) == pytest.approx(on_screen * scale, rel=0.15)


def test_differences_are_drawn_again_only_when_the_chosen_pair_changes(qtbot, demo, monkeypatch):
    view = demo.differences
    drawn = []
    original = view.chart.set_differences
    monkeypatch.setattr(view.chart, "set_differences", lambda *a, **k: (drawn.append(a[1:3]), original(*a, **k)))
    view.refresh(demo.results_set)                 # e.g. another run arrived: the pair shown is the same
    assert drawn == []
    view.measure.setCurrentIndex(view.measure.findData("P_10"))
    assert drawn == [(view.run.currentData(), view.baseline.currentData())]
    assert view.chart.getPlotItem().getAxis("left").labelText.startswith("P@10")
