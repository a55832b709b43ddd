"""Preferences tab: every two runs compared directly, from their rankings (Recall-Paired Preference,
lexicographic recall and precision), and whether each pair's mean preference differs from 0.

The heatmap shows one preference measure at a time (a combo box): the mean preference of the row run
over the column run (antisymmetric: red, the row run is preferred; blue, the column run), the adjusted
p-value of the one-sample test, or the queries each run is preferred on; "*" marks the pairs significant
after the correction. Hovering a cell gives the mean preference with its confidence interval, p,
adjusted p and wins / ties / losses; clicking it opens the pair's preference on each query
(gui/pair_view.py, from the workflow's ``pair_queries``). Under it: the runs ranked (mean preference over the others, then
win rate), the tested pairs, and the matrix as a coloured table. Tables export as CSV, TSV, LaTeX,
Markdown or JSON (every measure, with the provenance columns), the heatmap as PNG or SVG.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from PySide6.QtWidgets import QTabWidget

from evalgui.core import tidy
from evalgui.core.stats.catalogue import CORRECTION_LABELS
from evalgui.gui.naming import label as shown_name
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.workspaces.compare.matrices import DIFF, P_ADJUSTED, PairMatrix, fit_below, p_text

RANKING_TIPS = {
    "rank": "1 = the best by mean preference, then win rate; runs alike share a rank",
    "mean_preference": "The run's mean preference over each other run (the row's mean in the matrix)",
    "win_rate": "The share of the other runs this run is preferred to (mean preference above 0)",
    "wins": "Other runs this run is preferred to",
    "ties": "Other runs with a mean preference of exactly 0 against this one",
    "losses": "Other runs preferred to this one",
    "significant_wins": "Tested pairs this run is preferred in significantly (after the correction)",
    "significant_losses": "Tested pairs the other run is preferred in significantly",
}
PAIR_TIPS = {
    "preference": "Mean preference of run A over run B (positive: run A preferred), between -1 and 1",
    "ci_low": "Bootstrap confidence interval of the mean preference (95%)",
    "ci_high": "Bootstrap confidence interval of the mean preference (95%)",
    "effect_size": "Cohen's d for paired samples (dz): mean preference / standard deviation of the per-query "
                   "preferences",
    "p_value": "The one-sample test's p-value (is the mean preference 0?), before the correction",
    "p_adjusted": "The p-value after the multiple-comparison correction over the pairs",
    "significant": "p (adjusted) < α",
    "wins": "Queries where run A is preferred",
    "ties": "Queries where neither is",
    "losses": "Queries where run B is preferred",
    "n_queries": "The qrels queries with a relevant document",
}


def _signed(value) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:+.4f}"


def preference_tooltip(row: str, column: str, measure: str, cell: dict, preferences) -> str:
    """Everything about one pair, seen from the row run."""
    head = f"{row} over {column} · {shown_name(measure)} ({preferences.n_queries} queries)"
    if cell["p_adjusted"] is None:
        why = "only the pairs with a baseline are" if preferences.tested else "computed without a test"
        return f"{head}\nmean preference {_signed(cell['mean'])}\nnot tested: {why}"
    options = preferences.options
    correction = CORRECTION_LABELS.get(options.correction, options.correction)
    low, high = cell["ci"]
    verdict = "significant" if cell["significant"] else "not significant"
    return (f"{head}\nmean preference {_signed(cell['mean'])}, {options.confidence:.0%} CI [{_signed(low)}, "
            f"{_signed(high)}] (positive: {row} preferred)\n"
            f"p = {p_text(cell['p'])}, adjusted p = {p_text(cell['p_adjusted'])} ({correction}): {verdict} "
            f"at α = {options.alpha}\n"
            f"queries where {row} / neither / {column} is preferred: {cell['wins']} / {cell['ties']} / "
            f"{cell['losses']}")


class PreferencesTab(PairMatrix):
    title = "Preferences"
    name = "preference"
    mean_label = "Mean preference"
    plot_target, table_target = "Preference heatmap…", "Preference matrix table…"
    empty_hint = ("No preference has been evaluated yet: tick a preference measure (RPP, for instance) under "
                  "“Preferences” in the form, then press Run. The matrix then shows the mean preference of every "
                  "run over every other, from −1 to 1.")

    def __init__(self):
        super().__init__(prefix="preference")
        # (measure, row run, column run) -> the pair's per-query preferences (query, preference) or why there
        # are none; the workspace's, reading the preference workflow's outcome.
        self.pair_source = None

    def fill_pair(self, measure: str, row_run: str, column_run: str) -> str | None:
        found = self.pair_source(measure, row_run, column_run) if self.pair_source is not None else \
            "No preferences have been computed yet."
        if isinstance(found, str):
            return found
        self.pair_window(row_run, column_run).show_preferences(measure, row_run, column_run, found)
        return None

    def lower_widget(self):
        self.ranking_model = DataFrameModel(best=None, headers={"queries": "Query set"})
        self.ranking_model.set_header_tooltips(RANKING_TIPS)
        # Shown: the chosen measure; exported: every measure, with how it was made.
        self.ranking_view = FrameTableView(self.ranking_model, name="preference_ranking",
                                           exported=lambda _fmt: self.comparison.ranking)
        self.ranking_view.setObjectName("preferenceRanking")
        self.pairs_model = DataFrameModel(best=None, headers={"queries": "Query set"})
        self.pairs_model.set_header_tooltips(PAIR_TIPS)
        self.pairs_view = FrameTableView(self.pairs_model, name="preference_tests",
                                         exported=lambda _fmt: self.comparison.table)
        self.pairs_view.setObjectName("preferencePairs")
        self.lower = QTabWidget()
        self.lower.setObjectName("preferenceTables")
        self.lower.addTab(self.ranking_view, "Ranking")
        self.lower.addTab(self.pairs_view, "Pairs")
        self.lower.addTab(self.table, "Matrix")
        # 435 pairs per measure with 30 runs: filled when the Pairs tab is shown, not when the results come.
        self._pairs_stale = False
        self.lower.currentChanged.connect(lambda _: self._fill_pairs())
        return self.lower

    mean_column = "preference"

    def untested_means(self, measure: str) -> np.ndarray:
        runs = self.comparison.runs
        return self.comparison.matrices[measure].reindex(index=runs, columns=runs).to_numpy(dtype=np.float64)

    def cells(self, measure: str) -> dict[tuple[str, str], dict]:
        p = self.comparison
        runs = p.runs
        tested = {}
        rows = p.rows(measure)
        columns = ("run_a", "run_b", "preference", "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "wins",
                   "ties", "losses", "n_queries")
        for a, b, mean, low, high, p_value, adjusted, significant, wins, ties, losses, n in zip(
                *(rows[c].tolist() for c in columns)):
            common = {"p": p_value, "p_adjusted": adjusted, "significant": bool(significant), "ties": ties, "n": n}
            tested[(a, b)] = dict(common, mean=mean, ci=(low, high), wins=wins, losses=losses)
            tested[(b, a)] = dict(common, mean=-mean, ci=(-high, -low), wins=losses, losses=wins)
        means = p.matrices[measure].to_numpy()
        untested = {"p": None, "p_adjusted": None, "significant": False, "n": None}
        return {(a, b): tested.get((a, b)) or dict(untested, mean=float(means[i, j]))
                for i, a in enumerate(runs) for j, b in enumerate(runs) if i != j}

    def tooltip(self, row: str, column: str, measure: str, cell: dict) -> str:
        return preference_tooltip(row, column, measure, cell, self.comparison)

    def describe(self, measure: str, value: str) -> str:
        p = self.comparison
        binary = "" if p.binary_threshold is None else f", relevant from grade {p.binary_threshold}, grades alike"
        if value == DIFF:
            return (f"Mean {shown_name(measure)} preference of the row run over the column run, over the "
                    f"{p.n_queries} queries with a relevant document{binary}: from −1 (the column run always "
                    "preferred) to 1. Red: the row run is preferred; blue: the column run.")
        if value != DIFF and not p.tested:
            return f"The {shown_name(measure)} preferences were not tested: these cells are blank; show the mean."
        if value == P_ADJUSTED:
            correction = CORRECTION_LABELS.get(p.options.correction, p.options.correction)
            return (f"Adjusted p-values ({correction}) of {shown_name(measure)}: is the mean preference 0? The "
                    "darker, the smaller.")
        return (f"Queries where the row run is preferred / neither / the column run is preferred on "
                f"{shown_name(measure)}; colour, Copy and Export: wins minus losses. Red: the row run is preferred "
                "more often.")

    def draw(self) -> None:
        # the ranking first: the heatmap's share of the page follows its rows
        self.ranking_model.set_frame(self._shown_rows("ranking"), directions=None)
        self._pairs_stale = True
        self._fill_pairs()
        super().draw()

    def _shown_rows(self, table: str) -> pd.DataFrame:
        """The comparison's ``table`` ("ranking" or "table"): the rows of the measure chosen, without the
        columns every row shares."""
        measure = self.measure.currentData()
        if self.comparison is None or measure not in self.comparison.measures:
            return pd.DataFrame()
        if table == "table" and not self.comparison.tested:
            return self._untested_pairs(measure)
        table = getattr(self.comparison, table)
        rows = table[table[tidy.MEASURE].to_numpy() == measure]
        from evalgui.core.stats.compare import PREFERENCE_PROVENANCE     # (imported when needed: start-up)

        return rows.drop(columns=[tidy.MEASURE, *PREFERENCE_PROVENANCE], errors="ignore").reset_index(drop=True)

    def _untested_pairs(self, measure: str) -> pd.DataFrame:
        """Each pair's mean preference (run A over run B), its p-values said not tested: no verdict invented."""
        runs = self.comparison.runs
        means = self.untested_means(measure)
        a, b = np.triu_indices(len(runs), k=1)
        names = np.asarray(runs, dtype=object)
        return pd.DataFrame({"run_a": names[a], "run_b": names[b], "preference": means[a, b],
                             "p_value": "not tested", "p_adjusted": "not tested"})

    def caption_end(self) -> str:
        if self.comparison.tested:
            return super().caption_end()
        return ("Not tested: these preferences were computed without a test, so no pair is marked significant. "
                "Hover a cell for the details; click it to see the pair query by query.")

    def _fill_pairs(self) -> None:
        if self._pairs_stale and self.lower.currentWidget() is self.pairs_view:
            self._pairs_stale = False
            self.pairs_model.set_frame(self._shown_rows("table"), directions=None)

    def _fit_table(self) -> None:
        fit_below(self.sides, self.ranking_view, self.model.rowCount(), self.lower.tabBar().sizeHint().height() + 4)

    def export_targets(self) -> list:
        if self.comparison is None:
            return []
        return super().export_targets() + [("Preference ranking…", self.ranking_view.export_dialog),
                                           ("Preference tests…", self.pairs_view.export_dialog)]


def significant_pairs(preferences) -> tuple[int, int]:
    """(significant, tested) pairs over every measure."""
    table = preferences.table
    return int(np.count_nonzero(table["significant"].astype(bool))), len(table)
