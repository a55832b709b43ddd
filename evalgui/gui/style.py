"""The application's style: the platform's own, with one correction for dark palettes.

Fusion draws an empty check box of a list or a tree (the runs to compare, the measures) in shades of the
window colour: on a dark palette the box all but disappears, and a user cannot tell an unticked run from a
plain line of text. Such boxes get an outline in the text colour when the palette is dark.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

DARK_BASE = 110        # a base colour darker than this (HSL lightness, 0-255) is a dark palette's


class VisibleChecks(QProxyStyle):
    """See the module docstring."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element != QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck \
                or not option.state & QStyle.StateFlag.State_Off:
            return
        if option.palette.color(QPalette.ColorRole.Base).lightness() >= DARK_BASE:
            return
        outline = QColor(option.palette.color(QPalette.ColorRole.Text))
        outline.setAlpha(150)
        painter.save()
        painter.setPen(QPen(outline, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(option.rect.adjusted(1, 1, -2, -2))
        painter.restore()


_installed: list[QProxyStyle] = []      # the application owns it; a reference here keeps its wrapper alive


def install(app: QApplication) -> None:
    """The platform's style with :class:`VisibleChecks` (once)."""
    if isinstance(app.style(), VisibleChecks):
        return
    style = VisibleChecks(app.style().name())
    _installed.append(style)
    app.setStyle(style)
