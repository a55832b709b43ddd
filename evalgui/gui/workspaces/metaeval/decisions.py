"""Stability: the better / worse / equal matrix of one measure (Buckley & Voorhees' run × run table).

Cell (row, column) reads "B / W / E": over every query set of the largest size (all
repetitions), how often the row run's mean is better than the column run's, worse, or
equal within the fuzziness. The colour is the cell's error share, min(B, W) / (B + W + E):
white where the measure always gives the same verdict, darker where it contradicts
itself, on one scale for every measure of a result (from 0 to a round number above the
largest share; at most 50%). Copy and Export of the table give those shares; the
counts themselves export as a tidy table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from evalgui.core.display import format_number
from evalgui.gui.exporting import file_words
from evalgui.gui.matrix import CellTextModel, HeatmapPlot, MatrixView, nice_limit
from evalgui.gui.naming import label as shown_name
from evalgui.gui.plots import export_plot_dialog
from evalgui.gui.result_views import ResultView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar


def error_shares(counts: np.ndarray) -> np.ndarray:
    """runs x runs: min(better, worse) / all decisions, in percent (NaN where there were none)."""
    from evalgui.core.stats.stability import BETTER, WORSE     # (the statistics: imported when needed)

    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * np.minimum(counts[..., BETTER], counts[..., WORSE]) / counts.sum(axis=2)


class DecisionsView(ResultView):
    title = "Better / worse / equal"
    experiments = ("stability",)

    def __init__(self):
        super().__init__()
        self.measure = ChoiceBox("metaevalDecisionsMeasure")
        self.measure.currentIndexChanged.connect(lambda _: self.draw())
        self.model = CellTextModel(mask_diagonal=True, diverging=False, levels=(0.0, 50.0), precision=1)
        self.model.undefined_text = "–"        # no decision / no shared query: undefined, said so
        self.table = MatrixView(self.model, name="error_share")
        self.table.setObjectName("metaevalDecisionsTable")
        self.heatmap = HeatmapPlot(self.model)
        self.heatmap.setObjectName("metaevalDecisionsHeatmap")
        self.heatmap.setMinimumSize(200, 150)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        export = export_button("Export plot…", self.export_plot_dialog)
        sides = QSplitter(Qt.Orientation.Vertical)
        sides.addWidget(self.heatmap)
        sides.addWidget(self.table)
        sides.setSizes([6000, 3000])
        self.page = with_toolbar(sides, [QLabel("Measure"), self.measure, export])
        self.page.layout().addWidget(self.caption)

    def choices(self) -> list:
        return [self.measure]

    def update_choices(self) -> None:
        self.measure.set_items([(m, m) for m in self.outcome.result.counts] if self.outcome is not None else [])
        if self.outcome is not None:
            # min(B, W) is at most half of the decisions; one scale for every measure of the result.
            shares = [np.nanmax(error_shares(c), initial=0.0) for c in self.outcome.result.counts.values()]
            self.model.set_levels((0.0, min(nice_limit(max(shares, default=0.0)), 50.0)))

    def counts(self) -> np.ndarray:
        """runs x runs x (better, worse, equal) of the chosen measure."""
        return self.outcome.result.counts[self.measure.currentData()]

    def draw(self) -> None:
        if self.outcome is None or self.measure.currentData() is None:
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        result, measure = self.outcome.result, self.measure.currentData()
        counts = self.counts()
        runs = result.systems
        total = counts.sum(axis=2)
        share = error_shares(counts)
        from evalgui.core.stats.stability import BETTER, EQUAL, WORSE

        texts = np.array([[f"{counts[i, j, BETTER]} / {counts[i, j, WORSE]} / {counts[i, j, EQUAL]}"
                           for j in range(len(runs))] for i in range(len(runs))], dtype=object)
        shown = shown_name(measure)
        tips = np.array([[f"{a} against {b} · {shown}, {total[i, j]:,} query sets of {result.matrix_set_size}:\n"
                          f"better {counts[i, j, BETTER]:,}, worse {counts[i, j, WORSE]:,}, equal "
                          f"{counts[i, j, EQUAL]:,}\nerror share min(B, W) / total = {format_number(share[i, j], kind='percent')}"
                          for j, b in enumerate(runs)] for i, a in enumerate(runs)], dtype=object)

        def frame(values) -> pd.DataFrame:
            return pd.DataFrame(values, index=runs, columns=runs)

        self.model.set_frame(frame(share), texts=frame(texts), tooltips=frame(tips))
        tie = (f"|mean preference| ≤ {result.settings.fuzziness:g}" if is_preference_measure(measure) else
               f"within {result.settings.fuzziness:g}")
        self.caption.setText(f"{shown_name(measure)}: over {int(total[0, 1]) if len(runs) > 1 else 0:,} query sets of "
                             f"{result.matrix_set_size} (all repetitions), how often the row run is better / worse / "
                             f"equal ({tie}) against the column run. Colour: the error "
                             f"share min(B, W) / (B + W + E), from 0% (always the same verdict) to "
                             f"{self.model.levels[1]:g}% (50%: as often one verdict as the other).")

    def export_plot_dialog(self) -> None:
        self.shown()
        name = file_words("Better, worse, equal", self.measure.currentText())
        export_plot_dialog(self.page, self.heatmap, name)

    def export_counts_dialog(self) -> None:
        """The counts of every ordered pair, tidy (what evalgui-cli metaeval --matrix writes)."""
        from evalgui.gui.exporting import TABLE_FORMATS, export_dialog
        from evalgui.gui.tables import export_shown

        measure = self.measure.currentData()
        export_dialog(self.page, file_words("Better, worse, equal", self.measure.currentText()), TABLE_FORMATS,
                      lambda path: export_shown(self.outcome.result.matrix_frame(measure), path),
                      title="Export the better / worse / equal counts")

    def export_targets(self) -> list:
        if self.outcome is None:
            return []
        return [("Better / worse / equal heatmap…", self.export_plot_dialog),
                ("Better / worse / equal counts…", self.export_counts_dialog),
                ("Error share table…", self.export_table_dialog)]

    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()


def is_preference_measure(name: str) -> bool:
    """Whether ``name`` is a preference measure: metaeval.scores (and the statistics it imports) is imported
    at the first call, not at start-up."""
    from evalgui.core.metaeval.scores import is_preference_measure as of_scores

    return of_scores(name)
