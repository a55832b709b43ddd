"""The Case-based retrieval workspace: model editor and preview, Run on the worker, table, chart, drill-down,
exports, Cancel, projects and bad input, on the used-car sample data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from evalgui.core.workflows.casebase import wide_table
from evalgui.gui.workspaces.casebase.model_editor import DELIMITER, MEASURE, SETTINGS, TYPE, WEIGHT

from tests.gui.conftest import SAMPLE_DATA, load, not_busy, run_and_wait

CBR = SAMPLE_DATA / "cbr"
METRICS = ["hits", "hits_normalized", "quality_mueller", "quality_stromer", "kendall", "mae"]
RANKED = {"map": "", "P": "3", "ndcg_cut": "3"}


# ---------------------------------------------------------------------------- helpers
def _workspace(window):
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    return casebase


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def _open_as(monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))


def _save_as(monkeypatch, path, chosen_filter=""):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), chosen_filter)))


def _tick_only(checklist, keys):
    for i in range(checklist.count()):
        item = checklist.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) in keys
                           else Qt.CheckState.Unchecked)


def _preview_settled(qtbot, casebase):
    """Wait until the preview's side job (the latest request) is done."""
    qtbot.waitUntil(lambda: not casebase.preview_pending(), timeout=10_000)


def _set_up(qtbot, window, monkeypatch, folder=CBR, filter_sizes="3,6", ks="3,3"):
    """Load the cars and the queries, the model and MAC's model through the buttons, the sweep and metrics."""
    load(qtbot, window, [folder / "cars.csv", folder / "queries.csv"])
    casebase = _workspace(window)
    form = casebase.form
    _choose(form.train_combo, str(folder / "cars.csv"))
    _choose(form.test_combo, str(folder / "queries.csv"))
    _open_as(monkeypatch, folder / "model.json")
    qtbot.mouseClick(form.editor.load_button, Qt.MouseButton.LeftButton)
    _open_as(monkeypatch, folder / "mac_model.json")
    qtbot.mouseClick(form.mac_file_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not form.reading_files(), timeout=10_000)     # model files are read on the worker
    form.filter_sizes.setText(filter_sizes)
    form.ks.setText(ks)
    _tick_only(form.metrics, METRICS)
    return casebase


def _engine(filter_sizes=(3, 6), ks=(3, 3), folder=CBR, metrics=METRICS, **options):
    """run_casebase as evalgui-cli casebase calls it on the same files."""
    from evalgui.core.cbr.evaluate import CaseBaseRun, run_casebase
    from evalgui.core.cbr.model import load_model
    from evalgui.core.inputs.case_base import read_case_base

    train, test = read_case_base(folder / "cars.csv"), read_case_base(folder / "queries.csv")
    request = CaseBaseRun(train, test, load_model(folder / "model.json", train),
                          load_model(folder / "mac_model.json", train), filter_sizes, ks, metrics,
                          exclude_self=False, **options)
    return run_casebase(request)


def _quality(table):
    from evalgui.gui.workspaces.casebase.results import TIMING

    keep = ~table["metric"].isin(TIMING)
    return table[keep][["retriever", "filter_size", "k", "metric", "value"]].reset_index(drop=True)


# ---------------------------------------------------------------------------- the form
def test_the_tab_the_model_editor_and_the_live_preview(qtbot, window, monkeypatch):
    from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, METRICS as RECORDS

    casebase = _set_up(qtbot, window, monkeypatch)
    assert window.tabs.tabText(window.tabs.indexOf(casebase)) == "Case-based retrieval"
    form, editor = casebase.form, casebase.form.editor
    assert editor.table.rowCount() == 9 and editor.model().names[0] == "price"
    measure = editor.widget(editor.row_of("body"), MEASURE)
    assert measure.currentData() == "table" and measure.toolTip() == LOCAL_SIMILARITIES["table"].help_text
    assert [measure.itemData(i) for i in range(measure.count())] == ["equality", "table"]
    for i in range(form.metrics.count()):
        item = form.metrics.item(i)
        assert item.toolTip() == RECORDS[item.data(Qt.ItemDataRole.UserRole)].help_text

    _choose(form.preview.query, "q1")
    _choose(form.preview.case, "2")
    _preview_settled(qtbot, casebase)
    before = form.preview.global_similarity()
    # the engine's similarity of q1 and car 2 (what the ground truth holds)
    truth = _engine().ground_truth
    cases, sims = truth.list(list(truth.query_ids).index("q1"))
    assert before == pytest.approx(sims[list(truth.case_ids[cases]).index("2")], abs=1e-12)
    assert form.preview.local_similarity("make") == 1.0         # both VW
    # a heavier weight on an attribute that matches moves the global similarity up
    editor.widget(editor.row_of("make"), WEIGHT).setValue(10)
    qtbot.waitUntil(lambda: form.preview.global_similarity() != before, timeout=10_000)
    assert form.preview.global_similarity() > before
    assert window.isWindowModified()
    # a parameter the engine refuses is marked and explained, and the preview waits for a good model
    alpha = editor.form("power").alpha
    assert alpha.value() == 0.02 and alpha.text() == "0.02"
    alpha.setValue(0)
    assert alpha.property("invalid") and "power" in editor.problem_label.text()
    assert editor.table.item(editor.row_of("power"), SETTINGS).text() == "α must be above 0"
    assert form.preview.model.frame.empty
    alpha.setValue(0.02)
    assert not alpha.property("invalid")
    _preview_settled(qtbot, casebase)
    assert not form.preview.model.frame.empty


def test_a_type_the_values_do_not_fit_is_said_in_the_preview_and_refused_by_run(qtbot, window, monkeypatch):
    """Made numeric, 'make' (VW, Audi...) cannot be read: the preview says why in place, without a dialog at
    every edit; Run refuses it with a dialog naming the file, the case and the column."""
    casebase = _set_up(qtbot, window, monkeypatch)
    form, editor = casebase.form, casebase.form.editor
    _preview_settled(qtbot, casebase)
    errors = []
    window.error_shown.connect(lambda title, message: errors.append(message))
    editor.widget(editor.row_of("make"), TYPE).setCurrentText("numeric")
    assert editor.widget(editor.row_of("make"), MEASURE).currentData() == "linear"
    qtbot.waitUntil(lambda: "is not a number" in form.preview.note.text(), timeout=10_000)
    assert "case '1', column 'make': 'VW' is not a number" in form.preview.note.text()
    assert form.preview.model.frame.empty and errors == []
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as refused:
        qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
    assert "cars.csv, line 2" in refused.args[1] and "case '1', column 'make'" in refused.args[1]
    window.last_error_dialog.close()
    editor.widget(editor.row_of("make"), TYPE).setCurrentText("categorical")
    qtbot.waitUntil(lambda: not form.preview.model.frame.empty, timeout=10_000)
    assert "weighted mean" in form.preview.note.text()


def test_a_new_case_base_starts_one_preview(qtbot, window, monkeypatch):
    """Its default model and its ids for both boxes all ask for the preview: one job computes it (each job beside
    the GUI thread takes the GIL from it)."""
    casebase = _workspace(window)
    started = []
    start_side_job = casebase.start_side_job
    monkeypatch.setattr(casebase, "start_side_job", lambda key, *args: (started.append(key), start_side_job(key, *args)))
    load(qtbot, window, [CBR / "cars.csv"])
    # the default model comes at the next turn of the event loop (it may come after files_loaded)
    qtbot.waitUntil(lambda: casebase.form.editor.table.rowCount() > 0, timeout=10_000)
    _preview_settled(qtbot, casebase)
    assert started == ["preview"]
    assert casebase.form.editor.table.rowCount() == 9 and casebase.form.preview.global_similarity() == 1.0


def test_the_model_saves_to_a_file_the_engine_reads(qtbot, window, monkeypatch, tmp_path):
    from evalgui.core.cbr.model import load_model

    casebase = _set_up(qtbot, window, monkeypatch)
    editor = casebase.form.editor
    editor.widget(editor.row_of("price"), WEIGHT).setValue(5)
    _save_as(monkeypatch, tmp_path / "edited.json")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    saved = load_model(tmp_path / "edited.json")
    original = load_model(CBR / "model.json")
    assert saved.attributes[0].weight == 5
    assert saved.attributes[1:] == original.attributes[1:]
    assert saved.attributes[5].parameters == original.attributes[5].parameters


def test_filter_sizes_and_ks_are_checked_as_typed(qtbot, window, monkeypatch):
    casebase = _set_up(qtbot, window, monkeypatch)
    form = casebase.form
    form.filter_sizes.setText("3,6,10")
    assert form.filter_sizes.property("invalid") and "equally long" in form.pairs_note.text()
    form.ks.setText("3,3,x")
    assert "'x' is not a whole number" in form.pairs_note.text()
    form.ks.setText("3,3,12")
    assert "smaller than its k" in form.pairs_note.text()
    form.ks.setText("3,3,5")
    assert not form.filter_sizes.property("invalid") and not form.pairs_note.isVisibleTo(form)


# ---------------------------------------------------------------------------- running
def test_linear_and_a_macfac_sweep_equal_the_engine(qtbot, window, monkeypatch):
    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)
    assert casebase.outcome is not None, casebase.progress_label.text()
    expected = _engine()
    pd.testing.assert_frame_equal(_quality(casebase.outcome.table), _quality(expected.table), check_exact=False,
                                  rtol=0, atol=1e-12)
    shown = casebase.table.tidy_model.frame
    assert list(shown.columns) == ["retriever", "filter_size", "k", "metric", "value", "retrieval_seconds",
                                   "speedup"]
    pd.testing.assert_frame_equal(_quality(shown), _quality(expected.table), check_exact=False, rtol=0, atol=1e-12)
    assert (shown["retrieval_seconds"] > 0).all()
    assert (shown[shown["retriever"] == "linear"]["speedup"] == 1.0).all()
    assert set(shown["retriever"]) == {"linear", "macfac"} and len(shown) == len(_quality(expected.table))
    assert casebase.progress.value() == casebase.progress.maximum()
    # shown as a grid: one row per configuration, one column per metric, the engine's wide table
    grid = casebase.table.model.frame
    pd.testing.assert_frame_equal(grid, wide_table(casebase.outcome.table))
    assert list(grid.columns[:3]) == ["retriever", "filter_size", "k"] and len(grid) == 3
    assert "quality_mueller" in grid.columns and "metric" not in grid.columns
    model = casebase.table.model
    assert not any(model._best[:, :3].ravel())                   # the configuration is no contest
    # sortable by clicking a header
    view = casebase.table.view
    column = list(grid.columns).index("quality_mueller")
    view.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    assert view.model().index(0, column).data() == f"{grid['quality_mueller'].max():.4f}"
    # the tidy layout is one View choice away
    _choose(casebase.table.layout_combo, "tidy")
    assert list(casebase.table.model.frame.columns) == list(shown.columns)
    _choose(casebase.table.layout_combo, "grid")

    # the chart: one point per filter-size/k pair, the linear retriever as reference
    casebase.results_tabs.setCurrentWidget(casebase.chart.page)
    _choose(casebase.chart.metric, "quality_mueller")
    assert casebase.chart.point_count() == 2
    assert len(casebase.chart.linear.data) == 1 and casebase.chart.reference.isVisible()
    assert sorted(p.toPlainText() for p in casebase.chart.labels) == ["3/3", "6/3", "k=3"]
    macfac = shown[(shown["retriever"] == "macfac") & (shown["metric"] == "quality_mueller")]
    assert sorted(casebase.chart.macfac.data["y"]) == pytest.approx(sorted(macfac["value"]))
    assert sorted(casebase.chart.macfac.data["x"]) == pytest.approx(sorted(macfac["retrieval_seconds"]))

    # the drill-down: ground truth and MAC/FAC 3/3 side by side, each case's rank in the other list
    casebase.results_tabs.setCurrentWidget(casebase.drill_down.page)
    drill = casebase.drill_down
    _choose(drill.query, "q1")
    _choose(drill.retriever, "macfac 3/3")
    truth, lists = drill.model_truth.frame, drill.model_lists.frame
    gt_ids = list(truth["case_id"])
    macfac_run = next(r for r in expected.retrievals if r.name == "macfac" and r.filter_size == 3)
    cases, _ = macfac_run.lists.list(list(macfac_run.lists.query_ids).index("q1"))
    assert list(lists["case_id"]) == list(macfac_run.lists.case_ids[cases])
    assert list(lists["rank_in_ground_truth"]) == [gt_ids.index(c) + 1 for c in lists["case_id"]]
    for _, row in truth.iterrows():
        listed = list(lists["case_id"])
        assert (row["rank_in_retriever"] is pd.NA) == (row["case_id"] not in listed)
        if row["case_id"] in listed:
            assert row["rank_in_retriever"] == listed.index(row["case_id"]) + 1
    assert np.allclose(lists["true_similarity"], truth.set_index("case_id").loc[list(lists["case_id"]), "similarity"])


def test_exports_read_back(qtbot, window, monkeypatch, tmp_path):
    from evalgui.core.inputs import kind

    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)
    targets = dict(casebase.export_targets())
    _save_as(monkeypatch, tmp_path / "table.csv")
    targets["Case-based retrieval table…"]()
    back = pd.read_csv(tmp_path / "table.csv")
    assert np.allclose(back["Value"], casebase.table.tidy_model.frame["value"])
    assert list(back.columns)[-2:] == ["Retrieval time (s)", "Speed-up"]
    assert list(back.columns)[:5] == ["Retriever", "Filter size", "k", "Metric", "Value"]   # tidy, as shown
    _save_as(monkeypatch, tmp_path / "grid.csv")
    targets["Case-based retrieval grid (a column per metric)…"]()
    grid = pd.read_csv(tmp_path / "grid.csv")
    assert len(grid) == 3 and "Metric" not in grid.columns and "Kendall's τ" in grid.columns
    for name, fmt in (("table.tex", "LaTeX (*.tex)"), ("table.md", "Markdown (*.md)")):
        _save_as(monkeypatch, tmp_path / name, fmt)
        targets["Case-based retrieval table…"]()
        text = (tmp_path / name).read_text()
        assert "Kendall's τ" in text and "<NA>" not in text and "nan" not in text.lower()
    _save_as(monkeypatch, tmp_path / "gt.csv")
    targets["Ground truth (similarity file)…"]()
    truth = kind("similarity results").read(str(tmp_path / "gt.csv"))
    assert len(truth) == 3 * 20
    expected = _engine().ground_truth.to_frame()
    back = pd.read_csv(tmp_path / "gt.csv", dtype={"query_id": str, "case_id": str})
    assert np.allclose(back["similarity"], expected["similarity"]) and list(back["case_id"]) == list(
        expected["case_id"])
    # the drill-down's two lists, as shown
    drill = casebase.drill_down
    for target, model in (("Drill-down, ground truth…", drill.model_truth), ("Drill-down, retriever…",
                                                                               drill.model_lists)):
        _save_as(monkeypatch, tmp_path / "list.csv")
        targets[target]()
        back = pd.read_csv(tmp_path / "list.csv", dtype={"Case": str})
        assert len(back) == len(model.frame) > 0 and list(back["Case"]) == list(model.frame["case_id"])
        assert np.allclose(back["Similarity"], model.frame["similarity"])
    casebase.results_tabs.setCurrentWidget(casebase.chart.page)
    for ext in (".png", ".svg"):
        _save_as(monkeypatch, tmp_path / f"chart{ext}")
        targets["Quality vs time chart…"]()
        assert (tmp_path / f"chart{ext}").stat().st_size > 1000
    # the exported ground truth read back in the window: as ground truth and as a retriever, perfect
    (tmp_path / "again.csv").write_bytes((tmp_path / "gt.csv").read_bytes())
    load(qtbot, window, [tmp_path / "gt.csv", tmp_path / "again.csv"])
    assert window.session.find(str(tmp_path / "gt.csv")).kind == "similarity results"
    form = casebase.form
    _choose(form.source_combo, "files")
    _choose(form.truth_combo, str(tmp_path / "gt.csv"))
    _tick_only(form.predicted, [str(tmp_path / "again.csv")])
    form.ks.setText("3")
    _tick_only(form.metrics, ["hits_normalized", "quality_stromer"])
    run_and_wait(qtbot, casebase)
    assert casebase.outcome.table["value"].tolist() == [1.0, 1.0]


def test_similarity_files_only(qtbot, window):
    """ProCAKE's worked example: a ground truth and an evaluated list, no case base."""
    load(qtbot, window, [CBR / "procake_ground_truth.csv", CBR / "procake_evaluated.csv"])
    casebase = _workspace(window)
    form = casebase.form
    _choose(form.source_combo, "files")
    _choose(form.truth_combo, str(CBR / "procake_ground_truth.csv"))
    assert form.predicted.checked() == [str(CBR / "procake_evaluated.csv")]
    # no MAC/FAC without case bases: its rows are hidden; the model editor too
    assert not any(w.isVisibleTo(form) for w in (form.mac_list, form.filter_sizes, form.mac_file_button,
                                                  form.model_box))
    assert form.ks.isVisibleTo(form) and form.predicted.isVisibleTo(form)
    form.ks.setText("2")
    run_and_wait(qtbot, casebase)
    assert list(casebase.table.tidy_model.frame.columns) == ["retriever", "k", "metric", "value"]   # nothing timed
    shown = casebase.table.tidy_model.frame.set_index("metric")["value"]
    assert shown["hits"] == 1.0 and shown["quality_stromer"] == pytest.approx(0.6)
    assert shown["quality_mueller"] == pytest.approx(0.85)
    casebase.results_tabs.setCurrentWidget(casebase.drill_down.page)
    assert list(casebase.drill_down.model_truth.frame["rank_in_retriever"]) == [1, 3, 2]


def _tick(qtbot, box, on=True):
    """Click a check box (at its indicator) unless it already is as wanted."""
    if box.isChecked() != on:
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert box.isChecked() == on


def _ranked_on(qtbot, form, thresholds="0.6,0.8", measures=RANKED):
    _tick(qtbot, form.ranked_check)
    form.thresholds.clear()
    form.thresholds.setFocus()
    QTest.keyClicks(form.thresholds, thresholds)
    form.ranked_picker.set_checked(measures)


def test_ranked_measures_over_the_graded_ground_truth_equal_the_engine(qtbot, window, monkeypatch):
    casebase = _set_up(qtbot, window, monkeypatch)
    form = casebase.form
    assert not form.ranked_check.isChecked() and not form.thresholds.isVisibleTo(form)    # off until asked for
    _ranked_on(qtbot, form, thresholds="0.6,1.5")
    assert form.thresholds.isVisibleTo(form) and form.ranked_picker.isVisibleTo(form)
    assert form.thresholds.property("invalid") and "(0, 1]" in form.thresholds.toolTip()
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as refused:
        qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
    assert "(0, 1]" in refused.args[1] and casebase.outcome is None
    window.last_error_dialog.close()
    _ranked_on(qtbot, form)
    assert not form.thresholds.property("invalid")
    run_and_wait(qtbot, casebase)
    assert casebase.outcome is not None, casebase.progress_label.text()

    expected = _engine(metrics=METRICS + form.ranked_picker.specs(), relevance_thresholds=(0.6, 0.8))
    names = ["map", "P_3", "ndcg_cut_3"]
    got = casebase.outcome.table
    assert set(names) <= set(got["metric"])
    pd.testing.assert_frame_equal(_quality(got), _quality(expected.table), check_exact=False, rtol=0, atol=1e-12)
    shown = casebase.table.tidy_model.frame
    assert set(names) <= set(shown["metric"])
    # every configuration has them: linear at k = 3 and both MAC/FAC pairs
    assert len(shown[shown["metric"] == "ndcg_cut_3"]) == 3
    casebase.results_tabs.setCurrentWidget(casebase.chart.page)
    _choose(casebase.chart.metric, "ndcg_cut_3")
    assert casebase.chart.point_count() == 2
    casebase.results_tabs.setCurrentWidget(casebase.per_query.page)
    _choose(casebase.per_query.metric, "P_3")
    assert list(casebase.per_query.model.frame["query"]) == ["q1", "q2", "q3"]

    # ticked with no measure, or unticked: refused, or the ranked measures are gone from the next run
    form.ranked_picker.set_checked({})
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as refused:
        qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
    assert "tick at least one measure" in refused.args[1]
    window.last_error_dialog.close()
    _tick(qtbot, form.ranked_check, False)
    run_and_wait(qtbot, casebase)
    assert not set(names) & set(casebase.outcome.table["metric"])


def test_ranked_measures_of_similarity_files(qtbot, window):
    from evalgui.core.cbr.evaluate import evaluate_results
    from evalgui.core.inputs.similarity import read_similarity_results

    load(qtbot, window, [CBR / "procake_ground_truth.csv", CBR / "procake_evaluated.csv"])
    casebase = _workspace(window)
    form = casebase.form
    _choose(form.source_combo, "files")
    _tick_only(form.metrics, ["hits"])
    _ranked_on(qtbot, form, thresholds="0.25,0.4", measures={"ndcg_cut": "2", "map": ""})
    run_and_wait(qtbot, casebase)
    table, _ = evaluate_results(read_similarity_results(CBR / "procake_ground_truth.csv"),
                                [("procake_evaluated", read_similarity_results(CBR / "procake_evaluated.csv"))],
                                ["hits", "map", "ndcg_cut.2"], [None], relevance_thresholds=(0.25, 0.4))
    pd.testing.assert_frame_equal(casebase.outcome.table, table)
    assert casebase.table.tidy_model.frame.set_index("metric")["value"]["ndcg_cut_2"] == pytest.approx(
        table.set_index("metric")["value"]["ndcg_cut_2"])


# ---------------------------------------------------------------------------- case bases in the form
KEYED = ("row,car,make,tags,emb\n"
         '1,a7,VW,tow bar|navigation,"[1, 0]"\n'
         '2,b2,VW,navigation,"[0.6, 0.8]"\n'
         '3,c9,Audi,leather|tow bar|navigation,"[0, 1]"\n'
         '4,d4,Audi,,"[1, 1]"\n')


def test_the_id_column_a_types_delimiter_and_vectors(qtbot, make_window, monkeypatch, tmp_path):
    """The case base keyed by the column the user picks, a column read as a set at the delimiter the user types,
    a vector column; the preview, Run and the model file agree with the engine."""
    from evalgui.core.cbr.evaluate import CaseBaseRun, run_casebase
    from evalgui.core.cbr.model import load_model
    from evalgui.core.inputs.case_base import read_case_base

    path = tmp_path / "keyed.csv"
    path.write_text(KEYED)
    window = make_window()
    load(qtbot, window, [path])
    casebase = _workspace(window)
    form, editor = casebase.form, casebase.form.editor
    assert form.train_id.currentData() == "row" and not form.test_id.isVisibleTo(form)   # same file as test
    assert [form.train_id.itemData(i) for i in range(form.train_id.count())] == ["row", "car", "make", "tags", "emb"]
    # a column with repeated ids is refused with the reason, and the choice stays
    with qtbot.waitSignal(window.error_shown, timeout=10_000) as refused:
        _choose(form.train_id, "make")
    assert "the case id 'VW' appears twice" in refused.args[1] and form.train_id.currentData() == "row"
    window.last_error_dialog.close()
    _choose(form.train_id, "car")
    assert form.train().ids.tolist() == ["a7", "b2", "c9", "d4"]
    assert editor.model().names == ["row", "make", "tags", "emb"]          # the default model follows
    assert [form.preview.case.itemText(i) for i in range(form.preview.case.count())] == ["a7", "b2", "c9", "d4"]

    # tags hold no ';' (and spaces): read as text; made a set split at '|' in the editor
    row = editor.row_of("tags")
    delimiter = editor.widget(row, DELIMITER)
    assert editor.widget(row, TYPE).currentText() == "text" and not delimiter.isEnabled()
    editor.widget(row, TYPE).setCurrentText("set")
    assert delimiter.isEnabled() and editor.widget(row, MEASURE).currentData() == "jaccard_index"
    qtbot.keyClicks(delimiter, "|")
    assert editor.widget(editor.row_of("emb"), TYPE).currentText() == "vector"
    _choose(form.preview.query, "a7")
    _choose(form.preview.case, "c9")
    _preview_settled(qtbot, casebase)
    assert form.preview.local_similarity("tags") == pytest.approx(2 / 3)          # {tow bar, navigation} in 3
    assert form.preview.local_similarity("emb") == 0.0                            # orthogonal
    _choose(form.preview.case, "b2")
    _preview_settled(qtbot, casebase)
    assert form.preview.local_similarity("tags") == 0.5 and form.preview.local_similarity("emb") == pytest.approx(0.6)

    # the model file keeps the delimiter; Run equals the engine on the same choices
    _save_as(monkeypatch, tmp_path / "keyed.json")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    cases = read_case_base(path, id_column="car")
    model = load_model(tmp_path / "keyed.json", cases)
    assert model.attributes[2].type == "set" and model.attributes[2].delimiter == "|"
    form.ks.setText("2")
    run_and_wait(qtbot, casebase)
    expected = run_casebase(CaseBaseRun(cases, cases, model, ks=(2,), metrics=form.metrics.checked()))
    pd.testing.assert_frame_equal(_quality(casebase.outcome.table), _quality(expected.table), check_exact=False,
                                  rtol=0, atol=1e-12)
    assert set(casebase.outcome.ground_truth.query_ids) == {"a7", "b2", "c9", "d4"}

    # the choice of id column is part of the form's state (projects)
    state = form.state()
    again = make_window()
    load(qtbot, again, [path])
    again.workspaces["casebase"].restore_form_state(state)
    assert again.workspaces["casebase"].form.train().id_column == "car"


def test_one_case_base_as_train_and_test_leaves_each_query_out_unless_ticked(qtbot, window):
    load(qtbot, window, [CBR / "cars.csv"])
    casebase = _workspace(window)
    form = casebase.form
    assert form.test_combo.currentData() == "" and form.include_self.isEnabled()           # "Same as train"
    form.load_model(str(CBR / "model.json"))
    qtbot.waitUntil(lambda: not form.reading_files(), timeout=10_000)
    _tick_only(form.metrics, ["hits"])
    run_and_wait(qtbot, casebase)
    truth = casebase.outcome.ground_truth
    assert truth.n_queries == 20 and set(truth.lengths()) == {19}
    cases, _ = truth.list(list(truth.query_ids).index("4"))
    assert "4" not in set(truth.case_ids[cases])
    _tick(qtbot, form.include_self)
    run_and_wait(qtbot, casebase)
    truth = casebase.outcome.ground_truth
    assert set(truth.lengths()) == {20}
    cases, sims = truth.list(list(truth.query_ids).index("4"))
    assert truth.case_ids[cases[0]] == "4" and sims[0] == 1.0


def test_the_tie_rule_is_chosen_in_the_form(qtbot, window, tmp_path):
    """Ground truth b and c tied at 0.5 after a: the list a, c has one hit of the true top 2 by case id
    (a, b), two when tied cases are interchangeable."""
    (tmp_path / "gt.csv").write_text("query_id,case_id,similarity\nq,a,0.9\nq,b,0.5\nq,c,0.5\nq,d,0.1\n")
    (tmp_path / "rl.csv").write_text("query_id,case_id,similarity\nq,a,0.8\nq,c,0.7\n")
    load(qtbot, window, [tmp_path / "gt.csv", tmp_path / "rl.csv"])
    casebase = _workspace(window)
    form = casebase.form
    _choose(form.source_combo, "files")
    _choose(form.truth_combo, str(tmp_path / "gt.csv"))
    _tick_only(form.metrics, ["hits"])
    form.ks.setText("2")
    assert form.ties_combo.currentData() == "case_id"
    run_and_wait(qtbot, casebase)
    assert casebase.table.tidy_model.frame["value"].tolist() == [1.0]
    _choose(form.ties_combo, "interchangeable")
    run_and_wait(qtbot, casebase)
    assert casebase.table.tidy_model.frame["value"].tolist() == [2.0]


def test_imported_results_and_macs_attributes_beside_the_retrievers(qtbot, window, monkeypatch, tmp_path):
    """Case bases, MAC's model as two of the model's attributes, and a loaded similarity file as one more
    retriever: all equal to the engine's run of the same."""
    from evalgui.core.cbr.evaluate import CaseBaseRun, run_casebase
    from evalgui.core.cbr.model import load_model
    from evalgui.core.inputs.case_base import read_case_base
    from evalgui.core.inputs.similarity import read_similarity_results

    worst = _engine().ground_truth.to_frame()
    worst["similarity"] = 1 - worst["similarity"]
    worst.to_csv(tmp_path / "worst.csv", index=False)
    casebase = _set_up(qtbot, window, monkeypatch, filter_sizes="6", ks="3")
    load(qtbot, window, [tmp_path / "worst.csv"])
    form = casebase.form
    qtbot.mouseClick(form.mac_clear_button, Qt.MouseButton.LeftButton)        # MAC: attributes, not the file
    assert form.mac_path is None and form.mac_list.isEnabled()
    _tick_only(form.mac_list, ["price", "make"])
    assert form.predicted.checked() == []                                      # imported: ticked by the user
    _tick_only(form.predicted, [str(tmp_path / "worst.csv")])
    run_and_wait(qtbot, casebase)
    train, test = read_case_base(CBR / "cars.csv"), read_case_base(CBR / "queries.csv")
    model = load_model(CBR / "model.json", train)
    expected = run_casebase(CaseBaseRun(train, test, model, model.subset(["price", "make"]), (6,), (3,), METRICS,
                                        {"worst": read_similarity_results(tmp_path / "worst.csv")}, exclude_self=False))
    pd.testing.assert_frame_equal(_quality(casebase.outcome.table), _quality(expected.table), check_exact=False,
                                  rtol=0, atol=1e-12)
    values = casebase.outcome.table.set_index(["retriever", "metric"])["value"]
    assert values[("worst", "hits")] == 0.0 and values[("linear", "hits")] == 3.0
    assert "worst" in [casebase.drill_down.retriever.itemData(i) for i in range(casebase.drill_down.retriever.count())]


# ---------------------------------------------------------------------------- per-query values
def test_per_query_values_sort_filter_and_export(qtbot, window, monkeypatch, tmp_path):
    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)
    expected = _engine(per_query=True).table
    expected = expected[expected["query"] != "all"].reset_index(drop=True)
    view = casebase.per_query
    casebase.results_tabs.setCurrentWidget(view.page)
    offered = [view.metric.itemData(i) for i in range(view.metric.count())]
    assert offered == list(dict.fromkeys(expected["metric"]))          # the engine's metrics, in its order
    _choose(view.metric, "quality_mueller")
    frame = view.model.frame
    assert list(frame.columns) == ["query", "linear k=3", "macfac 3/3", "macfac 6/3"]
    assert list(frame["query"]) == ["q1", "q2", "q3"]
    rows = expected[expected["metric"] == "quality_mueller"]
    for column, (retriever, size) in {"linear k=3": ("linear", None), "macfac 3/3": ("macfac", 3),
                                      "macfac 6/3": ("macfac", 6)}.items():
        mine = rows[(rows["retriever"] == retriever)
                    & (rows["filter_size"].isna() if size is None else rows["filter_size"] == size)]
        assert list(frame[column]) == pytest.approx(list(mine["value"]), abs=1e-12), column
    # the best configuration of each query in bold: for times (lower is better), the fastest
    _choose(view.metric, "seconds_per_query")
    table = view.view
    for r in range(table.model().rowCount()):
        values = [table.model().index(r, c).data(Qt.ItemDataRole.UserRole + 1) for c in (1, 2, 3)]
        shown = [table.model().index(r, c).data() for c in (1, 2, 3)]
        bold = [bool(table.model().index(r, c).data(Qt.ItemDataRole.FontRole)) for c in (1, 2, 3)]
        fastest = values.index(min(values))
        # bold only when the fastest is the fastest as shown too (not tied at four decimals)
        unique = shown.count(shown[fastest]) == 1
        assert bold == [unique and i == fastest for i in range(3)], (values, shown, bold)
    _choose(view.metric, "quality_mueller")
    # sortable by clicking a header: the worst query for MAC/FAC 3/3 first
    header = table.horizontalHeader()
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(2) + 10, header.height() // 2))
    column = [table.model().index(r, 2).data(Qt.ItemDataRole.UserRole + 1) for r in range(3)]
    assert column == sorted(column) or column == sorted(column, reverse=True)
    assert len(set(column)) > 1
    # a filter keeps the queries that match
    qtbot.keyClicks(view.filter, "q2")
    assert table.model().rowCount() == 1

    targets = dict(casebase.export_targets())
    _save_as(monkeypatch, tmp_path / "per_query.csv")
    targets["Per-query table…"]()
    back = pd.read_csv(tmp_path / "per_query.csv", dtype={"Query": str})
    assert list(back.columns) == ["Retriever", "Filter size", "k", "Query", "Metric", "Value"]  # as the window says
    want = rows[rows["query"] == "q2"]
    assert list(back["Query"]) == ["q2"] * 3 and list(back["Metric"]) == ["Quality (Müller)"] * 3
    assert list(back["Value"]) == pytest.approx(list(want["value"]), abs=1e-12)
    _save_as(monkeypatch, tmp_path / "per_query.md", "Markdown (*.md)")
    targets["Per-query table…"]()
    text = (tmp_path / "per_query.md").read_text()
    assert "macfac 3/3" in text and "Quality (Müller)" in text and "q1" not in text
    _save_as(monkeypatch, tmp_path / "every_metric.csv")
    targets["Per-query values, every metric…"]()
    every = pd.read_csv(tmp_path / "every_metric.csv", dtype={"Query": str, "k": "Int64", "Filter size": "Int64"})
    from evalgui.gui.tables import as_shown

    named = ["Retriever", "Filter size", "k", "Query", "Metric"]         # the window's headers and metric names
    pd.testing.assert_frame_equal(every[named], as_shown(expected, "json")[named], check_dtype=False)
    timing = expected["metric"].isin(["retrieval_seconds", "seconds_per_query"])
    assert np.allclose(every["Value"][~timing], expected["value"][~timing], atol=1e-12)


# ---------------------------------------------------------------------------- bad input, cancel
def test_bad_input_gives_a_dialog_and_keeps_the_results(qtbot, window, monkeypatch, tmp_path):
    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)
    before = casebase.outcome.table.copy()

    def refused(reason):
        with qtbot.waitSignal(window.error_shown, timeout=10_000) as blocker:
            qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
        assert reason in blocker.args[1], blocker.args
        qtbot.waitUntil(lambda: not casebase.is_busy())
        pd.testing.assert_frame_equal(casebase.outcome.table, before)
        window.last_error_dialog.close()

    casebase.form.filter_sizes.setText("3,6,10")
    refused("equally long")
    casebase.form.filter_sizes.setText("3,6")
    _tick_only(casebase.form.metrics, [])
    refused("No metric is ticked")
    _tick_only(casebase.form.metrics, METRICS)
    # a model naming a column the case bases lack: refused by the engine, on the worker
    bad = tmp_path / "bad_model.json"
    bad.write_text('{"attributes": [{"name": "colour", "type": "categorical", "measure": "equality"}]}')
    casebase.form.load_model(str(bad))
    qtbot.waitUntil(lambda: not casebase.form.reading_files(), timeout=10_000)
    refused("'colour' is not a column")
    editor = casebase.form.editor
    assert editor.missing == {"colour"} and editor.remove_missing_button.isVisibleTo(editor)
    # a column the engine cannot read as the type chosen: refused by the engine, on the worker
    casebase.form.load_model(str(CBR / "model.json"))
    qtbot.waitUntil(lambda: not casebase.form.reading_files(), timeout=10_000)
    editor.widget(editor.row_of("make"), TYPE).setCurrentText("numeric")
    refused("is not a number")
    assert "Failed" in casebase.progress_label.text()
    # the status bar too, not the last count of queries the run had reached
    assert window.statusBar().currentMessage() == casebase.progress_label.text()


def test_cancel_keeps_the_earlier_results(qtbot, window, monkeypatch, tmp_path):
    casebase = _set_up(qtbot, window, monkeypatch)
    run_and_wait(qtbot, casebase)                                   # earlier results: the sample data
    before = casebase.outcome.table.copy()
    # 3,000 queries against 6,000 cases of the same attributes: the linear retriever takes a while
    cars = pd.read_csv(CBR / "cars.csv")
    big = cars.sample(n=6000, replace=True, random_state=1).reset_index(drop=True)
    big["id"] = [f"c{i}" for i in range(len(big))]
    big["price"] = big["price"] + np.random.default_rng(1).integers(-2000, 2000, len(big))
    big.to_csv(tmp_path / "many_cars.csv", index=False)
    big.head(3000).assign(id=[f"q{i}" for i in range(3000)]).to_csv(tmp_path / "many_queries.csv", index=False)
    load(qtbot, window, [tmp_path / "many_cars.csv", tmp_path / "many_queries.csv"])
    form = casebase.form
    _choose(form.train_combo, str(tmp_path / "many_cars.csv"))
    _choose(form.test_combo, str(tmp_path / "many_queries.csv"))
    with qtbot.waitSignal(casebase.busy_changed, timeout=5000):
        qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "queries" in casebase.progress_label.text() or not casebase.is_busy(), timeout=20_000)
    assert casebase.is_busy(), "the run was over before it could be cancelled"
    assert casebase.cancel_button.isEnabled() and not casebase.run_button.isEnabled()
    with qtbot.waitSignal(casebase.busy_changed, check_params_cb=not_busy, timeout=20_000):
        qtbot.mouseClick(casebase.cancel_button, Qt.MouseButton.LeftButton)
    pd.testing.assert_frame_equal(casebase.outcome.table, before)
    assert "Cancelled" in casebase.progress_label.text() and "previous results" in casebase.progress_label.text()
    assert casebase.run_button.isEnabled() and not casebase.cancel_button.isEnabled()
    assert casebase.progress.value() == 0


# ---------------------------------------------------------------------------- projects
def test_project_round_trip(qtbot, make_window, monkeypatch, tmp_path):
    import shutil

    folder = tmp_path / "data"
    shutil.copytree(CBR, folder)
    first = make_window()
    casebase = _set_up(qtbot, first, monkeypatch, folder=folder)
    editor = casebase.form.editor
    editor.widget(editor.row_of("make"), WEIGHT).setValue(4)
    _ranked_on(qtbot, casebase.form, thresholds="0.7")
    run_and_wait(qtbot, casebase)
    project = tmp_path / "cars.evalgui"
    assert first.write_project(str(project))
    # the project holds the workflow's request (the model as its attribute records) and outcome: evalgui-cli run
    # re-runs it to the same numbers (the retrieval times aside)
    from evalgui.cli import main
    from evalgui.core.workflows.project import open_project

    opened = open_project(str(project))
    assert opened.requests["casebase"] == casebase.outcome.request and "casebase" in opened.outcomes
    assert opened.requests["casebase"].model[0]["name"] == "price"
    assert main(["run", str(project), "-o", str(tmp_path / "out"), "--check", "--no-plots"]) == 0

    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    qtbot.waitUntil(lambda: not second._loaders and not second.workspaces["casebase"].form.reading_files(),
                    timeout=20_000)
    restored = second.workspaces["casebase"]
    assert second.tabs.currentWidget() is restored
    assert restored.form_state() == casebase.form_state()
    assert restored.form.editor.model().attributes == casebase.form.editor.model().attributes
    assert restored.form.mac_path == str(folder / "mac_model.json")
    assert restored.form.filter_sizes.text() == "3, 6"                  # saved as the list [3, 6]
    pd.testing.assert_frame_equal(restored.outcome.table, casebase.outcome.table, check_dtype=False)
    pd.testing.assert_frame_equal(restored.table.tidy_model.frame, casebase.table.tidy_model.frame, check_dtype=False)
    assert restored.form.ranked_check.isChecked() and restored.form.thresholds.text() == "0.7"
    assert restored.form.ranked_picker.specs() == casebase.form.ranked_picker.specs()
    pd.testing.assert_frame_equal(restored.outcome.per_query, casebase.outcome.per_query, check_dtype=False)
    restored.results_tabs.setCurrentWidget(restored.per_query.page)
    _choose(restored.per_query.metric, "ndcg_cut_3")
    casebase.per_query.shown()
    _choose(casebase.per_query.metric, "ndcg_cut_3")
    pd.testing.assert_frame_equal(restored.per_query.model.frame, casebase.per_query.model.frame)
    restored.results_tabs.setCurrentWidget(restored.drill_down.page)
    _choose(restored.drill_down.retriever, "macfac 6/3")
    assert len(restored.drill_down.model_lists.frame) == 3
    restored.results_tabs.setCurrentWidget(restored.chart.page)
    assert restored.chart.point_count() == 2
    assert "restored" in restored.progress_label.text()
    # and Run again on the restored form gives the same quality values
    run_and_wait(qtbot, restored)
    pd.testing.assert_frame_equal(_quality(restored.outcome.table), _quality(casebase.outcome.table),
                                  check_exact=False, rtol=0, atol=1e-12)
