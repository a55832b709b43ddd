"""The ranked-retrieval form: which qrels, which runs, which measures, and trec_eval's options."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QVBoxLayout, QWidget

from evalgui.core.ranked.measures import REGISTRY
from evalgui.core.workflows.ranked import EvaluateRequest
from evalgui.gui.declared import Bindings
from evalgui.gui.measurepicker import MeasurePicker
from evalgui.gui.workspaces.run_picker import QrelsRunsPicker


class RankedForm(QWidget):
    """Picks the qrels and runs from the session and keeps the user's ticks across refreshes."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("rankedForm")
        self.session = session

        # Controls dressed from the ranked workflow's declarations (label, help, bounds, default); their
        # values are the form's state under the request's names.
        self.bindings = Bindings(refresh=self.refresh_inputs)
        params = EvaluateRequest.params()
        self.data = QrelsRunsPicker(session)
        self.data.bind_to(self.bindings)
        self.qrels_combo, self.run_list = self.data.qrels_combo, self.data.run_list

        measure_box = QGroupBox("Measures")
        self.picker = MeasurePicker(registry=REGISTRY)
        self.bindings.bind(params["measures"], self.picker)
        QVBoxLayout(measure_box).addWidget(self.picker)

        options_box = QGroupBox("Options")
        self.level_spin = QSpinBox()
        self.level_spin.setObjectName("relevanceLevel")
        self.complete_check = QCheckBox()
        self.complete_check.setObjectName("completeCheck")
        self.max_docs_spin = QSpinBox()
        self.max_docs_spin.setObjectName("maxDocs")
        self.max_docs_spin.setSpecialValueText("all")           # 0: every ranked document (the declaration's empty)
        self.judged_spin = QSpinBox()
        self.judged_spin.setObjectName("judgedBelow")         # the advisor's "too few judged" threshold
        level_label, max_docs_label, judged_label = QLabel(), QLabel(), QLabel()
        self.bindings.bind(params["level"], self.level_spin, level_label)
        self.bindings.bind(params["complete"], self.complete_check)
        self.bindings.bind(params["max_docs"], self.max_docs_spin, max_docs_label)
        self.bindings.bind(params["judged_below"], self.judged_spin, judged_label)
        options_layout = QFormLayout(options_box)
        options_layout.addRow(level_label, self.level_spin)
        options_layout.addRow(self.complete_check)
        options_layout.addRow(max_docs_label, self.max_docs_spin)
        options_layout.addRow(judged_label, self.judged_spin)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.data)
        layout.addWidget(measure_box, 1)
        layout.addWidget(options_box)
        self.bindings.keep_defaults()        # what a project or the demo does not say takes these

    # ------------------------------------------------------------ inputs from the session
    @property
    def qrels_path(self) -> str | None:
        return self.data.qrels_path

    def refresh_inputs(self) -> None:
        self.data.refresh_inputs()

    def qrels_item(self):
        return self.data.qrels_item()

    def checked_run_paths(self) -> list[str]:
        return self.data.checked_run_paths()

    def set_run_checked(self, path: str, checked: bool) -> None:
        self.data.set_run_checked(path, checked)

    def set_qrels(self, path: str) -> None:
        self.data.set_qrels(path)

    def options(self):
        from evalgui.core.ranked.evaluate import EvalOptions

        return EvalOptions(relevance_level=self.level_spin.value(), complete=self.complete_check.isChecked(),
                           max_docs=self.max_docs_spin.value() or None)

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        return self.bindings.state()

    def restore(self, state: dict) -> None:
        self.bindings.restore(state, aliases={"relevance_level": "level"})     # a version-1 project's name
