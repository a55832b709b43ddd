"""Form controls dressed from declarations, and a form's state saved and restored through them."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QSpinBox

from evalgui.core.workflows.params import Param
from evalgui.gui.declared import Bindings

SPLITS = Param(name="splits", type="int", default=10, minimum=1, maximum=1000, label="Queries (splits)",
               help="How many queries the entities are split into.", unit="queries", flag="--splits")
ALPHA = Param(name="alpha", type="float", default=0.05, minimum=0.0001, maximum=0.9999, label="Significance level",
              help="α.")
ZERO = Param(name="complete", type="bool", default=False, label="Score queries missing from a run as 0", help="h")
TEST = Param(name="test", type="choice", default="t", choices=(("t", "Paired t-test"), ("sign", "Sign test")),
             label="Test", help="The test.")


def test_a_control_takes_label_help_bounds_default_from_its_declaration(qtbot):
    bindings = Bindings()
    spin, label = QSpinBox(), QLabel()
    qtbot.addWidget(spin)
    bindings.bind(SPLITS, spin, label)
    assert label.text() == "Queries (splits)" and label.buddy() is spin
    assert (spin.minimum(), spin.maximum(), spin.value()) == (1, 1000, 10)
    assert spin.suffix() == " queries" and spin.toolTip().startswith("How many queries")
    assert spin.accessibleName() == "Queries (splits)"
    check = bindings.bind(ZERO, QCheckBox())
    assert check.text() == "Score queries missing from a run as 0" and not check.isChecked()
    combo = bindings.bind(TEST, QComboBox())
    assert [combo.itemText(i) for i in range(combo.count())] == ["Paired t-test", "Sign test"]


def test_state_is_by_parameter_name_and_bad_saved_values_are_ignored(qtbot):
    bindings = Bindings()
    spin, alpha, combo = QSpinBox(), QDoubleSpinBox(), QComboBox()
    alpha.setDecimals(4)
    for widget, param in ((spin, SPLITS), (alpha, ALPHA), (combo, TEST)):
        bindings.bind(param, widget)
    spin.setValue(7)
    combo.setCurrentIndex(1)
    assert bindings.state() == {"splits": 7, "alpha": 0.05, "test": "sign"}
    bindings.restore({"splits": 5000, "alpha": "x", "test": "nosuch"})       # out of bounds, not a number, unknown
    assert bindings.state() == {"splits": 7, "alpha": 0.05, "test": "sign"}
    bindings.restore({"old_splits": 3, "test": "t"}, aliases={"old_splits": "splits"})
    assert bindings.state() == {"splits": 3, "alpha": 0.05, "test": "t"}


def test_the_compare_form_speaks_the_declarations_words(qtbot, window):
    form = window.workspaces["compare"].form
    assert form.fill_check.text() == "Score queries missing from a run as 0"
    assert "(-c)" not in form.fill_check.text() and "-c" not in form.fill_check.toolTip().split()
    state = form.state()
    assert state["level"] == 1 and state["complete"] is False and state["alpha"] == 0.05
    form.restore({"relevance_level": 2, "fill_missing": True})                # a version-1 project's names
    assert form.level_spin.value() == 2 and form.fill_check.isChecked()
