"""Help ▸ How many queries?: Sakai's topic-set-size design for a paired t test, as a form.

Either the fewest queries that detect a difference, or the smallest difference a number of queries
detects, at a chosen level and power. From a finished comparison the standard deviation of the
per-query differences (and the observed difference and query count) fill themselves in.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel,
                               QRadioButton, QSpinBox, QVBoxLayout, QWidget)

from evalgui.gui.naming import measure as measure_label
from evalgui.gui.worker import Worker

QUERIES_NEEDED, DIFFERENCE_DETECTED = "queries", "difference"


def pairs_of_per_query(per_query: pd.DataFrame | None) -> list[dict]:
    """Each ordered pair of runs and measure in a comparison's long per-query table, with the standard
    deviation of their per-query differences, the mean difference and the number of shared queries."""
    if per_query is None or per_query.empty:
        return []
    pairs = []
    for measure, rows in per_query.groupby("measure", sort=False):
        wide = rows.pivot_table(index="query", columns="run", values="value", aggfunc="first")
        runs = list(dict.fromkeys(rows["run"]))
        for i, first in enumerate(runs):
            for second in runs[i + 1:]:
                differences = (wide[first] - wide[second]).dropna()
                if len(differences) >= 2:
                    pairs.append({"measure": measure, "first": first, "second": second,
                                  "sd": float(differences.std(ddof=1)), "difference": float(differences.mean()),
                                  "queries": int(len(differences))})
    return pairs


class PowerCalculator(QDialog):
    """The calculator; ``answered`` carries the sentence shown once the worker has computed it."""

    answered = Signal(str)

    def __init__(self, per_query: pd.DataFrame | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("How many queries?")
        self._worker: Worker | None = None
        self.pairs = pairs_of_per_query(per_query)

        intro = QLabel("How many queries a paired t test needs to detect a difference between two systems, "
                       "or the smallest difference a number of queries can detect (Sakai's topic-set-size "
                       "design; exact power from the noncentral t distribution).")
        intro.setWordWrap(True)

        self.ask_queries = QRadioButton("Queries needed to detect a difference")
        self.ask_difference = QRadioButton("Smallest difference these queries detect")
        self.ask_queries.setChecked(True)

        self.source = QComboBox()
        self.source.addItem("Type the numbers")
        for pair in self.pairs:
            self.source.addItem(f"{measure_label(pair['measure'])}: {pair['first']} vs {pair['second']} "
                                f"({pair['queries']} queries)")
        self.source.setToolTip("Take the standard deviation, the difference and the number of queries from "
                               "the comparison in Compare systems")
        self.source.setEnabled(bool(self.pairs))

        self.sd = _number(0.0001, 10.0, 0.2, "The standard deviation of the per-query differences between "
                          "the two systems' scores")
        self.difference = _number(0.0001, 10.0, 0.05, "The true difference in mean score you want to detect")
        self.queries = QSpinBox()
        self.queries.setRange(2, 10_000_000)
        self.queries.setValue(50)
        self.queries.setGroupSeparatorShown(True)
        self.queries.setToolTip("How many queries the test collection has")
        self.alpha = _number(0.0001, 0.5, 0.05, "The test's significance level")
        self.power = _number(0.5, 0.9999, 0.8, "The chance of finding the difference when it is real")

        form = QFormLayout()
        form.addRow("From the comparison", self.source)
        form.addRow("Standard deviation of differences", self.sd)
        form.addRow("Difference to detect", self.difference)
        form.addRow("Number of queries", self.queries)
        form.addRow("Significance level (α)", self.alpha)
        form.addRow("Power", self.power)
        self._form = form

        self.answer = QLabel()
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.PlainText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer.setMinimumHeight(self.answer.fontMetrics().lineSpacing() * 3)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        for widget in (intro, self.ask_queries, self.ask_difference):
            layout.addWidget(widget)
        layout.addLayout(form)
        layout.addWidget(self.answer)
        layout.addWidget(buttons)

        self.source.currentIndexChanged.connect(self._fill_from_pair)
        for radio in (self.ask_queries, self.ask_difference):
            radio.toggled.connect(self._ask_changed)
        for spin in (self.sd, self.difference, self.queries, self.alpha, self.power):
            spin.valueChanged.connect(self.calculate)
        self._ask_changed()

    def question(self) -> str:
        return QUERIES_NEEDED if self.ask_queries.isChecked() else DIFFERENCE_DETECTED

    def _ask_changed(self) -> None:
        asking_queries = self.question() == QUERIES_NEEDED
        self._form.setRowVisible(self.difference, asking_queries)
        self._form.setRowVisible(self.queries, not asking_queries)
        self.calculate()

    def _fill_from_pair(self, index: int) -> None:
        if index <= 0:
            return
        pair = self.pairs[index - 1]
        for spin, value in ((self.sd, pair["sd"]), (self.difference, max(abs(pair["difference"]), 0.0001)),
                            (self.queries, pair["queries"])):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
        self.calculate()

    def calculate(self) -> None:
        """Work the answer out on the worker; a newer question supersedes one still being answered."""
        if self._worker is not None:
            self._worker.cancel()
        question, sd, alpha, power = self.question(), self.sd.value(), self.alpha.value(), self.power.value()
        difference, queries = self.difference.value(), self.queries.value()
        if sd <= 0:
            return self._show("The standard deviation of the differences must be more than 0.")

        def job(state):
            from evalgui.core.stats.power import PowerError, minimum_detectable_difference, topic_set_size

            try:
                if question == QUERIES_NEEDED:
                    return question, topic_set_size(sd, difference, alpha, power)
                return question, minimum_detectable_difference(sd, queries, alpha, power)
            except PowerError as exc:
                return "problem", str(exc)

        worker = Worker(job)
        worker.succeeded.connect(lambda result, w=worker: self._answered(w, result, difference, queries))
        worker.failed.connect(lambda message, _details: self._show(message))
        self._worker = worker
        worker.start()

    def _answered(self, worker: Worker, result, difference: float, queries: int) -> None:
        if worker is not self._worker:
            return
        kind, value = result
        level = f"paired t test, α = {self.alpha.value():g}, power {self.power.value():.0%}"
        if kind == QUERIES_NEEDED:
            text = (f"At least {value:,} queries are needed to detect a difference of {difference:.4g} "
                    f"when the per-query differences have a standard deviation of {self.sd.value():.4g} ({level}).")
        elif kind == DIFFERENCE_DETECTED:
            text = (f"With {queries:,} queries the smallest difference detected is {value:.4f} "
                    f"when the per-query differences have a standard deviation of {self.sd.value():.4g} ({level}).")
        else:
            text = "That is beyond what can be computed: " + value.split(": ", 1)[-1] + "."
        self._show(text)

    def _show(self, text: str) -> None:
        self.answer.setText(text)
        self.answered.emit(text)

    def done(self, result: int) -> None:
        if self._worker is not None:
            self._worker.cancel()
        super().done(result)


def _number(low: float, high: float, value: float, tooltip: str) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setDecimals(4)
    spin.setRange(low, high)
    spin.setSingleStep(0.01)
    spin.setValue(value)
    spin.setToolTip(tooltip)
    return spin
