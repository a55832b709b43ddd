"""The Measure stability significance tab's cells and tooltips, built from plain lists (a cell at a time through
pandas' .loc took 60-100 ms of the GUI thread for 20 systems: benchmarks/bench_gui_workspaces.py), are what the
straightforward cell-by-cell construction gives."""

from __future__ import annotations

import numpy as np

from tests.gui.test_stability_workspace import MEASURES, _choose, _run, _show, write_ranks


def _expected(view, method, combination):
    """The tab's cells the straightforward way: for each pair of systems, its label's levels won and its tooltip."""
    from evalgui.gui.workspaces.stability.significance import ESTIMATES

    outcome = view.outcome
    labels = outcome.matrix(method, combination)
    stars = {label: i for i, (label, _) in enumerate(outcome.legend)}
    values = outcome.actual.set_index("measure").loc[method]
    estimate = outcome.significance_estimate()
    rows = outcome.rows(combination, method=method).sort_values("fuzziness")
    required = ", ".join(f"{v:.4g} at {level:g}" for level, v in zip(rows["fuzziness"], rows[estimate]))
    direction = "lower" if outcome.lower_better(method) else "higher"
    won, tips = {}, {}
    for a in labels.index:
        for b in labels.columns:
            label = labels.loc[a, b]
            won[a, b] = len(outcome.levels) - stars[label] if label in stars else np.nan
            if a == b:
                continue
            verdict = f"{a} is better at {dict(outcome.legend)[label]:g} ({label})" if label else \
                f"{a} is not better at any level"
            tips[a, b] = (f"{a} against {b} · {method} ({direction} is better)\n"
                          f"{a}: {values[a]:.6g}, {b}: {values[b]:.6g}, difference {values[a] - values[b]:+.6g}\n"
                          f"difference required ({ESTIMATES.get(estimate, estimate)}): {required}\n{verdict}")
    return labels, won, tips


def test_levels_won_and_tooltips_equal_the_cell_by_cell_construction(qtbot, window, tmp_path):
    from evalgui.gui.workspaces.stability.results import combination_of

    path = write_ranks(tmp_path / "data", systems=6, entities=60, seed=4)
    stability = _run(qtbot, window, path)
    view = _show(stability, stability.significance)
    checked = 0
    for method in MEASURES:
        _choose(view.measure, method)
        for index in range(view.combination.count()):
            view.combination.setCurrentIndex(index)
            combination = combination_of(view.combination.currentData())
            labels, won, tips = _expected(view, method, combination)
            assert list(view.model.frame.index) == list(labels.index)
            for i, a in enumerate(labels.index):
                for j, b in enumerate(labels.columns):
                    shown = view.model.frame.iloc[i, j]
                    assert shown == won[a, b] or (np.isnan(shown) and np.isnan(won[a, b])), (method, a, b)
                    if a != b:
                        assert view.model.tooltip(i, j) == tips[a, b]
                        checked += 1
    assert checked >= len(MEASURES) * 6 * 5
    assert any(" is better at " in view.model.tooltip(i, j) for i in range(6) for j in range(6) if i != j)
