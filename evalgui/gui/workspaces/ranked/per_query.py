"""Per-query tab: queries x runs for one measure, the best run of each query in bold, a filter box."""

from __future__ import annotations

import pandas as pd
from PySide6.QtWidgets import QLabel, QLineEdit

from evalgui.core import tidy
from evalgui.core.ranked.jobs import ResultSet, per_query_frame
from evalgui.gui.tables import DataFrameModel, FrameTableView
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
        self.view = FrameTableView(self.model, name="per_query")
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
        if not measure:
            self.model.set_frame(pd.DataFrame({tidy.QUERY: []}))
            return
        info = self.results.measure_info().get(measure)
        runs = self.results.values()
        self.model.set_frame(per_query_frame(runs, measure, self.results.queries),
                             directions=info.better if info else "higher",
                             integers={r.name for r in runs} if info and info.integer else set())
        self.model.set_header_tooltips({tidy.QUERY: f"{measure}: {info.help}" if info else measure})

    def export_targets(self) -> list:
        return [("Per-query table…", self.view.export_dialog)]
