"""Result views that draw only when in sight, plot views, and the splitter of side-by-side views.

:class:`LazyView` (compare, case-based retrieval): a view of one comparison that catches up with it
only while in sight. :class:`ResultView` (meta-evaluation, measure stability): the same for a view of
one kind of experiment.
A meta-evaluation of 30 runs has 435 pairs and a 30 × 30 matrix: drawing every view
when the results arrive would stall the window, so only the view on screen is drawn
then; the others are drawn when their tab is shown (the workspace calls
:meth:`ResultView.shown`) or before they are exported.

:class:`PlotView`: a :class:`ResultView` around a pyqtgraph plot (:func:`new_plot`),
with its controls above, Export plot… (PNG, SVG) and a caption below.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QWidget

from evalgui.gui.plots import export_plot_dialog, plain_axes
from evalgui.gui.toolbar import export_button, with_toolbar


class LazyView:
    """Subclasses set ``page`` and implement ``update_choices()`` (cheap: refill the combo boxes) and
    ``draw()`` (the expensive part). The workspace calls :meth:`refresh` with each new comparison and
    :meth:`shown` when the view's tab comes into sight; views of other data override :meth:`refresh`
    to keep what they show, then call :meth:`_catch_up`."""

    def __init__(self):
        self.comparison = None
        self._stale = False

    def refresh(self, comparison) -> None:
        self.comparison = comparison
        self._catch_up()

    def _catch_up(self) -> None:
        """New data came: drawn now if in sight, else when shown."""
        self.update_choices()
        self._stale = True
        if self.page.isVisible():
            self.shown()

    def shown(self) -> None:
        """The tab came into sight (or is about to be exported): catch up with the data."""
        if self._stale:
            self._stale = False
            self.draw()

    def draw(self) -> None:
        # Subclasses drawn by their own combo boxes call this first: drawn, however it came, is up to date.
        self._stale = False

    def update_choices(self) -> None:
        pass


class Sides(QSplitter):
    """Two views side by side when both fit with every column whole, else one above the other."""

    def __init__(self, needed_width: Callable[[], int]):
        super().__init__(Qt.Orientation.Horizontal)
        self.setObjectName("drillSides")
        self.needed_width = needed_width

    def resizeEvent(self, event) -> None:
        self.fit()
        super().resizeEvent(event)

    def fit(self) -> None:
        wanted = Qt.Orientation.Horizontal if self.width() >= 2 * self.needed_width() + self.handleWidth() \
            else Qt.Orientation.Vertical
        if self.orientation() != wanted:
            self.setOrientation(wanted)
            self.setSizes([1, 1])               # halves


class ResultView(LazyView):
    """A :class:`LazyView` of an experiment's outcome. Subclasses also set ``title`` and ``experiments`` (the
    experiments whose results they show)."""

    title = ""
    experiments: tuple[str, ...] = ()

    def __init__(self):
        super().__init__()
        self.outcome = None

    def choices(self) -> list:
        """Combo boxes whose choice survives a new run."""
        return []

    def refresh(self, outcome) -> None:
        self.outcome = outcome if outcome is not None and outcome.experiment in self.experiments else None
        self._catch_up()

    def measures(self) -> list[str]:
        return list(self.outcome.measures) if self.outcome is not None else []


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
    plain_axes(item)
    return plot


class PlotView(ResultView):
    """Subclasses also set ``export_name`` and ``export_label``, and build their items on ``self.plot``."""

    export_name = "plot"
    export_label = "Plot…"

    def __init__(self, plot: pg.PlotWidget, controls: list[QWidget]):
        super().__init__()
        self.plot = plot
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        export = export_button("Export plot…", self.export_dialog)
        self.page = with_toolbar(plot, [*controls, export])
        self.page.layout().addWidget(self.caption)

    def export_dialog(self) -> None:
        self.shown()
        export_plot_dialog(self.page, self.plot, self.export_name)

    def export_targets(self) -> list:
        return [(self.export_label, self.export_dialog)] if self.outcome is not None else []
