"""Quality-versus-time tab: the MAC/FAC sweep, one point per filter-size/k pair, retrieval seconds (x)
against one metric's value (y); the linear retriever is the reference (a point per k and, when its
value is the same at every k, a dashed line). Each point is labelled "filter size/k", the linear
retriever's "k=5" ("k=all" without k)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.core.cbr.evaluate import FILTER_SIZE, K, LINEAR, MACFAC, METRIC, RETRIEVER, VALUE
from evalgui.gui.exporting import file_words
from evalgui.gui.naming import label as shown_name
from evalgui.gui.plain_text import rich, tip
from evalgui.gui.plot_palette import plot_colours
from evalgui.gui.plots import export_plot_dialog, plain_axes, run_colour
from evalgui.gui.result_views import LazyView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.workspaces.casebase.results import SECONDS, TIMING


def sweep_points(table, metric: str, retriever: str):
    """(seconds, values, labels) of ``retriever``'s configurations for ``metric``."""
    rows = table[(table[RETRIEVER] == retriever) & (table[METRIC] == metric)]
    seconds = table[(table[RETRIEVER] == retriever) & (table[METRIC] == SECONDS)]
    keys = [FILTER_SIZE, K]
    merged = rows.merge(seconds[keys + [VALUE]].rename(columns={VALUE: SECONDS}), on=keys, how="inner")
    labels = [f"{f}/{k}" if retriever == MACFAC else f"linear k={'all' if k is None or k is np.nan else k}"
              for f, k in zip(merged[FILTER_SIZE].astype(object).where(merged[FILTER_SIZE].notna(), None),
                              merged[K].astype(object).where(merged[K].notna(), None))]
    return merged[SECONDS].to_numpy(np.float64), merged[VALUE].to_numpy(np.float64), labels


class ChartTab(LazyView):
    title = "Quality vs time"

    def __init__(self):
        super().__init__()
        self.metric = ChoiceBox("cbrChartMetric")
        self.metric.setToolTip("The metric on the y axis")
        self.metric.currentIndexChanged.connect(lambda _: self.draw())
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("cbrChart")
        item = self.plot.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.hideButtons()
        item.setMenuEnabled(False)
        plain_axes(item)
        item.setLabel("bottom", "retrieval seconds (all queries)")
        # The legend in a row of its own under the x axis, outside the points' box (which clips the point labels):
        # no label can run into it.
        self.legend_row = pg.GraphicsWidget()
        item.layout.addItem(self.legend_row, 4, 0, 1, 3)     # under the axes, the whole width
        self.legend = pg.LegendItem(colCount=2)
        self.legend.setParentItem(self.legend_row)
        self.macfac = pg.ScatterPlotItem(size=10, brush=pg.mkBrush(run_colour(0)), pen=pg.mkPen("#ffffff", width=0.5),
                                         hoverable=True, tip=self._tip)
        self.linear = pg.ScatterPlotItem(size=13, symbol="star", brush=pg.mkBrush(run_colour(3)),
                                         pen=pg.mkPen("#ffffff", width=0.5), hoverable=True, tip=self._tip)
        self.reference = pg.InfiniteLine(angle=0, pen=pg.mkPen(run_colour(3), width=1, style=Qt.PenStyle.DashLine))
        item.addItem(self.macfac)
        item.addItem(self.linear)
        item.addItem(self.reference)
        self.legend.addItem(self.macfac, "MAC/FAC (filter size/k)")
        self.legend.addItem(self.linear, "linear (reference)")
        self.legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0))
        self._fit_legend()
        item.vb.sigResized.connect(lambda _: self._fit_legend())
        self.labels: list[pg.TextItem] = []
        export = export_button("Export…", self.export_dialog)
        self.page = with_toolbar(self.plot, [QLabel("Metric"), self.metric, export])

    def _fit_legend(self) -> None:
        """Both entries side by side when the chart is wide enough, else one above the other; the row as high."""
        width = self.plot.getPlotItem().width()
        for columns in (2, 1):
            if self.legend.columnCount != columns:
                self.legend.setColumnCount(columns)
            self.legend.updateSize()
            if self.legend.width() <= width - 4:
                break
        if self.legend_row.maximumHeight() != self.legend.height() + 2:
            self.legend_row.setFixedHeight(self.legend.height() + 2)

    @property
    def outcome(self):
        return self.comparison

    def choices(self) -> list[ChoiceBox]:
        return [self.metric]

    def update_choices(self) -> None:
        table = self.outcome.table if self.outcome is not None else None
        metrics = [] if table is None else [m for m in dict.fromkeys(table[METRIC].tolist()) if m not in TIMING]
        self.metric.set_items([(m, m) for m in metrics])

    @staticmethod
    def _tip(x: float, y: float, data) -> str:
        return tip(f"{data}\n{x:.4g} s\nvalue {y:.4f}")

    def draw(self) -> None:
        super().draw()
        item = self.plot.getPlotItem()
        for label in self.labels:
            item.removeItem(label)
        self.labels = []
        metric = self.metric.currentData()
        table = self.outcome.table if self.outcome is not None else None
        if table is None or metric is None or FILTER_SIZE not in table.columns:
            self.macfac.clear()
            self.linear.clear()
            self.reference.hide()
            item.setTitle("" if table is None else "No retrieval times: similarity files only", size="10pt")
            return
        x, y, names = sweep_points(table, metric, MACFAC)
        lx, ly, lnames = sweep_points(table, metric, LINEAR)
        self.macfac.setData(x=x, y=y, data=np.array(names, dtype=object))
        self.linear.setData(x=lx, y=ly, data=np.array(lnames, dtype=object))
        finite = ly[np.isfinite(ly)]
        self.reference.setVisible(bool(len(finite)) and bool(np.all(finite == finite[0])))
        if len(finite):
            self.reference.setValue(float(finite[0]))
        # Labels alternate above and below their points, in order of time: close points stay readable.
        # The linear retriever's say which k each star is ("k=5"), in its colour.
        text = plot_colours(self.plot.palette())[1].name()         # the window's text colour (dark or light)
        points = [(sx, sy, name, text) for sx, sy, name in zip(x, y, names)]
        points += [(sx, sy, name.removeprefix("linear "), run_colour(3)) for sx, sy, name in zip(lx, ly, lnames)]
        points.sort(key=lambda p: p[0])
        for i, (sx, sy, name, colour) in enumerate(points):
            if np.isfinite(sy):
                text = pg.TextItem(name, color=colour, anchor=(0, 1) if i % 2 == 0 else (0, 0))
                text.setPos(float(sx), float(sy))
                item.addItem(text)
                self.labels.append(text)
        item.setLabel("left", rich(shown_name(metric)))
        item.setTitle(f"{rich(shown_name(metric))} vs time, {len(x)} MAC/FAC pair(s)", size="10pt")
        item.enableAutoRange()
        item.getViewBox().setDefaultPadding(0.1)
        values = np.concatenate([np.asarray(y, dtype=float), np.asarray(ly, dtype=float)])
        values = values[np.isfinite(values)]
        if len(values) and np.ptp(values) <= 1e-9 * max(1.0, float(np.abs(values).max())):
            # Every value the same (up to rounding: correctness 1 and 0.9999999999999999): a range of
            # 1e-16 would label its ticks "0.9999999999999998"; 5 % either side reads as one value.
            centre = float(values.mean())
            half = 0.05 * max(abs(centre), 1.0)
            item.setYRange(centre - half, centre + half, padding=0)

    def point_count(self) -> int:
        return len(self.macfac.data)

    def export_dialog(self) -> None:
        self.shown()
        export_plot_dialog(self.page, self.plot, file_words("Quality against time", self.metric.currentText()))

    def export_targets(self) -> list:
        return [("Quality vs time chart…", self.export_dialog)] if self.outcome is not None else []
