"""Evaluation tab: one row per experiment (combination, fuzziness level, measure), as ``--printing eval``
writes it, sortable, filtered by measure, fuzziness and combination.

Above the table: how the results were made, and the engine's warnings (queries of few
entities, the degenerate bootstrap of 2 queries). Exports give the rows shown, in their
order: CSV, TSV, LaTeX, Markdown, JSON.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.workspaces.stability.results import combination_items, combination_of, level_items
from evalgui.gui.workspaces.stability.styles import LEVEL_WIDTH

ALL = ""
INTEGERS = {"systemCount", "splitCount", "entityCount"}
HEADER_TIPS = {
    "method": "The measure (a range measure at one cut-off: Average@k_10)",
    "norm": "The measure as asked for",
    "correlation": "Mean Spearman correlation between the systems' ranks of the entities, over every pair of "
                   "systems and iteration",
    "stddev corr": "Standard deviation of that correlation",
    "systemCount": "Systems drawn per iteration",
    "splitCount": "Queries the entities are split into",
    "entityCount": "Entities drawn per iteration",
    "fuzziness": "The level f: a tie within f × the query's mean score, significance at f",
    "cutoff": "The measure's cut-off, when it is a number",
    "errRate": "Error rate, %: per system pair and query, better, worse or a tie; Σ min(better, worse) / Σ "
               "comparisons (mean over the iterations)",
    "stddev errRate": "Standard deviation of the error rate over the iterations",
    "tieRate": "Tie rate, %: Σ ties / Σ comparisons (mean over the iterations)",
    "stddev tieRate": "Standard deviation of the tie rate over the iterations",
    "tRate": "% of system pairs whose paired t-test over the queries has p ≤ f",
    "relRate": "Mean share of the entities the measure used, %",
    "asl": "% of system pairs whose achieved significance level (Sakai's paired bootstrap) is below f",
    "estDiff": "Sakai's estimated difference required for significance at f (largest over the pairs, mean over "
               "the iterations)",
    "swapDiffMin": "Swap method: the lower edge of the first bin of differences whose swap rate is at most f",
    "swapDiffMax": "Swap method: the upper edge of that bin",
    "decisions": "% of system pairs whose values on all entities differ by more than the difference required",
}


class EvaluationView:
    title = "Evaluation"

    def __init__(self):
        self.outcome = None
        self.model = DataFrameModel(best=None, precision=5)          # the original prints 5 decimals
        self.model.set_header_tooltips(HEADER_TIPS)
        self.view = FrameTableView(self.model, name="stability_eval", freeze_first_column=True)
        self.view.setObjectName("stabilityEvalTable")
        self.measure = ChoiceBox("stabilityEvalMeasure")
        self.measure.setToolTip("Show one measure's rows")
        self.level = ChoiceBox("stabilityEvalFuzziness")
        self.level.setToolTip("Show one fuzziness level's rows")
        self.combination = ChoiceBox("stabilityEvalCombination")
        self.combination.setToolTip("Show one combination's rows (queries, systems and entities)")
        for combo in (self.measure, self.level, self.combination):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.report = QLabel()
        self.report.setObjectName("stabilityEvalReport")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        export = export_button("Export table…", self.view.export_dialog)
        self.page = with_toolbar(self.view, [QLabel("Measure"), self.measure, QLabel("Fuzziness"), self.level,
                                             QLabel("Experiment"), self.combination, export])
        self.page.layout().insertWidget(1, self.report)
        self.level.setMaximumWidth(LEVEL_WIDTH)

    def choices(self) -> list:
        return [self.measure, self.level, self.combination]

    def shown(self) -> None:
        """Always up to date (a table is cheap to refill)."""

    def refresh(self, outcome) -> None:
        self.outcome = outcome if outcome is not None and outcome.evaluation is not None else None
        everything = [("All", ALL)]
        self.measure.set_items(everything + ([(m, m) for m in self.outcome.measures] if self.outcome else []))
        self.level.set_items(everything + level_items(self.outcome))
        self.combination.set_items(everything + combination_items(self.outcome))
        if outcome is None:
            self.report.setText("")
        elif self.outcome is None:
            self.report.setText(f"{outcome.describe()}\nThe measures were not evaluated: tick “Evaluate the "
                                "measures” and run again.")
        else:
            warnings = [f"{w[:1].upper()}{w[1:]}" + ("" if w.endswith(("?", ".")) else ".") for w in outcome.warnings]
            self.report.setText("\n".join([outcome.describe(), *warnings]))
        self.draw()

    def frame(self) -> pd.DataFrame:
        """The rows chosen, as the engine gives them."""
        if self.outcome is None:
            return pd.DataFrame()
        level = self.level.currentData()
        return self.outcome.rows(combination_of(self.combination.currentData()), level if level != ALL else None,
                                 self.measure.currentData() or None).reset_index(drop=True)

    def draw(self) -> None:
        self.model.set_frame(self.frame(), directions=None, integers=INTEGERS)

    def export_targets(self) -> list:
        return [("Evaluation table…", self.view.export_dialog)] if self.outcome is not None else []
