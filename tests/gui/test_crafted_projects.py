"""Crafted projects in the window (issue 32, point 3): one dialog naming the file, the session untouched; the
trust question names where a link leads. Projects written by eg.save_project (point 8) open with every result,
the right kinds and nothing marked changed. Every crafted file is made here, in tmp_path."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import evalgui as eg
from evalgui.core import project as project_file
from evalgui.gui.mainwindow import MainWindow
from tests.gui.conftest import SAMPLE_DATA, copy_synthetic, load, run_and_wait
from tests.gui.test_untrusted_projects import _snapshot

ORIGINAL_ASK_TRUST = MainWindow.ask_trust          # as written: the tests' fixture answers it without a box


def _crafted(kind: str, folder) -> str:
    path = folder / "crafted.evalgui"
    head = {"format": "evalgui-project", "version": 2}
    if kind == "a lone surrogate in a path":
        project = {**head, "files": [{"path": "data/\ud800.run", "kind": "run"}]}
    elif kind == "a NUL in a request's path":
        project = {**head, "requests": {"ranked": {"qrels": "file:data/qrels.txt", "runs": ["file:a\u0000.run"]}}}
    elif kind == "forms nested 500 deep":
        form = inner = {}
        for _ in range(500):
            inner["a"] = {}
            inner = inner["a"]
        project = {**head, "forms": {"ranked": form}}
    elif kind == "too big for memory":
        path.write_text('{"format": "evalgui-project", "version": 2, "files": [' + "{}," * 100_000 + "{}]}")
        return str(path)
    elif kind == "a list of numbers":
        path.write_text("[" + "1," * 100_000 + "1]")
        return str(path)
    path.write_text(json.dumps(project))          # escapes the surrogate and the NUL, as a crafted file holds them
    return str(path)


@pytest.mark.parametrize("kind, reason", [
    ("a lone surrogate in a path", "file entry 1: the path 'data/\\ud800.run' has a character that is not text"),
    ("a NUL in a request's path", "the path 'file:a\\x00.run' has a NUL character"),
    ("forms nested 500 deep", "is nested too deeply to be a project"),
    ("too big for memory", "opening it would take about 26 MiB of memory"),
    ("a list of numbers", "not an evalgui project (its JSON is not an object)"),
])
def test_a_crafted_project_gives_one_dialog_naming_the_file(qtbot, window, tmp_path, monkeypatch, kind, reason):
    monkeypatch.setattr(project_file, "MAX_PROJECT_MEMORY", 8 << 20)
    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run"])
    run_and_wait(qtbot, window.workspaces["ranked"])
    before = _snapshot(window)
    errors = []
    window.error_shown.connect(lambda title, message: errors.append((title, message)))
    bad = _crafted(kind, tmp_path)
    with qtbot.waitSignal(window.error_shown, timeout=10_000):
        window.open_project(bad)
    qtbot.waitUntil(lambda: not window._loaders, timeout=10_000)
    assert len(errors) == 1 and errors[0][0] == "Could not open the project", errors
    assert bad in errors[0][1] and reason in errors[0][1], errors
    text = window.last_error_dialog.text()
    assert bad in text and "\n" not in text and "Error" not in text          # no RecursionError, MemoryError
    assert _snapshot(window) == before


def test_the_trust_question_names_where_a_link_leads(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from evalgui.gui import mainwindow

    secret = tmp_path / "etc" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0\n")
    folder = tmp_path / "project"
    folder.mkdir()
    os.symlink(secret.parent, folder / "etcdir")
    path = folder / "p.evalgui"
    path.write_text(json.dumps({"format": "evalgui-project", "version": 2,
                                "files": [{"path": "etcdir/passwd", "kind": "qrels"}]}))
    asked = []

    def answer(box):
        asked.append(box.detailedText())
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(MainWindow, "ask_trust", ORIGINAL_ASK_TRUST)      # the real question, its box shown
    monkeypatch.setattr(mainwindow, "_answer", answer)
    window.open_project(str(path))
    qtbot.waitUntil(lambda: bool(asked) and not window._loaders and window._opening is None, timeout=10_000)
    assert asked == [f"{secret} (through the link {folder / 'etcdir' / 'passwd'})"]
    assert window.session.items == []            # answered No: not read


# ---------------------------------------------------------------- point 8: projects eg.save_project writes
def _api_projects(tmp_path) -> dict:
    """workflow -> (project path, the workspace showing it, the kinds of the files it lists)."""
    data = copy_synthetic(tmp_path / "syn", runs=("bm25", "dense", "rerank"))
    cbr = tmp_path / "cbr"
    shutil.copytree(SAMPLE_DATA / "cbr", cbr)
    shutil.copy(SAMPLE_DATA / "rankfile" / "citations.tsv", tmp_path / "citations.tsv")
    qrels, runs = str(data / "qrels.txt"), [str(data / f"{r}.run") for r in ("bm25", "dense", "rerank")]
    outcomes = {
        "ranked": eg.evaluate(qrels, runs, ["AP", "nDCG@10"], per_query=True),
        "compare": eg.compare(qrels, runs, ["AP"]),
        "preference": eg.preference(qrels, runs, test="t"),
        "metaeval": eg.metaeval(qrels, runs, ["AP", "P@10"], experiment="stability"),
        "stability": eg.stability(str(tmp_path / "citations.tsv"), total_ranks=5000, iterations=5, splits=(2,)),
        "casebase": eg.casebase(str(cbr / "cars.csv"), test=str(cbr / "queries.csv"), model=str(cbr / "model.json"),
                                mac_model=str(cbr / "mac_model.json"), filter_sizes=(10,), ks=(5,)),
    }
    return {key: eg.save_project(str(tmp_path / f"{key}.evalgui"), outcome) for key, outcome in outcomes.items()}


WORKSPACE = {"ranked": "ranked", "compare": "compare", "preference": "compare", "metaeval": "metaeval",
             "stability": "stability", "casebase": "casebase"}
KINDS = {"ranked": ["qrels", "run", "run", "run"], "stability": ["rank file"], "casebase": ["case base", "case base"]}


def test_projects_written_by_the_api_open_in_the_window_with_every_result(qtbot, make_window, tmp_path):
    for key, path in _api_projects(tmp_path).items():
        window = make_window()
        errors = []
        window.error_shown.connect(lambda title, message: errors.append((title, message)))
        with qtbot.waitSignal(window.files_loaded, timeout=20_000):
            window.open_project(path)
        qtbot.waitUntil(lambda: not window._loaders, timeout=20_000)
        workspace = window.workspaces[WORKSPACE[key]]
        qtbot.waitUntil(lambda: not workspace.is_busy(), timeout=20_000)       # Ranked re-derives its curves
        assert errors == [], (key, errors)
        assert workspace.has_results(), key
        kinds = KINDS.get(key, KINDS["ranked"])
        assert sorted(item.kind for item in window.session.items) == sorted(kinds), key
        for name, other in window.workspaces.items():
            banner = getattr(other, "stale_banner", None)
            assert banner is None or not banner.isVisibleTo(other), (key, name, banner.text())
        if key == "preference":
            assert workspace.preferences is not None
        window.close()


def test_untested_preferences_from_the_api_are_shown_without_verdicts(qtbot, window, tmp_path):
    """eg.preference without a test, saved by eg.save_project: the Preferences tab shows the outcome's means,
    pairs, ranking and per-query values, with no significance mark and the p-values said not tested."""
    import numpy as np
    import pandas as pd
    from PySide6.QtCore import Qt

    data = copy_synthetic(tmp_path / "syn", runs=("bm25", "dense", "random"))
    outcome = eg.preference(str(data / "qrels.txt"), [str(data / f"{r}.run") for r in ("bm25", "dense", "random")])
    path = eg.save_project(str(tmp_path / "untested.evalgui"), outcome)
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(path)
    qtbot.waitUntil(lambda: not window._loaders, timeout=20_000)
    compare = window.workspaces["compare"]
    assert compare.has_results() and compare.preferences is not None and not compare.preferences.tested
    assert "computed without a test" in compare.progress_label.text()
    view = compare.preference_view
    window.tabs.setCurrentWidget(compare)
    compare.results_tabs.setCurrentWidget(view.page)
    view.shown()
    matrix, ranking, pair_queries = (outcome.tables[t] for t in ("matrix", "ranking", "pair_queries"))
    runs = ["bm25", "dense", "random"]
    for measure in ("rpp", "lexirecall"):
        view.measure.setCurrentIndex(view.measure.findData(measure))
        # the matrix of means: the outcome's, off the diagonal; no cell marked significant
        expected = matrix[matrix["measure"] == measure].set_index("run_a")[runs].loc[runs].to_numpy(dtype=float)
        shown = view.model.frame.loc[runs, runs].to_numpy(dtype=float)
        off = ~np.eye(3, dtype=bool)
        np.testing.assert_allclose(shown[off], expected[off], rtol=0, atol=1e-12)
        assert not any(view.model.display_text(i, j).endswith("*") for i in range(3) for j in range(3))
        tip = view.model.data(view.model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
        assert "not tested: computed without a test" in tip and "significant" not in tip
        assert "Not tested" in view.caption.text() and "significant at α" not in view.caption.text()
        # the ranking, as the outcome has it
        rows = ranking[ranking["measure"] == measure].drop(columns="measure").reset_index(drop=True)
        pd.testing.assert_frame_equal(view.ranking_model.frame[rows.columns], rows, check_dtype=False)
        # each pair's mean preference, its p-values not tested
        view.lower.setCurrentWidget(view.pairs_view)
        pairs = view.pairs_model.frame
        assert len(pairs) == 3 and set(pairs["p_value"]) == set(pairs["p_adjusted"]) == {"not tested"}
        for a, b, mean in zip(pairs["run_a"], pairs["run_b"], pairs["preference"]):
            assert mean == pytest.approx(expected[runs.index(a), runs.index(b)], abs=1e-12)
        # a cell opens the pair's per-query preferences, the outcome's
        assert view.fill_pair(measure, "bm25", "dense") is None
        want = pair_queries[(pair_queries["measure"] == measure) & (pair_queries["run_a"] == "bm25")
                            & (pair_queries["run_b"] == "dense")]
        got = view.pair_view.frame
        assert len(got) == len(want) > 0
        np.testing.assert_allclose(np.sort(got["difference"].to_numpy(dtype=float)),
                                   np.sort(want["preference"].to_numpy(dtype=float)), rtol=0, atol=1e-12)
        view.lower.setCurrentWidget(view.ranking_view)
    window.resize(1360, 860)
    window.show()
    qtbot.waitExposed(window)
    window.grab().save(str(tmp_path / "untested.png"))
    print("screenshot", tmp_path / "untested.png")


def test_an_error_dialogs_main_text_is_one_line(qtbot, window):
    window.show_error("Some files could not be read", "/x/a.run, line 2: bad\n\n/x/b.run, line 3: bad")
    box = window.last_error_dialog
    assert box.text() == "/x/a.run, line 2: bad" and box.informativeText() == "/x/b.run, line 3: bad"
