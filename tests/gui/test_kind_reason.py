"""Issue 9, point 12 in the window: a JSON run with whole-number scores loaded after a qrels is a run,
and the Data dock says why a kind was chosen."""

from __future__ import annotations

import json

from tests.gui.conftest import SYNTHETIC, load

KIND_COLUMN = 2


def dock_row(window, name):
    tree = window.data_panel.tree
    return next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(1) == name)


def test_a_json_run_with_whole_number_scores_loaded_after_the_qrels_is_a_run(qtbot, window, tmp_path):
    toss_up = tmp_path / "top3.json"                              # three scores for one query: grades or scores?
    toss_up.write_text(json.dumps({"101": {"D10374": 3, "D07546": 2, "D10724": 1}}))
    ranked = tmp_path / "bm25_int.json"                           # a ranker's integer scores
    ranked.write_text(json.dumps({q: {f"D{q}{i:03d}": 100 - i for i in range(50)} for q in ("101", "102")}))
    load(qtbot, window, [SYNTHETIC / "qrels.txt"])
    load(qtbot, window, [toss_up, ranked])

    kinds = {item.name: item.kind for item in window.session.items}
    assert kinds == {"qrels.txt": "qrels", "top3.json": "run", "bm25_int.json": "run"}
    row = dock_row(window, "top3.json")
    assert row.text(KIND_COLUMN) == "run"
    tip = row.toolTip(KIND_COLUMN)
    assert "Run, detected:" in tip and "a qrels file is loaded already" in tip
    assert "50 different values" in dock_row(window, "bm25_int.json").toolTip(KIND_COLUMN)
    assert "four fields a line" in dock_row(window, "qrels.txt").toolTip(KIND_COLUMN)
    # The form offers both as runs to evaluate, and only the real qrels as judgments.
    form = window.workspaces["ranked"].form
    assert set(form.checked_run_paths()) == {str(toss_up), str(ranked)}
    assert [form.qrels_combo.itemText(i) for i in range(form.qrels_combo.count())] == ["qrels.txt"]
