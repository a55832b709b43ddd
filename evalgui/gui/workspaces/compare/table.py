"""Table tab: the tidy comparison table (one row per pair and measure, with how it was made), sortable,
under the report of which queries each measure's tests were paired over.

Exports: the table as shown (CSV, TSV, LaTeX, Markdown, JSON; the provenance columns
included) and the compact paper table (runs × measures, means with the letters of the
runs each beats significantly) in LaTeX or Markdown.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.core.display import cell_word
from evalgui.gui.naming import label
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import export_button, with_toolbar

PAPER_FORMATS = {"latex": (("LaTeX", ".tex"),), "markdown": (("Markdown", ".md"),)}
HEADER_TIPS = {
    "diff": "Mean A − Mean B over the compared queries",
    "ci_low": "Bootstrap confidence interval of the mean difference (95%)",
    "ci_high": "Bootstrap confidence interval of the mean difference (95%)",
    "effect_size": "Cohen's d for paired samples (dz): mean difference / standard deviation of the per-query "
                   "differences",
    "p_value": "The test's p-value, before the correction",
    "p_adjusted": "The p-value after the multiple-comparison correction",
    "significant": "p (adjusted) < α",
    "wins": "Queries where run A scores higher than run B (beyond the tie tolerance)",
    "ties": "Queries where the two runs are within the tie tolerance",
    "losses": "Queries where run A scores lower than run B",
    "n_queries": "Queries the test was paired over",
    "queries": "Shared: the queries every compared run has; all (0 where missing): every query, 0 where a run "
               "has none",
}


def describe(comparison) -> str:
    """How the table was made, then which queries each measure was paired over (measures whose
    report reads the same share a line), and Sakai's estimate after a bootstrap test."""
    p = comparison.provenance()
    lines = [f"Test: {cell_word('test', p['test'])}" + (f" (B = {p['samples']:,}, seed {p['seed']})"
                                                        if p["samples"] else "")
             + f"; correction: {cell_word('correction', p['correction'])}; α = {p['alpha']}."]
    same: dict[str, list[str]] = {}
    for measure in comparison.measures:
        if measure in comparison.query_sets:
            text = comparison.query_sets[measure].describe()
            same.setdefault(text[len(measure):], []).append(measure)
    lines += [", ".join(label(m) for m in measures) + rest for rest, measures in same.items()]
    if comparison.difference_required:
        lines.append(f"Difference needed for significance at α = {p['alpha']} (Sakai's estimate from the "
                     "bootstrap): " + ", ".join(f"{label(m)} {v:.4f}" for m, v in comparison.difference_required.items())
                     + ".")
    return "\n".join(lines)


class TableView:
    title = "Table"

    def __init__(self):
        self.comparison = None
        self.model = DataFrameModel(best=None, headers={"queries": "Query set"})
        self.model.set_header_tooltips(HEADER_TIPS)
        self.view = FrameTableView(self.model, name="comparison")
        self.view.setObjectName("compareTable")
        self.report = QLabel()
        self.report.setObjectName("compareQueryReport")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        export = export_button("Export table…", self.view.export_dialog)
        paper = export_button("Paper table…", lambda: self.export_paper_dialog(None),
                              "Runs × measures, each mean with the letters of the runs it beats significantly, "
                              "in LaTeX or Markdown")
        self.page = with_toolbar(self.view, [export, paper])
        self.page.layout().insertWidget(1, self.report)

    def choices(self) -> list:
        return []

    def refresh(self, comparison) -> None:
        self.comparison = comparison
        if comparison is None:
            self.model.set_frame(pd.DataFrame())
            self.report.setText("")
            return
        # A randomization or bootstrap test's p of 0 reads "< 1/B": B resamples show no smaller p.
        self.model.resamples = comparison.provenance().get("samples") or None
        self.model.set_frame(comparison.table, directions=None)
        self.report.setText(describe(comparison))

    def paper_text(self, fmt: str) -> str:
        from evalgui.core.stats.compare import paper_table

        from evalgui.gui import naming

        return paper_table(self.comparison, fmt, naming=naming.current())

    def export_paper_dialog(self, fmt: str | None) -> None:
        """Ask where to write the paper table; ``fmt`` None offers LaTeX and Markdown (by extension)."""
        from evalgui.core.export import format_from_path, write_atomic
        from evalgui.gui.exporting import export_dialog

        if self.comparison is None:
            return
        formats = PAPER_FORMATS[fmt] if fmt else PAPER_FORMATS["latex"] + PAPER_FORMATS["markdown"]

        def write(path: str) -> None:
            write_atomic(path, self.paper_text(fmt or format_from_path(path, "latex")))

        export_dialog(self.page, "paper_table", formats, write, title="Export the paper table")

    def export_targets(self) -> list:
        if self.comparison is None:
            return []
        return [("Comparison table…", self.view.export_dialog),
                ("Paper table (LaTeX)…", lambda: self.export_paper_dialog("latex")),
                ("Paper table (Markdown)…", lambda: self.export_paper_dialog("markdown"))]
