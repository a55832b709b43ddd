"""Per-query tab: queries x runs for one measure, the best run of each query in bold, a filter box."""

from __future__ import annotations

import pandas as pd
from PySide6.QtWidgets import QLabel, QLineEdit

from evalgui.core import tidy
from evalgui.core.ranked.jobs import ResultSet, per_query_frame
from evalgui.gui.exporting import file_words
from evalgui.gui.exporting import TIDY_FORMATS
from evalgui.gui.naming import label as shown_name
from evalgui.gui.tables import DataFrameModel, FrameTableView, visible_frame
from evalgui.gui.toolbar import ChoiceBox, with_toolbar


class PerQueryView:
    title = "Per query"

    def __init__(self):
        self.results = ResultSet()
        self.measure = ChoiceBox("perQueryMeasure")
        self.measure.currentTextChanged.connect(lambda _: self._show())
        self.filter = QLineEdit()
        self.filter.setObjectName("perQueryFilter")
        self.filter.setPlaceholderText("Filter queries…")
        self.filter.setClearButtonEnabled(True)
        self.model = DataFrameModel(best="row")
        self.view = FrameTableView(self.model, name="per_query", freeze_first_column=True,
                                   exported=self.export_frame)
        self.view.setObjectName("perQueryTable")
        self.view.proxy.filter_columns = [0]
        self.filter.textChanged.connect(self.view.proxy.set_filter_text)
        self.page = with_toolbar(self.view, [QLabel("Measure"), self.measure, self.filter])

    def choices(self) -> list[ChoiceBox]:
        return [self.measure]

    def refresh(self, results: ResultSet) -> None:
        self.results = results
        self.measure.set_items([(m, m) for m in results.per_query_measures()])
        self._show()

    def _show(self) -> None:
        measure = self.measure.currentData()
        self.view.name = file_words("Per query", self.measure.currentText())     # the export's file name
        if not measure:
            self.model.set_frame(pd.DataFrame({tidy.QUERY: []}))
            return
        info = self.results.measure_info().get(measure)
        runs = self.results.values()
        self.model.set_frame(per_query_frame(runs, measure, self.results.queries),
                             directions=info.better if info else "higher",
                             integers={r.name for r in runs} if info and info.integer else set())
        shown = shown_name(measure)
        self.model.set_header_tooltips({tidy.QUERY: f"{shown}: {info.help}" if info else shown})

    def select_queries(self, queries: list[str], measure: str | None = None) -> None:
        """Select the rows of ``queries`` (linked from another view), showing ``measure`` if given."""
        from PySide6.QtCore import QItemSelection, QItemSelectionModel

        if measure and measure != self.measure.currentData():
            index = self.measure.findData(measure)
            if index >= 0:
                self.measure.setCurrentIndex(index)
        wanted = {str(q) for q in queries}
        proxy = self.view.proxy
        selection = QItemSelection()
        for r in range(proxy.rowCount()):
            if str(proxy.index(r, 0).data()) in wanted:
                selection.select(proxy.index(r, 0), proxy.index(r, proxy.columnCount() - 1))
        self.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if not selection.isEmpty():
            self.view.scrollTo(selection.indexes()[0])

    def selected_queries(self) -> list[str]:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedIndexes()})
        return [str(self.view.proxy.index(r, 0).data()) for r in rows]

    def export_frame(self, fmt: str) -> pd.DataFrame:
        """The rows the table shows (its filter and order), saying which measure they hold: tidy rows
        for CSV, TSV and JSON, the table with a measure column after the query for the others."""
        shown = visible_frame(self.view)
        measure = self.measure.currentData() or ""
        if fmt not in TIDY_FORMATS:
            shown.insert(1, tidy.MEASURE, measure)
            return shown
        parts = []
        for run in shown.columns[1:]:
            # A query the run does not have is no row (as evaluate writes it); a missing value is.
            rows = shown.loc[shown[tidy.QUERY].isin(self.results[run].query_ids), [tidy.QUERY, run]]
            parts.append(pd.DataFrame({tidy.RUN: run, tidy.QUERY: rows[tidy.QUERY], tidy.MEASURE: measure,
                                       tidy.VALUE: rows[run].astype(float)}))
        if not parts:
            return pd.DataFrame(columns=list(tidy.COLUMNS))
        return pd.concat(parts, ignore_index=True)

    def export_targets(self) -> list:
        return [("Per-query table…", self.view.export_dialog)]
