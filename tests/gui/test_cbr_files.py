"""Case bases and similarity results in the window: the Data dock lists them with their counts; a bad file
gives the dialog naming the file, the line and the reason."""

from __future__ import annotations

from tests.gui.conftest import SAMPLE_DATA, load

CBR = SAMPLE_DATA / "cbr"


def _rows(tree):
    return [[tree.topLevelItem(i).text(c) for c in range(1, 4)] for i in range(tree.topLevelItemCount())]


def test_case_bases_and_similarity_results_are_listed_with_their_counts(qtbot, window):
    load(qtbot, window, [CBR / "cars.csv", CBR / "queries.csv", CBR / "procake_ground_truth.csv"])
    tree = window.data_panel.tree
    assert _rows(tree) == [["cars.csv", "case base", "20 cases, 9 attributes"],
                           ["queries.csv", "case base", "3 cases, 9 attributes"],
                           ["procake_ground_truth.csv", "similarity results", "1 query, 3 cases, 3 pairs"]]
    tip = tree.topLevelItem(0).toolTip(3)
    assert "types: 4 numeric, 3 categorical, 1 text, 1 set" in tip and "id column: id" in tip
    assert "no query or document column" in tip                   # why it was read as a case base
    assert "min similarity: 0.2" in tree.topLevelItem(2).toolTip(3)
    assert window.workspaces["ranked"].form.run_list.count() == 0  # neither is a ranked run


def test_a_bad_similarity_file_names_file_line_and_reason(qtbot, window, tmp_path):
    path = tmp_path / "sims.csv"
    path.write_text("query_id,case_id,similarity\nq1,c1,0.5\nq1,c2,1.5\n")
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as shown:
        window.load_files([(str(path), None)])
    _, message = shown.args
    assert str(path) in message and "line 3" in message and "the similarity 1.5 is outside [0, 1]" in message
    assert window.last_error_dialog.isVisible() and "line 3" in window.last_error_dialog.text()
    assert window.session.items == []
