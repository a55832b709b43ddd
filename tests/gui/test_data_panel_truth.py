"""The Data panel tells the truth: names and badges after reopening, visible actions, prefs files."""

from __future__ import annotations

import os
import shutil

from PySide6.QtCore import Qt

from evalgui.core.resources import sample_data
from tests.gui.conftest import MEIC, SYNTHETIC, load

SHOTS = os.environ.get("EVALGUI_SHOTS")       # a folder: the screens are saved there to be looked at


def _shot(widget, name):
    if SHOTS:
        widget.grab().save(os.path.join(SHOTS, name))


def test_every_row_shows_its_name_and_badge_after_reopening_a_project(qtbot, make_window, tmp_path):
    shutil.copytree(sample_data(), tmp_path / "s")
    window = make_window()
    window.resize(1366, 768)
    window.open_project(str(tmp_path / "s" / "demo.evalgui"))
    qtbot.waitUntil(lambda: len(window.session.items) > 0 and not window._loaders, timeout=30_000)
    tree = window.data_panel.tree
    assert tree.topLevelItemCount() == len(window.session.items)
    kinds = set()
    for i in range(tree.topLevelItemCount()):
        row = tree.topLevelItem(i)
        assert row.text(0) in ("✔", "⚠") and row.text(1) and row.text(2), [row.text(c) for c in range(4)]
        kinds.add(row.text(2))
    assert "case base" in kinds
    # Painted, not only in the model: every row has a place in the viewport's scroll range.
    tree.scrollToItem(tree.topLevelItem(tree.topLevelItemCount() - 1))
    assert tree.visualItemRect(tree.topLevelItem(tree.topLevelItemCount() - 1)).height() > 0
    _shot(window, "reopened_project.png")


def test_read_as_and_remove_are_buttons_on_the_panel(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt", SYNTHETIC / "bm25.run", SYNTHETIC / "dense.run"])
    panel = window.data_panel
    assert panel.read_as_button.isVisible() and panel.remove_button.isVisible()
    assert not panel.remove_button.isEnabled()              # nothing selected yet
    tree = panel.tree
    tree.topLevelItem(1).setSelected(True)
    assert panel.remove_button.isEnabled() and panel.read_as_button.isEnabled()
    panel._fill_read_as_menu()
    labels = [a.text() for a in panel.read_as_menu.actions()]
    assert "Qrels" in labels and "Run" in labels
    checked = [a.text() for a in panel.read_as_menu.actions() if a.isChecked()]
    assert checked == ["Run"]
    with qtbot.waitSignal(panel.reload_as) as signal:
        next(a for a in panel.read_as_menu.actions() if a.text() == "Qrels").trigger()
    assert signal.args[1] == "qrels"
    removed = tree.topLevelItem(2).data(0, Qt.ItemDataRole.UserRole)
    tree.clearSelection()
    tree.topLevelItem(2).setSelected(True)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert window.session.find(removed) is None
    assert tree.topLevelItemCount() == 2
    _shot(panel, "data_panel_buttons.png")


def test_prefs_judgments_are_listed_as_what_they_are(qtbot, window, tmp_path):
    path = tmp_path / "judged.prefs"
    path.write_text("1 g1 s1 d1 2.5\n1 g1 s1 d2 1\n2 g2 s1 d3 0\n")
    load(qtbot, window, [path])
    row = window.data_panel.tree.topLevelItem(0)
    assert row.text(2) == "preference judgments"
    assert row.text(0) == "⚠"
    assert "trec_eval" in row.toolTip(0) and "judgment group" in row.toolTip(0)


def test_run_lists_have_select_all_and_none(qtbot, window):
    load(qtbot, window, [SYNTHETIC / "qrels.txt"] + [SYNTHETIC / f"{r}.run" for r in ("bm25", "dense", "random")])
    ranked = window.workspaces["ranked"]
    picker = ranked.form.data
    assert len(picker.checked_run_paths()) == 3
    qtbot.mouseClick(picker.select_none_button, Qt.MouseButton.LeftButton)
    assert picker.checked_run_paths() == []
    qtbot.mouseClick(picker.select_all_button, Qt.MouseButton.LeftButton)
    assert len(picker.checked_run_paths()) == 3
    _shot(ranked, "ranked_select_all.png")


def test_a_project_just_opened_has_nothing_to_save(qtbot, make_window, tmp_path):
    """Opening a project, then opening it again, asked "Save the changes?": MAC's model file, read on the
    worker after the forms were restored, counted as an edit."""
    shutil.copytree(sample_data(), tmp_path / "s")
    window = make_window()
    form = window.workspaces["casebase"].form
    arrived = []
    read = form._mac_read
    # (opening first puts the form back to its defaults, no model: only the model files read are counted)
    form._mac_read = lambda *args: (read(*args), args[0] is not None and arrived.append(args[0]))
    for opened in (1, 2):
        window.open_project(str(tmp_path / "s" / "demo.evalgui"))
        qtbot.waitUntil(lambda: len(arrived) == opened and not window._loaders, timeout=30_000)
        assert form.mac_model is not None and arrived[-1].endswith("mac_model.json")
        assert not window.isWindowModified(), window.windowTitle()
    form.set_mac_file(None)                      # the user's own change still counts
    assert window.isWindowModified()
