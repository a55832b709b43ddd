"""Form widgets the workspaces share: registry combo boxes, spin boxes, lines of numbers, a status line."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSizePolicy, QSpinBox

from evalgui.core.errors import EvalUsageError
from evalgui.gui.plain_text import tip as plain_tip


def registry_combo(name: str, registry, labels: dict[str, str]) -> QComboBox:
    """A combo box of a registry's records (data: the name), each with its help as tooltip; the box's
    own tooltip follows the choice. The comparison and meta-evaluation forms' tests and corrections."""
    combo = QComboBox()
    combo.setObjectName(name)
    for record in registry.values():
        combo.addItem(labels.get(record.name, record.name), record.name)
        combo.setItemData(combo.count() - 1, record.help_text, Qt.ItemDataRole.ToolTipRole)
    combo.currentIndexChanged.connect(lambda _: combo.setToolTip(registry[combo.currentData()].help_text))
    combo.setToolTip(registry[combo.currentData()].help_text)
    return combo


def samples_per_test(saved) -> dict[str, int]:
    """B as last set for each resampling test, from a saved form: the tests and numbers that are valid."""
    from evalgui.core.stats.catalogue import RESAMPLING

    if not isinstance(saved, dict):
        raise ValueError("expected B per test")
    return {k: int(v) for k, v in saved.items()
            if k in RESAMPLING and isinstance(v, int) and not isinstance(v, bool) and v >= 1}


def parse_numbers(text: str, kind: type, what: str, example: str) -> tuple:
    """Numbers typed with commas, semicolons or blanks between them; () when the box is empty (the engine's
    default). EvalUsageError names the box (``what``) and the part that is not a number."""
    numbers = []
    for part in (p for p in re.split(r"[\s,;]+", text.strip()) if p):
        try:
            numbers.append(kind(part))
        except ValueError:
            number = "a whole number" if kind is int else "a number"
            raise EvalUsageError(f"{what}: '{part}' is not {number}; type numbers separated by commas "
                                 f"(e.g. {example})") from None
    return tuple(numbers)


def spin_box(name: str, low: int, high: int, value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setObjectName(name)
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setGroupSeparatorShown(True)
    spin.setToolTip(tip)
    return spin


def line_edit(name: str, placeholder: str, tip: str) -> QLineEdit:
    line = QLineEdit()
    line.setObjectName(name)
    line.setPlaceholderText(placeholder)
    line.setClearButtonEnabled(True)
    line.setToolTip(tip + ". Empty: the default.")
    return line


class StatusLine(QLabel):
    """A word-wrapped status text always ``lines`` lines tall, so that the buttons beside it stay where they
    are whatever it says (a click meant for Cancel must not miss). A longer text ends in "…" and is
    whole in the tooltip; ``text()`` is the whole text."""

    def __init__(self, text: str = "", lines: int = 3, parent=None):
        super().__init__(parent)
        self.lines = lines
        self._text = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # Ignored across: the column's width decides the wrapping, not the text.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._fix_height()
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        self._text = text
        self._show()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._show()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fix_height()
            self._show()

    def _fix_height(self) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(self.fontMetrics().lineSpacing() * self.lines + margins.top() + margins.bottom())

    def _fits(self, text: str, width: int) -> bool:
        room = QRect(0, 0, width, 1_000_000)
        return self.fontMetrics().boundingRect(room, int(Qt.TextFlag.TextWordWrap), text).height() <= \
            self.contentsRect().height()

    def _show(self) -> None:
        text, width = self._text, self.contentsRect().width()
        shown = text
        if width > 0 and not self._fits(text, width):
            low, high = 0, len(text)       # the longest start of the text that fits with "…"
            while low < high:
                middle = (low + high + 1) // 2
                if self._fits(text[:middle].rstrip() + "…", width):
                    low = middle
                else:
                    high = middle - 1
            shown = text[:low].rstrip() + "…"
        super().setText(shown)
        self.setToolTip(plain_tip(text) if shown != text else "")
