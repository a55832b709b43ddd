"""First steps: the demo fills every workspace; an empty workspace says what to load and opens its sample."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import SYNTHETIC_RUNS, not_busy, open_demo_and_wait

DEMO_TIMEOUT = 120_000


def test_the_demo_evaluates_every_workspace_one_job_after_another(qtbot, window):
    from evalgui.gui.first_steps import SAMPLES

    started = []
    for ws in window.workspaces.values():
        ws.busy_changed.connect(lambda busy, ws=ws: started.append(ws.key) if busy else None)
    window.open_demo()
    # Nothing is evaluated on the GUI thread: open_demo returns while the files are still being read.
    assert window.demo_running() and window._loaders
    assert not any(ws.has_results() for ws in window.workspaces.values())
    with qtbot.waitSignal(window.demo_finished, timeout=DEMO_TIMEOUT) as finished:
        pass
    assert finished.args == [[]]                                     # no workspace failed
    assert started == list(SAMPLES) == list(window.workspaces)       # each Run pressed once, in tab order
    assert not window.demo_running()
    assert all(ws.has_results() for ws in window.workspaces.values())
    assert all(not ws.empty_hint.isVisibleTo(ws) for ws in window.workspaces.values())
    assert window.tabs.currentWidget() is window.workspaces["ranked"]

    ranked, compare = window.workspaces["ranked"], window.workspaces["compare"]
    assert list(ranked.summary.model.frame["run"]) == list(SYNTHETIC_RUNS)
    assert set(compare.comparison.runs) == set(SYNTHETIC_RUNS)
    metaeval = window.workspaces["metaeval"]
    assert metaeval.outcome is not None and metaeval.form.experiment() == "power"
    stability = window.workspaces["stability"]
    assert stability.outcome.source == "citations.tsv" and len(stability.outcome.systems) == 5
    assert stability.form.total_spin.value() == 5000                   # the per-mille measures have their T
    casebase = window.workspaces["casebase"]
    assert casebase.outcome is not None and casebase.form.mac_path.endswith("mac_model.json")
    # Run was pressed once the sample model had been read (on the worker): the results are of model.json,
    # and no workspace calls its results stale.
    import json

    from tests.conftest import SAMPLE_DATA

    saved = json.loads((SAMPLE_DATA / "cbr" / "model.json").read_text(encoding="utf-8"))
    request = casebase.workflow_outcomes()["casebase"].request
    assert [a["measure"] for a in request.model] == [a["measure"] for a in saved["attributes"]]
    for ws in window.workspaces.values():
        reasons = ws.inputs_stale_reasons() if ws.tracks_inputs() else ws.stale_reasons()
        assert reasons == [], (ws.key, reasons)


def test_cancel_stops_the_demo(qtbot, window):
    with qtbot.waitSignal(window.demo_finished, timeout=DEMO_TIMEOUT):
        window.open_demo()
        qtbot.waitUntil(lambda: window.workspaces["ranked"].is_busy() or window.workspaces["ranked"].has_results(),
                        timeout=DEMO_TIMEOUT)
        window._cancel_current()
    assert not window.demo_running()
    assert not any(window.workspaces[k].has_results() for k in ("compare", "metaeval", "stability", "casebase"))


@pytest.mark.parametrize("key", ["ranked", "compare", "metaeval", "stability", "casebase"])
def test_an_empty_workspace_says_what_to_load_and_its_button_opens_the_sample(qtbot, window, key):
    from PySide6.QtWidgets import QPushButton

    from evalgui.gui.first_steps import SAMPLES

    ws = window.workspaces[key]
    window.tabs.setCurrentWidget(ws)
    hint = ws.empty_hint
    assert hint.isVisible() and hint.label.text() == SAMPLES[key].hint
    assert len([s for s in hint.label.text().split(". ") if s]) <= 2          # one or two sentences
    button = hint.findChild(QPushButton, "openSampleButton")
    assert button.isVisible() and button.text().startswith("Open the sample")
    with qtbot.waitSignal(window.sample_opened, timeout=20_000) as opened:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert opened.args == [key]
    for path, kind in SAMPLES[key].files():
        item = window.session.find(path)
        assert item is not None and item.kind == kind and os.path.isabs(path)
    assert hint.isVisible() and not button.isVisible() and "press Run" in hint.label.text()
    with qtbot.waitSignal(ws.busy_changed, check_params_cb=not_busy, timeout=DEMO_TIMEOUT):
        qtbot.mouseClick(ws.run_button, Qt.MouseButton.LeftButton)
    assert ws.has_results() and not hint.isVisible()       # the sample was set: Run had what it needs


def test_the_sample_button_loads_only_what_is_missing(qtbot, window):
    open_demo_and_wait(qtbot, window)                            # the ranked demo: the synthetic files
    count = len(window.session.items)
    compare = window.workspaces["compare"]
    with qtbot.waitSignal(window.sample_opened, timeout=20_000):
        compare.empty_hint.button.click()
    assert len(window.session.items) == count
    assert window.tabs.currentWidget() is compare


def test_the_smoke_test_fails_when_a_workspace_is_left_empty(qtbot, monkeypatch, capsys):
    from evalgui.gui import app, first_steps

    windows = []
    original = app.create_main_window

    def create():
        window = original()
        windows.append(window)
        qtbot.addWidget(window)
        return window

    broken = first_steps.SAMPLES["casebase"].__class__(
        *[getattr(first_steps.SAMPLES["casebase"], f) for f in ("hint", "button", "files")],
        lambda ws: ws.restore_form_state({"ks": "not a number"}))
    monkeypatch.setitem(first_steps.SAMPLES, "casebase", broken)
    monkeypatch.setenv("EVALGUI_SMOKE_TEST", "1")
    monkeypatch.setattr(app, "create_main_window", create)
    assert app.main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "Case-based retrieval without results" in err
