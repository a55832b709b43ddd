"""Discriminative power: Sakai's curves, each run pair's p-value (ASL) sorted, against the pair's rank.

One curve per measure; the dashed line is α. The more of a curve lies below the line,
the more pairs the measure tells apart: its discriminative power, given in the legend.
The p-values drawn are those that decide significance: corrected, when a correction is chosen.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from evalgui.gui.naming import label as shown_name
from evalgui.gui.plain_text import rich
from evalgui.gui.plots import run_colour
from evalgui.gui.result_views import PlotView, new_plot


class PowerView(PlotView):
    title = "Power curves"
    experiments = ("power",)
    export_name = "discriminative_power"
    export_label = "Discriminative power curves…"

    def __init__(self):
        super().__init__(new_plot("metaevalPower", "Run pairs, sorted by p-value", "p-value (ASL)"), [])
        item = self.plot.getPlotItem()
        self.legend = item.addLegend(offset=(10, 10))
        self.alpha_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#c62828", width=1, style=Qt.PenStyle.DashLine),
                                          label="α = {value:g}", labelOpts={"position": 0.95, "color": "#c62828",
                                                                            "anchors": [(1, 1), (1, 1)]})
        self.alpha_line.hide()
        item.addItem(self.alpha_line)
        self.curves: dict[str, pg.PlotDataItem] = {}

    def draw(self) -> None:
        item = self.plot.getPlotItem()
        for curve in self.curves.values():
            item.removeItem(curve)
        self.legend.clear()
        self.curves = {}
        if self.outcome is None:
            self.alpha_line.hide()
            item.setTitle("")
            self.caption.setText("")
            return
        result = self.outcome.result
        settings = result.settings
        corrected = result.table["correction"].iloc[0] != "none"
        power = dict(zip(result.table["measure"], result.table["discriminative_power"]))
        pairs = 0
        for i, measure in enumerate(self.measures()):
            rows = result.curve(measure).sort_values("rank")
            pairs = len(rows)
            colour = run_colour(i)
            self.curves[measure] = item.plot(rows["rank"].to_numpy(float), rows["p_adjusted"].to_numpy(float),
                                             name=rich(f"{shown_name(measure)} ({power[measure]:.0f}%)"),
                                             pen=pg.mkPen(colour, width=2),
                                             symbol="o" if pairs <= 60 else None, symbolSize=6, symbolBrush=colour,
                                             symbolPen=None)
        self.alpha_line.show()                  # before setValue: a hidden line's label does not follow it
        self.alpha_line.setValue(settings.alpha)
        item.setLabel("left", "corrected p-value" if corrected else "p-value (ASL)")
        item.setXRange(1, max(pairs, 2), padding=0.03)
        item.setYRange(0, 1, padding=0.03)
        correction = result.table["correction"].iloc[0]
        item.setTitle(f"Sakai's curves: {settings.test} test" + (f", {correction} correction" if corrected else ""),
                      size="10pt")
        self.caption.setText(f"Each run pair's {'corrected ' if corrected else ''}p-value, sorted ascending, one curve "
                             f"per measure. Below the dashed line (α = {settings.alpha:g}) a pair is significant; the "
                             f"legend gives each measure's discriminative power, the share of its {pairs} pairs there.")

    def curve_points(self, measure: str) -> tuple[np.ndarray, np.ndarray]:
        return self.curves[measure].getData()
