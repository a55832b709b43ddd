"""What the meta-evaluation plots share: a plain pyqtgraph plot, and a page with its controls and Export.

Every plot view subclasses :class:`PlotView`: it sets ``title``, ``experiments`` (the
experiments whose results it shows), ``export_name`` and ``export_label``, builds its
items on ``self.plot`` and draws the outcome in :meth:`draw`.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from evalgui.gui.plots import export_plot_dialog
from evalgui.gui.toolbar import with_toolbar


def new_plot(object_name: str, bottom: str, left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setObjectName(object_name)
    plot.setMinimumSize(200, 150)       # the window's minimum size must not grow with the plots
    item = plot.getPlotItem()
    item.showGrid(x=True, y=True, alpha=0.25)
    item.hideButtons()
    item.setMenuEnabled(False)
    item.setLabel("bottom", bottom)
    item.setLabel("left", left)
    for side in ("left", "bottom"):
        item.getAxis(side).enableAutoSIPrefix(False)    # rates stay 12.5, not 12500 (x0.001)
    return plot


class PlotView:
    title = ""
    experiments: tuple[str, ...] = ()
    export_name = "plot"
    export_label = "Plot…"

    def __init__(self, plot: pg.PlotWidget, controls: list[QWidget]):
        self.outcome = None
        self.plot = plot
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        export = QPushButton("Export plot…")
        export.clicked.connect(self.export_dialog)
        self.page = with_toolbar(plot, [*controls, export])
        self.page.layout().addWidget(self.caption)

    def choices(self) -> list:
        """Combo boxes whose choice survives a new run."""
        return []

    def refresh(self, outcome) -> None:
        self.outcome = outcome if outcome is not None and outcome.experiment in self.experiments else None
        self.update_choices()
        self.draw()

    def update_choices(self) -> None:
        pass

    def draw(self) -> None:
        pass

    def measures(self) -> list[str]:
        return list(self.outcome.measures) if self.outcome is not None else []

    def export_dialog(self) -> None:
        export_plot_dialog(self.page, self.plot, self.export_name)

    def export_targets(self) -> list:
        return [(self.export_label, self.export_dialog)] if self.outcome is not None else []
