"""Issue 25: in Case-based's "Quality vs time" chart no point label can cover the legend: the legend has a row of its
own under the x axis, outside the points' box."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from tests.gui.conftest import open_demo_and_wait
from tests.gui.test_laptop_layout import resize_and_wait


@pytest.mark.parametrize("size", [(1366, 768), (1024, 640), None])
def test_point_labels_never_cover_the_legend(qtbot, window, size):
    open_demo_and_wait(qtbot, window, only=("casebase",))
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    chart = casebase.chart
    casebase.results_tabs.setCurrentWidget(chart.page)
    resize_and_wait(qtbot, window, *(size or (window.minimumWidth(), window.minimumHeight())))
    for i in range(chart.metric.count()):
        chart.metric.setCurrentIndex(i)
        chart.plot.grab()                              # painted: the labels are where a user sees them
        assert chart.labels and chart.legend.isVisible()
        legend = chart.legend.sceneBoundingRect()
        points_box = chart.plot.getPlotItem().getViewBox().sceneBoundingRect()
        assert legend.height() > 5 and not legend.intersects(points_box), (legend, points_box)
        for label in chart.labels:
            assert not label.sceneBoundingRect().intersects(legend), (label.toPlainText(), chart.metric.currentText())
        assert chart.plot.sceneRect().contains(legend)               # the legend is in the picture, whole
        assert chart.plot.getPlotItem().sceneBoundingRect().contains(legend)


def _points_under(plot, legend) -> int:
    """How many of the plot's curve points (in scene coordinates) the legend's box covers."""
    view = plot.getPlotItem().getViewBox()
    box = legend.sceneBoundingRect()
    covered = 0
    for curve in plot.getPlotItem().listDataItems():
        x, y = curve.getData()
        for px, py in zip(x, y):
            covered += box.contains(view.mapViewToScene(pg.Point(float(px), float(py))))
    return covered


@pytest.mark.parametrize("rising", [True, False])
def test_a_legend_goes_where_the_curves_are_not(qtbot, rising):
    import numpy as np

    from evalgui.gui.plots import keep_legend_clear

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    qtbot.waitExposed(plot)
    item = plot.getPlotItem()
    legend = item.addLegend(offset=(-10, 10))
    keep_legend_clear(item, legend)
    x = np.linspace(0, 1, 12)
    for i in range(4):            # rising curves end in the top right, falling ones start in the top left
        item.plot(x, (x if rising else 1 - x) * (1 - 0.05 * i), name=f"measure {i}", symbol="o")
    item.enableAutoRange()
    plot.grab()
    legend.place_clear()
    plot.grab()
    assert _points_under(plot, legend) == 0
    left = legend.sceneBoundingRect().center().x() < item.getViewBox().sceneBoundingRect().center().x()
    assert left == rising


def test_the_rates_against_set_size_legend_covers_no_point(qtbot, window):
    open_demo_and_wait(qtbot, window, only=("metaeval",))
    metaeval = window.workspaces["metaeval"]
    window.tabs.setCurrentWidget(metaeval)
    view = metaeval.set_size
    metaeval.results_tabs.setCurrentWidget(view.page)
    for i in range(view.rate.count()):
        view.rate.setCurrentIndex(i)
        view.plot.grab()
        assert _points_under(view.plot, view.legend) == 0, view.rate.currentText()
