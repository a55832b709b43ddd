"""Significance tab: per measure, which systems beat which, with the original's star labels.

Cell (row, column) shows the label of the lowest fuzziness level at which the row
system's value on all entities beats the column system's by more than the difference
required at that level (the bootstrap's estDiff, or the swap method's swapDiffMin with
``-w``): ``***`` at the lowest level, then ``**``, ``*``, ``.``, ``,``. The colour is the
number of levels at which it wins (darker: more), the same in the heatmap and the
table; hovering a table cell gives both values and the thresholds. Copy and Export of
the table give the labels; the matrices of every measure export as ``--printing sign``
writes them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSplitter

from evalgui.core import display
from evalgui.gui.exporting import file_words
from evalgui.gui.matrix import CellTextModel, HeatmapPlot, MatrixView
from evalgui.gui.plots import export_plot_dialog
from evalgui.gui.result_views import ResultView
from evalgui.gui.tables import tsv_text
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.workspaces.stability.results import EXPERIMENT, combination_items, combination_of, combination_text
from evalgui.gui.workspaces.stability.styles import show_combinations_whole


# The eval table's column the matrices compare with, in words.
ESTIMATES = {"estDiff": "Sakai's bootstrap estimate", "swapDiffMin": "the swap method's smallest difference"}


# The original tool's "Systems" column names each row's system; its systemCount column is the Systems header.
SIGNIFICANCE_HEADERS = {"Systems": "System"}


class LabelMatrixView(MatrixView):
    """Copy and Export give the labels shown (the stars), not the numbers behind the colours."""

    def selection_tsv(self) -> str:
        rows, columns, chosen = self._selected_cells()
        if not chosen:
            return ""
        model = self.matrix_model
        return tsv_text([""] + [model.column_label(c) for c in columns],
                        [[model.row_label(r)] + [model.display_text(r, c) if (r, c) in chosen else None
                                                 for c in columns] for r in rows])

    def export_frame(self) -> pd.DataFrame:
        model = self.matrix_model
        return pd.DataFrame([[model.row_label(r)] + [model.display_text(r, c) for c in range(model.columnCount())]
                             for r in range(model.rowCount())],
                            columns=["Systems"] + [model.column_label(c) for c in range(model.columnCount())])


class SignificanceView(ResultView):
    title = "Significance"
    experiments = (EXPERIMENT,)

    def __init__(self):
        super().__init__()
        self.measure = ChoiceBox("stabilitySignificanceMeasure")
        self.measure.setToolTip("The measure whose matrix is shown")
        self.combination = ChoiceBox("stabilitySignificanceCombination")
        self.combination.setToolTip("The experiment whose differences required decide")
        for combo in (self.measure, self.combination):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.model = CellTextModel(mask_diagonal=True, diverging=False, levels=(0.0, 1.0), precision=0)
        self.table = LabelMatrixView(self.model, name="significance")
        self.table.setObjectName("stabilitySignificanceTable")
        self.heatmap = HeatmapPlot(self.model)
        self.heatmap.setObjectName("stabilitySignificanceHeatmap")
        self.heatmap.setMinimumSize(200, 150)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        export = export_button("Export plot…", self.export_plot_dialog)
        sides = QSplitter(Qt.Orientation.Vertical)
        sides.addWidget(self.heatmap)
        sides.addWidget(self.table)
        sides.setSizes([6000, 3000])
        self.page = with_toolbar(sides, [QLabel("Measure"), self.measure, QLabel("Experiment"), self.combination,
                                         export])
        self.page.layout().addWidget(self.caption)

    def choices(self) -> list:
        return [self.measure, self.combination]

    def update_choices(self) -> None:
        self.measure.set_items([(m, m) for m in self.measures()])
        self.combination.set_items(combination_items(self.outcome))
        show_combinations_whole(self.combination)
        if self.outcome is not None:
            levels = len(self.outcome.levels)
            self.model.set_levels((0.0, float(levels)))     # one scale for every measure
            # The colour bar reads in labels: a cell of "**" wins at every level from 0.01 up.
            ticks = [(float(levels - i), f"{label} {level:g}") for i, (label, level) in enumerate(self.outcome.legend)]
            axis = self.heatmap.colour_bar.axis
            axis.setTicks([ticks + [(0.0, "none")]])
            # Wide enough for the labels: the axis drops those that do not fit.
            metrics = QFontMetrics(axis.style["tickFont"] or self.heatmap.font())
            axis.setWidth(max(metrics.horizontalAdvance(text) for _, text in ticks) + 16)

    def draw(self) -> None:
        method, combination = self.measure.currentData(), combination_of(self.combination.currentData())
        if self.outcome is None or method is None or combination is None:
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        outcome = self.outcome
        labels = outcome.matrix(method, combination)
        stars = {label: i for i, (label, _) in enumerate(outcome.legend)}
        levels = outcome.levels
        # How many levels the row system wins at: all from the lowest one it wins at.
        wins = {label: len(levels) - star for label, star in stars.items()}
        won = pd.DataFrame([[wins.get(label, np.nan) for label in row] for row in labels.to_numpy(dtype=object)],
                           index=labels.index, columns=labels.columns, dtype=float)
        self.model.set_frame(won, texts=labels, tooltips=self._tooltips(method, combination, labels))
        estimate = outcome.significance_estimate()
        rows = outcome.rows(combination, method=method).sort_values("fuzziness")
        # an infinite difference required: no difference is enough at that level
        thresholds = ", ".join(f"{level:g}: {value:.4g}" if np.isfinite(value) else f"{level:g}: none is enough"
                               for level, value in zip(rows["fuzziness"], rows[estimate]))
        legend = "  ".join(f"{label} {level:g}" for label, level in outcome.legend)
        text = (f"{display.paper_name(method)}, {combination_text(combination)}: the row system beats the column one by more than the "
                f"difference required ({ESTIMATES.get(estimate, estimate)}, mean over {outcome.settings.iterations} iterations; {thresholds}) "
                f"at the level its label names, on all {outcome.entities:,} entities. Labels: {legend}.")
        if outcome.settings.compat.significance_estimators and rows["cutoff"].notna().any():
            text += " As the original tool, a measure with a cut-off never gets a mark."
        self.caption.setText(text)

    def _tooltips(self, method: str, combination, labels: pd.DataFrame) -> pd.DataFrame:
        outcome = self.outcome
        values = outcome.actual.set_index("measure").loc[method]
        estimate = outcome.significance_estimate()
        rows = outcome.rows(combination, method=method).sort_values("fuzziness")
        required = ", ".join(f"{v:.4g} at {level:g}" for level, v in zip(rows["fuzziness"], rows[estimate]))
        direction = "lower" if outcome.lower_better(method) else "higher"
        legend, value, cells = dict(outcome.legend), values.to_dict(), labels.to_numpy(dtype=object)

        def tip(a, b, label) -> str:
            verdict = f"{a} is better at {legend[label]:g} ({label})" if label else f"{a} is not better at any level"
            return (f"{a} against {b} · {method} ({direction} is better)\n"
                    f"{a}: {value[a]:.6g}, {b}: {value[b]:.6g}, difference {value[a] - value[b]:+.6g}"
                    f"\ndifference required ({ESTIMATES.get(estimate, estimate)}): {required}\n{verdict}")

        # Plain lists, one frame at the end: a cell at a time through .loc cost 60-100 ms for 20 systems,
        # on the GUI thread when the tab is shown.
        return pd.DataFrame([["" if a == b else tip(a, b, cells[i, j]) for j, b in enumerate(labels.columns)]
                             for i, a in enumerate(labels.index)], index=labels.index, columns=labels.columns,
                            dtype=object)

    def export_plot_dialog(self) -> None:
        self.shown()
        name = file_words("Significance", self.measure.currentText())
        export_plot_dialog(self.page, self.heatmap, name)

    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()

    def export_all_dialog(self) -> None:
        """Every measure's and combination's matrix in one table, as evalgui-cli stability --printing sign."""
        from evalgui.gui.exporting import TABLE_FORMATS, export_dialog
        from evalgui.gui.tables import export_shown

        export_dialog(self.page, "significance_matrices", TABLE_FORMATS,
                      lambda path: export_shown(self.outcome.significance, path, SIGNIFICANCE_HEADERS),
                      title="Export every significance matrix")

    def export_targets(self) -> list:
        if self.outcome is None:
            return []
        return [("Significance heatmap…", self.export_plot_dialog),
                ("Significance matrix table…", self.export_table_dialog),
                ("Every significance matrix…", self.export_all_dialog)]
