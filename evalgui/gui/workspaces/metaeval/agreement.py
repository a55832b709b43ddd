"""Agreement: measure × measure, as a heatmap and a coloured table on one fixed scale.

What a cell shows is chosen in a combo box: Pearson's correlation of the two measures'
per-query differences, their sign agreement (percent of (run pair, query) cells where
both prefer the same run), or Kendall's τ between their run rankings. Correlations sit
on a diverging scale from −1 to 1, sign agreement on a sequential one from 0 to 100%.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from evalgui.gui.exporting import file_words
from evalgui.gui.matrix import HeatmapPlot, MatrixModel, MatrixView
from evalgui.gui.naming import label
from evalgui.gui.plots import export_plot_dialog
from evalgui.gui.result_views import ResultView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar

PEARSON, SIGN, TAU = "pearson", "sign_agreement", "kendall_tau"
VALUES = (("Pearson (per-query differences)", PEARSON), ("Sign agreement (%)", SIGN),
          ("Kendall's τ (run rankings)", TAU))
SCALES = {PEARSON: ((-1.0, 1.0), True), SIGN: ((0.0, 100.0), False), TAU: ((-1.0, 1.0), True)}
CAPTIONS = {
    PEARSON: "Pearson's correlation of the two measures' differences between every two runs on every query.",
    SIGN: "Share of (run pair, query) cells where both measures prefer the same run, or both see a tie, in percent.",
    TAU: "Kendall's τ_b between the two measures' rankings of the runs (by mean).",
}


class AgreementView(ResultView):
    title = "Agreement matrix"
    experiments = ("agreement",)

    def __init__(self):
        super().__init__()
        self.value = ChoiceBox("metaevalAgreementValue")
        self.value.set_items(list(VALUES))
        self.value.currentIndexChanged.connect(lambda _: self.draw())
        self.model = MatrixModel(precision=3)
        self.table = MatrixView(self.model, name="agreement")
        self.table.setObjectName("metaevalAgreementTable")
        self.heatmap = HeatmapPlot(self.model)
        self.heatmap.setObjectName("metaevalAgreementHeatmap")
        self.heatmap.setMinimumSize(200, 150)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        export = export_button("Export plot…", self.export_plot_dialog)
        sides = QSplitter(Qt.Orientation.Vertical)
        sides.addWidget(self.heatmap)
        sides.addWidget(self.table)
        sides.setSizes([6000, 3000])
        self.page = with_toolbar(sides, [QLabel("Show"), self.value, export])
        self.page.layout().addWidget(self.caption)

    def choices(self) -> list:
        return [self.value]

    def draw(self) -> None:
        if self.outcome is None:
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        value = self.value.currentData()
        levels, diverging = SCALES[value]
        self.model.set_scale(diverging=diverging, levels=levels)
        result = self.outcome.result
        frame = result.matrix(value)
        table = result.table.set_index(["measure_a", "measure_b"])
        tips = pd.DataFrame([[f"{label(a)} · {label(b)}: Pearson {table.loc[(a, b), PEARSON]:.4f}, sign agreement "
                              f"{table.loc[(a, b), SIGN]:.2f}%, Kendall's τ {table.loc[(a, b), TAU]:.4f} "
                              f"({int(table.loc[(a, b), 'cells']):,} cells, {int(table.loc[(a, b), 'queries'])} queries)"
                              for b in frame.columns] for a in frame.index], index=frame.index, columns=frame.columns)
        self.model.set_frame(frame, tooltips=tips)
        self.caption.setText(CAPTIONS[value] + (" Red: agreement; blue: disagreement." if diverging else
                                                " The darker, the more they agree."))

    def export_plot_dialog(self) -> None:
        self.shown()
        export_plot_dialog(self.page, self.heatmap, file_words("Agreement", self.value.currentText()))

    def export_targets(self) -> list:
        if self.outcome is None:
            return []
        return [("Agreement heatmap…", self.export_plot_dialog), ("Agreement matrix table…", self.export_table_dialog)]

    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()
