"""Table tab: the table of the experiment that ran, as ``evalgui-cli metaeval`` writes it, sortable.

A second choice shows what the CLI's ``--matrix``, ``--curves`` and ``--per-repetition``
write: every pair's better/worse/equal counts (stability), every pair's p-value
(power), every repetition (robustness). Above the table: how it was made, and the
queries each measure was compared over when runs lack some. Exports: CSV, TSV,
LaTeX, Markdown, JSON, of the table shown, provenance columns included.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from evalgui.core.display import cell_word
from evalgui.gui.exporting import file_words
from evalgui.gui.naming import label
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import ChoiceBox, export_button, with_toolbar
from evalgui.gui.workspaces.metaeval.form import EXPERIMENT_LABELS

MAIN = "table"
DETAILS = {   # experiment -> (key, label) of its detailed table
    "stability": ("counts", "Better / worse / equal of every pair"),
    "power": ("pairs", "Every pair's p-value (Sakai's curves)"),
    "robustness": ("repetitions", "Every repetition"),
}
MAIN_LABELS = {"stability": "Error and tie rates", "power": "Discriminative power",
               "robustness": "Kendall's τ and flipped pairs", "agreement": "Agreement of every two measures"}
# Each experiment's answer, shown right after the measure (visual order only: copies and exports keep the
# documented column order).
KEY_COLUMNS = {"stability": ("error_rate", "tie_rate"), "power": ("discriminative_power", "significant_pairs"),
               "robustness": ("kendall_tau", "flipped_pairs"), "agreement": ("pearson", "sign_agreement")}
INTEGERS = {"set_size", "pairs", "significant_pairs", "queries", "sets", "repetitions", "samples", "seed", "cells",
            "better", "worse", "equal", "rank", "repetition"}
HEADER_TIPS = {
    "error_rate": "Σ min(better, worse) / Σ decisions over every pair of runs, in percent (mean over the repetitions)",
    "tie_rate": "Σ equal / Σ decisions over every pair of runs, in percent (mean over the repetitions)",
    "error_rate_sd": "Standard deviation of the error rate over the repetitions",
    "tie_rate_sd": "Standard deviation of the tie rate over the repetitions",
    "fuzziness": "Two means are equal when their relative difference is within this",
    "discriminative_power": "Share of the run pairs significant at α after the correction, in percent",
    "significant_pairs": "Run pairs whose corrected p-value is below α",
    "difference_required": "Sakai's estimate of the difference in means needed for significance (bootstrap only)",
    "kendall_tau": "Kendall's τ_b between the run ordering with full and with reduced judgments (mean over the "
                   "repetitions)",
    "flipped_pairs": "Share of run pairs whose order flips with the reduced judgments, in percent",
    "judgments_kept": "Share of the judgments kept, in percent",
    "pearson": "Pearson's correlation of the two measures' per-query differences over every (run pair, query)",
    "sign_agreement": "Share of (run pair, query) cells where both measures prefer the same run (or both tie), "
                      "in percent",
    "queries": "Queries the measure was compared over",
    "better": "Query sets on which system_a's mean is better than system_b's (beyond the fuzziness)",
    "worse": "Query sets on which system_a's mean is worse",
    "equal": "Query sets on which the two means are equal within the fuzziness",
}


def describe(outcome) -> str:
    """How the table was made, in one line, then the queries of the measures whose runs lack some."""
    s = outcome.result.settings
    runs = f"{len(outcome.runs)} runs"
    if outcome.experiment == "stability":
        sizes = ", ".join(str(v) for v in dict.fromkeys(outcome.result.table["set_size"]))
        how = (f"Stability: {s.sets:,} query sets of {sizes} queries, {'with' if s.replacement else 'without'} "
               f"replacement, {s.repetitions} repetition(s), fuzziness {s.fuzziness:g}, seed {s.seed}; {runs}.")
    elif outcome.experiment == "power":
        samples = outcome.result.table["samples"].iloc[0] if len(outcome.result.table) else None
        resampled = f", B = {int(samples):,}, seed {s.seed}" if samples is not None and pd.notna(samples) else ""
        how = (f"Discriminative power: test: {cell_word('test', s.test)}{resampled}; correction: "
               f"{cell_word('correction', s.correction)}; α = {s.alpha:g}; "
               f"{runs}, {len(outcome.runs) * (len(outcome.runs) - 1) // 2} pairs.")
    elif outcome.experiment == "robustness":
        fractions = ", ".join(f"{f:g}" for f in s.fractions)
        how = (f"Robustness: {fractions} of each query's judgments removed, {s.repetitions} repetition(s), "
               f"seed {s.seed}; {runs}.")
    else:
        how = f"Agreement between every two measures over every pair of the {runs} and every query."
    return "\n".join([how, *map(report_line, outcome.query_report)])


def report_line(line: str) -> str:
    """A line of the query report ("map: 45 of 46 queries…", as evalgui-cli writes it) with its measure as the
    window names it (AP: 45 of 46 queries…)."""
    measure, colon, rest = line.partition(": ")
    return f"{label(measure)}{colon}{rest}" if colon else line


class TableView:
    title = "Table"
    experiments = ("stability", "power", "robustness", "agreement")

    def __init__(self):
        self.outcome = None
        self.model = DataFrameModel(best=None)
        self.model.set_header_tooltips(HEADER_TIPS)
        self.view = FrameTableView(self.model, name="metaeval")
        self.view.setObjectName("metaevalTable")
        self.choice = ChoiceBox("metaevalTableChoice")
        self.choice.setToolTip("The experiment's table, or the details behind it")
        self.choice.currentIndexChanged.connect(lambda _: self.draw())
        self.report = QLabel()
        self.report.setObjectName("metaevalReport")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        export = export_button("Export table…", self.view.export_dialog)
        self.page = with_toolbar(self.view, [self.choice, export])
        self.page.layout().insertWidget(1, self.report)

    def choices(self) -> list:
        return [self.choice]

    def shown(self) -> None:
        """Always up to date (a table is cheap to refill)."""

    def refresh(self, outcome) -> None:
        self.outcome = outcome
        items = []
        if outcome is not None:
            items.append((MAIN_LABELS[outcome.experiment], MAIN))
            if outcome.experiment in DETAILS:
                key, label = DETAILS[outcome.experiment]
                items.append((label, key))
        self.choice.set_items(items)
        self.report.setText(describe(outcome) if outcome is not None else "")
        self.draw()

    def frame(self) -> pd.DataFrame:
        """The table chosen, as the engine gives it."""
        if self.outcome is None:
            return pd.DataFrame()
        result, shown = self.outcome.result, self.choice.currentData()
        if shown == "counts":
            return pd.concat([result.matrix_frame(m) for m in result.counts], ignore_index=True)
        if shown == "pairs":
            return result.pairs
        if shown == "repetitions":
            return result.repetitions
        return result.table

    def draw(self) -> None:
        frame = self.frame()
        samples = frame["samples"].dropna() if "samples" in frame.columns else ()
        self.model.resamples = int(samples.iloc[0]) if len(samples) else None    # p = 0 reads "< 1/B"
        self.model.set_frame(frame, directions=None, integers=INTEGERS)
        shown = self.choice.currentData()
        self._key_columns_first(shown in (None, MAIN))
        experiment = self.outcome.experiment if self.outcome is not None else None
        self.view.name = file_words("Meta-evaluation", EXPERIMENT_LABELS.get(experiment, ""),
                                    "" if shown in (None, MAIN) else self.choice.currentText())

    def _key_columns_first(self, main: bool) -> None:
        """The experiment's key columns right after the measure column(s), so they are in sight unscrolled."""
        header, names = self.view.horizontalHeader(), list(self.model.frame.columns)
        for logical in range(len(names)):           # the engine's order first (a previous table's moves undone)
            header.moveSection(header.visualIndex(logical), logical)
        if not main or self.outcome is None:
            return
        place = sum(1 for n in names if str(n).startswith("measure"))
        for name in KEY_COLUMNS.get(self.outcome.experiment, ()):
            if name in names:
                header.moveSection(header.visualIndex(names.index(name)), place)
                place += 1

    def key_columns_in_sight(self) -> list[str]:
        """The names of the columns shown, left to right (for tests and screenshots)."""
        header, names = self.view.horizontalHeader(), list(self.model.frame.columns)
        return [str(names[header.logicalIndex(v)]) for v in range(len(names))]

    def export_targets(self) -> list:
        return [("Meta-evaluation table…", self.view.export_dialog)] if self.outcome is not None else []
