"""Actual values tab: each measure's value for each system on all the test entities (``--printing actual``).

One row per measure (a range measure once per cut-off), one column per system, at the
original's 4 decimals; a value a measure cannot give (an average over no rank within
its cut-off) is empty, never 0. Exports: CSV, TSV, LaTeX, Markdown, JSON.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import export_button, with_toolbar


class ActualView:
    title = "Actual values"

    def __init__(self):
        self.outcome = None
        self.model = DataFrameModel(best=None, precision=4)
        self.view = FrameTableView(self.model, name="stability_actual", freeze_first_column=True)
        self.view.setObjectName("stabilityActualTable")
        self.report = QLabel()
        self.report.setObjectName("stabilityActualReport")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        export = export_button("Export table…", self.view.export_dialog)
        self.page = with_toolbar(self.view, [export])
        self.page.layout().insertWidget(1, self.report)

    def choices(self) -> list:
        return []

    def shown(self) -> None:
        """Always up to date (a table is cheap to refill)."""

    def refresh(self, outcome) -> None:
        self.outcome = outcome
        self.model.set_frame(outcome.actual if outcome is not None else pd.DataFrame(), directions=None)
        if outcome is None:
            self.report.setText("")
            return
        lower = [m for m in outcome.measures if outcome.lower_better(m)]
        self.report.setText(f"{outcome.describe()}\nEach measure on all {outcome.entities:,} entities; lower is "
                            f"better for {', '.join(lower) if lower else 'none of them'}, higher for the others. "
                            "Empty: undefined (no rank within the cut-off).")

    def export_targets(self) -> list:
        return [("Actual values table…", self.view.export_dialog)] if self.outcome is not None else []
