"""How the plots tell the measures apart: the shared run colours, then other symbols and dashed lines
beyond the palette's eight (the original's example set alone has nine measures)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from evalgui.gui.plots import PALETTE, run_colour

SYMBOLS = ("o", "s", "t", "d", "star", "h")


def measure_style(i: int) -> tuple[str, str, Qt.PenStyle]:
    """(colour, symbol, line style) of the i-th measure."""
    round_ = i // len(PALETTE)
    return run_colour(i), SYMBOLS[round_ % len(SYMBOLS)], Qt.PenStyle.SolidLine if round_ % 2 == 0 \
        else Qt.PenStyle.DashLine


def label_colour(colour: str) -> QColor:
    """A point's colour, dark enough for its label to read on white (the palette's yellow is not)."""
    return QColor(colour).darker(150)
