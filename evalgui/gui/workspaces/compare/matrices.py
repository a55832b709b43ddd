"""Matrix tab: run × run for one measure, as a heatmap and a coloured table that agree on every colour.

What a cell shows is chosen in a combo box: the mean difference (row run minus column run),
the adjusted p-value, or wins / ties / losses of the row run against the column run
(coloured by wins minus losses). Red always means the row run does better, blue worse,
on a fixed symmetric scale. A "*" marks the pairs significant after the correction.
Hovering a cell (in the table or the heatmap) gives both means, the difference with its
confidence interval, p, adjusted p and W/T/L. Pairs not compared (against baselines)
stay blank. Copy and export give the numbers behind the colours at full precision.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from evalgui.gui.exporting import file_words
from evalgui.gui.matrix import (CellTextModel, EveryLabelArea, HeatmapPlot, MatrixView, nice_limit,
                                on_cell_activated)
from evalgui.gui.naming import label as shown_name
from evalgui.core.stats.catalogue import CORRECTION_LABELS, TEST_LABELS
from evalgui.core.display import cell_word
from evalgui.gui.result_views import LazyView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar

DIFF, P_ADJUSTED, WTL = "diff", "p_adjusted", "wtl"
VALUES = (("Mean difference", DIFF), ("Adjusted p-value", P_ADJUSTED), ("Wins / ties / losses", WTL))
MARK = "*"


def p_text(p: float) -> str:
    """A p-value for reading: 4 decimals, "<0.0001" below (0 stays 0: no resample was as extreme)."""
    if p is None or math.isnan(p):
        return "–"
    return "0" if p == 0 else "<0.0001" if p < 0.0001 else f"{p:.4f}"


def oriented_cells(rows: pd.DataFrame) -> dict[tuple[str, str], dict]:
    """(row run, column run) -> the pair's numbers seen from the row run (both orders of every pair)."""
    cells = {}
    for r in rows.itertuples(index=False):
        common = {"p": r.p_value, "p_adjusted": r.p_adjusted, "significant": bool(r.significant), "ties": r.ties,
                  "n": r.n_queries}
        cells[(r.run_a, r.run_b)] = dict(common, mean_row=r.mean_a, mean_column=r.mean_b, diff=r.diff,
                                         ci=(r.ci_low, r.ci_high), wins=r.wins, losses=r.losses, d=r.effect_size)
        cells[(r.run_b, r.run_a)] = dict(common, mean_row=r.mean_b, mean_column=r.mean_a, diff=-r.diff,
                                         ci=(-r.ci_high, -r.ci_low), wins=r.losses, losses=r.wins, d=-r.effect_size)
    return cells


def fit_below(sides: QSplitter, table, rows: int, extra: int = 0) -> None:
    """A table under a heatmap as tall as its rows (and ``extra`` pixels: say, tabs above it), at most 40%
    of the page (30% past a dozen rows: a big matrix needs the room more than its table, which
    scrolls), the heatmap taking the rest."""
    total = sum(sides.sizes())
    if getattr(sides, "user_sized", False) or total <= 0:
        return
    needed = (extra + table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
              + sum(table.rowHeight(r) for r in range(table.model().rowCount()))
              + table.horizontalScrollBar().sizeHint().height())
    wanted = min(needed, int(total * (0.3 if rows > 12 else 0.4)))
    sides.setSizes([total - wanted, wanted])


def heatmap_over_table(heatmap, table) -> QSplitter:
    """The heatmap above, the table (Copy, Export) below: side by side neither had room for its labels.
    Once the user moves the divider, it stays where they put it (see :func:`fit_below`)."""
    sides = QSplitter(Qt.Orientation.Vertical)
    sides.addWidget(heatmap)
    sides.addWidget(table)
    sides.setSizes([6000, 4000])
    sides.user_sized = False
    sides.splitterMoved.connect(lambda *_: setattr(sides, "user_sized", True))
    return sides


def _signed(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:+.4f}"


def cell_tooltip(row: str, column: str, measure: str, cell: dict, options) -> str:
    """Everything about one pair, seen from the row run (``options``: the comparison's CompareOptions)."""
    low, high = cell["ci"]
    verdict = "significant" if cell["significant"] else "not significant"
    correction = cell_word("correction", options.effective_correction)
    return (f"{row} vs {column} · {shown_name(measure)} ({cell['n']} queries)\n"
            f"mean {row}: {cell['mean_row']:.4f}   mean {column}: {cell['mean_column']:.4f}\n"
            f"difference {_signed(cell['diff'])}, {options.confidence:.0%} CI [{_signed(low)}, {_signed(high)}]\n"
            f"p = {p_text(cell['p'])}, adjusted p = {p_text(cell['p_adjusted'])} ({correction}): {verdict} "
            f"at α = {options.alpha}\n"
            f"wins / ties / losses of {row}: {cell['wins']} / {cell['ties']} / {cell['losses']}")


def test_words(provenance: dict) -> tuple[str, str]:
    """The test (with B when it resamples) and the correction of a comparison, as the form names them."""
    test = TEST_LABELS.get(provenance["test"], provenance["test"])
    if provenance["samples"]:
        test += f", B = {provenance['samples']:,}"
    return test, CORRECTION_LABELS.get(provenance["correction"], provenance["correction"])


class PairMatrix(LazyView):
    """A run × run matrix of one measure's pairs: a heatmap over a coloured table (or over what
    :meth:`lower_widget` puts there), the measure and what a cell shows chosen in combo boxes.
    Subclasses say where the numbers come from: :meth:`cells` and the caption (:meth:`describe`)."""

    title = "Matrix"
    name = "comparison"                    # export file names
    mean_label = "Mean difference"
    plot_target, table_target = "Comparison heatmap…", "Comparison matrix table…"
    empty_hint = ("No measure has been compared yet: tick the runs and the measures in the form, then press Run. "
                  "The matrix then shows the mean difference of every two runs, and which are significant.")

    def __init__(self, prefix: str = "compare"):
        super().__init__()
        self.measure = ChoiceBox(f"{prefix}MatrixMeasure")
        self.value = ChoiceBox(f"{prefix}MatrixValue")
        self.value.set_items([(self.mean_label, DIFF)] + [(label, key) for label, key in VALUES[1:]])
        for combo in (self.measure, self.value):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.model = CellTextModel(mask_diagonal=True, precision=3)
        self.table = MatrixView(self.model, name=f"{self.name}_matrix")
        self.table.setObjectName(f"{prefix}MatrixTable")
        self.heatmap = HeatmapPlot(self.model)       # hovering a cell shows the model's tooltip
        self.heatmap.setObjectName(f"{prefix}Heatmap")
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        # Before any result: what to do, above the empty matrix.
        self.hint = QLabel(self.empty_hint)
        self.hint.setObjectName(f"{prefix}MatrixHint")
        self.hint.setWordWrap(True)
        self.hint.setContentsMargins(4, 8, 4, 8)
        export = export_button("Export plot…", self.export_plot_dialog)
        self.sides = heatmap_over_table(EveryLabelArea(self.heatmap), self.lower_widget())
        self.page = with_toolbar(self.sides, [QLabel("Measure"), self.measure, QLabel("Show"), self.value, export])
        self.page.layout().insertWidget(1, self.hint)
        # Why the cell just clicked opens nothing (e.g. results saved without per-query values).
        self.pair_note = QLabel()
        self.pair_note.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.pair_note.setObjectName(f"{prefix}PairNote")
        self.pair_note.setWordWrap(True)
        self.pair_note.hide()
        self.page.layout().addWidget(self.pair_note)
        self.page.layout().addWidget(self.caption)
        self.pair_view = None            # made when a cell is first opened
        # The workspace's: where the queries selected in a pair are selected too (Ranked retrieval's views):
        # links(row run, column run) names those views ("": none), selected(queries, measure, row, column).
        self.links = lambda _row_run, _column_run: ""
        self.on_queries_selected = None
        on_cell_activated(self.open_pair, self.table, self.heatmap)

    # ------------------------------------------------------------ a cell opens its pair
    def pair_values(self, measure: str) -> pd.DataFrame | None:
        """Queries × runs of ``measure``, as the outcome holds them (None: no per-query values)."""
        per_query = getattr(self.comparison, "per_query", None)
        return per_query.get(measure) if isinstance(per_query, dict) else None

    def open_pair(self, row: int, column: int) -> None:
        """Show the pair in cell (row, column) query by query (nothing for the diagonal)."""
        measure = self.measure.currentData()
        runs = self.runs() if self.comparison is not None else []
        if not measure or row == column or not (row < len(runs) and column < len(runs)):
            return
        self.show_pair(measure, runs[row], runs[column])

    def show_pair(self, measure: str, row_run: str, column_run: str) -> None:
        """The pair view of ``row_run`` against ``column_run``, in front."""
        reason = self.fill_pair(measure, row_run, column_run)
        if reason is None:
            self.raise_pair_window()
        elif reason:
            self.say_why_no_pair(reason)

    def fill_pair(self, measure: str, row_run: str, column_run: str) -> str | None:
        """Put the pair's per-query values, as the outcome holds them, in the pair view; None if it could, else
        why not (empty: nothing to say)."""
        values = self.pair_values(measure)
        if values is None or row_run not in values.columns or column_run not in values.columns:
            return ""
        self.pair_window(row_run, column_run).show_pair(measure, row_run, column_run, values)
        return None

    def refresh(self, comparison) -> None:
        super().refresh(comparison)
        # An open pair view follows the results: the same pair from the new ones, or closed if they lack it.
        view = self.pair_view
        if view is not None and view.isVisible():
            if comparison is None or self.fill_pair(view.measure, view.row_run, view.column_run) is not None:
                view.hide()

    def pair_window(self, row_run: str = "", column_run: str = ""):
        """The pair view (one window, reused for every cell), saying where the pair's queries are selected too."""
        from evalgui.gui.pair_view import PairView

        if self.pair_view is None:
            self.pair_view = PairView(self.page)
            self.pair_view.queries_selected.connect(self._pair_queries_selected)
        self.pair_view.linked_views = self.links(row_run, column_run)
        return self.pair_view

    def _pair_queries_selected(self, queries: list) -> None:
        view = self.pair_view
        if self.on_queries_selected is not None and view.linked_views:
            self.on_queries_selected(queries, view.measure, view.row_run, view.column_run)

    def raise_pair_window(self) -> None:
        self.pair_note.hide()
        self.pair_view.show()
        self.pair_view.raise_()

    def say_why_no_pair(self, reason: str) -> None:
        """A cell that cannot open its pair says why, under the matrix."""
        self.pair_note.setText(reason)
        self.pair_note.show()

    # ------------------------------------------------------------ what subclasses say
    def lower_widget(self):
        """What goes under the heatmap (it holds ``self.table``, the matrix as a coloured table)."""
        return self.table

    def measures(self) -> list[str]:
        return list(self.comparison.measures) if self.comparison is not None else []

    def runs(self) -> list[str]:
        return list(self.comparison.runs)

    mean_column = "diff"                   # the comparison's column of the pair's mean (run_a over run_b)

    def untested_means(self, measure: str) -> np.ndarray | None:
        """Runs × runs means of the pairs not tested too (None: those cells stay blank)."""
        return None

    def cells(self, measure: str) -> dict[tuple[str, str], dict]:
        """(row run, column run) -> mean, p, p_adjusted, significant, wins, ties, losses, n (None where not
        tested): what hovering a cell tells."""
        raise NotImplementedError

    def tooltip(self, row: str, column: str, measure: str, cell: dict) -> str:
        """What hovering a cell shows (made when hovered)."""
        raise NotImplementedError

    def describe(self, measure: str, value: str) -> str:
        """The caption's first sentence: what the cells show."""
        raise NotImplementedError

    # ------------------------------------------------------------ drawing
    def choices(self) -> list[ChoiceBox]:
        return [self.measure, self.value]

    def update_choices(self) -> None:
        self.measure.set_items([(m, m) for m in self.measures()])
        self.hint.setVisible(self.comparison is None)

    def draw(self) -> None:
        super().draw()
        self.pair_note.hide()
        measure, value = self.measure.currentData(), self.value.currentData()
        if self.comparison is None or measure not in self.measures():
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        runs = self.runs()
        # Filled a whole column at a time (435 pairs with 30 runs): drawn when the results come, in sight.
        pairs = self.comparison.rows(measure)
        where = pd.Index(runs)
        a, b = where.get_indexer(pairs["run_a"]), where.get_indexer(pairs["run_b"])
        shape = (len(runs), len(runs))
        numbers = np.full(shape, np.nan)
        marks = np.full(shape, "", dtype=object)
        significant = pairs["significant"].to_numpy(dtype=bool)
        marks[a[significant], b[significant]] = marks[b[significant], a[significant]] = MARK
        texts = None
        if value == DIFF:
            untested = self.untested_means(measure)
            if untested is not None:
                numbers[:] = untested
                np.fill_diagonal(numbers, np.nan)
            mean = pairs[self.mean_column].to_numpy(dtype=np.float64)
            numbers[a, b], numbers[b, a] = mean, -mean
            largest = float(np.nanmax(np.abs(numbers))) if np.isfinite(numbers).any() else 0.0
            scale, diverging = (-nice_limit(largest), nice_limit(largest)), True
        elif value == P_ADJUSTED:
            texts = np.full(shape, "", dtype=object)
            adjusted = pairs["p_adjusted"].to_numpy(dtype=np.float64)
            numbers[a, b] = numbers[b, a] = adjusted
            texts[a, b] = texts[b, a] = [p_text(p) for p in adjusted.tolist()]
            scale, diverging = (0.0, 1.0), False
        else:
            texts = np.full(shape, "", dtype=object)
            wins, ties, losses = (pairs[c].to_numpy(dtype=np.int64) for c in ("wins", "ties", "losses"))
            numbers[a, b], numbers[b, a] = wins - losses, losses - wins
            texts[a, b] = [f"{w}/{t}/{l}" for w, t, l in zip(wins.tolist(), ties.tolist(), losses.tolist())]
            texts[b, a] = [f"{l}/{t}/{w}" for w, t, l in zip(wins.tolist(), ties.tolist(), losses.tolist())]
            most = max(1, int(pairs["n_queries"].max())) if len(pairs) else 1
            scale, diverging = (-float(most), float(most)), True

        def frame(values) -> pd.DataFrame | None:
            # (a dtype given: pandas would otherwise inspect each object column for dates)
            return None if values is None else pd.DataFrame(values, index=runs, columns=runs, dtype=values.dtype)

        cells = {}

        def tip(r: int, c: int) -> str:
            if not cells:           # made at the first hover, not with every drawing
                cells.update(self.cells(measure))
            cell = cells.get((runs[r], runs[c]))
            return self.tooltip(runs[r], runs[c], measure, cell) if cell is not None else ""

        # p-values: small is dark
        self.model.set_frame(frame(numbers), marks=frame(marks), tooltips=tip, texts=frame(texts),
                             diverging=diverging, reverse=value == P_ADJUSTED, levels=scale)
        self._fit_table()
        self.caption.setText(f"{self.describe(measure, value)} {self.caption_end()}")

    def caption_end(self) -> str:
        """The caption after what the cells show: how pairs are marked, what hovering and clicking do."""
        provenance = self.comparison.provenance()
        test, correction = test_words(provenance)
        return (f"{MARK}: significant at α = {provenance['alpha']} ({test}, correction: {correction}). Hover a cell "
                "for the details; click it to see the pair query by query.")

    def _fit_table(self) -> None:
        fit_below(self.sides, self.table, self.model.rowCount())

    # ------------------------------------------------------------ export
    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()

    def export_plot_dialog(self) -> None:
        self.shown()
        name = file_words(self.name, self.measure.currentText(), self.value.currentText())
        from evalgui.gui.exporting import PLOT_FORMATS, export_dialog

        export_dialog(self.page, name, PLOT_FORMATS, self.export_plot, title="Export plot")

    def export_title(self) -> list[str]:
        """The exported heatmap's title: what the cells show, the test, how to read it."""
        measure, value = self.measure.currentData(), self.value.currentData()
        if self.comparison is None or not measure:
            return []
        provenance = self.comparison.provenance()
        test, correction = test_words(provenance)
        shown = dict((key, label) for label, key in [(self.mean_label, DIFF)] + list(VALUES[1:]))[value]
        return [f"{shown_name(measure)}: {shown.lower()}, row run vs column run ({len(self.runs())} runs)",
                f"Test: {test}, correction: {correction}; {MARK}: significant at α = {provenance['alpha']}",
                "Read as row minus column: red, the row run scores higher; blue, lower"
                if value != P_ADJUSTED else "Darker: smaller adjusted p-value"]

    def export_plot(self, path: str) -> None:
        """The heatmap as PNG or SVG, titled (see :meth:`export_title`)."""
        from evalgui.gui.matrix import export_heatmap

        self.shown()
        export_heatmap(self.model, path, self.export_title())

    def export_targets(self) -> list:
        if self.comparison is None:
            return []
        return [(self.table_target, self.export_table_dialog), (self.plot_target, self.export_plot_dialog)]


class MatrixTab(PairMatrix):
    """The comparison's matrix: mean differences, adjusted p-values or wins / ties / losses."""

    def cells(self, measure: str) -> dict[tuple[str, str], dict]:
        oriented = oriented_cells(self.comparison.rows(measure))
        return {pair: dict(cell, mean=cell["diff"]) for pair, cell in oriented.items()}

    def tooltip(self, row: str, column: str, measure: str, cell: dict) -> str:
        return cell_tooltip(row, column, measure, cell, self.comparison.options)

    def describe(self, measure: str, value: str) -> str:
        if value == DIFF:
            what = f"Mean per-query difference in {shown_name(measure)}, row run minus column run."
        elif value == P_ADJUSTED:
            return (f"Adjusted p-values ({cell_word('correction', self.comparison.provenance()['correction'])}) of {shown_name(measure)}: "
                    "the darker, the smaller.")
        else:
            what = (f"Queries where the row run scores higher / ties / scores lower than the column run on "
                    f"{shown_name(measure)}; colour, Copy and Export: wins minus losses.")
        return what + " Red: the row run scores higher; blue: lower."
