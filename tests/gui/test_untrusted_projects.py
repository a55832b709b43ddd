"""Untrusted projects in the window (issue 23, points 1-4): a malformed project changes nothing and gives
one dialog; nothing a project names is read on the window's thread; files outside the project's folder
are asked about once; closing the window while a loader is blocked exits cleanly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from tests.gui.conftest import SAMPLE_DATA, copy_synthetic, load, run_and_wait

CBR = SAMPLE_DATA / "cbr"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")


def _malformed(kind: str, folder) -> str:
    path = folder / "bad.evalgui"
    head = '{"format": "evalgui-project", "version": 2, '
    if kind == "files a number":
        path.write_text(head + '"files": 3}')
    elif kind == "files null":
        path.write_text(head + '"files": null}')
    elif kind == "nested 200,000 deep":
        path.write_text(head + '"forms": {"ranked": ' + "[" * 200_000 + "]" * 200_000 + "}}")
    elif kind == "a 5,000-digit version":
        path.write_text('{"format": "evalgui-project", "version": ' + "9" * 5000 + "}")
    elif kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a directory":
        path.mkdir()
    return str(path)


def _snapshot(window) -> dict:
    return {"files": [(i.path, i.kind) for i in window.session.items],
            "forms": {k: json.dumps(ws.form_state(), sort_keys=True) for k, ws in window.workspaces.items()},
            "results": {k: ws.has_results() for k, ws in window.workspaces.items()},
            "summary": window.workspaces["ranked"].summary_frame().to_csv(),
            "title": window.windowTitle(), "modified": window.isWindowModified(),
            "project": window.project_path}


MALFORMED = ["files a number", "files null", "nested 200,000 deep", "a 5,000-digit version",
             pytest.param("a FIFO", marks=needs_fifo), "a directory"]


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_project_gives_one_dialog_and_changes_nothing(qtbot, window, tmp_path, kind):
    data = copy_synthetic(tmp_path / "data", runs=("bm25", "dense"))
    load(qtbot, window, [data / "qrels.txt", data / "bm25.run", data / "dense.run"])
    run_and_wait(qtbot, window.workspaces["ranked"])
    before = _snapshot(window)
    errors = []
    window.error_shown.connect(lambda title, message: errors.append((title, message)))
    bad = _malformed(kind, tmp_path)
    with qtbot.waitSignal(window.error_shown, timeout=10_000):
        window.open_project(bad)                       # File ▸ Open ends here
    qtbot.waitUntil(lambda: not window._loaders, timeout=10_000)
    qtbot.wait(50)
    assert len(errors) == 1, errors
    assert errors[0][0] == "Could not open the project" and "bad.evalgui" in errors[0][1]
    assert "Traceback" not in errors[0][1]
    assert _snapshot(window) == before


@pytest.mark.parametrize("kind", MALFORMED)
def test_evalgui_with_a_malformed_project_exits_2_with_one_line(tmp_path, capsys, kind):
    from evalgui.gui.app import main

    assert main([_malformed(kind, tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("evalgui: error: ") and "bad.evalgui" in err


# ---------------------------------------------------------------- point 2: nothing read on the window's thread
def _project(folder, files, forms=None) -> str:
    from evalgui.core.project import make_project

    path = folder / "p.evalgui"
    path.write_text(json.dumps(make_project(str(path), [(str(p), k) for p, k in files], forms or {})))
    return str(path)


def test_nothing_a_project_names_is_read_on_the_windows_thread(qtbot, window, tmp_path, monkeypatch):
    import builtins

    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    mac = tmp_path / "mac_model.json"
    mac.write_bytes((CBR / "mac_model.json").read_bytes())
    project = _project(tmp_path, [(data / "qrels.txt", "qrels"), (data / "bm25.run", "run")],
                       {"casebase": {"mac_model": str(mac)}})
    opened_on = []
    real_open = builtins.open
    watched = (str(tmp_path), )

    def recording_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file).startswith(watched):
            opened_on.append((os.fspath(file), threading.current_thread() is threading.main_thread()))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording_open)
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(project)
    form = window.workspaces["casebase"].form
    qtbot.waitUntil(lambda: not window._loaders and form._mac_reader is None, timeout=20_000)
    monkeypatch.setattr(builtins, "open", real_open)
    assert form.mac_path == str(mac) and form.mac_model is not None
    read = {path for path, _ in opened_on}
    assert {project, str(data / "qrels.txt"), str(data / "bm25.run"), str(mac)} <= read
    assert [path for path, on_gui_thread in opened_on if on_gui_thread] == []


@needs_fifo
def test_a_fifo_named_in_a_project_is_refused_without_blocking(qtbot, window, tmp_path):
    data = copy_synthetic(tmp_path / "data", runs=("bm25",))
    os.mkfifo(tmp_path / "data" / "pipe.run")
    os.mkfifo(tmp_path / "data" / "model.json")
    project = _project(tmp_path, [(data / "qrels.txt", "qrels"), (data / "bm25.run", "run"),
                                  (data / "pipe.run", "run")], {"casebase": {"mac_model": str(data / "model.json")}})
    errors = []
    window.error_shown.connect(lambda title, message: errors.append((title, message)))
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(project)
    qtbot.waitUntil(lambda: not window._loaders, timeout=20_000)
    assert [i.name for i in window.session.items] == ["qrels.txt", "bm25.run"]
    assert len(errors) == 1 and "not read" in errors[0][0]
    assert "pipe.run: a named pipe (FIFO)" in errors[0][1] and "model.json: a named pipe (FIFO)" in errors[0][1]
    assert window.workspaces["casebase"].form.mac_path is None


@needs_fifo
def test_a_fifo_opened_as_data_is_refused(qtbot, window, tmp_path):
    os.mkfifo(tmp_path / "pipe.run")
    errors = []
    window.error_shown.connect(lambda title, message: errors.append(message))
    load(qtbot, window, [tmp_path / "pipe.run"], timeout=10_000)
    assert window.session.items == [] and "a named pipe (FIFO), not a regular file" in errors[0]


def test_loading_many_files_updates_the_session_in_batches(qtbot, window, tmp_path):
    """The Data dock and the forms are refreshed once per batch of files, not once per file."""
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = []
    for i in range(300):
        path = folder / f"r{i:03}.run"
        path.write_text(f"q1 Q0 d{i} 1 1.0 r{i}\n")
        paths.append(path)
    changes = []
    window.session.changed.connect(lambda: changes.append(len(window.session.items)))
    load(qtbot, window, paths, timeout=60_000)
    assert len(window.session.items) == 300 and window.data_panel.tree.topLevelItemCount() == 300
    assert len(changes) < 30, changes


# ---------------------------------------------------------------- point 3: files outside the project's folder
def _outside_project(tmp_path):
    inside = copy_synthetic(tmp_path / "p" / "data", runs=("bm25",))
    elsewhere = copy_synthetic(tmp_path / "elsewhere", runs=("dense",))
    project = _project(tmp_path / "p", [(inside / "qrels.txt", "qrels"), (inside / "bm25.run", "run"),
                                        (elsewhere / "dense.run", "run")])
    return project, str(elsewhere / "dense.run")


def _open(qtbot, window, project):
    with qtbot.waitSignal(window.files_loaded, timeout=20_000):
        window.open_project(project)
    qtbot.waitUntil(lambda: not window._loaders, timeout=20_000)
    return [i.name for i in window.session.items]


@pytest.mark.parametrize("answer", [False, True])
def test_files_outside_the_project_are_asked_about_once(qtbot, make_window, tmp_path, monkeypatch, answer):
    from evalgui.gui.mainwindow import MainWindow

    project, outside = _outside_project(tmp_path)
    asked = []
    monkeypatch.setattr(MainWindow, "ask_trust", lambda self, path, files: asked.append((path, files)) or answer)
    expected = ["qrels.txt", "bm25.run"] + (["dense.run"] if answer else [])
    assert _open(qtbot, make_window(), project) == expected
    assert asked == [(project, [outside])]
    assert _open(qtbot, make_window(), project) == expected      # remembered: not asked again
    assert len(asked) == 1


def test_a_symlink_leading_out_of_the_folder_counts_as_outside(tmp_path):
    from evalgui.core.trust import outside_folder

    (tmp_path / "p").mkdir()
    (tmp_path / "secret").write_text("x")
    os.symlink(tmp_path / "secret", tmp_path / "p" / "link.run")
    (tmp_path / "p" / "own.run").write_text("x")
    project = str(tmp_path / "p" / "p.evalgui")
    named = [str(tmp_path / "p" / "link.run"), str(tmp_path / "p" / "own.run"), "/etc/passwd",
             str(tmp_path / "p" / ".." / "secret")]
    assert outside_folder(project, named) == [named[0], named[2], named[3]]


def test_a_project_the_window_saved_is_trusted(qtbot, make_window, tmp_path, monkeypatch):
    from evalgui.gui.mainwindow import MainWindow

    project, _ = _outside_project(tmp_path)
    first = make_window()
    monkeypatch.setattr(MainWindow, "ask_trust", lambda self, path, files: True)
    _open(qtbot, first, project)
    assert first.write_project(project)
    monkeypatch.setattr(MainWindow, "ask_trust", lambda self, path, files: pytest.fail("asked"))
    assert _open(qtbot, make_window(), project) == ["qrels.txt", "bm25.run", "dense.run"]


# ---------------------------------------------------------------- point 4: closing with a blocked loader
CLOSE_SCRIPT = textwrap.dedent(r"""
    import os, sys
    from PySide6.QtCore import QTimer
    from evalgui.core.formats import _text
    from evalgui.gui import app, mainwindow
    # Let the FIFO through to the reader, so that the loader really blocks in open().
    _text.check_regular = lambda path: None
    mainwindow.MainWindow.ask_save_changes = lambda self: mainwindow.QMessageBox.StandardButton.Discard
    real = app.create_main_window
    def create():
        window = real()
        QTimer.singleShot(800, window.close)
        return window
    app.create_main_window = create
    sys.exit(app.main([sys.argv[1]]))
""")


@needs_fifo
def test_closing_the_window_while_a_loader_is_blocked_exits_cleanly(tmp_path):
    fifo = tmp_path / "blocked.run"
    os.mkfifo(fifo)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": REPO,
           "EVALGUI_SETTINGS": str(tmp_path / "settings.ini")}
    done = subprocess.run([sys.executable, "-c", CLOSE_SCRIPT, str(fifo)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "QThread" not in done.stderr and "Traceback" not in done.stderr
