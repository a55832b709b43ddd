"""The meta-evaluation form: the qrels and runs, the measures, the experiment and its settings.

The measures: every ranked measure and the preference measures (rpp, lexiprecision...,
under their own headings), which every experiment takes. The experiment is chosen in a combo box; below it, a page of that experiment's own
settings (stability: fuzziness, set sizes, sets, replacement, repetitions; power: test,
correction, α, B; robustness: fractions, repetitions; agreement: none), then the seed
and "score missing queries as 0" (-c), which they share. Every tooltip is the
description the ``metaeval`` registry (and, for the test and the correction, the
comparison's registries) gives ``evalgui-cli`` and the help.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel,
                               QStackedWidget, QVBoxLayout, QWidget)

from evalgui.core.errors import EvalUsageError
from evalgui.core.metaeval.catalogue import (EXPERIMENTS, MAX_REPETITIONS, MAX_ROBUSTNESS_REPETITIONS,
                                             MAX_SETS)
from evalgui.core.ranked import preference
from evalgui.core.ranked.measures import REGISTRY
from evalgui.core.stats.catalogue import CORRECTIONS, DEFAULT_SAMPLES, MAX_SAMPLES, RESAMPLING, TESTS
from evalgui.core.workflows.common import LEVEL
from evalgui.gui.forms import CORRECTION_LABELS, TEST_LABELS, line_edit, parse_numbers, registry_combo, spin_box
from evalgui.gui.measurepicker import MeasurePicker
from evalgui.gui.workspaces.run_picker import QrelsRunsPicker

STABILITY, POWER, ROBUSTNESS, AGREEMENT = "stability", "power", "robustness", "agreement"
EXPERIMENT_LABELS = {STABILITY: "Stability (Buckley & Voorhees)", POWER: "Discriminative power (Sakai)",
                     ROBUSTNESS: "Robustness to missing judgments", AGREEMENT: "Agreement between measures"}


def measures_offered() -> dict:
    """The picker's measures: every ranked measure, then the preference measures under headings that say so."""
    return {**REGISTRY, **{name: replace(record, group=f"Preference · {record.group}")
                           for name, record in preference.REGISTRY.items()}}


def parameter_tip(experiment: str, name: str) -> str:
    """A parameter's description in the registry, with its default: "Queries per set; ... (default 5, 10, ...)"."""
    p = next(p for p in EXPERIMENTS[experiment].parameters if p.name == name)
    text = p.description[:1].upper() + p.description[1:]
    return f"{text} (default {p.default})" if p.default else text


class MetaevalForm(QWidget):
    """``edited`` fires when the user changes a setting (the session then has something to save);
    ``changed`` when anything changes, the user or a program (a restored project)."""

    edited = Signal()
    changed = Signal()

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("metaevalForm")
        self.session = session
        self.samples = dict(DEFAULT_SAMPLES)           # B per resampling test, as last set

        self.data = QrelsRunsPicker(session, object_prefix="metaeval")
        measures_box = QGroupBox("Measures")
        self.picker = MeasurePicker(registry=measures_offered())
        self.level_spin = spin_box("metaevalRelevanceLevel", int(LEVEL.minimum), 100, LEVEL.default,
                                "Minimum grade that counts as relevant (trec_eval -l). Preference measures: grades "
                                "told apart at 1 (graded RPP), binary from grade N at another level N")
        measures_layout = QFormLayout(measures_box)
        measures_layout.addRow(self.picker)
        measures_layout.addRow("Relevant from grade", self.level_spin)

        experiment_box = QGroupBox("Experiment")
        self.experiment_combo = registry_combo("metaevalExperiment", EXPERIMENTS, EXPERIMENT_LABELS)
        self.pages = QStackedWidget()
        for page in (self._stability_page(), self._power_page(), self._robustness_page(), self._agreement_page()):
            self.pages.addWidget(page)
        self.seed_spin = spin_box("metaevalSeed", 0, 2_147_483_647, 42, parameter_tip(STABILITY, "seed"))
        self.fill_check = QCheckBox("Score missing queries as 0 (-c)")
        self.fill_check.setObjectName("metaevalFillMissing")
        self.fill_check.setToolTip("Use every qrels query; a run without results for one scores 0 there, as "
                                   "trec_eval -c. Otherwise only the queries every run has are used.")
        common = QFormLayout()
        common.addRow("Seed", self.seed_spin)
        common.addRow(self.fill_check)
        experiment_layout = QVBoxLayout(experiment_box)
        experiment_layout.addWidget(self.experiment_combo)
        experiment_layout.addWidget(self.pages)
        experiment_layout.addLayout(common)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.data)
        layout.addWidget(measures_box, 1)
        layout.addWidget(experiment_box)

        self.experiment_combo.currentIndexChanged.connect(self._experiment_changed)
        self.test_combo.currentIndexChanged.connect(self._test_changed)
        self._experiment_changed()
        # The user's edits only (itemChanged: a click; refilling the lists from the session is none).
        for signal in (self.data.qrels_combo.currentIndexChanged, self.data.run_list.itemChanged, self.picker.changed,
                       self.level_spin.valueChanged, self.experiment_combo.currentIndexChanged,
                       self.fuzziness_spin.valueChanged, self.set_sizes_edit.textEdited, self.sets_spin.valueChanged,
                       self.replacement_check.toggled, self.stability_repetitions_spin.valueChanged,
                       self.test_combo.currentIndexChanged, self.correction_combo.currentIndexChanged,
                       self.alpha_spin.valueChanged, self.samples_spin.valueChanged, self.fractions_edit.textEdited,
                       self.robustness_repetitions_spin.valueChanged, self.seed_spin.valueChanged,
                       self.fill_check.toggled):
            signal.connect(self.edited)
        self.edited.connect(self.changed)
        for line in (self.set_sizes_edit, self.fractions_edit):
            line.textChanged.connect(self.changed)         # textEdited (in edited) is the user's typing only

    # ------------------------------------------------------------ the experiments' pages
    def _stability_page(self) -> QWidget:
        self.fuzziness_spin = QDoubleSpinBox()
        self.fuzziness_spin.setObjectName("metaevalFuzziness")
        self.fuzziness_spin.setDecimals(3)
        self.fuzziness_spin.setRange(0.0, 0.99)
        self.fuzziness_spin.setSingleStep(0.01)
        self.fuzziness_spin.setValue(0.05)
        self.fuzziness_spin.setToolTip(parameter_tip(STABILITY, "fuzziness"))
        self.set_sizes_edit = line_edit("metaevalSetSizes", "5, 10, … up to n/2", parameter_tip(STABILITY, "set size"))
        self.sets_spin = spin_box("metaevalSets", 1, MAX_SETS, 1000, parameter_tip(STABILITY, "sets"))
        self.replacement_check = QCheckBox("Draw with replacement")
        self.replacement_check.setObjectName("metaevalReplacement")
        self.replacement_check.setToolTip(parameter_tip(STABILITY, "replacement"))
        self.stability_repetitions_spin = spin_box("metaevalStabilityRepetitions", 1, MAX_REPETITIONS, 5,
                                                parameter_tip(STABILITY, "repetitions"))
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Fuzziness", self.fuzziness_spin)
        form.addRow("Set sizes", self.set_sizes_edit)
        form.addRow("Sets", self.sets_spin)
        form.addRow(self.replacement_check)
        form.addRow("Repetitions", self.stability_repetitions_spin)
        return page

    def _power_page(self) -> QWidget:
        self.test_combo = registry_combo("metaevalTest", TESTS, TEST_LABELS)
        self.test_combo.setCurrentIndex(self.test_combo.findData("bootstrap"))      # Sakai's
        self.correction_combo = registry_combo("metaevalCorrection", CORRECTIONS, CORRECTION_LABELS)
        self.correction_combo.setCurrentIndex(self.correction_combo.findData("none"))
        self.alpha_spin = QDoubleSpinBox()
        self.alpha_spin.setObjectName("metaevalAlpha")
        self.alpha_spin.setDecimals(4)
        self.alpha_spin.setRange(0.0001, 0.5)
        self.alpha_spin.setSingleStep(0.01)
        self.alpha_spin.setValue(0.05)
        self.alpha_spin.setToolTip(parameter_tip(POWER, "alpha"))
        self.samples_spin = spin_box("metaevalSamples", 1, MAX_SAMPLES, DEFAULT_SAMPLES["bootstrap"], "")
        self.samples_spin.valueChanged.connect(self._samples_changed)
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Test", self.test_combo)
        form.addRow("Correction", self.correction_combo)
        form.addRow("α", self.alpha_spin)
        form.addRow("Samples B", self.samples_spin)
        return page

    def _robustness_page(self) -> QWidget:
        self.fractions_edit = line_edit("metaevalFractions", "0.1, 0.2, … 0.9", parameter_tip(ROBUSTNESS, "fractions"))
        self.robustness_repetitions_spin = spin_box("metaevalRobustnessRepetitions", 1,
                                                    MAX_ROBUSTNESS_REPETITIONS, 10,
                                                    parameter_tip(ROBUSTNESS, "repetitions"))
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Fractions", self.fractions_edit)
        form.addRow("Repetitions", self.robustness_repetitions_spin)
        return page

    @staticmethod
    def _agreement_page() -> QWidget:
        note = QLabel("Nothing more to set: every two measures are compared, over the queries both have.")
        note.setWordWrap(True)
        return note

    # ------------------------------------------------------------ reacting
    def experiment(self) -> str:
        return self.experiment_combo.currentData()

    def _experiment_changed(self) -> None:
        self.pages.setCurrentIndex(self.experiment_combo.currentIndex())
        self._test_changed()

    def _test_changed(self) -> None:
        test = self.test_combo.currentData()
        resampling = test in RESAMPLING
        self.samples_spin.setEnabled(resampling)
        self.samples_spin.blockSignals(True)
        self.samples_spin.setValue(self.samples.get(test, DEFAULT_SAMPLES["bootstrap"]))
        self.samples_spin.blockSignals(False)
        self.samples_spin.setToolTip(f"{parameter_tip(POWER, 'samples')}: {DEFAULT_SAMPLES[test]:,} for this test"
                                     if resampling else "Only the resampling tests (randomization, bootstrap, "
                                                        "Tukey HSD) draw samples")
        tukey = test == "tukey"
        self.correction_combo.setEnabled(not tukey)
        if tukey:
            self.correction_combo.setToolTip("Tukey's HSD controls the family-wise error over all pairs itself: "
                                             "no further correction is applied.")
        else:
            self.correction_combo.setToolTip(CORRECTIONS[self.correction_combo.currentData()].help_text)
        # The seed matters where something is drawn at random.
        experiment = self.experiment()
        self.seed_spin.setEnabled(experiment in (STABILITY, ROBUSTNESS) or (experiment == POWER and resampling))

    def _samples_changed(self, value: int) -> None:
        test = self.test_combo.currentData()
        if test in RESAMPLING:
            self.samples[test] = value

    def refresh_inputs(self) -> None:
        self.data.refresh_inputs()

    # ------------------------------------------------------------ what Run needs
    def settings(self):
        """The chosen experiment's engine settings; EvalUsageError names a bad value, in words for a dialog."""
        from evalgui.core.metaeval import experiments as ex

        experiment, seed = self.experiment(), self.seed_spin.value()
        try:
            if experiment == STABILITY:
                sizes = parse_numbers(self.set_sizes_edit.text(), int, "Set sizes", "5, 10, 25")
                return ex.StabilitySettings(set_sizes=sizes, sets=self.sets_spin.value(),
                                            fuzziness=self.fuzziness_spin.value(),
                                            replacement=self.replacement_check.isChecked(),
                                            repetitions=self.stability_repetitions_spin.value(), seed=seed)
            if experiment == POWER:
                test = self.test_combo.currentData()
                return ex.PowerSettings(test=test, correction=self.correction_combo.currentData(),
                                        alpha=self.alpha_spin.value(),
                                        samples=self.samples_spin.value() if test in RESAMPLING else None, seed=seed)
            if experiment == ROBUSTNESS:
                fractions = parse_numbers(self.fractions_edit.text(), float, "Fractions", "0.3, 0.6, 0.9")
                return ex.RobustnessSettings(fractions=fractions or ex.DEFAULT_FRACTIONS,
                                             repetitions=self.robustness_repetitions_spin.value(), seed=seed)
            return ex.AgreementSettings()
        except EvalUsageError:
            raise
        except ValueError as exc:
            raise EvalUsageError(f"{EXPERIMENT_LABELS[experiment]}: {exc}.") from None

    def request(self):
        """The meta-evaluation workflow's request and the session's data it names; EvalUsageError says what is
        missing or wrong, in words for a dialog."""
        from evalgui.core.workflows.inputs import Inputs
        from evalgui.core.workflows.metaeval import request_of_settings
        from evalgui.core.workflows.params import RequestError

        qrels = self.data.qrels_item()
        if qrels is None:
            raise EvalUsageError("Load a qrels file and the runs to meta-evaluate first (File ▸ Open data…).")
        items = self.data.checked_run_items()
        if len(items) < 2:
            raise EvalUsageError("Meta-evaluation compares runs: tick at least two runs under Data.")
        specs = self.picker.specs()
        if not specs:
            raise EvalUsageError("Tick at least one measure.")
        paths = [item.path for item in items]
        inputs = Inputs(names=dict(zip(paths, self.session.run_names(paths))))
        inputs.add(qrels.path, qrels.data)
        for item in items:
            inputs.add(item.path, item.data)
        options = self.options()
        try:
            request = request_of_settings(self.settings(), qrels=qrels.path, runs=tuple(paths), measures=tuple(specs),
                                          level=options.relevance_level, complete=options.complete)
            request.check()
        except RequestError as exc:
            raise EvalUsageError(f"{exc.problems[0].for_window()}.") from None
        return request, inputs

    def options(self):
        """The evaluation options the form sets (-l, -c)."""
        from evalgui.core.ranked.evaluate import EvalOptions

        return EvalOptions(relevance_level=self.level_spin.value(), complete=self.fill_check.isChecked())

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        return {
            **self.data.state(),
            "measures": self.picker.state(),
            "relevance_level": self.level_spin.value(),
            "experiment": self.experiment(),
            "seed": self.seed_spin.value(),
            "fill_missing": self.fill_check.isChecked(),
            "fuzziness": self.fuzziness_spin.value(),
            "set_sizes": self.set_sizes_edit.text(),
            "sets": self.sets_spin.value(),
            "replacement": self.replacement_check.isChecked(),
            "stability_repetitions": self.stability_repetitions_spin.value(),
            "test": self.test_combo.currentData(),
            "correction": self.correction_combo.currentData(),
            "alpha": self.alpha_spin.value(),
            "samples": dict(self.samples),
            "fractions": self.fractions_edit.text(),
            "robustness_repetitions": self.robustness_repetitions_spin.value(),
        }

    def restore(self, state: dict) -> None:
        if not isinstance(state, dict):
            return
        if isinstance(state.get("measures"), dict):
            self.picker.restore(state["measures"])
        if isinstance(state.get("samples"), dict):
            self.samples.update({k: int(v) for k, v in state["samples"].items()
                                 if k in RESAMPLING and isinstance(v, int) and v >= 1})
        for combo, key in ((self.experiment_combo, "experiment"), (self.test_combo, "test"),
                           (self.correction_combo, "correction")):
            index = combo.findData(state.get(key))
            if index >= 0:
                combo.setCurrentIndex(index)
        self._experiment_changed()
        for spin, key, kind in ((self.level_spin, "relevance_level", int), (self.seed_spin, "seed", int),
                                (self.fuzziness_spin, "fuzziness", float), (self.sets_spin, "sets", int),
                                (self.stability_repetitions_spin, "stability_repetitions", int),
                                (self.alpha_spin, "alpha", float),
                                (self.robustness_repetitions_spin, "robustness_repetitions", int)):
            if isinstance(state.get(key), (int, float)) and not isinstance(state.get(key), bool):
                spin.setValue(kind(state[key]))
        for check, key in ((self.fill_check, "fill_missing"), (self.replacement_check, "replacement")):
            if isinstance(state.get(key), bool):
                check.setChecked(state[key])
        for line, key in ((self.set_sizes_edit, "set_sizes"), (self.fractions_edit, "fractions")):
            if isinstance(state.get(key), str):
                line.setText(state[key])
        self.data.restore(state)        # the ticks and the qrels, then a refresh from the session
