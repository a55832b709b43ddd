"""Precision-recall tab: one curve per run, interpolated or not, the mean or one query."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QVBoxLayout, QWidget

from evalgui.core import tidy
from evalgui.core.ranked.jobs import ResultSet
from evalgui.gui.plots import PrecisionRecallPlot, export_plot_dialog
from evalgui.gui.toolbar import ChoiceBox, with_toolbar


def by_query_label() -> QLabel:
    """A line above a view that runs evaluated query by query cannot fill (hidden while there are none)."""
    label = QLabel()
    label.setObjectName("byQueryNote")
    label.setWordWrap(True)
    label.hide()
    return label


def show_by_query_note(label: QLabel, results: ResultSet, lacks: str) -> None:
    """Say which runs were evaluated query by query, so ``lacks`` (what they do not have) is no mystery."""
    names = [name for name, result in results.runs.items() if result.by_query]
    if names:
        which = ", ".join(names)
        label.setText(f"{which} {'was' if len(names) == 1 else 'were'} evaluated query by query, because "
                      f"{'it is' if len(names) == 1 else 'they are'} too large to hold in memory: {lacks}.")
    label.setVisible(bool(names))


class CurvesView:
    title = "Precision-recall"

    def __init__(self):
        self.plot = PrecisionRecallPlot()
        self.kind = QComboBox()
        self.kind.setObjectName("prKind")
        self.kind.addItem("Interpolated, 11 levels", "interpolated")
        self.kind.addItem("Uninterpolated", "uninterpolated")
        self.kind.setToolTip("Interpolated: the highest precision at or after each of the recall levels 0, 0.1, "
                             "..., 1 (trec_eval's interpolated precision, IPrec@r). Uninterpolated: the precision "
                             "after each relevant document retrieved.")
        self.kind.currentIndexChanged.connect(lambda _: self.plot.show_curves(kind=self.kind.currentData()))
        self.query = ChoiceBox("prQuery", names=False)
        self.query.setMinimumContentsLength(6)
        self.query.currentIndexChanged.connect(
            lambda _: self.plot.show_curves(query=self.query.currentData() or tidy.ALL_QUERIES))
        export = QPushButton("Export…")
        export.clicked.connect(self.export_dialog)
        self.plot.show_curves()
        self.note = by_query_label()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.plot, 1)
        self.page = with_toolbar(body, [self.kind, QLabel("Query"), self.query, export])
        self._shown_queries: list[str] | None = None

    def export_dialog(self) -> None:
        export_plot_dialog(self.page, self.plot, "precision_recall")

    def choices(self) -> list[ChoiceBox]:
        return [self.query]

    def clear(self) -> None:
        self.plot.clear_runs()

    def add_run(self, name: str, curves: dict | None) -> None:
        if curves is not None:              # None: evaluated query by query, the note above says so
            self.plot.set_run(name, curves)

    def refresh(self, results: ResultSet) -> None:
        if results.queries != self._shown_queries:      # thousands of items: rebuild only on change
            self._shown_queries = results.queries
            self.query.set_items([("All queries (mean)", tidy.ALL_QUERIES)] + [(q, q) for q in results.queries])
        self.plot.show_curves(query=self.query.currentData() or tidy.ALL_QUERIES)
        show_by_query_note(self.note, results, "no precision-recall curves are drawn for "
                                               + ("it" if sum(r.by_query for r in results.runs.values()) == 1
                                                  else "them"))

    def export_targets(self) -> list:
        return [("Precision-recall plot…", self.export_dialog)]
