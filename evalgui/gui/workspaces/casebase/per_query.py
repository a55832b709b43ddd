"""Per-query tab: queries x retriever configurations for one metric, the best configuration of each query in
bold, a filter box. What ``evalgui-cli casebase --per-query`` (or ``similarity --per-query``) writes, one
metric at a time.

Exports: the table as CSV, TSV or JSON as tidy rows (retriever, [filter_size,] k, query, metric, value: the
command line's columns), as LaTeX or Markdown as shown; and every metric's per-query values at once.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from evalgui.core.cbr.catalogue import METRICS
from evalgui.core.cbr.evaluate import METRIC, QUERY, VALUE
from evalgui.gui.exporting import TIDY_FORMATS, file_words
from evalgui.gui.result_views import LazyView
from evalgui.gui.tables import DataFrameModel, FrameTableView, export_shown, visible_frame
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.workspaces.casebase.results import per_query_frame

NOT_KEPT = "The per-query values were not kept in the project (too many): press Run to see them."


class PerQueryTab(LazyView):
    title = "Per query"

    def __init__(self):
        super().__init__()
        self.metric = ChoiceBox("cbrPerQueryMetric")
        self.metric.setToolTip("The metric shown, per query")
        self.metric.currentIndexChanged.connect(lambda _: self.draw())
        self.filter = QLineEdit()
        self.filter.setObjectName("cbrPerQueryFilter")
        self.filter.setPlaceholderText("Filter queries…")
        self.filter.setClearButtonEnabled(True)
        self.model = DataFrameModel(best="row")
        self.view = FrameTableView(self.model, name="per_query", freeze_first_column=True, exported=self.export_frame)
        self.view.setObjectName("cbrPerQueryTable")
        self.view.proxy.filter_columns = [0]
        self.filter.textChanged.connect(self.view.proxy.set_filter_text)
        export = export_button("Export…", self.export_dialog,
                               "The table (CSV, TSV and JSON as tidy rows, as evalgui-cli writes per-query values)")
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.note.setObjectName("cbrPerQueryNote")
        self.note.setWordWrap(True)
        self.note.hide()
        self.page = with_toolbar(self.view, [QLabel("Metric"), self.metric, self.filter, export])
        self.page.layout().insertWidget(1, self.note)

    @property
    def outcome(self):
        return self.comparison

    def _rows(self) -> pd.DataFrame | None:
        return self.outcome.per_query if self.outcome is not None else None

    def choices(self) -> list[ChoiceBox]:
        return [self.metric]

    def update_choices(self) -> None:
        rows = self._rows()
        metrics = [] if rows is None else list(dict.fromkeys(rows[METRIC].tolist()))
        self.metric.set_items([(m, m) for m in metrics])

    def draw(self) -> None:
        super().draw()
        rows, metric = self._rows(), self.metric.currentData()
        self.note.setText(NOT_KEPT if self.outcome is not None and rows is None else "")
        self.note.setVisible(bool(self.note.text()))
        self.view.name = file_words("Per query", self.metric.currentText() if metric else "")  # the export's file name
        if rows is None or metric is None:
            self.model.set_frame(pd.DataFrame({QUERY: []}))
            return
        record = METRICS[metric] if metric in METRICS else None
        frame = per_query_frame(rows, metric)
        self.model.set_frame(frame, directions=record.direction if record else "higher",
                             integers=set(frame.columns[1:]) if metric == "hits" else set())
        self.model.set_header_tooltips({QUERY: f"{metric}: {record.help_text}" if record else metric})

    def export_frame(self, fmt: str) -> pd.DataFrame:
        """The queries the table shows (its filter and order): tidy rows for CSV, TSV and JSON, the table with
        a metric column after the query for the others."""
        shown = visible_frame(self.view)
        metric = self.metric.currentData() or ""
        if fmt not in TIDY_FORMATS:
            shown.insert(1, METRIC, metric)
            return shown
        rows = self._rows()
        if rows is None or shown.empty:
            return pd.DataFrame(columns=[] if rows is None else list(rows.columns))
        rows = rows[(rows[METRIC] == metric) & rows[QUERY].isin(shown[QUERY])]
        # Configuration after configuration, as the command line writes them; queries in the table's order.
        keys = [c for c in rows.columns if c not in (QUERY, METRIC, VALUE)]
        order = pd.DataFrame({"configuration": rows.groupby(keys, dropna=False, sort=False).ngroup(),
                              "query": rows[QUERY].map({q: i for i, q in enumerate(shown[QUERY].tolist())})})
        return rows.loc[order.sort_values(["configuration", "query"], kind="stable").index].reset_index(drop=True)

    def export_dialog(self) -> None:
        self.shown()
        self.view.export_dialog()

    def export_all(self) -> None:
        """Every metric's per-query values as tidy rows, as evalgui-cli --per-query writes them (without the
        summary rows: those are the Table tab's)."""
        from evalgui.gui.exporting import TABLE_FORMATS, export_dialog

        rows = self._rows()
        if rows is not None:
            export_dialog(self.page, "per_query_values", TABLE_FORMATS, lambda path: export_shown(rows, path),
                          title="Export the per-query values")

    def export_targets(self) -> list:
        if self._rows() is None:       # no results, or not kept in the project
            return []
        return [("Per-query table…", self.export_dialog), ("Per-query values, every metric…", self.export_all)]

