"""The ranked-retrieval form: which qrels, which runs, which measures, and trec_eval's options."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QListWidget, QListWidgetItem, QSpinBox,
                               QVBoxLayout, QWidget)

from evalgui.core.ranked.measures import REGISTRY
from evalgui.gui.measurepicker import MeasurePicker


class RankedForm(QWidget):
    """Picks the qrels and runs from the session and keeps the user's ticks across refreshes."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("rankedForm")
        self.session = session
        self.run_checks: dict[str, bool] = {}      # path -> ticked, remembered across refreshes
        self.qrels_path: str | None = None

        data_box = QGroupBox("Data")
        self.qrels_combo = QComboBox()
        self.qrels_combo.setObjectName("qrelsCombo")
        self.qrels_combo.setToolTip("The relevance judgments to evaluate against")
        self.qrels_combo.currentIndexChanged.connect(self._qrels_changed)
        self.run_list = QListWidget()
        self.run_list.setObjectName("runList")
        self.run_list.setMaximumHeight(120)
        self.run_list.itemChanged.connect(self._run_check_changed)
        data_layout = QFormLayout(data_box)
        data_layout.addRow("Qrels", self.qrels_combo)
        data_layout.addRow("Runs", self.run_list)

        measure_box = QGroupBox("Measures")
        self.picker = MeasurePicker(registry=REGISTRY)
        self.picker.setMinimumHeight(300)
        QVBoxLayout(measure_box).addWidget(self.picker)

        options_box = QGroupBox("Options")
        self.level_spin = QSpinBox()
        self.level_spin.setObjectName("relevanceLevel")
        self.level_spin.setRange(-100, 100)
        self.level_spin.setValue(1)
        self.level_spin.setToolTip("Minimum grade that counts as relevant (trec_eval -l)")
        self.complete_check = QCheckBox("Score queries missing from a run as 0")
        self.complete_check.setObjectName("completeCheck")
        self.complete_check.setToolTip("Average over every judged query; a run's missing queries score 0 (trec_eval -c)")
        self.max_docs_spin = QSpinBox()
        self.max_docs_spin.setObjectName("maxDocs")
        self.max_docs_spin.setRange(0, 10_000_000)
        self.max_docs_spin.setSpecialValueText("all")
        self.max_docs_spin.setToolTip("Keep only the first N ranked documents of each query (trec_eval -M)")
        options_layout = QFormLayout(options_box)
        options_layout.addRow("Relevant from grade", self.level_spin)
        options_layout.addRow(self.complete_check)
        options_layout.addRow("Documents per query", self.max_docs_spin)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(data_box)
        layout.addWidget(measure_box, 1)
        layout.addWidget(options_box)

    # ------------------------------------------------------------ inputs from the session
    def refresh_inputs(self) -> None:
        """Rebuild the qrels picker and run checklist from the session, keeping the user's choices."""
        qrels_items = self.session.of_kind("qrels")
        self.qrels_combo.blockSignals(True)
        self.qrels_combo.clear()
        for item in qrels_items:
            self.qrels_combo.addItem(item.name, item.path)
            self.qrels_combo.setItemData(self.qrels_combo.count() - 1, item.path, Qt.ItemDataRole.ToolTipRole)
        paths = [i.path for i in qrels_items]
        if self.qrels_path in paths:
            self.qrels_combo.setCurrentIndex(paths.index(self.qrels_path))
        elif paths:
            self.qrels_combo.setCurrentIndex(0)
            self.qrels_path = paths[0]
        self.qrels_combo.blockSignals(False)
        self._refresh_runs()

    def qrels_item(self):
        return self.session.find(self.qrels_path) if self.qrels_path else None

    def _qrels_changed(self) -> None:
        self.qrels_path = self.qrels_combo.currentData()
        self._refresh_runs()

    def _refresh_runs(self) -> None:
        from evalgui.core.ranked.evaluate import shared_query_counts

        run_items = self.session.of_kind("run")
        qrels_item = self.qrels_item()
        shared = shared_query_counts(qrels_item.data, [r.data for r in run_items]) if qrels_item else \
            [-1] * len(run_items)
        self.run_list.blockSignals(True)
        self.run_list.clear()
        for item, common in zip(run_items, shared):
            row = QListWidgetItem(item.name)
            row.setData(Qt.ItemDataRole.UserRole, item.path)
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            # New runs are ticked, unless they share no query with the chosen qrels.
            ticked = self.run_checks.get(item.path, common != 0)
            if common == 0:
                row.setText(f"{item.name}  (no query in common with the qrels)")
                row.setForeground(Qt.GlobalColor.gray)
            row.setToolTip(f"{item.path}\n{item.summary['queries']:,} queries, {item.summary['documents']:,} documents"
                           + ("" if common < 0 else f", {common:,} judged"))
            row.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            self.run_list.addItem(row)
        self.run_list.blockSignals(False)

    def _run_check_changed(self, row: QListWidgetItem) -> None:
        self.run_checks[row.data(Qt.ItemDataRole.UserRole)] = row.checkState() == Qt.CheckState.Checked

    def checked_run_paths(self) -> list[str]:
        return [self.run_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.run_list.count())
                if self.run_list.item(i).checkState() == Qt.CheckState.Checked]

    def set_run_checked(self, path: str, checked: bool) -> None:
        self.run_checks[path] = checked
        self._refresh_runs()

    def set_qrels(self, path: str) -> None:
        self.qrels_path = path
        self.refresh_inputs()

    def options(self):
        from evalgui.core.ranked.evaluate import EvalOptions

        return EvalOptions(relevance_level=self.level_spin.value(), complete=self.complete_check.isChecked(),
                           max_docs=self.max_docs_spin.value() or None)

    # ------------------------------------------------------------ settings
    def state(self) -> dict:
        return {
            "qrels": self.qrels_path,
            "runs": dict(self.run_checks),
            "measures": self.picker.state(),
            "relevance_level": self.level_spin.value(),
            "complete": self.complete_check.isChecked(),
            "max_docs": self.max_docs_spin.value(),
        }

    def restore(self, state: dict) -> None:
        if not isinstance(state, dict):
            return
        if isinstance(state.get("measures"), dict):
            self.picker.restore(state["measures"])
        if isinstance(state.get("relevance_level"), int):
            self.level_spin.setValue(state["relevance_level"])
        if isinstance(state.get("complete"), bool):
            self.complete_check.setChecked(state["complete"])
        if isinstance(state.get("max_docs"), int):
            self.max_docs_spin.setValue(state["max_docs"])
        if isinstance(state.get("runs"), dict):
            self.run_checks.update({str(k): bool(v) for k, v in state["runs"].items()})
        if isinstance(state.get("qrels"), str):
            self.qrels_path = state["qrels"]
        self.refresh_inputs()
