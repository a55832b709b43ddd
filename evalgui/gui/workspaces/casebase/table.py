"""Table tab: one row per retriever configuration (retriever, filter size, k), one column per metric, its
retrieval time and speed-up included (the workflow's ``wide`` table), so configurations compare across a row.
View ▸ "One row per metric" shows the tidy table instead.

Exports: the table as shown (CSV, TSV, LaTeX, Markdown, JSON); the tidy table with its documented columns
(retriever, filter_size, k, metric, value, retrieval_seconds, speedup: what ``evalgui-cli casebase``
writes), whichever layout is shown; and the ground truth as a
similarity-results file (query_id, case_id, similarity), which the Similarity files source and
``evalgui-cli similarity --ground-truth`` read back.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton

from evalgui.core.cbr.catalogue import METRICS
from evalgui.core.workflows.casebase import wide_table
from evalgui.gui.tables import DataFrameModel, FrameTableView, visible_frame
from evalgui.gui.toolbar import export_button, with_toolbar
from evalgui.gui.workspaces.casebase.results import SECONDS, SPEEDUP, shown_table

GROUND_TRUTH_FORMATS = (("CSV", ".csv"), ("TSV", ".tsv"), ("Parquet", ".parquet"))
HEADER_TIPS = {
    "retriever": "linear: the exhaustive retriever (the ground truth); macfac: MAC/FAC; other names: imported "
                 "results",
    "filter_size": "MAC/FAC: the candidates MAC keeps",
    "k": "Both lists cut to their top k (empty: whole lists)",
    "value": "The metric's mean over the queries",
    SECONDS: METRICS[SECONDS].help_text,
    SPEEDUP: METRICS[SPEEDUP].help_text,
}


def blank_missing(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """LaTeX and Markdown show an unset filter size or k as an empty cell (as evalgui-cli writes them)."""
    if fmt not in ("latex", "markdown"):
        return frame
    frame = frame.astype(object)
    return frame.where(frame.notna(), "")


GRID, TIDY = "grid", "tidy"


def _direction(metric: str) -> str:
    """"lower" for a metric where less is better (errors, seconds), else "higher"."""
    try:
        record = METRICS[metric.split("(", 1)[0].strip()]
    except KeyError:            # a ranked measure (map, P_3…): higher is better
        return "higher"
    return getattr(record, "direction", None) or "higher"


class TableView:
    title = "Table"

    def __init__(self):
        self.outcome = None
        self.model = DataFrameModel(best="column")
        self.model.set_header_tooltips(HEADER_TIPS)
        self.view = FrameTableView(self.model, name="casebase_results",
                                   exported=lambda fmt: blank_missing(visible_frame(self.view), fmt))
        self.view.setObjectName("cbrTable")
        # The tidy table, never shown while the grid is: exported with its documented columns.
        self.tidy_model = DataFrameModel(best=None)
        self.tidy_view = FrameTableView(self.tidy_model, name="casebase_results",
                                        exported=lambda fmt: blank_missing(self.tidy_model.frame, fmt))
        self.layout_combo = QComboBox()
        self.layout_combo.setObjectName("cbrTableLayout")
        self.layout_combo.addItem("A column per metric", GRID)
        self.layout_combo.addItem("One row per metric", TIDY)
        self.layout_combo.setToolTip("A column per metric: one row per retriever configuration, to compare them. "
                                     "One row per metric: the layout of the command line's table.")
        self.layout_combo.currentIndexChanged.connect(lambda _i: self.refresh(self.outcome))
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.note.setObjectName("cbrTableNote")
        self.note.setWordWrap(True)
        export = export_button("Export table…", self.view.export_dialog)
        self.truth_button = QPushButton("Export ground truth…")
        self.truth_button.setToolTip("The ground truth as a similarity-results file (columns query, case, similarity)")
        self.truth_button.clicked.connect(self.export_ground_truth)
        self.truth_button.setEnabled(False)         # until results with a ground truth come
        self.page = with_toolbar(self.view, [self.layout_combo, export, self.truth_button])
        self.page.layout().insertWidget(1, self.note)

    def choices(self) -> list:
        return []

    def refresh(self, outcome) -> None:
        self.outcome = outcome
        self.truth_button.setEnabled(outcome is not None and outcome.ground_truth is not None)
        if outcome is None:
            self.model.set_frame(pd.DataFrame())
            self.note.setText("")
            return
        tidy = shown_table(outcome.table)
        self.tidy_model.set_frame(tidy, directions=None, integers={"filter_size", "k"})
        if self.layout_combo.currentData() == TIDY:
            self.model.set_frame(tidy, directions=None, integers={"filter_size", "k"})
        else:
            grid = wide_table(outcome.table)
            keys = {"retriever", "filter_size", "k"}
            # The best of each metric in bold; the configuration columns are no contest.
            self.model.set_frame(grid, directions={str(c): None if c in keys else _direction(str(c))
                                                   for c in grid.columns}, integers=keys)
        self.note.setText(" ".join(outcome.warnings))
        self.note.setVisible(bool(outcome.warnings))

    def export_ground_truth(self) -> None:
        from evalgui.gui.exporting import export_dialog

        if self.outcome is None or self.outcome.ground_truth is None:
            return
        export_dialog(self.page, "ground_truth", GROUND_TRUTH_FORMATS, self.outcome.ground_truth.write,
                      title="Export the ground truth")

    def export_targets(self) -> list:
        if self.outcome is None:
            return []
        truth = [("Ground truth (similarity file)…", self.export_ground_truth)] \
            if self.outcome.ground_truth is not None else []
        return [("Case-based retrieval table…", self.tidy_view.export_dialog),
                ("Case-based retrieval grid (a column per metric)…", self.view.export_dialog), *truth]
