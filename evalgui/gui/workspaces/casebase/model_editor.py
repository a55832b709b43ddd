"""The similarity model editor: one row per attribute (its local measure and weight, and a summary of the
measure's settings when the column has room), loaded from and saved to the JSON model file, checked as edited;
and the live preview of one query against one case.

The table keeps what people scan, so that it fits a laptop's narrow form column; the chosen row's details are
in the panel under it: its type, the separator of a set's values, and the measure's settings as a small form
(:mod:`measure_forms`): spin boxes, choices, a curve, a grid; no JSON is typed. The measures offered fit the
row's type (``MEASURES_BY_TYPE``), each with its record's description as tooltip. A field the engine would
refuse is red with its reason (and so is the row's measure), and the model cannot be used until it is fixed. A
new train case base keeps the settings of the attributes it still has, marks those it lacks and adds its new
ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QEvent, QSize, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QTextLayout, QTextOption
from PySide6.QtWidgets import (QComboBox, QCompleter, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QSizePolicy,
                               QStackedWidget, QStyle, QStyledItemDelegate, QStyleOptionComboBox, QStylePainter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, MEASURES_BY_TYPE
from evalgui.core.display import plain_words
from evalgui.core.cbr.model import TYPES, AttributeModel, SimilarityModel
from evalgui.core.errors import EvalInputError
from evalgui.gui.narrow import fit_narrow
from evalgui.gui.plain_text import tip as plain_tip
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.workspaces.casebase.measure_forms import (INVALID_BRUSH, AttributeContext,
                                                           MeasureForm, form_for)

ATTRIBUTE, MEASURE, WEIGHT, SETTINGS = range(4)        # the table's columns (Settings: when there is room)
TYPE, DELIMITER = "type", "delimiter"                     # in the panel under the table (see ``widget``)
TYPE_TIP = "The attribute's type: which local measures fit it, and how its cells are read"
DELIMITER_TIP = "Split at: what separates the values of a cell of a set attribute (empty: the case base's, ';')"
SETTINGS_TIP = "The measure's settings: choose the row to edit them below the table"
SUMMARY_ROOM = 120        # the settings' summary is shown when the table has this much room left for it
MODEL_FILES = "Similarity model (*.json);;All files (*)"
MISSING_BRUSH = QColor("#f5f5f5")
NEW_BRUSH = QColor("#e8f5e9")


class ModelEditor(QWidget):
    """``changed`` fires on every edit (the preview recomputes, the session has something to save)."""

    changed = Signal()
    load_requested = Signal(str)           # a file chosen: the form reads it (it knows the case base, shows errors)
    save_failed = Signal(str, str)         # title, message: the model cannot be saved as it stands

    def __init__(self, parent=None):
        super().__init__(parent)
        self.source = "<model>"          # the file the model came from (messages name it)
        self.case_base = None            # the train case base: the attributes' values, what is missing
        self.forms: list[MeasureForm] = []
        self.missing: set[str] = set()   # attributes the train case base does not have
        self.added: set[str] = set()     # attributes a new train case base brought
        self._contexts: dict[str, AttributeContext] = {}
        self._earlier: dict[tuple[str, str], dict] = {}     # (attribute, measure) -> the settings it was left with
        self.details: list[AttributeDetails] = []     # per row: its type and separator, shown in the panel
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("cbrModelTable")
        self.table.setHorizontalHeaderLabels(["Attribute", "Measure", "Weight", "Settings"])
        self.table.horizontalHeaderItem(MEASURE).setToolTip("The local measure comparing the attribute's values; "
                                                            "its settings and the attribute's type are below the "
                                                            "table")
        self.table.horizontalHeaderItem(WEIGHT).setToolTip("The attribute's weight in the weighted mean")
        self.table.horizontalHeaderItem(SETTINGS).setToolTip(SETTINGS_TIP)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setMinimumSectionSize(40)
        self.table.setMinimumHeight(160)
        self.table.setWordWrap(False)                    # a long name or summary elides; its tooltip has it whole
        self.table.viewport().installEventFilter(self)   # its width decides the columns (see fit_columns)
        self.table.currentCellChanged.connect(lambda row, *_: self.show_settings(row))
        self.settings_box = ElidedTitleBox("Settings")
        self.settings_box.setObjectName("cbrMeasureSettings")
        self.details_stack = CurrentPageStack()
        self.details_stack.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.details_stack.addWidget(QWidget())
        self.stack = QStackedWidget()
        self.nothing = QLabel("Choose an attribute in the table to see its measure's settings.")
        self.nothing.setWordWrap(True)
        self.stack.addWidget(self.nothing)
        box_layout = QVBoxLayout(self.settings_box)
        box_layout.addWidget(self.details_stack)
        box_layout.addWidget(self.stack)
        box_layout.addStretch(1)             # the room a short form leaves goes below it
        self.settings_box.setMinimumHeight(280)          # the tallest form (a grid, the curve) whole, and the type
        self.problem_label = QLabel()
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.problem_label.setObjectName("cbrModelProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c62828;")
        self.load_button = QPushButton("Load model…")
        self.load_button.setToolTip("Read a similarity model file (JSON) into the table")
        self.load_button.clicked.connect(self.load_dialog)
        self.save_button = QPushButton("Save model…")
        self.save_button.setToolTip("Write the table as a similarity model file (JSON), for evalgui-cli casebase")
        self.save_button.clicked.connect(self.save_dialog)
        self.defaults_button = QPushButton("Defaults")
        self.defaults_button.setToolTip("Every attribute of the train case base, its type's first measure, weight 1")
        self.remove_missing_button = QPushButton("Remove the missing attributes")
        self.remove_missing_button.setToolTip("Take the attributes the train case base does not have out of the "
                                              "model")
        self.remove_missing_button.clicked.connect(self.remove_missing)
        self.remove_missing_button.hide()
        buttons = QHBoxLayout()
        for button in (self.load_button, self.save_button, self.defaults_button, self.remove_missing_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.settings_box, 1)
        layout.addWidget(self.problem_label)
        self.problem_label.hide()

    # ------------------------------------------------------------ rows
    def set_model(self, model: SimilarityModel) -> None:
        self.source = model.source
        self.added = set()
        self._earlier = {}
        self.setUpdatesEnabled(False)       # one repaint for the whole model, not one per row
        try:
            self._clear()
            for a in model.attributes:
                self._add_row(a)
        finally:
            self.setUpdatesEnabled(True)
        self._mark_rows()
        if self.table.rowCount():
            self.table.setCurrentCell(0, ATTRIBUTE)
        self.fit_columns()
        self._edited()

    def clear(self) -> None:
        """No model (a project without one): the form then builds the train case base's default."""
        self.source, self.added, self._earlier = "<model>", set(), {}
        self._clear()
        self._mark_rows()
        self._edited()

    def _clear(self) -> None:
        for form in self.forms:
            self.stack.removeWidget(form)
            form.deleteLater()
        for details in self.details:
            self.details_stack.removeWidget(details)
            details.deleteLater()
        self.forms = []
        self.details = []
        self.table.setRowCount(0)
        self.stack.setCurrentWidget(self.nothing)
        self.details_stack.setCurrentIndex(0)

    def _add_row(self, a: AttributeModel) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        name = QTableWidgetItem(a.name)
        name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.setItem(row, ATTRIBUTE, name)
        summary = QTableWidgetItem("")
        summary.setFlags(summary.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.setItem(row, SETTINGS, summary)
        measure = ElidedComboBox()
        # As narrow as its cell: the longest measure's name elides rather than widen the table.
        measure.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        measure.setMinimumContentsLength(6)
        measure.setAccessibleName(f"Measure of {a.name}")
        weight = QDoubleSpinBox()
        weight.setRange(0.0, 1000.0)
        weight.setDecimals(2)
        weight.setValue(a.weight)
        weight.setToolTip("The attribute's weight in the weighted mean (0 leaves it out); type it, or use the wheel "
                          "or the arrow keys")
        weight.setAccessibleName(f"Weight of {a.name}")
        weight.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)
        self.table.setCellWidget(row, MEASURE, measure)
        self.table.setCellWidget(row, WEIGHT, weight)
        details = AttributeDetails(a)
        self.details.append(details)
        self.details_stack.addWidget(details)
        details.delimiter.textChanged.connect(self._edited)
        self._fill_measures(measure, a.type, a.measure)
        self.forms.append(self._new_form(a.name, a.measure, a.parameters))
        details.kind.currentTextChanged.connect(lambda text, m=measure: (self._fill_measures(m, text, None),
                                                                         self._measure_changed(m)))
        measure.currentIndexChanged.connect(lambda _, m=measure: (self._measure_tip(m), self._measure_changed(m)))
        weight.valueChanged.connect(self._edited)

    def _new_form(self, name: str, measure: str, given: dict) -> MeasureForm:
        form = form_for(measure, given, self.context(name))
        form.setObjectName(f"settings:{name}")
        form.changed.connect(self._edited)
        fit_narrow(form)                     # (the form column: narrow on a laptop)
        self.stack.addWidget(form)
        return form

    def _measure_changed(self, combo: QComboBox) -> None:
        """Another measure: its own form, at its defaults or as it was when last left (until another model)."""
        row = next(r for r in range(self.table.rowCount()) if self.widget(r, MEASURE) is combo)
        old = self.forms[row]
        if old.measure != combo.currentData() or not old.measure:
            name = self.table.item(row, ATTRIBUTE).text()
            if old.measure and old.problem() is None:          # back to it later: its settings again
                self._earlier[(name, old.measure)] = old.parameters()
            self.forms[row] = self._new_form(name, combo.currentData(),
                                             self._earlier.get((name, combo.currentData()), {}))
            self.stack.removeWidget(old)
            old.deleteLater()
            if self.table.currentRow() == row:
                self.show_settings(row)
        self._edited()

    def show_settings(self, row: int) -> None:
        if 0 <= row < len(self.forms):
            name = self.table.item(row, ATTRIBUTE).text()
            self.settings_box.setTitle(f"Settings of {name}: {self.widget(row, MEASURE).currentText()}")
            self.details_stack.setCurrentWidget(self.details[row])
            self.stack.setCurrentWidget(self.forms[row])
        else:
            self.settings_box.setTitle("Settings")
            self.details_stack.setCurrentIndex(0)
            self.stack.setCurrentWidget(self.nothing)

    def form(self, attribute: str) -> MeasureForm:
        return self.forms[self.row_of(attribute)]

    @staticmethod
    def _fill_measures(combo: QComboBox, kind: str, chosen: str | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        for name in MEASURES_BY_TYPE.get(kind, ()):
            combo.addItem(plain_words(name), name)
            combo.setItemData(combo.count() - 1, LOCAL_SIMILARITIES[name].help_text, Qt.ItemDataRole.ToolTipRole)
        if chosen is not None and combo.findData(chosen) < 0:     # a file's measure that does not fit: shown
            combo.addItem(plain_words(chosen), chosen)
        combo.setCurrentIndex(max(combo.findData(chosen), 0) if chosen is not None else 0)
        combo.blockSignals(False)
        ModelEditor._measure_tip(combo)

    @staticmethod
    def _measure_tip(combo: QComboBox, reason: str | None = None) -> None:
        """The measure's description, after what is wrong with its settings (``reason``) if anything."""
        name = combo.currentData()
        tip = LOCAL_SIMILARITIES[name].help_text if name in LOCAL_SIMILARITIES else ""
        combo.setToolTip(plain_tip(f"{reason}\n\n{tip}") if reason else tip)

    def widget(self, row: int, column: int | str):
        """The row's control: a cell's (MEASURE, WEIGHT), or in the panel under the table (TYPE, DELIMITER)."""
        if column == TYPE:
            return self.details[row].kind
        if column == DELIMITER:
            return self.details[row].delimiter
        return self.table.cellWidget(row, column)

    # ------------------------------------------------------------ the columns
    def eventFilter(self, watched, event) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return False

    def fit_columns(self) -> None:
        """Columns that fit the table's width, never a sideways scroll bar: the attribute's name at most two
        fifths of it (elided, its tooltip has it whole), the weight as wide as its values, the measure the
        rest; the settings' summary only when a measure's name has room beside it."""
        table, header = self.table, self.table.horizontalHeader()
        room = table.viewport().width()
        if room <= 0:
            return
        metrics = table.fontMetrics()
        padding = 2 * table.style().pixelMetric(table.style().PixelMetric.PM_HeaderMargin) + 8
        rows = range(min(table.rowCount(), 200))      # (a row being added may have no cells yet)
        names = [table.item(r, ATTRIBUTE).text() for r in rows if table.item(r, ATTRIBUTE) is not None]
        attribute = max(metrics.horizontalAdvance(t) for t in ["Attribute", *names]) + padding
        attribute = min(attribute, max(60, 2 * room // 5))
        weight = max(metrics.horizontalAdvance(t) for t in ("Weight", "1000.00")) + padding
        measure = max((metrics.horizontalAdvance(self.widget(r, MEASURE).currentText()) for r in rows
                       if self.widget(r, MEASURE) is not None), default=0) + 40      # the box's arrow and frame
        summary = room - attribute - weight - measure
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        table.setColumnHidden(SETTINGS, summary < SUMMARY_ROOM)
        table.setColumnWidth(ATTRIBUTE, attribute)
        table.setColumnWidth(WEIGHT, weight)
        if summary < SUMMARY_ROOM:
            table.setColumnWidth(SETTINGS, 0)
            table.setColumnWidth(MEASURE, max(room - attribute - weight, 40))
        else:
            table.setColumnWidth(MEASURE, measure)
            table.setColumnWidth(SETTINGS, summary)

    def row_of(self, attribute: str) -> int:
        return next(r for r in range(self.table.rowCount()) if self.table.item(r, ATTRIBUTE).text() == attribute)

    # ------------------------------------------------------------ the train case base
    def context(self, name: str) -> AttributeContext:
        """What the train case base says of an attribute (its values, its span), read once per case base."""
        if name in self._contexts:
            return self._contexts[name]
        cb = self.case_base
        context = AttributeContext()
        if cb is not None and name in cb.cells:
            context.source = cb.source
            context.values, context.span = cb.outline(name)     # worked out when the case base was read
        self._contexts[name] = context
        return context

    def set_case_base(self, case_base) -> None:
        """The train case base chosen. Another one than before: the attributes it still has keep their settings,
        those it lacks are marked, its new ones are added (type's first measure, weight 1) and marked new."""
        before = self.case_base
        if case_base is before:
            return
        self.case_base = case_base
        self._contexts = {}
        if case_base is not None and before is not None and self.table.rowCount() \
                and case_base.source != before.source:
            have = {self.table.item(r, ATTRIBUTE).text() for r in range(self.table.rowCount())}
            for name, kind in case_base.types.items():
                if name not in have:
                    self._add_row(AttributeModel(name, kind, MEASURES_BY_TYPE[kind][0]))
                    self.added.add(name)
        if self.table.rowCount():            # no model yet: nothing to mark, nothing changed
            self._mark_rows()
            self._edited()

    def _mark_rows(self) -> None:
        cb = self.case_base
        self.missing = set()
        for row in range(self.table.rowCount()):
            item = self.table.item(row, ATTRIBUTE)
            name = item.text()
            font = item.font()
            gone = cb is not None and name not in cb.cells
            font.setStrikeOut(gone)
            item.setFont(font)
            if gone:
                self.missing.add(name)
                item.setBackground(MISSING_BRUSH)
                item.setForeground(QColor("#c62828"))
                item.setToolTip(plain_tip(f"Not a column of {cb.source}: its settings are kept, but the model cannot "
                                    "run until it is removed or another train case base is chosen"))
            elif name in self.added:
                item.setBackground(NEW_BRUSH)
                item.setForeground(QColor(Qt.GlobalColor.black))
                item.setToolTip("New with this train case base: its type's first measure, weight 1")
            else:
                item.setBackground(QColor(Qt.GlobalColor.transparent))
                item.setForeground(self.table.palette().text())
                item.setToolTip(plain_tip(name))           # whole, when the column elides it
        self.remove_missing_button.setVisible(bool(self.missing))

    def remove_missing(self) -> None:
        for row in reversed(range(self.table.rowCount())):
            if self.table.item(row, ATTRIBUTE).text() in self.missing:
                for widget, stack in ((self.forms.pop(row), self.stack),
                                      (self.details.pop(row), self.details_stack)):
                    stack.removeWidget(widget)
                    widget.deleteLater()
                self.table.removeRow(row)
        self._mark_rows()
        self.show_settings(self.table.currentRow())
        self._edited()

    # ------------------------------------------------------------ the model
    def to_dict(self) -> dict:
        """The table as the model file's object."""
        attributes = []
        for row in range(self.table.rowCount()):
            item = {"name": self.table.item(row, ATTRIBUTE).text(), "type": self.widget(row, TYPE).currentText(),
                    "measure": self.widget(row, MEASURE).currentData(), "weight": self.widget(row, WEIGHT).value(),
                    "parameters": self.forms[row].parameters()}
            delimiter = self.widget(row, DELIMITER).text()
            if delimiter and item["type"] == "set":
                item["delimiter"] = delimiter
            attributes.append(item)
        return {"attributes": attributes}

    def model(self) -> SimilarityModel:
        """The model the table describes; EvalInputError (naming the attribute) when a field is invalid, an
        attribute is not in the train case base or the engine would refuse it."""
        for row, form in enumerate(self.forms):
            reason = form.problem()
            if reason:
                raise EvalInputError(self.source, f"attribute '{self.table.item(row, ATTRIBUTE).text()}': {reason}")
        if self.missing:
            names = ", ".join(f"'{n}'" for n in sorted(self.missing))
            raise EvalInputError(self.source, f"{names} {'is not a column' if len(self.missing) == 1 else 'are not columns'}"
                                              f" of the train case base: remove "
                                              f"{'it' if len(self.missing) == 1 else 'them'} or choose another one")
        return SimilarityModel.from_dict(self.to_dict(), self.source)

    def problem(self) -> str | None:
        if self.table.rowCount() == 0:
            return "No model yet: choose a train case base, or load a model file."
        try:
            self.model()
        except EvalInputError as exc:
            return exc.reason if hasattr(exc, "reason") else str(exc)
        return None

    def _edited(self) -> None:
        problem = self.problem() if self.table.rowCount() else None
        for row in range(self.table.rowCount()):
            summary = self.table.item(row, SETTINGS)
            form = self.forms[row]
            reason = form.problem()
            summary.setText(reason or form.summary())
            summary.setBackground(INVALID_BRUSH if reason else QColor(Qt.GlobalColor.transparent))
            summary.setForeground(QColor("#c62828") if reason else self.table.palette().text())
            summary.setToolTip(plain_tip((reason or form.summary())
                                         + "\n(choose the row to edit the settings below the table)"))
            # The summary column may be hidden (a narrow form): the measure says what is wrong too.
            measure = self.widget(row, MEASURE)
            measure.setStyleSheet("QComboBox { border: 1px solid #c62828; background: #fdecea; }" if reason else "")
            self._measure_tip(measure, reason)
        self.fit_columns()
        self.problem_label.setText(problem or "")
        self.problem_label.setVisible(bool(problem))
        self.changed.emit()

    # ------------------------------------------------------------ files
    def load_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a similarity model", "", MODEL_FILES)
        if path:
            self.load_requested.emit(path)

    def save_dialog(self) -> None:
        from evalgui.gui.exporting import export_dialog

        try:
            model = self.model()
        except EvalInputError as exc:
            self.save_failed.emit("The model cannot be saved", str(exc))
            return
        export_dialog(self, "model", (("Similarity model", ".json"),), model.save, title="Save the similarity model")


class AttributeDetails(QWidget):
    """One attribute's details, in the panel under the table while its row is chosen: its type, and for a
    set the separator of its values (the row is hidden for the other types, which have none)."""

    def __init__(self, a: AttributeModel, parent=None):
        super().__init__(parent)
        self.kind = QComboBox()
        self.kind.addItems(list(TYPES))
        self.kind.setCurrentText(a.type)
        self.kind.setToolTip(TYPE_TIP)
        self.kind.setAccessibleName(f"Type of {a.name}")
        self.delimiter = QLineEdit(a.delimiter or "")
        self.delimiter.setPlaceholderText(";")
        self.delimiter.setMaxLength(8)
        self.delimiter.setFixedWidth(self.delimiter.fontMetrics().horizontalAdvance("Split at") + 12)
        self.delimiter.setToolTip(DELIMITER_TIP)
        self.delimiter.setAccessibleName(f"Split at ({a.name})")
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        # Short rows that fit a narrow column side by side; wrapped rows would make the stack of every row's
        # details ask for the height of the tallest (a layout's height for a width counts hidden pages too).
        self.layout_.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.layout_.addRow("Type", self.kind)
        self.layout_.addRow("Split at", self.delimiter)
        self.kind.currentTextChanged.connect(self._kind_changed)
        self._kind_changed(a.type)

    def _kind_changed(self, kind: str) -> None:
        self.delimiter.setEnabled(kind == "set")
        self.layout_.setRowVisible(self.delimiter, kind == "set")
        self.updateGeometry()


class ElidedComboBox(QComboBox):
    """A combo box whose choice is elided ("Normalized Levensh…") when its cell is narrower than the name."""

    def paintEvent(self, event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideRight,
                                                           field.width() - 2)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


class CurrentPageStack(QStackedWidget):
    """A stack as tall as its current page (a set's details have a row more than the others')."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.currentChanged.connect(lambda _: self.updateGeometry())

    def sizeHint(self) -> QSize:
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        page = self.currentWidget()
        return page.minimumSizeHint() if page is not None else super().minimumSizeHint()


class ElidedTitleBox(QGroupBox):
    """A group box whose title (an attribute's name can be long) is elided to its width, never widening it;
    the whole title is its tooltip."""

    def __init__(self, title: str, parent=None):
        super().__init__(title, parent)
        self.full_title = title

    def setTitle(self, title: str) -> None:
        self.full_title = title
        self.setToolTip(plain_tip(title))
        self._elide()

    def title(self) -> str:
        return self.full_title

    def _elide(self) -> None:
        room = max(self.width() - 24, 40)
        shown = self.fontMetrics().elidedText(self.full_title, Qt.TextElideMode.ElideRight, room)
        super().setTitle(shown.replace("&", "&&"))         # a group box's & marks a shortcut: a name's is text

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        inside = self.layout().minimumSize().width() if self.layout() is not None else 0
        return QSize(min(hint.width(), inside + 4), hint.height())


class CaseIdBox(QComboBox):
    """A case id picked from a case base's ids: a list to scroll, or typed (completed as one types).

    A case base may hold 50,000 cases: the ids live in one QStringListModel (filled in C++ at
    once, not item by item; two boxes offering the same case base share it) and the box never
    measures them all for its size. ``currentData()`` and ``findData()`` speak in ids, as a
    ChoiceBox does."""

    def __init__(self, object_name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.ids = QStringListModel()        # the list shown (a new one for new ids: another box may share it)
        self._offered = None                 # the array of ids offered
        self.setModel(self.ids)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(5)             # both boxes side by side in a laptop's form column
        self.view().setUniformItemSizes(True)
        completer = QCompleter(self.ids, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.popup().setUniformItemSizes(True)      # else the first key lays out 50,000 rows: half a second
        self.setCompleter(completer)
        # Text typed that is no id: the box shows the chosen id again.
        self.lineEdit().editingFinished.connect(lambda: self.setEditText(self.chosen_id()))

    def chosen_id(self) -> str:
        return self.itemText(self.currentIndex()) if self.currentIndex() >= 0 else ""

    def set_ids(self, ids, like: "CaseIdBox | None" = None) -> None:
        """Offer the case base's ``ids`` (an array of str; None: none), keeping the chosen one when it is still
        there (else the first). The same array again changes nothing; the array ``like`` offers already: its list
        is shared."""
        if ids is self._offered:
            return
        kept = self.currentData()
        self._offered = ids
        self.blockSignals(True)
        shared = like is not None and ids is not None and like._offered is ids
        self.ids = like.ids if shared else QStringListModel([] if ids is None else ids.tolist())
        self.setModel(self.ids)
        self.completer().setModel(self.ids)
        self.setCurrentIndex(max(self.findData(kept), 0) if ids is not None and len(ids) else -1)
        self.blockSignals(False)

    def currentData(self, role=Qt.ItemDataRole.UserRole):
        return self.chosen_id() or None

    def findData(self, data, role=Qt.ItemDataRole.UserRole, flags=Qt.MatchFlag.MatchExactly) -> int:
        if self._offered is None or data is None:
            return -1
        # A scan of 50,000 ids by numpy: a millisecond (a hashed index costs ten to build).
        found = np.flatnonzero(self._offered == data)
        return int(found[0]) if len(found) else -1


class PreviewModel(DataFrameModel):
    """The preview as shown: attribute, the query's and the case's values (one cell, wrapped), similarity;
    the tooltips say each value and the weight in full."""

    def __init__(self):
        super().__init__(best=None, precision=4, headers={"attribute": "Attribute", "values": "Query · case",
                                                          "similarity": "Similarity"})
        self.tips: list[tuple[str, str]] = []

    def show_preview(self, frame: pd.DataFrame) -> None:
        """``frame``: the preview's (attribute, query, case, weight, similarity)."""
        pairs = [f"{q} · {c}" if q or c else "" for q, c in zip(frame["query"], frame["case"])]
        self.tips = [(f"{a}: weight {w:g}" if w == w else f"{a}: the weighted mean of the local similarities",
                      f"query: {q or '(missing)'}\ncase: {c or '(missing)'}" if q or c else "")
                     for a, q, c, w in zip(frame["attribute"], frame["query"], frame["case"], frame["weight"])]
        self.set_frame(pd.DataFrame({"attribute": frame["attribute"], "values": pairs,
                                     "similarity": frame["similarity"]}), directions=None)

    def display_text(self, row: int, column: int) -> str:
        text = super().display_text(row, column)
        # A set's values ("tow bar;navigation") may wrap after each separator.
        return text.replace(";", ";\u200b") if column == 1 else text

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.ToolTipRole and index.isValid() and index.column() < 2 \
                and index.row() < len(self.tips):
            return plain_tip(self.tips[index.row()][index.column()]) or None
        return super().data(index, role)


class WrappedDelegate(QStyledItemDelegate):
    """A cell as tall as its text wrapped at word boundaries, as it is painted (the style's size hint may break
    a long word anywhere, and count a line fewer than it paints)."""

    def sizeHint(self, option, index):
        hint = super().sizeHint(option, index)
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        width = self.parent().columnWidth(index.column()) - 8        # the cell's text margins
        if not text or width <= 0:
            return hint
        wrap = QTextOption()
        wrap.setWrapMode(QTextOption.WrapMode.WordWrap)
        layout = QTextLayout(text, option.font)
        layout.setTextOption(wrap)
        layout.beginLayout()
        lines = 0
        while (line := layout.createLine()).isValid():
            line.setLineWidth(width)
            lines += 1
        layout.endLayout()
        return QSize(hint.width(), max(hint.height(), lines * option.fontMetrics.lineSpacing() + 6))


class PreviewTable(FrameTableView):
    """The preview's table in a narrow column: the values wrap, the attribute's name takes at most two fifths
    of the width (elided, its tooltip has it whole), and the table is as tall as its rows (up to MAX_HEIGHT:
    the form around it scrolls)."""

    MAX_HEIGHT = 360

    def __init__(self, model: PreviewModel, exported):
        super().__init__(model, name="similarity_preview", stretch_column="values", exported=exported)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegateForColumn(1, WrappedDelegate(self))
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setMinimumHeight(60)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        # The rows' heights follow the columns' widths: the table's height is fitted once they have settled.
        self.height_timer = QTimer(self)
        self.height_timer.setSingleShot(True)
        self.height_timer.setInterval(0)
        self.height_timer.timeout.connect(self._fit_height)
        self.horizontalHeader().sectionResized.connect(lambda *_: self.height_timer.start())

    def _fit_columns(self) -> None:
        super()._fit_columns()
        self._cap_first()
        self.height_timer.start()

    def _cap_first(self) -> None:
        if self._fitted:
            self.setColumnWidth(0, min(self._fitted[0], max(60, 2 * self.viewport().width() // 5)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._cap_first()
        self.height_timer.start()

    def _fit_height(self) -> None:
        self.resizeRowsToContents()
        rows = self.verticalHeader().length()
        header = max(self.horizontalHeader().height(), self.horizontalHeader().sizeHint().height())
        self.setFixedHeight(min(header + rows + 2 * self.frameWidth() + 2, self.MAX_HEIGHT))


class PreviewBox(QWidget):
    """Two case ids (a query, a case) and each attribute's values and local similarity, then the global one.
    ``model`` holds the preview's whole frame (with the weights: what Export writes); the table shows it in
    three columns that fit a narrow form."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.query = CaseIdBox("cbrPreviewQuery")
        self.query.setToolTip("A query (test case): pick it, or type its id")
        self.case = CaseIdBox("cbrPreviewCase")
        self.case.setToolTip("A case of the train case base: pick it, or type its id")
        self.model = DataFrameModel(best=None, precision=4)
        self.shown = PreviewModel()
        self.view = PreviewTable(self.shown, exported=lambda _fmt: self.model.frame)
        self.view.setObjectName("cbrPreviewTable")
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("Query"))
        row.addWidget(self.query, 1)
        row.addWidget(QLabel("Case"))
        row.addWidget(self.case, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.view)
        layout.addWidget(self.note)

    def show_frame(self, frame) -> None:
        self.model.set_frame(frame, directions=None)
        self.shown.show_preview(frame)
        self.view.show()
        self.note.setStyleSheet("")
        self.note.setText("Global: the weighted mean over the attributes both have (an empty similarity: a value "
                          "is missing).")

    def show_problem(self, problem: str) -> None:
        """No preview, and why (empty: nothing to say, e.g. no case base yet): the reason where the table was."""
        self.model.set_frame(pd.DataFrame())
        self.shown.set_frame(pd.DataFrame())
        self.view.setVisible(not problem)
        self.note.setStyleSheet("color: #c62828;")
        self.note.setText(problem)

    def global_similarity(self) -> float | None:
        frame = self.model.frame
        if frame.empty:
            return None
        return float(frame["similarity"].iloc[-1])

    def local_similarity(self, attribute: str) -> float | None:
        frame = self.model.frame
        found = frame[frame["attribute"] == attribute] if not frame.empty else frame
        return None if found.empty else float(found["similarity"].iloc[0])
