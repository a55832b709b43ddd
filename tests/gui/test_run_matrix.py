"""The ranked workspace's Run × run tab: mean per-query differences between every two runs."""

import pytest

from tests.gui.conftest import SYNTHETIC_RUNS, open_demo_and_wait


def test_run_by_run_matrix_matches_the_per_query_values(qtbot, window):
    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    assert ranked.results_tabs.tabText(ranked.results_tabs.indexOf(view.page)) == "Run × run"
    assert view.measure.count() == 0                    # not computed while out of sight
    ranked.results_tabs.setCurrentWidget(view.page)
    index = view.measure.findData("P_10")
    view.measure.setCurrentIndex(index)
    frame = view.model.frame
    assert list(frame.index) == list(SYNTHETIC_RUNS) and list(frame.columns) == list(SYNTHETIC_RUNS)
    tidy = ranked.results
    per_query = tidy[(tidy["measure"] == "P_10") & (tidy["query"] != "all")].pivot(
        index="query", columns="run", values="value")
    expected = (per_query["bm25"] - per_query["random"]).mean()
    assert frame.loc["bm25", "random"] == pytest.approx(expected, abs=1e-12)
    assert frame.loc["random", "bm25"] == pytest.approx(-expected, abs=1e-12)
    # the diagonal is masked, the colours are on a fixed symmetric scale, red where the row run is better
    assert view.model.display_text(0, 0) == "" and view.model.value(0, 0) is None
    lo, hi = view.model.levels
    assert lo == -hi and hi >= abs(frame.to_numpy()).max()
    row, column = list(frame.index).index("bm25"), list(frame.columns).index("random")
    red, blue = view.model.background(row, column), view.model.background(column, row)
    assert red.red() > red.blue() and blue.blue() > blue.red()
    assert "shared queries" in view.model.tooltip(row, column)
    assert view.model.rgba().shape[:2] == (4, 4) and view.heatmap.image.image is not None


def test_run_by_run_export(qtbot, window, tmp_path):
    import pandas as pd

    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    view.shown()                                        # what exporting from the menu does first
    table = view.table.export_frame()
    path = tmp_path / "m.csv"
    table.to_csv(path, index=False)
    back = pd.read_csv(path)
    assert list(back.columns)[1:] == list(SYNTHETIC_RUNS) and len(back) == 4
    from evalgui.gui.plots import export_plot

    for ext in (".png", ".svg"):
        export_plot(view.heatmap, str(tmp_path / f"m{ext}"))
        assert (tmp_path / f"m{ext}").stat().st_size > 0
    labels = [label for label, _ in ranked.export_targets()]
    assert "Run × run table…" in labels and "Run × run heatmap…" in labels


def test_nice_limits():
    from evalgui.gui.workspaces.ranked.run_matrix import nice_limit

    assert [nice_limit(v) for v in (0.0, 0.013, 0.05, 0.051, 0.3, 1.0, 7)] == [0.01, 0.02, 0.05, 0.1, 0.5, 1.0, 10.0]


def test_exported_plots_and_wide_tables_follow_the_measure_names(qtbot, window, tmp_path, monkeypatch):
    """View ▸ Measure names reaches the files: a heatmap's title, the summary's measure columns."""
    import pandas as pd
    from PySide6.QtWidgets import QFileDialog

    from evalgui.core import display
    from evalgui.gui import naming

    ranked = open_demo_and_wait(qtbot, window)
    view = ranked.run_matrix
    view.shown()
    view.measure.setCurrentIndex(view.measure.findData("ndcg_cut_10"))
    try:
        for chosen, shown, hidden in ((display.PAPER, "nDCG@10", "ndcg_cut_10"),
                                      (display.TREC_EVAL, "ndcg_cut_10", "nDCG@10")):
            naming.set_current(chosen)
            svg = tmp_path / f"{chosen}.svg"
            view.export_plot(str(svg))
            text = svg.read_text()
            assert f"{shown}: mean per-query difference" in text and hidden not in text
            csv = tmp_path / f"{chosen}.csv"
            monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, p=csv, **k: (str(p), "")))
            ranked.summary.view.export_dialog()
            columns = list(pd.read_csv(csv).columns)
            assert columns[0] == "Run" and shown in columns and hidden not in columns
    finally:
        naming.set_current(display.PAPER)


def _shown_measure(qtbot, ranked, measure="P_10"):
    view = ranked.run_matrix
    ranked.results_tabs.setCurrentWidget(view.page)
    view.measure.setCurrentIndex(view.measure.findData(measure))
    return view


def test_the_view_shows_the_workflows_table(qtbot, window):
    """Every cell and tooltip is the ranked workflow's run_matrix row (the table arrived with the runs)."""
    ranked = open_demo_and_wait(qtbot, window)
    view = _shown_measure(qtbot, ranked)
    table = ranked.results_set.run_matrix()
    part = table[table["measure"] == "P_10"]
    assert len(part) == len(SYNTHETIC_RUNS) ** 2
    for row in part.itertuples():
        assert view.model.frame.loc[row.row, row.column] == row.diff
    r, c = list(SYNTHETIC_RUNS).index("dense"), list(SYNTHETIC_RUNS).index("bm25")
    shown = part[(part["row"] == "dense") & (part["column"] == "bm25")].iloc[0]
    assert f"{shown['diff']:+.4f}" in view.model.tooltip(r, c) and f"{shown['n_queries']} shared" in \
        view.model.tooltip(r, c) and f"{shown['mean_row']:.4f}" in view.model.tooltip(r, c)
    # the outcome kept for reports and projects carries the same table
    import pandas as pd

    pd.testing.assert_frame_equal(ranked.workflow_outcomes()["ranked"].tables["run_matrix"], table)


def test_the_view_recomputes_nothing(qtbot, window, monkeypatch):
    """Sentinel values put in the table are what the view shows; computing pairs in the window would fail."""
    import evalgui.core.workflows.ranked as ranked_workflow

    ranked = open_demo_and_wait(qtbot, window)
    table = ranked.results_set.run_matrix().copy()
    sentinel = table.assign(diff=[0.5 + i / 1000 for i in range(len(table))], n_queries=7)

    def refuse(*_args, **_kwargs):
        raise AssertionError("the window computed run × run differences")

    for module, name in ((ranked_workflow.RunPairs, "add"), (ranked_workflow, "_pair_numbers"),
                         (ranked_workflow, "with_pairs")):
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(ranked.results_set, "run_matrix", lambda: sentinel)
    view = _shown_measure(qtbot, ranked)
    part = sentinel[sentinel["measure"] == "P_10"]
    for row in part.itertuples():
        assert view.model.frame.loc[row.row, row.column] == row.diff
    assert "mean over 7 shared queries" in view.model.tooltip(0, 1)
    assert view.model.display_text(0, 1) == f"{part.iloc[1]['diff']:.3f}"


@pytest.mark.parametrize("which", ["v1", "demo", "api"])
def test_a_project_saved_without_the_table_shows_run_by_run(qtbot, make_window, tmp_path, which):
    """Projects keep the per-query rows, not the table (the version-1 fixture and the demo project): the table
    is derived when they open, and the view shows it, equal to the mean per-query differences."""
    import shutil

    from tests.conftest import ROOT, SAMPLE_DATA

    if which == "v1":
        shutil.copytree(ROOT / "tests" / "data" / "projects" / "v1", tmp_path / "p")
        path = tmp_path / "p" / "meic-v1.evalgui"
    elif which == "demo":
        shutil.copytree(SAMPLE_DATA, tmp_path / "p")
        path = tmp_path / "p" / "demo.evalgui"
    else:                        # written by eg.save_project: the outcome itself, per-query rows, no table
        import json

        import evalgui as eg

        shutil.copytree(SAMPLE_DATA / "synthetic", tmp_path / "p")
        outcome = eg.evaluate(str(tmp_path / "p" / "qrels.txt"),
                              [str(tmp_path / "p" / f"{r}.run") for r in ("bm25", "dense", "random")],
                              ["AP", "P@10"], per_query=True)
        path = tmp_path / "p" / "api.evalgui"
        eg.save_project(str(path), outcome)
        data = json.loads(path.read_text())
        del data["results"]["ranked"]["ranked"]["tables"]["run_matrix"]
        path.write_text(json.dumps(data))
    window = make_window()
    with qtbot.waitSignal(window.files_loaded, timeout=30_000):
        window.open_project(str(path))
    qtbot.waitUntil(lambda: not window._loaders, timeout=30_000)
    ranked = window.workspaces["ranked"]
    assert ranked.has_results()
    view = ranked.run_matrix
    ranked.results_tabs.setCurrentWidget(view.page)
    measure = view.measure.itemData(0)
    frame = view.model.frame
    runs = ranked.results_set.names()
    assert len(runs) >= 2 and list(frame.index) == runs
    tidy = ranked.results
    per_query = tidy[(tidy["measure"] == measure) & (tidy["query"] != "all")].pivot(
        index="query", columns="run", values="value")
    a, b = runs[0], runs[1]
    both = per_query[[a, b]].dropna()
    assert frame.loc[a, b] == pytest.approx((both[a] - both[b]).mean(), abs=1e-12)
    assert frame.loc[b, a] == pytest.approx((both[b] - both[a]).mean(), abs=1e-12)
