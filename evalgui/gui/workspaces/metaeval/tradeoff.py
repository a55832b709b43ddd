"""Stability: error rate against tie rate, one labelled point per measure (Buckley & Voorhees' figure).

A measure low and to the left rarely contradicts itself and rarely calls two runs equal.
The bars are ± one standard deviation over the repetitions. One query-set size at a
time (the largest by default, where the rates are the most reliable).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

from evalgui.gui.naming import label as shown_name
from evalgui.gui.plain_text import tip
from evalgui.gui.plot_palette import dark_plot, readable_on_dark
from evalgui.gui.plots import run_colour
from evalgui.gui.result_views import PlotView, new_plot
from evalgui.gui.toolbar import ChoiceBox


# Labels of points nearer than these shares of the axes' ranges would overlap.
LABEL_NEAR = (0.1, 0.06)


class TradeoffView(PlotView):
    title = "Error vs ties"
    experiments = ("stability",)
    export_name = "stability_error_vs_ties"
    export_label = "Error rate vs tie rate plot…"

    def __init__(self):
        self.set_size = ChoiceBox("metaevalTradeoffSetSize")
        self.set_size.setToolTip("The query-set size whose rates are shown")
        self.set_size.currentIndexChanged.connect(lambda _: self.draw())
        super().__init__(new_plot("metaevalTradeoff", "Tie rate (%)", "Error rate (%)"),
                         [QLabel("Set size"), self.set_size])
        item = self.plot.getPlotItem()
        self.bars = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), pen=pg.mkPen("#777777", width=1), beam=0)
        item.addItem(self.bars)
        self.points = pg.ScatterPlotItem(size=11, pen=pg.mkPen("#ffffff", width=1), hoverable=True, tip=self._tip)
        item.addItem(self.points)
        self.labels: list[pg.TextItem] = []

    def choices(self) -> list:
        return [self.set_size]

    def update_choices(self) -> None:
        sizes = sorted(set(self.outcome.result.table["set_size"])) if self.outcome is not None else []
        # A new run shows the largest size unless the user chose one that is still offered.
        self.set_size.set_items([(str(s), int(s)) for s in sizes],
                                keep=None if self.set_size.preferred in sizes else (sizes[-1] if sizes else None))

    def rows(self):
        table = self.outcome.result.table
        return table[table["set_size"] == self.set_size.currentData()]

    @staticmethod
    def _tip(x: float, y: float, data) -> str:
        return tip(f"{shown_name(data)}\ntie rate {x:.2f}%\nerror rate {y:.2f}%")

    def draw(self) -> None:
        item = self.plot.getPlotItem()
        for label in self.labels:
            item.removeItem(label)
        self.labels = []
        if self.outcome is None or self.set_size.currentData() is None:
            self.points.clear()
            self.bars.setData(x=np.zeros(0), y=np.zeros(0), height=None, width=None)   # clears the old bars, as a run with other sizes would leave them
            item.setTitle("")
            self.caption.setText("")
            return
        rows = self.rows()
        x, y = rows["tie_rate"].to_numpy(float), rows["error_rate"].to_numpy(float)
        measures = rows["measure"].tolist()
        order = {m: i for i, m in enumerate(self.measures())}
        colours = [run_colour(order[m]) for m in measures]
        self.points.setData(x=x, y=y, data=measures, brush=[pg.mkBrush(c) for c in colours])
        self.bars.setData(x=x, y=y, height=2 * rows["error_rate_sd"].to_numpy(float),
                          width=2 * rows["tie_rate_sd"].to_numpy(float))
        # Room for the labels right of and above the points; both axes start at 0.
        top_x = max(float(np.nanmax(x + rows["tie_rate_sd"].to_numpy(float))), 1.0)
        top_y = max(float(np.nanmax(y + rows["error_rate_sd"].to_numpy(float))), 1.0)
        item.setRange(xRange=(0, top_x * 1.25), yRange=(0, top_y * 1.2), padding=0.02)
        placed: list[tuple[float, float]] = []
        dark = dark_plot(self.plot)
        for m, px, py, colour in zip(measures, x, y, colours):
            # Points close together (measures that agree) stack their labels a line apart.
            lines = sum(abs(px - qx) < LABEL_NEAR[0] * top_x and abs(py - qy) < LABEL_NEAR[1] * top_y
                        for qx, qy in placed)
            label = pg.TextItem(shown_name(m), color=readable_on_dark(colour) if dark else colour,
                                anchor=(-0.1, 1.0 + lines))
            label.setPos(px, py)
            item.addItem(label, ignoreBounds=True)
            self.labels.append(label)
            placed.append((px, py))
        size = self.set_size.currentData()
        item.setTitle(f"Error rate against tie rate, query sets of {size}", size="10pt")
        self.caption.setText(f"One point per measure over {self.outcome.result.settings.sets:,} query sets of {size} "
                             f"per repetition; bars: ± one standard deviation over the repetitions. Lower left is "
                             f"better: fewer contradictions and fewer ties.")
