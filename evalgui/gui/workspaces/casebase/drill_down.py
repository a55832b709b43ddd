"""Drill-down tab: one query's ground-truth list and a retriever's list side by side, each case with its
rank in the other list (empty: the other list does not have it) and, for the retriever, its true similarity."""

from __future__ import annotations

import html

import pandas as pd
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from evalgui.gui.result_views import LazyView, Sides
from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.toolbar import ChoiceBox, with_toolbar
from evalgui.gui.workspaces.casebase.results import drill_down

RANKS = {"rank", "rank_in_retriever", "rank_in_ground_truth"}


class DrillDownTab(LazyView):
    title = "Drill-down"

    def __init__(self):
        super().__init__()
        self.query = ChoiceBox("cbrDrillQuery", names=False)
        self.query.setToolTip("The query (test case)")
        self.retriever = ChoiceBox("cbrDrillRetriever")
        self.retriever.setToolTip("The retriever whose list is shown on the right")
        for combo in (self.query, self.retriever):
            combo.currentIndexChanged.connect(lambda _: self.draw())
        self.model_truth = DataFrameModel(best=None)
        self.model_lists = DataFrameModel(best=None)
        self.view_truth = FrameTableView(self.model_truth, name="ground_truth_list", stretch_column="case_id")
        self.view_truth.setObjectName("cbrDrillTruth")
        self.view_lists = FrameTableView(self.model_lists, name="retriever_list", stretch_column="case_id")
        self.view_lists.setObjectName("cbrDrillRetrieverList")
        self.label_truth, self.label_lists = QLabel(), QLabel()
        self.sides = Sides(lambda: max(self.view_truth.needed_width(), self.view_lists.needed_width()))
        for label, view in ((self.label_truth, self.view_truth), (self.label_lists, self.view_lists)):
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(label)
            column.addWidget(view)
            self.sides.addWidget(box)
        self.page = with_toolbar(self.sides, [QLabel("Query"), self.query, QLabel("Retriever"), self.retriever])

    @property
    def outcome(self):
        return self.comparison

    def choices(self) -> list[ChoiceBox]:
        return [self.query, self.retriever]

    def update_choices(self) -> None:
        o = self.outcome
        truth = o.ground_truth if o is not None else None
        self.query.set_items([(str(q), str(q)) for q in truth.query_ids.tolist()] if truth is not None else [])
        labels = list(o.lists) if o is not None else []
        # A retriever other than the ground truth itself, when there is one.
        self.retriever.set_items([(r, r) for r in labels],
                                 keep=None if self.retriever.currentData() in labels or self.retriever.preferred
                                 in labels else next((r for r in labels if r != "linear"), None))

    def draw(self) -> None:
        super().draw()
        o, query, retriever = self.outcome, self.query.currentData(), self.retriever.currentData()
        if o is None or o.ground_truth is None or query is None or retriever not in o.lists:
            self.model_truth.set_frame(pd.DataFrame())
            self.model_lists.set_frame(pd.DataFrame())
            self.label_truth.setText("" if o is None or o.ground_truth is not None else
                                     "The lists were not kept in the project (too large): press Run to see them.")
            self.label_lists.setText("")
            return
        truth, lists = drill_down(o.ground_truth, o.lists[retriever], query)
        self.model_truth.set_frame(truth, directions=None, integers=RANKS)
        self.model_lists.set_frame(lists, directions=None, integers=RANKS)
        self.label_truth.setText(f"<b>Ground truth</b>, query {html.escape(query)}: {len(truth)} cases")
        self.label_lists.setText(f"<b>{html.escape(retriever)}</b>, query {html.escape(query)}: {len(lists)} cases")
        self.sides.fit()

    def export_targets(self) -> list:
        if self.outcome is None:
            return []

        def exporting(view):
            return lambda: (self.shown(), view.export_dialog())
        return [("Drill-down, ground truth…", exporting(self.view_truth)),
                ("Drill-down, retriever…", exporting(self.view_lists))]
