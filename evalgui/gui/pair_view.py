"""One pair of runs query by query: what a run × run matrix cell opens.

    view = PairView(parent)                          # a window of its own, reused for every cell
    view.show_pair(measure, "bm25", "dense", values) # values: queries × runs (the outcome's, never recomputed)
    view.show_preferences(measure, "bm25", "dense", preferences)   # query, preference (the workflow's)
    view.queries_selected.connect(...)               # the queries selected there (list of str)

The differences (row run minus column run) as horizontal bars sorted by size, the queries
where the two runs disagree most at the top; a scatter of the row run's score against the
column run's (the diagonal: equal scores); a table of the same queries. Selecting in the
table, or clicking a bar or a point, selects those queries everywhere in the pane and tells
``queries_selected``, so that the workspace selects them in its own views (Orange's linked views).
Every bar is named: each query on the axis when the names fit, else the pointer over a bar names its
query and values; the line under the plots names the queries selected.

A preference (a cell of Compare's preference matrix) has one value per query, the preference of the
row run over the column run, and no score of either run: the same bars and table, without the scatter.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QCursor, QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QLabel, QSplitter, QTableWidget, QTableWidgetItem,
                               QToolTip, QVBoxLayout)

from evalgui.gui.accessibility import name_controls
from evalgui.gui.naming import label as shown_name
from evalgui.gui.plain_text import rich, tip
from evalgui.gui.plots import plain_axes

HIGHER, LOWER, PICKED = "#d6604d", "#4393c3", "#000000"
NAMED_IN_SELECTION = 5      # queries the selection line names one by one (more: the first ones, and how many)


def pair_differences(values: pd.DataFrame, row_run: str, column_run: str) -> pd.DataFrame:
    """The queries both runs have: query, the two scores and the difference (row minus column), the
    largest differences (either sign) first, ties in query order."""
    both = values[[row_run, column_run]].astype(np.float64)
    both = both[np.isfinite(both.to_numpy()).all(axis=1)]
    frame = pd.DataFrame({"query": [str(q) for q in both.index], row_run: both[row_run].to_numpy(),
                          column_run: both[column_run].to_numpy()})
    frame["difference"] = both[row_run].to_numpy() - both[column_run].to_numpy()
    return largest_first(frame)


def largest_first(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its largest ``difference`` values (either sign) first, ties in the order given."""
    difference = frame["difference"].to_numpy(dtype=np.float64)
    order = np.lexsort((np.arange(len(frame)), -np.abs(difference)))
    return frame.iloc[order].reset_index(drop=True)


def preference_rows(preferences: pd.DataFrame) -> pd.DataFrame:
    """A pair's per-query preferences (query, preference of the row run over the column run, from the
    workflow) as the view's rows: query and ``difference`` (the preference), the strongest first."""
    values = preferences["preference"].to_numpy(dtype=np.float64)
    keep = np.isfinite(values)
    frame = pd.DataFrame({"query": [str(q) for q in preferences["query"].to_numpy()[keep]],
                          "difference": values[keep]})
    return largest_first(frame)


class PairView(QDialog):
    """See the module docstring."""

    queries_selected = Signal(list)

    def __init__(self, parent=None, linked_views: str = ""):
        super().__init__(parent)
        # Where queries selected here are selected too ("the per-query table and the drill-down"), told in the
        # caption; none: they are only picked out here.
        self.linked_views = linked_views
        self.setObjectName("pairView")
        self.setWindowTitle("Pair of runs")
        self.resize(900, 600)
        self.frame = pd.DataFrame()
        self.row_run = self.column_run = self.measure = ""
        self.preferences = False       # showing a preference (one value per query, no scores to scatter)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # names from the data show as text
        self.caption.setWordWrap(True)
        self.selection_caption = QLabel()
        self.selection_caption.setTextFormat(Qt.TextFormat.PlainText)  # query names from the data show as text
        self.selection_caption.setObjectName("pairSelection")
        self.selection_caption.setWordWrap(True)
        self.selection_caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bars = pg.PlotWidget()
        self.bars.setObjectName("pairBars")
        self.bars.setAccessibleName("Per-query differences, largest first")
        self.scatter = pg.PlotWidget()
        self.scatter.setObjectName("pairScatter")
        self.scatter.setAccessibleName("Row run's score against the column run's, one point per query")
        for plot in (self.bars, self.scatter):
            plain_axes(plot.getPlotItem())
            plot.getPlotItem().hideButtons()
            plot.getPlotItem().setMenuEnabled(False)
        self.bars.getPlotItem().invertY(True)
        self.bar_item = pg.BarGraphItem(x0=[], y=[], height=[], width=[])
        self.bars.addItem(self.bar_item)
        self.bar_item.setZValue(1)
        self.bars.scene().sigMouseClicked.connect(self._clicked_bars)
        self.bars.scene().sigMouseMoved.connect(self._hover_bars)
        self.bars.getPlotItem().getViewBox().sigResized.connect(self._name_bars)
        self.points = pg.ScatterPlotItem(size=8, pen=None)
        self.points.sigClicked.connect(self._clicked_points)
        self.scatter.scene().sigMouseMoved.connect(self._hover_points)
        self.diagonal = pg.PlotDataItem(pen=pg.mkPen("#999999", style=Qt.PenStyle.DashLine))
        self.scatter.addItem(self.diagonal)
        self.scatter.addItem(self.points)
        self.table = QTableWidget()
        self.table.setObjectName("pairTable")
        self.table.setAccessibleName("Queries of the pair, largest difference first")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)      # no blank strip beside the columns
        self.table.itemSelectionChanged.connect(self._table_selection_changed)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.bars)
        plots.addWidget(self.scatter)
        sides = QSplitter(Qt.Orientation.Vertical)
        sides.addWidget(plots)
        sides.addWidget(self.table)
        sides.setSizes([600, 300])
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(sides, 1)
        layout.addWidget(self.selection_caption)
        name_controls(self)

    # ------------------------------------------------------------ content
    def show_pair(self, measure: str, row_run: str, column_run: str, values: pd.DataFrame) -> None:
        """``values``: queries × runs of ``measure`` (NaN where a run lacks a query)."""
        self.measure, self.row_run, self.column_run = measure, row_run, column_run
        self.preferences = False
        self.frame = frame = pair_differences(values, row_run, column_run)
        self.setWindowTitle(f"{row_run} − {column_run} · {shown_name(measure)}")
        wins, losses = int((frame["difference"] > 0).sum()), int((frame["difference"] < 0).sum())
        self.caption.setText(
            f"{shown_name(measure)}, per query: {row_run} minus {column_run} over the {len(frame)} queries both have, "
            f"the largest differences at the top. {row_run} scores higher on {wins}, lower on {losses}, "
            f"the same on {len(frame) - wins - losses}. Select queries in the table, or click a bar or a "
            f"point, to " + (f"select them in {self.linked_views} too." if self.linked_views else "pick them out."))
        self._draw(f"{row_run} − {column_run}")

    def show_preferences(self, measure: str, row_run: str, column_run: str, preferences: pd.DataFrame) -> None:
        """``preferences``: query and preference (of ``row_run`` over ``column_run``, from −1 to 1), as the
        preference workflow keeps them. One value per query and no score of either run: no scatter."""
        self.measure, self.row_run, self.column_run = measure, row_run, column_run
        self.preferences = True
        self.frame = frame = preference_rows(preferences)
        self.setWindowTitle(f"{row_run} over {column_run} · {shown_name(measure)}")
        wins, losses = int((frame["difference"] > 0).sum()), int((frame["difference"] < 0).sum())
        mean = float(frame["difference"].mean()) if len(frame) else 0.0
        self.caption.setText(
            f"{shown_name(measure)} preference of {row_run} over {column_run}, query by query, over the {len(frame)} "
            f"queries with a relevant document, the strongest at the top: 1, {row_run} preferred outright; "
            f"−1, {column_run}. {row_run} is preferred on {wins}, {column_run} on {losses}, neither on "
            f"{len(frame) - wins - losses}; the mean, {mean:+.4f}, is the matrix's cell. Select queries in the "
            f"table, or click a bar, to " + (f"select them in {self.linked_views} too." if self.linked_views
                                             else "pick them out."))
        self._draw(f"Preference of {row_run} over {column_run}")

    def _draw(self, bar_label: str) -> None:
        frame, row_run, column_run = self.frame, self.row_run, self.column_run
        difference = frame["difference"].to_numpy()
        positions = np.arange(len(frame), dtype=np.float64)
        self.bar_item.setOpts(x0=np.minimum(difference, 0), width=np.abs(difference), y=positions, height=0.8,
                              brushes=[pg.mkBrush(HIGHER if d > 0 else LOWER) for d in difference], pen=None)
        self._name_bars()
        self.bars.getPlotItem().setLabel("bottom", rich(bar_label))
        self.bars.getPlotItem().setYRange(-0.5, max(len(frame), 1) - 0.5, padding=0.02)
        self.scatter.setVisible(not self.preferences)
        if self.preferences:
            self.bars.getPlotItem().setXRange(-1.0, 1.0, padding=0.05)      # preferences lie in [−1, 1]
            self.points.setData(x=[], y=[])
            self.diagonal.setData([], [])
            self._fill_table()
            return
        self.bars.getPlotItem().enableAutoRange(x=True)
        x, y = frame[column_run].to_numpy(), frame[row_run].to_numpy()
        self.points.setData(x=x, y=y, data=list(range(len(frame))), brush=pg.mkBrush("#4393c3"))
        if len(frame):
            lo, hi = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
            self.diagonal.setData([lo, hi], [lo, hi])
        else:
            self.diagonal.setData([], [])
        self.scatter.getPlotItem().setLabel("bottom", rich(column_run))
        self.scatter.getPlotItem().setLabel("left", rich(row_run))
        self._fill_table()

    def bars_named_every(self) -> int:
        """Every how many bars the axis names one: 1 when every query's name fits beside its bar."""
        rows = len(self.frame)
        line = QFontMetrics(self.bars.getPlotItem().getAxis("left").font()).height() + 1
        height = self.bars.getPlotItem().getViewBox().height()
        fitting = max(1, int(height // line)) if height > 0 else rows
        return max(1, -(-rows // fitting))

    def _name_bars(self) -> None:
        """The queries on the bars' axis: all when they fit (the view is tall enough), else every n-th; the
        pointer names any bar (:meth:`bar_text`)."""
        frame = self.frame
        step = self.bars_named_every() if len(frame) else 1
        axis = self.bars.getPlotItem().getAxis("left")
        axis.setTicks([[(float(i), frame["query"].iat[i]) for i in range(0, len(frame), step)]])

    def bar_text(self, row: int) -> str:
        """What a bar shows, in words: its query and values."""
        r = self.frame.iloc[row]
        if self.preferences:
            who = self.row_run if r["difference"] > 0 else self.column_run if r["difference"] < 0 else "neither"
            return f"Query {r['query']}: preference {r['difference']:+.4f} ({who} preferred)"
        return (f"Query {r['query']}: {self.row_run} {r[self.row_run]:.4f}, {self.column_run} "
                f"{r[self.column_run]:.4f}, difference {r['difference']:+.4f}")

    def _bar_at(self, scene_position) -> int | None:
        view = self.bars.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(scene_position):
            return None
        row = int(round(view.mapSceneToView(scene_position).y()))
        return row if 0 <= row < len(self.frame) else None

    def _hover_bars(self, scene_position) -> None:
        row = self._bar_at(scene_position)
        _show_tip(self.bars, self.bar_text(row) if row is not None else "")

    def _hover_points(self, scene_position) -> None:
        """The queries under the pointer in the scatter (several share a point when their scores are equal)."""
        found = self.points.pointsAt(self.points.mapFromScene(scene_position)) if len(self.frame) else []
        rows = sorted(int(point.data()) for point in found)
        more = f"\n… and {len(rows) - NAMED_IN_SELECTION:,} more" if len(rows) > NAMED_IN_SELECTION else ""
        _show_tip(self.scatter, "\n".join(self.bar_text(r) for r in rows[:NAMED_IN_SELECTION]) + more)

    def _fill_table(self) -> None:
        frame = self.frame
        self.table.blockSignals(True)
        self.table.clear()
        if self.preferences:
            headers = ["Query", "Preference", "Preferred"]
            preferred = np.where(frame["difference"] > 0, self.row_run,
                                 np.where(frame["difference"] < 0, self.column_run, "neither"))
            rows = [(query, f"{d:+.4f}", who) for query, d, who in zip(frame["query"], frame["difference"],
                                                                        preferred)]
        else:
            headers = ["Query", self.row_run, self.column_run, "Difference"]
            rows = [(query, f"{a:.4f}", f"{b:.4f}", f"{d:+.4f}") for query, a, b, d in
                    zip(frame["query"], frame[self.row_run], frame[self.column_run], frame["difference"])]
        self.table.setColumnCount(len(headers))
        self.table.setRowCount(len(frame))
        self.table.setHorizontalHeaderLabels(headers)
        numbers = range(1, 2) if self.preferences else range(1, 4)        # right-aligned; names stay left
        for r, texts in enumerate(rows):
            for c, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if c in numbers:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.blockSignals(False)
        self._say_selection([])

    # ------------------------------------------------------------ selection
    def selected_queries(self) -> list[str]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.frame["query"].iat[r] for r in rows]

    def select_queries(self, queries: list[str]) -> None:
        """Select ``queries`` in the table (and so in the plots and the workspace's views)."""
        wanted = set(queries)
        selection = QItemSelection()
        model = self.table.model()
        for r, query in enumerate(self.frame["query"].tolist() if len(self.frame) else []):
            if query in wanted:
                selection.select(model.index(r, 0), model.index(r, model.columnCount() - 1))
        self.table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def _table_selection_changed(self) -> None:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        n = len(self.frame)
        if n:
            difference = self.frame["difference"].to_numpy()
            self.bar_item.setOpts(brushes=[pg.mkBrush(PICKED if i in rows else HIGHER if d > 0 else LOWER)
                                           for i, d in enumerate(difference)])
            if not self.preferences:
                self.points.setBrush([pg.mkBrush(PICKED if i in rows else "#4393c3") for i in range(n)])
                self.points.setSize([12 if i in rows else 8 for i in range(n)])
        self._say_selection(sorted(rows))
        self.queries_selected.emit(self.selected_queries())

    def _say_selection(self, rows: list[int]) -> None:
        """The line under the plots: the selected queries by name (one alone with its values)."""
        if not rows:
            self.selection_caption.setText("No query selected.")
        elif len(rows) == 1:
            self.selection_caption.setText("Selected: " + self.bar_text(rows[0]) + ".")
        else:
            names = [str(self.frame["query"].iat[r]) for r in rows[:NAMED_IN_SELECTION]]
            more = f" and {len(rows) - NAMED_IN_SELECTION:,} more" if len(rows) > NAMED_IN_SELECTION else ""
            self.selection_caption.setText(f"Selected {len(rows):,} queries: {', '.join(names)}{more}.")

    def _clicked_bars(self, event) -> None:
        row = self._bar_at(event.scenePos())
        if row is not None:
            self._pick(row, event.modifiers())

    def _clicked_points(self, _item, points, event=None) -> None:
        if len(points):
            modifiers = event.modifiers() if event is not None else Qt.KeyboardModifier.NoModifier
            self._pick(int(points[0].data()), modifiers)

    def _pick(self, row: int, modifiers) -> None:
        flag = QItemSelectionModel.SelectionFlag
        how = flag.Toggle if modifiers & Qt.KeyboardModifier.ControlModifier else flag.ClearAndSelect
        index = self.table.model().index(row, 0)
        self.table.selectionModel().select(index, how | flag.Rows)
        self.table.scrollTo(index)


def _show_tip(widget, text: str) -> None:
    """``text`` as the tooltip of ``widget`` and shown at the pointer at once (none: hidden)."""
    text = tip(text)                 # query and run names from the data show as text
    widget.setToolTip(text)
    if text:
        QToolTip.showText(QCursor.pos(), text, widget)
    else:
        QToolTip.hideText()
