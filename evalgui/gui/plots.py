"""pyqtgraph plots: live precision-recall curves and the per-query difference chart.

Curves are updated with setData (never re-created) so redraws stay fast; the
axes are fixed to [0, 1] so a curve means the same thing after every update.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

# Okabe-Ito: tells runs apart for colour-blind readers too.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
HELPED, HURT, TIED = "#2e7d32", "#c62828", "#9e9e9e"

pg.setConfigOptions(antialias=True, background="w", foreground="k")


def run_colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _write_svg(widget, path: str) -> None:
    # pyqtgraph's SVGExporter rewrites Qt's SVG path data and fails on what Qt 6 writes
    # (a lone "Z" token), so render the plot widget into Qt's SVG generator directly.
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle("evalgui plot")
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()


def export_plot(plot, path: str) -> None:
    """Write the plot (a PlotWidget or its PlotItem) as PNG or SVG, by extension, atomically."""
    import pyqtgraph.exporters as exporters

    plot_widget = plot if isinstance(plot, pg.PlotWidget) else plot.scene().views()[0]
    ext = os.path.splitext(path)[1].lower() or ".png"
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".evalgui-", suffix=ext, dir=folder)
    os.close(fd)
    try:
        if ext == ".svg":
            _write_svg(plot_widget, tmp)
        else:
            plot_item = plot_widget.getPlotItem()
            exporter = exporters.ImageExporter(plot_item)
            exporter.parameters()["width"] = max(int(plot_item.sceneBoundingRect().width()) * 2, 800)
            exporter.export(tmp)
        if os.path.getsize(tmp) == 0:
            raise OSError(f"nothing was written to {path}")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def export_plot_dialog(parent: QWidget, plot_widget: pg.PlotWidget, default_name: str) -> None:
    from evalgui.gui.settings import app_settings
    from evalgui.gui.tables import with_extension

    settings = app_settings()
    folder = str(settings.value("last_export_folder", "") or "")
    path, chosen = QFileDialog.getSaveFileName(parent, "Export plot", os.path.join(folder, f"{default_name}.png"),
                                               "PNG image (*.png);;SVG (*.svg)")
    if not path:
        return
    path = with_extension(path, chosen)
    settings.setValue("last_export_folder", os.path.dirname(os.path.abspath(path)))
    try:
        export_plot(plot_widget, path)
    except Exception as exc:   # never let a failed export escape a button's slot
        QMessageBox.critical(parent, "Export failed", f"{path}: {getattr(exc, 'strerror', None) or exc}")


class PrecisionRecallPlot(pg.PlotWidget):
    """One curve per run; shows interpolated (11 points) or uninterpolated curves, mean or one query."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("prPlot")
        item = self.getPlotItem()
        item.setLabel("bottom", "Recall")
        item.setLabel("left", "Precision")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setXRange(0, 1, padding=0.02)
        item.setYRange(0, 1.02, padding=0.02)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self.legend = item.addLegend(offset=(-10, 10))
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._data: dict[str, dict] = {}
        self.kind = "interpolated"
        self.query = "all"

    def clear_runs(self) -> None:
        for curve in self._curves.values():
            self.getPlotItem().removeItem(curve)
            self.legend.removeItem(curve)
        self._curves.clear()
        self._data.clear()

    def set_run(self, run: str, curves: dict) -> None:
        """Add or replace a run's curves: (kind, query) -> (recall, precision) arrays."""
        self._data[run] = curves
        if run not in self._curves:
            colour = run_colour(len(self._curves))
            label = run if len(run) <= 32 else run[:30] + "…"     # long names would cover the plot
            self._curves[run] = self.plot([], [], name=label, pen=pg.mkPen(colour, width=2),
                                          symbol="o", symbolSize=6, symbolBrush=colour, symbolPen=None)
        self._update(run)

    def show_curves(self, kind: str | None = None, query: str | None = None) -> None:
        if kind is not None:
            self.kind = kind
        if query is not None:
            self.query = query
        for run in self._curves:
            self._update(run)
        self.getPlotItem().setTitle(("Interpolated precision at 11 recall levels" if self.kind == "interpolated"
                                     else "Precision after each relevant document")
                                    + ("" if self.query == "all" else f", query {self.query}"), size="10pt")

    def _update(self, run: str) -> None:
        recall, precision = self._data[run].get((self.kind, self.query), (np.empty(0), np.empty(0)))
        curve = self._curves[run]
        curve.setData(recall, precision)
        # Uninterpolated curves have many points: markers only where they stay readable.
        curve.setSymbol("o" if len(recall) <= 30 else None)

    def runs(self) -> list[str]:
        return list(self._curves)

    def curve_points(self, run: str) -> tuple[np.ndarray, np.ndarray]:
        x, y = self._curves[run].getData()
        return (np.asarray(x), np.asarray(y)) if x is not None else (np.empty(0), np.empty(0))


class DifferenceChart(pg.PlotWidget):
    """Per-query difference of a run against a baseline, bars sorted from most helped to most hurt."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("diffChart")
        item = self.getPlotItem()
        item.showGrid(y=True, alpha=0.25)
        item.setLabel("bottom", "Queries, sorted by difference")
        item.getAxis("left").enableAutoSIPrefix(False)   # differences are small: show 0.15, not 150 (x0.001)
        item.hideButtons()
        self._bars: pg.BarGraphItem | None = None
        self._zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#555", width=1))
        item.addItem(self._zero)
        # Which query a bar is: shown under the mouse pointer.
        self.hover = pg.TextItem("", anchor=(0, 1), color="#222", fill=pg.mkBrush(255, 255, 255, 220))
        self.hover.setZValue(10)
        self.hover.hide()
        item.addItem(self.hover, ignoreBounds=True)
        self.scene().sigMouseMoved.connect(self._mouse_moved)
        self.frame = pd.DataFrame()

    def hover_text(self, index: int) -> str:
        row = self.frame.iloc[index]
        return (f"query {row['query']}\n{row['value']:.4f} vs {row['baseline_value']:.4f}\n"
                f"difference {row['difference']:+.4f}")

    def _mouse_moved(self, position) -> None:
        view = self.getPlotItem().vb
        if self.frame.empty or not view.sceneBoundingRect().contains(position):
            self.hover.hide()
            return
        point = view.mapSceneToView(position)
        index = int(round(point.x()))
        if not 0 <= index < len(self.frame):
            self.hover.hide()
            return
        self.hover.setText(self.hover_text(index))
        self.hover.setPos(point.x(), point.y())
        self.hover.show()

    def set_differences(self, frame: pd.DataFrame, run: str, baseline: str, measure: str,
                        of_queries: int | None = None) -> None:
        """``frame``: rows for one run (query, difference, outcome), sorted by difference descending.

        ``of_queries``: how many queries either run has, to say how many were left out."""
        self.frame = frame
        self.hover.hide()
        item = self.getPlotItem()
        if self._bars is not None:
            item.removeItem(self._bars)
            self._bars = None
        n = len(frame)
        if n:
            colours = frame["outcome"].map({"helped": HELPED, "hurt": HURT}).fillna(TIED).tolist()
            self._bars = pg.BarGraphItem(x=np.arange(n), height=frame["difference"].to_numpy(float), width=0.8,
                                         brushes=colours, pens=[pg.mkPen(None)] * n)
            item.addItem(self._bars)
            queries = frame["query"].astype(str).tolist()
            # Room for about one label per 60 pixels; the rest are named by hovering over the bars.
            room = max(int(self.width() / 60), 4)
            step = max(1, -(-n // room))
            item.getAxis("bottom").setTicks([[(i, queries[i]) for i in range(0, n, step)]])
            item.setXRange(-0.6, n - 0.4, padding=0)
            top = float(np.nanmax(np.abs(frame["difference"].to_numpy(float)))) if n else 1.0
            top = top if top > 0 else 1.0
            item.setYRange(-top * 1.05, top * 1.05, padding=0)
        counts = frame["outcome"].value_counts() if n else {}
        item.setLabel("left", f"{measure}: {run} − {baseline}")
        left_out = "" if of_queries is None or of_queries <= n else \
            f" ({of_queries - n} of {of_queries} queries left out: not in both runs)"
        item.setTitle(f"{run} vs {baseline}: helped {int(counts.get('helped', 0))}, "
                      f"hurt {int(counts.get('hurt', 0))}, tied {int(counts.get('tied', 0))}{left_out}", size="10pt")
