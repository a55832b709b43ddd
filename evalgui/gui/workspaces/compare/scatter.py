"""Per-query scatter tab: run A's score (x) against run B's (y) on one measure, one point per compared query.

The diagonal y = x is drawn: points below it are queries where A scores higher, above it
where B does; each side has its colour, and differences within the tie tolerance are grey
ties, as in the table's wins / ties / losses. Hovering a point names its query.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.gui.plain_text import rich, tip
from evalgui.gui.exporting import file_words
from evalgui.gui.plots import export_plot_dialog, plain_axes, run_colour
from evalgui.gui.result_views import LazyView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.naming import label as shown_name

A_HIGHER, B_HIGHER, TIED = "a", "b", "tie"
COLOURS = {A_HIGHER: run_colour(0), B_HIGHER: run_colour(3), TIED: "#9e9e9e"}
NOISE = 1e-12      # as wins / ties / losses: differences in the last bits are no win


class ScatterTab(LazyView):
    title = "Per-query scatter"

    def __init__(self):
        super().__init__()
        self.measure = ChoiceBox("compareScatterMeasure")
        self.run_a = ChoiceBox("compareScatterRunA")
        self.run_b = ChoiceBox("compareScatterRunB")
        for combo in (self.measure, self.run_a, self.run_b):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("compareScatter")
        item = self.plot.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.hideButtons()
        item.setMenuEnabled(False)
        item.setAspectLocked(True)          # so that the diagonal is at 45° and both axes read alike
        plain_axes(item)
        self.legend = item.addLegend(offset=(10, 10))
        self.diagonal = pg.PlotDataItem([], [], pen=pg.mkPen("#555555", width=1, style=Qt.PenStyle.DashLine))
        item.addItem(self.diagonal)
        self.points = {}
        for outcome, colour in COLOURS.items():
            points = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(colour), pen=pg.mkPen("#ffffff", width=0.5),
                                        hoverable=True, tip=self._tip)
            item.addItem(points)
            self.legend.addItem(points, "")        # the texts (with counts) are set when drawn
            self.points[outcome] = points
        self._names = ("", "")
        export = export_button("Export…", self.export_dialog)
        self.page = with_toolbar(self.plot, [QLabel("Measure"), self.measure, QLabel("Run A (x)"), self.run_a,
                                             QLabel("Run B (y)"), self.run_b, export])

    def choices(self) -> list[ChoiceBox]:
        return [self.measure, self.run_a, self.run_b]

    def update_choices(self) -> None:
        comparison = self.comparison
        measures = comparison.measures if comparison is not None else []
        runs = comparison.runs if comparison is not None else []
        self.measure.set_items([(m, m) for m in measures])
        self.run_a.set_items([(r, r) for r in runs])
        # B defaults to another run than A (the first pair compared, when A is its first run).
        others = [r for r in runs if r != self.run_a.currentData()]
        self.run_b.set_items([(r, r) for r in runs], keep=None if self.run_b.currentData() in others else
                             (others[0] if others else None))

    def _tip(self, x: float, y: float, data) -> str:
        a, b = self._names
        return tip(f"query {data}\n{a}: {x:.4f}\n{b}: {y:.4f}\ndifference {x - y:+.4f}")

    def outcomes(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A_HIGHER, B_HIGHER or TIED per query, with the comparison's tie tolerance."""
        limit = self.comparison.options.tie_tolerance + NOISE
        return np.where(x - y > limit, A_HIGHER, np.where(y - x > limit, B_HIGHER, TIED))

    def draw(self) -> None:
        super().draw()
        c, measure, a, b = self.comparison, self.measure.currentData(), self.run_a.currentData(), \
            self.run_b.currentData()
        item = self.plot.getPlotItem()
        if c is None or measure not in c.per_query or a not in c.runs or b not in c.runs:
            for points in self.points.values():
                points.clear()
                self.legend.getLabel(points).setText("")
            self.diagonal.setData([], [])
            item.setTitle("")
            return
        frame = c.per_query[measure]
        x, y = frame[a].to_numpy(np.float64), frame[b].to_numpy(np.float64)
        queries = np.asarray([str(q) for q in frame.index], dtype=object)
        self._names = (a, b)
        outcome = self.outcomes(x, y)
        labels = {A_HIGHER: f"{a} higher", B_HIGHER: f"{b} higher", TIED: "tie"}
        for key, points in self.points.items():
            chosen = outcome == key
            points.setData(x=x[chosen], y=y[chosen], data=queries[chosen])
            self.legend.getLabel(points).setText(rich(f"{labels[key]} ({int(chosen.sum())})"))
        values = np.concatenate([x, y])
        lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        lo, hi = min(lo, 0.0), hi if hi > lo else lo + 1.0
        self.diagonal.setData([lo, hi], [lo, hi])
        pad = 0.04 * (hi - lo)
        item.setRange(xRange=(lo - pad, hi + pad), yRange=(lo - pad, hi + pad), padding=0)
        item.setLabel("bottom", rich(f"{a}: {shown_name(measure)}"))
        item.setLabel("left", rich(f"{b}: {shown_name(measure)}"))
        counts = {key: int((outcome == key).sum()) for key in labels}
        item.setTitle(rich(f"{shown_name(measure)} per query, {len(x)} queries: {a} higher on {counts[A_HIGHER]}, "
                           f"{b} higher on {counts[B_HIGHER]}, ties {counts[TIED]}"), size="10pt")

    def export_dialog(self) -> None:
        self.shown()
        name = file_words("Scatter", self.measure.currentText(), f"{self.run_a.currentText()} against "
                                                                 f"{self.run_b.currentText()}")
        export_plot_dialog(self.page, self.plot, name)

    def export_targets(self) -> list:
        return [("Per-query scatter…", self.export_dialog)] if self.comparison is not None else []
