"""Form widgets the workspaces share: registry combo boxes, spin boxes and lines of numbers."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit, QSpinBox

from evalgui.core.errors import EvalUsageError

# What the combo boxes of the comparison and meta-evaluation forms call the tests and corrections.
TEST_LABELS = {"t": "Paired t-test", "wilcoxon": "Wilcoxon signed-rank", "sign": "Sign test",
               "randomization": "Randomization (permutation)", "bootstrap": "Bootstrap (Sakai)",
               "tukey": "Randomized Tukey HSD"}
CORRECTION_LABELS = {"none": "None", "bonferroni": "Bonferroni", "holm": "Holm", "holm-sidak": "Holm–Šidák",
                     "bh": "Benjamini–Hochberg (FDR)"}


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
