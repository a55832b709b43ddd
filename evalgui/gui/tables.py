"""Tables over pandas DataFrames: a read-only model, and a view that sorts, filters, copies and exports.

The model hands Qt plain Python values (never numpy scalars), right-aligns
numbers, shows them with a fixed precision, and marks the best value of each
column (or each row) in bold when it is the only best at that precision. Sorting
and filtering happen in a QSortFilterProxyModel reading the raw values
(SORT_ROLE), so 0.10 sorts after 0.09 whatever the display precision. The view can
keep its first column (the row labels: runs, queries) in sight while scrolling right.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QMenu, QTableView

from evalgui.core import display
from evalgui.gui import naming
from evalgui.gui.plain_text import tip as plain_tip

SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def _python_value(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


# Columns whose words are measure or metric names (shown in the chosen naming).
NAME_COLUMNS = frozenset({"measure", "metric", "measure_a", "measure_b"})


class DataFrameModel(QAbstractTableModel):
    """A DataFrame as a table. ``best`` is "column", "row" or None: where to bold the best value
    (the highest, or the lowest for a lower-is-better measure; see set_frame's ``directions``)."""

    def __init__(self, frame: pd.DataFrame | None = None, *, precision: int = 4, best: str | None = "column",
                 badges: dict[str, dict[str, str]] | None = None, headers: dict[str, str] | None = None,
                 parent=None):
        super().__init__(parent)
        # Machine column name -> the header shown (display.column_label for the others); exports keep the names.
        self.headers = dict(headers or {})
        self.resamples: int | None = None      # B of a resampling test: its p of 0 reads "< 1/B"
        self._kinds: list[str] = []
        naming.NAMING.changed.connect(self._naming_changed)
        self._badges = {column: {text: QColor(colour) for text, colour in colours.items()}
                        for column, colours in (badges or {}).items()}
        self._precision = precision
        self._best_axis = best
        self._frame = pd.DataFrame()
        self._best = np.zeros((0, 0), dtype=bool)
        self._numeric: list[bool] = []
        self._tooltips: dict[str, str] = {}
        self._directions: dict | str | None = "higher"
        self._integers: set[int] = set()
        self.set_frame(frame if frame is not None else pd.DataFrame())

    # ------------------------------------------------------------ content
    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame, *, directions: dict | str | None = "higher",
                  integers: set | None = None) -> None:
        """Show ``frame``. ``directions``: which value is best, "higher", "lower" or None (no bold);
        one per column name (a dict, unknown names: "higher") when the best is marked per column,
        one for the whole table when it is marked per row. ``integers``: columns shown without decimals."""
        self.beginResetModel()
        self._frame = frame
        self._directions = directions
        self._integers = {i for i, c in enumerate(frame.columns) if str(c) in (integers or set())}
        self._numeric = [frame[c].dtype.kind in "fiu" for c in frame.columns]
        # Plain Python values per column: data() is called for every visible cell, pandas' iat is slow.
        self._values = [[None if v is pd.NA else v for v in frame[c].tolist()] for c in frame.columns]
        self._names = [str(c) for c in frame.columns]
        self._kinds = ["count" if i in self._integers else display.column_kind(n) if self._numeric[i] else
                       "name" if n in NAME_COLUMNS else "text" for i, n in enumerate(self._names)]
        self._n_rows, self._n_columns = len(frame), len(frame.columns)
        self._best = self._best_mask(frame)
        self.endResetModel()

    @property
    def marks_best(self) -> bool:
        return self._best_axis is not None

    def set_header_tooltips(self, tooltips: dict[str, str]) -> None:
        self._tooltips = dict(tooltips)

    def _best_mask(self, frame: pd.DataFrame) -> np.ndarray:
        mask = np.zeros(frame.shape, dtype=bool)
        if self._best_axis is None or frame.empty:
            return mask
        if self._best_axis == "column":
            directions = self._directions if isinstance(self._directions, dict) else {}
            default = self._directions if isinstance(self._directions, str) else "higher"
            numeric_cols = [i for i, n in enumerate(self._numeric)
                            if n and directions.get(str(frame.columns[i]), default) is not None]
        else:
            numeric_cols = [i for i, n in enumerate(self._numeric) if n] if self._directions else []
        if not numeric_cols:
            return mask
        values = frame.iloc[:, numeric_cols].to_numpy(dtype=np.float64)
        # Flip the sign of lower-is-better values, so "best" is always the largest.
        if self._best_axis == "column":
            sign = np.array([-1.0 if directions.get(str(frame.columns[i]), default) == "lower" else 1.0
                             for i in numeric_cols])
        else:
            sign = -1.0 if self._directions == "lower" else 1.0
        values = np.where(np.isnan(values), -np.inf, values * sign)
        if self._best_axis == "column" and len(frame) > 1:
            best = self._strict_best(values.T, lambda line, i: self.display_text(i, numeric_cols[line])).T
            mask[:, numeric_cols] = best
        elif self._best_axis == "row" and len(numeric_cols) > 1:
            mask[:, numeric_cols] = self._strict_best(values, lambda line, i: self.display_text(line, numeric_cols[i]))
        return mask

    def _strict_best(self, values: np.ndarray, text) -> np.ndarray:
        """Per row of ``values`` (higher is better, -inf missing), the one cell whose shown value beats
        every other shown value; nothing when the best shown value is shared ("0.0000" and "0.0000").
        ``text(row, i)`` is cell i's shown text."""
        mask = np.zeros(values.shape, dtype=bool)
        if not values.size:
            return mask
        finite = np.isfinite(values)
        scaled = np.where(finite, values * 10.0 ** self._precision, np.nan)
        shown = np.rint(scaled)                  # the shown digits, as a whole number
        lines = np.arange(len(values))
        best = values.argmax(axis=1)
        best_shown = shown[lines, best]
        alone = ((shown == best_shown[:, None]).sum(axis=1) == 1) & finite[lines, best]
        mask[lines[alone], best[alone]] = True
        # A value a hair from a rounding boundary (x.xxxx5) may be rounded one digit off by the
        # product above: lines with one near their best are decided by the texts shown.
        with np.errstate(invalid="ignore"):
            edge = np.abs(scaled % 1.0 - 0.5) < 1e-9 * np.maximum(np.abs(scaled), 1.0)
            near = np.abs(shown - best_shown[:, None]) <= 2
        for line in np.flatnonzero((edge & near).any(axis=1)).tolist():
            i = int(best[line])
            shown_text = text(line, i)
            candidates = np.flatnonzero(near[line]).tolist()
            mask[line] = False
            mask[line, i] = finite[line, i] and sum(text(line, j) == shown_text for j in candidates) == 1
        return mask

    # ------------------------------------------------------------ Qt model API
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._n_rows

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._n_columns

    def raw(self, row: int, column: int):
        return _python_value(self._values[column][row])

    def _naming_changed(self, _naming: str) -> None:
        if self._n_columns:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self._n_columns - 1)
            if self._n_rows:
                self.dataChanged.emit(self.index(0, 0), self.index(self._n_rows - 1, self._n_columns - 1))

    def column_name(self, column: int) -> str:
        """The machine name of a column (what exports write)."""
        return self._names[column]

    def header_text(self, column: int) -> str:
        return display.column_label(self._names[column], naming.current(), self.headers)

    def display_text(self, row: int, column: int) -> str:
        value = self.raw(row, column)
        if _is_missing(value):
            return display.MISSING if self._numeric[column] else ""
        kind = self._kinds[column]
        if kind == "p":
            return display.format_p(value, self.resamples, precision=self._precision)
        if isinstance(value, bool):
            return display.yes_no(value)
        if isinstance(value, (int, float)):
            return display.format_number(value, precision=self._precision,
                                         kind=kind if kind in ("count", "percent") else "real")
        if kind == "name" and isinstance(value, str):
            return naming.label(value)
        return display.cell_word(self._names[column], value) if isinstance(value, str) else str(value)

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.display_text(row, column)
        if role == SORT_ROLE:
            value = self.raw(row, column)
            if _is_missing(value):
                return -math.inf if self._numeric[column] else ""
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            value = self.raw(row, column)
            if _is_missing(value):
                return display.why_missing(self._names[column]) if self._numeric[column] else None
            return display.full_number(value) if isinstance(value, float) else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignRight if self._numeric[column] else Qt.AlignmentFlag.AlignLeft
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self._badges:
            colours = self._badges.get(self._names[column])
            return colours.get(self.display_text(row, column)) if colours else None
        if role == Qt.ItemDataRole.FontRole and self._best[row, column]:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            if section >= len(self._names):
                return None
            name = self._names[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return self.header_text(section)
            if role == Qt.ItemDataRole.ToolTipRole:
                tip = self._tooltips.get(name)
                shown = self.header_text(section)
                # The header's machine name (what evalgui-cli, the Python API and projects call the column; the
                # window's exports write the header shown) ends its tooltip.
                return plain_tip((f"{tip}\n\n" if tip else "") + f"Name in evalgui-cli's files and in projects: {name}"
                                 if shown != name else tip)
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None


def tsv_text(header: list[str], rows: list[list]) -> str:
    """Tab-separated text with a header line, numbers at full precision (what a spreadsheet pastes)."""
    def cell(value) -> str:
        return "" if _is_missing(value) else repr(value) if isinstance(value, float) else str(value)

    return "\n".join("\t".join(cell(v) for v in line) for line in [header, *rows]) + "\n"


class FilterProxy(QSortFilterProxyModel):
    """Sorts by raw values; filters rows whose text in ``filter_columns`` contains the filter text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_columns: list[int] | None = None   # None: every column

    def set_filter_text(self, text: str) -> None:
        self.setFilterFixedString(text)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:
        pattern = self.filterRegularExpression().pattern()
        if not pattern:
            return True
        needle = self.filterRegularExpression()
        model = self.sourceModel()
        columns = self.filter_columns if self.filter_columns is not None else range(model.columnCount())
        return any(needle.match(model.display_text(source_row, c)).hasMatch() for c in columns)


def visible_frame(view: QTableView) -> pd.DataFrame:
    """What the view shows, in its current order and filter, with raw values."""
    proxy = view.model()
    source = proxy.sourceModel() if isinstance(proxy, QSortFilterProxyModel) else proxy
    rows = [proxy.mapToSource(proxy.index(r, 0)).row() if proxy is not source else r for r in range(proxy.rowCount())]
    return source.frame.iloc[rows].reset_index(drop=True)


class FrameTableView(QTableView):
    """A sortable table with Copy (selection as TSV) and Export (CSV, LaTeX, ...) in its context menu.

    ``freeze_first_column``: the first column (the row labels) stays in sight when the table
    scrolls right; it still sorts, copies and exports with the rest. ``exported(fmt)``: the
    frame to write in format ``fmt`` (see core.export.FORMATS); by default what the view shows.
    ``stretch_column``: the column (by name) that takes the width the others leave, its text
    elided in the middle when short of room (e.g. document ids).
    """

    export_requested = Signal()
    STRETCH_MINIMUM = 120        # what needed_width() allows the stretching column

    def __init__(self, model: DataFrameModel, parent=None, *, name: str = "table",
                 freeze_first_column: bool = False, exported: Callable[[str], pd.DataFrame] | None = None,
                 stretch_column: str | None = None):
        super().__init__(parent)
        self.frozen: FrozenColumn | None = None     # Qt calls updateGeometries before it exists
        self.name = name
        self.stretch_column = stretch_column
        self._fitted: list[int] = []
        if stretch_column is not None:
            self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.exported = exported or (lambda _fmt: visible_frame(self))
        # A frame of its own may have rows while the view shows none yet (a tab filled when shown).
        self.own_export = exported is not None
        self.source_model = model
        self.proxy = FilterProxy(self)
        self.proxy.setSourceModel(model)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)   # keep the model's order until a header is clicked
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(False)
        self.verticalHeader().setDefaultSectionSize(22)
        self.verticalHeader().hide()
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.copy_action = QAction("Copy", self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_selection)
        self.addAction(self.copy_action)
        model.modelReset.connect(self._fit_columns)
        if freeze_first_column:
            self.frozen = FrozenColumn(self)

    # ------------------------------------------------------------ the frozen first column
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.frozen is not None:
            self.frozen.place()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        if self.frozen is not None:
            self.frozen.place()

    def moveCursor(self, action, modifiers):
        # Moving left onto a cell hidden under the frozen column scrolls it out from under it.
        current = super().moveCursor(action, modifiers)
        if self.frozen is not None and action == QAbstractItemView.CursorAction.MoveLeft and current.column() > 0:
            hidden = self.frozen.width() - self.visualRect(current).left()
            if hidden > 0:
                self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - hidden)
        return current

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        # The first column is always in sight: scrolling to it would only move the other columns.
        if self.frozen is None or index.column() > 0:
            super().scrollTo(index, hint)

    def sort_by_first_column(self) -> None:
        """A click on the frozen column's header: sort by it, ascending first, then flip."""
        header = self.horizontalHeader()
        ascending = Qt.SortOrder.AscendingOrder
        flip = header.sortIndicatorSection() == 0 and header.sortIndicatorOrder() == ascending
        self.sortByColumn(0, Qt.SortOrder.DescendingOrder if flip else ascending)

    def _fit_columns(self) -> None:
        # Measured on the header and the first rows only: Qt's resizeColumnsToContents asks
        # the model for every role of every cell, far too slow for thousands of rows.
        model = self.source_model
        bold = QFont(self.font())
        bold.setBold(True)
        wide = QFontMetrics(bold)
        cells = wide if model.marks_best else QFontMetrics(self.font())
        sample = range(min(model.rowCount(), 40))
        header_view = self.horizontalHeader()
        self._fitted = []
        for c in range(model.columnCount()):
            header = str(model.headerData(c, Qt.Orientation.Horizontal))
            machine = model._names[c] if hasattr(model, "_names") else header
            # The header leaves room for the sort arrow; cells need only their margins.
            width = max([wide.horizontalAdvance(header) + 24]
                        + [cells.horizontalAdvance(model.display_text(r, c)) + 12 for r in sample])
            width = min(max(width, 48), 320)
            self._fitted.append(width)
            stretch = machine == self.stretch_column
            header_view.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch if stretch
                                             else QHeaderView.ResizeMode.Interactive)
            if not stretch:
                self.setColumnWidth(c, width)

    def needed_width(self) -> int:
        """The width that shows every column whole (the stretching one at up to STRETCH_MINIMUM
        pixels), with the frame and the vertical scroll bar."""
        model = self.source_model
        widths = [min(w, self.STRETCH_MINIMUM) if c < len(model._names) and model._names[c]
                  == self.stretch_column else w for c, w in enumerate(self._fitted)]
        return sum(widths) + 2 * self.frameWidth() + self.verticalScrollBar().sizeHint().width()

    def selection_tsv(self) -> str:
        """The selected cells as tab-separated text, with a header row (what a spreadsheet pastes)."""
        indexes = self.selectionModel().selectedIndexes()
        if not indexes:
            return ""
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        chosen = {(i.row(), i.column()) for i in indexes}
        # The machine column names, as in exported files (the headers shown are plain words).
        header = [self.source_model.column_name(c) for c in cols]

        def value(r, c):
            src = self.proxy.mapToSource(self.proxy.index(r, c))
            return self.source_model.raw(src.row(), src.column())

        return tsv_text(header, [[value(r, c) if (r, c) in chosen else None for c in cols] for r in rows])

    def copy_selection(self) -> None:
        text = self.selection_tsv()
        if text:
            QGuiApplication.clipboard().setText(text)

    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        menu.addAction(self.copy_action)
        menu.addAction("Select all", self.selectAll)
        menu.addSeparator()
        menu.addAction("Export table…", self.export_dialog)
        menu.exec(self.viewport().mapToGlobal(pos))

    def export_dialog(self) -> None:
        """Ask for a file and write the table there (by default what the view shows: its order and filter)."""
        from evalgui.core.export import format_from_path
        from evalgui.gui.exporting import TABLE_FORMATS, export_dialog, file_words, nothing_to_export

        if not self.source_model.rowCount() and not self.own_export:
            nothing_to_export(self)
            return

        def write(path: str) -> None:
            frame = self.exported(format_from_path(path))
            if frame.empty:         # never an empty file
                raise ValueError("there is nothing to export yet")
            export_shown(frame, path, self.source_model.headers)

        export_dialog(self, self.name, TABLE_FORMATS, write, title=f"Export {file_words(self.name)}")


class FrozenColumn(QTableView):
    """A table's first column drawn over its left edge, so the row labels stay in sight when the
    table scrolls right (Qt's "frozen column" example). It shares the table's model and selection:
    a click selects in the table, and its header sorts the table."""

    def __init__(self, table: FrameTableView):
        super().__init__(table)
        self.table = table
        self.setObjectName("frozenColumn")
        self.setModel(table.model())
        self.setSelectionModel(table.selectionModel())
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)      # keys (Ctrl+C, arrows) stay with the table
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAlternatingRowColors(table.alternatingRowColors())
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(table.selectionMode())
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(table.verticalScrollMode())
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(table.verticalHeader().defaultSectionSize())
        header = self.horizontalHeader()
        header.sectionResized.connect(lambda column, _old, new: table.setColumnWidth(0, new) if column == 0 else None)
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.sectionClicked.connect(lambda section: table.sort_by_first_column() if section == 0 else None)
        table.horizontalHeader().sortIndicatorChanged.connect(
            lambda section, order: header.setSortIndicator(section, order))
        table.horizontalHeader().sectionResized.connect(self._table_column_resized)
        table.verticalHeader().sectionResized.connect(lambda row, _old, new: self.setRowHeight(row, new))
        # Per pixel: scrolled by whole columns, the table's second column would slide under this one.
        table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalScrollBar().valueChanged.connect(table.verticalScrollBar().setValue)
        table.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        for signal in (self.model().modelReset, self.model().columnsInserted):
            signal.connect(self._show_first_column_only)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(
            lambda pos: table._context_menu(table.viewport().mapFromGlobal(self.viewport().mapToGlobal(pos))))
        table.viewport().stackUnder(self)
        self._show_first_column_only()

    def mousePressEvent(self, event) -> None:
        self.table.setFocus()             # so that Ctrl+C copies what the click selected
        super().mousePressEvent(event)

    def _show_first_column_only(self, *_args) -> None:
        for column in range(self.model().columnCount()):
            self.setColumnHidden(column, column != 0)
        self.place()

    def _table_column_resized(self, column: int, _old: int, _new: int) -> None:
        if column == 0:
            self.place()

    def place(self) -> None:
        """Cover the table's first column: its header cell and its cells, as wide as the table has it."""
        table = self.table
        if self.model().columnCount() == 0:
            self.hide()
            return
        width = table.columnWidth(0)
        self.setColumnWidth(0, width)
        header = table.horizontalHeader()
        self.horizontalHeader().setFixedHeight(header.height())
        viewport = table.viewport().geometry()
        self.setGeometry(viewport.x(), header.y(), width, header.height() + viewport.height())
        self.verticalScrollBar().setValue(table.verticalScrollBar().value())
        self.show()


def with_extension(path: str, chosen_filter: str) -> str:
    """Add the chosen filter's extension (e.g. "LaTeX (*.tex)") when the name typed has none."""
    from evalgui.gui.exporting import with_extension as add_extension

    return add_extension(path, chosen_filter)


def with_measure_names(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its measures in the window's naming (View ▸ Measure names): the values of its
    measure and metric columns, and the columns of a wide table that are measures (AP, P@10). Both
    namings are what evalgui-cli reads. The other column names (run, query, value, ci_low...) stay
    the documented machine ones."""
    columns = [c for c in frame.columns if str(c) in NAME_COLUMNS and frame[c].dtype.kind not in "fiub"]
    chosen = naming.current()
    renamed = {c: display.measure_label(c, chosen) for c in frame.columns
               if isinstance(c, str) and c not in display.COLUMN_LABELS and display.is_measure_name(c)}
    renamed = {c: shown for c, shown in renamed.items() if shown != c and shown not in frame.columns}
    if not columns and not renamed:
        return frame
    frame = frame.copy()
    for column in columns:
        frame[column] = frame[column].map(lambda v: display.measure_label(v, chosen) if isinstance(v, str) else v)
    return frame.rename(columns=renamed)


def as_shown(frame: pd.DataFrame, fmt: str = "csv", headers: dict[str, str] | None = None) -> pd.DataFrame:
    """What the window exports: the table as it shows it. Its headers (``headers``: the table's own, then
    display.column_label), measures in the window's naming, yes/no, a setting's label (Holm, not holm); numbers
    at full precision, in CSV and TSV without e-notation where a plain decimal reads back the same."""
    frame = with_measure_names(frame)
    chosen = naming.current()
    out = {}
    for column in frame.columns:
        values = frame[column]
        name = str(column)
        if values.dtype.kind == "b" or (values.dtype == object and values.map(lambda v: isinstance(v, bool)).any()):
            values = values.map(lambda v: display.yes_no(v) if isinstance(v, bool) else v)
        elif name in NAME_COLUMNS and (values.dtype == object or pd.api.types.is_string_dtype(values.dtype)):
            values = values.map(lambda v: display.column_label(v, chosen) if isinstance(v, str) else v)  # a metric too
        elif values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
            values = values.map(lambda v, n=name: display.cell_word(n, v) if isinstance(v, str) else v)
        elif values.dtype.kind == "f" and fmt in ("csv", "tsv"):
            # an infinity stays one ("inf": what spreadsheets and pandas read back), not the window's ∞
            values = values.map(lambda v: "" if v != v else display.full_number(float(v)) if math.isfinite(v) else v)
        header = display.column_label(name, chosen, headers)
        out[header if header not in out else f"{header} ({name})"] = values     # two columns never share a header
    return pd.DataFrame(out)


def export_shown(frame: pd.DataFrame, path: str, headers: dict[str, str] | None = None) -> None:
    """Write a table as the window shows it (:func:`as_shown`), in the format its extension names."""
    from evalgui.core.export import format_from_path

    export_frame(as_shown(frame, format_from_path(path), headers), path)


def export_frame(frame: pd.DataFrame, path: str) -> None:
    """Write a table atomically, in the format its extension names (CSV by default). CSV and TSV are for a
    spreadsheet: a text cell it would run as a formula (=, +, -, @) starts with '."""
    from evalgui.core.export import format_from_path, to_text, write_atomic

    write_atomic(path, to_text(frame, format_from_path(path), spreadsheet=True))
