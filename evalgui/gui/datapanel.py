"""The "Data" dock: every loaded file with its kind, counts and a validation badge."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QMenu, QPushButton, QToolButton,
                               QTableView, QVBoxLayout, QWidget)

from evalgui.core.inputs import LoadedInput, kinds
from evalgui.gui.plain_text import tip
from evalgui.gui.session import Session

_COLUMNS = ("", "File", "Kind", "Contents")
_HEADER_TIPS = ("Validation: ✔ read without problems, ⚠ read, but look at the tooltip", "",
                "What the file holds (detected from its content; Read as, below, changes it)",
                "Counts; the tooltip has them all")
_BADGES = {"ok": ("✔", QColor("#2e7d32")), "warning": ("⚠", QColor("#b26a00")),
           "by_query": ("⇶", QColor("#1565c0"))}     # read fine, too large to hold: evaluated query by query


def _badge(item: LoadedInput) -> str:
    return "by_query" if item.by_query and item.badge == "ok" else item.badge


def _tooltip(item: LoadedInput) -> str:
    label = item.record.label
    if item.kind_detected:
        kind = f"{label}, detected: {item.kind_reason}" if item.kind_reason else label
    else:
        kind = f"{label} ({item.kind_reason or 'kind chosen by you'})"
    lines = [item.path, kind]
    lines += [f"{key.replace('_', ' ')}: {value:,}" if isinstance(value, int) else f"{key.replace('_', ' ')}: {value}"
              for key, value in item.summary.items() if value not in ("", None)]
    lines += [f"⚠ {w}" for w in item.warnings]
    if item.by_query:
        from evalgui.core.ranked.by_query import BY_QUERY_NOTE

        lines.append(f"This run is {BY_QUERY_NOTE}.")
    return "\n".join(lines)


class FilesModel(QAbstractTableModel):
    """The session's files, one row each; a cell's text and tooltip are worked out when a view asks for it
    (the rows in sight), so a session of 20,000 files is one reset, not 20,000 item widgets."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.items: list[LoadedInput] = []
        self._tips: dict[int, str] = {}
        self._described: dict[int, str] = {}

    def set_items(self, items: list[LoadedInput]) -> None:
        self.beginResetModel()
        self.items, self._tips, self._described = items, {}, {}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(_COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return _HEADER_TIPS[section] or None
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row, column = index.row(), index.column()
        if not 0 <= row < len(self.items):
            return None
        item = self.items[row]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return _BADGES[_badge(item)][0]
            if column == 1:
                return item.name
            if column == 2:
                return item.kind
            if row not in self._described:
                self._described[row] = item.record.describe(item.summary) + \
                    (" · too large to hold: evaluated query by query" if item.by_query else "")
            return self._described[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            if row not in self._tips:
                self._tips[row] = tip(_tooltip(item))
            return self._tips[row]
        if role == Qt.ItemDataRole.UserRole and column == 0:
            return item.path
        if role == Qt.ItemDataRole.ForegroundRole and column == 0:
            return _BADGES[_badge(item)][1]
        return None


class FileRow:
    """One row of the Data dock, read and selected as a ``QTreeWidgetItem`` is (``tree.topLevelItem(i)``)."""

    def __init__(self, tree: "FilesView", row: int):
        self.tree, self.row = tree, row

    def _index(self, column: int = 0):
        return self.tree.model().index(self.row, column)

    def text(self, column: int) -> str:
        return self.tree.model().data(self._index(column), Qt.ItemDataRole.DisplayRole)

    def toolTip(self, column: int) -> str:
        return self.tree.model().data(self._index(column), Qt.ItemDataRole.ToolTipRole) or ""

    def data(self, column: int, role):
        return self.tree.model().data(self._index(column), role)

    def setSelected(self, selected: bool) -> None:
        flag = QItemSelectionModel.SelectionFlag
        self.tree.selectionModel().select(self._index(), (flag.Select if selected else flag.Deselect) | flag.Rows)


class FilesView(QTableView):
    """The Data dock's table of files over a :class:`FilesModel`, with the few ``QTreeWidget`` calls its
    callers use (``topLevelItem``, ``topLevelItemCount``, ``selectedItems``, ``itemAt``). A table, not a tree:
    a tree view visits every row when it lays out, a table only the rows in sight."""

    itemSelectionChanged = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.files = FilesModel(self)
        self.setModel(self.files)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.horizontalHeader().setHighlightSections(False)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.selectionModel().selectionChanged.connect(lambda *_: self.itemSelectionChanged.emit())
        self.files.modelReset.connect(self.itemSelectionChanged.emit)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.files.modelReset.connect(self.fit_columns)
        self.files.dataChanged.connect(lambda *_: self.fit_columns())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns that fit the panel's width, never a sideways scroll bar: each as wide as the rows in sight
        need when there is room; else the file name at most three fifths of what the badge and the kind leave,
        elided, and the contents the rest (the tooltips have both whole)."""
        room = self.viewport().width()
        if room <= 0:
            return
        header = self.horizontalHeader()
        badge, name, kind, contents = (max(self.sizeHintForColumn(c), header.sectionSizeHint(c))
                                       for c in range(header.count()))
        left = max(room - badge - kind, 0)
        if name + contents > left:
            name = min(name, max(60, 3 * left // 5))
        for column, width in enumerate((badge, name, kind, max(left - name, 0))):
            self.setColumnWidth(column, width)

    def header(self) -> QHeaderView:
        return self.horizontalHeader()

    def topLevelItemCount(self) -> int:
        return self.files.rowCount()

    def topLevelItem(self, row: int) -> FileRow | None:
        return FileRow(self, row) if 0 <= row < self.files.rowCount() else None

    def selectedItems(self) -> list[FileRow]:
        return [FileRow(self, index.row()) for index in self.selectionModel().selectedRows()]

    def itemAt(self, pos) -> FileRow | None:
        index = self.indexAt(pos)
        return FileRow(self, index.row()) if index.isValid() else None

    def scrollToItem(self, row: FileRow) -> None:
        self.scrollTo(row._index())

    def visualItemRect(self, row: FileRow):
        return self.visualRect(row._index())


class DataPanel(QWidget):
    """Lists the session's files. Asks the window to reload a file as another kind, or to remove it."""

    reload_as = Signal(str, str)     # path, kind
    remove_requested = Signal(str)   # path
    open_requested = Signal()

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.tree = FilesView(self)
        self.tree.setObjectName("dataTree")
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)       # FilesView.fit_columns
        # Columns fit the rows in sight and a few more, not all 20,000 (Qt's default looks at 1,000).
        self.tree.header().setResizeContentsPrecision(100)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.hint = QLabel("No files yet. Use File ▸ Open data…, drop files here, or open the demo.")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(mid); padding: 6px;")
        # The right-click menu's actions on files, also in plain sight (Open data is on the toolbar).
        self.read_as_button = QToolButton()
        self.read_as_button.setObjectName("dataReadAsButton")
        self.read_as_button.setText("Read as ▾")
        self.read_as_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        self.read_as_button.setMinimumWidth(self.read_as_button.sizeHint().width())
        self.read_as_button.setToolTip("Read the selected file as another kind, when the detected kind is wrong")
        self.read_as_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.read_as_menu = QMenu(self.read_as_button)
        self.read_as_menu.aboutToShow.connect(self._fill_read_as_menu)
        self.read_as_button.setMenu(self.read_as_menu)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("dataRemoveButton")
        self.remove_button.setToolTip("Take the selected files out of the project (the files stay on disk)")
        self.remove_button.clicked.connect(self._remove_selected)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.read_as_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tree)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        self.tree.itemSelectionChanged.connect(self._update_buttons)
        session.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.tree.files.set_items(self.session.items)
        self.hint.setVisible(not self.session.items)
        self._update_buttons()

    def _update_buttons(self) -> None:
        paths = self.selected_paths()
        self.read_as_button.setEnabled(len(paths) == 1)
        self.remove_button.setEnabled(bool(paths))

    def _remove_selected(self) -> None:
        for path in self.selected_paths():
            self.remove_requested.emit(path)

    def _fill_read_as_menu(self) -> None:
        self.read_as_menu.clear()
        paths = self.selected_paths()
        if len(paths) == 1:
            self._add_kind_actions(self.read_as_menu, paths[0])

    def _add_kind_actions(self, menu: QMenu, path: str) -> None:
        current = self.session.find(path)
        for kind in kinds().values():
            action = menu.addAction(kind.label)
            action.setCheckable(True)
            action.setChecked(current is not None and current.kind == kind.name)
            action.setEnabled(kind.readable)
            if not kind.readable:
                action.setToolTip("evalgui cannot read this kind yet")
            action.triggered.connect(lambda _=False, k=kind.name, p=path: self.reload_as.emit(p, k))

    def selected_paths(self) -> list[str]:
        return [i.data(0, Qt.ItemDataRole.UserRole) for i in self.tree.selectedItems()]

    def _context_menu(self, pos) -> None:
        row = self.tree.itemAt(pos)
        menu = QMenu(self)
        if row is not None:
            path = row.data(0, Qt.ItemDataRole.UserRole)
            self._add_kind_actions(menu.addMenu("Read as"), path)
            menu.addAction("Remove", lambda p=path: self.remove_requested.emit(p))
            menu.addSeparator()
        menu.addAction("Open data…", self.open_requested.emit)
        menu.exec(self.tree.viewport().mapToGlobal(pos))
