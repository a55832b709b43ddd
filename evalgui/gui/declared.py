"""Form controls from a workflow's parameter declarations: label, tooltip, bounds and default in one place.

:func:`bind` dresses a control (spin box, check box, combo box, line edit) from its
:class:`~evalgui.core.workflows.params.Param`: the control's label or text, its tooltip (the
declaration's help), its range and its default. A :class:`Bindings` of a form reads and restores the
values of all its bound controls by parameter name, so a form writes no per-widget
``state()``/``restore()`` code, and its saved state has the request's names and types.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox

INT_LIMIT = 2_147_483_647          # a QSpinBox holds a C int
LIST_TYPES = ("ints", "floats", "texts")


def _list_text(values) -> str:
    return ", ".join(str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)


def _parse_list(param, text: str):
    """The numbers typed in a line edit as the parameter's list, or None when a part is not one."""
    try:
        return param.coerce([p for p in re.split(r"[\s,;]+", text.strip()) if p] if param.type != "texts"
                            else [p.strip() for p in text.split(",") if p.strip()])
    except ValueError:
        return None


def _tooltip(param) -> str:
    return param.help + (f" (in {param.unit})" if param.unit else "")


class Binding:
    """One control bound to one parameter."""

    def __init__(self, param, widget, label: QLabel | None = None):
        self.param, self.widget, self.label = param, widget, label
        self._dress()

    def _dress(self) -> None:
        p, w = self.param, self.widget
        w.setToolTip(_tooltip(p))
        w.setAccessibleName(p.label)
        if self.label is not None:
            self.label.setText(p.label)
            self.label.setBuddy(w)
            self.label.setToolTip(_tooltip(p))
        if isinstance(w, QCheckBox):
            w.setText(p.label)
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            low = p.minimum if p.minimum is not None else -INT_LIMIT
            if self._none_is_lowest():      # 0, shown as the special text ("all", "not given"), means none
                low = 0 if p.minimum is None else min(p.minimum, 0)
            high = p.maximum if p.maximum is not None else INT_LIMIT
            if isinstance(w, QSpinBox):
                low, high = max(int(low), -INT_LIMIT), min(int(high), INT_LIMIT)
            w.setRange(low, high)
            if p.unit and isinstance(w, QSpinBox):
                w.setSuffix(f" {p.unit}")
        elif isinstance(w, QComboBox) and w.count() == 0:
            for value, text in p.choices:
                w.addItem(text, value)
        if p.default is not None or p.optional:
            self.set_value(p.default)

    def _none_is_lowest(self) -> bool:
        """An optional number in a spin box with a special text: its lowest value stands for None."""
        w = self.widget
        return (self.param.optional and isinstance(w, (QSpinBox, QDoubleSpinBox))
                and bool(w.specialValueText()))

    def value(self) -> Any:
        w, p = self.widget, self.param
        if isinstance(w, QCheckBox):
            if p.type == "choice":          # one choice, on or off
                return p.choice_values[0] if w.isChecked() else None
            return w.isChecked()
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            if self._none_is_lowest() and w.value() == w.minimum():
                return None
            return w.value()
        if isinstance(w, QComboBox):
            return w.currentData()
        if isinstance(w, QLineEdit):
            if p.type in LIST_TYPES:        # the list, or the text as typed when a part is not a number
                values = _parse_list(p, w.text())
                return w.text() if values is None else list(values)
            return w.text()
        raise TypeError(f"cannot read a {type(w).__name__}")

    def set_value(self, value) -> bool:
        """Show ``value`` if the parameter accepts it (False, and nothing changes, otherwise)."""
        w, p = self.widget, self.param
        if isinstance(w, QLineEdit) and p.type in LIST_TYPES and isinstance(value, str):
            w.setText(value)                # as typed (an older project saved the text)
            return True
        if isinstance(w, QCheckBox) and p.type == "choice":
            if not (value is None or isinstance(value, bool) or value in p.choice_values):
                return False
            w.setChecked(value is not None and value is not False)
            return True
        if self._none_is_lowest() and (
                value is None or (not isinstance(value, bool) and value == w.minimum())):
            w.setValue(w.minimum())         # none (an older project saved the special value)
            return True
        try:
            value = self.param.coerce(value)
        except ValueError:
            return False
        if value is None or self.param.check(value):
            return False
        w = self.widget
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            if not w.minimum() <= value <= w.maximum():
                return False
            w.setValue(int(value) if isinstance(w, QSpinBox) else value)
        elif isinstance(w, QComboBox):
            index = w.findData(value)
            if index < 0:
                return False
            w.setCurrentIndex(index)
        elif isinstance(w, QLineEdit):
            w.setText(_list_text(value) if p.type in LIST_TYPES else str(value))
        return True

    @property
    def changed(self):
        """The signal of the user's edits (a line edit's textEdited: the form setting it is none)."""
        w = self.widget
        if isinstance(w, QCheckBox):
            return w.toggled
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            return w.valueChanged
        if isinstance(w, QComboBox):
            return w.currentIndexChanged
        return w.textEdited


class Bindings:
    """A form's bound controls by parameter name: their values as the form's state, and back."""

    def __init__(self):
        self._bindings: dict[str, Binding] = {}

    def bind(self, param, widget, label: QLabel | None = None):
        """Dress ``widget`` from ``param`` and remember it; returns the widget."""
        self._bindings[param.name] = Binding(param, widget, label)
        return widget

    def __getitem__(self, name: str) -> Binding:
        return self._bindings[name]

    def changed_signals(self) -> list:
        return [b.changed for b in self._bindings.values()]

    def state(self) -> dict:
        return {name: b.value() for name, b in self._bindings.items()}

    def restore(self, state: dict, aliases: dict[str, str] | None = None) -> None:
        """Show the saved values (under their names, or an older name in ``aliases``); a value the
        parameter does not accept leaves its control as it is."""
        if not isinstance(state, dict):
            return
        for old, new in (aliases or {}).items():
            if old in state and new not in state:
                state = {**state, new: state[old]}
        for name, binding in self._bindings.items():
            if name in state:
                binding.set_value(state[name])


def bind(param, widget, label: QLabel | None = None) -> Binding:
    return Binding(param, widget, label)
