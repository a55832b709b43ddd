"""Small pieces every result view uses: a toolbar above a view, Export buttons, and combo boxes that keep the
user's choice."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QPushButton, QScrollArea, QVBoxLayout, QWidget

EXPORTS = "exports"      # the property that marks a view's Export buttons


class ControlRow(QScrollArea):
    """A row of controls that scrolls sideways when the page is narrower than the row, so that
    a long row does not set the minimum width of the page (and of the window)."""

    def __init__(self, row: QWidget):
        super().__init__()
        self.setWidget(row)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(self.sizePolicy().horizontalPolicy(), self.sizePolicy().Policy.Fixed)

    def _height(self) -> int:
        # Room for the scroll bar only while it is needed, so it never covers the controls.
        height = self.widget().sizeHint().height()
        if self.widget().minimumSizeHint().width() > self.width():
            height += self.horizontalScrollBar().sizeHint().height()
        return height

    def sizeHint(self) -> QSize:
        return QSize(self.widget().sizeHint().width(), self._height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self._height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()          # the scroll bar may have come or gone


def with_toolbar(view: QWidget, controls: list[QWidget]) -> QWidget:
    """A page: a row of controls above ``view``."""
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(4, 4, 4, 4)
    if controls:
        row = QWidget()
        bar = QHBoxLayout(row)
        bar.setContentsMargins(0, 0, 0, 0)
        for control in controls:
            if isinstance(control, ChoiceBox):
                # Refilled by every run: long entries (run names, queries) must not set the window's
                # minimum width (small screens), but the box grows to show them when there is room.
                control.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                control.setMinimumContentsLength(max(control.minimumContentsLength(), 6))
                control.setMaximumWidth(max(control.sizeHint().width(), 300))
                bar.addWidget(control, 1)
            else:
                if isinstance(control, QComboBox):      # a few fixed entries: always shown whole
                    control.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
                bar.addWidget(control)
        bar.addStretch(1)
        layout.addWidget(ControlRow(row))
    layout.addWidget(view)
    return page


def export_button(text: str, slot, tip: str = "") -> QPushButton:
    """A view's Export button: its workspace enables it only while the view has something to export."""
    button = QPushButton(text)
    button.setProperty(EXPORTS, True)
    button.clicked.connect(slot)
    if tip:
        button.setToolTip(tip)
    return button


def export_buttons(page: QWidget) -> list[QPushButton]:
    return [b for b in page.findChildren(QPushButton) if b.property(EXPORTS)]


class ChoiceBox(QComboBox):
    """A combo box refilled after every run that keeps the user's choice, even across a run that
    briefly offered nothing (call :meth:`remember` before clearing). ``names=False``: the items are not
    measure or metric names (queries), shown as they are: no naming lookup per item for 2,000 queries."""

    def __init__(self, object_name: str, parent=None, names: bool = True):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.preferred = None
        self.names = names

    def remember(self) -> None:
        if self.currentData() is not None:
            self.preferred = self.currentData()

    def set_items(self, items: list[tuple[str, object]], keep=None) -> None:
        """Refill with (text, data) pairs; select ``keep``, else the remembered or current choice, else the first."""
        from evalgui.gui.naming import label

        shown = label if self.names else str
        wanted = [keep, self.preferred, self.currentData()]
        self.blockSignals(True)
        self.clear()
        for text, data in items:
            self.addItem(shown(text), data)       # a measure or metric in the window's naming
        index = next((i for i in (self.findData(w) for w in wanted if w is not None) if i >= 0), 0 if items else -1)
        self.setCurrentIndex(index)
        self.blockSignals(False)
