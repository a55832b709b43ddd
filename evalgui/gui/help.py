"""Help ▸ Measures reference: every measure's description and formula, searchable."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QSplitter, QTextBrowser, QVBoxLayout

from evalgui.core.ranked.measures import REGISTRY
from evalgui.gui.measurepicker import help_html


class MeasuresReference(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Measures reference")
        self.resize(820, 560)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search…")
        self.search.setClearButtonEnabled(True)
        self.names = QListWidget(self)
        self.text = QTextBrowser(self)
        for measure in REGISTRY.values():
            label = measure.name + (f"  ({measure.ir_name})" if measure.ir_name else "")
            self.names.addItem(label)
            self.names.item(self.names.count() - 1).setData(Qt.ItemDataRole.UserRole, measure.name)
        self.names.currentItemChanged.connect(
            lambda item, _: item and self.text.setHtml(help_html(REGISTRY[item.data(Qt.ItemDataRole.UserRole)])))
        self.search.textChanged.connect(self._filter)
        splitter = QSplitter(self)
        splitter.addWidget(self.names)
        splitter.addWidget(self.text)
        splitter.setSizes([240, 580])
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(splitter)
        self.names.setCurrentRow(0)

    def _filter(self, text: str) -> None:
        needle = text.lower()
        for i in range(self.names.count()):
            item = self.names.item(i)
            measure = REGISTRY[item.data(Qt.ItemDataRole.UserRole)]
            item.setHidden(bool(needle) and needle not in (item.text() + " " + measure.description).lower())
