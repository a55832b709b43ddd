"""The meta-evaluation form: the qrels and runs, the measures, the experiment and its settings.

The measures: every ranked measure and the preference measures (rpp, lexiprecision...,
under their own headings), which every experiment takes. The experiment is chosen in a combo box; below it, a page of that experiment's own
settings (stability: fuzziness, set sizes, sets, replacement, repetitions; power: test,
correction, α, B; robustness: fractions, repetitions; agreement: none), then the seed
and "score queries missing from a run as 0", which they share. Every setting is a parameter of
:class:`~evalgui.core.workflows.metaeval.MetaevalRequest`, whose declaration gives its label,
tooltip, bounds and default; the experiment, test and correction boxes' tooltips follow the
choice (its record in the registry).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel,
                               QStackedWidget, QVBoxLayout, QWidget)

from evalgui.core.errors import EvalUsageError
from evalgui.core.metaeval.catalogue import EXPERIMENTS, MAX_ROBUSTNESS_REPETITIONS
from evalgui.core.ranked import preference
from evalgui.core.ranked.measures import REGISTRY
from evalgui.core.stats.catalogue import CORRECTIONS, DEFAULT_SAMPLES, RESAMPLING, TESTS
from evalgui.core.workflows.metaeval import MetaevalRequest
from evalgui.gui.declared import Bindings, view
from evalgui.core.stats.catalogue import CORRECTION_LABELS, TEST_LABELS
from evalgui.gui.forms import parse_numbers, registry_combo, samples_per_test
from evalgui.gui.measurepicker import MeasurePicker
from evalgui.gui.workspaces.run_picker import QrelsRunsPicker

STABILITY, POWER, ROBUSTNESS, AGREEMENT = "stability", "power", "robustness", "agreement"
EXPERIMENT_LABELS = {STABILITY: "Stability (Buckley & Voorhees)", POWER: "Discriminative power (Sakai)",
                     ROBUSTNESS: "Robustness to missing judgments", AGREEMENT: "Agreement between measures"}


def measures_offered() -> dict:
    """The picker's measures: every ranked measure, then the preference measures under headings that say so."""
    return {**REGISTRY, **{name: replace(record, group=f"Preference · {record.group}")
                           for name, record in preference.REGISTRY.items()}}


# A version-1 project's names of the settings that the request names otherwise (its "samples" was B per test).
ALIASES = {"relevance_level": "level", "fill_missing": "complete", "samples": "samples_per_test"}


def param(name: str):
    return MetaevalRequest.param(name)


def repetitions_param(experiment: str, default: int, maximum: int | None = None):
    """The request's one ``repetitions`` (None: the experiment's default) as one box per experiment, each
    showing its experiment's default; the form's state keeps each box under its own name."""
    from dataclasses import replace as changed

    declared = param("repetitions")
    return changed(declared, name=f"{experiment}_repetitions", default=default, optional=False,
                   maximum=declared.maximum if maximum is None else maximum)


def samples_param():
    """B is the chosen test's default until the user sets it (the request's None): the box shows the number."""
    from dataclasses import replace as changed

    return changed(param("samples"), default=DEFAULT_SAMPLES["bootstrap"], optional=False)


def _spin(object_name: str, double: bool = False):
    from PySide6.QtWidgets import QSpinBox

    spin = QDoubleSpinBox() if double else QSpinBox()
    spin.setObjectName(object_name)
    spin.setGroupSeparatorShown(True)
    return spin


def _line(object_name: str, placeholder: str):
    from PySide6.QtWidgets import QLineEdit

    line = QLineEdit()
    line.setObjectName(object_name)
    line.setPlaceholderText(placeholder)
    line.setClearButtonEnabled(True)
    return line


def _row(layout: QFormLayout, bindings: Bindings, declared, widget) -> None:
    """Bind ``widget`` to its declaration and add it to ``layout`` (a check box is its own label)."""
    if isinstance(widget, QCheckBox):
        bindings.bind(declared, widget)
        layout.addRow(widget)
    else:
        label = QLabel()
        bindings.bind(declared, widget, label)
        layout.addRow(label, widget)


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
        self.bindings = Bindings(refresh=self._restored)
        self.data = QrelsRunsPicker(session, object_prefix="metaeval")
        self.data.bind_to(self.bindings)
        # before the test, whose box then shows its B
        self.bindings.hold(view("samples_per_test", "json", {}), get=lambda: dict(self.samples),
                           put=lambda saved: self.samples.update(samples_per_test(saved)))
        measures_box = QGroupBox("Measures")
        self.picker = MeasurePicker(registry=measures_offered())
        self.bindings.bind(param("measures"), self.picker)
        self.level_spin = _spin("metaevalRelevanceLevel")
        measures_layout = QFormLayout(measures_box)
        measures_layout.addRow(self.picker)
        _row(measures_layout, self.bindings, param("level"), self.level_spin)
        self.level_spin.setMaximum(100)                 # grades are small numbers
        self.level_spin.setToolTip(f"{self.level_spin.toolTip()} Preference measures: grades told apart at 1 "
                                   "(graded RPP), binary from grade N at another level N.")

        experiment_box = QGroupBox("Experiment")
        self.experiment_combo = registry_combo("metaevalExperiment", EXPERIMENTS, EXPERIMENT_LABELS)
        self.bindings.bind(param("experiment"), self.experiment_combo)
        self.experiment_combo.setToolTip(EXPERIMENTS[self.experiment()].help_text)     # it follows the choice
        self.pages = QStackedWidget()
        for page in (self._stability_page(), self._power_page(), self._robustness_page(), self._agreement_page()):
            self.pages.addWidget(page)
        self.seed_spin = _spin("metaevalSeed")
        self.fill_check = QCheckBox()
        self.fill_check.setObjectName("metaevalFillMissing")
        common = QFormLayout()
        _row(common, self.bindings, param("seed"), self.seed_spin)
        _row(common, self.bindings, param("complete"), self.fill_check)
        self.judged_spin = _spin("metaevalJudgedBelow")       # the advisor's "too few judged" threshold
        _row(common, self.bindings, param("judged_below"), self.judged_spin)
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
                       self.fill_check.toggled, self.judged_spin.valueChanged):
            signal.connect(self.edited)
        self.edited.connect(self.changed)
        for line in (self.set_sizes_edit, self.fractions_edit):
            line.textChanged.connect(self.changed)         # textEdited (in edited) is the user's typing only
        self.bindings.keep_defaults()        # what a project or the demo does not say takes these

    # ------------------------------------------------------------ the experiments' pages
    def _stability_page(self) -> QWidget:
        self.fuzziness_spin = _spin("metaevalFuzziness", double=True)
        self.fuzziness_spin.setDecimals(3)
        self.fuzziness_spin.setSingleStep(0.01)
        self.set_sizes_edit = _line("metaevalSetSizes", "5, 10, … up to n/2")
        self.sets_spin = _spin("metaevalSets")
        self.replacement_check = QCheckBox()
        self.replacement_check.setObjectName("metaevalReplacement")
        self.stability_repetitions_spin = _spin("metaevalStabilityRepetitions")
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        for name, widget in (("fuzziness", self.fuzziness_spin), ("set_sizes", self.set_sizes_edit),
                             ("sets", self.sets_spin), ("replacement", self.replacement_check)):
            _row(form, self.bindings, param(name), widget)
        _row(form, self.bindings, repetitions_param(STABILITY, 5), self.stability_repetitions_spin)
        self.fuzziness_spin.setMaximum(0.99)            # below 1: a relative difference
        return page

    def _power_page(self) -> QWidget:
        self.test_combo = registry_combo("metaevalTest", TESTS, TEST_LABELS)
        self.correction_combo = registry_combo("metaevalCorrection", CORRECTIONS, CORRECTION_LABELS)
        self.alpha_spin = _spin("metaevalAlpha", double=True)
        self.alpha_spin.setDecimals(4)
        self.alpha_spin.setSingleStep(0.01)
        self.samples_spin = _spin("metaevalSamples")
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        _row(form, self.bindings, param("test"), self.test_combo)              # Sakai's: bootstrap, no correction
        _row(form, self.bindings, param("correction"), self.correction_combo)
        _row(form, self.bindings, param("alpha"), self.alpha_spin)
        _row(form, self.bindings, samples_param(), self.samples_spin)
        self.alpha_spin.setRange(0.0001, 0.9999)        # between 0 and 1, both excluded
        self.test_combo.setToolTip(TESTS[self.test_combo.currentData()].help_text)      # they follow the choice
        self.correction_combo.setToolTip(CORRECTIONS[self.correction_combo.currentData()].help_text)
        self.samples_spin.valueChanged.connect(self._samples_changed)
        return page

    def _robustness_page(self) -> QWidget:
        self.fractions_edit = _line("metaevalFractions", "0.1, 0.2, … 0.9")
        self.robustness_repetitions_spin = _spin("metaevalRobustnessRepetitions")
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        _row(form, self.bindings, param("fractions"), self.fractions_edit)
        _row(form, self.bindings, repetitions_param(ROBUSTNESS, 10, MAX_ROBUSTNESS_REPETITIONS),
             self.robustness_repetitions_spin)
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
        self.samples_spin.setToolTip(f"{param('samples').help} This test's default: {DEFAULT_SAMPLES[test]:,}."
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
        items = self.data.checked_held_run_items("Meta-evaluation scores every run again on samples of the "
                                                 "queries and judgments")
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
                                          level=options.relevance_level, complete=options.complete,
                                          judged_below=self.judged_spin.value())
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
        """The settings by the request's names (repetitions one box per experiment), the qrels and runs ticked,
        the measure picker's state, and B as last set for each test (``samples_per_test``)."""
        return self.bindings.state()

    def restore(self, state: dict) -> None:
        self.bindings.restore(state, aliases=ALIASES)

    def _restored(self) -> None:
        self._experiment_changed()        # the pages and the boxes that follow the experiment and the test
        self.refresh_inputs()
