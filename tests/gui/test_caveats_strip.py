"""Things to watch in the window: a strip above the results says how many caveats there are and opens to
each, with its numbers; the cells they are about are marked, with the caveat as their tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import load_synthetic, open_in_new_window, run_and_wait


def _header_count(strip) -> int:
    return int(strip.header.text().split()[0])


def test_ranked_results_show_their_caveats_and_mark_the_run_cells(qtbot, window):
    load_synthetic(qtbot, window)
    ranked = window.workspaces["ranked"]
    strip = ranked.caveat_strip
    assert strip.isHidden()
    ranked.form.picker.set_checked({"P": "10", "map": ""})
    run_and_wait(qtbot, ranked)
    assert not strip.isHidden() and strip.frame is not None and len(strip.frame)
    assert _header_count(strip) == len(strip.frame) == len(strip.items)
    assert "things to watch" in strip.header.text() and "change a conclusion" in strip.header.text()
    # closed, then opened by a click; each caveat opens to its whole message
    assert strip.scroll.isHidden()
    qtbot.mouseClick(strip.header, Qt.MouseButton.LeftButton)
    assert not strip.scroll.isHidden()
    item = strip.items[0]
    assert item.details.isHidden() and "%" in item.title.text() and "lowest" not in item.title.text()
    qtbot.mouseClick(item.toggle, Qt.MouseButton.LeftButton)
    assert not item.details.isHidden() and item.details.text() == strip.frame["message"].iloc[0]
    # the summary's cells a caveat is about are marked: a run's judged share on its run cell
    marks = strip.marks[0]
    view = ranked.summary.view
    names = [view.source_model.column_name(c) for c in range(view.source_model.columnCount())]
    judged = strip.frame[(strip.frame["kind"] == "judged") & (strip.frame["measure"] == "")]
    run = judged["run"].iloc[0]
    row = next(r for r in range(view.model().rowCount()) if view.model().index(r, 0).data() == run)
    assert marks.caveats_at(view.model().index(row, names.index("run")))
    measure_caveat = strip.frame[(strip.frame["kind"] == "judged") & (strip.frame["measure"] != "")].iloc[0]
    row = next(r for r in range(view.model().rowCount())
               if view.model().index(r, 0).data() == measure_caveat["run"])
    assert marks.caveats_at(view.model().index(row, names.index(measure_caveat["measure"])))
    # a new evaluation with nothing to watch hides the strip (P@5 of the judged top documents of bm25 only)
    ranked.clear_results()
    assert strip.isHidden() and not marks.caveats_at(view.model().index(0, 0))


def test_compare_marks_the_pair_a_caveat_is_about(qtbot, window):
    load_synthetic(qtbot, window)
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    compare.form.picker.set_checked({"map": "", "P": "10"})
    index = compare.form.correction_combo.findData("none")
    compare.form.correction_combo.setCurrentIndex(index)
    run_and_wait(qtbot, compare)
    strip = compare.caveat_strip
    assert not strip.isHidden()
    assert "multiple_comparisons" in set(strip.frame["kind"])
    view = compare.table.view
    source = view.source_model
    names = [source.column_name(c) for c in range(source.columnCount())]
    marked = [(r, c) for r in range(view.model().rowCount()) for c in range(len(names))
              if strip.marks[0].caveats_at(view.model().index(r, c))]
    assert marked and {names[c] for _, c in marked} <= {"measure", "diff", "p_value", "p_adjusted", "significant"}
    pairs = strip.frame[strip.frame["kind"] == "queries"]
    if len(pairs):
        pair = pairs.iloc[0]
        row = next(r for r in range(source.rowCount()) if source.raw(r, names.index("run_a")) == pair["run"]
                   and source.raw(r, names.index("run_b")) == pair["other_run"]
                   and source.raw(r, names.index("measure")) == pair["measure"])
        found = strip.marks[0].caveats_at(view.model().index(row, names.index("diff")))
        assert any(c.kind == "queries" for c in found)


def test_results_reopened_from_a_project_show_their_caveats(qtbot, make_window, tmp_path):
    import pandas as pd

    from tests.gui.conftest import SYNTHETIC_RUNS, copy_synthetic, load

    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    load(qtbot, first, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    ranked, metaeval = first.workspaces["ranked"], first.workspaces["metaeval"]
    ranked.form.picker.set_checked({"P": "10", "map": ""})
    run_and_wait(qtbot, ranked)
    first.tabs.setCurrentWidget(metaeval)
    metaeval.form.picker.set_checked({"map": "", "P": "10"})
    metaeval.form.experiment_combo.setCurrentIndex(metaeval.form.experiment_combo.findData("power"))
    metaeval.form.samples_spin.setValue(100)
    run_and_wait(qtbot, metaeval)
    shown = {key: first.workspaces[key].caveat_strip.frame for key in ("ranked", "metaeval")}
    assert all(frame is not None and len(frame) for frame in shown.values())
    assert "judged" in set(shown["metaeval"]["kind"])          # more than the best measure the table tells
    # the window's report of the ranked results has them too
    assert first.workspaces["ranked"].report_outcomes()["ranked"].tables["caveats"] is shown["ranked"]
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))

    second = open_in_new_window(qtbot, make_window, project)
    for key, frame in shown.items():
        strip = second.workspaces[key].caveat_strip
        assert strip.frame is not None, key
        pd.testing.assert_frame_equal(strip.frame.reset_index(drop=True), frame.reset_index(drop=True),
                                      check_dtype=False)
        assert _header_count(strip) == len(frame)
    qtbot.waitUntil(lambda: not second.workspaces["ranked"].is_busy(), timeout=20_000)
    assert second.workspaces["ranked"].caveat_strip.frame is not None      # re-reading the rankings keeps them


def test_the_ranked_forms_judged_share_setting_reaches_the_caveats_and_the_project(qtbot, window, tmp_path):
    import json

    load_synthetic(qtbot, window)
    ranked = window.workspaces["ranked"]
    form = ranked.form
    assert form.judged_spin.value() == 90 and form.judged_spin.suffix() == " %"
    form.picker.set_checked({"P": "10", "map": ""})

    def judged_runs(percent):
        form.judged_spin.setValue(percent)
        run_and_wait(qtbot, ranked)
        frame = ranked.caveat_strip.frame
        return set() if frame is None else set(frame.loc[frame["kind"] == "judged", "run"])

    assert judged_runs(0) == set()
    assert judged_runs(100) == set(ranked.results_set.runs)           # no run has every document judged
    assert ranked.workflow_requests()["ranked"]["judged_below"] == 100
    assert window.write_project(str(tmp_path / "p.evalgui"))
    saved = json.loads((tmp_path / "p.evalgui").read_text())
    assert saved["requests"]["ranked"]["judged_below"] == 100 and saved["forms"]["ranked"]["judged_below"] == 100


@pytest.mark.parametrize("key", ["compare", "metaeval"])
def test_compare_and_metaeval_forms_set_the_judged_share_too(qtbot, window, key):
    load_synthetic(qtbot, window)
    workspace = window.workspaces[key]
    window.tabs.setCurrentWidget(workspace)
    form = workspace.form
    form.picker.set_checked({"map": "", "P": "10"})
    if key == "metaeval":
        form.experiment_combo.setCurrentIndex(form.experiment_combo.findData("power"))
        form.samples_spin.setValue(100)
    assert form.judged_spin.value() == 90 and form.judged_spin.suffix() == " %"

    def judged(percent):
        form.judged_spin.setValue(percent)
        run_and_wait(qtbot, workspace)
        frame = workspace.caveat_strip.frame
        return frame is not None and "judged" in set(frame["kind"])

    assert not judged(0) and judged(100)
    requests = workspace.workflow_requests()
    assert requests[key]["judged_below"] == 100
