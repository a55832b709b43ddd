"""Drill-down tab: two runs' rankings of one query side by side, with judgments and each other's ranks."""

from __future__ import annotations

import html

import pandas as pd
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from evalgui.core.ranked.jobs import ResultSet, drill_down_job
from evalgui.gui.result_views import Sides
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import ChoiceBox, with_toolbar
from evalgui.gui.workspaces.ranked.curves import by_query_label, show_by_query_note

# Background of the judgment cells: relevance at a glance.
JUDGMENT_BADGES = {"judgment": {"relevant": "#c8e6c9", "non-relevant": "#ffcdd2", "unjudged": "#eeeeee"}}


class DrillDownView:
    title = "Drill-down"

    def __init__(self, start_side_job):
        """``start_side_job(key, job, on_success, failure_title)``: the workspace runs the lookup."""
        self._start_side_job = start_side_job
        self.results = ResultSet()
        self.query = ChoiceBox("drillQuery", names=False)
        self.query.setMinimumContentsLength(6)
        self.run_a = ChoiceBox("drillRunA")
        self.run_b = ChoiceBox("drillRunB")
        for combo in (self.query, self.run_a, self.run_b):
            combo.currentIndexChanged.connect(lambda _: self.request())
        self.model_a = DataFrameModel(best=None, precision=4, badges=JUDGMENT_BADGES)
        self.model_b = DataFrameModel(best=None, precision=4, badges=JUDGMENT_BADGES)
        self.view_a = FrameTableView(self.model_a, name="ranking_a", stretch_column="doc")
        self.view_a.setObjectName("drillTableA")
        self.view_b = FrameTableView(self.model_b, name="ranking_b", stretch_column="doc")
        self.view_b.setObjectName("drillTableB")
        self.label_a, self.label_b = QLabel(), QLabel()
        self.sides = sides = Sides(lambda: max(self.view_a.needed_width(), self.view_b.needed_width()))
        for label, view in ((self.label_a, self.view_a), (self.label_b, self.view_b)):
            box = QWidget()
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.addWidget(label)
            box_layout.addWidget(view)
            sides.addWidget(box)
        self.note = by_query_label()
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addWidget(self.note)
        body_layout.addWidget(sides, 1)
        self.page = with_toolbar(body, [QLabel("Query"), self.query, QLabel("Run A"), self.run_a,
                                        QLabel("Run B"), self.run_b])
        self._shown_queries: list[str] | None = None

    def choices(self) -> list[ChoiceBox]:
        return [self.query, self.run_a, self.run_b]

    def refresh(self, results: ResultSet) -> None:
        self.results = results
        if results.queries != self._shown_queries:      # thousands of items: rebuild only on change
            self._shown_queries = results.queries
            self.query.set_items([(q, q) for q in results.queries])
        ranked = [name for name, r in results.runs.items() if r.ranking is not None]
        show_by_query_note(self.note, results, "there is no ranking to show")
        self.run_a.set_items([(r, r) for r in ranked])
        keep_b = self.run_b.currentData() or self.run_b.preferred
        if len(ranked) > 1 and (keep_b not in ranked or keep_b == self.run_a.currentData()):
            keep_b = next(r for r in ranked if r != self.run_a.currentData())   # two different runs to compare
        self.run_b.set_items([(r, r) for r in ranked], keep=keep_b)
        self.request()

    def show_pair(self, query: str, a: str, b: str) -> None:
        """Look at ``query`` in runs ``a`` and ``b`` (linked from another view); one lookup, not three."""
        for combo, key in ((self.run_a, a), (self.run_b, b), (self.query, query)):
            index = combo.findData(key)
            if index >= 0:
                combo.blockSignals(True)
                combo.setCurrentIndex(index)
                combo.blockSignals(False)
        self.request()

    def request(self) -> None:
        query, a, b = self.query.currentData(), self.run_a.currentData(), self.run_b.currentData()
        if not (query and a in self.results and b in self.results):
            self.model_a.set_frame(pd.DataFrame())
            self.model_b.set_frame(pd.DataFrame())
            self.label_a.setText("")
            self.label_b.setText("")
            return
        self._start_side_job("drill_down", drill_down_job(self.results[a], self.results[b], query),
                             lambda result, a=a, b=b: self._show(result, a, b), "Drill-down failed")

    def _show(self, result, a: str, b: str) -> None:
        query, (frame_a, frame_b) = result
        if query != self.query.currentData():
            return
        # each side's column of ranks in the other run ("rank in <run>", as the job names it)
        self.model_a.headers = {f"rank in {b}": f"Rank in {b}"}
        self.model_b.headers = {f"rank in {a}": f"Rank in {a}"}
        self.model_a.set_frame(frame_a)
        self.model_b.set_frame(frame_b)
        for label, name, frame in ((self.label_a, a, frame_a), (self.label_b, b, frame_b)):
            text = f"<b>{html.escape(name)}</b>, query {html.escape(query)}"
            if frame.empty:
                text += " — <i>this run retrieved nothing for this query</i>"
            label.setText(text)
        self.sides.fit()

    def export_targets(self) -> list:
        return [("Drill-down, run A…", self.view_a.export_dialog), ("Drill-down, run B…", self.view_b.export_dialog)]
