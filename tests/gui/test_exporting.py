"""The shared export dialog, file modes of everything written, and SVG plots that match the PNG."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QFileDialog, QMessageBox

from evalgui.core.export import atomic_path


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def shown(monkeypatch):
    """The QMessageBox.critical calls made (instead of showing them)."""
    calls = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *args: calls.append(args)))
    return calls


def _save_as(monkeypatch, path, chosen_filter=""):
    starts = []

    def fake(parent, caption, start, filters, *rest):
        starts.append(start)
        return str(path), chosen_filter
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    return starts


def _leftovers(folder) -> list[str]:
    return [n for n in os.listdir(folder) if n.startswith(".evalgui-") or n.endswith(".tmp")]


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# ---------------------------------------------------------------------------- the dialog helper
def test_dialog_adds_the_extension_and_remembers_the_folder(qtbot, tmp_path, monkeypatch, shown):
    from evalgui.gui.exporting import TABLE_FORMATS, export_dialog

    written = []
    starts = _save_as(monkeypatch, tmp_path / "table", "TSV (*.tsv)")
    assert export_dialog(None, "summary", TABLE_FORMATS, written.append) == str(tmp_path / "table.tsv")
    assert written == [str(tmp_path / "table.tsv")] and shown == []
    assert os.path.basename(starts[0]) == "Summary.csv"          # the first format is the default

    starts = _save_as(monkeypatch, tmp_path / "figure.svg", "PNG image (*.png)")    # a typed extension wins
    export_dialog(None, "Precision-recall", (("PNG image", ".png"), ("SVG", ".svg")), written.append)
    assert written[-1] == str(tmp_path / "figure.svg")
    assert starts[0] == os.path.join(str(tmp_path), "Precision-recall.png")    # starts in the remembered folder


def test_cancelled_dialog_writes_nothing(qtbot, monkeypatch, shown):
    from evalgui.gui.exporting import TABLE_FORMATS, export_dialog

    written = []
    _save_as(monkeypatch, "")
    assert export_dialog(None, "summary", TABLE_FORMATS, written.append) is None
    assert written == [] and shown == []


def test_failure_shows_the_path_and_reason_and_leaves_no_temporary_file(qtbot, tmp_path, monkeypatch, shown):
    from evalgui.gui.exporting import TABLE_FORMATS, export_dialog, last_export_folder

    def failing_writer(path):
        with atomic_path(path) as tmp:
            with open(tmp, "w") as fh:
                fh.write("partial")
            raise ValueError("the table could not be rendered")

    target = tmp_path / "out.csv"
    _save_as(monkeypatch, target)
    assert export_dialog(None, "summary", TABLE_FORMATS, failing_writer) is None
    assert len(shown) == 1 and shown[0][2] == f"{target}: the table could not be rendered"
    assert not target.exists() and _leftovers(tmp_path) == []
    assert last_export_folder() != str(tmp_path)                 # only a folder that worked is remembered


def test_exporting_onto_a_folder_names_the_folder_not_a_temporary_file(qtbot, tmp_path, monkeypatch, shown):
    from evalgui.gui.tables import DataFrameModel, FrameTableView

    folder = tmp_path / "results.csv"
    folder.mkdir()
    view = FrameTableView(DataFrameModel(pd.DataFrame({"run": ["a"], "map": [0.5]})), name="summary")
    qtbot.addWidget(view)
    _save_as(monkeypatch, folder)
    view.export_dialog()
    assert len(shown) == 1 and shown[0][2].startswith(f"{folder}: ")
    assert ".tmp" not in shown[0][2] and ".evalgui-" not in shown[0][2]
    assert _leftovers(tmp_path) == [] and os.listdir(folder) == []


# ---------------------------------------------------------------------------- file modes
def _pr_plot(qtbot):
    from evalgui.gui.plots import PrecisionRecallPlot

    plot = PrecisionRecallPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    recall = np.linspace(0, 1, 11)
    plot.set_run("bm25", {("interpolated", "all"): (recall, 1 - 0.8 * recall)})
    plot.set_run("dense", {("interpolated", "all"): (recall, 0.9 - 0.5 * recall)})
    plot.show_curves()
    plot.show()
    qtbot.waitExposed(plot)
    return plot


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
@pytest.mark.parametrize("name", ["table.csv", "table.tex", "plot.png", "plot.svg"])
def test_exports_get_the_umask_mode_or_keep_the_replaced_files(qtbot, tmp_path, umask_022, name):
    from evalgui.gui.plots import export_plot
    from evalgui.gui.tables import export_frame

    if name.startswith("plot"):
        plot = _pr_plot(qtbot)
        write = lambda path: export_plot(plot, str(path))   # noqa: E731
    else:
        write = lambda path: export_frame(pd.DataFrame({"run": ["a"], "map": [0.5]}), str(path))   # noqa: E731
    target = tmp_path / name
    write(target)
    assert _mode(target) == 0o644
    os.chmod(target, 0o640)
    write(target)
    assert _mode(target) == 0o640 and target.stat().st_size > 0
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_saved_projects_get_the_umask_mode_or_keep_the_replaced_files(qtbot, window, tmp_path, umask_022):
    project = tmp_path / "study.evalgui"
    assert window.write_project(str(project))
    assert _mode(project) == 0o644
    os.chmod(project, 0o640)
    assert window.write_project(str(project))
    assert _mode(project) == 0o640
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------------------- SVG matches the PNG
def _render_svg_with_qt(path, width, height) -> QImage:
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)          # scales the view box onto the whole image
    painter.end()
    return image


def _render_svg_with_rsvg(path, width, tmp_path) -> QImage | None:
    if shutil.which("rsvg-convert") is None:
        return None
    out = tmp_path / f"{os.path.basename(path)}.rsvg.png"
    subprocess.run(["rsvg-convert", "-w", str(width), "-b", "white", "-o", str(out), str(path)], check=True)
    return QImage(str(out))


def _near(image: QImage, x: float, y: float, colour: str, radius: int = 3, tolerance: int = 60) -> bool:
    """A pixel within ``radius`` of (x, y) has about ``colour``."""
    want = QColor(colour)
    for dx in range(-radius, radius + 1):
        for dy in range(-radius, radius + 1):
            px, py = int(round(x)) + dx, int(round(y)) + dy
            if 0 <= px < image.width() and 0 <= py < image.height():
                got = QColor(image.pixel(px, py))
                if abs(got.red() - want.red()) + abs(got.green() - want.green()) + abs(got.blue() - want.blue()) \
                        <= tolerance:
                    return True
    return False


def _images(qtbot, plot, tmp_path, name):
    """PNG export, and the SVG export drawn by QSvgRenderer (and librsvg, when present) at its size."""
    from evalgui.gui.plots import export_plot

    export_plot(plot, str(tmp_path / f"{name}.png"))
    export_plot(plot, str(tmp_path / f"{name}.svg"))
    png = QImage(str(tmp_path / f"{name}.png"))
    scale = png.width() / plot.width()
    images = {"png": png, "qt": _render_svg_with_qt(tmp_path / f"{name}.svg", png.width(), png.height())}
    rsvg = _render_svg_with_rsvg(tmp_path / f"{name}.svg", png.width(), tmp_path)
    if rsvg is not None:
        images["rsvg"] = rsvg
    return images, scale


def _scene_point(plot, x, y) -> QPointF:
    return plot.getPlotItem().getViewBox().mapViewToScene(QPointF(x, y))


def test_svg_precision_recall_plot_matches_the_png(qtbot, tmp_path):
    from evalgui.gui.plots import run_colour

    plot = _pr_plot(qtbot)
    images, scale = _images(qtbot, plot, tmp_path, "pr")
    view = plot.getPlotItem().getViewBox().sceneBoundingRect()
    for renderer, image in images.items():
        for run, (x, y) in ((0, (0.0, 1.0)), (0, (1.0, 0.2)), (1, (0.0, 0.9)), (1, (0.5, 0.65))):
            point = _scene_point(plot, x, y) * scale
            assert _near(image, point.x(), point.y(), run_colour(run)), (renderer, run, x, y)
        # The y axis line runs along the left edge of the view box, at precision 0.5.
        axis = _scene_point(plot, 0, 0.5) * scale
        assert _near(image, view.left() * scale, axis.y(), "#000000", tolerance=150), renderer
        # Nothing of the bm25 curve is drawn where 0.75-scaled axes used to put it.
        wrong = _scene_point(plot, 0.75, 1 - 0.8 * 0.75) * scale * 0.75
        assert not _near(image, wrong.x(), wrong.y(), run_colour(0), radius=1), renderer


def _difference_chart(qtbot):
    from evalgui.gui.plots import DifferenceChart

    chart = DifferenceChart()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    differences = [0.3, 0.2, 0.1, 0.05, 0.0, -0.05, -0.1, -0.25]
    frame = pd.DataFrame({"query": [f"q{i}" for i in range(8)], "difference": differences,
                          "value": 0.5, "baseline_value": 0.5})
    frame["outcome"] = np.where(frame["difference"] > 0, "helped", np.where(frame["difference"] < 0, "hurt", "tied"))
    chart.set_differences(frame, "a", "b", "map")
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def test_svg_difference_chart_bars_start_at_zero(qtbot, tmp_path):
    from evalgui.gui.plots import HELPED, HURT

    chart = _difference_chart(qtbot)
    images, scale = _images(qtbot, chart, tmp_path, "diff")
    for renderer, image in images.items():
        zero = _scene_point(chart, 3, 0) * scale               # under bar q3 (0.05), on the zero line
        top = _scene_point(chart, 0, 0.3) * scale              # the top of bar q0
        assert _near(image, _scene_point(chart, 4, 0).x() * scale, zero.y(), "#555555", radius=2, tolerance=90), \
            renderer
        assert _near(image, zero.x(), zero.y() - 4, HELPED, radius=1), renderer      # the bar above 0 ...
        assert not _near(image, zero.x(), zero.y() + 6, HELPED, radius=1), renderer  # ... and not below it
        assert _near(image, top.x(), top.y() + 4, HELPED, radius=1), renderer
        assert not _near(image, top.x(), top.y() - 6, HELPED, radius=1), renderer
        low = _scene_point(chart, 7, -0.25) * scale
        assert _near(image, low.x(), low.y() - 4, HURT, radius=1), renderer


def test_svg_keeps_the_plot_clipped_to_its_axes(qtbot, tmp_path):
    """A zoomed plot's bars stop at the axes. QSvgRenderer (Qt 6.11) ignores clip-path altogether,
    so this is checked on the PNG and with librsvg (as browsers and Inkscape, it honours it)."""
    from evalgui.gui.plots import HELPED

    if shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed")
    chart = _difference_chart(qtbot)
    chart.getPlotItem().setYRange(-0.1, 0.1, padding=0)        # bars q0..q2 reach past the top
    images, scale = _images(qtbot, chart, tmp_path, "zoomed")
    view = chart.getPlotItem().getViewBox().sceneBoundingRect()
    x = _scene_point(chart, 0, 0).x() * scale
    del images["qt"]
    for renderer, image in images.items():
        assert _near(image, x, (view.top() + 6) * scale, HELPED, radius=1), renderer
        assert not _near(image, x, (view.top() - 6) * scale, HELPED, radius=1), renderer


WORKSPACES_WITH_VIEWS = ("compare", "metaeval", "stability", "casebase")


def test_nothing_to_export_before_results_and_never_an_empty_file(qtbot, window, tmp_path, monkeypatch):
    """A fresh session: every Export button of the four workspaces is off, File ▸ Export offers nothing, and a
    table asked to export anyway says so instead of writing an empty file. Results turn the buttons on."""
    from evalgui.gui.toolbar import export_buttons
    from tests.gui.test_compare_workspace import _compare_synthetic

    told = []
    monkeypatch.setattr(QMessageBox, "information", staticmethod(lambda parent, title, text: told.append(title)))
    _save_as(monkeypatch, tmp_path / "empty.csv")
    for key in WORKSPACES_WITH_VIEWS:
        workspace = window.workspaces[key]
        window.tabs.setCurrentWidget(workspace)
        buttons = [b for view in workspace.views for b in export_buttons(view.page)]
        assert buttons and not any(b.isEnabled() for b in buttons), key
        assert workspace.export_targets() == [], key
        window._fill_export_menu()
        assert [a.text() for a in window.export_menu.actions()] == ["Nothing to export"], key
    window.workspaces["metaeval"].table.view.export_dialog()
    assert told == ["Nothing to export"] and not (tmp_path / "empty.csv").exists()
    assert window.workspaces["metaeval"].table.view.name == "Meta-evaluation"       # not "Meta-evaluation - "
    # results arrive: the buttons of the views that show them come on
    compare = _compare_synthetic(qtbot, window)
    assert all(b.isEnabled() for view in (compare.table, compare.matrix, compare.scatter)
               for b in export_buttons(view.page))
    assert not any(b.isEnabled() for b in export_buttons(compare.preference_view.page))   # no preference was run
    assert compare.export_targets()
