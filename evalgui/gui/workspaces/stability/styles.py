"""How the views look: the plots tell the measures apart by the shared run colours, then by other
symbols and dashed lines beyond the palette's eight (the original's example set alone has nine
measures); a combination's choice box shows it whole."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from evalgui.gui.plots import PALETTE, run_colour
from evalgui.gui.toolbar import ControlRow

SYMBOLS = ("o", "s", "t", "d", "star", "h")
LEVEL_WIDTH = 75                 # pixels: a fuzziness level's box ("0.005")
COMBINATION_WIDTH = 300          # pixels, at most: "10 queries · 20 systems · 2,000 entities" fits


def measure_style(i: int) -> tuple[str, str, Qt.PenStyle]:
    """(colour, symbol, line style) of the i-th measure."""
    round_ = i // len(PALETTE)
    return run_colour(i), SYMBOLS[round_ % len(SYMBOLS)], Qt.PenStyle.SolidLine if round_ % 2 == 0 \
        else Qt.PenStyle.DashLine


def label_colour(colour: str) -> QColor:
    """A point's colour, dark enough for its label to read on white (the palette's yellow is not)."""
    return QColor(colour).darker(150)


def show_combinations_whole(box) -> None:
    """After a refill: the box as wide as its longest entry (up to COMBINATION_WIDTH), as a toolbar gives each
    box only a share of the row, and "20 queries · 14 sys" says too little. A narrow page's row scrolls."""
    metrics = box.fontMetrics()
    widest = max((metrics.horizontalAdvance(box.itemText(i)) for i in range(box.count())), default=0)
    box.setMinimumWidth(min(widest + 36, COMBINATION_WIDTH))       # room for the arrow
    # The toolbar's row is told it may need a scroll bar now (it asks only when its own width changes).
    ancestor = box.parentWidget()
    while ancestor is not None and not isinstance(ancestor, ControlRow):
        ancestor = ancestor.parentWidget()
    if ancestor is not None:
        ancestor.updateGeometry()
