"""The similarity model editor: one row per attribute (type, local measure, parameters, weight and, for a set
attribute, the delimiter of its values), loaded from and saved to the JSON model file, checked as edited; and
the live preview of one query against one case.

The measures offered fit the row's type (``MEASURES_BY_TYPE``), each with its record's description as
tooltip. Parameters are typed as a JSON object (``{"range": 50000}``); a row the engine would refuse is
marked red and the reason is shown under the table.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QCompleter, QDoubleSpinBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, MEASURES_BY_TYPE
from evalgui.core.display import plain_words
from evalgui.core.cbr.model import TYPES, AttributeModel, SimilarityModel
from evalgui.core.errors import EvalInputError
from evalgui.gui.measurepicker import mark_invalid
from evalgui.gui.tables import DataFrameModel, FrameTableView

ATTRIBUTE, TYPE, MEASURE, PARAMETERS, WEIGHT, DELIMITER = range(6)
DELIMITER_TIP = "The delimiter of a set attribute: what separates the values of a cell (empty: the case base's, ';')"
MODEL_FILES = "Similarity model (*.json);;All files (*)"


def parameters_tip(measure: str | None) -> str:
    """What a measure's parameters box takes, from its record (the box is narrow: the text may not show whole)."""
    record = LOCAL_SIMILARITIES[measure] if measure in LOCAL_SIMILARITIES else None
    if record is None or not record.parameters:
        return f"{measure} takes no parameters" if record else ""
    return "\n".join([f"{measure}'s parameters, as a JSON object:"]
                     + [f"{p.name}: {p.description} (default: {p.default or 'none'})" for p in record.parameters])


class ModelEditor(QWidget):
    """``changed`` fires on every edit (the preview recomputes, the session has something to save)."""

    changed = Signal()
    load_requested = Signal(str)           # a file chosen: the form reads it (it knows the case base, shows errors)
    save_failed = Signal(str, str)         # title, message: the model cannot be saved as it stands

    def __init__(self, parent=None):
        super().__init__(parent)
        self.source = "<model>"          # the file the model came from (messages name it)
        self.table = QTableWidget(0, 6)
        self.table.setObjectName("cbrModelTable")
        # "Sep.": the delimiter's column is as narrow as one character needs, so that parameters have room.
        self.table.setHorizontalHeaderLabels(["Attribute", "Type", "Measure", "Parameters", "Weight", "Separator"])
        self.table.horizontalHeaderItem(DELIMITER).setToolTip(DELIMITER_TIP)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for column in (ATTRIBUTE, TYPE, MEASURE, WEIGHT, DELIMITER):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(PARAMETERS, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(200)
        self.problem_label = QLabel()
        self.problem_label.setObjectName("cbrModelProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c62828;")
        self.load_button = QPushButton("Load model…")
        self.load_button.setToolTip("Read a similarity model (JSON) into the table")
        self.load_button.clicked.connect(self.load_dialog)
        self.save_button = QPushButton("Save model…")
        self.save_button.setToolTip("Write the table as a similarity model file (JSON), for evalgui-cli casebase")
        self.save_button.clicked.connect(self.save_dialog)
        self.defaults_button = QPushButton("Defaults")
        self.defaults_button.setToolTip("Every attribute of the train case base, its type's first measure, weight 1")
        buttons = QHBoxLayout()
        for button in (self.load_button, self.save_button, self.defaults_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.table)
        layout.addWidget(self.problem_label)
        self.problem_label.hide()

    # ------------------------------------------------------------ rows
    def set_model(self, model: SimilarityModel) -> None:
        self.source = model.source
        self.table.setRowCount(0)
        for a in model.attributes:
            self._add_row(a)
        self._edited()

    def _add_row(self, a: AttributeModel) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        name = QTableWidgetItem(a.name)
        name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.setItem(row, ATTRIBUTE, name)
        kind = QComboBox()
        kind.addItems(list(TYPES))
        kind.setCurrentText(a.type)
        kind.setToolTip("The attribute's type: which local measures fit it, and how its cells are read")
        measure = QComboBox()
        params = QLineEdit(json.dumps(a.parameters) if a.parameters else "")
        params.setPlaceholderText("{}")
        params.setCursorPosition(0)         # the start of the parameters in sight, not the end of the JSON
        weight = QDoubleSpinBox()
        weight.setRange(0.0, 1000.0)
        weight.setDecimals(2)
        weight.setValue(a.weight)
        weight.setToolTip("The attribute's weight in the weighted mean (0 leaves it out); type it, or use the wheel "
                          "or the arrow keys")
        weight.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)      # room for the parameters
        self.table.setCellWidget(row, TYPE, kind)
        self.table.setCellWidget(row, MEASURE, measure)
        self.table.setCellWidget(row, PARAMETERS, params)
        self.table.setCellWidget(row, WEIGHT, weight)
        delimiter = QLineEdit(a.delimiter or "")
        delimiter.setPlaceholderText(";")
        delimiter.setMaxLength(8)
        delimiter.setFixedWidth(delimiter.fontMetrics().horizontalAdvance("Separator") + 16)
        delimiter.setToolTip(DELIMITER_TIP)
        delimiter.setEnabled(a.type == "set")
        self.table.setCellWidget(row, DELIMITER, delimiter)
        delimiter.textChanged.connect(self._edited)
        kind.currentTextChanged.connect(lambda text, d=delimiter: d.setEnabled(text == "set"))
        self._fill_measures(measure, a.type, a.measure)
        kind.currentTextChanged.connect(lambda text, m=measure: (self._fill_measures(m, text, None), self._edited()))
        measure.currentIndexChanged.connect(lambda _, m=measure: (self._measure_tip(m), self._edited()))
        params.textChanged.connect(self._edited)
        weight.valueChanged.connect(self._edited)

    @staticmethod
    def _fill_measures(combo: QComboBox, kind: str, chosen: str | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        for name in MEASURES_BY_TYPE.get(kind, ()):
            combo.addItem(plain_words(name), name)
            combo.setItemData(combo.count() - 1, LOCAL_SIMILARITIES[name].help_text, Qt.ItemDataRole.ToolTipRole)
        if chosen is not None and combo.findData(chosen) < 0:     # a file's measure that does not fit: shown
            combo.addItem(chosen, chosen)
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

    # ------------------------------------------------------------ the model
    def to_dict(self) -> dict:
        """The table as the model file's object (parameters that are not JSON are kept as their text)."""
        attributes = []
        for row in range(self.table.rowCount()):
            name = self.table.item(row, ATTRIBUTE).text()
            text = self.widget(row, PARAMETERS).text().strip()
            try:
                parameters = json.loads(text) if text else {}
            except json.JSONDecodeError:
                parameters = text
            item = {"name": name, "type": self.widget(row, TYPE).currentText(),
                    "measure": self.widget(row, MEASURE).currentData(), "weight": self.widget(row, WEIGHT).value(),
                    "parameters": parameters}
            delimiter = self.widget(row, DELIMITER).text()
            if delimiter and item["type"] == "set":
                item["delimiter"] = delimiter
            attributes.append(item)
        return {"attributes": attributes}

    def model(self) -> SimilarityModel:
        """The model the table describes; EvalInputError (naming the attribute) when the engine would refuse it."""
        data = self.to_dict()
        for item in data["attributes"]:
            if not isinstance(item["parameters"], dict):
                raise EvalInputError(self.source, f"attribute '{item['name']}': the parameters must be a JSON "
                                                  f'object such as {{"range": 10}}, not {item["parameters"]!r}')
        return SimilarityModel.from_dict(data, self.source)

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
        bad_row = None
        if problem:
            bad_row = next((r for r in range(self.table.rowCount())
                            if f"'{self.table.item(r, ATTRIBUTE).text()}'" in problem), None)
        for row in range(self.table.rowCount()):
            box = self.widget(row, PARAMETERS)
            mark_invalid(box, problem if row == bad_row else None)
            if row != bad_row:
                box.setToolTip(parameters_tip(self.widget(row, MEASURE).currentData()))
        self.problem_label.setText(problem or "")
        self.problem_label.setVisible(bool(problem))
        self.changed.emit()

    # ------------------------------------------------------------ files
    def load(self, path: str, case_base=None) -> None:
        from evalgui.core.cbr.model import load_model

        self.set_model(load_model(path, case_base))

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
        self.setMinimumContentsLength(8)
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
