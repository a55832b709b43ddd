"""The measure-stability form: the ranks, the measures, the experiments' ranges and settings.

The ranks come from a loaded rank file, or from TREC qrels and runs (the rank of every
relevant document in each run; one not retrieved gets the rank the user sets, by
default the run's depth for the query + 1). Every setting is a parameter of the workflow's
:class:`~evalgui.core.workflows.stability.StabilityRequest`, whose declaration gives its label,
tooltip and bounds; Run hands the request and the session's loaded data to the workflow. The
measures' tooltips and help are their records in the ``rankfile`` registry.
"""

from __future__ import annotations

import dataclasses
import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QSizePolicy, QSpinBox,
                               QStackedWidget, QVBoxLayout, QWidget)

from evalgui.core import display
from evalgui.core.errors import EvalUsageError
from evalgui.core.rankfile import COMPAT_MODES, DEFAULT_MEASURES, DEFAULT_SIGS
from evalgui.core.rankfile.measures import parse_measure
from evalgui.core.workflows.stability import StabilityRequest
from evalgui.gui.declared import Bindings, checked_request, view
from evalgui.gui.forms import parse_numbers
from evalgui.gui.plain_text import tip
from evalgui.gui.workspaces.run_picker import QrelsRunsPicker
from evalgui.gui.workspaces.stability.picker import RankMeasurePicker

RANK_FILE, TREC = "rank file", "trec"
SOURCES = (
    (RANK_FILE, "Rank file", "A loaded rank file (File ▸ Open data…): the experiment's name and one id per system, "
                             "then one line per test entity with its rank in each system"),
    (TREC, "Ranks from qrels and runs", "The rank of every relevant document of the qrels in each ticked run: the "
                                        "entities are the (query, document) pairs judged relevant"),
)
COMPAT = COMPAT_MODES[0]
# A version-1 project's names of the settings that the request names otherwise.
ALIASES = {"relevance_level": "level"}
# The settings whose valid range depends on the loaded ranks (their declarations' limits).
DATA_LIMITED = ("splits", "systems", "entities")


def param(name: str):
    return StabilityRequest.param(name)


def label_of(name: str) -> str:
    return param(name).label


def _spin(object_name: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setObjectName(object_name)
    spin.setGroupSeparatorShown(True)
    return spin


def _line(object_name: str, placeholder: str) -> QLineEdit:
    line = QLineEdit()
    line.setObjectName(object_name)
    line.setPlaceholderText(placeholder)
    line.setClearButtonEnabled(True)
    return line


class StabilityForm(QWidget):
    """``edited`` fires when the user changes a setting (the session then has something to save)."""

    edited = Signal()

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("stabilityForm")
        self.session = session
        self.rank_file_path: str | None = None

        # ---------------------------------------------------------------- the ranks
        source_box = QGroupBox("Ranks")
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("stabilitySource")
        for key, label, text in SOURCES:
            self.source_combo.addItem(label, key)
            self.source_combo.setItemData(self.source_combo.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self.source_combo.currentIndexChanged.connect(
            lambda index: self.source_combo.setToolTip(SOURCES[index][2]))
        self.source_combo.setToolTip(SOURCES[0][2])
        self.bindings = bindings = Bindings(refresh=self.refresh_inputs)
        bindings.bind(view("source", "choice", RANK_FILE, tuple((k, label) for k, label, _ in SOURCES)),
                      self.source_combo, dress=False)
        self.rank_file_combo = QComboBox()
        bindings.hold(view("rank_file", "file"), self, "rank_file_path", shows=(self.rank_file_combo,))
        self.rank_file_combo.setObjectName("stabilityRankFile")
        self.rank_file_combo.setToolTip("A loaded rank file (File ▸ Open data…)")
        self.rank_file_combo.currentIndexChanged.connect(self._rank_file_changed)
        self.rank_file_note = QLabel()
        self.rank_file_note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.rank_file_note.setWordWrap(True)
        rank_file_page = QWidget()
        rank_file_layout = QFormLayout(rank_file_page)
        rank_file_layout.setContentsMargins(0, 0, 0, 0)
        rank_file_layout.addRow("File", self.rank_file_combo)
        rank_file_layout.addRow(self.rank_file_note)

        self.data = QrelsRunsPicker(session, object_prefix="stability")
        self.data.setTitle("")
        self.data.setFlat(True)
        self.data.bind_to(bindings)
        self.level_spin = _spin("stabilityRelevanceLevel")
        self.missing_spin = _spin("stabilityMissingRank")
        self.missing_spin.setSpecialValueText("retrieved + 1")
        trec_page = QWidget()
        trec_layout = QFormLayout(trec_page)
        trec_layout.setContentsMargins(0, 0, 0, 0)
        trec_layout.addRow(self.data)
        for name, widget in (("level", self.level_spin), ("missing_rank", self.missing_spin)):
            label = QLabel()
            bindings.bind(param(name), widget, label)
            trec_layout.addRow(label, widget)
        self.pages = QStackedWidget()
        self.pages.addWidget(rank_file_page)
        self.pages.addWidget(trec_page)
        source_layout = QVBoxLayout(source_box)
        source_layout.addWidget(self.source_combo)
        source_layout.addWidget(self.pages)
        self.source_combo.currentIndexChanged.connect(self._source_changed)
        self._source_changed()

        # ---------------------------------------------------------------- the measures
        measures_box = QGroupBox("Measures")
        self.picker = RankMeasurePicker()
        bindings.bind(param("measures"), self.picker)
        self.total_spin = _spin("stabilityTotalRanks")
        self.total_spin.setSpecialValueText("not given")
        self.total_note = QLabel()
        self.total_note.setObjectName("stabilityTotalNote")
        self.total_note.setWordWrap(True)
        self.total_note.linkActivated.connect(lambda _: self.picker.set_original())
        self.cutoffs_edit = _line("stabilityCutoffs", "e.g. 10, 100 (for @k)")
        measures_layout = QFormLayout(measures_box)
        measures_layout.addRow(self.picker)
        total_label, cutoffs_label = QLabel(), QLabel()
        bindings.bind(param("total_ranks"), self.total_spin, total_label)
        bindings.bind(param("cutoffs"), self.cutoffs_edit, cutoffs_label)
        measures_layout.addRow(total_label, self.total_spin)
        measures_layout.addRow(self.total_note)
        measures_layout.addRow(cutoffs_label, self.cutoffs_edit)

        # ---------------------------------------------------------------- the experiments
        experiments_box = QGroupBox("Experiments")
        self.experiments_check = QCheckBox()
        self.experiments_check.setObjectName("stabilityExperiments")
        self.splits_edit = _line("stabilitySplits", "10")
        self.sigs_edit = _line("stabilitySigs", ", ".join(map(str, DEFAULT_SIGS)))
        self.systems_edit = _line("stabilitySystems", "all")
        self.entities_edit = _line("stabilityEntities", "all")
        self.iterations_spin = _spin("stabilityIterations")
        self.bootstrap_spin = _spin("stabilityBootstrap")
        self.error_check = QCheckBox()
        self.error_check.setObjectName("stabilityErrorRates")
        self.swap_check = QCheckBox()
        self.swap_check.setObjectName("stabilitySwap")
        self.seed_spin = _spin("stabilitySeed")
        self.threads_spin = _spin("stabilityThreads")
        self.compat_check = QCheckBox()
        self.compat_check.setObjectName("stabilityCompat")
        # How the loaded ranks bound a setting (e.g. no more queries than entities), under its box.
        self.limit_notes = {name: QLabel() for name in DATA_LIMITED}
        for name, note in self.limit_notes.items():
            note.setObjectName(f"stabilityLimit_{name}")
            note.setWordWrap(True)
            note.hide()
        experiments_layout = QFormLayout(experiments_box)
        bindings.bind(param("experiments"), self.experiments_check)
        experiments_layout.addRow(self.experiments_check)
        for name, widget in (("splits", self.splits_edit), ("sigs", self.sigs_edit),
                             ("systems", self.systems_edit), ("entities", self.entities_edit),
                             ("iterations", self.iterations_spin), ("bootstrap", self.bootstrap_spin)):
            label = QLabel()
            bindings.bind(param(name), widget, label)
            experiments_layout.addRow(label, widget)
            if name in self.limit_notes:
                experiments_layout.addRow(self.limit_notes[name])
        # The window's plots need the error rates (they cost little): on unless a project says otherwise.
        bindings.bind(dataclasses.replace(param("error_rates"), default=True), self.error_check)
        bindings.bind(param("swap"), self.swap_check)
        experiments_layout.addRow(self.error_check)
        experiments_layout.addRow(self.swap_check)
        for name, widget in (("seed", self.seed_spin), ("threads", self.threads_spin)):
            label = QLabel()
            bindings.bind(param(name), widget, label)
            experiments_layout.addRow(label, widget)
        bindings.bind(param("compat"), self.compat_check)
        self.compat_check.setToolTip(compat_tip())
        experiments_layout.addRow(self.compat_check)
        self.level_spin.setRange(-100, 100)    # grades are small numbers
        self._tips = {name: self.bindings[name].widget.toolTip() for name in DATA_LIMITED}
        self.experiment_widgets = [self.splits_edit, self.sigs_edit, self.systems_edit, self.entities_edit,
                                   self.iterations_spin, self.bootstrap_spin, self.error_check, self.swap_check,
                                   self.seed_spin, self.threads_spin]
        self.experiments_check.toggled.connect(self._experiments_toggled)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(source_box)
        layout.addWidget(measures_box, 1)
        layout.addWidget(experiments_box)

        self.picker.changed.connect(self._update_total_note)
        self.total_spin.valueChanged.connect(self._update_total_note)
        self._update_total_note()
        # The user's edits only (itemChanged: a click; refilling the lists from the session is none).
        for signal in (self.source_combo.currentIndexChanged, self.rank_file_combo.activated,
                       self.data.qrels_combo.currentIndexChanged, self.data.run_list.itemChanged,
                       self.level_spin.valueChanged, self.missing_spin.valueChanged, self.picker.changed,
                       self.total_spin.valueChanged, self.cutoffs_edit.textEdited, self.experiments_check.toggled,
                       self.splits_edit.textEdited, self.sigs_edit.textEdited, self.systems_edit.textEdited,
                       self.entities_edit.textEdited, self.iterations_spin.valueChanged,
                       self.bootstrap_spin.valueChanged, self.error_check.toggled, self.swap_check.toggled,
                       self.seed_spin.valueChanged, self.threads_spin.valueChanged, self.compat_check.toggled):
            signal.connect(self.edited)
        self.bindings.keep_defaults()        # what a project or the demo does not say takes these

    # ------------------------------------------------------------ reacting
    def source(self) -> str:
        return self.source_combo.currentData()

    def _source_changed(self) -> None:
        # As tall as the page shown: a stack is as tall as its tallest page (the qrels and runs) otherwise.
        index = self.source_combo.currentIndex()
        self.pages.setCurrentIndex(index)
        for i in range(self.pages.count()):
            shown = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            self.pages.widget(i).setSizePolicy(shown, shown)
        self.pages.adjustSize()
        self._show_limits()

    def _experiments_toggled(self, on: bool) -> None:
        for widget in self.experiment_widgets:
            widget.setEnabled(on)

    def _update_total_note(self) -> None:
        """Say whether T is needed: only by the per-mille measures (and ROC_AUC) ticked."""
        needing = [display.paper_name(name) for name in self.picker.needs_total()]
        if not needing:
            text = "Not needed: no per-mille measure (‰) or ROC AUC is ticked."
            if not self.picker.is_original():
                per_mille = [display.paper_name(name) for name in DEFAULT_MEASURES if parse_measure(name).needs_total]
                text += (f" <a href='original'>Tick the original tool's set</a> (with {' and '.join(per_mille)}, "
                         "which need T).")
        elif self.total_spin.value():
            text = f"Used by {', '.join(needing)}."
        else:
            text = (f"<span style='color:#b00020'>Needed by {html.escape(', '.join(needing))}: give the number of "
                    "entities the systems ranked.</span>")
        self.total_note.setText(text)

    def _rank_file_changed(self) -> None:
        self.rank_file_path = self.rank_file_combo.currentData()
        self._describe_rank_file()

    def _describe_rank_file(self) -> None:
        item = self.rank_file_item()
        self.rank_file_note.setText("No rank file loaded: File ▸ Open data…" if item is None else
                                    f"{item.data.name}: {item.record.describe(item.summary)}, largest rank "
                                    f"{item.summary['largest rank']:,}")
        self._show_limits()

    def data_limits(self) -> dict:
        """{setting: (lowest, highest, why)} for the settings the loaded rank file bounds: their declarations'
        ``limits``, asked with the values in the boxes (the declared defaults where a box does not hold numbers)."""
        from evalgui.core.workflows.inputs import Inputs
        from evalgui.core.workflows.params import RequestError

        item = self.rank_file_item() if self.source() == RANK_FILE else None
        if item is None:
            return {}
        typed = {name: tuple(value) for name in DATA_LIMITED
                 if isinstance(value := self.bindings[name].value(), list)}
        try:
            request = StabilityRequest(rank_file=item.path, **typed)
        except RequestError:
            request = StabilityRequest(rank_file=item.path)
        inputs = Inputs({item.path: item.data}, {item.path: item.name})
        found = {}
        for name in DATA_LIMITED:
            bounds = param(name).limits(request, inputs)
            if bounds is not None:
                found[name] = bounds
        return found

    def _show_limits(self) -> None:
        """Offer what fits the loaded ranks (issue 24): a box's numbers above its highest are brought down to it
        (the default 10 queries become 8 with 8 entities), a note under the box says why, and its tooltip gives
        the range."""
        if not hasattr(self, "limit_notes"):
            return                      # still building the form
        limits = self.data_limits()
        path = self.rank_file_path if limits else None
        if path != getattr(self, "_limits_for", None):
            for note in self.limit_notes.values():
                note.hide()
            self._limits_for = path
        for name in DATA_LIMITED:
            binding, note = self.bindings[name], self.limit_notes[name]
            if name not in limits:
                note.hide()
                binding.widget.setToolTip(self._tips[name])
                if name == "splits":
                    binding.widget.setPlaceholderText(", ".join(map(str, param(name).default)))
                continue
            low, high, why = limits[name]
            low, high = int(low), int(high)
            values = binding.value()
            if isinstance(values, list) and any(v > high for v in values):
                binding.set_value(sorted({min(v, high) for v in values}))
                note.setText(f"At most {high:,}: {why}.")
                note.show()
            if name == "splits":
                binding.widget.setPlaceholderText(str(min(max(param(name).default), high)))
            binding.widget.setToolTip(f"{self._tips[name]}\nWith the loaded ranks: from {low:,} to {high:,}.")

    def refresh_inputs(self) -> None:
        """Refill the pickers from the session, keeping the user's choices."""
        self.data.refresh_inputs()
        items = self.session.of_kind(RANK_FILE)
        self.rank_file_combo.blockSignals(True)
        self.rank_file_combo.clear()
        for item in items:
            self.rank_file_combo.addItem(item.name, item.path)
            self.rank_file_combo.setItemData(self.rank_file_combo.count() - 1, tip(item.path),
                                             Qt.ItemDataRole.ToolTipRole)
        paths = [i.path for i in items]
        if self.rank_file_path in paths:
            self.rank_file_combo.setCurrentIndex(paths.index(self.rank_file_path))
        elif paths:
            self.rank_file_combo.setCurrentIndex(0)
            self.rank_file_path = paths[0]
        self.rank_file_combo.blockSignals(False)
        self._describe_rank_file()

    def rank_file_item(self):
        item = self.session.find(self.rank_file_path) if self.rank_file_path else None
        return item if item is not None and item.kind == RANK_FILE else None

    def set_rank_file(self, path: str) -> None:
        """Use this loaded rank file (the source becomes "Rank file")."""
        self.rank_file_path = path
        self.source_combo.setCurrentIndex(self.source_combo.findData(RANK_FILE))
        self.refresh_inputs()

    # ------------------------------------------------------------ what Run needs
    def request(self):
        """(StabilityRequest, Inputs holding the session's loaded data); EvalUsageError says what is wrong, in
        the form's words. A rank file's settings are checked here, TREC data's on the worker (after its ranks are
        found)."""
        from evalgui.core.workflows.inputs import Inputs

        measures = tuple(self.picker.specs())
        if not measures:
            raise EvalUsageError("Tick at least one measure.")
        problem = self.picker.specs_problem()
        if problem is not None:
            raise EvalUsageError(problem)
        values = dict(
            measures=measures, iterations=self.iterations_spin.value(), bootstrap=self.bootstrap_spin.value(),
            splits=(parse_numbers(self.splits_edit.text(), int, label_of("splits"), "2, 5, 10")
                    or self._default_splits()),
            systems=parse_numbers(self.systems_edit.text(), int, label_of("systems"), "3, 4"),
            entities=parse_numbers(self.entities_edit.text(), int, label_of("entities"), "100, 200"),
            sigs=parse_numbers(self.sigs_edit.text(), float, label_of("sigs"), "0.01, 0.05") or DEFAULT_SIGS,
            cutoffs=parse_numbers(self.cutoffs_edit.text(), float, "Cut-offs", "10, 100"),
            total_ranks=float(self.total_spin.value()) if self.total_spin.value() else None,
            error_rates=self.error_check.isChecked(), swap=self.swap_check.isChecked(),
            experiments=self.experiments_check.isChecked(), seed=self.seed_spin.value(),
            threads=self.threads_spin.value(), compat=COMPAT if self.compat_check.isChecked() else None)
        if self.source() == RANK_FILE:
            item = self.rank_file_item()
            if item is None:
                raise EvalUsageError("Load a rank file first (File ▸ Open data…), or choose ranks from qrels and "
                                     "runs.")
            values["rank_file"] = item.path
            inputs = Inputs({item.path: item.data}, {item.path: item.name})
        else:
            qrels = self.data.qrels_item()
            if qrels is None:
                raise EvalUsageError("Load a qrels file and the runs first (File ▸ Open data…).")
            items = self.data.checked_held_run_items("Ranks from qrels and runs are read from every run's "
                                                     "rankings")
            if len(items) < 2:
                raise EvalUsageError("Comparing systems needs at least two: tick at least two runs.")
            paths = [item.path for item in items]
            names = dict(zip(paths, self.session.run_names(paths)))
            inputs = Inputs({qrels.path: qrels.data, **{item.path: item.data for item in items}},
                            {qrels.path: qrels.name, **names})
            values.update(qrels=qrels.path, runs=tuple(paths), level=self.level_spin.value(),
                          missing_rank=float(self.missing_spin.value()) if self.missing_spin.value() else None)
        return checked_request(lambda: StabilityRequest(**values), inputs), inputs

    def _default_splits(self) -> tuple:
        """An empty Queries box: the declared default, or as many queries as the loaded ranks allow."""
        limits = self.data_limits().get("splits")
        default = param("splits").default
        return default if limits is None else tuple(sorted({min(v, int(limits[1])) for v in default}))

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        """The settings by the request's names, plus the source shown and the rank file chosen."""
        return self.bindings.state()

    def restore(self, state: dict) -> None:
        self.bindings.restore(state, aliases=ALIASES)


def compat_tip() -> str:
    from evalgui.core.rankfile.compat import describe

    return (f"{param('compat').help.rstrip('.')}: Dunaiski et al.'s published tables "
            f"(actualresults.png, sigresults.png) come from its code, which\n{describe(COMPAT)}.\n"
            "Average@10 stays the average rank within 10, and the seed makes every run repeatable either way.")
