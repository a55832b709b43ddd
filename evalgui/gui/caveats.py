"""Things to watch: the results' caveats (:mod:`evalgui.core.advisor`) above a workspace's results, and the cells
they are about marked in its tables.

:class:`CaveatStrip` is one line ("3 things to watch") that opens to the list; each caveat shows its first
sentence and opens to the whole message, with its numbers and what to do. :class:`CaveatMarks` is a delegate
for a result table: a cell a caveat is about gets a small amber corner, and the caveat as its tooltip.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QPolygon
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QStyledItemDelegate, QToolButton,
                               QToolTip, QVBoxLayout, QWidget)

WARNING_COLOR = "#a04000"
NOTE_COLOR = "#6b4b00"
MARK_COLOR = QColor("#d98c00")
MAX_LIST_HEIGHT = 220        # pixels: about eight caveats in sight, the rest a scroll away


def first_sentence(message: str) -> str:
    """A caveat's title: its first sentence, without the numbers in brackets (the details give them)."""
    found = re.match(r"(.+?[.!?])(\s|$)", message)
    sentence = found.group(1) if found else message
    return re.sub(r" \([^()]*\)(?=[.!?]$)", "", sentence)


class CaveatItem(QWidget):
    """One caveat: its first sentence, with a button that opens the whole message."""

    def __init__(self, severity: str, message: str, parent=None):
        super().__init__(parent)
        self.severity, self.message = severity, message
        self.toggle = QToolButton()
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setAccessibleName("Show the details")
        self.toggle.toggled.connect(self._toggled)
        word = "Warning" if severity == "warning" else "Note"
        color = WARNING_COLOR if severity == "warning" else NOTE_COLOR
        self.title = QLabel(f'<b style="color:{color}">{word}:</b> {_escaped(first_sentence(message))}')
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.details = QLabel(message)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setContentsMargins(24, 0, 0, 4)
        self.details.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.title, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(row)
        layout.addWidget(self.details)

    def _toggled(self, shown: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.toggle.setAccessibleName("Hide the details" if shown else "Show the details")
        self.details.setVisible(shown)


def _escaped(text: str) -> str:
    import html

    return html.escape(text)


class CaveatStrip(QFrame):
    """"N things to watch" above a workspace's results (hidden when there are none); opens to the caveats."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("caveatStrip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#caveatStrip{background:#fff8e6;border:1px solid #e6c170;border-radius:3px}")
        self.header = QToolButton()
        self.header.setObjectName("caveatHeader")
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.RightArrow)
        self.header.setAutoRaise(True)
        self.header.setCheckable(True)
        self.header.toggled.connect(self._opened)
        # The strip never widens the results column (a laptop's narrow window keeps its Data panel whole).
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(0)
        self.list = QWidget()
        self.list_layout = QVBoxLayout(self.list)
        self.list_layout.setContentsMargins(8, 0, 4, 4)
        self.list_layout.setSpacing(2)
        self.list_layout.addStretch(1)
        # The list scrolls within a few lines' height: the results below stay in sight.
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.list)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setMaximumHeight(MAX_LIST_HEIGHT)
        self.scroll.setStyleSheet("QScrollArea, QScrollArea > QWidget > QWidget{background:transparent}")
        self.scroll.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.scroll)
        self.items: list[CaveatItem] = []
        self.frame = None
        self.marks: list[CaveatMarks] = []
        self.hide()

    def _opened(self, shown: bool) -> None:
        self.header.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.scroll.setVisible(shown)
        self._fit()

    def _fit(self, *_args) -> None:
        """The list as tall as its caveats need, up to MAX_LIST_HEIGHT (then it scrolls)."""
        self.list.adjustSize()
        self.scroll.setMinimumHeight(min(self.list.sizeHint().height() + 4, MAX_LIST_HEIGHT))

    def show_caveats(self, frame) -> None:
        """Show ``frame`` (the caveats table; None or empty: hide), and mark the tables' cells."""
        for item in self.items:
            item.setParent(None)
            item.deleteLater()
        self.items = []
        self.frame = frame
        for mark in self.marks:
            mark.set_caveats(frame)
        if frame is None or not len(frame):
            self.hide()
            return
        for severity, message in zip(frame["severity"].tolist(), frame["message"].tolist()):
            item = CaveatItem(severity, message)
            item.toggle.toggled.connect(self._fit)
            self.items.append(item)
            self.list_layout.insertWidget(self.list_layout.count() - 1, item)
        n = len(frame)
        warnings = int((frame["severity"] == "warning").sum())
        text = f"{n} thing{'' if n == 1 else 's'} to watch"
        if warnings:
            text += " (each can change a conclusion)" if warnings == n else \
                f" ({warnings} that can change a conclusion)"
        self.header.setText(text)
        self.header.setToolTip("What to check before trusting these numbers: click to see each, with what to do.")
        self.show()
        self._fit()

    def show_outcomes(self, *outcomes) -> None:
        """The caveats of these outcomes together (None: skipped)."""
        import pandas as pd

        from evalgui.core.workflows.caveats import caveats_of

        frames = [caveats_of(o) for o in outcomes if o is not None]
        frames = [f for f in frames if f is not None and len(f)]
        self.show_caveats(pd.concat(frames, ignore_index=True) if frames else None)

    def mark(self, view) -> "CaveatMarks":
        """Mark the cells of ``view`` (a FrameTableView, and its frozen first column) that the caveats are about."""
        marks = CaveatMarks(view)
        for target in (view, getattr(view, "frozen", None)):
            if target is not None:
                target.setItemDelegate(marks)
        marks.set_caveats(self.frame)
        self.marks.append(marks)
        return marks


# A table's columns that name what a row is about: the run, the other run of a pair, the measure, the query.
RUN_COLUMNS = ("run", "run_a", "row", "system", "system_a")
OTHER_COLUMNS = ("run_b", "column", "system_b")
MARKED_COLUMNS = ("measure", "diff", "p_value", "p_adjusted", "significant", "preference")


class CaveatMarks(QStyledItemDelegate):
    """Marks the cells a caveat is about: a row's run (and other run) and measure match the caveat's, the measure
    being the row's measure column or, in a runs × measures table, the cell's column. A caveat about a whole run
    (no measure) marks that run's first cell."""

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self.by_key: dict = {}

    def set_caveats(self, frame) -> None:
        self.by_key = {}
        if frame is not None and len(frame):
            for row in frame.itertuples(index=False):      # a few dozen caveats at most
                runs = frozenset(r for r in (row.run, row.other_run) if r)
                self.by_key.setdefault((runs, row.measure), []).append(row)
        self.view.viewport().update()

    def caveats_at(self, index) -> list:
        source = getattr(self.view, "source_model", None)
        if not self.by_key or not index.isValid() or source is None:
            return []
        names = [source.column_name(c) for c in range(source.columnCount())]
        if index.column() >= len(names):
            return []
        column, row = names[index.column()], _source_row(index.model(), index)

        def raw(candidates) -> str:
            for name in candidates:
                if name in names:
                    value = source.raw(row, names.index(name))
                    return "" if value is None or value != value else str(value)
            return ""

        runs = frozenset(r for r in (raw(RUN_COLUMNS), raw(OTHER_COLUMNS)) if r)
        if "measure" in names:          # tidy rows: the row's measure, marked on its measure and test cells
            if column not in MARKED_COLUMNS:
                return []
            measure = raw(("measure",))
            found = self.by_key.get((runs, measure), [])
            return found + (self.by_key.get((frozenset(), measure), []) if column == "measure" else [])
        if column in RUN_COLUMNS:       # runs × measures: a caveat about a whole run marks the run's own cell
            return self.by_key.get((runs, ""), [])
        return self.by_key.get((runs, column), [])

    def paint(self, painter, option, index) -> None:
        super().paint(painter, option, index)
        if self.caveats_at(index):
            rect = option.rect
            size = max(6, min(10, rect.height() // 2))
            painter.save()
            painter.setRenderHint(painter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(MARK_COLOR)
            painter.drawPolygon(QPolygon([QPoint(rect.right() - size, rect.top()), QPoint(rect.right(), rect.top()),
                                          QPoint(rect.right(), rect.top() + size)]))
            painter.restore()

    def helpEvent(self, event, view, option, index) -> bool:
        found = self.caveats_at(index)
        if event.type() == QEvent.Type.ToolTip and found:
            own = index.data(Qt.ItemDataRole.ToolTipRole)
            text = "\n\n".join(f"{'Warning' if c.severity == 'warning' else 'Note'}: {c.message}" for c in found)
            QToolTip.showText(event.globalPos(), (f"{own}\n\n" if own else "") + text, view)
            return True
        return super().helpEvent(event, view, option, index)


def _source_row(model, index) -> int:
    mapper = getattr(model, "mapToSource", None)
    return mapper(index).row() if mapper is not None else index.row()
