"""Matrices (e.g. run × run) as a coloured table and as a heatmap that agree on every colour.

    model = MatrixModel(levels=(-0.1, 0.1), mask_diagonal=True, precision=3)
    table = MatrixView(model, name="run_by_run")      # Ctrl+C, right-click Copy / Export table…
    heatmap = HeatmapPlot(model)                      # follows the model; Export via export_plot
    model.set_frame(differences, marks=stars, tooltips=p_values_text)

``MatrixModel(frame=None, *, levels=None, diverging=None, mask_diagonal=False, precision=3, reverse=False)``
    ``frame``: a DataFrame of numbers, index = row labels, columns = column labels.
    ``levels``: (lo, hi) fixed colour levels, so a colour means the same value after every
    update; None: from each frame (symmetric around 0 when diverging). Values outside clip.
    ``diverging``: blue–white–red centred on 0 (True), sequential (False), or None: diverging
    when the values (or the given levels) change sign.
    ``mask_diagonal``: cell (i, i) shown empty and grey (a run against itself).
    ``reverse``: the palette runs the other way: for p-values, the smallest are the darkest.
  ``set_frame(frame, *, marks=None, tooltips=None, **scale)``: show a new matrix. ``marks``: DataFrame
    of strings appended to the value text (e.g. "*" for significance); ``tooltips``: DataFrame of
    strings shown on hover, or a function (row, column) -> str called on hover (nothing to build
    for cells nobody hovers). DataFrames are aligned to ``frame`` by label; missing cells are blank.
    ``scale``: any of ``set_scale``'s settings, changed with the frame in one redraw.
  ``set_levels(levels)``, ``set_diverging(diverging)``, ``set_reverse(reverse)``: change the scale
    (None: automatic); ``set_scale(levels=, diverging=, reverse=)``: any of them at once.
  ``frame``, ``levels``, ``diverging``, ``reverse``, ``colour_map``: what is shown, and how.
  ``value(r, c)``, ``mark(r, c)``, ``background(r, c)``, ``foreground(r, c)``, ``display_text(r, c)``,
  ``rgba()``.
``MatrixView(model, parent=None, *, name="matrix")``: a QTableView with row labels as the vertical
    header, square-ish cells, no sorting; ``selection_tsv()``, ``copy_selection()``,
    ``export_frame()`` (row labels as first column), ``export_dialog()``.
``HeatmapPlot(model=None, parent=None, *, show_values=None)``: pyqtgraph ImageItem + ColorBarItem
    with the model's colours and levels; ``set_frame(...)`` forwards to the model. Each cell shows
    what it can hold at the plot's current size (``show_values`` None or True): its text, in a
    smaller font if need be, else its mark alone (say the "*" of significance), else nothing
    (``value_labels()``: what is drawn now); ``show_values=False``: nothing. Column labels too wide
    for their cells stand on end, row and column labels that still collide are thinned out
    (every other one...) and long ones shortened with "…"; hovering a cell shows its tooltip,
    hovering a label its full text (``hover_text(scene_pos)``).
``colour_map(diverging, levels, reverse=False)``: the pyqtgraph ColorMap both use.
``CellTextModel``: a MatrixModel whose cells may show a text of their own ("40/0/10"); ``set_frame(frame,
    texts=...)``. ``nice_limit(value)``: 1, 2 or 5 × 10^k at or above it, for colour levels that stay put.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QColor, QCursor, QFont, QFontMetrics, QFontMetricsF, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QScrollArea, QTableView, QToolTip

from evalgui.core import display
from evalgui.gui import naming
from evalgui.gui.plain_text import tip
from evalgui.gui.plots import plain_axes
from evalgui.gui.tables import tsv_text

# ColorBrewer RdBu (reversed: negative blue), colour-blind safe; its middle is near-white.
DIVERGING = ("#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b")
# ColorBrewer Blues: light for low values, dark for high.
SEQUENTIAL = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")
MASKED = QColor("#d9d9d9")
DARK_TEXT, LIGHT_TEXT = QColor("#000000"), QColor("#ffffff")
RAW_ROLE = Qt.ItemDataRole.UserRole + 1
LABEL_ROOM = 160            # pixels at most for a row label, or a column label on end: longer ones are shortened
SMALLEST_FONT = 0.75        # labels and cell texts shrink to this share of the font before giving up
WIDEST_SAMPLE = 64          # cell texts measured to fit a matrix's columns: the longest ones
_UNCHANGED = object()


def colour_map(diverging: bool, levels: tuple[float, float], reverse: bool = False) -> pg.ColorMap:
    """The palette over ``levels``: for a diverging one, its white middle sits at 0 even when the
    levels are not symmetric (the two halves are stretched differently). ``reverse`` runs it the
    other way (the low end dark: small p-values stand out)."""
    colours = DIVERGING if diverging else SEQUENTIAL
    colours = colours[::-1] if reverse else colours
    lo, hi = levels
    if not diverging or not lo < 0 < hi:
        return pg.ColorMap(np.linspace(0, 1, len(colours)), list(colours))
    zero = -lo / (hi - lo)
    half = len(colours) // 2
    positions = np.concatenate([np.linspace(0, zero, half + 1)[:-1], [zero], np.linspace(zero, 1, half + 1)[1:]])
    return pg.ColorMap(positions, list(colours))


def contrast_text(background: QColor) -> QColor:
    """Black or white, whichever reads better on ``background`` (WCAG relative luminance)."""
    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4
    luminance = (0.2126 * linear(background.redF()) + 0.7152 * linear(background.greenF())
                 + 0.0722 * linear(background.blueF()))
    # Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05): equal at L ≈ 0.179.
    return DARK_TEXT if luminance > 0.179 else LIGHT_TEXT


def _aligned_strings(extra: pd.DataFrame | None, frame: pd.DataFrame) -> list[list[str]] | None:
    if extra is None:
        return None
    if extra.index.equals(frame.index) and extra.columns.equals(frame.columns):
        values = extra.to_numpy(dtype=object)          # (the usual case, and a 30 x 30 matrix is redrawn often)
        return np.where(pd.isna(values), "", values).astype(str).tolist()
    extra = extra.reindex(index=frame.index, columns=frame.columns)
    return [["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in row]
            for row in extra.astype(object).to_numpy().tolist()]


class MatrixModel(QAbstractTableModel):
    """A numeric DataFrame as a table of coloured cells; see the module docstring."""

    def __init__(self, frame: pd.DataFrame | None = None, *, levels: tuple[float, float] | None = None,
                 diverging: bool | None = None, mask_diagonal: bool = False, precision: int = 3,
                 reverse: bool = False, parent=None):
        super().__init__(parent)
        self._fixed_levels = None if levels is None else (float(levels[0]), float(levels[1]))
        self._diverging_choice = diverging
        self._reverse = bool(reverse)
        self.mask_diagonal = mask_diagonal
        self.precision = precision
        self._frame = pd.DataFrame()
        self._values = np.zeros((0, 0))
        self._marks: list[list[str]] | None = None
        self._tooltips: list[list[str]] | None = None
        self.set_frame(frame if frame is not None else pd.DataFrame())

    # ------------------------------------------------------------ content
    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def levels(self) -> tuple[float, float]:
        return self._levels

    @property
    def diverging(self) -> bool:
        return self._diverging

    @property
    def reverse(self) -> bool:
        return self._reverse

    @property
    def colour_map(self) -> pg.ColorMap:
        return self._colour_map

    def set_frame(self, frame: pd.DataFrame, *, marks: pd.DataFrame | None = None,
                  tooltips: pd.DataFrame | None = None, **scale) -> None:
        """``scale``: any of :meth:`set_scale`'s settings, changed with the frame (one redraw)."""
        self.beginResetModel()
        self._choose_scale(**scale)
        self._frame = frame
        self._values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
        self._row_labels = [str(v) for v in frame.index]
        self._column_labels = [str(v) for v in frame.columns]
        self._marks = _aligned_strings(marks, frame)
        self._tooltips = tooltips if callable(tooltips) else _aligned_strings(tooltips, frame)
        self._display: list[list[str]] | None = None
        self._update_scale()
        self.endResetModel()

    def set_scale(self, *, levels=_UNCHANGED, diverging=_UNCHANGED, reverse=_UNCHANGED) -> None:
        """Change any of the scale's settings at once (one redraw of the views)."""
        self.beginResetModel()
        self._choose_scale(levels=levels, diverging=diverging, reverse=reverse)
        self._update_scale()
        self.endResetModel()

    def _choose_scale(self, *, levels=_UNCHANGED, diverging=_UNCHANGED, reverse=_UNCHANGED) -> None:
        if levels is not _UNCHANGED:
            self._fixed_levels = None if levels is None else (float(levels[0]), float(levels[1]))
        if diverging is not _UNCHANGED:
            self._diverging_choice = diverging
        if reverse is not _UNCHANGED:
            self._reverse = bool(reverse)

    def set_levels(self, levels: tuple[float, float] | None) -> None:
        self.set_scale(levels=levels)

    def set_diverging(self, diverging: bool | None) -> None:
        self.set_scale(diverging=diverging)

    def set_reverse(self, reverse: bool) -> None:
        self.set_scale(reverse=reverse)

    def masked(self, row: int, column: int) -> bool:
        return self.mask_diagonal and row == column

    def _shown_values(self) -> np.ndarray:
        values = self._values.copy()
        if self.mask_diagonal:
            n = min(values.shape)
            values[np.arange(n), np.arange(n)] = np.nan
        return values

    def _update_scale(self) -> None:
        values = self._shown_values()
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if self._fixed_levels is not None:
            levels = self._fixed_levels
            changes_sign = levels[0] < 0 < levels[1]
        else:
            changes_sign = lo < 0 < hi
            levels = (lo, hi)
        diverging = changes_sign if self._diverging_choice is None else bool(self._diverging_choice)
        if self._fixed_levels is None:
            if diverging:
                top = max(abs(lo), abs(hi)) or 1.0
                levels = (-top, top)
            elif hi <= lo:
                levels = (lo - 0.5, lo + 0.5) if lo else (0.0, 1.0)
        self._levels = levels
        self._diverging = diverging
        self._colour_map = colour_map(diverging, levels, self._reverse)
        self._rgba = self._colours(values)

    def _colours(self, values: np.ndarray) -> np.ndarray:
        """RGBA bytes per cell; NaN cells transparent, masked cells grey."""
        lo, hi = self._levels
        span = hi - lo if hi > lo else 1.0
        scaled = np.clip((values - lo) / span, 0.0, 1.0)
        rgba = np.asarray(self._colour_map.map(np.nan_to_num(scaled).ravel(), mode="byte"),
                          dtype=np.uint8).reshape(values.shape + (4,))
        rgba[np.isnan(values)] = 0
        if self.mask_diagonal:
            n = min(values.shape)
            rgba[np.arange(n), np.arange(n)] = MASKED.getRgb()
        return rgba

    def rgba(self) -> np.ndarray:
        """(rows, columns, 4) bytes: every cell's background, as the table shows it (alpha 0: none)."""
        return self._rgba

    def value(self, row: int, column: int) -> float | None:
        """The cell's number as a Python float, None when missing or masked."""
        value = float(self._values[row, column])
        return None if math.isnan(value) or self.masked(row, column) else value

    def background(self, row: int, column: int) -> QColor | None:
        r, g, b, a = (int(v) for v in self._rgba[row, column])
        return QColor(r, g, b) if a else None

    def foreground(self, row: int, column: int) -> QColor:
        colour = self.background(row, column)
        return DARK_TEXT if colour is None else contrast_text(colour)

    def display_texts(self) -> list[list[str]]:
        """Every cell's :meth:`display_text`, made once per frame (views read them all at each layout)."""
        if self._display is None:
            empty = self._empty()
            marks = self._marks
            self._display = [[self._empty_text(r, c) if empty[r, c] else self.cell_text(r, c)
                              + (marks[r][c] if marks else "")
                              for c in range(self.columnCount())] for r in range(self.rowCount())]
        return self._display

    def _empty(self) -> np.ndarray:
        """Cells shown empty: missing or masked."""
        empty = np.isnan(self._values)
        if self.mask_diagonal:
            n = min(empty.shape)
            empty[np.arange(n), np.arange(n)] = True
        return empty

    def mark(self, row: int, column: int) -> str:
        """The cell's mark (e.g. "*"), "" if none or the cell is empty."""
        if self._marks is None or self.value(row, column) is None:
            return ""
        return self._marks[row][column]

    def cell_text(self, row: int, column: int) -> str:
        """A filled cell's text before its mark: the number at the model's precision (subclasses may say
        otherwise)."""
        return f"{float(self._values[row, column]):.{self.precision}f}"

    # What an empty cell off the diagonal reads. Blank by default: in most matrices an empty cell is a pair
    # not compared or given no mark; a matrix whose empty cells are undefined values sets display.MISSING.
    undefined_text = ""

    def _empty_text(self, row: int, column: int) -> str:
        """A masked cell (the diagonal) is blank; an empty one reads ``undefined_text``."""
        return "" if self.masked(row, column) else self.undefined_text

    def display_text(self, row: int, column: int) -> str:
        if self.value(row, column) is None:
            return self._empty_text(row, column)
        return self.cell_text(row, column) + self.mark(row, column)

    def tooltip(self, row: int, column: int) -> str | None:
        if callable(self._tooltips):
            text = self._tooltips(row, column)
            if text:
                return text
        elif self._tooltips is not None and self._tooltips[row][column]:
            return self._tooltips[row][column]
        value = self.value(row, column)
        if value is None:
            return display.why_missing("") if self.undefined_text and not self.masked(row, column) else None
        return f"{naming.label(self._row_labels[row])} · {naming.label(self._column_labels[column])}: {value!r}"

    def row_label(self, row: int) -> str:
        return self._row_labels[row]

    def column_label(self, column: int) -> str:
        return self._column_labels[column]

    def shown_frame(self) -> pd.DataFrame:
        """The numbers as the table shows them: masked cells missing."""
        return pd.DataFrame(self._shown_values(), index=self._frame.index, columns=self._frame.columns)

    # ------------------------------------------------------------ Qt model API
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._values.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._values.shape[1]

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.display_text(row, column)
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.background(row, column)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.foreground(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip(self.tooltip(row, column))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == RAW_ROLE:
            return self.value(row, column)
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        labels = self._column_labels if orientation == Qt.Orientation.Horizontal else self._row_labels
        if not 0 <= section < len(labels):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return naming.label(labels[section])       # a measure (agreement matrices) in the window's naming
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip(naming.label(labels[section]))
        return None


class MatrixView(QTableView):
    """The matrix as a table: row labels on the left, no sorting, Copy (TSV) and Export in its menu."""

    MAX_COLUMN_WIDTH = 160

    def __init__(self, model: MatrixModel, parent=None, *, name: str = "matrix"):
        super().__init__(parent)
        self.name = name
        self.matrix_model = model
        self.setModel(model)
        self.setSortingEnabled(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setShowGrid(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setSectionsClickable(True)     # selects a column; never sorts
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.copy_action = QAction("Copy", self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_selection)
        self.addAction(self.copy_action)
        model.modelReset.connect(self._fit_cells)
        self._fit_cells()

    def _fit_cells(self) -> None:
        # One width for every column (cells stay square-ish): the widest text, label or number.
        model = self.matrix_model
        metrics = QFontMetrics(self.font())
        texts = sorted({text for row in model.display_texts()[:50] for text in row}, key=len)
        # The longest texts are the widest (numbers, marks): measuring 900 distinct means would cost ms.
        texts = texts[-WIDEST_SAMPLE:] + [model.column_label(c) for c in range(model.columnCount())]
        width = max([metrics.horizontalAdvance(t) for t in texts] + [0]) + 16
        height = metrics.height() + 10
        self.horizontalHeader().setDefaultSectionSize(min(max(width, height, 48), self.MAX_COLUMN_WIDTH))
        self.verticalHeader().setDefaultSectionSize(height)

    def _selected_cells(self) -> tuple[list[int], list[int], set[tuple[int, int]]]:
        indexes = self.selectionModel().selectedIndexes()
        chosen = {(i.row(), i.column()) for i in indexes}
        return sorted({r for r, _ in chosen}), sorted({c for _, c in chosen}), chosen

    def selection_tsv(self) -> str:
        """The selected cells as tab-separated text with their row and column labels, full precision."""
        rows, columns, chosen = self._selected_cells()
        if not chosen:
            return ""
        model = self.matrix_model
        return tsv_text([""] + [model.column_label(c) for c in columns],
                        [[model.row_label(r)] + [model.value(r, c) if (r, c) in chosen else None for c in columns]
                         for r in rows])

    def copy_selection(self) -> None:
        text = self.selection_tsv()
        if text:
            QGuiApplication.clipboard().setText(text)

    def keyPressEvent(self, event) -> None:
        # QTableView's own Ctrl+C copies one cell's text; ours copies the selection with its labels.
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            event.accept()
            return
        super().keyPressEvent(event)

    def export_frame(self) -> pd.DataFrame:
        """The table to export: row labels as the first column (named after the index, else "row")."""
        shown = self.matrix_model.shown_frame()
        label = shown.index.name if shown.index.name is not None else "row"
        shown = shown.copy()
        shown.columns = [str(c) for c in shown.columns]
        shown.insert(0, str(label), [str(v) for v in shown.index])
        return shown.reset_index(drop=True)

    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        menu.addAction(self.copy_action)
        menu.addAction("Select all", self.selectAll)
        menu.addSeparator()
        menu.addAction("Export table…", self.export_dialog)
        menu.exec(self.viewport().mapToGlobal(pos))

    def export_dialog(self) -> None:
        from evalgui.gui.exporting import TABLE_FORMATS, export_dialog, file_words, nothing_to_export
        from evalgui.gui.tables import export_shown

        if not self.model().rowCount():
            nothing_to_export(self)
            return
        export_dialog(self, self.name, TABLE_FORMATS, lambda path: export_shown(self.export_frame(), path),
                      title=f"Export {file_words(self.name)}")


def _shrunk(font: QFont, share: float) -> QFont:
    smaller = QFont(font)
    if font.pointSizeF() > 0:
        smaller.setPointSizeF(font.pointSizeF() * share)
    else:
        smaller.setPixelSize(max(1, round(font.pixelSize() * share)))
    return smaller


def fitting_font(font: QFont, room: float) -> tuple[QFont, int]:
    """The font for lines ``room`` pixels apart: ``font``, or shrunk (down to SMALLEST_FONT of it) when
    its lines are taller; and the step that keeps every step-th line clear of the next (1: all)."""
    height = QFontMetricsF(font).height()
    if room <= 0 or height <= room:
        return font, 1
    share = room / height
    while True:      # font heights do not scale exactly (hinting): shrink until the lines fit
        smaller = _shrunk(font, max(SMALLEST_FONT, share))
        if QFontMetricsF(smaller).height() <= room or share <= SMALLEST_FONT:
            return smaller, max(1, math.ceil(QFontMetricsF(smaller).height() / room))
        share -= 0.03


class _LabelAxis(pg.AxisItem):
    """The row labels (left) or column labels (top) of a heatmap, one per cell, drawn so they never
    collide: shrunk a little if need be, column labels on end when wider than their cells, then only
    every step-th label when even that is too crowded; shortened with "…" beyond LABEL_ROOM."""

    def __init__(self, orientation: str):
        super().__init__(orientation)
        self.labels: list[str] = []
        self.setStyle(tickLength=0, hideOverlappingLabels=False)

    def set_labels(self, labels: list[str]) -> None:
        self.labels = list(labels)
        self.setTicks([list(enumerate(self.labels))])      # the ticks only place the (empty) tick marks

    def base_font(self) -> QFont:
        return self.style["tickFont"] or QFont(self.font())

    def on_end(self, spacing: float) -> bool:
        """Column labels stand on end when the widest is wider than its cell."""
        if self.orientation != "top" or not self.labels:
            return False
        metrics = QFontMetricsF(self.base_font())
        return max(metrics.horizontalAdvance(t) for t in self.labels) + 6 > spacing

    def layout(self, spacing: float) -> tuple[QFont, int, bool]:
        """(font, step, on end) for cells ``spacing`` pixels apart."""
        on_end = self.on_end(spacing)
        if self.orientation == "top" and not on_end:
            return self.base_font(), 1, False
        font, step = fitting_font(self.base_font(), spacing)
        return font, step, on_end

    def pixels_per_cell(self) -> float:
        bounds = self.mapRectFromParent(self.geometry())
        span = self.range[1] - self.range[0]
        length = bounds.width() if self.orientation == "top" else bounds.height()
        return abs(length / span) if span else 0.0

    def cell_at(self, position: QPointF) -> int | None:
        """The cell whose label is at ``position`` (this item's coordinates)."""
        bounds = self.mapRectFromParent(self.geometry())
        span = self.range[1] - self.range[0]
        if not span or not self.labels:
            return None
        if self.orientation == "top":
            value = self.range[0] + (position.x() - bounds.left()) / bounds.width() * span
        else:
            value = self.range[0] + (bounds.bottom() - position.y()) / bounds.height() * span
        cell = int(round(value))
        return cell if 0 <= cell < len(self.labels) else None

    def placed(self) -> tuple[QFont, bool, list[tuple[QPointF, str]]]:
        """What is drawn at the current size: the font, whether the labels stand on end, and each label
        drawn (every step-th, shortened to the room there is) with its anchor, next to its cell."""
        bounds = self.mapRectFromParent(self.geometry())
        spacing = self.pixels_per_cell()
        font, step, on_end = self.layout(spacing)
        span = self.range[1] - self.range[0]
        if not span or not self.labels:
            return font, on_end, []
        metrics = QFontMetricsF(font)
        offset = self.style["tickTextOffset"][1 if self.orientation == "top" else 0]
        texts = []
        for i in range(0, len(self.labels), step):
            if self.orientation == "top":
                x = bounds.left() + (i - self.range[0]) / span * bounds.width()
                room = bounds.height() - offset if on_end else bounds.width()
                anchor = QPointF(x, bounds.bottom() - offset)
            else:
                room = bounds.width() - offset
                anchor = QPointF(bounds.right() - offset, bounds.bottom() - (i - self.range[0]) / span * bounds.height())
            texts.append((anchor, metrics.elidedText(self.labels[i], Qt.TextElideMode.ElideRight, max(room, 0))))
        return font, on_end, texts

    def generateDrawSpecs(self, p):
        specs = super().generateDrawSpecs(p)
        if specs is None or not self.labels:
            return specs
        axis_spec, tick_specs, _ = specs
        return axis_spec, tick_specs, self.placed()

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        if not isinstance(textSpecs, tuple):
            return super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        super().drawPicture(p, axisSpec, tickSpecs, [])
        font, on_end, texts = textSpecs
        p.setFont(font)
        p.setPen(self.textPen())
        height = QFontMetricsF(font).height()
        big = 10_000.0
        for anchor, text in texts:
            p.save()
            p.translate(anchor)
            if self.orientation == "top" and on_end:
                p.rotate(-90)           # reads upwards, starting next to the cells
                p.drawText(QRectF(0, -height / 2, big, height), int(Qt.AlignmentFlag.AlignLeft
                                                                     | Qt.AlignmentFlag.AlignVCenter), text)
            elif self.orientation == "top":
                p.drawText(QRectF(-big / 2, -height, big, height), int(Qt.AlignmentFlag.AlignHCenter
                                                                      | Qt.AlignmentFlag.AlignBottom), text)
            else:
                p.drawText(QRectF(-big, -height / 2, big, height), int(Qt.AlignmentFlag.AlignRight
                                                                      | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()


class _CellTexts(pg.GraphicsObject):
    """Every cell's text, drawn in one item at whatever size the cells have on screen (or in an export):
    the full text if it fits (in a smaller font if need be), else the mark alone, else nothing. Sizes
    are in scene pixels, so an image exported at twice the size shows what the screen shows."""

    def __init__(self, plot: "HeatmapPlot"):
        super().__init__()
        self.plot = plot
        self._cache: tuple | None = None

    def changed(self) -> None:
        self._cache = None
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:
        model = self.plot.model
        return QRectF(-0.5, -0.5, model.columnCount(), model.rowCount())

    def cell_size(self) -> tuple[float, float]:
        t = self.sceneTransform()
        return abs(t.m11()), abs(t.m22())

    def layout(self) -> tuple[QFont | None, list[tuple[int, int, str]], bool]:
        """The font, the (row, column, text) drawn at the current cell size, and whether they are the
        marks alone."""
        model, choice = self.plot.model, self.plot.show_values
        width, height = self.cell_size()
        key = (width, height, choice)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        found: tuple[QFont | None, list, bool] = (None, [], False)
        rows, columns = model.rowCount(), model.columnCount()
        if choice is not False and rows and columns and width > 0 and height > 0:
            texts = [(r, c, text) for r, row in enumerate(model.display_texts()) for c, text in enumerate(row) if text]
            base = QFont(self.plot.font())
            fonts = [base, _shrunk(base, 0.85), _shrunk(base, SMALLEST_FONT)]
            # The same font in every cell (a matrix reads as one table): the largest all texts fit in;
            # else the marks alone, which need only their ink's room (a "*" is a few pixels).
            for font in fonts:
                if _all_fit(font, [t for _, _, t in texts], width, height):
                    found = (font, texts, False)
                    break
            else:
                marks = [(r, c, m) for r, c, _ in texts for m in [model.mark(r, c)] if m]
                for font in fonts if marks else ():
                    if _all_fit(font, [m for _, _, m in marks], width, height, ink=True):
                        found = (font, marks, True)
                        break
        self._cache = (key, found)
        return found

    def paint(self, p, *args) -> None:
        font, texts, marks_only = self.layout()
        if font is None:
            return
        model = self.plot.model
        scene = self.sceneTransform()
        inverse, invertible = scene.inverted()
        if not invertible:
            return
        width, height = self.cell_size()
        metrics = QFontMetricsF(font)
        p.save()
        p.setTransform(inverse * p.transform())      # draw in scene pixels: the font keeps its size
        p.setFont(font)
        align = int(Qt.AlignmentFlag.AlignCenter)
        for r, c, text in texts:
            centre = scene.map(QPointF(c, r))
            p.setPen(model.foreground(r, c))
            if marks_only:      # the ink centred in the cell (a "*" sits high on its line)
                ink = metrics.tightBoundingRect(text)
                p.drawText(centre - ink.center(), text)
            else:
                p.drawText(QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height), align, text)
        p.restore()


def _all_fit(font: QFont, texts: list[str], width: float, height: float, ink: bool = False) -> bool:
    """Every text fits a cell: its line (or with ``ink``, only its drawn pixels) with a pixel to spare."""
    metrics = QFontMetricsF(font)
    # The longest first: when one does not fit (a big matrix), that is usually the first measured.
    for text in sorted(set(texts), key=len, reverse=True):
        box = metrics.tightBoundingRect(text) if ink else QRectF(0, 0, metrics.horizontalAdvance(text) + 2,
                                                                  metrics.height())
        if box.width() + 2 > width or box.height() + (1 if ink else 0) > height:
            return False
    return True


class HeatmapPlot(pg.PlotWidget):
    """The model's matrix as an image, row 0 at the top, with a colour bar over the model's levels."""

    cell_activated = Signal(int, int)       # (row, column) of a clicked cell

    def __init__(self, model: MatrixModel | None = None, parent=None, *, show_values: bool | None = None):
        axes = {"left": _LabelAxis("left"), "top": _LabelAxis("top")}
        super().__init__(parent, axisItems=axes)
        self.setObjectName("heatmap")
        self.model = model if model is not None else MatrixModel(parent=self)
        self.show_values = show_values
        item = self.getPlotItem()
        plain_axes(item)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.setMenuEnabled(False)
        item.invertY(True)
        # Not aspect-locked: in a tall or wide pane a locked image floats in empty space while the
        # top axis stays at the pane's edge, far from the columns it names.
        item.setAspectLocked(False)
        item.showAxes(True, showValues=(True, True, False, False))   # labels left and top
        for side in ("right", "bottom"):      # frame only: zero-length ticks would still show as dots
            item.getAxis(side).setStyle(tickLength=0)
            item.getAxis(side).setTicks([[]])
        # The model's colours, ready-made (masked cells grey, missing ones blank), so the image
        # and the table can never disagree; the colour bar shows the same map over the same levels.
        self.image = pg.ImageItem(axisOrder="row-major")
        item.addItem(self.image)
        self.cell_texts = _CellTexts(self)
        item.addItem(self.cell_texts, ignoreBounds=True)
        self.colour_bar = pg.ColorBarItem(values=self.model.levels, colorMap=self.model.colour_map,
                                          interactive=False, width=14)
        item.layout.addItem(self.colour_bar, 2, 5)
        item.layout.setColumnFixedWidth(4, 5)
        item.layout.setContentsMargins(4, 4, 4, 12)    # room for the colour bar's end labels
        self.cell_pixels = 1
        self.model.modelReset.connect(self._refresh)
        # Column labels stand on end or lie flat as the cells narrow or widen.
        item.getViewBox().sigResized.connect(lambda *_: self._fit_column_labels())
        self.scene().sigMouseMoved.connect(self._hover)
        self.scene().sigMouseClicked.connect(self._clicked)
        self._refresh()

    @property
    def _labels(self) -> list:
        # (the text items of earlier versions; the cell texts are one item now, see value_labels)
        return []

    def set_frame(self, frame: pd.DataFrame, **kwargs) -> None:
        """Show ``frame`` (forwards to the model: ``marks``, ``tooltips``)."""
        self.model.set_frame(frame, **kwargs)

    def _refresh(self) -> None:
        model, item = self.model, self.getPlotItem()
        rows, columns = model.rowCount(), model.columnCount()
        self.colour_bar.setColorMap(model.colour_map)
        self.colour_bar.setLevels(model.levels)
        self.cell_texts.changed()
        top, left = item.getAxis("top"), item.getAxis("left")
        self.colour_bar.setVisible(bool(rows and columns))      # a scale of nothing only puzzles
        if not rows or not columns:
            self.image.clear()
            top.set_labels([])
            left.set_labels([])
            return
        # Each cell k × k pixels: viewers that smooth images (librsvg ignores image-rendering)
        # would otherwise blur a 5 × 5 picture into gradients.
        k = self.cell_pixels = max(1, min(32, 256 // max(rows, columns)))
        self.image.setImage(np.repeat(np.repeat(model.rgba(), k, axis=0), k, axis=1),
                            autoLevels=False, levels=(0, 255))
        self.image.setRect(QRectF(-0.5, -0.5, columns, rows))    # cell (r, c) centred on (c, r)
        top.set_labels([model.column_label(c) for c in range(columns)])
        left.set_labels([model.row_label(r) for r in range(rows)])
        # Wide enough for the longest label now (up to LABEL_ROOM): the axis would only widen itself
        # after a paint, and an export made before that would leave the labels out.
        metrics = QFontMetrics(left.base_font())
        left.setWidth(min(max(metrics.horizontalAdvance(model.row_label(r)) for r in range(rows)), LABEL_ROOM) + 12)
        item.setRange(xRange=(-0.5, columns - 0.5), yRange=(-0.5, rows - 0.5), padding=0)
        self._fit_column_labels()

    def _fit_column_labels(self) -> None:
        """The top axis as tall as its labels: one line, or the longest label on end (up to LABEL_ROOM)."""
        top = self.getPlotItem().getAxis("top")
        columns = self.model.columnCount()
        width = self.getPlotItem().getViewBox().width()
        if not columns or width <= 0:
            return
        spacing = width / columns
        font, _, on_end = top.layout(spacing)
        metrics = QFontMetricsF(font)
        offset = top.style["tickTextOffset"][1]
        if on_end:
            height = min(max(metrics.horizontalAdvance(t) for t in top.labels), LABEL_ROOM) + offset + 4
        else:
            height = metrics.height() + offset + 2
        if top.fixedHeight != math.ceil(height):
            top.setHeight(math.ceil(height))

    def value_labels(self) -> list[str]:
        """The texts written in the cells at the plot's current size, row by row."""
        return [text for _, _, text in self.cell_texts.layout()[1]]

    def marks_only(self) -> bool:
        """The cells show their marks alone: their texts do not fit at the current size."""
        return self.cell_texts.layout()[2]

    def column_labels_on_end(self) -> bool:
        top = self.getPlotItem().getAxis("top")
        return top.on_end(top.pixels_per_cell())

    def shown_labels(self, side: str) -> list[str]:
        """The row ("left") or column ("top") labels as drawn at the current size: every step-th,
        shortened with "…" when longer than the room there is."""
        return [text for _, text in self.getPlotItem().getAxis(side).placed()[2]]

    def hover_text(self, scene_position) -> str:
        """What hovering shows at ``scene_position``: a cell's tooltip, or a label's full text."""
        item = self.getPlotItem()
        view = item.getViewBox()
        model = self.model
        if view.sceneBoundingRect().contains(scene_position):
            point = view.mapSceneToView(scene_position)
            row, column = int(round(point.y())), int(round(point.x()))
            if 0 <= row < model.rowCount() and 0 <= column < model.columnCount():
                return model.tooltip(row, column) or ""
            return ""
        for side in ("top", "left"):
            axis = item.getAxis(side)
            if axis.sceneBoundingRect().contains(scene_position):
                cell = axis.cell_at(axis.mapFromScene(scene_position))
                return axis.labels[cell] if cell is not None else ""
        return ""

    def cell_at(self, scene_position) -> tuple[int, int] | None:
        """The (row, column) of the cell at ``scene_position``, None outside the cells."""
        view = self.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(scene_position):
            return None
        point = view.mapSceneToView(scene_position)
        row, column = int(round(point.y())), int(round(point.x()))
        if 0 <= row < self.model.rowCount() and 0 <= column < self.model.columnCount():
            return row, column
        return None

    def _clicked(self, event) -> None:
        # One click opens the cell (a double click's second click opens nothing more).
        cell = self.cell_at(event.scenePos())
        if cell is not None and not event.double() and event.button() == Qt.MouseButton.LeftButton:
            self.cell_activated.emit(*cell)

    def _hover(self, scene_position) -> None:
        text = self.hover_text(scene_position)
        self.setToolTip(tip(text))
        if text:
            QToolTip.showText(QCursor.pos(), tip(text), self)
        else:
            QToolTip.hideText()

    def viewportEvent(self, event) -> bool:
        # A resting pointer makes Qt ask the scene for a tooltip; it finds no graphics item with one
        # of its own and hides the details _hover showed (about a second after they appeared).
        # Answer the request with the same text instead.
        if event.type() == QEvent.Type.ToolTip:
            text = self.hover_text(self.mapToScene(event.pos()))
            if text:
                QToolTip.showText(event.globalPos(), tip(text), self)
            else:
                QToolTip.hideText()
            event.setAccepted(bool(text))
            return True
        return super().viewportEvent(event)


class EveryLabelArea(QScrollArea):
    """A heatmap that keeps every row and column label: its cells never get smaller than a label's
    line in the smallest font, so with 30 to 50 runs in a small pane the heatmap scrolls instead of
    leaving out every other label (the marks of significance fit such a cell too)."""

    def __init__(self, heatmap: "HeatmapPlot", parent=None):
        super().__init__(parent)
        self.heatmap = heatmap
        self.setObjectName(f"{heatmap.objectName() or 'heatmap'}Area")
        self.setWidget(heatmap)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        heatmap.model.modelReset.connect(self.fit)
        self.fit()

    def cell_room(self) -> int:
        """The smallest cell, in pixels, that holds a label's line (in the smallest font)."""
        return math.ceil(QFontMetricsF(_shrunk(QFont(self.heatmap.font()), SMALLEST_FONT)).height()) + 1

    def fit(self) -> None:
        model, item = self.heatmap.model, self.heatmap.getPlotItem()
        rows, columns = model.rowCount(), model.columnCount()
        if not rows or not columns:
            self.heatmap.setMinimumSize(0, 0)
            return
        cell = self.cell_room()
        left = item.getAxis("left").width()
        # room beside the cells: row labels, colour bar and its numbers; above: the labels on end
        metrics = QFontMetricsF(item.getAxis("top").base_font())
        top = min(LABEL_ROOM, max(metrics.horizontalAdvance(model.column_label(c)) for c in range(columns))) + 12
        self.heatmap.setMinimumSize(int(left + columns * cell + 80), int(top + rows * cell + 30))


def export_heatmap(model: MatrixModel, path: str, title_lines: list[str]) -> None:
    """Write ``model``'s heatmap to ``path`` (PNG or SVG) with a title (say, the measure, the test and
    "row minus column"), drawn apart from the window: its proportions follow the matrix (square cells
    of 18 to 60 pixels, 360 to 900 pixels of cells), not the pane it happens to sit in on screen."""
    import html

    from evalgui.gui.plots import export_plot

    n = max(model.rowCount(), model.columnCount(), 1)
    cell = max(18.0, min(60.0, 720.0 / n))
    grid = int(max(360, min(900, n * cell)))
    plot = HeatmapPlot(model)
    try:
        plot.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        lines = [html.escape(line) for line in title_lines if line]
        title_height = 0
        if lines:
            item = plot.getPlotItem()
            item.setTitle("<br>".join([f"<b>{lines[0]}</b>"] + lines[1:]), size="10pt")
            title_height = int(QFontMetrics(plot.font()).height() * 1.35 * len(lines)) + 10
            item.layout.setRowFixedHeight(0, title_height)     # pyqtgraph leaves room for one line
            item.titleLabel.setMinimumHeight(title_height)
            item.titleLabel.setMaximumHeight(title_height)
        left = plot.getPlotItem().getAxis("left").width()
        plot.resize(int(left + grid + 90), int(title_height + LABEL_ROOM + grid + 20))
        plot.show()
        QGuiApplication.processEvents()       # lay the plot out at that size (the column labels stand on end)
        plot._fit_column_labels()
        QGuiApplication.processEvents()
        # A title wider than the cells widens the plot: squeezed below its layout's minimum, the picture
        # would run past its declared size (the last column and the colour bar cut off).
        need = plot.getPlotItem().effectiveSizeHint(Qt.SizeHint.MinimumSize)
        if need.width() > plot.width() or need.height() > plot.height():
            plot.resize(max(plot.width(), math.ceil(need.width())), max(plot.height(), math.ceil(need.height())))
            QGuiApplication.processEvents()
            plot._fit_column_labels()
            QGuiApplication.processEvents()
        export_plot(plot, path)
    finally:
        plot.model.modelReset.disconnect(plot._refresh)
        plot.close()
        plot.deleteLater()


def on_cell_activated(slot, *views) -> None:
    """Call ``slot(row, column)`` when a cell is clicked in a heatmap, or clicked or activated (Enter) in a
    matrix table: a run × run cell opens its pair at one click, as a spreadsheet's cell is chosen."""
    for view in views:
        if isinstance(view, HeatmapPlot):
            view.cell_activated.connect(slot)
        else:
            view.clicked.connect(lambda index: slot(index.row(), index.column()))
            view.activated.connect(lambda index: slot(index.row(), index.column()))      # Enter; a double click


# Colour levels snap to these, so that re-running with similar numbers keeps every colour.
_NICE_STEPS = (1, 2, 5)


def nice_limit(value: float) -> float:
    """The smallest of 1, 2, 5 × 10^k at or above ``value`` (at least 0.01)."""
    value = max(abs(value), 0.01)
    exponent = math.floor(math.log10(value))
    for step in _NICE_STEPS + (10,):
        limit = step * 10 ** exponent
        if limit >= value * (1 - 1e-12):
            return float(limit)
    return float(10 ** (exponent + 1))


class CellTextModel(MatrixModel):
    """A matrix model whose cells may show a text of their own ("40/0/10", "<0.0001") instead of the
    number, followed by the cell's mark; the number still decides the colour and is what Copy and
    Export give."""

    def set_frame(self, frame: pd.DataFrame, *, texts: pd.DataFrame | None = None, **kwargs) -> None:
        """``texts``: strings with ``frame``'s index and columns (None: the numbers, as MatrixModel shows them)."""
        self._texts = None if texts is None else \
            texts.reindex(index=frame.index, columns=frame.columns, fill_value="").to_numpy(dtype=object).tolist()
        super().set_frame(frame, **kwargs)

    def cell_text(self, row: int, column: int) -> str:
        return super().cell_text(row, column) if self._texts is None else self._texts[row][column]
