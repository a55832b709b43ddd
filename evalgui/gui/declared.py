"""Form controls from a workflow's parameter declarations: label, tooltip, bounds and default in one place.

:func:`bind` dresses a control (spin box, check box, radio button, combo box, line edit) from its
:class:`~evalgui.core.workflows.params.Param`: the control's label or text, its tooltip (the
declaration's help), its range and its default. A :class:`Bindings` of a form reads and restores the
values of all its bound controls by parameter name, so a form writes no per-widget
``state()``/``restore()`` code, and its saved state has the request's names and types.

Besides the scalar controls, a form binds (one mechanism for every kind, as Orange declares a widget's
settings):

- a list parameter shown as a :class:`~evalgui.gui.workspaces.run_picker.Checklist` (runs, baselines,
  metrics): the state is the ticks by key, which survive the list being refilled;
- a measure picker (anything with ``state()``/``restore()``): its own state;
- a value the form holds rather than shows in one control (the file chosen among the loaded ones,
  B as last set for each test, a similarity model as edited): :meth:`Bindings.hold`, by attribute or by a
  getter and a setter.

View-only settings (which source page is shown) are declared with :func:`view` and bound the same way.
A binding's name may be dotted (``ranked.on``): the state nests it (``{"ranked": {"on": ...}}``).

:meth:`Bindings.keep_defaults` (the end of a form's constructor) keeps the values the form starts with, its
declared defaults; :meth:`Bindings.reset` puts them back (a project or the demo then sets what it says, the
rest stays at the defaults). :meth:`Bindings.remembered` is the part of a state kept from one session to the
next: never a file, nor what describes the loaded data.
"""

from __future__ import annotations

import copy
import os
import re
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QRadioButton, QSpinBox

from evalgui.core.errors import EvalUsageError
from evalgui.core.workflows.params import Param, RequestError

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


def view(name: str, type: str, default: Any = None, choices: tuple = (), label: str = "",
         optional: bool = False) -> Param:
    """A view-only setting of a form (which source page is shown, B as last set for each test): saved and
    restored with the form's state, but no parameter of the job. Not ``optional``: a saved None is ignored."""
    return Param(name=name, type=type, default=default, choices=choices, label=label or name,
                 help="How the form is set out (not a parameter of the job).", optional=optional)


class Binding:
    """One control bound to one parameter. ``dress=False``: the control keeps the label and tooltip the form
    gave it (a view-only setting, or a box whose tooltip follows its choice); its state is bound all the same."""

    late = False

    def __init__(self, param, widget, label: QLabel | None = None, dress: bool = True):
        self.param, self.widget, self.label = param, widget, label
        if dress:
            self._dress()

    def _dress(self) -> None:
        p, w = self.param, self.widget
        w.setToolTip(_tooltip(p))
        w.setAccessibleName(p.label)
        if self.label is not None:
            self.label.setText(p.label)
            self.label.setBuddy(w)
            self.label.setToolTip(_tooltip(p))
        if isinstance(w, (QCheckBox, QRadioButton)):
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
        if isinstance(w, QRadioButton):
            return w.isChecked()
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
        if isinstance(w, QRadioButton):
            _check_radio(w, bool(value))
        elif isinstance(w, QCheckBox):
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

    def reset(self, value) -> None:
        self.set_value(value)

    @property
    def changed(self):
        """The signal of the user's edits (a line edit's textEdited: the form setting it is none)."""
        w = self.widget
        if isinstance(w, (QCheckBox, QRadioButton)):
            return w.toggled
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            return w.valueChanged
        if isinstance(w, QComboBox):
            return w.currentIndexChanged
        return w.textEdited


def _check_radio(button: QRadioButton, on: bool) -> None:
    """A radio button on, or off: off checks another button of its group (an exclusive group keeps one on)."""
    if on or button.group() is None:
        button.setChecked(on)
        return
    if button.isChecked():
        other = next((b for b in button.group().buttons() if b is not button), None)
        if other is not None:
            other.setChecked(True)


class _RestoringBinding:
    """A control that restores a dict of its own (``widget.restore``) and says when it changed."""

    late = False

    def __init__(self, param, widget):
        self.param, self.widget, self.label = param, widget, None

    def set_value(self, value) -> bool:
        if not isinstance(value, dict):
            return False
        self.widget.restore(value)
        return True

    def reset(self, value) -> None:
        self.widget.restore(value)

    @property
    def changed(self):
        return self.widget.changed


class ChecklistBinding(_RestoringBinding):
    """A list parameter shown as a checklist: the state is the ticks by key (``{key: bool}``), which the list
    keeps across refills, so a run ticked in a project is ticked again once its file is loaded."""

    def value(self) -> dict:
        return dict(self.widget.ticks)

    def reset(self, value) -> None:
        self.widget.ticks.clear()       # restoring ticks adds to those there; the defaults replace them
        self.widget.restore(value)


class StateBinding(_RestoringBinding):
    """A compound control that keeps its own state (a measure picker: the ticks, their parameters, the
    measures added): the state is the control's ``state()``, a dict."""

    def value(self) -> dict:
        return self.widget.state()


class HeldBinding:
    """A value the form holds rather than shows in one control: an attribute of ``holder`` (or a key of a
    dict), or what ``get`` returns and ``put`` takes. A value of the wrong type is ignored; a setter may
    refuse one by raising ValueError or returning False. ``late``: restored after the form has refreshed
    its inputs (a model needs its case base). ``shows``: the controls that show the value (the combo box of
    the loaded files), which it is read from only through the holder."""

    changed = None

    def __init__(self, param, holder=None, attribute: str | None = None, *, get=None, put=None, late=False,
                 shows=()):
        self.param, self.widget, self.label, self.late = param, None, None, late
        self.shows = tuple(shows)
        if get is None:
            if isinstance(holder, dict):
                get, put = (lambda: holder[attribute]), (lambda v: holder.__setitem__(attribute, v))
            else:
                get, put = (lambda: getattr(holder, attribute)), (lambda v: setattr(holder, attribute, v))
        self._get, self._put = get, put

    def value(self) -> Any:
        return self._get()

    def reset(self, value) -> None:
        self._put(copy.deepcopy(value))     # the form's own value: no check (None where a file is wanted)

    def set_value(self, value) -> bool:
        p = self.param
        if value is None and not p.optional and p.type != "file":     # a file not chosen is None
            return False
        if p.type == "json":
            if p.default is not None and value is not None and not isinstance(value, type(p.default)):
                return False            # a dict saved where a dict is held, say
        else:
            try:
                value = p.coerce(value)
            except ValueError:
                return False
            if isinstance(value, tuple):
                value = list(value)
        try:
            return self._put(value) is not False
        except (ValueError, TypeError):
            return False


class Bindings:
    """A form's bound controls by parameter name: their values as the form's state, and back.

    ``refresh``: what the form does once the values are restored and before the ``late`` ones are (refill its
    pickers from the session). Values are restored in the order they were bound."""

    def __init__(self, refresh=None):
        self._bindings: dict[str, Any] = {}
        self._defaults: dict[str, Any] | None = None
        self._session_only: set[str] = set()
        self.refresh = refresh

    def bind(self, param, widget, label: QLabel | None = None, *, name: str | None = None, dress: bool = True):
        """Dress ``widget`` from ``param`` and remember it under ``name`` (the parameter's by default); a
        checklist gives its ticks, a control with ``state()``/``restore()`` its state. Returns the widget.
        A list of files (``files``) is never remembered from one session to the next."""
        from evalgui.gui.workspaces.run_picker import Checklist

        if isinstance(widget, Checklist):
            binding = ChecklistBinding(param, widget)
        elif hasattr(widget, "state") and hasattr(widget, "restore"):
            binding = StateBinding(param, widget)
        else:
            binding = Binding(param, widget, label, dress)
        self._bindings[name or param.name] = binding
        return widget

    def hold(self, param, holder=None, attribute: str | None = None, *, name: str | None = None, get=None,
             put=None, late: bool = False, shows=(), session_only: bool = False) -> None:
        """Bind a value the form holds (see :class:`HeldBinding`) under ``name`` (the parameter's by default).
        ``session_only``: it describes the loaded data (a similarity model of a case base's attributes, the id
        column of each file), so it is not remembered for the next session; a file (``file``) never is."""
        self._bindings[name or param.name] = HeldBinding(param, holder, attribute, get=get, put=put, late=late,
                                                         shows=shows)
        if session_only:
            self._session_only.add(name or param.name)

    def __getitem__(self, name: str):
        return self._bindings[name]

    def __contains__(self, name: str) -> bool:
        return name in self._bindings

    def names(self) -> list[str]:
        return list(self._bindings)

    def widgets(self) -> list:
        """The bound controls (a radio button with the others of its group), and those that show a held value."""
        found = []
        for b in self._bindings.values():
            for w in (b.widget,) if b.widget is not None else getattr(b, "shows", ()):
                group = w.group() if isinstance(w, QRadioButton) else None
                found += [w] if group is None else [o for o in group.buttons() if o is w or o not in found]
        return found

    def changed_signals(self) -> list:
        return [b.changed for b in self._bindings.values() if b.changed is not None]

    def state(self) -> dict:
        out: dict = {}
        for name, binding in self._bindings.items():
            _put(out, name, binding.value())
        return out

    # ------------------------------------------------------------ defaults and what is remembered
    def keep_defaults(self) -> None:
        """The values shown now are the form's defaults (called once the form is built, before any restore)."""
        self._defaults = {name: copy.deepcopy(binding.value()) for name, binding in self._bindings.items()}

    def defaults(self) -> dict:
        """The form's defaults as a state."""
        out: dict = {}
        for name, value in self._kept_defaults().items():
            _put(out, name, copy.deepcopy(value))
        return out

    def _kept_defaults(self) -> dict:
        if self._defaults is None:
            raise RuntimeError("the form did not keep its defaults (Bindings.keep_defaults)")
        return self._defaults

    def reset(self) -> None:
        """Every value back to the form's default: ticks forgotten, files unchosen. No ``refresh``: the
        restore that follows (a project's, the demo's) refreshes once (thousands of files: one refill)."""
        defaults = self._kept_defaults()
        for late in (False, True):
            for name, binding in self._bindings.items():
                if binding.late == late:
                    binding.reset(copy.deepcopy(defaults[name]))

    def names_data(self, name: str) -> bool:
        """Whether the binding ``name`` names a file or describes the loaded data (not remembered)."""
        return (name in self._session_only or self._bindings[name].param.type in ("file", "files"))

    def remembered(self, state: dict) -> dict:
        """What of ``state`` (the form's, or one remembered by an earlier version) seeds a new session: every
        setting but the files and what describes the loaded data; nothing that names a file."""
        if not isinstance(state, dict):
            return {}
        out: dict = {}
        for name in self._bindings:
            value = _lookup(state, name)
            if value is not _MISSING and not self.names_data(name) and not _names_a_path(value):
                _put(out, name, value)
        return out

    def restore(self, state: dict, aliases: dict[str, str] | None = None) -> None:
        """Show the saved values (under their names, or an older name in ``aliases``; dotted names look into
        nested dicts); a value the parameter does not accept leaves its control as it is. Then the form's
        ``refresh``, then the late values."""
        if not isinstance(state, dict):
            return
        found = {}
        for name in self._bindings:
            value = _lookup(state, name)
            if value is _MISSING:
                value = next((v for old, new in (aliases or {}).items() if new == name
                              and (v := _lookup(state, old)) is not _MISSING), _MISSING)
            if value is not _MISSING:
                found[name] = value
        for late in (False, True):
            if late and self.refresh is not None:
                self.refresh()
            for name, binding in self._bindings.items():
                if binding.late == late and name in found:
                    binding.set_value(found[name])


_MISSING = object()


def _names_a_path(value) -> bool:
    """Whether ``value`` holds an absolute path (as a value, or as a key: ticks by file)."""
    if isinstance(value, str):
        return os.path.isabs(value) or value.startswith("file:")
    if isinstance(value, dict):
        return any(_names_a_path(k) or _names_a_path(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_names_a_path(v) for v in value)
    return False


def _lookup(state: dict, name: str):
    for part in name.split("."):
        if not isinstance(state, dict) or part not in state:
            return _MISSING
        state = state[part]
    return state


def _put(out: dict, name: str, value) -> None:
    *parents, last = name.split(".")
    for part in parents:
        out = out.setdefault(part, {})
    out[last] = value


def bind(param, widget, label: QLabel | None = None) -> Binding:
    return Binding(param, widget, label)


def checked_request(make, inputs):
    """The request ``make()`` builds, checked against ``inputs``: its first problem, worded by the parameter's
    label, is the form's error."""
    try:
        request = make()
        problems = request.problems(inputs)
    except RequestError as exc:
        problems = exc.problems
    if problems:
        raise EvalUsageError(problems[0].for_window())
    return request
