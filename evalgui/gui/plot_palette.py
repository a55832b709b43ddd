"""Plots in the window's colours: a dark palette gives dark plots (background, axes, text, grid, titles, legends).

Exported images (PNG, SVG, the report's) stay black on white whatever the window's palette: they go on
paper and into documents with white pages (``on_white``).
"""

from __future__ import annotations

import contextlib

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QPalette

WHITE, BLACK = QColor("#ffffff"), QColor("#000000")


def follow_palette(view: pg.GraphicsView) -> None:
    """Colour ``view`` from its palette when it is first shown and whenever the palette changes (items added
    before it is shown, such as legends and axis labels, are coloured too)."""
    if getattr(view, "_palette_follower", None) is None:
        view._palette_follower = _Follower(view)
    paint_from_palette(view)


def plot_colours(palette: QPalette) -> tuple[QColor, QColor]:
    """(background, foreground) of a plot in a window of ``palette``: its text fields' colours."""
    return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)


def paint_from_palette(view: pg.GraphicsView) -> None:
    paint(view, *plot_colours(view.palette()))


def paint(view: pg.GraphicsView, background: QColor, foreground: QColor) -> None:
    """Background, axes (their grid lines take the axis colour), titles and legends in these colours."""
    view.setBackground(background)
    name = foreground.name()
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem):
            width = item.pen().widthF()
            item.setPen(pg.mkPen(foreground, width=width))
            item.setTextPen(pg.mkPen(foreground))
        elif isinstance(item, pg.LegendItem):
            item.setLabelTextColor(foreground)
            brush = item.brush()
            if brush.style() != 0:             # a filled legend: the background's colour, as see-through as it was
                colour = QColor(background)
                colour.setAlpha(brush.color().alpha())
                item.setBrush(pg.mkBrush(colour))
        elif isinstance(item, pg.LabelItem) and item.opts.get("color") != name:
            item.opts["color"] = name           # later titles too (setTitle keeps the label's options)
            item.setText(item.text)


@contextlib.contextmanager
def on_white(view: pg.GraphicsView):
    """Draw an export black on white, then give the view back its palette's colours."""
    light = plot_colours(view.palette()) == (WHITE, BLACK)
    if not light:
        paint(view, WHITE, BLACK)
    try:
        yield
    finally:
        if not light:
            paint_from_palette(view)


class _Follower(QObject):
    """Colours the view when it is first shown (its legends and labels exist by then; later ones keep the colours
    set) and whenever its palette changes."""

    def __init__(self, view: pg.GraphicsView):
        super().__init__(view)
        self.shown = False
        view.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.PaletteChange or (kind == QEvent.Type.Show and not self.shown):
            self.shown = self.shown or kind == QEvent.Type.Show
            paint_from_palette(watched)
        return False


def dark_plot(view: pg.GraphicsView) -> bool:
    return plot_colours(view.palette())[0].lightness() < 128


def readable_on_dark(colour) -> QColor:
    """A label's colour lightened until it reads on a dark plot (the palette's black and dark blue do not)."""
    colour = QColor(colour)
    hue, saturation, lightness, alpha = colour.getHsl()
    return QColor.fromHsl(max(hue, 0), saturation, max(lightness, 170), alpha)
