"""Summary tab: runs x measures, the best value of each measure in bold."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from evalgui.core.ranked.jobs import ResultSet, summary_frame
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import with_toolbar


class SummaryView:
    title = "Summary"

    def __init__(self):
        self.model = DataFrameModel(best="column")
        self.view = FrameTableView(self.model, name="summary", freeze_first_column=True)
        self.view.setObjectName("summaryTable")
        self.page: QWidget = with_toolbar(self.view, [])

    def choices(self) -> list:
        return []

    def refresh(self, results: ResultSet) -> None:
        info = results.measure_info()
        self.model.set_frame(summary_frame(results.values()), directions={m: i.better for m, i in info.items()},
                             integers={m for m, i in info.items() if i.integer})
        self.model.set_header_tooltips({m: i.help for m, i in info.items()})

    def export_targets(self) -> list:
        return [("Summary table…", self.view.export_dialog)]
