"""The "Data" dock: every loaded file with its kind, counts and a validation badge."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QMenu, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from evalgui.core.inputs import LoadedInput, kinds
from evalgui.gui.session import Session

_COLUMNS = ("", "File", "Kind", "Contents")
_HEADER_TIPS = ("Validation: ✔ read without problems, ⚠ read, but look at the tooltip", "",
                "What the file holds (detected from its content; right-click ▸ Read as to change it)",
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
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.hint = QLabel("No files yet. Use File ▸ Open data…, drop files here, or open the demo.")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(mid); padding: 6px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tree)
        layout.addWidget(self.hint)
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
        self.hint.setVisible(not self.session.items)

    def selected_paths(self) -> list[str]:
        return [i.data(0, Qt.ItemDataRole.UserRole) for i in self.tree.selectedItems()]

    def _context_menu(self, pos) -> None:
        row = self.tree.itemAt(pos)
        menu = QMenu(self)
        if row is not None:
            path = row.data(0, Qt.ItemDataRole.UserRole)
            current = self.session.find(path)
            kind_menu = menu.addMenu("Read as")
            for kind in kinds().values():
                action = kind_menu.addAction(kind.label)
                action.setCheckable(True)
                action.setChecked(current is not None and current.kind == kind.name)
                action.setEnabled(kind.readable)
                if not kind.readable:
                    action.setToolTip("evalgui cannot read this kind yet")
                action.triggered.connect(lambda _=False, k=kind.name, p=path: self.reload_as.emit(p, k))
            menu.addAction("Remove", lambda p=path: self.remove_requested.emit(p))
            menu.addSeparator()
        menu.addAction("Open data…", self.open_requested.emit)
        menu.exec(self.tree.viewport().mapToGlobal(pos))
