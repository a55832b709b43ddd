"""The plots of a workflow's outcome, drawn by the window's own views, written as PNG and SVG.

``evalgui-cli run`` calls :func:`write_plots` (the only way the command line reaches Qt): an
offscreen QApplication is made when there is none, the workspace's view is filled with the outcome
(what the window shows, nothing recomputed) and each plot is exported, one per measure.
"""

from __future__ import annotations

import os
import re


def _application():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        # The offscreen platform's notes ("does not support propagateSizeHints()") are not the user's business.
        qInstallMessageHandler(lambda *_: None)
        app = QApplication([])
    return app


def _file_name(*parts: str) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9@.=_-]+", "_", part).strip("_") or "x" for part in parts)


def _matrix_views(view):
    """Each measure of a matrix view drawn in turn, laid out as in the window (offscreen: nothing appears)."""
    from PySide6.QtWidgets import QApplication

    view.page.resize(1000, 800)
    view.page.show()
    for measure in view.measures():
        view.measure.setCurrentIndex(view.measure.findData(measure))
        view.draw()
        QApplication.processEvents()
        yield measure
    view.page.hide()


def _compare_view(outcome):
    from evalgui.core.workflows.compare import comparison_from_outcome
    from evalgui.gui.workspaces.compare.matrices import MatrixTab

    view = MatrixTab()
    view.refresh(comparison_from_outcome(outcome))
    return view, "Mean difference, row run minus column run"


def _preference_view(outcome):
    from evalgui.core.workflows.compare import preferences_from_outcome
    from evalgui.gui.workspaces.compare.preferences import PreferencesTab

    tested = preferences_from_outcome(outcome)
    if tested is None:                    # untested preferences: the matrix table is the result
        return None, ""
    view = PreferencesTab()
    view.refresh(tested)
    return view, "Mean preference of the row run over the column run"


# workflow key -> f(outcome) -> (a matrix view filled with the outcome, or None; what its cells show)
VIEWS = {"compare": _compare_view, "preference": _preference_view}


def _ranked_plots(outcome):
    """The precision-recall curves (interpolated, mean over queries) of the runs, as the Curves tab draws them."""
    from PySide6.QtWidgets import QApplication

    from evalgui.core.ranked.jobs import curve_index
    from evalgui.gui.plots import PrecisionRecallPlot

    curves = outcome.tables.get("curves")
    if curves is None or not len(curves):
        return
    plot = PrecisionRecallPlot()
    plot.resize(800, 600)
    for run, part in curves.groupby("run", sort=False):
        plot.set_run(str(run), curve_index(part))
    plot.show_curves("interpolated", "all")
    plot.show()
    QApplication.processEvents()
    yield "precision-recall", "Interpolated precision at 11 recall levels, mean over queries", plot
    plot.hide()


def _plots(key: str, outcome, label=str):
    """(file name stem, what it shows, plot widget) of each of the outcome's plots, drawn one at a time;
    ``label``: a measure's name as the caption writes it (the window's naming for its report)."""
    if key == "ranked":
        yield from _ranked_plots(outcome)
        return
    if key not in VIEWS:
        return
    view, what = VIEWS[key](outcome)
    if view is None:
        return
    for measure in _matrix_views(view):
        yield _file_name("heatmap", measure), f"{what}: {label(measure)}", view.heatmap


def write_plots(key: str, outcome, folder: str) -> list[tuple[str, str]]:
    """Write the outcome's plots into ``folder`` as PNG and SVG; (file name, what it shows) for each."""
    from evalgui.gui.plots import export_plot

    _application()
    written = []
    for stem, what, widget in _plots(key, outcome):
        for ext in ("png", "svg"):
            name = f"{_file_name(key)}-{stem}.{ext}"
            export_plot(widget, os.path.join(folder, name))
            written.append((name, what))
    return written


def svg_plots(key: str, outcome, label=str) -> list[tuple[str, str]]:
    """The outcome's plots as (what it shows, SVG text), for the report (``label``: as in :func:`_plots`)."""
    from evalgui.gui.plots import svg_bytes

    _application()
    return [(what, svg_bytes(widget).decode("utf-8")) for _stem, what, widget in _plots(key, outcome, label)]
