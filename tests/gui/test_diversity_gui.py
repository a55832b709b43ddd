"""Subtopic qrels in the window: their own kind in the Data panel, diversity measures and ST-RPP in Compare."""

from __future__ import annotations

import pytest

from tests.gui.conftest import load, run_and_wait
from tests.gui.test_compare_workspace import _choose, _workspace

QRELS = "1 1 A 1\n1 2 A 1\n1 2 B 1\n1 3 C 1\n1 1 D 0\n2 1 X 1\n2 2 Y 2\n2 1 Z 1\n"
RUNS = {"first": "1 Q0 A 1 9 r\n1 Q0 D 2 8 r\n1 Q0 E 3 7 r\n1 Q0 B 4 6 r\n2 Q0 Y 1 3 r\n2 Q0 Z 2 2 r\n",
        "second": "1 Q0 C 1 9 r\n1 Q0 B 2 8 r\n1 Q0 A 3 7 r\n2 Q0 X 1 3 r\n2 Q0 W 2 2 r\n"}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "diversity.qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
    return tmp_path


def test_subtopic_qrels_load_as_their_kind_and_feed_compare(qtbot, window, files):
    load(qtbot, window, [files / "diversity.qrels", files / "first.run", files / "second.run"])
    item = window.session.find(str(files / "diversity.qrels"))
    assert item.kind == "subtopic qrels" and item.record.label == "Subtopic qrels"
    assert any("highest grade" in w for w in item.warnings)
    assert [i.path for i in window.session.of_kind("qrels")] == [item.path]

    compare = _workspace(window)
    f = compare.form
    f.picker.set_checked({"alpha_nDCG": "5"})
    f.picker.add_custom("NRBP(alpha=0.3,beta=0.8)")
    assert f.picker.specs() == ["alpha_nDCG.5", "NRBP(alpha=0.3,beta=0.8)"] and f.picker.specs_problem() is None
    f.preference_list.set_checked("st_rpp", True)
    _choose(f.test_combo, "t")
    run_and_wait(qtbot, compare)
    assert compare.preferences is not None, compare.progress_label.text()
    assert {"alpha_nDCG_5", "NRBP(alpha=0.3,beta=0.8)"} <= set(compare.comparison.table["measure"])

    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.preference import compare as prefer

    expected = prefer(read_qrels(files / "diversity.qrels"),
                      [read_run(files / "first.run"), read_run(files / "second.run")], ["st_rpp"])
    table = compare.preferences.table
    row = table[table["measure"] == "st_rpp"]
    assert float(row["preference"].iloc[0]) == pytest.approx(float(expected.means["st_rpp"][0]))
