"""pyqtgraph plots: live precision-recall curves and the per-query difference chart.

Curves are updated with setData (never re-created) so redraws stay fast; the
axes are fixed to [0, 1] so a curve means the same thing after every update.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from evalgui.gui.naming import label as shown_name
from evalgui.gui.plain_text import rich

# Okabe-Ito: tells runs apart for colour-blind readers too.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
HELPED, HURT, TIED = "#2e7d32", "#c62828", "#9e9e9e"

pg.setConfigOptions(antialias=True, background="w", foreground="k")


def run_colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def plain_axes(item: pg.PlotItem) -> None:
    """No automatic SI prefix on any axis: scores have no unit, and pyqtgraph would write a
    meaningless "(x0.001)" beside a label whenever the range stays below 1. The plot follows the
    window's palette (dark in a dark window)."""
    from evalgui.gui.plot_palette import follow_palette

    for side in ("left", "bottom", "right", "top"):
        axis = item.getAxis(side)
        axis.enableAutoSIPrefix(False)
        if type(axis).tickStrings is pg.AxisItem.tickStrings and not axis.logMode:
            axis.tickStrings = decimal_ticks        # not pyqtgraph's e-notation (5e-05) on a small range
    for view in item.scene().views() if item.scene() is not None else ():
        follow_palette(view)


def decimal_ticks(values, scale, spacing) -> list[str]:
    """Tick labels as decimals, with as many places as the spacing needs (0.00005, not 5e-05)."""
    import math

    places = min(12, max(0, math.ceil(-math.log10(spacing * scale)))) if spacing * scale > 0 else 0
    texts = [f"{v * scale:.{places}f}" for v in values]
    return [t.lstrip("-") if float(t) == 0 else t for t in texts]         # no "-0.00"


def _plot_view(plot) -> pg.GraphicsView:
    """The widget showing ``plot``: a PlotWidget (or any pyqtgraph GraphicsView) or a PlotItem in one."""
    return plot if isinstance(plot, pg.GraphicsView) else plot.scene().views()[0]


def svg_bytes(widget: pg.GraphicsView, name: str = "") -> bytes:
    """The widget drawn as SVG, as the screen shows it, for browsers, librsvg and Qt alike.

    pyqtgraph 0.14's SVGExporter cannot parse the path data Qt 6 writes (a lone "Z"), so the widget
    is drawn into Qt's SVG generator, with four corrections:
    - the generator's resolution is that of QPicture: pyqtgraph draws axes, grids and bars as
      QPictures, and Qt scales a picture by the ratio of the two resolutions (72 vs 96 dpi made
      them 0.75 times too small while curves kept their size);
    - SVG 1.1 output, which keeps the plot's clipping (SVG Tiny drops it; QSvgRenderer ignores
      clip-path, so only a zoomed plot differs there);
    - the items are drawn one by one (``_paint_items``), each setting its own clip: the generator
      does not write the clip that QPainter.restore() brings back, so after QGraphicsView's
      per-item save/restore later items were clipped to an earlier item's box (or not at all);
    - cosmetic (constant-width) lines are written in page coordinates (``flatten_svg``).
    Black on white whatever the window's palette (``on_white``); ids prefixed by ``name`` (a file's name).
    """
    import hashlib

    from evalgui.core.workflows.report import scoped_ids
    from evalgui.gui.plot_palette import on_white

    with on_white(widget):          # black on white in a dark window too: for documents
        svg = _svg_bytes(widget)
    # Qt names every drawing's clip paths clipPath1, clipPath2, …: a page quoting several SVGs would clip
    # each with the first one's. Ids get a prefix of their own: a digest of the file's name (``name``; the name
    # itself would put machine words such as P_10 into the file), else of the drawing.
    tag = hashlib.sha1(name.encode("utf-8") if name else svg).hexdigest()[:10]
    return scoped_ids(svg.decode("utf-8"), f"plot-{tag}-").encode("utf-8")


def settle(widget: pg.GraphicsView) -> None:
    """Lay the plot out and map its data as painting it on screen would, before it is drawn elsewhere: Qt lays
    out a resized item (a colour bar whose labels widened) at the next event loop turn, an axis measures its
    labels when it is drawn, and a view box maps its data to the page just before a paint. Drawn without them,
    a colour bar overflowed the picture and curves stopped short of their axes' ends."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtGui import QImage, QPainter

    def lay_out() -> None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        widget.scene().prepareForPaint()

    lay_out()
    # Only the axes: drawing them measures their labels (the curves, drawn too, cost a plot's whole paint).
    scratch = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(scratch)
    try:
        for item in widget.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible():
                item.paint(painter, None, None)
    finally:
        painter.end()
    lay_out()


def _svg_bytes(widget: pg.GraphicsView) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect
    from PySide6.QtGui import QPainter, QPicture
    from PySide6.QtSvg import QSvgGenerator

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)
    generator.setOutputDevice(buffer)
    generator.setResolution(QPicture().logicalDpiX())
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle("evalgui plot")
    generator.setDescription("Drawn by evalgui")
    # In export mode scatter symbols are drawn as paths, not as fragments of a cached pixmap
    # (which Qt's generator writes as the whole pixmap: two symbols per point).
    items = [item for item in widget.scene().items() if hasattr(item, "setExportMode")]
    settle(widget)
    painter = QPainter(generator)
    try:
        for item in items:
            item.setExportMode(True, {"antialias": True, "painter": painter})
        _paint_items(widget, painter)
    finally:
        painter.end()
        for item in items:
            item.setExportMode(False)
        buffer.close()
    return flatten_svg(bytes(data))


def _paint_items(view: pg.GraphicsView, painter) -> None:
    """Paint the view's background and visible items bottom to top, as QGraphicsView would, but with
    each item's clip set from scratch (ReplaceClip, or none) rather than restored."""
    from PySide6.QtCore import QPoint, QRectF
    from PySide6.QtGui import QPainterPath, QTransform
    from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

    flags = QGraphicsItem.GraphicsItemFlag
    offset = view.viewport().mapTo(view, QPoint(0, 0))
    to_device = view.viewportTransform() * QTransform.fromTranslate(offset.x(), offset.y())
    background = view.backgroundBrush()
    if background.style() != Qt.BrushStyle.NoBrush:
        painter.fillRect(QRectF(0, 0, view.width(), view.height()), background)
    for item in view.scene().items(Qt.SortOrder.AscendingOrder):
        if not item.isVisible() or item.flags() & flags.ItemHasNoContents or item.effectiveOpacity() <= 0:
            continue
        clip: QPainterPath | None = None
        owner = item if item.flags() & flags.ItemClipsToShape else None
        for clipper in ([owner] if owner else []) + _clipping_ancestors(item):
            shape = clipper.deviceTransform(to_device).map(clipper.shape())
            clip = shape if clip is None else clip.intersected(shape)
        painter.save()
        painter.resetTransform()
        if clip is not None:
            painter.setClipPath(clip, Qt.ClipOperation.ReplaceClip)
        else:
            painter.setClipping(False)
        painter.setTransform(item.deviceTransform(to_device))
        painter.setOpacity(item.effectiveOpacity())
        option = QStyleOptionGraphicsItem()
        option.exposedRect = item.boundingRect()
        item.paint(painter, option, None)
        painter.restore()


def _clipping_ancestors(item) -> list:
    from PySide6.QtWidgets import QGraphicsItem

    found, parent = [], item.parentItem()
    while parent is not None:
        if parent.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape:
            found.append(parent)
        parent = parent.parentItem()
    return found


_SVG = "http://www.w3.org/2000/svg"
_SHAPES = {f"{{{_SVG}}}{tag}" for tag in ("path", "polyline", "polygon", "rect", "line", "ellipse", "circle")}
_PATH_TOKEN = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def flatten_svg(svg: bytes) -> bytes:
    """Rewrite Qt's SVG so every viewer draws it alike.

    Qt writes a line drawn in data coordinates as a path inside a group scaled by the view
    (e.g. 524 × -311) with ``vector-effect="non-scaling-stroke"``. librsvg ignores that property
    and strokes the line 311 pixels wide, covering the plot. Such shapes get their coordinates
    mapped to the page and lose the transform; anything else in a transformed group (text,
    images) keeps it in a group of its own. Text also loses Qt's clip to the label's box: another
    viewer's font is a little wider and would be cut off. Empty groups are dropped.
    """
    import xml.etree.ElementTree as ET

    ET.register_namespace("", _SVG)
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    root = ET.fromstring(svg)
    _flatten_children(root)
    for element in root.iter():
        family = element.get("font-family")
        if family is not None and family.strip().lower() not in _GENERIC_FONTS:
            element.set("font-family", _with_generic_font(family))
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


_GENERIC_FONTS = {"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui"}


def _with_generic_font(family: str) -> str:
    """Qt names the font it drew with ("Sans Serif", Qt's own alias): a browser that has no such font would
    fall back to its default, a serif. The generic family it stands for comes after it."""
    names = [name.strip().strip("'\"") for name in family.split(",") if name.strip()]
    if names and names[-1].lower() in _GENERIC_FONTS:
        return family
    generic = "monospace" if any("mono" in n.lower() for n in names) else \
        "serif" if names and names[0].lower() == "serif" else "sans-serif"
    return ", ".join([f"'{n}'" if " " in n else n for n in names] + [generic])


def _flatten_children(parent) -> None:
    import xml.etree.ElementTree as ET

    group_tag = f"{{{_SVG}}}g"
    for element in list(parent):
        if element.tag != group_tag:
            continue
        _flatten_children(element)
        matrix = _parse_matrix(element.get("transform", ""))
        if matrix is not None:
            del element.attrib["transform"]
            for index, child in enumerate(list(element)):
                if not _map_shape(child, matrix):
                    wrapper = ET.Element(group_tag, {"transform": "matrix({})".format(",".join(map(_number, matrix)))})
                    element.remove(child)
                    wrapper.append(child)
                    element.insert(index, wrapper)
        if "clip-path" in element.attrib and _only_text(element):
            del element.attrib["clip-path"]
        if len(element) == 0 and not (element.text or "").strip():
            parent.remove(element)


def _only_text(element) -> bool:
    leaves = [e for e in element.iter() if e is not element and e.tag != f"{{{_SVG}}}g"]
    return bool(leaves) and all(e.tag in (f"{{{_SVG}}}text", f"{{{_SVG}}}tspan") for e in leaves)


def _parse_matrix(text: str):
    found = re.fullmatch(r"\s*matrix\(([^)]*)\)\s*", text)
    if not found:
        return None
    values = [float(v) for v in re.split(r"[\s,]+", found.group(1).strip())]
    return tuple(values) if len(values) == 6 else None


def _number(value: float) -> str:
    return f"{value:.6g}"


def _map_shape(element, m) -> bool:
    """Map a constant-width shape's coordinates through ``m`` in place; False if it cannot be."""
    if element.tag not in _SHAPES or element.get("vector-effect") != "non-scaling-stroke":
        return False
    a, b, c, d, e, f = m

    def point(x: float, y: float) -> tuple[float, float]:
        return a * x + c * y + e, b * x + d * y + f

    tag = element.tag.rsplit("}", 1)[1]
    get = lambda name: float(element.get(name, "0"))   # noqa: E731
    axis_aligned = b == 0 and c == 0
    if tag == "path":
        mapped = _map_path(element.get("d", ""), point)
        if mapped is None:
            return False
        element.set("d", mapped)
    elif tag in ("polyline", "polygon"):
        numbers = [float(v) for v in re.split(r"[\s,]+", element.get("points", "").strip()) if v]
        pairs = [point(x, y) for x, y in zip(numbers[::2], numbers[1::2])]
        element.set("points", " ".join(f"{_number(x)},{_number(y)}" for x, y in pairs))
    elif tag == "line":
        x1, y1 = point(get("x1"), get("y1"))
        x2, y2 = point(get("x2"), get("y2"))
        for name, value in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)):
            element.set(name, _number(value))
    elif tag == "rect":
        if not axis_aligned or element.get("rx") or element.get("ry"):
            return False
        x1, y1 = point(get("x"), get("y"))
        x2, y2 = point(get("x") + get("width"), get("y") + get("height"))
        for name, value in (("x", min(x1, x2)), ("y", min(y1, y2)), ("width", abs(x2 - x1)),
                            ("height", abs(y2 - y1))):
            element.set(name, _number(value))
    else:   # ellipse, circle
        if not axis_aligned:
            return False
        cx, cy = point(get("cx"), get("cy"))
        rx, ry = (get("r"), get("r")) if tag == "circle" else (get("rx"), get("ry"))
        element.tag = f"{{{_SVG}}}ellipse"
        element.attrib.pop("r", None)
        for name, value in (("cx", cx), ("cy", cy), ("rx", rx * abs(a)), ("ry", ry * abs(d))):
            element.set(name, _number(value))
    # The width stays as given (in page units now), scaling with the figure like everything else.
    del element.attrib["vector-effect"]
    return True


def _map_path(data: str, point) -> str | None:
    """Absolute M/L/C/Q/S/T/Z path data (what Qt writes) mapped point by point; None for anything else."""
    tokens = _PATH_TOKEN.findall(data)
    out: list[str] = []
    numbers: list[float] = []

    def flush() -> bool:
        if len(numbers) % 2:
            return False
        for x, y in zip(numbers[::2], numbers[1::2]):
            px, py = point(x, y)
            out.append(f"{_number(px)},{_number(py)}")
        numbers.clear()
        return True

    for token in tokens:
        if token.isalpha():
            if not flush() or token not in "MLCQSTZz":
                return None
            out.append(token)
        else:
            numbers.append(float(token))
    if not flush():
        return None
    return " ".join(out)


def export_plot(plot, path: str) -> None:
    """Write the plot (a PlotWidget, any pyqtgraph GraphicsView, or a PlotItem) as PNG or SVG, by
    extension, atomically."""
    import pyqtgraph.exporters as exporters

    from evalgui.core.export import atomic_path

    from evalgui.gui.plot_palette import on_white

    widget = _plot_view(plot)
    ext = os.path.splitext(path)[1].lower() or ".png"
    # (black on white in a dark window too: exports go into documents)
    with on_white(widget):
        if ext == ".svg":
            data = svg_bytes(widget, os.path.splitext(os.path.basename(path))[0])
        else:
            settle(widget)
            item = widget.getPlotItem() if isinstance(widget, pg.PlotWidget) else widget.scene()
            exporter = exporters.ImageExporter(item)
            width = (item.sceneBoundingRect() if isinstance(item, pg.PlotItem) else item.sceneRect()).width()
            exporter.parameters()["width"] = max(int(width) * 2, 800)
            with _legends_scaled(widget.scene()):
                data = _image_bytes(exporter.export(toBytes=True), ext, path)
    if not data:
        raise OSError(errno.EIO, f"nothing was drawn{_memory_words()}", path)
    # Encoded in memory, written by Python: a full disk is an OSError naming the file, never an image
    # writer's own message and a truncated image under the final name (QImage.save only returns False).
    with atomic_path(path, suffix=ext) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)


def _memory_words() -> str:
    """Why Qt made no image, as far as can be told: the memory limit it ran into, when there is one (Qt says
    only that it failed)."""
    from evalgui.core import memory

    return f": {memory.ran_out()}" if memory.limited() else " (too little memory?)"


def _image_bytes(image, ext: str, path: str) -> bytes:
    """``image`` (a QImage) encoded in the format its extension names (.png: PNG)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    try:
        if not image.save(buffer, ext.lstrip(".").upper()):
            raise OSError(errno.ENOMEM, f"Qt could not make the {ext} image{_memory_words()}", path)
    finally:
        buffer.close()
    return bytes(data)


@contextlib.contextmanager
def _legends_scaled(scene):
    """Legends drawn at the image's scale, like the axes and labels: a pyqtgraph legend ignores
    transformations (it keeps its size when the view zooms), so in an image drawn at twice the
    screen's size it came out half as big as everything else."""
    from PySide6.QtWidgets import QGraphicsItem

    flag = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    legends = [i for i in scene.items() if isinstance(i, pg.LegendItem) and i.flags() & flag]
    for legend in legends:
        legend.setFlag(flag, False)
    try:
        yield
    finally:
        for legend in legends:
            legend.setFlag(flag, True)


def export_plot_dialog(parent: QWidget, plot_widget: pg.PlotWidget, default_name: str) -> None:
    """Ask for a PNG or SVG file and write the plot there (a failure is shown, never raised)."""
    from evalgui.gui.exporting import PLOT_FORMATS, export_dialog

    export_dialog(parent, default_name, PLOT_FORMATS, lambda path: export_plot(plot_widget, path),
                  title="Export plot")


class PrecisionRecallPlot(pg.PlotWidget):
    """One curve per run; shows interpolated (11 points) or uninterpolated curves, mean or one query."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("prPlot")
        item = self.getPlotItem()
        plain_axes(item)
        item.setLabel("bottom", "Recall")
        item.setLabel("left", "Precision")
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setXRange(0, 1, padding=0.02)
        item.setYRange(0, 1.02, padding=0.02)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self.legend = item.addLegend(offset=(-10, 10))
        keep_legend_clear(item, self.legend)
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
            self._curves[run] = self.plot([], [], name=rich(label), pen=pg.mkPen(colour, width=2),
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
                                    + ("" if self.query == "all" else f", query {rich(self.query)}"), size="10pt")

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
        plain_axes(item)
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
        item.setLabel("left", rich(f"{shown_name(measure)}: {run} − {baseline}"))
        left_out = "" if of_queries is None or of_queries <= n else \
            f" ({of_queries - n} of {of_queries} queries left out: not in both runs)"
        item.setTitle(f"{rich(run)} vs {rich(baseline)}: helped {int(counts.get('helped', 0))}, "
                      f"hurt {int(counts.get('hurt', 0))}, tied {int(counts.get('tied', 0))}{left_out}", size="10pt")


# ------------------------------------------------------------------ a legend where the curves are not
_CORNERS = ((1, 0), (0, 0), (1, 1), (0, 1))          # (x, y) of the legend's corner: top right first


def keep_legend_clear(item: pg.PlotItem, legend: pg.LegendItem, margin: int = 10) -> None:
    """Put ``legend`` in the corner of the plot where it covers the fewest points of its curves (the lines
    between them too), and again whenever the view's range or size changes. Top right when all are clear."""
    def place(*_):
        corner = clearest_corner(item, legend, margin)
        offset = (margin if corner[0] == 0 else -margin, margin if corner[1] == 0 else -margin)
        legend.anchor(itemPos=corner, parentPos=corner, offset=offset)

    item.vb.sigRangeChanged.connect(place)
    item.vb.sigResized.connect(place)
    legend.place_clear = place          # for views that redraw: call after adding curves


def clearest_corner(item: pg.PlotItem, legend: pg.LegendItem, margin: int = 10) -> tuple[int, int]:
    """The corner (as anchor fractions) where the legend's box holds the fewest points of the plot's curves."""
    view = item.vb
    box = view.boundingRect()
    width, height = legend.boundingRect().width(), legend.boundingRect().height()
    if box.width() <= 0 or not width or not height:
        return _CORNERS[0]
    xs, ys = [], []
    for curve in item.listDataItems():
        if not curve.isVisible():
            continue
        x, y = curve.getData()
        if x is None or not len(x):
            continue
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        # the lines between points too: ten points along each segment
        steps = np.linspace(0.0, 1.0, 10, endpoint=False)
        if len(x) > 1:
            x = np.concatenate([(x[:-1, None] + np.diff(x)[:, None] * steps).ravel(), x[-1:]])
            y = np.concatenate([(y[:-1, None] + np.diff(y)[:, None] * steps).ravel(), y[-1:]])
        xs.append(x)
        ys.append(y)
    if not xs:
        return _CORNERS[0]
    x, y = np.concatenate(xs), np.concatenate(ys)
    (x0, x1), (y0, y1) = view.viewRange()
    if x1 == x0 or y1 == y0:
        return _CORNERS[0]
    # in the view box's pixels (y down)
    px = (x - x0) / (x1 - x0) * box.width()
    py = (y1 - y) / (y1 - y0) * box.height()
    counts = []
    for cx, cy in _CORNERS:
        left = margin if cx == 0 else box.width() - margin - width
        top = margin if cy == 0 else box.height() - margin - height
        inside = (px >= left) & (px <= left + width) & (py >= top) & (py <= top + height)
        counts.append(int(inside.sum()))
    return _CORNERS[int(np.argmin(counts))]
