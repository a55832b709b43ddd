"""The similarity model editor: one row per attribute (type, local measure, a summary of its settings, weight
and, for a set attribute, the separator of its values), loaded from and saved to the JSON model file, checked
as edited; and the live preview of one query against one case.

The measures offered fit the row's type (``MEASURES_BY_TYPE``), each with its record's description as
tooltip. The chosen row's measure settings are a small form under the table (:mod:`measure_forms`): spin boxes,
choices, a curve, a grid; no JSON is typed. A field the engine would refuse is red with its reason, and the
model cannot be used until it is fixed. A new train case base keeps the settings of the attributes it still
has, marks those it lacks and adds its new ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QComboBox, QCompleter, QDoubleSpinBox, QFileDialog, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPushButton, QStackedWidget, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, MEASURES_BY_TYPE
from evalgui.core.display import plain_words
from evalgui.core.cbr.model import TYPES, AttributeModel, SimilarityModel
from evalgui.core.errors import EvalInputError
from evalgui.gui.narrow import fit_narrow
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.workspaces.casebase.measure_forms import (INVALID_BRUSH, MAX_GRID_VALUES, AttributeContext,
                                                           MeasureForm, form_for)

ATTRIBUTE, TYPE, MEASURE, PARAMETERS, WEIGHT, DELIMITER = range(6)
SETTINGS = PARAMETERS
DELIMITER_TIP = "Split at: what separates the values of a cell of a set attribute (empty: the case base's, ';')"
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
        self.table = QTableWidget(0, 6)
        self.table.setObjectName("cbrModelTable")
        self.table.setHorizontalHeaderLabels(["Attribute", "Type", "Measure", "Settings", "Weight", "Split at"])
        self.table.horizontalHeaderItem(DELIMITER).setToolTip(DELIMITER_TIP)
        self.table.horizontalHeaderItem(SETTINGS).setToolTip("The measure's settings: choose the row to edit "
                                                             "them below the table")
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        for column in (ATTRIBUTE, WEIGHT, DELIMITER):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        # The boxes are narrower than their longest choice so that the settings' summary has room in a narrow form.
        for column, width in ((TYPE, 95), (MEASURE, 130)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
        header.setSectionResizeMode(SETTINGS, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(60)
        self.table.setMinimumHeight(160)
        self.table.setWordWrap(False)                    # a long summary elides; its tooltip has it whole
        self.table.currentCellChanged.connect(lambda row, *_: self.show_settings(row))
        self.settings_box = QGroupBox("Settings")
        self.settings_box.setObjectName("cbrMeasureSettings")
        self.stack = QStackedWidget()
        self.nothing = QLabel("Choose an attribute in the table to see its measure's settings.")
        self.stack.addWidget(self.nothing)
        QVBoxLayout(self.settings_box).addWidget(self.stack)
        self.settings_box.setMinimumHeight(230)          # the tallest form (a grid, the curve) whole
        self.problem_label = QLabel()
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
        self._clear()
        for a in model.attributes:
            self._add_row(a)
        self._mark_rows()
        if self.table.rowCount():
            self.table.setCurrentCell(0, ATTRIBUTE)
        self._edited()

    def _clear(self) -> None:
        for form in self.forms:
            self.stack.removeWidget(form)
            form.deleteLater()
        self.forms = []
        self.table.setRowCount(0)
        self.stack.setCurrentWidget(self.nothing)

    def _add_row(self, a: AttributeModel) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        name = QTableWidgetItem(a.name)
        name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.setItem(row, ATTRIBUTE, name)
        summary = QTableWidgetItem("")
        summary.setFlags(summary.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.setItem(row, SETTINGS, summary)
        kind = QComboBox()
        kind.addItems(list(TYPES))
        kind.setCurrentText(a.type)
        kind.setToolTip("The attribute's type: which local measures fit it, and how its cells are read")
        measure = QComboBox()
        weight = QDoubleSpinBox()
        weight.setRange(0.0, 1000.0)
        weight.setDecimals(2)
        weight.setValue(a.weight)
        weight.setToolTip("The attribute's weight in the weighted mean (0 leaves it out); type it, or use the wheel "
                          "or the arrow keys")
        weight.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)
        self.table.setCellWidget(row, TYPE, kind)
        self.table.setCellWidget(row, MEASURE, measure)
        self.table.setCellWidget(row, WEIGHT, weight)
        delimiter = QLineEdit(a.delimiter or "")
        delimiter.setPlaceholderText(";")
        delimiter.setMaxLength(8)
        delimiter.setFixedWidth(delimiter.fontMetrics().horizontalAdvance("Split at") + 12)
        delimiter.setToolTip(DELIMITER_TIP)
        delimiter.setEnabled(a.type == "set")
        self.table.setCellWidget(row, DELIMITER, delimiter)
        delimiter.textChanged.connect(self._edited)
        kind.currentTextChanged.connect(lambda text, d=delimiter: d.setEnabled(text == "set"))
        self._fill_measures(measure, a.type, a.measure)
        self.forms.append(self._new_form(a.name, a.measure, a.parameters))
        kind.currentTextChanged.connect(lambda text, m=measure: (self._fill_measures(m, text, None),
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
            self.stack.setCurrentWidget(self.forms[row])
        else:
            self.settings_box.setTitle("Settings")
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
    def _measure_tip(combo: QComboBox) -> None:
        name = combo.currentData()
        combo.setToolTip(LOCAL_SIMILARITIES[name].help_text if name in LOCAL_SIMILARITIES else "")

    def widget(self, row: int, column: int):
        return self.table.cellWidget(row, column)

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
            kind = cb.types.get(name)
            try:
                if kind in ("categorical", "text"):
                    cells = pd.Series(cb.cells[name], dtype=object).dropna().astype(str).str.strip()
                    values = pd.unique(cells[cells != ""])
                    context.values = sorted(values.tolist()) if len(values) <= 50 * MAX_GRID_VALUES else []
                elif kind == "numeric":
                    numbers = cb.values(name, "numeric")
                    numbers = numbers[~np.isnan(numbers)]
                    context.span = float(numbers.max() - numbers.min()) if len(numbers) else None
            except (EvalInputError, ValueError, TypeError):
                pass                          # the preview and Run say why the column cannot be read
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
                item.setToolTip(f"Not a column of {cb.source}: its settings are kept, but the model cannot run "
                                "until it is removed or another train case base is chosen")
            elif name in self.added:
                item.setBackground(NEW_BRUSH)
                item.setForeground(QColor(Qt.GlobalColor.black))
                item.setToolTip("New with this train case base: its type's first measure, weight 1")
            else:
                item.setBackground(QColor(Qt.GlobalColor.transparent))
                item.setForeground(self.table.palette().text())
                item.setToolTip("")
        self.remove_missing_button.setVisible(bool(self.missing))

    def remove_missing(self) -> None:
        for row in reversed(range(self.table.rowCount())):
            if self.table.item(row, ATTRIBUTE).text() in self.missing:
                form = self.forms.pop(row)
                self.stack.removeWidget(form)
                form.deleteLater()
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
            summary.setToolTip((reason or form.summary()) + "\n(choose the row to edit the settings below the table)")
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


class PreviewBox(QWidget):
    """Two case ids (a query, a case) and each attribute's local similarity, then the global one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.query = CaseIdBox("cbrPreviewQuery")
        self.query.setToolTip("A query (test case): pick it, or type its id")
        self.case = CaseIdBox("cbrPreviewCase")
        self.case.setToolTip("A case of the train case base: pick it, or type its id")
        self.model = DataFrameModel(best=None, precision=4)
        self.view = FrameTableView(self.model, name="similarity_preview", stretch_column="case")
        self.view.setObjectName("cbrPreviewTable")
        self.view.setMinimumHeight(150)
        self.note = QLabel()
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
        self.view.show()
        self.note.setStyleSheet("")
        self.note.setText("Global: the weighted mean over the attributes both have (an empty similarity: a value "
                          "is missing).")

    def show_problem(self, problem: str) -> None:
        """No preview, and why (empty: nothing to say, e.g. no case base yet): the reason where the table was."""
        self.model.set_frame(pd.DataFrame())
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
