"""What the packaging issue asks of the application itself: About, the icon, --version, --self-test,
and opening the project a desktop hands it."""

from __future__ import annotations

import tomllib

import pytest
from PySide6.QtGui import QIcon, QImage

from tests.conftest import ROOT
from tests.gui.test_extending import extended  # noqa: F401 - the fixture registering a fake workspace
from tests.gui.test_session_state import _main, _saved_session
from tests.test_desktop_entry import MIME, MIME_NS, desktop_entry

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _about(qtbot, window):
    """Help ▸ About evalgui, as a user opens it."""
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    next(a for a in help_menu.actions() if a.text() == "About evalgui").trigger()
    dialog = window.about_dialog
    qtbot.waitExposed(dialog)
    return dialog


def test_about_shows_the_version_what_evalgui_does_and_the_licences(qtbot, window):
    from importlib.metadata import metadata

    from evalgui.core.inputs import readable_kinds
    from evalgui.gui.workspaces import workspace_classes

    dialog = _about(qtbot, window)
    text = dialog.text()
    assert f"evalgui {VERSION}" in text
    assert all(cls.title in text for cls in workspace_classes())
    assert "Compare systems: significance tests between runs" in text      # each workspace says what it does
    assert all(kind.label in text for kind in readable_kinds())
    libraries = dialog.libraries_view.source_model.frame.set_index("library")
    assert libraries.loc["pyarrow", "licence"] == metadata("pyarrow")["License-Expression"] == "Apache-2.0"
    assert libraries.loc["pyqtgraph", "licence"] == "MIT"
    assert libraries.loc["Qt", "licence"].startswith("LGPL-3.0")
    for name in ("numpy", "scipy", "pandas", "Python"):
        assert name in libraries.index
    assert "unknown" not in set(libraries["licence"])
    dialog.close()


def test_about_lists_the_registered_workspaces_only(qtbot, extended, make_window):  # noqa: F811
    from evalgui.gui import workspaces

    registered = list(workspaces.WORKSPACES)
    workspaces.WORKSPACES[:] = [w for w in registered if "casebase" not in w]     # a build without it
    try:
        text = _about(qtbot, make_window()).text()
    finally:
        workspaces.WORKSPACES[:] = registered
    assert "Word counts" in text                      # a workspace registered by an extension
    assert "Case-based retrieval" not in text         # one not registered in this build
    assert "Ranked retrieval" in text


@pytest.fixture
def no_application_icon(qapp):
    """The application without an icon (as before main() sets it); the previous one is restored."""
    previous = qapp.windowIcon()
    qapp.setWindowIcon(QIcon())
    yield qapp
    qapp.setWindowIcon(previous)


def test_the_window_has_the_application_icon(qtbot, monkeypatch, no_application_icon):
    status, window = _main(qtbot, monkeypatch, [])
    assert status == 0
    assert not window.windowIcon().isNull()
    drawn = window.windowIcon().pixmap(48, 48).toImage()
    assert drawn.width() == 48 and drawn.pixelColor(24, 24).alpha() == 255      # the icon's files were found
    assert no_application_icon.desktopFileName() == desktop_entry()["Icon"] == "evalgui"


def test_self_test_quits_with_zero_once_the_demo_is_evaluated(qtbot, monkeypatch, capsys):
    status, window = _main(qtbot, monkeypatch, ["--demo", "--self-test"], smoke_env=False)
    assert status == 0
    assert list(window.workspaces["ranked"].summary.model.frame["run"]) == ["bm25", "dense", "rerank", "random"]
    assert "rerank" in capsys.readouterr().out


def test_self_test_fails_on_an_incomplete_installation(qtbot, monkeypatch, capsys):
    from evalgui.core import distribution

    monkeypatch.setattr(distribution, "version", lambda: distribution.UNKNOWN)    # as without metadata
    status, _window = _main(qtbot, monkeypatch, ["--demo", "--self-test"], smoke_env=False)
    assert status == 1
    assert "self-test: the version is unknown" in capsys.readouterr().err


def test_self_test_never_hangs(qtbot, monkeypatch, capsys):
    from evalgui.gui import app

    monkeypatch.setattr(app, "SELF_TEST_PATIENCE", 0)       # the demo is still loading: out of patience
    status, _window = _main(qtbot, monkeypatch, ["--demo", "--self-test"], smoke_env=False)
    assert status == 1
    assert "self-test: still busy after 0 s" in capsys.readouterr().err


@pytest.mark.parametrize("main", ["evalgui.gui.app:_parse_args", "evalgui.cli:main"])
def test_version_flags_print_the_pyproject_version(main, capsys):
    import importlib

    module, _, name = main.partition(":")
    with pytest.raises(SystemExit) as exited:
        getattr(importlib.import_module(module), name)(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.split()[-1] == VERSION


def test_the_png_icons_are_the_svg_rendered(qapp):
    import importlib.util

    from evalgui.core.resources import icon

    spec = importlib.util.spec_from_file_location("make_icons", icon("make_icons.py"))
    make_icons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_icons)
    for size in make_icons.SIZES:
        committed = QImage(str(icon(f"evalgui-{size}.png")))
        rendered = make_icons.render(size).convertToFormat(committed.format())
        assert committed.size() == rendered.size()
        # Another Qt may antialias a little differently: compare pixels, with a tolerance.
        differing = sum(committed.pixel(x, y) != rendered.pixel(x, y)
                        for x in range(0, size, max(1, size // 64)) for y in range(0, size, max(1, size // 64)))
        assert differing < 0.05 * (min(size, 64) ** 2), f"evalgui-{size}.png: run make_icons.py"


def test_a_project_double_clicked_on_the_desktop_opens(qtbot, make_window, monkeypatch, tmp_path):
    """The desktop runs the entry's Exec with %f replaced by the file; the window opens that project."""
    import xml.etree.ElementTree as ET

    _saved_session(qtbot, make_window, tmp_path, runs=("bm25", "dense"))
    project = tmp_path / "study.evalgui"
    # The desktop knows the file is a project by its name or its first bytes (the MIME type's magic).
    magic = ET.parse(MIME).getroot().find("m:mime-type/m:magic/m:match", MIME_NS).get("value")
    assert magic in project.read_text()[:64]
    command = [str(project) if word == "%f" else word for word in desktop_entry()["Exec"].split()]
    status, window = _main(qtbot, monkeypatch, command[1:])
    assert status == 0
    assert window.project_path == str(project)
    assert list(window.workspaces["ranked"].summary.model.frame["run"]) == ["bm25", "dense"]
