"""One small form per local similarity measure: its parameters as spin boxes, choices, a curve or a grid,
never JSON. Each form reads and writes the measure's ``parameters`` object of the model file, and marks a
field the engine would refuse red with a short reason (:meth:`MeasureForm.problem` says it to the editor).

A parameter the file did not give stays out of the object while it keeps its default, so that a model
loaded and saved again is the same model.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QListWidget, QPushButton, QRadioButton, QTableWidget,
                               QTableWidgetItem, QWidget)

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES
from evalgui.gui.plain_text import tip as plain_tip

INVALID_STYLE = "border: 1px solid #c62828; background: #fdecea;"
INVALID_BRUSH = QColor("#fdecea")
# More values than this are not laid out as a grid (a column of 50,000 ids is no category).
MAX_GRID_VALUES = 60


def mark(widget: QWidget, reason: str | None, tip: str = "") -> None:
    """The field red with ``reason`` as its tooltip, or plain again (None)."""
    widget.setProperty("invalid", reason is not None)
    name = type(widget).__name__
    widget.setStyleSheet(f"{name} {{ {INVALID_STYLE} }}" if reason else "")
    widget.setToolTip(plain_tip(reason) or tip)


def format_number(value: float) -> str:
    return f"{value:.10g}"


def _plain(value: float):
    """An integral float as int, so that a file's 6 is saved as 6, not 6.0."""
    return int(value) if float(value).is_integer() and abs(value) < 2 ** 53 else value


class NumberBox(QDoubleSpinBox):
    """A spin box that shows a number as it is written (0.02, 100000), not with a fixed count of decimals."""

    def __init__(self, low: float, high: float, step: float, parent=None):
        super().__init__(parent)
        self.setDecimals(10)
        self.setRange(low, high)
        self.setSingleStep(step)
        self.setKeyboardTracking(True)
        self.setMinimumWidth(110)

    def textFromValue(self, value: float) -> str:
        return format_number(value)


class MeasureForm(QWidget):
    """The form of one measure. ``changed`` fires at every edit."""

    changed = Signal()
    measure = ""

    def __init__(self, given: dict, context: "AttributeContext", parent=None):
        super().__init__(parent)
        self.given = set(given)            # the keys the file gave: they are written back even at their default
        self.context = context
        self.layout_ = QFormLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)

    def parameters(self) -> dict:
        return {}

    def problem(self) -> str | None:
        return None

    def summary(self) -> str:
        return "no settings"

    def _keep(self, out: dict, key: str, value, default) -> None:
        if key in self.given or value != default:
            out[key] = value


class AttributeContext:
    """What the train case base says about an attribute: its values (categorical) and their span (numeric)."""

    def __init__(self, values: list[str] | None = None, span: float | None = None, source: str = ""):
        self.values = values or []
        self.span = span
        self.source = source


class NoSettings(MeasureForm):
    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.layout_.addRow(QLabel("This measure has no settings."))


class RangeRow(QWidget):
    """The range of a linear or asymmetric measure: automatic (the attribute's span), or a number above 0."""

    changed = Signal()

    def __init__(self, value, context: AttributeContext, parent=None):
        super().__init__(parent)
        self.automatic = QCheckBox("From the data")
        span = "" if context.span is None else f" ({format_number(context.span)} in the train case base)"
        self.automatic.setToolTip("The largest minus the smallest value of the attribute over both case bases"
                                  + span)
        self.box = NumberBox(0.0, 1e15, 1.0)
        self.box.setObjectName("range")
        self.tip = "The distance at which the similarity reaches 0 (above 0)"
        self.box.setToolTip(self.tip)
        self.automatic.setChecked(value is None)
        self.box.setValue(float(value) if value is not None else (context.span or 1.0))
        self.box.setEnabled(value is not None)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.box, 1)
        row.addWidget(self.automatic)
        self.automatic.toggled.connect(lambda on: (self.box.setEnabled(not on), self.changed.emit()))
        self.box.valueChanged.connect(self.changed)

    def value(self):
        return None if self.automatic.isChecked() else _plain(self.box.value())

    def problem(self) -> str | None:
        reason = None if self.automatic.isChecked() or self.box.value() > 0 else "The range must be above 0"
        mark(self.box, reason, self.tip)
        return reason


class LinearForm(MeasureForm):
    measure = "linear"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.range = RangeRow(given.get("range"), context)
        self.range.changed.connect(self.changed)
        self.layout_.addRow("Range", self.range)

    def parameters(self) -> dict:
        value = self.range.value()
        return {} if value is None else {"range": value}

    def problem(self) -> str | None:
        return self.range.problem()

    def summary(self) -> str:
        value = self.range.value()
        return "range from the data" if value is None else f"range {format_number(value)}"


class AsymmetricForm(LinearForm):
    measure = "asymmetric"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.more = QRadioButton("Higher is better")
        self.more.setToolTip("A case with a higher value than the query is fully similar")
        self.less = QRadioButton("Lower is better")
        self.less.setToolTip("A case with a lower value than the query is fully similar")
        group = QButtonGroup(self)
        group.addButton(self.more)
        group.addButton(self.less)
        (self.less if given.get("better") == "less" else self.more).setChecked(True)
        self.more.toggled.connect(self.changed)
        row = QHBoxLayout()
        row.addWidget(self.more)
        row.addWidget(self.less)
        row.addStretch(1)
        self.layout_.insertRow(0, "Direction", row)

    def better(self) -> str:
        return "more" if self.more.isChecked() else "less"

    def parameters(self) -> dict:
        out = {}
        self._keep(out, "better", self.better(), "more")
        return {**out, **super().parameters()}

    def summary(self) -> str:
        return ("higher" if self.better() == "more" else "lower") + " is better, " + super().summary()


class ExponentialForm(MeasureForm):
    measure = "exponential"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.alpha = NumberBox(0.0, 1e6, 0.01)
        self.alpha.setObjectName("alpha")
        self.tip = "How fast the similarity falls with the distance (above 0): exp(−α · distance)"
        self.alpha.setToolTip(self.tip)
        self.alpha.setValue(float(given.get("alpha", 1.0)))
        self.alpha.valueChanged.connect(self._redraw)
        self.alpha.valueChanged.connect(self.changed)
        self.layout_.addRow("α (decay)", self.alpha)
        self.plot = None        # drawn when first shown: a model's forms are built at once, a plot is ~20 ms

    def showEvent(self, event) -> None:
        if self.plot is None:
            self._add_plot()
        super().showEvent(event)

    def _add_plot(self) -> None:
        import pyqtgraph as pg

        from evalgui.gui.plot_palette import follow_palette

        self.plot = pg.PlotWidget()
        follow_palette(self.plot)
        self.plot.setObjectName("alphaCurve")
        self.plot.setFixedHeight(120)
        self.plot.setMinimumWidth(220)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.setLabel("bottom", "distance")
        self.plot.setLabel("left", "similarity")
        self.plot.setYRange(0, 1.05, padding=0)
        self.curve = self.plot.plot(pen=pg.mkPen("#1565c0", width=2))
        self.layout_.addRow(self.plot)
        self._redraw()

    def curve_points(self):
        import numpy as np

        alpha = self.alpha.value()
        end = self.context.span if self.context.span else (3 / alpha if alpha > 0 else 1.0)
        x = np.linspace(0.0, end, 60)
        return x, np.exp(-alpha * x)

    def _redraw(self) -> None:
        if self.plot is not None:
            x, y = self.curve_points()
            self.curve.setData(x, y)
            self.plot.setXRange(0, x[-1], padding=0)

    def parameters(self) -> dict:
        out = {}
        self._keep(out, "alpha", _plain(self.alpha.value()), 1)
        return out

    def problem(self) -> str | None:
        reason = None if self.alpha.value() > 0 else "α must be above 0"
        mark(self.alpha, reason, self.tip)
        return reason

    def summary(self) -> str:
        return f"α = {format_number(self.alpha.value())}"


class ThresholdForm(MeasureForm):
    measure = "threshold"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.threshold = NumberBox(0.0, 1e15, 1.0)
        self.threshold.setObjectName("threshold")
        self.threshold.setToolTip("The largest distance still counted as similar (1); beyond it 0")
        self.threshold.setValue(float(given.get("threshold", 0.0)))
        self.threshold.valueChanged.connect(self.changed)
        self.layout_.addRow("Largest distance", self.threshold)

    def parameters(self) -> dict:
        out = {}
        self._keep(out, "threshold", _plain(self.threshold.value()), 0)
        return out

    def summary(self) -> str:
        return f"similar within {format_number(self.threshold.value())}"


class LevenshteinForm(MeasureForm):
    measure = "normalized_levenshtein"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.case_sensitive = QCheckBox("Upper and lower case differ")
        self.case_sensitive.setToolTip("Unticked: 'Golf' and 'golf' are the same text")
        self.case_sensitive.setChecked(bool(given.get("case_sensitive", True)))
        self.case_sensitive.toggled.connect(self.changed)
        self.layout_.addRow(self.case_sensitive)

    def parameters(self) -> dict:
        out = {}
        self._keep(out, "case_sensitive", self.case_sensitive.isChecked(), True)
        return out

    def summary(self) -> str:
        return "case matters" if self.case_sensitive.isChecked() else "case ignored"


class ValuesList(QListWidget):
    """The values the train case base holds for the attribute: what a query can be compared with."""

    def __init__(self, context: AttributeContext, parent=None):
        super().__init__(parent)
        self.setObjectName("acceptedValues")
        self.addItems(context.values)
        self.setMaximumHeight(90)
        self.setToolTip("The values of this attribute in the train case base")


class EqualityForm(MeasureForm):
    measure = "equality"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        self.layout_.addRow(QLabel("Equal values are similar (1), all others not (0)."))
        if context.values:
            self.values = ValuesList(context)
            self.layout_.addRow(f"Values ({len(context.values)})", self.values)


class TableForm(MeasureForm):
    """A grid: one row per query value, one column per case value, each cell a similarity in [0, 1] or empty
    (equal values: 1, other pairs: the default). The values are the train case base's and the table's own; more
    can be added."""

    measure = "table"

    def __init__(self, given, context, parent=None):
        super().__init__(given, context, parent)
        table = given.get("table") if isinstance(given.get("table"), dict) else {}
        names = list(context.values[:MAX_GRID_VALUES])
        for a, row in table.items():
            for value in (a, *(row if isinstance(row, dict) else ())):
                if str(value) not in names:
                    names.append(str(value))
        self.grid = QTableWidget(len(names), len(names))
        self.grid.setObjectName("similarityTable")
        self.grid.setHorizontalHeaderLabels(names)
        self.grid.setVerticalHeaderLabels(names)
        self.grid.setToolTip("Rows: the query's value; columns: the case's value. Empty: 1 for equal values, "
                             "else the similarity of other pairs")
        self.grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.grid.horizontalHeader().setMinimumSectionSize(56)
        self.grid.verticalHeader().setDefaultSectionSize(24)
        self.grid.setMinimumHeight(150)
        self.names = names
        for i in range(len(names)):
            for j in range(len(names)):
                self.grid.setItem(i, j, QTableWidgetItem(""))
        for a, row in table.items():
            for b, sim in (row.items() if isinstance(row, dict) else ()):
                self.grid.item(names.index(str(a)), names.index(str(b))).setText(
                    format_number(sim) if isinstance(sim, (int, float)) and not isinstance(sim, bool) else str(sim))
        self.grid.itemChanged.connect(self._cell_changed)
        self.symmetric = QCheckBox("A pair given one way holds both ways")
        self.symmetric.setChecked(bool(given.get("symmetric", True)))
        self.symmetric.toggled.connect(self.changed)
        self.default = NumberBox(0.0, 1.0, 0.1)
        self.default.setObjectName("default")
        self.default.setToolTip("The similarity of two different values the table does not give (0 to 1)")
        self.default.setValue(float(given.get("default", 0.0)))
        self.default.valueChanged.connect(self.changed)
        self.new_value = QLineEdit()
        self.new_value.setPlaceholderText("Another value")
        self.add_button = QPushButton("Add")
        self.add_button.clicked.connect(self.add_value)
        adding = QHBoxLayout()
        adding.addWidget(self.new_value, 1)
        adding.addWidget(self.add_button)
        self.layout_.addRow(self.grid)
        self.layout_.addRow(adding)
        self.layout_.addRow(self.symmetric)
        self.layout_.addRow("Other pairs", self.default)
        if len(context.values) > MAX_GRID_VALUES:
            self.layout_.addRow(QLabel(f"The train case base has {len(context.values)} values: the first "
                                       f"{MAX_GRID_VALUES} are shown; add others by name."))
        self._check_cells()

    def add_value(self) -> None:
        name = self.new_value.text().strip()
        if not name or name in self.names:
            return
        self.names.append(name)
        n = len(self.names)
        self.grid.blockSignals(True)
        self.grid.setRowCount(n)
        self.grid.setColumnCount(n)
        for k in range(n):
            for i, j in ((n - 1, k), (k, n - 1)):
                if self.grid.item(i, j) is None:
                    self.grid.setItem(i, j, QTableWidgetItem(""))
        self.grid.setHorizontalHeaderLabels(self.names)
        self.grid.setVerticalHeaderLabels(self.names)
        self.grid.blockSignals(False)
        self.new_value.clear()

    def cell(self, query_value: str, case_value: str) -> QTableWidgetItem:
        return self.grid.item(self.names.index(query_value), self.names.index(case_value))

    @staticmethod
    def _reason(text: str) -> str | None:
        if not text:
            return None
        try:
            value = float(text.replace(",", "."))
        except ValueError:
            return f"'{text}' is not a number"
        if not math.isfinite(value) or not 0 <= value <= 1:
            return f"{text} is not between 0 and 1"
        return None

    def _cell_changed(self, _item) -> None:
        self._check_cells()
        self.changed.emit()

    def _check_cells(self) -> str | None:
        first = None
        self.grid.blockSignals(True)
        for i in range(self.grid.rowCount()):
            for j in range(self.grid.columnCount()):
                item = self.grid.item(i, j)
                reason = self._reason(item.text().strip())
                item.setBackground(INVALID_BRUSH if reason else QColor(Qt.GlobalColor.transparent))
                item.setToolTip(plain_tip(reason or ""))
                if reason and first is None:
                    first = f"{self.names[i]} → {self.names[j]}: {reason}"
        self.grid.blockSignals(False)
        return first

    def problem(self) -> str | None:
        return self._check_cells()

    def table(self) -> dict:
        out: dict = {}
        for i in range(self.grid.rowCount()):
            for j in range(self.grid.columnCount()):
                text = self.grid.item(i, j).text().strip()
                if text and self._reason(text) is None:
                    out.setdefault(self.names[i], {})[self.names[j]] = _plain(float(text.replace(",", ".")))
        return out

    def parameters(self) -> dict:
        out = {"table": self.table()}
        self._keep(out, "symmetric", self.symmetric.isChecked(), True)
        self._keep(out, "default", _plain(self.default.value()), 0)
        return out

    def summary(self) -> str:
        pairs = sum(len(row) for row in self.table().values())
        return f"{pairs} pair{'s' if pairs != 1 else ''} set, others {format_number(self.default.value())}"


FORMS = {form.measure: form for form in (LinearForm, AsymmetricForm, ExponentialForm, ThresholdForm,
                                         LevenshteinForm, EqualityForm, TableForm)}


def form_for(measure: str, given: dict, context: AttributeContext) -> MeasureForm:
    """The form of ``measure`` filled from its ``given`` parameters (a measure without settings: a note)."""
    form = FORMS.get(measure, NoSettings)(dict(given), context)
    if measure in LOCAL_SIMILARITIES:
        form.setToolTip(LOCAL_SIMILARITIES[measure].help_text)
    return form
