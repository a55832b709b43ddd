"""Error rate against tie rate: one labelled point per measure, at one fuzziness level (Dunaiski et al.'s
figure, after Buckley & Voorhees).

A measure low and to the left rarely contradicts itself from query to query and rarely
calls two systems equal. The bars are ± one standard deviation over the iterations.
The rates need ``-e`` (“Error and tie rates” in the form).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

from evalgui.gui.plain_text import tip
from evalgui.gui.plot_palette import dark_plot, readable_on_dark
from evalgui.gui.result_views import PlotView, new_plot
from evalgui.gui.toolbar import ChoiceBox
from evalgui.gui.workspaces.stability.results import (EXPERIMENT, combination_items, combination_of,
                                                     combination_text, level_items)
from evalgui.gui.workspaces.stability.styles import LEVEL_WIDTH, label_colour, measure_style, show_combinations_whole

# Where a label may sit around its point (TextItem anchors): above right first, then below right, above left,
# below left, centred above or below, then a line further up or down; the first that overlaps no other label
# or point is taken.
PLACES = ((-0.05, 1.0), (-0.05, 0.0), (1.05, 1.0), (1.05, 0.0), (0.5, 1.3), (0.5, -0.3), (-0.05, 2.0),
          (-0.05, -1.0), (1.05, 2.0), (1.05, -1.0))
POINT_RADIUS = 7


class TradeoffView(PlotView):
    title = "Error vs ties"
    experiments = (EXPERIMENT,)
    export_name = "stability_error_vs_ties"
    export_label = "Error rate vs tie rate plot…"

    def __init__(self):
        self.level = ChoiceBox("stabilityTradeoffFuzziness")
        self.level.setToolTip("The fuzziness level whose rates are shown")
        self.combination = ChoiceBox("stabilityTradeoffCombination")
        self.combination.setToolTip("The experiment (queries, systems, entities) whose rates are shown")
        for combo in (self.level, self.combination):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        super().__init__(new_plot("stabilityTradeoff", "Tie rate (%)", "Error rate (%)"),
                         [QLabel("Fuzziness"), self.level, QLabel("Experiment"), self.combination])
        self.level.setMaximumWidth(LEVEL_WIDTH)       # a few short numbers: the room goes to the experiment
        item = self.plot.getPlotItem()
        self.bars = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), pen=pg.mkPen("#777777", width=1), beam=0)
        item.addItem(self.bars)
        self.points = pg.ScatterPlotItem(size=11, pen=pg.mkPen("#ffffff", width=1), hoverable=True, tip=self._tip)
        item.addItem(self.points)
        self.labels: list[pg.TextItem] = []
        self._caption = ""
        self._placing = None           # what _place needs, to place the labels again when the plot is resized
        item.vb.sigResized.connect(lambda _: self._place(*self._placing) if self._placing and self.labels else None)

    def choices(self) -> list:
        return [self.level, self.combination]

    def update_choices(self) -> None:
        # A new run shows the default level (0.05) and the last combination unless the user chose others.
        levels = level_items(self.outcome)
        self.level.set_items(levels, keep=None if self.level.preferred is not None else 0.05)
        combinations = combination_items(self.outcome)
        self.combination.set_items(combinations, keep=None if self.combination.preferred is not None or
                                   not combinations else combinations[-1][1])
        show_combinations_whole(self.combination)

    @staticmethod
    def _tip(x: float, y: float, data) -> str:
        return tip(f"{data}\ntie rate {x:.2f}%\nerror rate {y:.2f}%")

    def rows(self):
        return self.outcome.rows(combination_of(self.combination.currentData()), self.level.currentData())

    def clear(self) -> None:
        item = self.plot.getPlotItem()
        for label in self.labels:
            item.removeItem(label)
        self.labels = []
        self._placing = None
        self.points.clear()
        self.bars.setData(x=np.zeros(0), y=np.zeros(0), height=None, width=None)   # clears the old bars, as a run with other sizes would leave them
        item.setTitle("")

    def _place(self, labels, x, y, x_range, y_range) -> None:
        """Anchor each label at the first place around its point that overlaps no label placed before it nor any
        point, within the plot (in the plot's pixels, as it is now). A label with no free place is shortened
        (“Average@…”) until one frees up, and hidden when none does (a small plot: the point's tooltip still
        names it); the caption then says so."""
        box = self.plot.getPlotItem().vb.boundingRect()
        width, height = (box.width(), box.height()) if box.width() > 50 else (600.0, 400.0)
        sx, sy = width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0])
        centres = [(px * sx, py * sy) for px, py in zip(np.nan_to_num(x), np.nan_to_num(y))]
        points = [(px - POINT_RADIUS, py - POINT_RADIUS, px + POINT_RADIUS, py + POINT_RADIUS) for px, py in centres]
        taken: list[tuple[float, float, float, float]] = []
        shortened = 0
        for i, (label, centre) in enumerate(zip(labels, centres)):
            # A point on top of this one cannot be avoided: only the others are.
            others = taken + [box for j, box in enumerate(points)
                              if j != i and np.hypot(*np.subtract(centres[j], centre)) > 2 * POINT_RADIUS]
            for text in _shorter(label.full_text):
                label.setText(text)
                size = label.boundingRect().size()        # in pixels: a label keeps its size whatever the zoom
                boxes = [(anchor, _box(centre, anchor, (size.width(), size.height()))) for anchor in PLACES]
                inside = [(a, b) for a, b in boxes if b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height]
                free = next(((a, b) for a, b in inside if not any(_overlap(b, other) for other in others)), None)
                if free is not None:
                    label.setAnchor(free[0])
                    taken.append(free[1])
                    break
            label.setVisible(free is not None)
            shortened += label.toPlainText() != label.full_text or free is None
        self.caption.setText(self._caption + (" Labels that do not fit are shortened or left out: hover over "
                                              "a point to see its measure." if shortened else ""))

    def draw(self) -> None:
        self.clear()
        if self.outcome is None or self.level.currentData() is None or self.combination.currentData() is None:
            self.caption.setText("")
            return
        if not self.outcome.has_error_rates:
            self.caption.setText("The error and tie rates were not computed: tick “Error and tie rates” in "
                                 "the form and run again.")
            return
        item = self.plot.getPlotItem()
        rows = self.rows()
        x, y = rows["tieRate"].to_numpy(float), rows["errRate"].to_numpy(float)
        x_sd, y_sd = rows["stddev tieRate"].to_numpy(float), rows["stddev errRate"].to_numpy(float)
        measures = rows["method"].tolist()
        styles = [measure_style(self.outcome.measures.index(m)) for m in measures]
        self.points.setData(x=x, y=y, data=measures, brush=[pg.mkBrush(c) for c, _, _ in styles],
                            symbol=[symbol for _, symbol, _ in styles])
        self.bars.setData(x=x, y=y, height=2 * y_sd, width=2 * x_sd)
        # Room for the labels around the points; both axes start at 0.
        x_range = (0.0, max(float(np.nanmax(x + x_sd, initial=0.0)), 1.0) * 1.3)
        y_range = (0.0, max(float(np.nanmax(y + y_sd, initial=0.0)), 1.0) * 1.2)
        item.setRange(xRange=x_range, yRange=y_range, padding=0.02)
        dark = dark_plot(self.plot)
        for m, px, py, (colour, _, _) in zip(measures, x, y, styles):
            label = pg.TextItem(m, color=readable_on_dark(colour) if dark else label_colour(colour))
            label.full_text = m
            label.setToolTip(tip(m))
            label.setPos(px, py)
            item.addItem(label, ignoreBounds=True)
            self.labels.append(label)
        combination = combination_of(self.combination.currentData())
        level = self.level.currentData()
        item.setTitle(f"Error rate against tie rate, fuzziness {level:g}", size="10pt")
        self._caption = (f"One point per measure: {combination_text(combination)}, "
                         f"{self.outcome.settings.iterations} iterations; a tie is a difference within {level:g} "
                         "× the query's mean score. Bars: ± one standard deviation over the iterations. Lower "
                         "left is better: fewer contradictions and fewer ties.")
        self._placing = (self.labels, x, y, x_range, y_range)
        self._place(*self._placing)


def _shorter(text: str):
    """The text, then ever shorter beginnings of it ending in “…”, down to three characters."""
    yield text
    for length in range(len(text) - 2, 2, -1):
        yield text[:length] + "…"


def _overlap(a, b) -> bool:
    """Whether two (left, bottom, right, top) boxes overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _box(centre, anchor, size) -> tuple[float, float, float, float]:
    """The (left, bottom, right, top) pixels, y upwards, of a label of ``size`` anchored at ``anchor`` (a
    TextItem's: (0, 0) its top left, (1, 1) its bottom right) to the point at ``centre``."""
    (cx, cy), (ax, ay), (w, h) = centre, anchor, size
    left, bottom = cx - ax * w, cy - (1 - ay) * h
    return left, bottom, left + w, bottom + h
