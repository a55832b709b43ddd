"""Issue 23 point 2: a project of many files must not stall the window. The run lists and the Data dock are
views over models: opening a project refills each list a fixed number of times whatever the number of files,
with no widget per file, and what the lists show is worked out once per change of the files, not per list.
(The timing itself is benchmarks/bench_project_open.py's.)"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QTableView, QTreeWidget

from evalgui.core.project import make_project
from evalgui.gui.workspaces import run_picker
from evalgui.gui.workspaces.run_picker import Checklist, ChecklistModel


def _project(tmp_path, runs: int) -> tuple[str, list[str]]:
    data = tmp_path / "data"
    data.mkdir(parents=True)
    (data / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    paths = []
    for i in range(runs):
        path = data / f"r{i:04}.run"
        # Every tenth run answers no judged query: it is listed greyed and unticked.
        path.write_text(f"{'q9' if i % 10 == 9 else 'q1'} Q0 d{i} 1 1.0 r{i}\n")
        paths.append(str(path))
    project = tmp_path / "p.evalgui"
    forms = {"ranked": {"qrels": str(data / "qrels.txt"), "runs": {paths[0]: False}}}
    project.write_text(json.dumps(make_project(str(project), [(str(data / "qrels.txt"), "qrels")]
                                               + [(p, "run") for p in paths], forms)))
    return str(project), paths


def _open(qtbot, window, project) -> None:
    with qtbot.waitSignal(window.files_loaded, timeout=60_000):
        window.open_project(project)
    qtbot.waitUntil(lambda: not window._loaders, timeout=60_000)


def _refills_when_opening(qtbot, make_window, tmp_path, runs: int, monkeypatch) -> dict:
    window = make_window()
    project, paths = _project(tmp_path, runs)
    counted = {"run rows": 0}
    real = run_picker._run_rows

    def run_rows(session, qrels_path):
        counted["run rows"] += 1
        return real(session, qrels_path)

    monkeypatch.setattr(run_picker, "_run_rows", run_rows)
    before = dict(run_picker.REFILLS)
    _open(qtbot, window, project)
    counted.update({key: run_picker.REFILLS[key] - before[key] for key in before})
    ranked = window.workspaces["ranked"]
    expected = [p for i, p in enumerate(paths) if i and i % 10 != 9]        # r0 unticked in the project
    assert ranked.form.checked_run_paths() == expected
    row = ranked.form.run_list.item(9)
    assert row.checkState() == Qt.CheckState.Unchecked and "no query in common" in row.text()
    assert row.data(Qt.ItemDataRole.ForegroundRole) == Qt.GlobalColor.gray
    assert window.data_panel.tree.topLevelItemCount() == runs + 1
    counted["window"] = window
    return counted


def test_opening_a_project_refills_each_list_a_fixed_number_of_times(qtbot, make_window, tmp_path, monkeypatch):
    small = _refills_when_opening(qtbot, make_window, tmp_path / "small", 20, monkeypatch)
    large = _refills_when_opening(qtbot, make_window, tmp_path / "large", 200, monkeypatch)
    # As many refills for 200 runs as for 20: once when the files arrive, once when the forms are restored.
    assert large["lists"] == small["lists"], (small, large)
    # The run lists' rows (paths, texts, default ticks) are worked out once per change of the files and
    # qrels, and shared by the four forms that list runs.
    assert large["run rows"] <= 3, large
    window = large["window"]
    # No widget per file: the lists and the Data dock are views over models.
    assert not window.findChildren(QListWidget) and not window.findChildren(QListWidgetItem)
    assert not window.data_panel.findChildren(QTreeWidget)
    assert isinstance(window.data_panel.tree, QTableView)
    for checklist in window.findChildren(Checklist):
        assert isinstance(checklist, QListView) and isinstance(checklist.model(), ChecklistModel)
        assert checklist.uniformItemSizes() and checklist.layoutMode() == QListView.LayoutMode.Batched


def test_a_checklist_keeps_ticks_by_key_in_a_dict(qtbot):
    checklist = Checklist("test")
    qtbot.addWidget(checklist)
    clicks, changes = [], []
    checklist.itemChanged.connect(lambda row: clicks.append(row.data(Qt.ItemDataRole.UserRole)))
    checklist.changed.connect(lambda: changes.append(1))
    checklist.set_entries([("a", "A"), ("b", "B"), ("c", "C")], defaults={"b": False},
                          tooltips=lambda key: f"about {key}", greyed=["b"])
    assert checklist.count() == 3 and checklist.keys() == ["a", "b", "c"] and checklist.checked() == ["a", "c"]
    assert checklist.item(1).toolTip() == "about b" and checklist.item(3) is None
    checklist.item(0).setCheckState(Qt.CheckState.Unchecked)           # as a click does
    assert clicks == ["a"] and checklist.ticks == {"a": False} and checklist.checked() == ["c"]
    checklist.set_checked("z", True)                  # not listed: remembered for a later refill, no click
    checklist.set_checked("b", True)
    assert clicks == ["a"] and checklist.checked() == ["b", "c"]
    checklist.set_entries([("z", "Z"), ("a", "A"), ("d", "D")], default=False)
    assert checklist.checked() == ["z"]               # z: the remembered tick; a: the user's; d: the default
    checklist.set_all_checked(True)
    assert checklist.checked() == ["z", "a", "d"] and clicks == ["a"]
    checklist.restore({"d": False})
    assert checklist.checked() == ["z", "a"]
    assert len(changes) >= 6
