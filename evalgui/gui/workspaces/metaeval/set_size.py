"""Stability: error rate (or tie rate) against the query-set size, one curve per measure.

The error rate falls as the sets grow: how many queries a measure needs before its
verdicts stop contradicting each other (Buckley & Voorhees' second figure).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

from evalgui.gui.plain_text import rich
from evalgui.gui.plots import keep_legend_clear, run_colour
from evalgui.gui.result_views import PlotView, new_plot
from evalgui.gui.toolbar import ChoiceBox
from evalgui.gui.naming import label as shown_name

RATES = (("Error rate", "error_rate"), ("Tie rate", "tie_rate"))


class SetSizeView(PlotView):
    title = "Rates vs set size"
    experiments = ("stability",)
    export_name = "stability_by_set_size"
    export_label = "Rate vs set size plot…"

    def __init__(self):
        self.rate = ChoiceBox("metaevalSetSizeRate")
        self.rate.set_items(list(RATES))
        self.rate.currentIndexChanged.connect(lambda _: self.draw())
        super().__init__(new_plot("metaevalSetSize", "Queries per set", "Error rate (%)"), [QLabel("Show"), self.rate])
        self.legend = self.plot.getPlotItem().addLegend(offset=(-10, 10))
        keep_legend_clear(self.plot.getPlotItem(), self.legend)       # error rates fall: often not top right
        self.curves: dict[str, pg.PlotDataItem] = {}

    def choices(self) -> list:
        return [self.rate]

    def draw(self) -> None:
        item = self.plot.getPlotItem()
        for curve in self.curves.values():
            item.removeItem(curve)
        self.legend.clear()
        self.curves = {}
        if self.outcome is None:
            item.setTitle("")
            self.caption.setText("")
            return
        column, label = self.rate.currentData(), self.rate.currentText()
        table = self.outcome.result.table
        for i, measure in enumerate(self.measures()):
            rows = table[table["measure"] == measure].sort_values("set_size")
            colour = run_colour(i)
            self.curves[measure] = item.plot(rows["set_size"].to_numpy(float), rows[column].to_numpy(float),
                                             name=rich(shown_name(measure)), pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=7,
                                             symbolBrush=colour, symbolPen=None)
        item.setLabel("left", rich(f"{label} (%)"))
        item.enableAutoRange()
        item.setTitle(f"{rich(label)} against the query-set size", size="10pt")
        self.legend.place_clear()
        self.caption.setText(f"One curve per measure; each point is the mean over the repetitions of "
                             f"{self.outcome.result.settings.sets:,} query sets of that size.")

    def curve_points(self, measure: str):
        return self.curves[measure].getData()
