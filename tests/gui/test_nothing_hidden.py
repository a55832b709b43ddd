"""Nothing required is hidden: ticking the case-based form's ranked measures leaves Run nothing to refuse,
and brings the settings it revealed into sight."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QScrollArea

from tests.gui.conftest import run_and_wait
from tests.gui.test_casebase_workspace import _set_up, _tick


def test_ticking_ranked_measures_fills_what_run_needs_and_scrolls_to_it(qtbot, window, monkeypatch):
    window.resize(1366, 768)
    casebase = _set_up(qtbot, window, monkeypatch)
    window.tabs.setCurrentWidget(casebase)
    form = casebase.form
    assert not form.thresholds.text()
    _tick(qtbot, form.ranked_check)
    assert form.thresholds.text() == "0.7, 0.9" and not form.thresholds.property("invalid")
    assert form.ranked_picker.specs() and not form.ranked_picker.specs_problem()
    qtbot.wait(50)
    scroll = form.parentWidget()
    while not isinstance(scroll, QScrollArea):
        scroll = scroll.parentWidget()
    top = form.thresholds.mapTo(scroll.viewport(), form.thresholds.rect().topLeft()).y()
    assert 0 <= top and top + form.thresholds.height() <= scroll.viewport().height()
    if os.environ.get("EVALGUI_SHOTS"):
        window.grab().save(os.path.join(os.environ["EVALGUI_SHOTS"], "casebase_ranked_ticked.png"))
    run_and_wait(qtbot, casebase)                                        # Run takes it as it is
    assert casebase.outcome is not None, casebase.progress_label.text()
    assert "map" in set(casebase.outcome.table["metric"])


def test_ticking_ranked_measures_with_none_ticked_ticks_some_at_the_forms_k(qtbot, window, monkeypatch):
    casebase = _set_up(qtbot, window, monkeypatch)
    form = casebase.form
    form.ranked_picker.set_checked({})
    _tick(qtbot, form.ranked_check)
    assert set(form.ranked_picker.checked()) == {"ndcg_cut", "P", "map"}
    assert form.ranked_picker.checked()["ndcg_cut"] == "3"              # at the form's k (3,3: once)
    run_and_wait(qtbot, casebase)
    assert {"ndcg_cut_3", "P_3", "map"} <= set(casebase.outcome.table["metric"])
    if os.environ.get("EVALGUI_SHOTS"):
        casebase.results_tabs.setCurrentWidget(casebase.table.page)
        window.resize(1366, 768)
        qtbot.wait(50)
        window.grab().save(os.path.join(os.environ["EVALGUI_SHOTS"], "casebase_grid.png"))
