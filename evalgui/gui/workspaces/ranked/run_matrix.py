"""Run × run tab: for one measure, the mean per-query difference between every two runs.

Row minus column, over the queries both runs have, as a coloured table and a heatmap
that share one colour scale. The numbers are the ranked workflow's ``run_matrix`` table
(:class:`evalgui.core.workflows.ranked.RunPairs`), read from the results, never computed here.
No tests of significance here: that is the comparison workspace's job.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QPushButton, QSplitter

from evalgui.core.ranked.jobs import ResultSet
from evalgui.gui.matrix import EveryLabelArea, HeatmapPlot, MatrixModel, MatrixView, nice_limit, on_cell_activated
from evalgui.gui.naming import label as shown_name
from evalgui.gui.result_views import LazyView
from evalgui.gui.toolbar import ChoiceBox, with_toolbar

def matrix_of(table: pd.DataFrame, measure: str, runs: list[str]):
    """One measure's cells of the workflow's run × run table (tidy rows) laid out runs × runs: the
    differences, the shared query counts and the cells' tooltips. Only reshaped, never computed."""
    part = table[table["measure"] == measure]
    grid = {column: part.pivot(index="row", columns="column", values=column).reindex(index=runs, columns=runs)
            for column in ("diff", "n_queries", "mean_row", "mean_column")}
    frame, shared = grid["diff"].astype(float), grid["n_queries"]
    tips = pd.DataFrame(
        [[_tip(a, b, measure, frame.at[a, b], shared.at[a, b], grid["mean_row"].at[a, b],
               grid["mean_column"].at[a, b]) for b in runs] for a in runs], index=runs, columns=runs)
    return frame, shared, tips


def _tip(a: str, b: str, measure: str, diff, shared, mean_a, mean_b) -> str:
    if pd.isna(shared) or not shared:
        return f"{a} and {b} share no query with a value of {shown_name(measure)}"
    return (f"{a} − {b}: {diff:+.4f} ({shown_name(measure)}, mean over {int(shared)} shared queries: "
            f"{mean_a:.4f} against {mean_b:.4f})")


class RunMatrixView(LazyView):
    title = "Run × run"

    def __init__(self):
        super().__init__()
        self.results = ResultSet()
        self.measure = ChoiceBox("runMatrixMeasure")
        self.measure.currentIndexChanged.connect(lambda _: self._show())
        self.model = MatrixModel(mask_diagonal=True, diverging=True, precision=3)
        self.model.undefined_text = "–"        # no decision / no shared query: undefined, said so
        self.table = MatrixView(self.model, name="run_by_run")
        self.table.setObjectName("runMatrixTable")
        self.heatmap = HeatmapPlot(self.model)
        self.heatmap.setObjectName("runMatrixHeatmap")
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        export = QPushButton("Export plot…")
        export.clicked.connect(self.export_plot_dialog)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.table)
        sides.addWidget(EveryLabelArea(self.heatmap))
        sides.setSizes([5000, 6000])     # proportions: room for the table's numbers and a readable heatmap
        self.sides = sides
        self.pair_view = None            # made when a cell is first opened
        self.on_queries_selected = None  # the workspace's: (queries, row run, column run) selected in the pair
        on_cell_activated(self.open_pair, self.table, self.heatmap)
        self.page = with_toolbar(sides, [QLabel("Measure"), self.measure, export])
        self.page.layout().addWidget(self.caption)

    def _fit_table(self) -> None:
        """Give the table the width its columns need, so no scroll bar cuts it; the heatmap takes the rest
        (keeping at least a third of the room: with many runs the table scrolls instead)."""
        table, total = self.table, sum(self.sides.sizes())
        if total <= 0 or self.model.columnCount() == 0:
            return
        needed = (table.verticalHeader().sizeHint().width() + table.horizontalHeader().length()
                  + 2 * table.frameWidth() + 2)
        rows_height = table.horizontalHeader().sizeHint().height() + table.verticalHeader().length() \
            + 2 * table.frameWidth()
        if rows_height > table.height() > 0:        # a vertical scroll bar will take its width
            needed += table.verticalScrollBar().sizeHint().width()
        width = min(needed, total - max(total // 3, self.heatmap.minimumSizeHint().width()))
        self.sides.setSizes([max(width, 1), total - max(width, 1)])

    def export_plot_dialog(self) -> None:
        self.shown()
        from evalgui.gui.exporting import PLOT_FORMATS, export_dialog

        export_dialog(self.page, "run_by_run", PLOT_FORMATS, self.export_plot, title="Export plot")

    def export_plot(self, path: str) -> None:
        """The heatmap as PNG or SVG, titled with the measure and how to read it."""
        from evalgui.gui.matrix import export_heatmap

        self.shown()
        measure = self.measure.currentData() or ""
        export_heatmap(self.model, path, [
            f"{shown_name(measure)}: mean per-query difference, row run vs column run ({self.model.rowCount()} runs)",
            "No test of significance (the Compare workspace tests the pairs)",
            "Read as row minus column: red, the row run scores higher; blue, lower"])

    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()

    def choices(self) -> list[ChoiceBox]:
        return [self.measure]

    def refresh(self, results: ResultSet) -> None:
        # Every pair of runs over every query: brought up to date only while the tab is in sight,
        # so that runs arriving one by one do not stall the window for a tab nobody looks at.
        self.results = results
        self._catch_up()
        # An open pair view follows the results: the same pair from the new ones, or closed if they lack it.
        view = self.pair_view
        if view is not None and view.isVisible():
            if view.measure in results.per_query_measures() and {view.row_run, view.column_run} <= set(results.names()):
                view.show_pair(view.measure, view.row_run, view.column_run, results.query_matrix(view.measure))
            else:
                view.hide()

    def draw(self) -> None:
        self.measure.set_items([(m, m) for m in self.results.per_query_measures()])
        self._show()

    def _show(self) -> None:
        measure = self.measure.currentData()
        if not measure or len(self.results) < 1:
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        frame, shared, tips = matrix_of(self.results.run_matrix(), measure, self.results.names())
        largest = float(frame.abs().max().max()) if frame.notna().any().any() else 0.0
        self.model.set_levels((-nice_limit(largest), nice_limit(largest)))
        self.model.set_frame(frame, tooltips=tips)
        self._fit_table()
        QTimer.singleShot(0, self._fit_table)       # again once the page is laid out (first showing)
        self.caption.setText(f"Mean per-query difference in {shown_name(measure)}, row run minus column run, over the "
                             f"queries both runs have. Red: the row run scores higher; blue: lower.")

    def open_pair(self, row: int, column: int) -> None:
        """Show the pair in cell (row, column) query by query, from the per-query results (not recomputed)."""
        from evalgui.gui.pair_view import PairView

        measure = self.measure.currentData()
        runs = [str(r) for r in self.model.frame.index]
        if not measure or row == column or not (row < len(runs) and column < len(runs)):
            return
        if self.pair_view is None:
            self.pair_view = PairView(self.page, linked_views="the per-query table and the drill-down")
            self.pair_view.queries_selected.connect(self._pair_queries_selected)
        self.pair_view.show_pair(measure, runs[row], runs[column], self.results.query_matrix(measure))
        self.pair_view.show()
        self.pair_view.raise_()

    def _pair_queries_selected(self, queries: list) -> None:
        if self.on_queries_selected is not None:
            self.on_queries_selected(queries, self.pair_view.row_run, self.pair_view.column_run)

    def export_targets(self) -> list:
        return [("Run × run table…", self.export_table_dialog), ("Run × run heatmap…", self.export_plot_dialog)]
