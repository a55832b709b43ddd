"""The case-based retrieval form: the source, the similarity model with its preview, the retrievers, the metrics.

Two sources: case bases from the session (train and test; the linear retriever computes the
ground truth with the model, MAC/FAC runs for each filter-size/k pair, loaded similarity
results are evaluated as further retrievers), or similarity files only (a loaded ground truth
and retrievers' results, no case base). Every metric and local measure has its registry
record's description as tooltip. The ranked measures (nDCG@10, P@10, AP...) come from the ranked
measure picker; the engine scores them on the ground truth made graded qrels by the relevance
thresholds. :meth:`CaseBaseForm.request` turns the form into the job's input, or an
EvalUsageError the workspace shows in a dialog.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget)

from evalgui.core.cbr.catalogue import METRICS, QUALITY_METRICS
from evalgui.core.cbr.model import DEFAULT_SOURCE
from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.ranked.measures import REGISTRY
from evalgui.gui.declared import Bindings, checked_request, view
from evalgui.gui.forms import parse_numbers
from evalgui.gui.measurepicker import MeasurePicker, mark_invalid
from evalgui.gui.plain_text import tip as plain_tip
from evalgui.gui.workspaces.casebase.model_editor import ModelEditor, PreviewBox
from evalgui.gui.workspaces.run_picker import Checklist

CASE_BASES, FILES = "case_bases", "files"
SOURCES = ((CASE_BASES, "Case bases and a model",
            "The linear retriever computes the ground truth from the train and test case bases with the model; "
            "MAC/FAC and loaded similarity results are evaluated against it"),
           (FILES, "Similarity files only",
            "A loaded ground truth (columns query, case, similarity) and the results of retrievers run elsewhere "
            "(ProCAKE, CBRkit, a neural model): no case base needed"))
SAME_AS_TRAIN = ""


def param(name: str, files: bool = False):
    """A setting's declaration: the case-based request's, or with similarity files the similarity request's."""
    from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest

    return (SimilarityRequest if files else CasebaseRequest).param(name)


def label_of(name: str) -> str:
    """What the case-based workflow's declaration calls a setting."""
    return param(name).label
THRESHOLDS_TIP = ("A case is relevant with grade g when its true similarity reaches the g-th threshold (0.7,0.9: "
                  "grade 1 from 0.7, grade 2 from 0.9); cases below the first are not judged.")
RANKED_DEFAULT_THRESHOLDS = "0.7, 0.9"        # THRESHOLDS_TIP's example, offered when ranked measures are ticked
MAC_FILE_NONE = "The ticked attributes of the model"


class CaseBaseForm(QWidget):
    edited = Signal()
    preview_wanted = Signal()          # the model, the query or the case changed: the workspace recomputes
    error = Signal(str, str)           # title, message: a model file that cannot be read
    reading = Signal(object, str)      # a Worker reading a model file, the file's name: the window shows it

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("cbrForm")
        self.session = session
        self.wanted = {"train": None, "test": SAME_AS_TRAIN, "ground_truth": None}   # paths, kept across refills
        self.id_columns: dict[str, str] = {}       # path -> the id column chosen (else the one it was read with)
        self._keyed: dict[tuple, object] = {}      # (path, load, id column) -> the case base keyed by it
        self.mac_path: str | None = None
        self.mac_model = None
        self._mac_reader = None        # the worker reading MAC's model file, if any
        self._model_reader = None      # the worker reading a model file for the editor, if any
        # The first case base's default model is built in the next turn of the event loop: building the editor's
        # rows in the same turn as the lists of ids would keep the window from answering for too long at once.
        self.default_timer = QTimer(self)
        self.default_timer.setSingleShot(True)
        self.default_timer.setInterval(0)
        self.default_timer.timeout.connect(self._default_if_empty)

        # ---------------------------------------------------------------- the source
        source_box = QGroupBox("Source")
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("cbrSource")
        for key, label, tip in SOURCES:
            self.source_combo.addItem(label, key)
            self.source_combo.setItemData(self.source_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.source_combo.setToolTip(SOURCES[0][2])
        # Every setting bound to its declaration (the request's, or a view-only one): the form's state is
        # theirs, restored in this order; the model and MAC's file once the case bases are refilled (late).
        self.bindings = Bindings(refresh=self.refresh_inputs)
        self.bindings.bind(view("source", "choice", CASE_BASES, tuple((k, label) for k, label, _ in SOURCES)),
                           self.source_combo, dress=False)
        self.train_combo = self._file_combo("cbrTrain", "The case base to retrieve from (train)")
        self.test_combo = self._file_combo("cbrTest", "The queries (test case base); the same file as train: "
                                                      "a query never retrieves itself unless ticked below")
        self.train_id = self._id_combo("cbrTrainId", "The train case base's id column")
        self.test_id = self._id_combo("cbrTestId", "The test case base's id column")
        self.include_self = QCheckBox()
        self.include_self.setObjectName("cbrIncludeSelf")
        self.bindings.bind(param("include_self"), self.include_self)
        self.truth_combo = self._file_combo("cbrGroundTruth", "The ground truth: a loaded similarity-results file "
                                                              "(columns query, case, similarity)")
        for key, combo in (("train", self.train_combo), ("test", self.test_combo), ("ground_truth", self.truth_combo)):
            self.bindings.hold(view(key, "file"), self.wanted, key, shows=(combo,))    # paths, kept until loaded
        self.bindings.hold(view("id_columns", "json", {}), get=lambda: dict(self.id_columns),
                           put=self._set_id_columns, shows=(self.train_id, self.test_id), session_only=True)
        self.pages = QStackedWidget()
        bases_page = QWidget()
        bases = QFormLayout(bases_page)
        bases.setContentsMargins(0, 0, 0, 0)
        bases.addRow("Train", self.train_combo)
        bases.addRow("Id column", self.train_id)
        bases.addRow("Test", self.test_combo)
        bases.addRow("Id column", self.test_id)
        bases.addRow(self.include_self)
        self.bases_form = bases
        files_page = QWidget()
        files = QFormLayout(files_page)
        files.setContentsMargins(0, 0, 0, 0)
        files.addRow("Ground truth", self.truth_combo)
        self.pages.addWidget(bases_page)
        self.pages.addWidget(files_page)
        source_layout = QVBoxLayout(source_box)
        source_layout.addWidget(self.source_combo)
        source_layout.addWidget(self.pages)
        self._show_page(0)

        # ---------------------------------------------------------------- the model and its preview
        self.model_box = QGroupBox("Similarity model")
        self.editor = ModelEditor()
        self.preview = PreviewBox()
        model_layout = QVBoxLayout(self.model_box)
        model_layout.addWidget(self.editor)
        model_layout.addWidget(QLabel("Preview"))
        model_layout.addWidget(self.preview)

        # ---------------------------------------------------------------- retrievers
        retrievers_box = QGroupBox("Retrievers")
        self.linear_note = QLabel("Linear (exhaustive): always run, it gives the ground truth.")
        self.linear_note.setWordWrap(True)
        self.mac_list = Checklist("cbrMacAttributes")
        self.mac_list.setMaximumHeight(110)
        self.bindings.bind(param("mac_attributes"), self.mac_list)
        self.mac_list.setToolTip("MAC's cheaper model: these attributes of the model, with their measures "
                                 "and weights")
        self.mac_file_label = QLabel(MAC_FILE_NONE)
        self.mac_file_label.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.mac_file_label.setWordWrap(True)
        self.mac_file_button = QPushButton("MAC model file…")
        self.mac_file_button.setToolTip("MAC's own model file (JSON) instead of a subset of the model's attributes")
        self.mac_clear_button = QPushButton("Use attributes")
        self.mac_clear_button.setToolTip("Back to the ticked attributes of the model")
        self.mac_clear_button.clicked.connect(lambda: self.set_mac_file(None))
        self.filter_sizes = QLineEdit()
        self.filter_sizes.setObjectName("cbrFilterSizes")
        self.filter_sizes.setPlaceholderText("e.g. 10,50")
        self.ks = QLineEdit()
        self.ks.setObjectName("cbrKs")
        self.ks.setPlaceholderText("e.g. 5,10")
        self.pairs_note = QLabel()
        self.pairs_note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.pairs_note.setObjectName("cbrPairsProblem")
        self.pairs_note.setWordWrap(True)
        self.pairs_note.setStyleSheet("color: #c62828;")
        self.pairs_note.hide()
        self.predicted = Checklist("cbrPredicted")
        self.predicted.setMaximumHeight(90)
        self.bindings.bind(param("predicted"), self.predicted)
        self.predicted.setToolTip("Loaded similarity results (columns query, case, similarity) of retrievers run "
                                  "elsewhere, each evaluated as a retriever named after its file")
        mac_files = QHBoxLayout()
        mac_files.addWidget(self.mac_file_button)
        mac_files.addWidget(self.mac_clear_button)
        mac_files.addStretch(1)
        self.retrievers_form = QFormLayout(retrievers_box)
        self.retrievers_form.addRow(self.linear_note)
        self.retrievers_form.addRow("MAC model", self.mac_file_label)
        self.retrievers_form.addRow(mac_files)
        self.retrievers_form.addRow(label_of("mac_attributes"), self.mac_list)
        filter_sizes_label, ks_label = QLabel(), QLabel()
        self.bindings.bind(param("filter_sizes"), self.filter_sizes, filter_sizes_label)
        self.bindings.bind(param("ks"), self.ks, ks_label)
        self.retrievers_form.addRow(filter_sizes_label, self.filter_sizes)
        self.retrievers_form.addRow(ks_label, self.ks)
        self.retrievers_form.addRow(self.pairs_note)
        self.retrievers_form.addRow("Imported results", self.predicted)

        # ---------------------------------------------------------------- metrics
        metrics_box = QGroupBox("Metrics")
        self.metrics = Checklist("cbrMetrics")
        self.metrics.setMinimumHeight(150)
        self.metrics.set_entries([(m, m) for m in QUALITY_METRICS], default=True,
                                 tooltips={m: METRICS[m].help_text for m in QUALITY_METRICS})
        self.bindings.bind(param("metrics"), self.metrics)
        self.ties_combo = QComboBox()
        self.ties_combo.setObjectName("cbrTies")
        ties_label = QLabel()
        self.bindings.bind(param("ties"), self.ties_combo, ties_label)
        metrics_layout = QFormLayout(metrics_box)
        metrics_layout.addRow(self.metrics)
        metrics_layout.addRow(ties_label, self.ties_combo)

        # ---------------------------------------------------------------- ranked measures (graded ground truth)
        ranked_box = QGroupBox("Ranked measures")
        self.ranked_check = QCheckBox("Also nDCG@k, P@k, AP…")      # short: a check box's text cannot wrap
        ranked_note = QLabel("The ground truth becomes graded qrels and each retriever's list a run.")
        ranked_note.setWordWrap(True)
        self.ranked_check.setObjectName("cbrRanked")
        self.ranked_check.setToolTip("By the ranked engine: the ground truth becomes graded qrels (by the thresholds "
                                     "below) and each retriever's list, cut at k, a run")
        self.thresholds = QLineEdit()
        self.thresholds.setObjectName("cbrThresholds")
        self.thresholds.setPlaceholderText("e.g. 0.7,0.9")
        self.thresholds_note = QLabel(THRESHOLDS_TIP)
        self.thresholds_note.setWordWrap(True)
        self.ranked_picker = MeasurePicker(registry=REGISTRY)
        self.ranked_picker.setObjectName("cbrRankedPicker")
        self.bindings.bind(param("metrics"), self.ranked_picker, name="ranked.measures")
        self.bindings.bind(view("ranked", "bool", False), self.ranked_check, name="ranked.on", dress=False)
        self.ranked_settings = QWidget()             # shown while the box is ticked
        ranked_layout = QFormLayout(self.ranked_settings)
        ranked_layout.setContentsMargins(0, 0, 0, 0)
        thresholds_label = QLabel()
        self.bindings.bind(param("relevance_thresholds"), self.thresholds, thresholds_label)
        ranked_layout.addRow(thresholds_label, self.thresholds)
        ranked_layout.addRow(self.thresholds_note)
        ranked_layout.addRow(self.ranked_picker)
        # The model describes the case base's attributes: it is the session's, not remembered for the next.
        self.bindings.hold(view("model", "json"), get=self._model_state, put=self._set_model, late=True,
                           shows=(self.editor,), session_only=True)
        self.bindings.hold(view("mac_model", "file"), get=lambda: self.mac_path,
                           put=lambda path: self.set_mac_file(path, restored=True), late=True)
        ranked_column = QVBoxLayout(ranked_box)
        ranked_column.addWidget(self.ranked_check)
        ranked_column.addWidget(ranked_note)
        ranked_column.addWidget(self.ranked_settings)
        self._show_ranked(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(source_box)
        layout.addWidget(self.model_box)
        layout.addWidget(retrievers_box)
        layout.addWidget(metrics_box)
        layout.addWidget(ranked_box)
        layout.addStretch(1)

        self._update_tips()
        self.source_combo.currentIndexChanged.connect(self._source_changed)
        self.train_combo.currentIndexChanged.connect(self._train_changed)
        self.test_combo.currentIndexChanged.connect(self._test_changed)
        self.train_id.currentIndexChanged.connect(lambda _: self._id_changed(self.train_id, self.train_combo))
        self.test_id.currentIndexChanged.connect(lambda _: self._id_changed(self.test_id, self.test_combo))
        self.truth_combo.currentIndexChanged.connect(self._truth_changed)
        self.editor.changed.connect(self._model_changed)
        self.editor.load_requested.connect(self.load_model)
        self.mac_file_button.clicked.connect(self._mac_file_dialog)
        self.editor.defaults_button.clicked.connect(self.default_model)
        for box in (self.filter_sizes, self.ks):
            box.textChanged.connect(self.check_pairs)
        self.thresholds.textChanged.connect(self.check_thresholds)
        self.ranked_check.toggled.connect(self._show_ranked)
        self.ranked_check.clicked.connect(self._ranked_ticked)
        for combo in (self.preview.query, self.preview.case):
            combo.currentIndexChanged.connect(self.preview_wanted)
        # The user's edits only (refilling the lists from the session is none).
        for signal in (self.source_combo.currentIndexChanged, self.train_combo.currentIndexChanged,
                       self.test_combo.currentIndexChanged, self.truth_combo.currentIndexChanged,
                       self.include_self.toggled, self.editor.changed, self.mac_list.itemChanged,
                       self.filter_sizes.textEdited, self.ks.textEdited, self.predicted.itemChanged,
                       self.metrics.itemChanged, self.ties_combo.currentIndexChanged, self.ranked_check.toggled,
                       self.thresholds.textEdited, self.ranked_picker.changed):
            signal.connect(self.edited)
        self.refresh_inputs()
        self.bindings.keep_defaults()        # what a project or the demo does not say takes these

    # ------------------------------------------------------------ building
    @staticmethod
    def _id_combo(name: str, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setToolTip(f"{tip}: the column naming each case (read: 'id' in any case, else the first column). "
                         "The others are its attributes.")
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        return combo

    @staticmethod
    def _file_combo(name: str, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setToolTip(tip)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        return combo

    def _update_tips(self) -> None:
        files = self.source() == FILES
        # Similarity files only: no MAC/FAC to run, so its rows are hidden.
        for widget in (self.mac_file_label, self.mac_list, self.filter_sizes):
            label = self.retrievers_form.labelForField(widget)
            for shown in (widget, label):
                if shown is not None:
                    shown.setVisible(not files)
        for button in (self.mac_file_button, self.mac_clear_button):
            button.setVisible(not files)
        self.filter_sizes.setToolTip(param("filter_sizes").help)
        self.ks.setToolTip(param("ks", files).help)

    # ------------------------------------------------------------ reacting
    def source(self) -> str:
        return self.source_combo.currentData()

    def _source_changed(self) -> None:
        self._show_page(self.source_combo.currentIndex())
        self.model_box.setVisible(self.source() == CASE_BASES)
        self.linear_note.setVisible(self.source() == CASE_BASES)
        self.source_combo.setToolTip(SOURCES[self.source_combo.currentIndex()][2])
        self._update_tips()
        self.check_pairs()
        self.refresh_inputs()           # the ground truth is no retriever to evaluate

    def _show_page(self, index: int) -> None:
        """The source's page, the box as tall as it (not as the tallest page)."""
        self.pages.setCurrentIndex(index)
        for i in range(self.pages.count()):
            page = self.pages.widget(i)
            page.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred if i == index
                               else QSizePolicy.Policy.Ignored)
            page.updateGeometry()
        self.pages.updateGeometry()

    def _item(self, path):
        return self.session.find(path) if path else None

    def _case_base(self, path):
        """The loaded case base at ``path``, keyed by the id column chosen for it (None: not loaded)."""
        item = self._item(path)
        if item is None:
            return None
        column = self.id_columns.get(path, item.data.id_column)
        key = (path, self.session.version(path), column)
        if key not in self._keyed:
            try:
                self._keyed[key] = item.data.with_id_column(column)
            except EvalInputError:               # chosen for an earlier load of the file: back to its own
                return item.data
        return self._keyed[key]

    def train(self):
        return self._case_base(self.train_combo.currentData())

    def test(self):
        path = self.test_combo.currentData()
        return self.train() if path == SAME_AS_TRAIN else self._case_base(path)

    def _fill_ids(self, combo: QComboBox, path) -> None:
        """Offer the columns of the case base at ``path`` as its id column, the chosen one selected."""
        base = self._case_base(path)
        combo.blockSignals(True)
        combo.clear()
        if base is not None:
            for column in base.file_columns or (base.id_column, *base.attributes):
                combo.addItem(column, column)
            combo.setCurrentIndex(max(combo.findData(base.id_column), 0))
        combo.blockSignals(False)

    def _id_changed(self, combo: QComboBox, files: QComboBox) -> None:
        """Key the case base by the column chosen; a column with a missing or repeated id is refused."""
        path, column = files.currentData(), combo.currentData()
        item = self._item(path)
        if item is None or column is None:
            return
        try:
            keyed = item.data.with_id_column(column)
        except EvalInputError as exc:
            self._fill_ids(combo, path)              # back to the id column it had
            self.error.emit("That column cannot be the id column", str(exc))
            return
        self.id_columns[path] = column
        self._keyed[(path, self.session.version(path), column)] = keyed
        self.editor.set_case_base(self.train())
        if self.editor.source == DEFAULT_SOURCE:      # the attributes changed: so does the default model
            self.default_model()
        self._refresh_preview_choices()
        self.edited.emit()

    def _train_changed(self) -> None:
        self._train_picked()
        self._refresh_preview_choices()

    def _train_picked(self) -> None:
        self.wanted["train"] = self.train_combo.currentData()
        self._fill_ids(self.train_id, self.train_combo.currentData())
        self.editor.set_case_base(self.train())      # keeps the attributes it has, marks the others
        if self.editor.table.rowCount() == 0 and self.train() is not None:
            self.default_timer.start()

    def _default_if_empty(self) -> None:
        """The train case base's default model, unless a model came meanwhile (a file, a project)."""
        self.default_timer.stop()
        if self.editor.table.rowCount() == 0:
            self.default_model()

    def _test_changed(self) -> None:
        self._test_picked()
        self._refresh_preview_choices()

    def _test_picked(self) -> None:
        self.wanted["test"] = self.test_combo.currentData()
        same = self.test_combo.currentData() == SAME_AS_TRAIN
        self._fill_ids(self.test_id, None if same else self.test_combo.currentData())
        for widget in (self.test_id, self.bases_form.labelForField(self.test_id)):
            widget.setVisible(not same)

    def _truth_changed(self) -> None:
        self.wanted["ground_truth"] = self.truth_combo.currentData()
        self.refresh_inputs()

    def _model_changed(self) -> None:
        names = [self.editor.table.item(r, 0).text() for r in range(self.editor.table.rowCount())]
        self.mac_list.set_entries([(n, n) for n in names], default=False,
                                  defaults={n: i < 2 for i, n in enumerate(names)})
        self.preview_wanted.emit()

    def default_model(self) -> None:
        from evalgui.core.cbr.model import default_model

        train = self.train()
        if train is not None:
            self.editor.set_model(default_model(train))

    def load_model(self, path: str) -> None:
        """Read a model file on the worker, then show it in the editor."""
        def read(model):
            self._model_reader = None
            self.editor.set_model(model)

        self._read_model(path, "_model_reader", read, "The model could not be read")

    def _read_model(self, path: str, slot: str, then, failure_title: str) -> None:
        """Read the model file ``path`` on the worker into ``then(model)``; the worker is kept in ``self.<slot>``
        until it ends. Its progress and Cancel are the window's, as for data files (``reading``); a newer
        file for the same slot cancels it."""
        from evalgui.core.cbr.model import load_model
        from evalgui.gui.worker import Worker

        train = self.train()
        old = getattr(self, slot)
        if old is not None:
            old.cancel()
        reader = Worker(lambda state: load_model(path, train, state))
        setattr(self, slot, reader)

        def current() -> bool:
            return getattr(self, slot) is reader

        def failed(message, _details):
            if current():
                setattr(self, slot, None)
                self.error.emit(failure_title, message)

        reader.succeeded.connect(lambda model: then(model) if current() else None)
        reader.failed.connect(failed)
        # Cancelled (or replaced): nothing is being read for this slot any more, so Run need not wait.
        reader.done.connect(lambda: setattr(self, slot, None) if current() else None)
        self.reading.emit(reader, os.path.basename(path))
        reader.start()

    def cancel_reading(self) -> None:
        """Stop reading model files (Cancel)."""
        for reader in (self._model_reader, self._mac_reader):
            if reader is not None:
                reader.cancel()

    def reading_files(self) -> bool:
        """A model file is being read on the worker."""
        return self._model_reader is not None or self._mac_reader is not None

    def _mac_file_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        from evalgui.gui.workspaces.casebase.model_editor import MODEL_FILES

        path, _ = QFileDialog.getOpenFileName(self, "MAC's similarity model", "", MODEL_FILES)
        if path:
            self.set_mac_file(path)

    def set_mac_file(self, path: str | None, restored: bool = False) -> None:
        """MAC's own model file (None: the ticked attributes of the model), read on the worker: a file named
        by a project could be a FIFO or a gzip bomb, which must not hold up the window. ``restored``: named by
        a saved state (a project being opened), so its arrival is no edit."""
        if path is None:
            if self._mac_reader is not None:
                self._mac_reader.cancel()
            self._mac_reader = None
            self._mac_read(None, None, restored)
            return
        self._read_model(path, "_mac_reader", lambda model: self._mac_read(path, model, restored),
                         "MAC's model could not be read")

    def _mac_read(self, path: str | None, model, restored: bool = False) -> None:
        self._mac_reader = None
        self.mac_model = model
        self.mac_path = path
        self.mac_file_label.setText(os.path.basename(path) if path else MAC_FILE_NONE)
        self.mac_file_label.setToolTip(plain_tip(path or ""))
        self.mac_list.setEnabled(path is None and self.source() == CASE_BASES)
        if not restored:
            self.edited.emit()

    def pairs_problem(self) -> str | None:
        """What is wrong with the filter sizes and ks as typed (None: nothing)."""
        from evalgui.core.cbr.evaluate import check_pairs

        try:
            ks = parse_numbers(self.ks.text(), int, "Values of k", "5, 10")
            if self.source() == FILES:
                if any(k < 1 for k in ks):
                    raise EvalUsageError("every k must be at least 1")
                return None
            check_pairs(parse_numbers(self.filter_sizes.text(), int, "Filter sizes", "10, 50"), ks)
        except EvalUsageError as exc:
            return str(exc)
        return None

    def check_pairs(self) -> None:
        problem = self.pairs_problem()
        for box in (self.filter_sizes, self.ks):
            mark_invalid(box, problem)
        if problem is None:
            self._update_tips()
        self.pairs_note.setText(problem or "")
        self.pairs_note.setVisible(bool(problem))

    def _show_ranked(self, on: bool) -> None:
        self.ranked_settings.setVisible(on)          # unticked, the form stays short
        self.check_thresholds()

    def _ranked_ticked(self, on: bool) -> None:
        """Ticked by the user: what Run needs gets a value to start from (the thresholds of the tip's example;
        nDCG, P at the form's k and AP), and the settings scroll into sight."""
        if not on:
            return
        if not self.thresholds.text().strip():
            self.thresholds.setText(RANKED_DEFAULT_THRESHOLDS)
        if not self.ranked_picker.specs():
            try:
                ks = ",".join(dict.fromkeys(str(k) for k in parse_numbers(self.ks.text(), int, "Values of k", "5, 10")
                                            if k > 0))
            except EvalUsageError:
                ks = ""
            self.ranked_picker.set_checked({"ndcg_cut": ks, "P": ks, "map": ""})
        self.check_thresholds()
        QTimer.singleShot(0, self._scroll_to_ranked)

    def _scroll_to_ranked(self) -> None:
        from PySide6.QtWidgets import QScrollArea

        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            parent.ensureWidgetVisible(self.ranked_settings, 0, 0)
            parent.ensureWidgetVisible(self.ranked_check, 0, 0)

    def thresholds_problem(self) -> str | None:
        """What is wrong with the relevance thresholds as typed (None: nothing, or ranked measures off)."""
        from evalgui.core.cbr.evaluate import check_thresholds

        if not self.ranked_check.isChecked():
            return None
        try:
            if not check_thresholds(self._thresholds()):
                return "give the relevance thresholds: similarities in (0, 1], e.g. 0.7,0.9"
        except EvalUsageError as exc:
            return str(exc)
        return None

    def check_thresholds(self) -> None:
        problem = self.thresholds_problem()
        mark_invalid(self.thresholds, problem)
        if problem is None:
            self.thresholds.setToolTip(param("relevance_thresholds").help)

    def ranked_request(self) -> tuple[list[str], tuple[float, ...]]:
        """The ranked measures ticked and the thresholds (nothing while the box is unticked)."""
        if not self.ranked_check.isChecked():
            return [], ()
        problem = self.thresholds_problem()
        if problem:
            raise EvalUsageError(f"Ranked measures: {problem}.")
        specs = self.ranked_picker.specs()
        if not specs:
            raise EvalUsageError("Ranked measures: tick at least one measure, or untick the box.")
        problem = self.ranked_picker.specs_problem()
        if problem:
            raise EvalUsageError(problem)
        return specs, self._thresholds()

    def _thresholds(self) -> tuple:
        return parse_numbers(self.thresholds.text(), float, "Relevance thresholds", "0.7, 0.9")

    # ------------------------------------------------------------ inputs
    @staticmethod
    def _refill(combo: QComboBox, entries: list[tuple[str, str]], wanted) -> None:
        combo.blockSignals(True)
        combo.clear()
        for text, path in entries:
            combo.addItem(text, path)
            combo.setItemData(combo.count() - 1, plain_tip(path), Qt.ItemDataRole.ToolTipRole)
        index = combo.findData(wanted)
        combo.setCurrentIndex(index if index >= 0 else (0 if entries else -1))
        combo.blockSignals(False)

    def refresh_inputs(self) -> None:
        """Refill the pickers from the session, keeping the user's choices (by path)."""
        bases = [(i.name, i.path) for i in self.session.of_kind("case base")]
        results = [(i.name, i.path) for i in self.session.of_kind("similarity results")]
        train_before = self.train_combo.currentData()
        self._refill(self.train_combo, bases, self.wanted["train"])
        self._refill(self.test_combo, [("Same as train", SAME_AS_TRAIN)] + bases, self.wanted["test"])
        self._refill(self.truth_combo, results, self.wanted["ground_truth"])
        if self.wanted["ground_truth"] is None:
            self.wanted["ground_truth"] = self.truth_combo.currentData()
        if self.wanted["train"] is None:
            self.wanted["train"] = self.train_combo.currentData()
        truth = self.truth_combo.currentData() if self.source() == FILES else None
        self.predicted.set_entries([(p, n) for n, p in results if p != truth], default=self.source() == FILES)
        if self.train_combo.currentData() != train_before or self.editor.table.rowCount() == 0:
            self._train_picked()
        else:
            self._fill_ids(self.train_id, self.train_combo.currentData())
        self._test_picked()
        self._refresh_preview_choices()

    def _refresh_preview_choices(self) -> None:
        test, train = self.test(), self.train()
        self.preview.query.set_ids(test.ids if test is not None else None)
        self.preview.case.set_ids(train.ids if train is not None else None, like=self.preview.query)
        self.preview_wanted.emit()

    # ------------------------------------------------------------ the job's input
    def metric_names(self) -> tuple[list[str], tuple[float, ...]]:
        """The metrics ticked, then the ranked measures; and the relevance thresholds."""
        ranked, thresholds = self.ranked_request()
        names = self.metrics.checked() + ranked
        if not names:
            raise EvalUsageError("No metric is ticked: tick at least one.")
        return names, thresholds

    def _predicted(self) -> list[tuple[str, str]]:
        """(path, name) of each imported result ticked (named after its file)."""
        from evalgui.core.formats._text import file_stem

        out = []
        for path in self.predicted.checked():
            if self._item(path) is not None:
                out.append((path, file_stem(path)))
        names = [n for _, n in out]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise EvalUsageError(f"Two imported results are named '{repeated[0]}': tick only one of them.")
        return out

    def request(self):
        """(the workflow's request, Inputs holding the session's loaded data): a CasebaseRequest, or a
        SimilarityRequest for similarity files only; EvalUsageError says what to fix, in the form's words."""
        from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest
        from evalgui.core.workflows.inputs import Inputs

        problem = self.pairs_problem()
        if problem:
            raise EvalUsageError(problem[:1].upper() + problem[1:])
        ks = parse_numbers(self.ks.text(), int, "Values of k", "5, 10")
        metrics, thresholds = self.metric_names()
        common = dict(metrics=tuple(metrics), ties=self.ties_combo.currentData(), relevance_thresholds=thresholds)
        predicted = self._predicted()
        inputs = Inputs({path: self._item(path).data for path, _ in predicted})
        named = {"predicted": tuple(path for path, _ in predicted),
                 "predicted_names": tuple(name for _, name in predicted)}
        if self.source() == FILES:
            truth = self._item(self.truth_combo.currentData())
            if truth is None:
                raise EvalUsageError("Load a ground truth (a similarity-results file) first: File ▸ Open data…")
            if not predicted:
                raise EvalUsageError("Tick at least one retriever's results to evaluate against the ground truth.")
            inputs.add(truth.path, truth.data)
            make = lambda: SimilarityRequest(ground_truth=truth.path, ks=ks, per_query=True, **named, **common)
        else:
            train, test = self.train(), self.test()
            if train is None or test is None:
                raise EvalUsageError("Load a train case base first (File ▸ Open data…), then choose it here.")
            if self.default_timer.isActive():         # Run right after the case base came: its default model
                self._default_if_empty()
            try:
                model = self.editor.model()
            except EvalInputError as exc:
                raise EvalUsageError(f"The similarity model: {exc.reason}") from None
            filter_sizes = parse_numbers(self.filter_sizes.text(), int, "Filter sizes", "10, 50")
            mac = {}
            if filter_sizes:
                if self.mac_model is not None:
                    mac = {"mac_model": [a.to_dict() for a in self.mac_model.attributes]}
                else:
                    names = [n for n in self.mac_list.checked() if n in model.names]
                    if not names:
                        raise EvalUsageError("MAC/FAC needs MAC's model: tick some of the model's attributes, or "
                                             "choose a MAC model file.")
                    mac = {"mac_attributes": tuple(names)}
            train_path = self.train_combo.currentData()
            test_path = self.test_combo.currentData()
            same = test_path == SAME_AS_TRAIN
            inputs.add(train_path, train)
            if not same:
                inputs.add(test_path, test)
            make = lambda: CasebaseRequest(train=train_path, test=None if same else test_path,
                                           model=[a.to_dict() for a in model.attributes], filter_sizes=filter_sizes,
                                           ks=ks, include_self=self.include_self.isChecked(), **named,
                                           per_query=True, **mac, **common)
        return checked_request(make, inputs), inputs

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        """The settings by the request's names, plus the source shown, the files chosen and their id columns,
        the model as edited, MAC's file, and the ranked measures' box and picker (under ``ranked``)."""
        return self.bindings.state()

    def restore(self, state: dict) -> None:
        # Before the declarations, the thresholds were saved with the ranked measures, as typed.
        self.bindings.restore(state, aliases={"ranked.thresholds": "relevance_thresholds"})
        self.check_pairs()

    def _model_state(self) -> dict | None:
        return self.editor.to_dict() if self.editor.table.rowCount() else None

    def _set_id_columns(self, saved: dict) -> None:
        self.id_columns.clear()
        self.id_columns.update({str(p): str(c) for p, c in saved.items()})

    def _set_model(self, saved) -> bool:
        from evalgui.core.cbr.model import SimilarityModel

        if saved is None:               # no model: the train case base's default (in the next turn)
            self.editor.clear()
            if self.train() is not None:
                self.default_timer.start()
            return True
        if not isinstance(saved, dict):
            return False
        try:
            self.editor.set_model(SimilarityModel.from_dict(saved, "<project>"))
        except EvalInputError:
            return False
        return True
