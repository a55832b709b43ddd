"""Error rate (or tie rate, or ASL rate) against the number of queries the entities are split into, one
curve per measure.

With more queries of fewer entities each, how often does a measure contradict itself?
Give several numbers of queries (``--splits``, “Queries (splits)” in the form) to draw
curves; the other ranges (systems, entities) are fixed by a choice above the plot.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

from evalgui.gui.plain_text import rich
from evalgui.gui.result_views import PlotView, new_plot
from evalgui.gui.toolbar import ChoiceBox
from evalgui.gui.workspaces.stability.results import EXPERIMENT, level_items
from evalgui.gui.workspaces.stability.styles import LEVEL_WIDTH, measure_style, show_combinations_whole
from evalgui.gui.naming import label as shown_name

RATES = (("Error rate", "errRate"), ("Tie rate", "tieRate"), ("ASL rate", "asl"))
NEEDS_E = {"errRate", "tieRate"}


class SplitsView(PlotView):
    title = "Rates vs queries"
    experiments = (EXPERIMENT,)
    export_name = "stability_by_queries"
    export_label = "Rate vs number of queries plot…"

    def __init__(self):
        self.rate = ChoiceBox("stabilitySplitsRate")
        self.rate.setToolTip("The rate shown")
        self.rate.set_items(list(RATES))
        self.level = ChoiceBox("stabilitySplitsFuzziness")
        self.level.setToolTip("The fuzziness level whose rates are shown")
        self.drawn = ChoiceBox("stabilitySplitsDrawn")
        self.drawn.setToolTip("The systems and entities drawn (the other ranges)")
        for combo in (self.rate, self.level, self.drawn):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        super().__init__(new_plot("stabilitySplits", "Queries (splits)", "Error rate (%)"),
                         [self.rate, QLabel("Fuzziness"), self.level, QLabel("Drawn"), self.drawn])
        # Short entries: the room goes to the systems and entities drawn.
        self.rate.setMaximumWidth(100)
        self.level.setMaximumWidth(LEVEL_WIDTH)
        # On a white ground: the curves run under it.
        self.legend = self.plot.getPlotItem().addLegend(offset=(-10, 10), brush=pg.mkBrush(255, 255, 255, 210),
                                                        pen=pg.mkPen("#bbbbbb"))
        self.curves: dict[str, pg.PlotDataItem] = {}

    def choices(self) -> list:
        return [self.rate, self.level, self.drawn]

    def update_choices(self) -> None:
        self.level.set_items(level_items(self.outcome), keep=None if self.level.preferred is not None else 0.05)
        drawn = list(dict.fromkeys((s, e) for _, s, e in self.outcome.combinations())) if self.outcome else []
        self.drawn.set_items([(f"{s} systems · {e:,} entities", f"{s},{e}") for s, e in drawn])
        show_combinations_whole(self.drawn)

    def draw(self) -> None:
        item = self.plot.getPlotItem()
        for curve in self.curves.values():
            item.removeItem(curve)
        self.legend.clear()
        self.curves = {}
        item.setTitle("")
        if self.outcome is None or self.level.currentData() is None or self.drawn.currentData() is None:
            self.caption.setText("")
            return
        column, label = self.rate.currentData(), self.rate.currentText()
        if column in NEEDS_E and not self.outcome.has_error_rates:
            self.caption.setText("The error and tie rates were not computed: tick “Error and tie rates” in "
                                 "the form and run again (or show the ASL rate).")
            return
        systems, entities = (int(v) for v in self.drawn.currentData().split(","))
        level = self.level.currentData()
        table = self.outcome.rows(level=level)
        table = table[(table["systemCount"] == systems) & (table["entityCount"] == entities)]
        for i, measure in enumerate(self.outcome.measures):
            rows = table[table["method"] == measure].sort_values("splitCount")
            colour, symbol, line = measure_style(i)
            self.curves[measure] = item.plot(rows["splitCount"].to_numpy(float), rows[column].to_numpy(float),
                                             name=rich(shown_name(measure)), pen=pg.mkPen(colour, width=2, style=line), symbol=symbol,
                                             symbolSize=8, symbolBrush=colour, symbolPen=None)
        item.setLabel("left", rich(f"{label} (%)"))
        splits = sorted(set(table["splitCount"]))
        item.getAxis("bottom").setTicks([[(float(q), str(q)) for q in splits]])     # whole numbers of queries
        item.enableAutoRange()
        # Room on the right for the legend, which would hide the curves' ends otherwise.
        low, high = (splits[0], splits[-1]) if splits else (0, 1)
        span = max(high - low, 1)
        item.setXRange(low - 0.05 * span, high + 0.45 * span, padding=0)
        item.setTitle(f"{rich(label)} against the number of queries, fuzziness {level:g}", size="10pt")
        caption = (f"One curve per measure: {systems} systems, {entities:,} entities split into "
                   f"{', '.join(map(str, splits))} queries; each point is the mean over "
                   f"{self.outcome.settings.iterations} iterations.")
        if len(splits) < 2:
            caption += (" Only one number of queries was run: give several under “Queries (splits)”, e.g. 2, 5, "
                        "10, to see the rates change with it.")
        self.caption.setText(caption)

    def curve_points(self, measure: str):
        return self.curves[measure].getData()
