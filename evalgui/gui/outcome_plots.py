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
        # Headless (the command line): papers' measure names, whatever the window was last set to, so the
        # same command writes the same plots on every machine.
        from evalgui.core import display
        from evalgui.gui.naming import NAMING

        NAMING.value = display.PAPER
    return app


def _show_offscreen(widget) -> None:
    """Shown, so that it lays out and draws as in the window, but never on the screen: a report written from the
    desktop must not flash windows."""
    from PySide6.QtCore import Qt

    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.show()


def _file_name(*parts: str) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9@.=_-]+", "_", part).strip("_") or "x" for part in parts)


def _matrix_views(view):
    """Each measure of a matrix view drawn in turn, laid out as in the window (offscreen: nothing appears)."""
    from PySide6.QtWidgets import QApplication

    view.page.resize(1000, 800)
    _show_offscreen(view.page)
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


PR_GUIDE = ("One curve per run: the precision at each of the 11 recall levels 0, 0.1, …, 1, interpolated (the "
            "highest precision at that recall or beyond), mean over the queries. A curve above another is better "
            "at that recall.")


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
    _show_offscreen(plot)
    QApplication.processEvents()
    yield "precision-recall", "Interpolated precision at 11 recall levels, mean over queries", plot, PR_GUIDE
    plot.hide()


def _drawn(view, outcome, size=(900, 650)):
    """A result view (its page laid out as in the window, offscreen) filled with the outcome and drawn."""
    from PySide6.QtWidgets import QApplication

    view.page.resize(*size)
    _show_offscreen(view.page)
    view.refresh(outcome)
    view.shown()
    QApplication.processEvents()
    return view


def _each_choice(view, combo):
    """Each item of one of the view's choices in turn, drawn (the data of the item)."""
    from PySide6.QtWidgets import QApplication

    for index in range(combo.count()):
        combo.setCurrentIndex(index)
        view.draw()
        QApplication.processEvents()
        yield combo.itemData(index)


def _done(view) -> None:
    view.page.hide()


def _metaeval_plots(outcome):
    """The plots of the experiment's tabs: rates against set size, error against ties and each measure's
    better/worse/equal heatmap (stability); Sakai's power curves; τ against judgments removed; the agreement
    heatmaps."""
    from evalgui.gui.naming import label

    if getattr(outcome, "result", None) is None:           # tables only: nothing the views can draw
        return
    experiment = outcome.experiment
    if experiment == "stability":
        from evalgui.gui.workspaces.metaeval.decisions import DecisionsView
        from evalgui.gui.workspaces.metaeval.set_size import SetSizeView
        from evalgui.gui.workspaces.metaeval.tradeoff import TradeoffView

        view = _drawn(SetSizeView(), outcome)
        yield "error-rate-by-set-size", "Error rate against the query-set size", view.plot, view.caption.text()
        _done(view)
        view = _drawn(TradeoffView(), outcome)
        yield ("error-vs-ties", f"Error rate against tie rate, {view.set_size.currentData()} queries per set",
               view.plot, view.caption.text())
        _done(view)
        view = _drawn(DecisionsView(), outcome)
        for measure in _each_choice(view, view.measure):
            yield (_file_name("better-worse-equal", measure), f"Better / worse / equal: {label(measure)}",
                   view.heatmap, view.caption.text())
        _done(view)
    elif experiment == "power":
        from evalgui.gui.workspaces.metaeval.power import PowerView

        view = _drawn(PowerView(), outcome)
        yield "power-curves", "Discriminative power: each run pair's p-value, sorted", view.plot, view.caption.text()
        _done(view)
    elif experiment == "robustness":
        from evalgui.gui.workspaces.metaeval.robustness import RobustnessView

        view = _drawn(RobustnessView(), outcome)
        yield ("robustness", "Kendall's τ against the share of judgments removed", view.plot,
               view.caption.text())
        _done(view)
    elif experiment == "agreement":
        from evalgui.gui.workspaces.metaeval.agreement import AgreementView

        view = _drawn(AgreementView(), outcome)
        for value in _each_choice(view, view.value):
            yield (_file_name("agreement", value), f"Agreement between measures: {view.value.currentText()}",
                   view.heatmap, view.caption.text())
        _done(view)


def _stability_plots(outcome):
    """Error rate against tie rate, the rates against the number of queries, and each measure's significance
    heatmap, as the Measure stability tabs draw them."""
    from evalgui.gui.naming import label
    from evalgui.gui.workspaces.stability.results import Results
    from evalgui.gui.workspaces.stability.significance import SignificanceView
    from evalgui.gui.workspaces.stability.splits import SplitsView
    from evalgui.gui.workspaces.stability.tradeoff import TradeoffView

    try:
        results = Results.from_outcome(outcome)
    except (KeyError, IndexError, TypeError, ValueError):        # not the workflow's tables: nothing to draw
        return
    if results.evaluation is None:                 # the values on all entities only: no experiment, no plot
        return
    if results.has_error_rates:
        view = _drawn(TradeoffView(), results)
        yield ("error-vs-ties", f"Error rate against tie rate, fuzziness {view.level.currentData():g}", view.plot,
               view.caption.text())
        _done(view)
    view = SplitsView()
    if not results.has_error_rates:                # the ASL rate needs no -e
        view.rate.setCurrentIndex(view.rate.findData("asl"))
    _drawn(view, results)
    yield ("rate-by-queries", f"{view.rate.currentText()} against the number of queries", view.plot,
           view.caption.text())
    _done(view)
    view = _drawn(SignificanceView(), results, (900, 800))
    for measure in _each_choice(view, view.measure):
        yield (_file_name("significance", measure), f"Significant differences: {label(measure)}", view.heatmap,
               view.caption.text())
    _done(view)


CHART_GUIDE = ("One point per MAC/FAC configuration, labelled “filter size/k”: the retrieval seconds of all "
               "queries against the metric's mean over the queries. The stars are the linear retriever, the "
               "reference (a dashed line when it is the same at every k). The better configurations reach the "
               "linear retriever's quality in less time.")


def _casebase_plots(outcome):
    """Each metric's quality against retrieval time (the MAC/FAC sweep), as the Quality vs time tab draws it."""
    from evalgui.core.cbr.evaluate import FILTER_SIZE, QUERY
    from evalgui.gui.naming import label
    from evalgui.gui.workspaces.casebase.chart import ChartTab
    from evalgui.gui.workspaces.casebase.results import Results, split_queries

    table = outcome.tables.get("results")
    if table is None or FILTER_SIZE not in table.columns:        # similarity files only: no retrieval times
        return
    summary, per_query = split_queries(table) if QUERY in table.columns else (table, None)
    results = Results(summary, None, {}, outcome.notes_for_window(), per_query, outcome.request, outcome)
    view = _drawn(ChartTab(), results)
    for metric in _each_choice(view, view.metric):
        yield (_file_name("quality-vs-time", metric), f"{label(metric)} against retrieval time", view.plot,
               CHART_GUIDE)
    _done(view)


# workflow key -> f(outcome) yielding (file name stem, what it shows, plot widget, how to read it)
PLOTS = {"ranked": _ranked_plots, "metaeval": _metaeval_plots, "stability": _stability_plots,
         "casebase": _casebase_plots}


def _plots(key: str, outcome):
    """(file name stem, what it shows, plot widget, how to read it) of each of the outcome's plots, drawn one at
    a time."""
    if key in PLOTS:
        yield from PLOTS[key](outcome)
        return
    if key not in VIEWS:
        return
    from evalgui.gui.naming import label

    view, what = VIEWS[key](outcome)
    if view is None:
        return
    for measure in _matrix_views(view):
        # the view itself: its export is titled (measure, test, "row minus column") as the window's Export plot
        yield _file_name("heatmap", measure), f"{what}: {label(measure)}", view, ""


def write_plots(key: str, outcome, folder: str) -> list[tuple[str, str]]:
    """Write the outcome's plots into ``folder`` as PNG and SVG; (file name, what it shows) for each."""
    from evalgui.gui.plots import export_plot

    _application()
    written = []
    for stem, what, widget, _guide in _plots(key, outcome):
        for ext in ("png", "svg"):
            name = f"{_file_name(key)}-{stem}.{ext}"
            if hasattr(widget, "export_plot"):          # a run × run matrix view: its titled heatmap
                widget.export_plot(os.path.join(folder, name))
            else:
                export_plot(widget, os.path.join(folder, name))
            written.append((name, what))
    return written


def svg_plots(key: str, outcome) -> list[tuple[str, str, str]]:
    """The outcome's plots as (what it shows, SVG text, how to read it), for the report."""
    from evalgui.gui.plots import svg_bytes

    _application()
    # (the report's caption names what a heatmap shows: the on-screen heatmap, untitled)
    return [(what, _inline(svg_bytes(getattr(widget, "heatmap", widget))), guide)
            for _stem, what, widget, guide in _plots(key, outcome)]


def _inline(svg: bytes) -> str:
    """An SVG file's text as an element of an HTML page: without the XML declaration (HTML has none)."""
    text = svg.decode("utf-8")
    return text[text.index("?>") + 2:].lstrip() if text.startswith("<?xml") else text
