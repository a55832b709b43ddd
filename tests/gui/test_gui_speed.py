"""The mechanisms behind the GUI benchmark's numbers (benchmarks/bench_gui.py): start-up, the evaluate job,
the longest GUI-thread stall. Timings are the benchmark's business; these check what keeps them down."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from tests.gui.conftest import SYNTHETIC, SYNTHETIC_RUNS, load_synthetic, run_and_wait


# ---------------------------------------------------------------------------- start-up
def test_pyside_checks_imported_modules_by_reading_their_bytes():
    """PySide6 asks of every module imported after it whether its source says "PySide6"; evalgui.gui answers
    from the file's bytes (inspect.getsource tokenized every file: some 0.15 s of start-up), with the same
    answers."""
    import json

    import evalgui.gui  # noqa: F401
    import evalgui.core.tidy
    import evalgui.gui.mainwindow

    feature = sys.modules["shibokensupport.feature"]
    check = feature._mod_uses_pyside
    assert getattr(check, "evalgui", False)
    assert check(evalgui.gui.mainwindow) is True
    assert check(evalgui.core.tidy) is False
    assert check(json) is False
    assert check(sys) is False                  # built in: no file (the upstream check says so)


# ---------------------------------------------------------------------------- the evaluate job
def _request(tmp_path=None):
    from evalgui.core.workflows.ranked import EvaluateRequest

    return EvaluateRequest(qrels=str(SYNTHETIC / "qrels.txt"),
                           runs=tuple(str(SYNTHETIC / f"{r}.run") for r in SYNTHETIC_RUNS[:2]),
                           measures=("map", "P.10"), per_query=True)


def _no_hashing(monkeypatch):
    import evalgui.core.workflows.outcome as outcome

    def refuse(path):
        raise AssertionError(f"hashed {path}")

    monkeypatch.setattr(outcome, "content_hash", refuse)


def test_the_windows_evaluate_job_hashes_no_file_and_joins_no_table(monkeypatch):
    """Hashing a 2M-line run cost the job as much as evaluating it, for an outcome the window drops (a
    project and a report hash the files and join the tables when they are written); the command line's
    and the API's path still do both."""
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.jobs import JobState
    from evalgui.core.ranked.evaluate import EvalOptions
    from evalgui.core.workflows.ranked import run_evaluate
    from evalgui.gui.workspaces import ranked

    request = _request()
    hashed = run_evaluate(request)
    assert all("hash" in entry for entry in hashed.provenance["inputs"])
    _no_hashing(monkeypatch)
    runs = [(r, str(SYNTHETIC / f"{r}.run"), read_run(SYNTHETIC / f"{r}.run")) for r in SYNTHETIC_RUNS[:2]]
    job = ranked.evaluation_job(str(SYNTHETIC / "qrels.txt"), read_qrels(SYNTHETIC / "qrels.txt"), runs,
                                ["map", "P.10"], EvalOptions())
    outcome = job(JobState())
    # (the caveats are the one table the job makes: a few rows, worked out while the rankings are at hand)
    assert outcome.provenance == {} and len(outcome.results) == 2 and set(outcome.tables) <= {"caveats"}
    assert all(r.curves and r.saved_curve_rows is not None for r in outcome.results)
    assert outcome.results[1].pairs is not None                 # the run × run rows, built in the job
    assert set(hashed.tables) == {"summary", "per_query", "curves", "run_matrix", "caveats"}


def test_the_curves_a_project_keeps_are_built_in_the_worker_job(monkeypatch):
    """Each RunResult carries its interpolated curves' rows, built with its curves in the job: saving a project
    only joins them, instead of rebuilding 2,000 queries' curves one by one on the GUI thread."""
    import numpy as np

    from evalgui.core.ranked import jobs
    from evalgui.core.workflows.ranked import curves_state, run_evaluate

    results = run_evaluate(_request(), for_window=True).results
    assert all(r.saved_curve_rows is not None and r.saved_curve_rows[0] is r.curves for r in results)
    joined = jobs.curve_table(results)

    calls = []

    class CountingNumpy:            # numpy as jobs sees it, counting the per-curve np.full of the old path
        def __getattr__(self, name):
            return getattr(np, name)

        def full(self, *args, **kwargs):
            calls.append(args)
            return np.full(*args, **kwargs)

    monkeypatch.setattr(jobs, "np", CountingNumpy())
    assert jobs.curve_table(results) is not None and calls == []          # no curve by curve
    curves_state(results)
    assert calls == []
    monkeypatch.undo()

    for r in results:       # the rows curve by curve (as before): the same table
        r.saved_curve_rows = None
    pd.testing.assert_frame_equal(joined, jobs.curve_table(results))
    # curves replaced (a project's restored ones): the rows built with the old ones are not used
    results[0].saved_curve_rows = (dict(results[0].curves), joined.iloc[:0])
    pd.testing.assert_frame_equal(joined, jobs.curve_table(results))


# ---------------------------------------------------------------------------- the GUI thread after evaluate
def test_query_choices_are_shown_as_they_are(qtbot):
    """A query id is no measure name: no naming lookup per item (2,000 queries), and a query called P_10
    reads P_10."""
    from evalgui.gui.toolbar import ChoiceBox

    measures, queries = ChoiceBox("m"), ChoiceBox("q", names=False)
    qtbot.addWidget(measures)
    qtbot.addWidget(queries)
    measures.set_items([("P_10", "P_10")])
    queries.set_items([("P_10", "P_10"), ("301", "301")])
    assert measures.itemText(0) == "P@10"
    assert [queries.itemText(i) for i in range(2)] == ["P_10", "301"]


def test_ranked_query_boxes_skip_the_naming(qtbot, window):
    ranked = window.workspaces["ranked"]
    assert ranked.curves.query.names is False and ranked.drill_down.query.names is False
    assert ranked.per_query.measure.names is True


def test_a_runs_results_reach_the_views_one_view_a_turn(qtbot, window):
    """The views refresh one per event-loop turn (the tab in sight first), so the GUI thread never stalls for
    all of them at once; the end of the job brings the rest at once."""
    ranked = window.workspaces["ranked"]
    load_synthetic(qtbot, window)
    run_and_wait(qtbot, ranked)
    refreshed = []
    for view in ranked.views:
        real = view.refresh
        monkey = (lambda real, view: lambda results: (refreshed.append(view), real(results)))(real, view)
        view.refresh = monkey
    ranked.results_tabs.setCurrentWidget(ranked.curves.page)
    ranked._refresh_soon()
    assert refreshed == []                    # nothing in the turn that brought the run
    ranked._refresh_next_view()
    assert refreshed == [ranked.curves]       # the tab in sight first, alone
    ranked._refresh_next_view()
    assert len(refreshed) == 2
    ranked._deferred_refresh()                # the job's end: the rest now
    assert sorted(map(id, refreshed)) == sorted(map(id, ranked.views))
    refreshed.clear()
    ranked._refresh_soon()
    qtbot.waitUntil(lambda: len(refreshed) == len(ranked.views), timeout=5000)
    assert not ranked._refresh_pending


def test_start_up_leaves_the_statistics_unimported(tmp_path):
    """Modules only a job or a result needs are imported when first needed (start-up compiles or loads every
    module it imports): the pairwise tests, the meta-evaluation's scores, the stability experiment."""
    import json
    import os
    import subprocess

    probe = ("import json, sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
             "from evalgui.gui.mainwindow import MainWindow\nwindow = MainWindow()\nwindow.show()\n"
             "app.processEvents()\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('evalgui'))))\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "EVALGUI_SETTINGS": str(tmp_path / "settings.ini")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "evalgui.gui.mainwindow" in imported
    for module in ("evalgui.core.stats.compare", "evalgui.core.metaeval.scores", "evalgui.core.rankfile.experiment"):
        assert module not in imported, module
