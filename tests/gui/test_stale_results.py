"""Stale is stale everywhere (issue 24, point 8): after a run that fails, every workspace keeps its earlier
results and says, above them, that they were computed from other inputs."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt

from evalgui.gui.workspaces.casebase.model_editor import TYPE
from tests.gui.conftest import SAMPLE_DATA, load, load_synthetic, run_and_wait
from tests.gui.test_casebase_workspace import METRICS, _set_up, _tick_only
from tests.gui.test_compare_workspace import _compare_synthetic, _use_scores
from tests.gui.test_stability_workspace import _set_form as _set_stability_form

RANKS = SAMPLE_DATA / "rankfile" / "citations.tsv"


def _fails_on_the_worker(qtbot, window, workspace, reason):
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        qtbot.mouseClick(workspace.run_button, Qt.MouseButton.LeftButton)
    assert reason in blocker.args[1], blocker.args
    qtbot.waitUntil(lambda: not workspace.is_busy())
    window.last_error_dialog.close()
    assert "Failed" in workspace.progress_label.text()


def _banner(workspace):
    return workspace.stale_banner.isVisibleTo(workspace), workspace.stale_banner.text()


def test_measure_stability_after_a_failed_run_on_other_data(qtbot, window):
    load(qtbot, window, [RANKS])
    stability = window.workspaces["stability"]
    window.tabs.setCurrentWidget(stability)
    _set_stability_form(stability, ("AP", "Average"), rank_file_combo=str(RANKS), splits_edit="2, 4",
                        iterations_spin=6, bootstrap_spin=200, seed_spin=3)
    run_and_wait(qtbot, stability)
    before = stability.outcome.evaluation.copy()
    assert _banner(stability)[0] is False                    # current: no banner
    # ranks from other data, refused on the worker
    load_synthetic(qtbot, window)
    _set_stability_form(stability, ("AP",), source_combo="trec", level_spin=50, systems_edit="")
    assert _banner(stability)[0] is True                     # the form no longer describes them
    _fails_on_the_worker(qtbot, window, stability, "no document is judged relevant at level 50")
    pd.testing.assert_frame_equal(stability.outcome.evaluation, before)        # the earlier results stay
    shown, text = _banner(stability)
    assert shown and "citations.tsv" in text and "qrels" not in text and "last Run failed" in text \
        and "form has changed" in text
    # back to what they were computed with: current again once the run succeeds
    _set_stability_form(stability, ("AP", "Average"), source_combo=stability.form.source_combo.itemData(0))
    run_and_wait(qtbot, stability)
    assert _banner(stability)[0] is False


def test_compare_after_a_failed_run(qtbot, window, tmp_path):
    compare = _compare_synthetic(qtbot, window)
    before = compare.comparison.table.copy()
    assert _banner(compare)[0] is False
    path = tmp_path / "disjoint.csv"
    pd.DataFrame({"run": ["a", "a", "b", "b"], "query": ["q1", "q2", "q3", "q4"], "measure": "AP",
                  "value": [0.1, 0.2, 0.3, 0.4]}).to_csv(path, index=False)
    _use_scores(qtbot, window, path)
    _fails_on_the_worker(qtbot, window, compare, "no query is shared by every run")
    pd.testing.assert_frame_equal(compare.comparison.table, before)
    shown, text = _banner(compare)
    assert shown and "qrels.txt" in text and "last Run failed" in text


def test_casebase_after_a_failed_run_and_a_file_read_again(qtbot, window, monkeypatch, tmp_path):
    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)
    before = casebase.outcome.table.copy()
    assert _banner(casebase)[0] is False
    # a column the engine cannot read as the type chosen: refused by the engine, on the worker (the model
    # editor itself refuses a column the case base lacks before Run)
    editor = casebase.form.editor
    editor.widget(editor.row_of("make"), TYPE).setCurrentText("numeric")
    _fails_on_the_worker(qtbot, window, casebase, "is not a number")
    pd.testing.assert_frame_equal(casebase.outcome.table, before)
    shown, text = _banner(casebase)
    assert shown and "cars.csv" in text and "last Run failed" in text
    # a case base read again also makes them stale
    _tick_only(casebase.form.metrics, METRICS)
    load(qtbot, window, [SAMPLE_DATA / "cbr" / "cars.csv"])
    assert "cars.csv has been read again" in _banner(casebase)[1]
