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
from PySide6.QtWidgets import QLabel, QPushButton, QSplitter

from evalgui.gui.matrix import HeatmapPlot, MatrixModel, MatrixView
from evalgui.gui.plots import export_plot_dialog
from evalgui.gui.toolbar import ChoiceBox, with_toolbar
from evalgui.gui.workspaces.compare.lazy import LazyView
from evalgui.gui.workspaces.ranked.run_matrix import nice_limit

DIFF, P_ADJUSTED, WTL = "diff", "p_adjusted", "wtl"
VALUES = (("Mean difference", DIFF), ("Adjusted p-value", P_ADJUSTED), ("Wins / ties / losses", WTL))
MARK = "*"


class CellTextModel(MatrixModel):
    """A matrix model whose cells may show a text of their own ("40/0/10", "<0.0001") instead of the
    number, followed by the cell's mark; the number still decides the colour and is what Copy and
    Export give."""

    def set_frame(self, frame: pd.DataFrame, *, texts: pd.DataFrame | None = None, **kwargs) -> None:
        """``texts``: strings with ``frame``'s index and columns (None: the numbers, as MatrixModel shows them)."""
        self._texts = None if texts is None else \
            texts.reindex(index=frame.index, columns=frame.columns, fill_value="").to_numpy(dtype=object).tolist()
        super().set_frame(frame, **kwargs)

    def display_text(self, row: int, column: int) -> str:
        if self._texts is None or self.value(row, column) is None:
            return super().display_text(row, column)
        return self._texts[row][column] + self.mark(row, column)


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


def fit_below(sides: QSplitter, table, rows: int) -> None:
    """A table under a heatmap as tall as its rows, at most 40% of the page (30% past a dozen rows: a
    big matrix needs the room more than its table, which scrolls), the heatmap taking the rest."""
    total = sum(sides.sizes())
    if getattr(sides, "user_sized", False) or total <= 0:
        return
    needed = (table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
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
    correction = options.effective_correction
    return (f"{row} vs {column} · {measure} ({cell['n']} queries)\n"
            f"mean {row}: {cell['mean_row']:.4f}   mean {column}: {cell['mean_column']:.4f}\n"
            f"difference {_signed(cell['diff'])}, {options.confidence:.0%} CI [{_signed(low)}, {_signed(high)}]\n"
            f"p = {p_text(cell['p'])}, adjusted p = {p_text(cell['p_adjusted'])} ({correction}): {verdict} "
            f"at α = {options.alpha}\n"
            f"wins / ties / losses of {row}: {cell['wins']} / {cell['ties']} / {cell['losses']}")


class MatrixTab(LazyView):
    title = "Matrix"

    def __init__(self):
        super().__init__()
        self.measure = ChoiceBox("compareMatrixMeasure")
        self.value = ChoiceBox("compareMatrixValue")
        self.value.set_items([(label, key) for label, key in VALUES])
        for combo in (self.measure, self.value):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.model = CellTextModel(mask_diagonal=True, precision=3)
        self.table = MatrixView(self.model, name="comparison_matrix")
        self.table.setObjectName("compareMatrixTable")
        self.heatmap = HeatmapPlot(self.model)       # hovering a cell shows the model's tooltip
        self.heatmap.setObjectName("compareHeatmap")
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        export = QPushButton("Export plot…")
        export.clicked.connect(self.export_plot_dialog)
        self.sides = heatmap_over_table(self.heatmap, self.table)
        self.page = with_toolbar(self.sides, [QLabel("Measure"), self.measure, QLabel("Show"), self.value, export])
        self.page.layout().addWidget(self.caption)
        self._scale = None

    def choices(self) -> list[ChoiceBox]:
        return [self.measure, self.value]

    def update_choices(self) -> None:
        c = self.comparison
        self.measure.set_items([(m, m) for m in c.measures] if c is not None else [])

    def draw(self) -> None:
        super().draw()
        c, measure, value = self.comparison, self.measure.currentData(), self.value.currentData()
        if c is None or measure not in c.measures:
            self.model.set_frame(pd.DataFrame())
            self.caption.setText("")
            return
        runs = c.runs
        where = {run: i for i, run in enumerate(runs)}
        provenance = c.provenance()
        shape = (len(runs), len(runs))
        numbers = np.full(shape, np.nan)
        marks, tips = np.full(shape, "", dtype=object), np.full(shape, "", dtype=object)
        texts = np.full(shape, "", dtype=object) if value != DIFF else None
        for (a, b), cell in oriented_cells(c.rows(measure)).items():
            i, j = where[a], where[b]
            marks[i, j] = MARK if cell["significant"] else ""
            tips[i, j] = cell_tooltip(a, b, measure, cell, c.options)
            if value == DIFF:
                numbers[i, j] = cell["diff"]
            elif value == P_ADJUSTED:
                numbers[i, j] = cell["p_adjusted"]
                texts[i, j] = p_text(cell["p_adjusted"])
            else:
                numbers[i, j] = cell["wins"] - cell["losses"]
                texts[i, j] = f"{cell['wins']}/{cell['ties']}/{cell['losses']}"
        if value == DIFF:
            largest = float(np.nanmax(np.abs(numbers))) if np.isfinite(numbers).any() else 0.0
            scale, diverging = (-nice_limit(largest), nice_limit(largest)), True
            what = f"Mean per-query difference in {measure}, row run minus column run."
        elif value == P_ADJUSTED:
            scale, diverging = (0.0, 1.0), False
            what = f"Adjusted p-values ({provenance['correction']}) of {measure}: the darker, the smaller."
        else:
            most = float(c.rows(measure)["n_queries"].max() or 1)
            scale, diverging = (-most, most), True
            what = (f"Queries where the row run scores higher / ties / scores lower than the column run on "
                    f"{measure}; colour, Copy and Export: wins minus losses.")
        if diverging:
            what += " Red: the row run scores higher; blue: lower."
        # Each change of scale redraws the heatmap: only what changed. p-values: small is dark.
        if (diverging, scale) != self._scale:
            self._scale = (diverging, scale)
            self.model.set_diverging(diverging)
            self.model.set_reverse(value == P_ADJUSTED)
            self.model.set_levels(scale)

        def frame(values) -> pd.DataFrame | None:
            return None if values is None else pd.DataFrame(values, index=runs, columns=runs)

        self.model.set_frame(frame(numbers), marks=frame(marks), tooltips=frame(tips), texts=frame(texts))
        self._fit_table()
        test = provenance["test"] + (f", B = {provenance['samples']:,}" if provenance["samples"] else "")
        self.caption.setText(f"{what} {MARK}: significant at α = {provenance['alpha']} ({test}, correction "
                             f"{provenance['correction']}). Hover a cell for the details.")

    def _fit_table(self) -> None:
        fit_below(self.sides, self.table, self.model.rowCount())

    def export_table_dialog(self) -> None:
        self.shown()
        self.table.export_dialog()

    def export_plot_dialog(self) -> None:
        self.shown()
        name = f"comparison_{self.measure.currentData() or ''}_{self.value.currentData()}".replace("/", "_")
        export_plot_dialog(self.page, self.heatmap, name)

    def export_targets(self) -> list:
        return [("Comparison matrix table…", self.export_table_dialog),
                ("Comparison heatmap…", self.export_plot_dialog)]

