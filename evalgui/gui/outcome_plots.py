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
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _file_name(*parts: str) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9@.=_-]+", "_", part).strip("_") or "x" for part in parts)


def _matrix_plots(view, key: str, folder: str, what: str) -> list[tuple[str, str]]:
    from evalgui.gui.plots import export_plot

    from PySide6.QtWidgets import QApplication

    written = []
    view.page.resize(1000, 800)
    view.page.show()                  # laid out as in the window (offscreen: nothing appears)
    for measure in view.measures():
        view.measure.setCurrentIndex(view.measure.findData(measure))
        view.draw()
        QApplication.processEvents()
        for ext in ("png", "svg"):
            name = _file_name(key, "heatmap", measure) + f".{ext}"
            export_plot(view.heatmap, os.path.join(folder, name))
            written.append((name, f"{what}: {measure}"))
    view.page.hide()
    return written


def _compare(outcome, folder: str):
    from evalgui.core.workflows.compare import comparison_from_outcome
    from evalgui.gui.workspaces.compare.matrices import MatrixTab

    view = MatrixTab()
    view.refresh(comparison_from_outcome(outcome))
    return _matrix_plots(view, "compare", folder, "mean difference, row run minus column run")


def _preference(outcome, folder: str):
    from evalgui.core.workflows.compare import preferences_from_outcome
    from evalgui.gui.workspaces.compare.preferences import PreferencesTab

    tested = preferences_from_outcome(outcome)
    if tested is None:                    # untested preferences: the matrix table is the result
        return []
    view = PreferencesTab()
    view.refresh(tested)
    return _matrix_plots(view, "preference", folder, "mean preference of the row run over the column run")


# workflow key -> f(outcome, folder) -> [(file name, what it shows)]
PLOTTERS = {"compare": _compare, "preference": _preference}


def write_plots(key: str, outcome, folder: str) -> list[tuple[str, str]]:
    """Write the outcome's plots into ``folder``; (file name, what it shows) for each."""
    plotter = PLOTTERS.get(key)
    if plotter is None:
        return []
    _application()
    return plotter(outcome, folder)
