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
            assert columns[0] == "run" and shown in columns and hidden not in columns
    finally:
        naming.set_current(display.PAPER)
