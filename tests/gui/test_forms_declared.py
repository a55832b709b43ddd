"""Every form saves and restores its state through its bindings (issue 22, point 2): no form writes per-widget
``state()``/``restore()`` code, every input control of a form is bound, and a state with every setting changed
restores into a fresh form as the same state and the same request."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.gui.conftest import SAMPLE_DATA, load, load_synthetic

ROOT = Path(__file__).resolve().parents[2]
FORM_MODULES = sorted((ROOT / "evalgui" / "gui" / "workspaces").glob("*/form.py"))
WORKSPACES = ("ranked", "compare", "metaeval", "stability", "casebase")
CBR = SAMPLE_DATA / "cbr"
# Controls a form does not save, and why (their descendants too).
NOT_SAVED = {"casebase": {"preview": "which query and case the preview shows: a glance, not a setting"}}


# ---------------------------------------------------------------------------- no hand-written state
def _is_self_call(node: ast.AST, *attributes: str) -> bool:
    """``self.a.b(...)`` for attributes ("a", "b")."""
    if not isinstance(node, ast.Call):
        return False
    func, names = node.func, []
    while isinstance(func, ast.Attribute):
        names.append(func.attr)
        func = func.value
    return isinstance(func, ast.Name) and func.id == "self" and tuple(reversed(names)) == attributes


def _body(function: ast.FunctionDef) -> list:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]                 # the docstring
    return body


def hand_written_state(source: str) -> list[str]:
    """What in a form module's ``state``/``restore`` is more than its bindings' (empty: nothing)."""
    found = []
    for cls in (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)):
        for function in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            body = _body(function)
            if function.name == "state":
                if not (len(body) == 1 and isinstance(body[0], ast.Return)
                        and _is_self_call(body[0].value, "bindings", "state") and not body[0].value.args):
                    found.append(f"{cls.name}.state is more than `return self.bindings.state()`")
            elif function.name == "restore":
                saved = function.args.args[1].arg if len(function.args.args) > 1 else None
                restores = [s for s in body if isinstance(s, ast.Expr) and _is_self_call(s.value, "bindings",
                                                                                        "restore")]
                if len(restores) != 1 or not (restores[0].value.args and isinstance(restores[0].value.args[0],
                                                                                   ast.Name)
                                              and restores[0].value.args[0].id == saved):
                    found.append(f"{cls.name}.restore does not hand its state to self.bindings.restore once")
                    continue
                for statement in body:
                    if statement is restores[0]:
                        continue
                    # after the bindings: only the form's own reactions (self.method()), never the saved state
                    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                            and isinstance(statement.value.func, ast.Attribute)
                            and isinstance(statement.value.func.value, ast.Name)
                            and statement.value.func.value.id == "self"
                            and not statement.value.args and not statement.value.keywords):
                        found.append(f"{cls.name}.restore: line {statement.lineno} is not a bare self.method() call")
                uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == saved]
                if len(uses) != 1:
                    found.append(f"{cls.name}.restore reads the saved state itself ({len(uses)} uses)")
    return found


def test_every_form_saves_and_restores_through_its_bindings_only():
    assert len(FORM_MODULES) == 5
    for path in FORM_MODULES:
        source = path.read_text(encoding="utf-8")
        assert "def state(" in source and "def restore(" in source, path
        assert hand_written_state(source) == [], path


def test_the_check_sees_hand_written_state():
    written = '''
class Form:
    def state(self):
        return {**self.bindings.state(), "source": self.source()}

    def restore(self, state):
        self.bindings.restore(state)
        if isinstance(state.get("source"), str):
            self.combo.setCurrentIndex(self.combo.findData(state["source"]))
'''
    found = hand_written_state(written)
    assert len(found) == 3 and "Form.state" in found[0]
    assert hand_written_state('''
class Form:
    def state(self):
        """Doc."""
        return self.bindings.state()

    def restore(self, state):
        self.bindings.restore(state, aliases={"a": "b"})
        self.check_pairs()
''') == []


# ---------------------------------------------------------------------------- every input bound
def _inputs(form):
    from PySide6.QtWidgets import (QAbstractSpinBox, QCheckBox, QComboBox, QLineEdit, QListWidget, QRadioButton,
                                   QTreeWidget)

    kinds = (QAbstractSpinBox, QCheckBox, QRadioButton, QComboBox, QLineEdit, QListWidget, QTreeWidget)
    from PySide6.QtWidgets import QWidget

    return [w for w in form.findChildren(QWidget) if isinstance(w, kinds)
            and not isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox))]


def _within(widget, ancestors) -> bool:
    while widget is not None:
        if any(widget is a for a in ancestors):
            return True
        widget = widget.parentWidget()
    return False


@pytest.mark.parametrize("key", WORKSPACES)
def test_every_input_control_of_a_form_is_bound(qtbot, window, key):
    form = window.workspaces[key].form
    bound = form.bindings.widgets()
    exempt = [getattr(form, name) for name in NOT_SAVED.get(key, {})]
    unbound = [f"{type(w).__name__} {w.objectName() or w.accessibleName() or '?'}" for w in _inputs(form)
               if not _within(w, bound + exempt)]
    assert unbound == []


# ---------------------------------------------------------------------------- every setting round-trips
def _poke(binding) -> None:
    """Change a bound control (or held value) to another valid value, as a user could (not a disabled one)."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QRadioButton, QSpinBox

    from evalgui.gui.declared import ChecklistBinding, HeldBinding, StateBinding

    if binding.widget is not None and not binding.widget.isEnabled():
        return

    if isinstance(binding, ChecklistBinding):
        checklist = binding.widget
        keys = checklist.keys()
        if not keys:
            checklist.set_checked("not loaded yet", True)        # remembered until it is listed
            return
        unticked = [k for k in keys if k not in checklist.checked()]
        if unticked and len(checklist.checked()) < 3:      # so that a request has what it needs (two runs)
            checklist.set_checked(unticked[0], True)
        else:
            checklist.set_checked(keys[0], keys[0] in unticked)
        return
    if isinstance(binding, StateBinding):
        picker = binding.widget
        checked = picker.checked()
        name = next(n for n, r in picker.registry.items() if getattr(r, "value_type", "") != "text")
        picker.set_checked({k: v for k, v in checked.items() if k != name} if name in checked
                           else {**checked, name: ""})
        return
    if isinstance(binding, HeldBinding):
        combos = [w for w in binding.shows if isinstance(w, QComboBox) and w.count() > 1]
        if combos and binding.param.type != "json":
            combos[0].setCurrentIndex((combos[0].currentIndex() + 1) % combos[0].count())
        elif binding.param.type == "json" and isinstance(binding.param.default, dict):
            binding.set_value({"bootstrap": 321} if binding.param.name.startswith("samples") else {"x.csv": "id"})
        return
    widget, param = binding.widget, binding.param
    if isinstance(widget, (QCheckBox, QRadioButton)):
        binding.set_value(not binding.value() if param.type == "bool" else
                          (None if binding.value() is not None else param.choice_values[0]))
    elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        step = widget.singleStep()
        value = widget.value()
        widget.setValue(value + step if value + step <= widget.maximum() else value - step)
    elif isinstance(widget, QComboBox):
        widget.setCurrentIndex((widget.currentIndex() + 1) % widget.count())
    elif isinstance(widget, QLineEdit):
        text = {"ints": "3, 4", "floats": "0.25, 0.5", "texts": "a, b"}.get(param.type, "x")
        widget.setText(text if widget.text() != text else text.split(",")[0])


def _fresh(form, qtbot):
    fresh = type(form)(form.session, form.ranked_results) if hasattr(form, "ranked_results") else \
        type(form)(form.session)
    qtbot.addWidget(fresh)
    return fresh


def _request(key, form):
    """The form's request(s) as comparable values, or what it says is wrong."""
    from evalgui.core.errors import EvalUsageError

    try:
        if key == "ranked":
            from evalgui.gui.workspaces.ranked import evaluate_request

            return evaluate_request(form.qrels_path, form.checked_run_paths(), form.picker.specs(), form.options())
        made = form.request()
    except EvalUsageError as exc:
        return f"refused: {exc}"
    return tuple(r for r in made if not hasattr(r, "add"))       # the requests, not the Inputs


def _load(qtbot, window, key, folder):
    """Data for every page of the form, so that each source has something to choose from."""
    if key == "casebase":
        load(qtbot, window, [CBR / "cars.csv", CBR / "queries.csv", CBR / "procake_ground_truth.csv",
                             CBR / "procake_evaluated.csv"])
        return
    load_synthetic(qtbot, window)
    if key == "stability":
        load(qtbot, window, [SAMPLE_DATA / "rankfile" / "citations.tsv"])
    if key == "compare":
        from tests.gui.test_compare_workspace import write_scores

        write_scores(folder / "scores.csv", n_runs=4, n_queries=20)
        load(qtbot, window, [folder / "scores.csv"])


@pytest.mark.parametrize("key", WORKSPACES)
def test_a_state_with_every_setting_changed_restores_into_a_fresh_form(qtbot, window, key, tmp_path):
    _load(qtbot, window, key, tmp_path)
    form = window.workspaces[key].form
    before = form.state()
    for name in reversed(form.bindings.names()):      # a switch last: it may disable the controls it governs
        _poke(form.bindings[name])
    for name in form.bindings.names():                # then those a switch has enabled
        if _value(form.state(), name) == _value(before, name):
            _poke(form.bindings[name])
    state = json.loads(json.dumps(form.state()))            # as a project saves it
    changed = [name for name in form.bindings.names() if _value(state, name) != _value(before, name)]
    assert len(changed) >= len(form.bindings.names()) * 2 // 3, sorted(set(form.bindings.names()) - set(changed))

    fresh = _fresh(form, qtbot)
    fresh.restore(state)
    assert json.loads(json.dumps(fresh.state())) == state
    assert _request(key, fresh) == _request(key, form)


def _value(state, name):
    for part in name.split("."):
        state = state.get(part) if isinstance(state, dict) else None
    return state
