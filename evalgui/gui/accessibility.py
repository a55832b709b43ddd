"""Accessible names for every control a screen reader can land on.

    name_controls(window)      # after the window is built; idempotent, never overrides a given name

Qt names buttons and check boxes after their text and a field after its buddy label (a
QFormLayout row sets one). The rest get, in this order: the label just before them in their
row (a toolbar's "Measure" before its combo box), their tooltip, a line edit's placeholder,
the name of the control they belong to (a spin box's text field, a combo box's list), or words
made from their object name ("runMatrixHeatmap" -> "Run matrix heatmap").
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (QAbstractSpinBox, QComboBox, QLabel, QLineEdit, QScrollArea, QTabWidget, QWidget)

_TAGS = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """A tooltip's first line without its markup."""
    text = _TAGS.sub(" ", text or "").replace("&nbsp;", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return re.sub(r"\s+", " ", lines[0]) if lines else ""


def words(object_name: str) -> str:
    """"runMatrixHeatmap" -> "Run matrix heatmap"."""
    parts = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", object_name.replace("_", " ")).split()
    text = " ".join(p.lower() for p in parts)
    return text[:1].upper() + text[1:]


def current_name(widget: QWidget) -> str:
    if widget.accessibleName():
        return widget.accessibleName()
    interface = QAccessible.queryAccessibleInterface(widget)
    name = interface.text(QAccessible.Text.Name) if interface is not None and interface.isValid() else ""
    if isinstance(widget, QComboBox) and name == widget.currentText():
        return ""         # Qt's fallback: the current choice, which says nothing of what is chosen
    return name


def focusable(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def label_before(widget: QWidget) -> str:
    """The text of the QLabel just before ``widget`` in its parent's layout (a toolbar's caption)."""
    parent = widget.parentWidget()
    layout = parent.layout() if parent is not None else None
    if layout is None:
        return ""
    index = layout.indexOf(widget)
    if index <= 0:
        return ""
    before = layout.itemAt(index - 1).widget()
    return before.text().strip().rstrip(":") if isinstance(before, QLabel) and not before.buddy() else ""


def name_for(widget: QWidget) -> str:
    parent = widget.parentWidget()
    # parts of a control: named after it
    if isinstance(widget, QLineEdit) and isinstance(parent, (QAbstractSpinBox, QComboBox)):
        return current_name(parent) or name_for(parent)
    if isinstance(parent, QComboBox) or (parent is not None and isinstance(parent.parentWidget(), QComboBox)):
        owner = parent if isinstance(parent, QComboBox) else parent.parentWidget()
        return f"{current_name(owner) or name_for(owner)}: choices"
    text = label_before(widget) or plain(widget.toolTip())
    if not text and isinstance(widget, QLineEdit):
        text = widget.placeholderText().rstrip("…")
    if not text and isinstance(widget, QTabWidget):
        text = "Result tabs" if "esult" in widget.objectName() else "Tabs"
    if not text and isinstance(widget, QScrollArea) and widget.widget() is not None:
        inner = widget.widget().objectName()
        text = f"{words(inner)} (scrolls)" if inner else "Scrolling area"
    if not text and widget.objectName() and not widget.objectName().startswith("qt_"):
        text = words(widget.objectName())
    if not text and parent is not None and focusable(parent):      # a plot's drawing area, say
        text = current_name(parent) or name_for(parent)
    if not text:
        text = words(type(widget).__name__)
    return text


class FocusRing(QWidget):
    """A ring in the highlight colour over a plot while it has the keyboard's focus (the style
    draws nothing for a graphics view). Drawn over the plot, so the plot keeps its size."""

    def __init__(self, plot: QWidget):
        super().__init__(plot)
        self.plot = plot
        self.setObjectName("focusRing")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hide()
        plot.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.FocusIn, QEvent.Type.FocusOut, QEvent.Type.Resize):
            try:
                rect, focused = self.plot.rect(), self.plot.hasFocus()
            except RuntimeError:          # the plot is being deleted: its focus goes with it
                return False
            self.setGeometry(rect)
            self.setVisible(focused)
            self.raise_()
        return False

    def paintEvent(self, event) -> None:
        from PySide6.QtGui import QPainter, QPen

        painter = QPainter(self)
        painter.setPen(QPen(self.palette().color(self.palette().ColorRole.Highlight), 2))
        painter.drawRect(self.rect().adjusted(1, 1, -1, -1))


def show_focus(plot: QWidget) -> None:
    if plot.focusPolicy() & Qt.FocusPolicy.TabFocus and plot.findChild(FocusRing) is None:
        FocusRing(plot)


def name_controls(root: QWidget) -> int:
    """Give every focusable control under ``root`` without a name one; returns how many were named.
    Tables let Tab move on to the next control (arrow keys move between cells), so that a keyboard
    user is never caught in a table."""
    from PySide6.QtWidgets import QAbstractItemView

    from PySide6.QtWidgets import QGraphicsView

    named = 0
    for view in root.findChildren(QAbstractItemView):
        view.setTabKeyNavigation(False)
    for plot in root.findChildren(QGraphicsView):
        show_focus(plot)
    for widget in root.findChildren(QWidget):
        if focusable(widget) and not current_name(widget):
            widget.setAccessibleName(name_for(widget))
            named += 1
    return named
