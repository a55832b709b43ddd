"""Differences tab: one run minus a baseline run, per query, most helped first."""

from __future__ import annotations

import pandas as pd
from PySide6.QtWidgets import QLabel, QPushButton

from evalgui.core import tidy
from evalgui.core.ranked.jobs import ResultSet
from evalgui.gui.plots import DifferenceChart, export_plot_dialog
from evalgui.gui.toolbar import ChoiceBox, with_toolbar


class DifferencesView:
    title = "Differences"

    def __init__(self):
        self.results = ResultSet()
        self.chart = DifferenceChart()
        self.measure = ChoiceBox("diffMeasure")
        self.baseline = ChoiceBox("diffBaseline")
        self.run = ChoiceBox("diffRun")
        for combo in (self.measure, self.baseline, self.run):
            combo.currentIndexChanged.connect(lambda _: self._show())
        export = QPushButton("Export…")
        export.clicked.connect(self.export_dialog)
        self.page = with_toolbar(self.chart, [QLabel("Measure"), self.measure, QLabel("Run"), self.run,
                                              QLabel("vs baseline"), self.baseline, export])
        self._shown: tuple = (None, None, None)      # measure, baseline and run results drawn

    def export_dialog(self) -> None:
        export_plot_dialog(self.page, self.chart, "differences")

    def choices(self) -> list[ChoiceBox]:
        return [self.measure, self.baseline, self.run]

    def refresh(self, results: ResultSet) -> None:
        self.results = results
        self.measure.set_items([(m, m) for m in results.per_query_measures()])
        runs = results.names()
        self.baseline.set_items([(r, r) for r in runs])
        others = [r for r in runs if r != self.baseline.currentData()] or runs
        self.run.set_items([(r, r) for r in others])
        self._show()

    def frame(self) -> pd.DataFrame:
        """The chart's rows: the chosen run minus the baseline per query, most helped first."""
        from evalgui.core.ranked.curves import per_query_differences

        measure, baseline, run = self.measure.currentData(), self.baseline.currentData(), self.run.currentData()
        empty = pd.DataFrame(columns=["run", "query", "baseline_value", "value", "difference", "outcome"])
        if not measure or baseline not in self.results or run not in self.results or run == baseline:
            return empty
        pair = [self.results[baseline], self.results[run]]
        if any(measure not in r.per_query for r in pair):
            return empty
        rows = pd.concat([pd.DataFrame({tidy.RUN: r.name, tidy.QUERY: r.query_ids, tidy.MEASURE: measure,
                                        tidy.VALUE: r.per_query[measure]}) for r in pair], ignore_index=True)
        return per_query_differences(rows, measure, baseline).reset_index(drop=True)

    def _show(self) -> None:
        run, baseline = self.run.currentData(), self.baseline.currentData()
        # Runs arriving one by one mostly leave the chosen pair as it is: drawing it again for
        # each would only keep the window busy.
        shown = (self.measure.currentData(), self.results.runs.get(baseline), self.results.runs.get(run))
        if shown[0] == self._shown[0] and shown[1] is self._shown[1] and shown[2] is self._shown[2]:
            return
        self._shown = shown
        compared = None
        if run in self.results and baseline in self.results:
            compared = len(set(self.results[run].query_ids) | set(self.results[baseline].query_ids))
        self.chart.set_differences(self.frame(), run or "", baseline or "", self.measure.currentData() or "",
                                   of_queries=compared)

    def export_targets(self) -> list:
        return [("Difference chart…", self.export_dialog)]
