"""Robustness: Kendall's τ (or the flipped pairs) against the share of judgments removed, one curve per
measure, with a band for the spread over the repetitions.

The curve is the mean over the repetitions; the band their range (min to max) or ± one
standard deviation. A robust measure's curve stays near τ = 1 (0% flipped) as judgments go.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from evalgui.gui.plain_text import rich
from evalgui.gui.plots import run_colour
from evalgui.gui.result_views import PlotView, new_plot
from evalgui.gui.toolbar import ChoiceBox
from evalgui.gui.naming import label as shown_name

TAU, FLIPPED = "kendall_tau", "flipped_pairs"
VALUES = (("Kendall's τ", TAU), ("Flipped pairs (%)", FLIPPED))
RANGE, SD = "range", "sd"
BANDS = (("Range (min–max)", RANGE), ("± 1 sd", SD))


def spread(repetitions: pd.DataFrame, measure: str, column: str) -> pd.DataFrame:
    """Per fraction of one measure: mean, sd, min and max over the repetitions (undefined ones left out)."""
    rows = repetitions[repetitions["measure"] == measure]
    grouped = rows.groupby("fraction", sort=True)[column]
    return pd.DataFrame({"mean": grouped.mean(), "sd": grouped.std(ddof=1).fillna(0.0), "min": grouped.min(),
                         "max": grouped.max()}).reset_index()


class RobustnessView(PlotView):
    title = "τ vs judgments"
    experiments = ("robustness",)
    export_name = "robustness"
    export_label = "Robustness plot…"

    def __init__(self):
        self.value = ChoiceBox("metaevalRobustnessValue")
        self.value.set_items(list(VALUES))
        self.band = ChoiceBox("metaevalRobustnessBand")
        self.band.set_items(list(BANDS))
        for combo in (self.value, self.band):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        super().__init__(new_plot("metaevalRobustness", "Share of each query's judgments removed", "Kendall's τ"),
                         [QLabel("Show"), self.value, QLabel("Band"), self.band])
        self.legend = self.plot.getPlotItem().addLegend(offset=(10, 10))
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bands: dict[str, pg.FillBetweenItem] = {}
        self._edges: list[pg.PlotDataItem] = []

    def choices(self) -> list:
        return [self.value, self.band]

    def draw(self) -> None:
        item = self.plot.getPlotItem()
        for thing in [*self.curves.values(), *self.bands.values(), *self._edges]:
            item.removeItem(thing)
        self.legend.clear()
        self.curves, self.bands, self._edges = {}, {}, []
        if self.outcome is None:
            item.setTitle("")
            self.caption.setText("")
            return
        column, spread_kind = self.value.currentData(), self.band.currentData()
        repetitions = self.outcome.result.repetitions
        for i, measure in enumerate(self.measures()):
            stats = spread(repetitions, measure, column)
            x = stats["fraction"].to_numpy(float)
            mean = stats["mean"].to_numpy(float)
            low, high = (stats["min"], stats["max"]) if spread_kind == RANGE else \
                (stats["mean"] - stats["sd"], stats["mean"] + stats["sd"])
            colour = QColor(run_colour(i))
            edges = [pg.PlotDataItem(x, v.to_numpy(float), pen=pg.mkPen(None)) for v in (low, high)]
            fill = QColor(colour)
            fill.setAlpha(40)
            band = self.bands[measure] = pg.FillBetweenItem(edges[0], edges[1], brush=pg.mkBrush(fill))
            for edge in edges:
                item.addItem(edge)
            item.addItem(band)
            self._edges += edges
            curve = self.curves[measure] = item.plot(x, mean, name=rich(shown_name(measure)), pen=pg.mkPen(colour, width=2), symbol="o",
                                                     symbolSize=6, symbolBrush=colour, symbolPen=None)
            # Clicking the measure in the legend hides its curve, and its band with it.
            curve.visibleChanged.connect(lambda curve=curve, band=band: band.setVisible(curve.isVisible()))
        settings = self.outcome.result.settings
        fractions = settings.fractions
        item.setXRange(min(fractions), max(fractions), padding=0.04)
        # The legend where the curves are not: τ starts high and falls, flipped pairs start low and rise.
        corner = (0, 1) if column == TAU else (0, 0)
        self.legend.anchor(corner, corner, offset=(10, -10 if column == TAU else 10))
        if column == TAU:
            item.setYRange(min(-0.05, float(np.nanmin(repetitions[TAU])) if len(repetitions) else 0.0), 1.0,
                           padding=0.03)
            item.setLabel("left", "Kendall's τ with the full judgments")
        else:
            item.setYRange(0.0, max(5.0, float(np.nanmax(repetitions[FLIPPED])) if len(repetitions) else 0.0),
                           padding=0.03)
            item.setLabel("left", "Run pairs flipped (%)")
        label = dict((key, text) for text, key in VALUES)[column]
        item.setTitle(f"{rich(label)} as judgments are removed ({settings.repetitions} repetitions)", size="10pt")
        spread_text = "the range over the repetitions" if spread_kind == RANGE else "± one standard deviation"
        order = "by their means"
        if any(is_preference_measure(m) for m in self.measures()):
            order += " (a preference's: by mean preference, then win rate)"
        self.caption.setText(f"Curves: the mean over {settings.repetitions} repetitions (seed {settings.seed}); bands: "
                             f"{spread_text}. Each query loses that share of its judged documents (the runs are "
                             f"untouched), and the runs are ordered again {order}. Click a measure in the legend to "
                             f"hide it.")

    def curve_points(self, measure: str):
        return self.curves[measure].getData()


def is_preference_measure(name: str) -> bool:
    """Whether ``name`` is a preference measure: metaeval.scores (and the statistics it imports) is imported
    at the first call, not at start-up."""
    from evalgui.core.metaeval.scores import is_preference_measure as of_scores

    return of_scores(name)
