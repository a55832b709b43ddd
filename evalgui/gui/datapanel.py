"""The "Data" dock: every loaded file with its kind, counts and a validation badge."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QMenu, QPushButton, QToolButton,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from evalgui.core.inputs import LoadedInput, kinds
from evalgui.gui.session import Session

_COLUMNS = ("", "File", "Kind", "Contents")
_HEADER_TIPS = ("Validation: ✔ read without problems, ⚠ read, but look at the tooltip", "",
                "What the file holds (detected from its content; Read as, below, changes it)",
                "Counts; the tooltip has them all")
_BADGES = {"ok": ("✔", QColor("#2e7d32")), "warning": ("⚠", QColor("#b26a00"))}


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
    return "\n".join(lines)


class DataPanel(QWidget):
    """Lists the session's files. Asks the window to reload a file as another kind, or to remove it."""

    reload_as = Signal(str, str)     # path, kind
    remove_requested = Signal(str)   # path
    open_requested = Signal()

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("dataTree")
        self.tree.setHeaderLabels(list(_COLUMNS))
        for c, tip in enumerate(_HEADER_TIPS):
            self.tree.headerItem().setToolTip(c, tip)
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
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
        self.tree.setUpdatesEnabled(False)
        self.tree.clear()
        rows, role = [], Qt.ItemDataRole.UserRole
        for item in self.session.items:
            badge, colour = _BADGES[item.badge]
            row = QTreeWidgetItem([badge, item.name, item.kind, item.record.describe(item.summary)])
            row.setData(0, role, item.path)
            tip = _tooltip(item)
            for c in range(len(_COLUMNS)):
                row.setToolTip(c, tip)
            row.setForeground(0, colour)
            rows.append(row)
        self.tree.addTopLevelItems(rows)          # at once: 20,000 files are one insertion, not 20,000
        self.tree.setUpdatesEnabled(True)
        self.tree.viewport().update()
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
