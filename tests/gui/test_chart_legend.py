"""Issue 25: in Case-based's "Quality vs time" chart no point label can cover the legend: the legend has a row of its
own under the x axis, outside the points' box."""

from __future__ import annotations

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
