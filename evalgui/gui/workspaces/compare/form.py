"""The compare form: where the scores come from, which runs and measures, the test and its settings.

Three sources: runs + qrels from the session (evaluated first, with the ranked
form's qrels and run pickers and its measure picker), a loaded per-query scores
file, or the Ranked retrieval tab's results (compared without evaluating again).
Every control's tooltip comes from the registry that describes it.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel,
                               QRadioButton, QSpinBox, QStackedWidget, QVBoxLayout, QWidget)

from evalgui.core import tidy
from evalgui.core.data import MAX_GRADE
from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked import preference
from evalgui.core.ranked.measures import REGISTRY
from evalgui.core.stats.catalogue import CORRECTIONS, DEFAULT_SAMPLES, PREFERENCE_TESTS, RESAMPLING, TESTS
from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest
from evalgui.gui.declared import Bindings, view
from evalgui.core.stats.catalogue import CORRECTION_LABELS, TEST_LABELS
from evalgui.gui.forms import registry_combo, samples_per_test
from evalgui.gui.measurepicker import MeasurePicker
from evalgui.gui.naming import NAMING, label as shown_name
from evalgui.gui.plain_text import tip as plain_tip
from evalgui.gui.workspaces.run_picker import Checklist, QrelsRunsPicker

RUNS, SCORES, RANKED = "runs", "scores", "ranked"
# A preference's tooltip ends with its registered name: what evalgui-cli writes and projects keep.
REGISTERED_NAME = "Name in evalgui-cli's files and in projects: "
RANKED_RESULTS = "<ranked results>"        # what the request calls the Ranked retrieval tab's scores
SOURCES = (
    (RUNS, "Runs and qrels", "Evaluate the ticked runs against the qrels, then compare them"),
    (SCORES, "Per-query scores file", "A loaded table of run, query, measure, value (a per-query table exported "
                                      "here, or evalgui-cli's per-query output): compared as it is, without "
                                      "evaluating"),
    (RANKED, "Ranked retrieval results", "The per-query values the Ranked retrieval tab computed in this session, "
                                         "compared without evaluating again"),
)


def _parameter(test: str, name: str) -> str:
    return next((p.description for p in TESTS[test].parameters if p.name == name), "")


class CompareForm(QWidget):
    """``ranked_results()`` gives the Ranked retrieval tab's ResultSet (or None): see the workspace.
    ``edited`` fires when a setting changes (the session then has something to save)."""

    edited = Signal()

    def __init__(self, session, ranked_results: Callable[[], object], parent=None):
        super().__init__(parent)
        self.setObjectName("compareForm")
        self.session = session
        self.ranked_results = ranked_results
        self.scores_path: str | None = None
        self.samples = dict(DEFAULT_SAMPLES)           # B per resampling test, as last set
        # Every setting bound to its declaration: the request's (label, help, bounds, default) or a view-only
        # one; the form's state is theirs, in this order (B per test before the test, whose box then shows it).
        self.bindings = Bindings(refresh=self._restored)
        params = CompareRequest.params()
        self.bindings.hold(view("samples_per_test", "json", {}), get=lambda: dict(self.samples),
                           put=lambda saved: self.samples.update(samples_per_test(saved)))

        # ---------------------------------------------------------------- the source
        source_box = QGroupBox("Source")
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("compareSource")
        for key, label, tip in SOURCES:
            self.source_combo.addItem(label, key)
            self.source_combo.setItemData(self.source_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.source_combo.currentIndexChanged.connect(lambda index: self.source_combo.setToolTip(
            self.source_combo.itemData(index, Qt.ItemDataRole.ToolTipRole)))
        self.source_combo.setToolTip(SOURCES[0][2])
        self.bindings.bind(view("source", "choice", RUNS, tuple((k, label) for k, label, _ in SOURCES)),
                           self.source_combo, dress=False)
        self.pages = QStackedWidget()

        self.data = QrelsRunsPicker(session, object_prefix="compare")
        self.data.bind_to(self.bindings)
        self.picker = MeasurePicker(registry=REGISTRY)
        self.bindings.bind(params["measures"], self.picker)
        self.level_spin = QSpinBox()
        self.level_spin.setObjectName("compareRelevanceLevel")
        level_label = QLabel()
        self.bindings.bind(params["level"], self.level_spin, level_label)
        runs_page = QWidget()
        runs_layout = QVBoxLayout(runs_page)
        runs_layout.setContentsMargins(0, 0, 0, 0)
        runs_layout.addWidget(self.data)
        measures_box = QGroupBox("Measures")
        measures_layout = QFormLayout(measures_box)
        measures_layout.addRow(self.picker)
        measures_layout.addRow(level_label, self.level_spin)
        runs_layout.addWidget(measures_box, 1)
        runs_layout.addWidget(self._preferences_box())

        self.scores_combo = QComboBox()
        self.scores_combo.setObjectName("compareScoresFile")
        self.scores_combo.setToolTip("A loaded per-query scores table (File ▸ Open data…)")
        self.scores_combo.currentIndexChanged.connect(self._scores_file_changed)
        self.scores_runs, self.scores_measures = Checklist("compareScoresRuns"), Checklist("compareScoresMeasures")
        self.bindings.hold(params["scores"], self, "scores_path", shows=(self.scores_combo,))
        self.bindings.bind(params["score_runs"], self.scores_runs, name="scores_runs")
        self.bindings.bind(params["measures"], self.scores_measures, name="scores_measures")
        scores_page = self._table_page([("File", self.scores_combo)], self.scores_runs, self.scores_measures)

        self.ranked_note = QLabel()
        self.ranked_note.setWordWrap(True)
        self.ranked_runs, self.ranked_measures = Checklist("compareRankedRuns"), Checklist("compareRankedMeasures")
        self.bindings.bind(params["score_runs"], self.ranked_runs, name="ranked_runs")
        self.bindings.bind(params["measures"], self.ranked_measures, name="ranked_measures")
        ranked_page = self._table_page([(None, self.ranked_note)], self.ranked_runs, self.ranked_measures)

        for page in (runs_page, scores_page, ranked_page):
            self.pages.addWidget(page)
        source_layout = QVBoxLayout(source_box)
        source_layout.addWidget(self.source_combo)
        source_layout.addWidget(self.pages, 1)
        self.source_combo.currentIndexChanged.connect(self._source_changed)

        # ---------------------------------------------------------------- the test
        test_box = QGroupBox("Test")
        self.test_combo = registry_combo("compareTest", TESTS, TEST_LABELS)
        self.correction_combo = registry_combo("compareCorrection", CORRECTIONS, CORRECTION_LABELS)
        self.correction_combo.setCurrentIndex(self.correction_combo.findData("holm"))
        self.alpha_spin = QDoubleSpinBox()
        self.alpha_spin.setObjectName("compareAlpha")
        self.alpha_spin.setDecimals(4)
        self.alpha_spin.setSingleStep(0.01)
        self.samples_spin = QSpinBox()
        self.samples_spin.setObjectName("compareSamples")
        self.samples_spin.setGroupSeparatorShown(True)
        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("compareSeed")
        labels = {name: QLabel() for name in ("test", "correction", "alpha", "samples", "seed")}
        for name, widget in (("test", self.test_combo), ("correction", self.correction_combo)):
            self.bindings.bind(params[name], widget, dress=False)     # their tooltips follow the choice
            labels[name].setText(params[name].label)
            labels[name].setBuddy(widget)
            widget.setAccessibleName(params[name].label)
        for name, widget in (("alpha", self.alpha_spin), ("seed", self.seed_spin), ("samples", self.samples_spin)):
            self.bindings.bind(params[name], widget, labels[name])
        self.samples_spin.valueChanged.connect(self._samples_changed)
        test_layout = QFormLayout(test_box)
        for name, widget in (("test", self.test_combo), ("correction", self.correction_combo),
                             ("alpha", self.alpha_spin), ("samples", self.samples_spin), ("seed", self.seed_spin)):
            test_layout.addRow(labels[name], widget)
        self.test_combo.currentIndexChanged.connect(self._test_changed)

        queries_box = QGroupBox("Queries")
        self.fill_check = QCheckBox()
        self.fill_check.setObjectName("compareFillMissing")
        self.bindings.bind(params["complete"], self.fill_check)
        self.tie_spin = QDoubleSpinBox()
        self.tie_spin.setObjectName("compareTieTolerance")
        self.tie_spin.setDecimals(6)
        self.tie_spin.setSingleStep(0.001)
        tie_label = QLabel()
        self.bindings.bind(params["tie_tolerance"], self.tie_spin, tie_label)
        self.judged_spin = QSpinBox()
        self.judged_spin.setObjectName("compareJudgedBelow")   # the advisor's "too few judged" threshold
        judged_label = QLabel()
        self.bindings.bind(params["judged_below"], self.judged_spin, judged_label)
        queries_layout = QFormLayout(queries_box)
        queries_layout.addRow(self.fill_check)
        queries_layout.addRow(tie_label, self.tie_spin)
        queries_layout.addRow(judged_label, self.judged_spin)

        pairs_box = QGroupBox("Pairs")
        self.all_pairs_radio = QRadioButton("All pairs")
        self.all_pairs_radio.setObjectName("compareAllPairs")
        self.all_pairs_radio.setToolTip("Test every pair of runs")
        self.baselines_radio = QRadioButton("Against baselines")
        self.baselines_radio.setObjectName("compareAgainstBaselines")
        self.baselines_radio.setToolTip("Test every run against each ticked baseline (one or several); the "
                                        "correction then covers only those pairs")
        self.bindings.bind(view("baselines_mode", "bool", False), self.baselines_radio, dress=False)
        self._mode = QButtonGroup(self)
        self._mode.addButton(self.all_pairs_radio)
        self._mode.addButton(self.baselines_radio)
        self.all_pairs_radio.setChecked(True)
        self.baseline_list = Checklist("compareBaselines")
        self.bindings.bind(params["baselines"], self.baseline_list)
        self.baseline_list.setMaximumHeight(100)
        self.baseline_list.setToolTip("The baselines: every other run is tested against each of them")
        self.baselines_radio.toggled.connect(self.baseline_list.setEnabled)
        self.baselines_radio.clicked.connect(self._baselines_chosen)
        self.baseline_list.setEnabled(False)
        pairs_layout = QVBoxLayout(pairs_box)
        pairs_layout.addWidget(self.all_pairs_radio)
        pairs_layout.addWidget(self.baselines_radio)
        pairs_layout.addWidget(self.baseline_list)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(source_box, 1)
        layout.addWidget(test_box)
        layout.addWidget(queries_box)
        layout.addWidget(pairs_box)

        for changed in (self.data.changed, self.scores_runs.changed, self.ranked_runs.changed):
            changed.connect(self._refresh_baselines)
        self._test_changed()
        # The user's edits only (itemChanged: a click; refilling the lists from the session is none).
        for signal in (self.source_combo.currentIndexChanged, self.data.qrels_combo.currentIndexChanged,
                       self.data.run_list.itemChanged, self.picker.changed, self.level_spin.valueChanged,
                       self.scores_combo.currentIndexChanged, self.scores_runs.itemChanged,
                       self.scores_measures.itemChanged, self.ranked_runs.itemChanged, self.ranked_measures.itemChanged,
                       self.test_combo.currentIndexChanged, self.correction_combo.currentIndexChanged,
                       self.alpha_spin.valueChanged, self.samples_spin.valueChanged, self.seed_spin.valueChanged,
                       self.fill_check.toggled, self.tie_spin.valueChanged, self.baselines_radio.toggled,
                       self.baseline_list.itemChanged, self.preference_list.itemChanged, self.binary_check.toggled,
                       self.binary_spin.valueChanged, self.judged_spin.valueChanged):
            signal.connect(self.edited)
        self.bindings.keep_defaults()        # what a project or the demo does not say takes these

    # ------------------------------------------------------------ building
    def _preferences_box(self) -> QGroupBox:
        """Preferences between two runs, from the runs' rankings (so only with runs and qrels)."""
        box = QGroupBox("Preferences")
        box.setToolTip(preference.REGISTRY.description + " Every pair is tested with the test and correction "
                       "below (one-sample: is the mean preference 0?); the Preferences tab shows the matrix and "
                       "the runs ranked.")
        self.preference_list = Checklist("comparePreferences")
        self._name_preferences()
        NAMING.changed.connect(self._name_preferences)
        rows = self.preference_list.sizeHintForRow(0) * self.preference_list.count()
        self.preference_list.setFixedHeight(rows + 2 * self.preference_list.frameWidth() + 2)
        declared = PreferenceRequest.params()
        self.bindings.bind(declared["measures"], self.preference_list, name="preferences")
        self.binary_check = QCheckBox(declared["binary_threshold"].label)      # its declaration's words
        self.binary_check.setObjectName("compareBinaryPreferences")
        self.binary_check.setToolTip(declared["binary_threshold"].help)
        self.binary_spin = QSpinBox()
        self.binary_spin.setObjectName("compareBinaryThreshold")
        self.binary_spin.setRange(0, MAX_GRADE)
        self.binary_spin.setValue(1)
        self.binary_spin.setEnabled(False)
        self.binary_spin.setToolTip(self.binary_check.toolTip())
        self.binary_check.toggled.connect(self.binary_spin.setEnabled)
        # The request's one binary_threshold (None: graded) is the check box and the grade it enables.
        self.bindings.bind(view("binary_preferences", "bool", False), self.binary_check, dress=False)
        grade = dataclasses.replace(declared["binary_threshold"], optional=False, maximum=MAX_GRADE)
        self.bindings.bind(grade, self.binary_spin, dress=False)
        layout = QFormLayout(box)
        layout.addRow(self.preference_list)
        layout.addRow(self.binary_check, self.binary_spin)
        return box

    def _name_preferences(self, _naming: str = "") -> None:
        """The preferences' check boxes in the window's naming (RPP, or rpp); ticked by registered name, which
        projects keep."""
        records = preference.REGISTRY.values()
        self.preference_list.set_entries(
            [(r.name, shown_name(r.name)) for r in records], default=False,
            tooltips={r.name: f"{r.help_text}\n\n{REGISTERED_NAME}{r.name}" for r in records})

    def preference_measures(self) -> list[str]:
        return self.preference_list.checked()

    def binary_threshold(self) -> int | None:
        return self.binary_spin.value() if self.binary_check.isChecked() else None

    @staticmethod
    def _table_page(top: list, runs: Checklist, measures: Checklist) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        for label, widget in top:
            form.addRow(label, widget) if label else form.addRow(widget)
        runs.setToolTip("The runs to compare")
        measures.setToolTip("The measures to compare (those the table has per-query values of)")
        form.addRow("Runs", runs)
        form.addRow("Measures", measures)
        return page

    # ------------------------------------------------------------ reacting
    def source(self) -> str:
        return self.source_combo.currentData()

    def _source_changed(self) -> None:
        self.pages.setCurrentIndex(self.source_combo.currentIndex())
        self.refresh_inputs()

    def _test_changed(self) -> None:
        test = self.test_combo.currentData()
        resampling = test in RESAMPLING
        self.samples_spin.setEnabled(resampling)
        self.seed_spin.setEnabled(resampling)
        self.samples_spin.blockSignals(True)
        self.samples_spin.setValue(self.samples.get(test, 1000) if resampling else 1000)
        self.samples_spin.blockSignals(False)
        self.samples_spin.setToolTip(
            f"{_parameter(test, 'samples').capitalize()} (default {DEFAULT_SAMPLES[test]:,})" if resampling
            else "Only the resampling tests (randomization, bootstrap, Tukey HSD) draw samples")
        tukey = test == "tukey"
        self.correction_combo.setEnabled(not tukey)
        if tukey:
            self.correction_combo.setToolTip("Tukey's HSD controls the family-wise error over all pairs itself: "
                                             "no further correction is applied.")
        else:
            self.correction_combo.setToolTip(CORRECTIONS[self.correction_combo.currentData()].help_text)

    def _samples_changed(self, value: int) -> None:
        test = self.test_combo.currentData()
        if test in RESAMPLING:
            self.samples[test] = value

    def _scores_file_changed(self) -> None:
        self.scores_path = self.scores_combo.currentData()
        self._refresh_scores_lists()

    # ------------------------------------------------------------ inputs
    def refresh_inputs(self) -> None:
        """Refill every picker from the session and the Ranked retrieval tab, keeping the user's choices."""
        self.data.refresh_inputs()
        items = self.session.of_kind("per-query scores")
        self.scores_combo.blockSignals(True)
        self.scores_combo.clear()
        for item in items:
            self.scores_combo.addItem(item.name, item.path)
            self.scores_combo.setItemData(self.scores_combo.count() - 1, plain_tip(item.path),
                                          Qt.ItemDataRole.ToolTipRole)
        paths = [i.path for i in items]
        if self.scores_path in paths:
            self.scores_combo.setCurrentIndex(paths.index(self.scores_path))
        elif paths:
            self.scores_combo.setCurrentIndex(0)
            self.scores_path = paths[0]
        self.scores_combo.blockSignals(False)
        self._refresh_scores_lists()
        self._refresh_ranked_lists()

    def scores_item(self):
        return self.session.find(self.scores_path) if self.scores_path else None

    def _refresh_scores_lists(self) -> None:
        item = self.scores_item()
        table = item.data if item is not None else None
        runs = list(dict.fromkeys(table.frame[tidy.RUN].tolist())) if table is not None else []
        measures = list(dict.fromkeys(table.frame[tidy.MEASURE].tolist())) if table is not None else []
        self.scores_runs.set_entries([(r, r) for r in runs])
        self.scores_measures.set_entries([(m, m) for m in measures])

    def _refresh_ranked_lists(self) -> None:
        results = self.ranked_results()
        runs = results.names() if results is not None else []
        measures = results.per_query_measures() if results is not None else []
        if runs:
            self.ranked_note.setText(f"The Ranked retrieval tab's results: {len(runs)} run(s), {len(measures)} "
                                     f"measure(s) with per-query values, {len(results.queries)} queries.")
        else:
            self.ranked_note.setText("The Ranked retrieval tab has no results yet: evaluate there first.")
        self.ranked_runs.set_entries([(r, r) for r in runs])
        self.ranked_measures.set_entries([(m, m) for m in measures])

    def run_names(self) -> list[str]:
        """The names of the runs to compare, as the results will call them."""
        source = self.source()
        if source == RUNS:
            return self.session.run_names(self.data.checked_run_paths())
        return (self.scores_runs if source == SCORES else self.ranked_runs).checked()

    def _baselines_chosen(self) -> None:
        """Chosen by the user with no baseline ticked: the first run is one, so Run has what it needs."""
        keys = self.baseline_list.keys()
        if self.baselines_radio.isChecked() and keys and not self.baseline_list.checked():
            self.baseline_list.set_checked(keys[0], True)

    def _refresh_baselines(self) -> None:
        self.baseline_list.set_entries([(r, r) for r in self.run_names()], default=False)

    # ------------------------------------------------------------ what Run needs
    def options(self):
        from evalgui.core.stats.compare import CompareOptions

        test = self.test_combo.currentData()
        return CompareOptions(
            test=test, correction=self.correction_combo.currentData(), alpha=self.alpha_spin.value(),
            samples=self.samples_spin.value() if test in RESAMPLING else None, seed=self.seed_spin.value(),
            baselines=tuple(self.baseline_list.checked()) if self.baselines_radio.isChecked() else (),
            fill_missing=self.fill_check.isChecked(), tie_tolerance=self.tie_spin.value())

    def request(self):
        """(comparison request or None, preference request or None, inputs) for the compare workflows;
        EvalUsageError says what is missing, in words for a dialog."""
        from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest
        from evalgui.core.workflows.inputs import Inputs
        from evalgui.core.workflows.params import RequestError

        source = self.source()
        options = self._checked_options()
        settings = {"test": options.test, "correction": options.correction, "alpha": options.alpha,
                    "samples": options.samples, "seed": options.seed, "baselines": list(options.baselines)}
        inputs = Inputs()
        compare_request = preference_request = None
        try:
            if source == RUNS:
                qrels = self.data.qrels_item()
                if qrels is None:
                    raise EvalUsageError("Load a qrels file and the runs to compare first (File ▸ Open data…).")
                items = self.data.checked_run_items()
                _need_two(len(items), "Tick at least two runs under Data.")
                specs, preferences = self.picker.specs(), self.preference_measures()
                if not specs and not preferences:
                    raise EvalUsageError("Tick at least one measure (or preference).")
                if preferences and options.test not in PREFERENCE_TESTS:
                    raise EvalUsageError(f"{TEST_LABELS[options.test]} compares each run's own scores, which a "
                                         "preference between two runs has not: choose another test, or untick "
                                         "the preferences.")
                if preferences:          # they read both runs' rankings; measures alone can go query by query
                    self.data.checked_held_run_items("Preference measures compare the runs' rankings side by side")
                paths = [item.path for item in items]
                inputs.add(qrels.path, qrels.data)
                for item, name in zip(items, self.session.run_names(paths)):
                    inputs.add(item.path, item.data, name)
                if specs:
                    compare_request = CompareRequest(qrels=qrels.path, runs=paths, measures=specs,
                                                     level=self.level_spin.value(),
                                                     complete=self.fill_check.isChecked(),
                                                     tie_tolerance=options.tie_tolerance,
                                                     judged_below=self.judged_spin.value(), **settings)
                if preferences:
                    preference_request = PreferenceRequest(qrels=qrels.path, runs=paths, measures=preferences,
                                                           binary_threshold=self.binary_threshold(),
                                                           judged_below=self.judged_spin.value(), **settings)
            else:
                if source == SCORES:
                    item = self.scores_item()
                    if item is None:
                        raise EvalUsageError("Load a per-query scores file first (File ▸ Open data…): a table with "
                                             "run, query, measure and value columns, e.g. a per-query table exported "
                                             "from Ranked retrieval.")
                    if not len(item.data.frame):
                        raise EvalUsageError(f"{item.name} has only summary rows (query 'all'): comparing needs "
                                             "per-query values (Ranked retrieval's Per query table exports them).")
                    key, runs, measures = item.path, self.scores_runs, self.scores_measures
                    inputs.add(key, item.data.frame, item.name)
                else:
                    self._refresh_ranked_lists()
                    results = self.ranked_results()
                    if results is None or not len(results):
                        raise EvalUsageError("The Ranked retrieval tab has no results yet: evaluate the runs there "
                                             "first, or choose another source.")
                    import pandas as pd

                    key, runs, measures = RANKED_RESULTS, self.ranked_runs, self.ranked_measures
                    inputs.add(key, pd.concat([r.frame for r in results.values()], ignore_index=True),
                               "the Ranked retrieval results")
                _need_two(len(runs.checked()), "Tick at least two runs.")
                if not measures.checked():
                    raise EvalUsageError("Tick at least one measure.")
                compare_request = CompareRequest(scores=key, score_runs=runs.checked(), measures=measures.checked(),
                                                 complete=self.fill_check.isChecked(),
                                                 tie_tolerance=options.tie_tolerance, **settings)
        except RequestError as exc:
            raise EvalUsageError(str(exc)) from None
        return compare_request, preference_request, inputs

    def _checked_options(self):
        if self.baselines_radio.isChecked() and not self.baseline_list.checked():
            runs = set(self.run_names())
            wanted = [b for b, ticked in self.baseline_list.ticks.items() if ticked and b not in runs]
            if wanted:
                raise EvalUsageError(f"The baseline {wanted[0]} is not among the runs compared: tick it among the "
                                     "runs, or choose other baselines.")
            raise EvalUsageError("Tick at least one baseline, or choose All pairs.")
        try:
            return self.options()
        except ValueError as exc:
            raise EvalUsageError(str(exc)) from None

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        """The settings by the request's names, plus the source shown, the per-query scores file and its ticks,
        the preferences' binary switch, and B as last set for each test."""
        return self.bindings.state()

    def restore(self, state: dict) -> None:
        # Version-1 projects named two settings otherwise, and saved B per test under "samples".
        self.bindings.restore(state, aliases={"relevance_level": "level", "fill_missing": "complete",
                                              "samples": "samples_per_test"})

    def _restored(self) -> None:
        self._test_changed()            # the boxes that follow the test
        self.refresh_inputs()           # the lists, from the session and the Ranked retrieval tab


def _need_two(count: int, message: str) -> None:
    if count < 2:
        raise EvalUsageError(f"Comparing needs at least two runs. {message}")
