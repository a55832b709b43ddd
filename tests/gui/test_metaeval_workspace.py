"""The Meta-evaluation workspace: form, Run on the worker, each experiment's table and plots, exports,
bad input, Cancel, projects, responsiveness."""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np
import pandas as pd
import pytest
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.conftest import CANCEL_PROMPTLY
from tests.gui.conftest import (SYNTHETIC, SYNTHETIC_RUNS, Heartbeat, copy_synthetic, load, load_synthetic, not_busy,
                                open_in_new_window, run_and_wait)

MEASURES = {"map": "", "P": "10", "recip_rank": ""}       # picker ticks
OUTPUTS = ["map", "recip_rank", "P_10"]                   # what the results call them, in the picker's order


# ---------------------------------------------------------------------------- helpers
def _workspace(window):
    metaeval = window.workspaces["metaeval"]
    window.tabs.setCurrentWidget(metaeval)
    return metaeval


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def _engine(settings, specs=("map", "recip_rank", "P.10"), runs=SYNTHETIC_RUNS, **options):
    """The experiment as the engine computes it from the sample files (what evalgui-cli metaeval prints)."""
    from evalgui.core.workflows.metaeval import request_of_settings, run_metaeval

    request = request_of_settings(settings, qrels=str(SYNTHETIC / "qrels.txt"),
                                  runs=[str(SYNTHETIC / f"{r}.run") for r in runs], measures=list(specs),
                                  level=options.get("relevance_level", 1), complete=options.get("complete", False))
    return run_metaeval(request).result


def _frame_equal(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True),
                                  check_dtype=False, check_exact=False, rtol=0, atol=1e-12)


def _set_form(metaeval, experiment, **values):
    """Choose the experiment and fill in its widgets: spin boxes take numbers, line edits text, check boxes bools,
    combo boxes their data."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

    form = metaeval.form
    _choose(form.experiment_combo, experiment)
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


def _run(qtbot, window, experiment, measures=MEASURES, **values):
    """Load the sample files, tick the measures, fill in the experiment's settings, press Run and wait."""
    load_synthetic(qtbot, window)
    metaeval = _workspace(window)
    metaeval.form.picker.set_checked(measures)
    _set_form(metaeval, experiment, **values)
    run_and_wait(qtbot, metaeval)
    assert metaeval.outcome is not None, metaeval.progress_label.text()
    return metaeval


def _show(metaeval, view):
    metaeval.results_tabs.setCurrentWidget(view.page)
    return view


def _visible_tabs(metaeval) -> list[str]:
    tabs = metaeval.results_tabs
    return [tabs.tabText(i) for i in range(tabs.count()) if tabs.isTabVisible(i)]


def _save_as(monkeypatch, path, chosen_filter=""):
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(path), chosen_filter)))


def _export_plots(monkeypatch, tmp_path, targets, labels):
    for label in labels:
        for ext in (".png", ".svg"):
            path = tmp_path / f"{label.strip('…').replace(' ', '_').replace('/', '_')}{ext}"
            _save_as(monkeypatch, path)
            targets[label]()
            assert path.stat().st_size > 1000, path


def _items(view, kind) -> list:
    return [i for i in view.plot.getPlotItem().items if isinstance(i, kind)]


# ---------------------------------------------------------------------------- the form
def test_the_tab_its_experiments_and_tooltips_come_from_the_registries(qtbot, window):
    from evalgui.core.metaeval.catalogue import EXPERIMENTS
    from evalgui.core.stats.catalogue import CORRECTIONS, DEFAULT_SAMPLES, TESTS

    metaeval = _workspace(window)
    assert window.tabs.tabText(window.tabs.indexOf(metaeval)) == "Meta-evaluation"
    form = metaeval.form
    combo = form.experiment_combo
    assert [combo.itemData(i) for i in range(combo.count())] == list(EXPERIMENTS)
    for i in range(combo.count()):
        assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == EXPERIMENTS[combo.itemData(i)].help_text
    # each setting's tooltip is its declaration's help, its default the declaration's
    from evalgui.core.workflows.metaeval import MetaevalRequest

    for widget, name in ((form.fuzziness_spin, "fuzziness"), (form.set_sizes_edit, "set_sizes"),
                         (form.sets_spin, "sets"), (form.replacement_check, "replacement"),
                         (form.alpha_spin, "alpha"), (form.fractions_edit, "fractions"), (form.seed_spin, "seed"),
                         (form.level_spin, "level"), (form.fill_check, "complete")):
        declared = MetaevalRequest.param(name)
        assert widget.toolTip().startswith(declared.help), (name, widget.toolTip())
        assert form.bindings[name].value() == (list(declared.default) if isinstance(declared.default, tuple)
                                               else declared.default), name
    assert "stability 5, robustness 10" in form.stability_repetitions_spin.toolTip()
    assert form.stability_repetitions_spin.value() == 5 and form.robustness_repetitions_spin.value() == 10
    assert not window.isWindowModified()
    # one page of settings per experiment; the seed only where something is drawn at random
    for name, page in zip(EXPERIMENTS, range(4)):
        _choose(combo, name)
        assert form.pages.currentIndex() == page and combo.toolTip() == EXPERIMENTS[name].help_text
    assert window.isWindowModified()                    # a changed setting is something to save
    assert not form.seed_spin.isEnabled()               # agreement
    _choose(combo, "power")
    assert form.test_combo.currentData() == "bootstrap" and form.correction_combo.currentData() == "none"  # Sakai's
    for i in range(form.test_combo.count()):
        assert form.test_combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == TESTS[form.test_combo.itemData(i)].help_text
    _choose(form.correction_combo, "holm")
    assert form.correction_combo.toolTip() == CORRECTIONS["holm"].help_text
    _choose(form.test_combo, "t")
    assert not form.samples_spin.isEnabled() and not form.seed_spin.isEnabled()
    _choose(form.test_combo, "randomization")
    assert form.samples_spin.value() == DEFAULT_SAMPLES["randomization"] and form.seed_spin.isEnabled()
    assert f"{DEFAULT_SAMPLES['randomization']:,}" in form.samples_spin.toolTip()
    _choose(form.test_combo, "tukey")
    assert not form.correction_combo.isEnabled() and "Tukey" in form.correction_combo.toolTip()
    assert form.fill_check.toolTip() and form.level_spin.toolTip()
    assert _visible_tabs(metaeval) == ["Table"]          # no results yet: no plot tabs


# ---------------------------------------------------------------------------- stability
def test_stability_equals_the_engine_with_its_points_curves_and_matrix(qtbot, window, tmp_path, monkeypatch):
    from evalgui.core.metaeval.experiments import StabilitySettings

    metaeval = _run(qtbot, window, "stability", set_sizes_edit="5, 10, 20", sets_spin=300, fuzziness_spin=0.1,
                    stability_repetitions_spin=3, seed_spin=7)
    expected = _engine(StabilitySettings(set_sizes=(5, 10, 20), sets=300, fuzziness=0.1, repetitions=3, seed=7))
    result = metaeval.outcome.result
    _frame_equal(result.table, expected.table)
    _frame_equal(metaeval.table.model.frame, expected.table)           # the table shows exactly that
    for measure in OUTPUTS:
        assert np.array_equal(result.counts[measure], expected.counts[measure])
    assert _visible_tabs(metaeval) == ["Table", "Error vs ties", "Rates vs set size", "Better / worse / equal"]
    assert "300 query sets of 5, 10, 20 queries" in metaeval.table.report.text()
    assert metaeval.progress.value() == metaeval.progress.maximum()

    # error vs ties: one labelled point per measure, at the largest set size unless another is chosen
    view = _show(metaeval, metaeval.tradeoff)
    assert view.set_size.currentData() == 20
    for size in (20, 5):
        _choose(view.set_size, size)
        rows = expected.table[expected.table["set_size"] == size]
        spots = view.points.points()
        # the points keep the machine names, their labels are as papers name the measures
        assert [s.data() for s in spots] == OUTPUTS
        assert [label.toPlainText() for label in view.labels] == ["AP", "RR", "P@10"]
        assert [(s.pos().x(), s.pos().y()) for s in spots] == list(zip(rows["tie_rate"], rows["error_rate"]))
        assert [label.pos().x() for label in view.labels] == list(rows["tie_rate"])

    # error rate against the set size: one curve per measure
    view = _show(metaeval, metaeval.set_size)
    assert list(view.curves) == OUTPUTS and len(_items(view, pg.PlotDataItem)) == 3
    for measure in OUTPUTS:
        rows = expected.table[expected.table["measure"] == measure]
        x, y = view.curve_points(measure)
        assert list(x) == [5, 10, 20] and list(y) == list(rows["error_rate"])
    _choose(view.rate, "tie_rate")
    assert list(view.curve_points("P_10")[1]) == list(expected.table[expected.table["measure"] == "P_10"]["tie_rate"])

    # the better / worse / equal matrix of a chosen measure: "B / W / E", coloured by the error share
    view = _show(metaeval, metaeval.decisions)
    _choose(view.measure, "P_10")
    counts = expected.counts["P_10"]
    runs = list(view.model.frame.index)
    assert runs == list(SYNTHETIC_RUNS)
    for i in range(4):
        for j in range(4):
            if i == j:
                assert view.model.display_text(i, j) == "" and view.model.value(i, j) is None
                continue
            b, w, e = counts[i, j]
            assert b + w + e == 3 * 300 and view.model.display_text(i, j) == f"{b} / {w} / {e}"
            assert view.model.value(i, j) == pytest.approx(100 * min(b, w) / (b + w + e))
            assert f"better {b:,}, worse {w:,}, equal {e:,}" in view.model.tooltip(i, j)
    # one colour scale for every measure of the result: 0 to a round number above the largest share
    largest = max(100 * np.minimum(c[..., 0], c[..., 1]).max() / (3 * 300) for c in expected.counts.values())
    top = view.model.levels[1]
    assert view.model.levels[0] == 0 and largest <= top <= 50 and np.isclose(top / 10 ** np.floor(np.log10(top)), (1, 2, 5)).any()
    assert top < 2.5 * largest and not view.model.diverging
    _choose(view.measure, "map")
    assert view.model.levels[1] == top
    _choose(view.measure, "P_10")
    assert sorted(view.heatmap.value_labels()) == sorted(view.model.display_text(i, j) for i in range(4)
                                                         for j in range(4) if i != j)
    assert "query sets of 20" in view.caption.text()

    # exports: the table in CSV, LaTeX and Markdown, the counts behind the matrix, every plot
    targets = dict(metaeval.export_targets())
    _save_as(monkeypatch, tmp_path / "stability.csv")
    targets["Meta-evaluation table…"]()
    from evalgui.gui.tables import as_shown

    # what the window shows: its headers, yes/no, the measures as it names them (papers' by default)
    _frame_equal(pd.read_csv(tmp_path / "stability.csv"), as_shown(expected.table, "json"))
    for ext, marker in ((".tex", "\\begin{tabular}"), (".md", "| Measure")):
        _save_as(monkeypatch, tmp_path / f"stability{ext}")
        targets["Meta-evaluation table…"]()
        text = (tmp_path / f"stability{ext}").read_text()
        assert marker in text and "RR" in text          # recip_rank, as papers name it
    _save_as(monkeypatch, tmp_path / "counts.csv")
    targets["Better / worse / equal counts…"]()
    _frame_equal(pd.read_csv(tmp_path / "counts.csv"), as_shown(expected.matrix_frame("P_10"), "json"))
    _export_plots(monkeypatch, tmp_path, targets, ["Error rate vs tie rate plot…", "Rate vs set size plot…",
                                                   "Better / worse / equal heatmap…"])
    # the details table: every measure's counts, as evalgui-cli metaeval --matrix writes them
    _show(metaeval, metaeval.table)
    _choose(metaeval.table.choice, "counts")
    _frame_equal(metaeval.table.model.frame,
                 pd.concat([expected.matrix_frame(m) for m in OUTPUTS], ignore_index=True))


# ---------------------------------------------------------------------------- power
def test_power_equals_the_engine_with_sakais_curves_and_alpha(qtbot, window, tmp_path, monkeypatch):
    from evalgui.core.metaeval.experiments import PowerSettings

    metaeval = _run(qtbot, window, "power", test_combo="bootstrap", correction_combo="holm", alpha_spin=0.1,
                    samples_spin=500, seed_spin=3)
    expected = _engine(PowerSettings(test="bootstrap", correction="holm", alpha=0.1, samples=500, seed=3))
    result = metaeval.outcome.result
    _frame_equal(result.table, expected.table)
    _frame_equal(result.pairs, expected.pairs)
    assert set(result.table["samples"]) == {500} and set(result.table["seed"]) == {3}
    assert _visible_tabs(metaeval) == ["Table", "Power curves"]

    view = _show(metaeval, metaeval.power)
    assert list(view.curves) == OUTPUTS and len(_items(view, pg.PlotDataItem)) == 3
    for measure in OUTPUTS:
        x, y = view.curve_points(measure)
        pairs = expected.curve(measure)
        assert list(x) == list(range(1, 7))
        assert list(y) == list(pairs["p_adjusted"]) and list(y) == sorted(y)      # corrected, ascending
    assert view.alpha_line.isVisible() and view.alpha_line.value() == pytest.approx(0.1)
    assert view.alpha_line.label.toPlainText() == "α = 0.1"
    legend = [label.text for _, label in view.legend.items]
    power = dict(zip(expected.table["measure"], expected.table["discriminative_power"]))
    assert legend == [f"{shown} ({power[m]:.0f}%)" for m, shown in zip(OUTPUTS, ("AP", "RR", "P@10"))]
    assert "holm" in view.plot.getPlotItem().titleLabel.text

    # every pair's p-value, as --curves writes it; the plot exports
    _show(metaeval, metaeval.table)
    _choose(metaeval.table.choice, "pairs")
    _frame_equal(metaeval.table.model.frame, expected.pairs)
    _export_plots(monkeypatch, tmp_path, dict(metaeval.export_targets()), ["Discriminative power curves…"])

    # the t-test, which draws nothing: no B, no seed in the table
    _set_form(metaeval, "power", test_combo="t", correction_combo="none")
    run_and_wait(qtbot, metaeval)
    _frame_equal(metaeval.outcome.result.table, _engine(PowerSettings(test="t", alpha=0.1)).table)
    assert "holm" in view.plot.getPlotItem().titleLabel.text            # drawn while in sight only...
    _show(metaeval, view)
    assert "p-value (ASL)" in view.plot.getPlotItem().getAxis("left").labelText      # ...and when shown
    assert "holm" not in view.plot.getPlotItem().titleLabel.text


# ---------------------------------------------------------------------------- robustness
def test_robustness_equals_the_engine_with_spread_bands(qtbot, window, tmp_path, monkeypatch):
    from evalgui.core.metaeval.experiments import RobustnessSettings

    metaeval = _run(qtbot, window, "robustness", fractions_edit="0.3, 0.6 0.9", robustness_repetitions_spin=4,
                    seed_spin=5)
    expected = _engine(RobustnessSettings(fractions=(0.3, 0.6, 0.9), repetitions=4, seed=5))
    result = metaeval.outcome.result
    _frame_equal(result.table, expected.table)
    _frame_equal(result.repetitions, expected.repetitions)
    assert _visible_tabs(metaeval) == ["Table", "τ vs judgments"]

    view = _show(metaeval, metaeval.robustness)
    assert list(view.curves) == OUTPUTS and list(view.bands) == OUTPUTS
    assert len(_items(view, pg.FillBetweenItem)) == 3                      # one band per measure
    for measure in OUTPUTS:
        rows = expected.table[expected.table["measure"] == measure]
        x, y = view.curve_points(measure)
        assert list(x) == [0.3, 0.6, 0.9]
        assert np.allclose(y, rows["kendall_tau"], equal_nan=True)        # the curve is the table's mean
        low, high = (np.asarray(c.getData()[1]) for c in (view.bands[measure].curves))
        assert np.allclose(low, rows["kendall_tau_min"], equal_nan=True)  # the band its range
        assert np.allclose(high, rows["kendall_tau_max"], equal_nan=True)
    # ± one standard deviation
    _choose(view.band, "sd")
    rows = expected.table[expected.table["measure"] == "P_10"]
    low, high = (np.asarray(c.getData()[1]) for c in view.bands["P_10"].curves)
    assert np.allclose(low, rows["kendall_tau"] - rows["kendall_tau_sd"])
    assert np.allclose(high, rows["kendall_tau"] + rows["kendall_tau_sd"])
    # flipped pairs instead of tau
    _choose(view.value, "flipped_pairs")
    assert np.allclose(view.curve_points("P_10")[1], rows["flipped_pairs"])
    assert "flipped" in view.plot.getPlotItem().getAxis("left").labelText
    # hiding a measure (a click on its legend entry) hides its band too
    view.curves["map"].setVisible(False)
    assert not view.bands["map"].isVisible() and view.bands["P_10"].isVisible()
    _export_plots(monkeypatch, tmp_path, dict(metaeval.export_targets()), ["Robustness plot…"])
    _show(metaeval, metaeval.table)
    _choose(metaeval.table.choice, "repetitions")
    assert len(metaeval.table.model.frame) == 3 * 3 * 4


# ---------------------------------------------------------------------------- agreement
def test_agreement_equals_the_engine_as_a_heatmap(qtbot, window, tmp_path, monkeypatch):
    from evalgui.core.metaeval.experiments import AgreementSettings

    metaeval = _run(qtbot, window, "agreement")
    expected = _engine(AgreementSettings())
    _frame_equal(metaeval.outcome.result.table, expected.table)
    assert _visible_tabs(metaeval) == ["Table", "Agreement matrix"]
    view = _show(metaeval, metaeval.agreement)
    for value, levels, diverging in (("pearson", (-1.0, 1.0), True), ("sign_agreement", (0.0, 100.0), False),
                                     ("kendall_tau", (-1.0, 1.0), True)):
        _choose(view.value, value)
        matrix = expected.matrix(value)
        assert list(view.model.frame.index) == OUTPUTS and list(view.model.frame.columns) == OUTPUTS
        for i, a in enumerate(OUTPUTS):
            for j, b in enumerate(OUTPUTS):
                assert view.model.value(i, j) == pytest.approx(matrix.loc[a, b])
        assert view.model.levels == levels and view.model.diverging == diverging
        assert len(view.heatmap.value_labels()) == 9
    assert "Pearson" in view.model.tooltip(0, 1) and "sign agreement" in view.model.tooltip(0, 1)
    targets = dict(metaeval.export_targets())
    _export_plots(monkeypatch, tmp_path, targets, ["Agreement heatmap…"])
    _save_as(monkeypatch, tmp_path / "agreement.csv")
    targets["Agreement matrix table…"]()
    back = pd.read_csv(tmp_path / "agreement.csv", index_col=0)
    assert np.allclose(back.to_numpy(), expected.matrix("kendall_tau").to_numpy())


# ---------------------------------------------------------------------------- bad input
def test_bad_input_gives_a_dialog_and_keeps_the_previous_results(qtbot, window):
    metaeval = _run(qtbot, window, "agreement")
    before = metaeval.outcome.result.table.copy()
    form = metaeval.form

    def refused(reason):
        with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
            qtbot.mouseClick(metaeval.run_button, Qt.MouseButton.LeftButton)
        assert reason in blocker.args[1], blocker.args
        assert "Traceback" not in blocker.args[1]
        qtbot.waitUntil(lambda: not metaeval.is_busy())
        pd.testing.assert_frame_equal(metaeval.outcome.result.table, before)
        assert _visible_tabs(metaeval) == ["Table", "Agreement matrix"]
        window.last_error_dialog.close()

    for i in range(1, 4):
        form.data.run_list.item(i).setCheckState(Qt.CheckState.Unchecked)
    refused("at least two runs")
    for i in range(1, 4):
        form.data.run_list.item(i).setCheckState(Qt.CheckState.Checked)
    form.picker.set_checked({})
    refused("at least one measure")
    form.picker.set_checked({"map": "", "num_q": ""})           # a total, no per-query values: on the worker
    refused("'num_q' has no per-query numbers")
    assert "Failed" in metaeval.progress_label.text() and metaeval.progress.value() == 0
    form.picker.set_checked(MEASURES)
    _set_form(metaeval, "stability", set_sizes_edit="5, ten")
    refused("Set sizes: 'ten' is not a whole number; type numbers separated by commas")
    _set_form(metaeval, "stability", set_sizes_edit="10, 80")     # 50 queries: the engine refuses, on the worker
    refused("a query set of 80 cannot be drawn from the 50 queries")
    _set_form(metaeval, "robustness", fractions_edit="0.5, 1.5")
    refused("between 0 and 1")
    # ...and a good run after all that
    _set_form(metaeval, "stability", set_sizes_edit="10, 80", replacement_check=True, sets_spin=50)
    run_and_wait(qtbot, metaeval)
    assert metaeval.outcome.experiment == "stability" and list(metaeval.outcome.result.table["set_size"][:2]) == [10, 80]


# ---------------------------------------------------------------------------- cancel
def test_cancel_a_long_run_keeps_the_earlier_results(qtbot, window):
    metaeval = _run(qtbot, window, "agreement")                  # quick results first
    before = metaeval.outcome.result.table.copy()
    _set_form(metaeval, "stability", sets_spin=20_000, stability_repetitions_spin=20)
    with qtbot.waitSignal(metaeval.busy_changed, timeout=5000):
        qtbot.mouseClick(metaeval.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "query sets of" in metaeval.progress_label.text(), timeout=30_000)   # drawing has begun
    assert 0 < metaeval.progress.value() < metaeval.progress.maximum()
    assert metaeval.cancel_button.isEnabled() and not metaeval.run_button.isEnabled()
    with qtbot.waitSignal(metaeval.busy_changed, check_params_cb=not_busy, timeout=20_000):
        start = time.perf_counter()
        qtbot.mouseClick(metaeval.cancel_button, Qt.MouseButton.LeftButton)
    print(f"cancel latency: {1000 * (time.perf_counter() - start):.0f} ms")
    assert metaeval.outcome.experiment == "agreement"
    pd.testing.assert_frame_equal(metaeval.outcome.result.table, before)
    pd.testing.assert_frame_equal(metaeval.table.model.frame, before)
    assert _visible_tabs(metaeval) == ["Table", "Agreement matrix"]
    assert metaeval.progress.value() == 0
    assert "Cancelled" in metaeval.progress_label.text() and "previous results" in metaeval.progress_label.text()
    assert metaeval.run_button.isEnabled() and not metaeval.cancel_button.isEnabled()


# ---------------------------------------------------------------------------- projects
def test_project_round_trip_restores_the_form_and_the_views(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    load(qtbot, first, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    metaeval = _workspace(first)
    metaeval.form.picker.set_checked(MEASURES)
    metaeval.form.data.run_list.item(3).setCheckState(Qt.CheckState.Unchecked)      # random.run left out
    _set_form(metaeval, "power", test_combo="randomization", samples_spin=300, alpha_spin=0.1)  # settings kept too
    _set_form(metaeval, "stability", set_sizes_edit="5, 15", sets_spin=200, fuzziness_spin=0.02,
              replacement_check=True, stability_repetitions_spin=2, seed_spin=11, fill_check=True)
    run_and_wait(qtbot, metaeval)
    assert first.isWindowModified() and metaeval.has_results()
    _choose(metaeval.decisions.measure, "recip_rank")
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))
    # The workflow's request behind the results: evalgui-cli run re-runs it, with the same numbers.
    import io
    import json

    from evalgui.cli import main

    shown = first.workflow_outcomes()["metaeval"]                # what a report is made of
    assert shown is metaeval.outcome and shown.request.qrels == str(data / "qrels.txt")
    assert set(shown.tables) == {"table", "matrix", "caveats"}       # caveats: what to watch (the advisor)
    request = json.loads(project.read_text())["requests"]["metaeval"]
    assert (request["experiment"], request["set_sizes"], request["sets"], request["seed"], request["replacement"],
            request["complete"]) == ("stability", [5, 15], 200, 11, True, True)
    assert main(["run", str(project), "-o", str(tmp_path / "out"), "--no-plots"]) == 0
    rerun = pd.read_csv(tmp_path / "out" / "metaeval-table.csv")
    shown_table = pd.read_csv(io.StringIO(metaeval.outcome.result.table.to_csv(index=False)))
    pd.testing.assert_frame_equal(rerun, shown_table, check_dtype=False, rtol=1e-13)

    second = open_in_new_window(qtbot, make_window, project)
    restored = second.workspaces["metaeval"]
    assert second.tabs.currentWidget() is restored             # the tab with results is shown
    assert not second.isWindowModified()
    assert restored.form_state() == metaeval.form_state()
    form = restored.form
    assert form.data.checked_run_paths() == [str(data / f"{r}.run") for r in ("bm25", "dense", "rerank")]
    assert (form.experiment(), form.set_sizes_edit.text(), form.sets_spin.value(), form.seed_spin.value()) == \
        ("stability", "5, 15", 200, 11)
    assert form.replacement_check.isChecked() and form.fill_check.isChecked()
    _choose(form.experiment_combo, "power")
    assert form.test_combo.currentData() == "randomization" and form.samples_spin.value() == 300
    saved, shown = metaeval.outcome, restored.outcome
    assert shown.result.settings == saved.result.settings and shown.runs == ["bm25", "dense", "rerank"]
    pd.testing.assert_frame_equal(shown.result.table, saved.result.table, check_dtype=False)
    for measure in OUTPUTS:
        assert np.array_equal(shown.result.counts[measure], saved.result.counts[measure])
    assert _visible_tabs(restored) == ["Table", "Error vs ties", "Rates vs set size", "Better / worse / equal"]
    assert restored.table.report.text() == metaeval.table.report.text()
    assert [s.data() for s in _show(restored, restored.tradeoff).points.points()] == OUTPUTS
    assert _show(restored, restored.decisions).model.frame.shape == (3, 3)
    assert "restored" in restored.progress_label.text()


@pytest.mark.parametrize("experiment", ["stability", "power", "robustness", "agreement"])
def test_every_experiment_survives_a_project_file(experiment):
    """What results_state writes goes through JSON and comes back with the same numbers."""
    import json

    from evalgui.core.metaeval.experiments import SETTINGS
    from evalgui.core.workflows.metaeval import metaeval_outcome
    from evalgui.gui.workspaces.metaeval.results import outcome_from_state, outcome_state

    small = {"stability": dict(set_sizes=(5, 10), sets=50), "power": dict(samples=100),
             "robustness": dict(fractions=(0.5,), repetitions=2), "agreement": {}}
    result = _engine(SETTINGS[experiment](**small[experiment]))
    outcome = metaeval_outcome(result, list(SYNTHETIC_RUNS), OUTPUTS, ["a line of the query report"])
    back = outcome_from_state(json.loads(json.dumps(outcome_state(outcome))))
    assert back.result.settings == result.settings and back.runs == outcome.runs
    assert back.measures == OUTPUTS and back.query_report == outcome.query_report
    pd.testing.assert_frame_equal(back.result.table, result.table, check_dtype=False)
    for name in ("pairs", "repetitions"):
        if hasattr(result, name):
            pd.testing.assert_frame_equal(getattr(back.result, name), getattr(result, name), check_dtype=False)
    if experiment == "stability":
        assert back.result.matrix_set_size == 10
        pd.testing.assert_frame_equal(back.result.matrix_frame("map"), result.matrix_frame("map"), check_dtype=False)
    assert outcome_from_state({"settings": {"experiment": "nonsense"}}) is None


# ---------------------------------------------------------------------------- queries
def test_runs_lacking_queries_are_reported_and_minus_c_scores_them(qtbot, window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    lines = (data / "dense.run").read_text().splitlines(keepends=True)
    first_query = lines[0].split()[0]
    (data / "dense.run").write_text("".join(line for line in lines if line.split()[0] != first_query))
    load(qtbot, window, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    metaeval = _workspace(window)
    metaeval.form.picker.set_checked({"map": ""})
    _set_form(metaeval, "agreement")
    run_and_wait(qtbot, metaeval)
    assert "49 of 50 queries" in metaeval.table.report.text() and "dense lacks 1" in metaeval.table.report.text()
    assert "lack queries" in metaeval.progress_label.text()
    assert set(metaeval.outcome.result.table["queries"]) == {49}
    metaeval.form.fill_check.setChecked(True)
    run_and_wait(qtbot, metaeval)
    assert set(metaeval.outcome.result.table["queries"]) == {50}      # scored as trec_eval -c scores them
    assert "lack" not in metaeval.table.report.text() and "lack" not in metaeval.progress_label.text()


# ---------------------------------------------------------------------------- layout
def test_at_the_windows_minimum_size_nothing_overlaps(qtbot, window):
    from PySide6.QtWidgets import QScrollArea

    from tests.gui.test_layout import fully_visible, rect_in, resize_and_wait

    metaeval = _run(qtbot, window, "robustness", fractions_edit="0.5", robustness_repetitions_spin=2)
    _show(metaeval, metaeval.robustness)
    resize_and_wait(qtbot, window, window.minimumWidth(), window.minimumHeight())
    assert window.minimumSizeHint().width() <= window.minimumWidth()      # this tab does not widen the window
    form = rect_in(window, metaeval.form_column.findChild(QScrollArea))
    controls = rect_in(window, metaeval.run_button.parentWidget())
    results = rect_in(window, metaeval.results_tabs)
    assert not form.intersects(controls) and not form.intersects(results) and not controls.intersects(results)
    for part in (form, controls, results):
        assert window.rect().contains(part)
    assert fully_visible(metaeval.run_button) and fully_visible(metaeval.cancel_button)
    assert fully_visible(metaeval.robustness.value)          # the plot's controls scroll sideways, uncovered
    assert rect_in(window, metaeval.robustness.plot).height() > 150


# ---------------------------------------------------------------------------- responsiveness
def test_heartbeat_keeps_firing_while_28_runs_are_meta_evaluated(qtbot, window):
    load_synthetic(qtbot, window)
    session = window.session
    for name in SYNTHETIC_RUNS:                   # 7 runs under other names per sample run: 28 runs
        item = session.find(str(SYNTHETIC / f"{name}.run"))
        for i in range(1, 7):
            session.add(dataclasses.replace(item, path=os.path.join(os.path.dirname(item.path), f"{name}_{i}.run")))
    metaeval = _workspace(window)
    metaeval.form.picker.set_checked(MEASURES)
    _set_form(metaeval, "stability", sets_spin=2000)
    assert len(metaeval.form.data.checked_run_paths()) == 28
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        with qtbot.waitSignal(metaeval.busy_changed, check_params_cb=not_busy, timeout=120_000):
            start = time.perf_counter()
            qtbot.mouseClick(metaeval.run_button, Qt.MouseButton.LeftButton)
        metaeval.results_tabs.setCurrentWidget(metaeval.decisions.page)     # drawn when shown: 28 x 28 cells
        end = time.perf_counter()
    assert metaeval.outcome is not None and len(metaeval.outcome.runs) == 28     # it ran to the end
    assert metaeval.decisions.model.frame.shape == (28, 28)
    assert end - start > 0.2                                   # long enough to mean something
    print(heartbeat.check(start, end))


# ---------------------------------------------------------------------------- preference measures
PREFERENCE_PICKS = {"map": "", "rpp": "", "lexiprecision": ""}
WITH_PREFERENCES = ["map", "rpp", "lexiprecision"]


def test_the_picker_offers_the_preference_measures_and_every_experiment_takes_them(qtbot, window, tmp_path,
                                                                                   monkeypatch):
    from evalgui.core.metaeval.experiments import (AgreementSettings, PowerSettings, RobustnessSettings,
                                                   StabilitySettings)
    from evalgui.core.ranked.preference import REGISTRY

    metaeval = _workspace(window)
    picker = metaeval.form.picker
    headings = {picker.tree.topLevelItem(i).text(0): picker.tree.topLevelItem(i)
                for i in range(picker.tree.topLevelItemCount())}
    offered = {headings[h].child(i).data(0, Qt.ItemDataRole.UserRole): h for h in headings for i in range(headings[h].childCount())}
    assert set(REGISTRY) <= set(offered) and "map" in offered
    assert offered["rpp"] == "Preference · Recall-paired preference" and offered["lexirecall"] == "Preference · Lexicographic"
    assert headings[offered["rpp"]].isFirstColumnSpanned()               # read whole, not cut at the first column
    item = next(headings[offered["rpp"]].child(i) for i in range(headings[offered["rpp"]].childCount())
                if headings[offered["rpp"]].child(i).data(0, Qt.ItemDataRole.UserRole) == "rpp")
    picker.tree.setCurrentItem(item)
    assert "Recall-Paired Preference" in picker.help.toPlainText()          # the record's own help
    picker.search.setText("lexicographic")                          # searched by the records' descriptions
    assert not headings[offered["lexirecall"]].isHidden() and headings[offered["rpp"]].isHidden()
    picker.search.setText("")

    for settings, values, plots in (
            (StabilitySettings(set_sizes=(5, 20), sets=200, repetitions=2, seed=4),
             dict(set_sizes_edit="5, 20", sets_spin=200, stability_repetitions_spin=2, seed_spin=4), "tradeoff"),
            (PowerSettings(test="t"), dict(test_combo="t", correction_combo="none"), "power"),
            (RobustnessSettings(fractions=(0.5,), repetitions=2, seed=4),
             dict(fractions_edit="0.5", robustness_repetitions_spin=2, seed_spin=4), "robustness"),
            (AgreementSettings(), {}, "agreement")):
        metaeval = _run(qtbot, window, settings.experiment, measures=PREFERENCE_PICKS, **values)
        expected = _engine(settings, specs=("map", "rpp", "lexiprecision"))
        assert metaeval.outcome.measures == WITH_PREFERENCES
        _frame_equal(metaeval.outcome.result.table, expected.table)
        _frame_equal(metaeval.table.model.frame, expected.table)
        view = _show(metaeval, getattr(metaeval, plots))
        if plots == "tradeoff":
            assert [s.data() for s in view.points.points()] == WITH_PREFERENCES
            decisions = _show(metaeval, metaeval.decisions)
            _choose(decisions.measure, "rpp")
            counts = expected.counts["rpp"]
            assert decisions.model.display_text(0, 3) == " / ".join(str(v) for v in counts[0, 3])
            assert "(|mean preference| ≤ 0.05)" in decisions.caption.text()
        elif plots == "agreement":
            assert list(view.model.frame.index) == WITH_PREFERENCES
            assert view.model.value(0, 1) == pytest.approx(expected.matrix("pearson").loc["map", "rpp"])
        else:
            assert list(view.curves) == WITH_PREFERENCES
        if plots == "robustness":
            assert "(a preference's: by mean preference, then win rate)" in view.caption.text()
    window.grab().save(str(tmp_path / "agreement_with_preferences.png"))


# ---------------------------------------------------------------------------- progress
def test_stability_reports_each_set_size_and_repetition_and_cancels_promptly(qtbot, window):
    load_synthetic(qtbot, window)
    metaeval = _workspace(window)
    metaeval.form.picker.set_checked(MEASURES)
    _set_form(metaeval, "stability", set_sizes_edit="10, 25", sets_spin=400_000, stability_repetitions_spin=4)
    seen = []
    metaeval.status_message.connect(seen.append)
    with qtbot.waitSignal(metaeval.busy_changed, timeout=5000):
        qtbot.mouseClick(metaeval.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "repetition 2 of 4" in metaeval.progress_label.text(), timeout=60_000)
    assert "query sets of 10 (set size 1 of 2)" in metaeval.progress_label.text()
    assert 0 < metaeval.progress.value() < metaeval.progress.maximum()
    assert any("repetition 1 of 4" in m for m in seen)
    with qtbot.waitSignal(metaeval.busy_changed, check_params_cb=not_busy, timeout=20_000):
        start = time.perf_counter()
        qtbot.mouseClick(metaeval.cancel_button, Qt.MouseButton.LeftButton)
    latency = time.perf_counter() - start
    print(f"cancel latency: {1000 * latency:.0f} ms")
    assert latency < CANCEL_PROMPTLY
    assert metaeval.outcome is None and "Cancelled" in metaeval.progress_label.text()


# ---------------------------------------------------------------------------- results out of date
def test_results_the_inputs_no_longer_describe_say_so_until_run(qtbot, window, tmp_path):
    metaeval = _run(qtbot, window, "stability", set_sizes_edit="5, 10", sets_spin=100, stability_repetitions_spin=2)
    banner = metaeval.stale_banner
    assert banner.objectName() == "staleBanner" and banner.isHidden()
    form = metaeval.form

    def stale(*parts):
        assert banner.isVisible(), banner.text()
        assert banner.text().startswith("⚠ Computed with qrels.txt; ") and banner.text().endswith("press Run to update.")
        for part in parts:
            assert part in banner.text(), (part, banner.text())

    form.picker.set_checked({"map": "", "rpp": ""})
    stale("the form has changed since (the measures)")
    window.grab().save(str(tmp_path / "stale.png"))
    form.picker.set_checked(MEASURES)
    assert banner.isHidden()                                         # back to what was run
    form.data.run_list.item(3).setCheckState(Qt.CheckState.Unchecked)
    stale("(the runs ticked)")
    form.data.run_list.item(3).setCheckState(Qt.CheckState.Checked)
    form.fill_check.setChecked(True)
    stale("(the options)")
    form.fill_check.setChecked(False)
    _set_form(metaeval, "stability", sets_spin=150)
    stale("(the experiment's settings)")
    _set_form(metaeval, "stability", sets_spin=100, set_sizes_edit="5, ten")
    stale("(the experiment's settings)")                             # not a setting that was run
    _set_form(metaeval, "agreement", set_sizes_edit="5, 10")
    stale("(the experiment)")
    _set_form(metaeval, "stability")
    assert banner.isHidden()
    # the files: one read again, one removed
    load(qtbot, window, [(SYNTHETIC / "dense.run", "run")])
    stale("dense.run has been read again")
    run_and_wait(qtbot, metaeval)
    assert banner.isHidden()
    window.data_panel.remove_requested.emit(str(SYNTHETIC / "random.run"))
    stale("random.run is no longer loaded")
    assert "the runs ticked" not in banner.text()                   # said once, by the file
    run_and_wait(qtbot, metaeval)
    assert banner.isHidden() and metaeval.outcome.runs == ["bm25", "dense", "rerank"]
    window.data_panel.remove_requested.emit(str(SYNTHETIC / "qrels.txt"))
    stale("qrels.txt is no longer loaded")


def test_a_restored_project_knows_what_its_results_were_computed_with(qtbot, make_window, tmp_path):
    data = copy_synthetic(tmp_path / "data")
    first = make_window()
    load(qtbot, first, [data / "qrels.txt"] + [data / f"{r}.run" for r in SYNTHETIC_RUNS])
    metaeval = _workspace(first)
    metaeval.form.picker.set_checked(MEASURES)
    _set_form(metaeval, "agreement")
    run_and_wait(qtbot, metaeval)
    project = tmp_path / "study.evalgui"
    assert first.write_project(str(project))

    second = open_in_new_window(qtbot, make_window, project)
    restored = second.workspaces["metaeval"]
    assert restored.outcome is not None and restored.stale_banner.isHidden()
    restored.form.picker.set_checked({"map": ""})
    assert restored.stale_banner.isVisible() and "(the measures)" in restored.stale_banner.text()


def test_labels_of_measures_whose_points_meet_do_not_overlap(qtbot):
    from evalgui.core.metaeval.experiments import StabilityResult, StabilitySettings
    from evalgui.core.workflows.metaeval import metaeval_outcome
    from evalgui.gui.workspaces.metaeval.tradeoff import TradeoffView

    measures = ["map", "rpp", "P_10"]
    table = pd.DataFrame({"measure": measures, "set_size": 25, "fuzziness": 0.05, "error_rate": [0.0, 0.05, 3.0],
                          "tie_rate": [0.5, 0.6, 20.0], "error_rate_sd": 0.0, "tie_rate_sd": 0.0})
    view = TradeoffView()
    qtbot.addWidget(view.page)
    view.page.resize(600, 400)
    view.page.show()
    qtbot.waitExposed(view.page)
    view.refresh(metaeval_outcome(StabilityResult(table, StabilitySettings(), ["a", "b"], 25, {}), ["a", "b"], measures))
    view.page.grab()                     # painted: the labels are where a user sees them
    boxes = [label.mapRectToScene(label.boundingRect()) for label in view.labels]
    assert not boxes[0].intersects(boxes[1])                      # map and rpp: stacked a line apart
    assert view.labels[2].anchor == view.labels[0].anchor         # P_10 alone: where every label goes
