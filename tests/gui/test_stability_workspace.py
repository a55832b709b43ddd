"""The Measure stability workspace: form, Run on the worker, the tables, plots and matrices against the engine,
exports, the original's published output, bad input, Cancel, projects, responsiveness."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.cli.test_stability_cli import PUBLISHED_ACTUAL, PUBLISHED_AVERAGE_MATRIX, SYSTEMS
from tests.conftest import CONFORMANCE
from tests.gui.conftest import (RUN_TIMEOUT, SYNTHETIC, SYNTHETIC_RUNS, Heartbeat, load, load_synthetic, not_busy,
                                open_demo_and_wait, run_and_wait)
from tests.gui.test_layout import resize_and_wait

MEASURES = ("AP", "Average", "nDCG@Avg", "Average@10", "P@500_per")
TOTAL = 10_000


# ---------------------------------------------------------------------------- helpers
def write_ranks(folder: Path, systems: int = 5, entities: int = 40, seed: int = 1, name: str = "ranks.txt",
                top: int = TOTAL) -> Path:
    """A rank file of correlated systems (a shared latent log-rank, each system its own noise), some ties."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(4.5, 1.5, entities)
    ranks = np.clip(np.round(np.exp(latent[:, None] + rng.normal(0, 1, (entities, systems)) * rng.uniform(0.3, 1.2,
                                                                                                         systems))),
                    1, top)
    ranks = np.where(rng.random(ranks.shape) < 0.1, ranks + 0.5, ranks)
    lines = ["Generated\t" + "\t".join(f"S{s + 1}" for s in range(systems))]
    lines += [f"E{e + 1}\t" + "\t".join(f"{v:g}" for v in row) for e, row in enumerate(ranks)]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def ranks_file(tmp_path) -> Path:
    return write_ranks(tmp_path / "data")


@pytest.fixture
def testranks() -> Path:
    path = Path(os.environ.get("EVALGUI_CONFORMANCE", CONFORMANCE)) / "ranking_evaluation" / "testranks.txt"
    if not path.exists():
        pytest.skip(f"the Ranking Evaluation Tool's test data is not at {path} (set EVALGUI_CONFORMANCE)")
    return path


def _workspace(window):
    stability = window.workspaces["stability"]
    window.tabs.setCurrentWidget(stability)
    return stability


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def _set_form(stability, measures=None, **values):
    """Tick ``measures`` (exactly those) and fill in the form: spin boxes take numbers, line edits text, check
    boxes bools, combo boxes their data."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

    form = stability.form
    if measures is not None:
        form.picker.tick_only(measures)
    for name, value in values.items():
        widget = getattr(form, name)
        if isinstance(widget, QComboBox):
            _choose(widget, value)
        elif isinstance(widget, QLineEdit):
            widget.setText(value)
        elif isinstance(widget, QCheckBox):
            widget.setChecked(value)
        else:
            widget.setValue(value)


SMALL = dict(total_spin=TOTAL, splits_edit="2, 4", iterations_spin=6, bootstrap_spin=200, seed_spin=3)


def _run(qtbot, window, path, measures=MEASURES, timeout=RUN_TIMEOUT, **values):
    """Load the rank file, fill in the form (SMALL unless said otherwise), press Run and wait."""
    load(qtbot, window, [path])
    stability = _workspace(window)
    _set_form(stability, measures, **{**SMALL, **values})
    run_and_wait(qtbot, stability, timeout=timeout)
    assert stability.outcome is not None, stability.progress_label.text()
    return stability


def _engine(path, measures=MEASURES, **settings):
    """What evalgui-cli stability computes for the same settings (SMALL's, unless said otherwise)."""
    from evalgui.core.inputs import kind
    from evalgui.core.rankfile import experiment as X

    settings = {**dict(total_ranks=float(TOTAL), splits=(2, 4), iterations=6, bootstrap=200, seed=3,
                       error_rates=True), **settings}
    return X.run(X.plan(kind("rank file").read(str(path)), X.Settings(measures=tuple(measures), **settings)))


def _frame_equal(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False,
                                  check_exact=False, rtol=0, atol=1e-12)


def _show(stability, view):
    stability.results_tabs.setCurrentWidget(view.page)
    return view


def _save_as(monkeypatch, path, chosen_filter=""):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *args, **kwargs: (str(path),
                                                                                              chosen_filter)))


def _items(view, kind) -> list:
    return [i for i in view.plot.getPlotItem().items if isinstance(i, kind)]


def _labels(matrix) -> list[list[str]]:
    """A significance matrix of the engine as the workspace shows it (the diagonal blank)."""
    return [["" if label == "--" else label for label in row] for row in matrix.labels]


# ---------------------------------------------------------------------------- the form
def test_the_tab_its_measures_and_tooltips_come_from_the_registry(qtbot, window):
    from evalgui.core.rankfile import DEFAULT_MEASURES
    from evalgui.core.rankfile.compat import DESCRIPTIONS
    from evalgui.core.rankfile.measures import REGISTRY
    from evalgui.gui.workspaces.stability.picker import FORMS

    stability = _workspace(window)
    assert window.tabs.tabText(window.tabs.indexOf(stability)) == "Measure stability"
    form, picker = stability.form, stability.form.picker
    # every record of the rankfile family, with its description and formula as tooltip
    records = [i for i in picker._items() if i.parent().text(0) != FORMS]
    assert [i.data(0, Qt.ItemDataRole.UserRole) for i in records] == list(REGISTRY)
    for item in records:
        assert item.toolTip(0) == REGISTRY[item.data(0, Qt.ItemDataRole.UserRole)].help_text
    # the original's example set is ticked but for the measures that need T, the forms it needs added under
    # their own heading (those needing T unticked)
    assert sorted(picker.specs()) == sorted(set(DEFAULT_MEASURES) - {"AP_inter_per", "P@2000_per"})
    assert picker.custom_specs() == [("AP_inter_per", False), ("nDCG@Avg", True), ("Average@20", True),
                                     ("Average@Avg", True), ("Average@10", True), ("P@2000_per", False)]
    assert form.total_note.text().startswith("Not needed")
    # T is needed only by the per-mille measures ticked, and the form says so
    picker.set_original()
    assert "Needed by AP (interpolated) ‰, P@2000 ‰" in form.total_note.text()
    form.total_spin.setValue(100_000)
    assert form.total_note.text() == "Used by AP (interpolated) ‰, P@2000 ‰."
    picker.tick_only(["AP", "Average"])
    assert form.total_note.text().startswith("Not needed")
    # a form typed in the box is added as the engine names it, ticked; a wrong one is refused with the reason
    picker.custom.setText("average@5")
    picker.custom.returnPressed.emit()
    assert picker.specs() == ["AP", "Average", "Average@5"]
    picker.tree.setCurrentItem(next(i for i in picker._items() if i.text(0) == "Average@5"))
    assert "Average@5 is Average@k cut off at 5." in picker.help.toPlainText()
    assert REGISTRY["Average@k"].formula in picker.help.toPlainText()        # the record's help follows
    picker.custom.setText("Min@10")
    picker.custom.returnPressed.emit()
    assert "takes no cut-off" in picker.help.toPlainText() and picker.specs() == ["AP", "Average", "Average@5"]
    # each setting's label and tooltip are its declaration's (no command-line flag in the window)
    from evalgui.core.workflows.stability import StabilityRequest

    for widget, option in ((form.iterations_spin, "iterations"), (form.bootstrap_spin, "bootstrap"),
                           (form.error_check, "error_rates"), (form.swap_check, "swap"),
                           (form.total_spin, "total_ranks"), (form.cutoffs_edit, "cutoffs"),
                           (form.sigs_edit, "sigs"), (form.splits_edit, "splits"), (form.systems_edit, "systems"),
                           (form.entities_edit, "entities"), (form.seed_spin, "seed"), (form.threads_spin, "threads"),
                           (form.level_spin, "level"), (form.missing_spin, "missing_rank")):
        assert widget.toolTip().startswith(StabilityRequest.param(option).help.rstrip(".")), option
        assert not re.search(r"(^|\s|\()--?[a-z]", widget.toolTip()), widget.toolTip()
    assert form.error_check.text() == "Error and tie rates"
    # the compatibility switch says what it reproduces
    for description in DESCRIPTIONS.values():
        assert description in form.compat_check.toolTip()
    assert form.compat_check.text() == "Reproduce the published tool's output"
    # the source: a rank file, or ranks from qrels and runs with the not-retrieved rank (default retrieved + 1)
    assert form.source() == "rank file" and form.pages.currentIndex() == 0
    _choose(form.source_combo, "trec")
    assert form.pages.currentIndex() == 1 and form.missing_spin.text() == "retrieved + 1"
    assert window.isWindowModified()                   # a changed setting is something to save
    # without the experiments, only the values on all entities: their settings are off
    form.experiments_check.setChecked(False)
    assert not form.iterations_spin.isEnabled() and not form.splits_edit.isEnabled()


def test_a_rank_file_loads_through_the_data_dock_and_is_offered(qtbot, window, ranks_file, tmp_path):
    other = write_ranks(tmp_path / "more", systems=3, entities=12, name="other.txt")
    load(qtbot, window, [ranks_file, other])
    assert [(i.kind, i.name) for i in window.session.items] == [("rank file", "ranks.txt"), ("rank file", "other.txt")]
    dock = window.data_panel.tree
    assert dock.topLevelItem(0).text(2) == "rank file" and dock.topLevelItem(0).text(3) == "5 systems, 40 entities"
    form = _workspace(window).form
    combo = form.rank_file_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["ranks.txt", "other.txt"]
    assert combo.currentText() == "ranks.txt" and "Generated: 5 systems, 40 entities" in form.rank_file_note.text()
    _choose(combo, str(other))
    assert form.rank_file_path == str(other) and "3 systems, 12 entities" in form.rank_file_note.text()
    window.session.remove(str(ranks_file))             # the choice survives the session changing
    assert form.rank_file_path == str(other) and combo.count() == 1 and combo.currentText() == "other.txt"
    window.session.remove(str(other))
    assert combo.count() == 0 and "No rank file loaded" in form.rank_file_note.text()


# ---------------------------------------------------------------------------- results against the engine
def test_every_view_equals_the_engine(qtbot, window, ranks_file):
    stability = _run(qtbot, window, ranks_file)
    expected = _engine(ranks_file)
    outcome = stability.outcome
    _frame_equal(outcome.actual, expected.actual)
    _frame_equal(outcome.evaluation, expected.evaluation)
    _frame_equal(outcome.significance, expected.significance_table())
    assert outcome.systems == ["S1", "S2", "S3", "S4", "S5"] and outcome.measures == list(MEASURES)
    assert stability.progress.value() == stability.progress.maximum()

    # the actual values: measure x system, an undefined one empty
    actual = stability.actual
    _frame_equal(actual.model.frame, expected.actual)
    assert actual.model.display_text(0, 1) == f"{expected.actual.iloc[0, 1]:.4f}"
    assert "lower is better for Average, Average@10" in actual.report.text()

    # the evaluation table: every row, then filtered by measure, fuzziness and combination
    view = _show(stability, stability.evaluation)
    _frame_equal(view.model.frame, expected.evaluation)
    assert "6 iterations, B = 200, 2 combination(s), seed 3" in view.report.text()
    _choose(view.measure, "Average")
    _choose(view.level, 0.05)
    rows = expected.evaluation[(expected.evaluation.method == "Average") & (expected.evaluation.fuzziness == 0.05)]
    _frame_equal(view.model.frame, rows)
    _choose(view.combination, "4,5,40")
    _frame_equal(view.model.frame, rows[rows.splitCount == 4])
    view.view.sortByColumn(list(rows.columns).index("errRate"), Qt.SortOrder.DescendingOrder)
    _choose(view.measure, "")
    _choose(view.level, "")
    table = expected.evaluation[expected.evaluation.splitCount == 4]
    from evalgui.gui.tables import visible_frame
    _frame_equal(visible_frame(view.view), table.sort_values("errRate", ascending=False, kind="stable"))

    # error rate against tie rate: one labelled point per measure, at the chosen fuzziness and combination
    view = _show(stability, stability.tradeoff)
    assert view.level.currentData() == 0.05 and view.combination.currentData() == "4,5,40"
    for level, combination in ((0.05, "4,5,40"), (0.15, "2,5,40")):
        _choose(view.level, level)
        _choose(view.combination, combination)
        rows = expected.evaluation[(expected.evaluation.fuzziness == level)
                                   & (expected.evaluation.splitCount == int(combination[0]))]
        spots = view.points.points()
        assert [s.data() for s in spots] == list(MEASURES)
        assert [label.full_text for label in view.labels] == list(MEASURES)    # (shortened if they don't fit)
        assert [(s.pos().x(), s.pos().y()) for s in spots] == list(zip(rows.tieRate, rows.errRate))
    assert len(_items(view, pg.ErrorBarItem)) == 1
    # the labels read (at the screenshots' size): none over another, all inside the plot
    resize_and_wait(qtbot, window, 1360, 860)
    view.draw()

    def labels_placed():
        view.plot.grab()                                       # labels keep their pixel size: placed when drawn
        if any(label.toPlainText() != label.full_text or not label.isVisible() for label in view.labels):
            return False                                       # room for every name whole
        boxes = [label.sceneBoundingRect().adjusted(1, 1, -1, -1) for label in view.labels]    # touching is fine
        inside = view.plot.getPlotItem().vb.sceneBoundingRect().adjusted(-2, -2, 2, 2)
        return all(inside.contains(box) for box in boxes) and \
            not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]
    qtbot.waitUntil(labels_placed, timeout=5000)
    # the combination's box shows it whole
    text = view.combination.currentText()
    assert view.combination.width() > view.combination.fontMetrics().horizontalAdvance(text) + 20

    # error rate against the number of queries: one curve per measure through both splits
    view = _show(stability, stability.splits)
    assert list(view.curves) == list(MEASURES) and len(_items(view, pg.PlotDataItem)) == len(MEASURES)
    for measure in MEASURES:
        rows = expected.evaluation[(expected.evaluation.method == measure) & (expected.evaluation.fuzziness == 0.05)]
        x, y = view.curve_points(measure)
        assert list(x) == [2, 4] and list(y) == list(rows.errRate)
    low, high = view.plot.getPlotItem().vb.viewRange()[0]
    assert low < 2 and high > 4 + 0.4 * 2                      # room right of the curves for the legend
    _choose(view.rate, "asl")
    rows = expected.evaluation[(expected.evaluation.method == "AP") & (expected.evaluation.fuzziness == 0.05)]
    assert list(view.curve_points("AP")[1]) == list(rows.asl)
    assert "ASL rate" in view.plot.getPlotItem().getAxis("left").labelText

    # the significance matrices: the engine's labels, per measure and combination, coloured by the levels won
    view = _show(stability, stability.significance)
    for matrix in expected.matrices:
        _choose(view.measure, matrix.method.id)
        _choose(view.combination, f"{matrix.combination.splits},5,40")
        labels = _labels(matrix)
        assert [[view.model.display_text(i, j) for j in range(5)] for i in range(5)] == labels
        assert sorted(view.heatmap.value_labels()) == sorted(label for row in labels for label in row if label)
        for i in range(5):
            for j in range(5):
                won = view.model.value(i, j)
                assert won == (None if not labels[i][j] else 5 - ["***", "**", "*", ".", ","].index(labels[i][j]))
    assert any(label for m in expected.matrices for row in m.labels for label in row if label not in ("", "--"))
    ticks = view.heatmap.colour_bar.axis._tickLevels[0]
    assert ticks[0] == (5.0, "*** 0.005") and ticks[-1] == (0.0, "none")
    assert "Sakai's bootstrap estimate" in view.caption.text() and "*** 0.005" in view.caption.text()


def test_exports_read_back(qtbot, window, ranks_file, tmp_path, monkeypatch):
    stability = _run(qtbot, window, ranks_file, measures=("AP", "Average", "Average@10"))
    expected = _engine(ranks_file, measures=("AP", "Average", "Average@10"))
    targets = dict(stability.export_targets())
    assert list(targets) == ["Evaluation table…", "Actual values table…", "Error rate vs tie rate plot…",
                             "Rate vs number of queries plot…", "Significance heatmap…",
                             "Significance matrix table…", "Every significance matrix…"]
    _save_as(monkeypatch, tmp_path / "actual.csv")
    targets["Actual values table…"]()
    back = pd.read_csv(tmp_path / "actual.csv")
    from evalgui.gui.tables import as_shown

    _frame_equal(back, as_shown(expected.actual, "json"))        # the window's headers and words
    assert back["S1"].isna().sum() == expected.actual["S1"].isna().sum()         # empty, not 0
    _save_as(monkeypatch, tmp_path / "eval.csv")
    targets["Evaluation table…"]()
    _frame_equal(pd.read_csv(tmp_path / "eval.csv"), as_shown(expected.evaluation, "json"))
    for ext, marker in ((".tex", "\\begin{tabular}"), (".md", "| Measure")):
        for label in ("Evaluation table…", "Actual values table…"):
            _save_as(monkeypatch, tmp_path / f"table{ext}")
            targets[label]()
            text = (tmp_path / f"table{ext}").read_text()
            assert marker in text, (label, ext)
            assert "Average@10" in text
    _save_as(monkeypatch, tmp_path / "all_matrices.csv")
    targets["Every significance matrix…"]()
    back = pd.read_csv(tmp_path / "all_matrices.csv", keep_default_na=False)
    from evalgui.gui.workspaces.stability.significance import SIGNIFICANCE_HEADERS

    _frame_equal(back.astype(str), as_shown(expected.significance_table(), "json", SIGNIFICANCE_HEADERS).astype(str))
    view = _show(stability, stability.significance)
    _choose(view.measure, "Average")
    _save_as(monkeypatch, tmp_path / "matrix.md")
    targets["Significance matrix table…"]()
    matrix = next(m for m in expected.matrices if m.method.id == "Average" and m.combination.splits == 2)
    text = (tmp_path / "matrix.md").read_text()
    from evalgui.core.export import markdown_escape    # Markdown escapes what renders ("***" is \*\*\*)

    assert "| Systems" in text and all(markdown_escape(label) in text for row in _labels(matrix) for label in row
                                       if label)
    for label in ("Error rate vs tie rate plot…", "Rate vs number of queries plot…", "Significance heatmap…"):
        for ext in (".png", ".svg"):
            path = tmp_path / f"{label[:10].replace(' ', '_')}{ext}"
            _save_as(monkeypatch, path)
            targets[label]()
            assert path.stat().st_size > 1000, path


def test_processes_give_the_same_numbers(qtbot, window, ranks_file, monkeypatch):
    """Processes started from the worker thread (spawned): the same seed, the same numbers as one process."""
    from evalgui.core.rankfile import experiment

    monkeypatch.setattr(experiment, "WORK_PER_PROCESS", 1)      # small work: processes all the same
    stability = _run(qtbot, window, ranks_file, threads_spin=2, timeout=120_000)
    expected = _engine(ranks_file, threads=1)
    _frame_equal(stability.outcome.evaluation, expected.evaluation)
    _frame_equal(stability.outcome.significance, expected.significance_table())


def test_the_published_output_with_compat(qtbot, window, testranks):
    """--compat dunaiski2018 in the window gives actualresults.png and sigresults.png."""
    stability = _run(qtbot, window, testranks, measures=tuple(PUBLISHED_ACTUAL), total_spin=100_000,
                     splits_edit="2", iterations_spin=50, bootstrap_spin=1000, seed_spin=42, compat_check=True)
    actual = stability.outcome.actual.set_index("measure")
    for measure, published in PUBLISHED_ACTUAL.items():
        for system, value in zip(SYSTEMS, published):
            shown = actual.loc[measure, system]
            assert pd.isna(shown) if value is None else round(shown, 4) == pytest.approx(value, abs=1e-9)
    view = _show(stability, stability.significance)
    _choose(view.measure, "Average")
    assert [[view.model.display_text(i, j) for j in range(5)] for i in range(5)] == \
        [["" if label == "--" else label for label in row] for row in PUBLISHED_AVERAGE_MATRIX]
    assert "the swap method's smallest difference" in view.caption.text()        # bug 4: the other estimate
    _choose(view.measure, "Average@20")
    assert not view.heatmap.value_labels() and "never gets a mark" in view.caption.text()
    assert "with 2 queries the bootstrap is degenerate" in stability.evaluation.report.text().lower()
    # and without the switch only the per-mille rows differ
    _set_form(stability, compat_check=False, experiments_check=False)
    compat = actual.copy()
    run_and_wait(qtbot, stability)
    fixed = stability.outcome.actual.set_index("measure")
    assert [m for m in fixed.index if not fixed.loc[m].equals(compat.loc[m])] == ["AP_inter_per", "P@2000_per"]
    assert stability.outcome.evaluation is None and "were not evaluated" in stability.evaluation.report.text()


def test_ranks_from_qrels_and_runs(qtbot, window):
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.rankfile import experiment as X
    from evalgui.core.rankfile.ranks import ranks_from_trec

    load_synthetic(qtbot, window)
    stability = _workspace(window)
    _set_form(stability, ("AP", "Average", "Median@100"), source_combo="trec", missing_spin=1000,
              splits_edit="5", iterations_spin=4, bootstrap_spin=100, level_spin=2)
    assert stability.form.data.checked_run_paths() == [str(SYNTHETIC / f"{r}.run") for r in SYNTHETIC_RUNS]
    run_and_wait(qtbot, stability)
    outcome = stability.outcome
    assert outcome is not None, stability.progress_label.text()
    ranks = ranks_from_trec(read_qrels(SYNTHETIC / "qrels.txt"), [read_run(SYNTHETIC / f"{r}.run")
                                                                   for r in SYNTHETIC_RUNS],
                            relevance_level=2, missing_rank=1000)
    expected = X.run(X.plan(ranks, X.Settings(measures=("AP", "Average", "Median@100"), splits=(5,), iterations=4,
                                              bootstrap=100, seed=42, error_rates=True)))
    assert outcome.systems == list(SYNTHETIC_RUNS) and outcome.entities == len(ranks.entities)
    _frame_equal(outcome.actual, expected.actual)
    _frame_equal(outcome.evaluation, expected.evaluation)
    assert outcome.source == f"qrels.txt, {len(SYNTHETIC_RUNS)} runs"
    # with the runs' own depth as the rank of what they miss, AP saturates: the report says so
    _set_form(stability, ("AP", "Average"), missing_spin=0, level_spin=1)
    run_and_wait(qtbot, stability)
    assert "AP gives every system the same value on all the entities" in stability.evaluation.report.text()
    assert (stability.outcome.actual.iloc[0, 1:] == 1.0).all()


# ---------------------------------------------------------------------------- bad input
def test_bad_input_gives_a_dialog_and_keeps_the_previous_results(qtbot, window, ranks_file):
    stability = _workspace(window)
    form = stability.form

    def refused(reason):
        with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
            qtbot.mouseClick(stability.run_button, Qt.MouseButton.LeftButton)
        assert reason in blocker.args[1], blocker.args
        assert "Traceback" not in blocker.args[1]
        qtbot.waitUntil(lambda: not stability.is_busy())
        window.last_error_dialog.close()

    refused("Load a rank file first")
    stability = _run(qtbot, window, ranks_file, measures=("AP", "Average"))
    before = stability.outcome.evaluation.copy()

    def still_shown():
        pd.testing.assert_frame_equal(stability.outcome.evaluation, before)
        pd.testing.assert_frame_equal(stability.evaluation.model.frame, before)

    form.picker.tick_only(["AP", "P@500_per", "ROC_AUC"])
    form.total_spin.setValue(0)
    refused("Total ranks T: ROC_AUC and P@500_per need the total number of ranked entities")
    still_shown()
    form.picker.tick_only(["AP", "Average@k"])
    refused("Cut-offs k: Average@k: give the cut-offs")
    form.cutoffs_edit.setText("10, x")
    refused("Cut-offs: 'x' is not a number; type numbers separated by commas")
    form.cutoffs_edit.setText("10, 100")
    form.splits_edit.setText("50")
    refused("Queries (splits): 40 entities cannot be split into 50 queries; choose 40 or fewer")
    form.splits_edit.setText("2")
    form.sigs_edit.setText("0.05, 1.5")
    refused("between 0 and 1")
    form.sigs_edit.setText("")
    form.systems_edit.setText("9")
    refused("Systems drawn: the ranks hold 5 systems: choose from 2 to 5")
    form.picker.tick_only([])
    refused("Tick at least one measure")
    still_shown()
    assert stability.progress.value() == stability.progress.maximum()        # the last run's, untouched
    # ranks from TREC data: no document relevant at that level, found on the worker
    load_synthetic(qtbot, window)
    _set_form(stability, ("AP",), source_combo="trec", level_spin=50, systems_edit="")
    refused("no document is judged relevant at level 50")
    assert "Failed" in stability.progress_label.text() and stability.progress.value() == 0
    still_shown()
    _set_form(stability, source_combo="trec", level_spin=1)
    for i in range(1, 4):
        form.data.run_list.item(i).setCheckState(Qt.CheckState.Unchecked)
    refused("tick at least two runs")


def test_a_bad_rank_file_gives_a_dialog_naming_the_line(qtbot, window, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("Exp\tA\tB\ne1\t1\t2\ne2\t3\n")
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        window.load_files([(str(bad), "rank file")])
    assert f"{bad}, line 3: expected 3 tab-separated fields" in blocker.args[1]
    assert "Traceback" not in blocker.args[1] and not window.session.items
    window.last_error_dialog.close()
    bad.write_text("Exp\tA\tB\ne1\t1\t2\ne2\t0.5\t2\n")
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        window.load_files([(str(bad), None)])                   # detected as a rank file, then refused
    assert f"{bad}, line 3: the rank 0.5 of system A is below 1" in blocker.args[1]
    window.last_error_dialog.close()


# ---------------------------------------------------------------------------- cancel
def test_cancel_a_long_run_keeps_the_earlier_results(qtbot, window, tmp_path):
    big = write_ranks(tmp_path / "big", systems=12, entities=600, seed=5)
    stability = _run(qtbot, window, big, measures=("AP", "Average"), splits_edit="5", iterations_spin=2)
    before = stability.outcome.evaluation.copy()
    _set_form(stability, MEASURES, splits_edit="5, 6, 8, 10, 12, 15, 20, 30", iterations_spin=40,
              bootstrap_spin=500)
    with qtbot.waitSignal(stability.busy_changed, timeout=5000):
        qtbot.mouseClick(stability.run_button, Qt.MouseButton.LeftButton)
    # progress per combination
    qtbot.waitUntil(lambda: "Combination 1 of 8: 5 queries, 12 systems, 600 entities" in
                    stability.progress_label.text(), timeout=120_000)
    assert 0 < stability.progress.value() < stability.progress.maximum()
    assert stability.cancel_button.isEnabled() and not stability.run_button.isEnabled()
    with qtbot.waitSignal(stability.busy_changed, check_params_cb=not_busy, timeout=30_000):
        start = time.perf_counter()
        qtbot.mouseClick(stability.cancel_button, Qt.MouseButton.LeftButton)
    print(f"cancel latency: {1000 * (time.perf_counter() - start):.0f} ms")
    pd.testing.assert_frame_equal(stability.outcome.evaluation, before)
    pd.testing.assert_frame_equal(stability.evaluation.model.frame, before)
    assert stability.progress.value() == 0
    assert "Cancelled" in stability.progress_label.text() and "previous results" in stability.progress_label.text()
    assert stability.run_button.isEnabled() and not stability.cancel_button.isEnabled()


# ---------------------------------------------------------------------------- projects
def test_project_round_trip_restores_the_form_and_the_views(qtbot, make_window, tmp_path):
    path = write_ranks(tmp_path / "data")
    first = make_window()
    stability = _run(qtbot, first, path, measures=("AP", "Average", "Average@k", "P@500_per"), cutoffs_edit="10, 50",
                     sigs_edit="0.01, 0.05", systems_edit="3, 5", swap_check=True, threads_spin=2)
    assert first.isWindowModified() and stability.has_results()
    _choose(stability.significance.measure, "Average@k_50")
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))
    # the project holds the workflow's request and outcome: evalgui-cli run re-runs it to the same numbers
    from evalgui.cli import main
    from evalgui.core.workflows.project import open_project

    opened = open_project(str(project))
    assert opened.requests["stability"] == stability.outcome.request and "stability" in opened.outcomes
    assert main(["run", str(project), "-o", str(tmp_path / "out"), "--check", "--no-plots"]) == 0

    second = make_window()
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(project))
    qtbot.waitUntil(lambda: not second._loaders, timeout=20_000)
    restored = second.workspaces["stability"]
    assert second.tabs.currentWidget() is restored             # the tab with results is shown
    assert not second.isWindowModified()
    assert restored.form_state() == stability.form_state()
    form = restored.form
    assert form.rank_file_path == str(path) and form.picker.specs() == ["AP", "Average", "Average@k", "P@500_per"]
    assert (form.cutoffs_edit.text(), form.systems_edit.text(), form.threads_spin.value()) == ("10, 50", "3, 5", 2)
    assert form.swap_check.isChecked() and not form.compat_check.isChecked()
    saved, shown = stability.outcome, restored.outcome
    assert shown.settings == saved.settings and shown.systems == saved.systems and shown.methods == saved.methods
    for name in ("actual", "evaluation", "significance"):
        pd.testing.assert_frame_equal(getattr(shown, name), getattr(saved, name), check_dtype=False)
    assert restored.evaluation.report.text() == stability.evaluation.report.text()
    assert [s.data() for s in _show(restored, restored.tradeoff).points.points()] == saved.measures
    view = _show(restored, restored.significance)
    _choose(view.measure, "Average@k_50")
    assert "the swap method's smallest difference" in view.caption.text()    # -w: the swap method decides
    assert "restored" in restored.progress_label.text()


def test_outcomes_survive_json_with_missing_and_infinite_values(ranks_file):
    """What results_state writes goes through JSON (NaN, ±inf) and comes back with the same numbers."""
    from evalgui.core.inputs import kind
    from evalgui.core.jobs import JobState
    from evalgui.core.rankfile.compat import preset
    from evalgui.core.rankfile.experiment import Settings
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.stability import StabilityRequest
    from evalgui.gui.workspaces.stability.results import outcome_from_state, outcome_state, stability_job

    settings = Settings(measures=("Average@5", "AP"), splits=(2,), iterations=3, bootstrap=50,
                        compat=preset("dunaiski2018"), total_ranks=5000.0)
    ranks = kind("rank file").read(str(ranks_file))
    ranks.ranks[:, 0] += 10                                   # S1 ranks nothing within 5
    request = StabilityRequest(rank_file="ranks.txt", measures=("Average@5", "AP"), splits=(2,), iterations=3,
                               bootstrap=50, compat="dunaiski2018", total_ranks=5000.0)
    outcome = stability_job(request, Inputs({"ranks.txt": ranks}))(JobState())
    assert outcome.settings == settings
    assert outcome.actual.S1.isna().any()
    back = outcome_from_state(json.loads(json.dumps(outcome_state(outcome))))
    assert back.settings == settings and back.methods == outcome.methods and back.warnings == outcome.warnings
    for name in ("actual", "evaluation", "significance"):
        pd.testing.assert_frame_equal(getattr(back, name), getattr(outcome, name), check_dtype=False)
    assert outcome_from_state({"settings": {}}) is None


# ---------------------------------------------------------------------------- without -e, one split
def test_the_plots_say_what_they_need(qtbot, window, ranks_file):
    stability = _run(qtbot, window, ranks_file, measures=("AP", "Average"), error_check=False, splits_edit="4")
    assert stability.outcome.evaluation.errRate.isna().all()
    view = _show(stability, stability.tradeoff)
    assert len(view.points.points()) == 0 and "tick “Error and tie rates”" in view.caption.text()
    view = _show(stability, stability.splits)
    assert not view.curves and "Error and tie rates" in view.caption.text()
    _choose(view.rate, "asl")
    assert list(view.curves) == ["AP", "Average"] and "Only one number of queries" in view.caption.text()


# ---------------------------------------------------------------------------- layout
def test_at_the_windows_minimum_size_nothing_overlaps(qtbot, window, ranks_file):
    from PySide6.QtWidgets import QScrollArea

    from tests.gui.test_layout import fully_visible, rect_in

    stability = _run(qtbot, window, ranks_file)
    _show(stability, stability.tradeoff)
    resize_and_wait(qtbot, window, window.minimumWidth(), window.minimumHeight())
    assert window.minimumSizeHint().width() <= window.minimumWidth()      # this tab does not widen the window
    form = rect_in(window, stability.form_column.findChild(QScrollArea))
    controls = rect_in(window, stability.run_button.parentWidget())
    results = rect_in(window, stability.results_tabs)
    assert not form.intersects(controls) and not form.intersects(results) and not controls.intersects(results)
    for part in (form, controls, results):
        assert window.rect().contains(part)
    assert fully_visible(stability.run_button) and fully_visible(stability.cancel_button)
    assert fully_visible(stability.tradeoff.level)         # the plot's controls scroll sideways, uncovered
    assert rect_in(window, stability.tradeoff.plot).height() > 150
    # the point labels, placed again for the smaller plot, still overlap nothing
    view = stability.tradeoff
    resize_and_wait(qtbot, window, 1360, 860)
    qtbot.waitUntil(lambda: view.plot.getPlotItem().vb.boundingRect().width() > 450)
    _choose(view.level, 0.15)
    _choose(view.combination, "2,5,40")                        # three points close together, placed for 1360
    resize_and_wait(qtbot, window, window.minimumWidth(), window.minimumHeight())

    def apart():
        view.plot.grab()                                       # labels keep their pixel size: placed when drawn
        boxes = [label.sceneBoundingRect().adjusted(1, 1, -1, -1) for label in view.labels if label.isVisible()]
        return not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.intersects(b)]    # touching: fine
    qtbot.waitUntil(lambda: view.plot.getPlotItem().vb.boundingRect().width() < 350)    # laid out small
    qtbot.waitUntil(apart, timeout=5000)
    # (issue 25.5: a window 480 high leaves too little room for every name: those that do not fit are shortened
    # or left out, the caption says so, and the point's tooltip and the label's keep the whole name)
    shown = [label for label in view.labels if label.isVisible()]
    assert shown and all(label.full_text.startswith(label.toPlainText().rstrip("…")) for label in shown)
    if len(shown) < len(view.labels) or any(label.toPlainText() != label.full_text for label in shown):
        assert "hover over a point" in view.caption.text()
    assert [label.toolTip() for label in view.labels] == [label.full_text for label in view.labels]
    resize_and_wait(qtbot, window, 1360, 860)                  # room again: every name whole
    qtbot.waitUntil(lambda: all(label.isVisible() and label.toPlainText() == label.full_text for label in view.labels))
    qtbot.waitUntil(apart, timeout=5000)
    assert "hover over a point" not in view.caption.text()


# ---------------------------------------------------------------------------- responsiveness
def test_heartbeat_keeps_firing_while_the_experiments_run(qtbot, window, tmp_path):
    big = write_ranks(tmp_path / "big", systems=20, entities=200, seed=8)
    load(qtbot, window, [big])
    stability = _workspace(window)
    _set_form(stability, MEASURES, total_spin=TOTAL, splits_edit="5, 10", iterations_spin=10, bootstrap_spin=500)
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        with qtbot.waitSignal(stability.busy_changed, check_params_cb=not_busy, timeout=120_000):
            start = time.perf_counter()
            qtbot.mouseClick(stability.run_button, Qt.MouseButton.LeftButton)
        stability.results_tabs.setCurrentWidget(stability.significance.page)     # drawn when shown: 20 x 20
        stability.results_tabs.setCurrentWidget(stability.tradeoff.page)
        end = time.perf_counter()
    assert stability.outcome is not None and len(stability.outcome.systems) == 20     # it ran to the end
    assert stability.significance.model.frame.shape == (20, 20)
    assert end - start > 0.2                                   # long enough to mean something
    print(heartbeat.check(start, end))


def test_the_defaults_run_on_ranks_from_qrels_and_runs(qtbot, window):
    """The measures ticked at the start need no T (unknown for ranks from qrels and runs); the original tool's
    per-mille ones stay one click away."""
    from evalgui.core.rankfile import DEFAULT_MEASURES

    open_demo_and_wait(qtbot, window)
    stability = _workspace(window)
    form = stability.form
    assert "color:#b00020" not in form.total_note.text()        # no warning before the user did anything
    errors = []
    stability.error.connect(lambda title, text: errors.append((title, text)))
    _choose(form.source_combo, "trec")
    # (fewer iterations than the default, for time: the measures are what is tested)
    _set_form(stability, iterations_spin=5, bootstrap_spin=100)
    run_and_wait(qtbot, stability)
    assert not errors and stability.outcome is not None, stability.progress_label.text()
    assert set(stability.outcome.measures) == {"nDCG@Avg", "Average", "Median", "Average@20", "AP", "Average@Avg",
                                               "Average@10"}
    # the original's set, per-mille measures included, from the note's link; then T is asked for
    assert [spec for spec, on in form.picker.custom_specs() if not on] == ["AP_inter_per", "P@2000_per"]
    form.total_note.linkActivated.emit("original")
    assert sorted(form.picker.specs()) == sorted(DEFAULT_MEASURES)
    assert "Needed by AP (interpolated) ‰, P@2000 ‰" in form.total_note.text()
    form.total_spin.setValue(100_000)
    assert form.total_note.text() == "Used by AP (interpolated) ‰, P@2000 ‰."
