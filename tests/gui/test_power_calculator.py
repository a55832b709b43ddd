"""Help ▸ How many queries?: the topic-set-size calculator, filled in from a finished comparison."""

from __future__ import annotations

import pandas as pd
import pytest

from evalgui.core.stats.power import minimum_detectable_difference, topic_set_size
from tests.gui.conftest import run_and_wait
from tests.gui.test_compare_workspace import _compare_synthetic


def _help_action(window, text):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in menu.actions() if a.text() == text)


def _answer(qtbot, calculator, change):
    with qtbot.waitSignal(calculator.answered, timeout=10_000) as blocker:
        change()
    return blocker.args[0]


def test_a_compared_pair_fills_in_the_numbers_and_the_answer_is_the_engines(qtbot, window):
    compare = _compare_synthetic(qtbot, window)
    _help_action(window, "How many queries?").trigger()
    calculator = window.power_calculator
    qtbot.waitUntil(calculator.isVisible)
    assert calculator.source.isEnabled() and calculator.source.count() > 1

    per_query = compare.comparison_outcome.tables["per_query"]
    index = next(i for i in range(1, calculator.source.count())
                 if calculator.source.itemText(i).startswith("AP: bm25 vs dense"))
    text = _answer(qtbot, calculator, lambda: calculator.source.setCurrentIndex(index))

    wide = per_query[per_query["measure"] == "map"].pivot(index="query", columns="run", values="value")
    differences = wide["bm25"] - wide["dense"]
    assert calculator.sd.value() == pytest.approx(differences.std(ddof=1), abs=1e-4)
    assert calculator.queries.value() == len(differences) == 50
    needed = topic_set_size(calculator.sd.value(), calculator.difference.value())
    assert f"At least {needed:,} queries are needed" in text

    text = _answer(qtbot, calculator, lambda: calculator.ask_difference.setChecked(True))
    detected = minimum_detectable_difference(calculator.sd.value(), 50)
    assert f"With 50 queries the smallest difference detected is {detected:.4f}" in text
    assert not calculator.difference.isVisible() and calculator.queries.isVisible()


def test_without_a_comparison_the_numbers_are_typed_and_impossible_ones_are_said(qtbot, window):
    _help_action(window, "How many queries?").trigger()
    calculator = window.power_calculator
    qtbot.waitUntil(calculator.isVisible)
    assert not calculator.source.isEnabled()
    calculator.sd.setValue(0.2)
    text = _answer(qtbot, calculator, lambda: calculator.difference.setValue(0.05))
    assert text.startswith("At least 128 queries are needed to detect a difference of 0.05")
    text = _answer(qtbot, calculator, lambda: calculator.sd.setValue(10.0) or calculator.difference.setValue(0.0001))
    assert "more than 1,000,000,000 queries" in text and "Traceback" not in text
