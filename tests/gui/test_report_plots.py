"""The meta-evaluation, rank-file stability and case-based plots that evalgui-cli run writes and the report
embeds (the window's own views, offscreen), and the ranked curves a project keeps for the report."""

from __future__ import annotations

import json

import pytest

from evalgui.core.workflows.outcome import Outcome
from tests.conftest import SAMPLE_DATA
from tests.gui.conftest import load, run_and_wait

SYN = SAMPLE_DATA / "synthetic"
RUNS = tuple(str(SYN / f"{r}.run") for r in ("bm25", "dense", "rerank", "random"))

EXPECTED = {
    "stability": ["Error rate against the query-set size", "Error rate against tie rate, 10 queries per set",
                  "Better / worse / equal: AP", "Better / worse / equal: P@10"],
    "power": ["Discriminative power: each run pair's p-value, sorted"],
    "robustness": ["Kendall's τ against the share of judgments removed"],
    "agreement": ["Agreement between measures: Pearson (per-query differences)",
                  "Agreement between measures: Sign agreement (%)",
                  "Agreement between measures: Kendall's τ (run rankings)"],
}


@pytest.mark.parametrize("experiment", list(EXPECTED))
def test_each_meta_evaluation_experiment_has_its_tabs_plots_with_their_guides(qtbot, experiment):
    from evalgui.core.workflows.metaeval import MetaevalRequest, outcome_with_result, run_metaeval
    from evalgui.gui.outcome_plots import svg_plots

    request = MetaevalRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=("AP", "P@10"),
                              experiment=experiment, set_sizes=(10,), sets=50, repetitions=2, samples=200,
                              fractions=(0.5,))
    outcome = run_metaeval(request)
    plots = svg_plots("metaeval", outcome)
    assert [title for title, _, _ in plots] == EXPECTED[experiment]
    assert all(svg.lstrip().startswith(("<?xml", "<svg")) and guide for _, svg, guide in plots)
    # Saved as tables (eg.save_project, evalgui-cli run's projects) and read back: the same plots.
    saved = Outcome.from_json(json.loads(json.dumps(outcome.to_json())), MetaevalRequest)
    assert svg_plots("metaeval", saved) == []                  # the tables alone: nothing to draw
    again = outcome_with_result(saved)
    assert [t for t, _, _ in svg_plots("metaeval", again)] == EXPECTED[experiment]
    if experiment == "stability":
        for measure, counts in outcome.result.counts.items():
            assert (again.result.counts[measure] == counts).all()


def test_stability_and_casebase_plots_are_the_views(qtbot):
    from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest, run_casebase, run_similarity
    from evalgui.core.workflows.stability import StabilityRequest, run_stability
    from evalgui.gui.outcome_plots import svg_plots

    cbr = SAMPLE_DATA / "cbr"
    for error_rates, first in ((True, ["Error rate against tie rate, fuzziness 0.05",
                                       "Error rate against the number of queries"]),
                               (False, ["ASL rate against the number of queries"])):   # no -e: no error rates
        stability = run_stability(StabilityRequest(rank_file=str(SAMPLE_DATA / "rankfile" / "citations.tsv"),
                                                   total_ranks=5000, iterations=5, bootstrap=100, seed=3,
                                                   error_rates=error_rates))
        titles = [t for t, _, _ in svg_plots("stability", stability)]
        measures = list(stability.tables["methods"]["method"])
        assert titles[:len(first)] == first and len(titles) == len(first) + len(measures)
        assert titles[-1].startswith("Significant differences: ")
    casebase = run_casebase(CasebaseRequest(train=str(cbr / "cars.csv"), test=str(cbr / "queries.csv"),
                                            model_file=str(cbr / "model.json"), mac_attributes=("price",),
                                            filter_sizes=(10,), ks=(5,)))
    plots = svg_plots("casebase", casebase)
    assert plots and all(t.endswith("against retrieval time") and guide for t, _, guide in plots)
    assert "Hits against retrieval time" in [t for t, _, _ in plots]
    # Similarity files have no retrieval times: no chart, as in the window.
    similarity = run_similarity(SimilarityRequest(ground_truth=str(cbr / "procake_ground_truth.csv"),
                                                  predicted=(str(cbr / "procake_evaluated.csv"),)))
    assert svg_plots("similarity", similarity) == []


def test_a_saved_projects_report_draws_the_precision_recall_curves(qtbot, window, tmp_path, capsys):
    """The window saves the ranked curves (interpolated, per query and mean) with the results: the project's
    report draws them; a project saved without them says so in one sentence."""
    import numpy as np

    from evalgui.cli import main
    from evalgui.core.workflows.project import open_project
    from evalgui.core.workflows.report import NO_CURVES

    load(qtbot, window, [SYN / "qrels.txt", *RUNS[:3]])
    ranked = window.workspaces["ranked"]
    run_and_wait(qtbot, ranked)
    project = tmp_path / "p.evalgui"
    assert window.write_project(str(project), include_results=True)
    curves = open_project(str(project)).outcomes["ranked"].tables["curves"]
    assert set(curves["kind"]) == {"interpolated"} and set(curves["run"]) == {"bm25", "dense", "rerank"}
    mean = curves[(curves["run"] == "dense") & (curves["query"] == "all")]
    recall, precision = ranked.results_set["dense"].curves[("interpolated", "all")]
    assert np.array_equal(mean["recall"], recall) and np.array_equal(mean["precision"], precision)
    # The window's report has the plot too; evalgui-cli run --check compares the curves the project keeps.
    assert "curves" in window.workflow_outcomes()["ranked"].tables
    assert main(["run", str(project), "-o", str(tmp_path / "out"), "--check", "--no-plots"]) == 0
    capsys.readouterr()

    assert main(["report", str(project), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Interpolated precision at 11 recall levels, mean over queries." in page and NO_CURVES not in page

    state = json.loads(project.read_text())
    del state["results"]["ranked"]["curves"]                  # as projects saved before they kept them
    older = tmp_path / "older.evalgui"
    older.write_text(json.dumps(state))
    assert set(open_project(str(older)).outcomes["ranked"].tables) == {"summary", "per_query", "run_matrix"}
    assert main(["report", str(older), "-o", str(tmp_path / "o.html")]) == 0
    page = (tmp_path / "o.html").read_text(encoding="utf-8")
    assert NO_CURVES in page and "Interpolated precision at 11 recall levels, mean over queries." not in page


def test_a_project_whose_files_are_gone_keeps_its_curves_for_the_report(qtbot, make_window, tmp_path):
    """Opened without its files, a project's results keep the curves it saved: the window's report draws them
    and saving again keeps them (the Curves tab waits for Run, as before)."""
    from evalgui.core.workflows.project import open_project
    from evalgui.gui.outcome_plots import svg_plots
    from tests.gui.conftest import copy_synthetic

    data = copy_synthetic(tmp_path / "data", runs=("bm25", "dense"))
    first = make_window()
    load(qtbot, first, [data / "qrels.txt", data / "bm25.run", data / "dense.run"])
    run_and_wait(qtbot, first.workspaces["ranked"])
    assert first.write_project(str(tmp_path / "p.evalgui"), include_results=True)
    saved = open_project(str(tmp_path / "p.evalgui")).outcomes["ranked"].tables["curves"]
    (data / "qrels.txt").unlink()

    second = make_window()
    ranked = second.workspaces["ranked"]
    with qtbot.waitSignal(second.files_loaded, timeout=20_000):
        second.open_project(str(tmp_path / "p.evalgui"))
    qtbot.waitUntil(lambda: not second._loaders and not ranked.is_busy(), timeout=30_000)
    assert ranked.curves.plot.runs() == []
    outcome = second.workflow_outcomes()["ranked"]
    assert outcome.tables["curves"].equals(saved)
    assert [t for t, _, _ in svg_plots("ranked", outcome)] == ["Interpolated precision at 11 recall levels, mean "
                                                               "over queries"]
    assert second.write_project(str(tmp_path / "again.evalgui"), include_results=True)
    assert open_project(str(tmp_path / "again.evalgui")).outcomes["ranked"].tables["curves"].equals(saved)


def test_the_preference_heatmaps_are_named_as_papers_name_the_measures(qtbot, tmp_path):
    from evalgui.core.workflows.compare import PreferenceRequest, run_preference
    from evalgui.gui.outcome_plots import svg_plots, write_plots

    outcome = run_preference(PreferenceRequest(qrels=str(SYN / "qrels.txt"), runs=list(RUNS),
                                               measures=["rpp", "lexiprecision"], test="t"))
    titles = [title for title, _svg, _guide in svg_plots("preference", outcome)]
    assert titles == ["Mean preference of the row run over the column run: RPP",
                      "Mean preference of the row run over the column run: Lexiprecision"]
    written = write_plots("preference", outcome, str(tmp_path))
    # the files keep the registered names (stable names); the exported heatmap's title is the papers'
    assert [name for name, _ in written] == ["preference-heatmap-rpp.png", "preference-heatmap-rpp.svg",
                                             "preference-heatmap-lexiprecision.png",
                                             "preference-heatmap-lexiprecision.svg"]
    svg = (tmp_path / "preference-heatmap-lexiprecision.svg").read_text()
    assert "Lexiprecision: mean preference" in svg and "lexiprecision:" not in svg


def test_an_svg_of_a_plot_resized_since_its_last_paint_is_drawn_at_its_new_size(qtbot):
    """Qt lays a resized plot out, and pyqtgraph maps its data to the page, only before the next paint on
    screen: drawn to SVG before that, the curve kept the old mapping and stopped short of its last x (the
    report's "rates against set size" curves ended at about 23.5 of 25)."""
    import re

    import pyqtgraph as pg

    from evalgui.gui.plots import svg_bytes

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.plot([0, 5, 25], [0, 1, 0.5], pen=pg.mkPen("#123456", width=2))
    plot.getPlotItem().setRange(xRange=(0, 25), yRange=(0, 1), padding=0.02)
    plot.resize(500, 300)
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.waitUntil(lambda: plot.getPlotItem().getViewBox().width() > 300)
    plot.resize(900, 500)                             # no paint since: the report draws its views so
    svg = svg_bytes(plot).decode("utf-8")
    curve = re.search(r'stroke="#123456".*?</g>', svg, re.S)       # (the pen is the group's)
    assert curve, "the curve is not in the SVG"
    xs = [float(x) for x in re.findall(r"(-?[\d.]+),(?:-?[\d.]+)", curve.group(0))]
    view = plot.getPlotItem().getViewBox()
    end = view.mapViewToScene(pg.Point(25, 0.5)).x()
    assert abs(max(xs) - end) < 1.5, (max(xs), end)
    assert end > 700                                  # the new size's mapping, not the old one


def test_every_point_of_the_demo_projects_plots_is_inside_its_axes(qtbot):
    """A marker at an axis value (an error rate of 0, a p-value of 0) is drawn on the axis, whole, not half
    under it: every plotted point lies inside its view's range, a pixel or more from the edge."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QPointF

    from evalgui.core.workflows.project import open_project
    from evalgui.gui.outcome_plots import _plots
    from evalgui.gui.plots import settle

    from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval

    outcomes = list(open_project(str(SAMPLE_DATA / "demo.evalgui")).outcomes.items())
    for experiment in ("stability", "robustness"):      # rates against set sizes up to 25; τ against removals
        outcomes.append(("metaeval", run_metaeval(MetaevalRequest(
            qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=("AP", "P@10", "R@100"), experiment=experiment,
            set_sizes=(5, 10, 25), sets=50, repetitions=2, fractions=(0.3, 0.9)))))
    checked, outside = 0, []
    for key, outcome in outcomes:
        for _stem, what, widget, _guide in _plots(key, outcome):
            widget = getattr(widget, "heatmap", widget)
            if not isinstance(widget, pg.PlotWidget) or type(widget).__name__ == "HeatmapPlot":
                continue
            settle(widget)
            view = widget.getPlotItem().getViewBox()
            frame = view.sceneBoundingRect().adjusted(1, 1, -1, -1)
            for item in view.addedItems:
                if not isinstance(item, pg.ScatterPlotItem):
                    scatter = getattr(item, "scatter", None)
                    if not isinstance(scatter, pg.ScatterPlotItem) or not scatter.isVisible():
                        continue
                    item = scatter
                x, y = item.getData()
                for px, py in zip(x, y):
                    if not (np.isfinite(px) and np.isfinite(py)):
                        continue
                    checked += 1
                    at = view.mapViewToScene(QPointF(float(px), float(py)))
                    if not frame.contains(at):
                        outside.append((what, float(px), float(py)))
    assert checked > 50
    assert outside == []


def test_a_quality_versus_time_chart_of_equal_values_has_a_readable_range(qtbot):
    """The demo's MAC/FAC sweep is perfectly correct and complete: every value is 1, give or take a rounding
    error. Its chart's value axis spans a readable range around them (it spanned 1e-16 and its ticks read
    "0.9999999999999998"), with every point inside."""
    import numpy as np

    from evalgui.core.workflows.project import open_project
    from evalgui.gui.outcome_plots import _plots

    outcome = open_project(str(SAMPLE_DATA / "demo.evalgui")).outcomes["casebase"]
    equal = {}
    for _stem, what, widget, _guide in _plots("casebase", outcome):
        (low, high) = widget.getPlotItem().getViewBox().viewRange()[1]
        values = np.concatenate([widget.getPlotItem().listDataItems()[i].getData()[1] for i in range(2)])
        values = values[np.isfinite(values)]
        assert ((values > low) & (values < high)).all(), what
        if np.ptp(values) < 1e-9:
            equal[what] = high - low
    assert {"Correctness against retrieval time", "Completeness against retrieval time"} <= set(equal)
    assert min(equal.values()) >= 0.05, equal
