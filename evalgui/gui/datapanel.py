"""The "Data" dock: every loaded file with its kind, counts and a validation badge."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QMenu, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from evalgui.gui.session import KINDS, READABLE_KINDS, DataItem, Session

_COLUMNS = ("", "File", "Kind", "Queries", "Docs", "Relevant")
_HEADER_TIPS = ("Validation: ✔ read without problems, ⚠ read, but look at the tooltip", "", "",
                "Distinct queries", "Qrels: judged documents. Runs: retrieved documents",
                "Qrels: documents judged relevant (grade 1 or more)")
_BADGES = {"ok": ("✔", QColor("#2e7d32")), "warning": ("⚠", QColor("#b26a00"))}


def _counts(item: DataItem) -> tuple[str, str, str]:
    s = item.summary
    if item.kind == "qrels":
        return f"{s['queries']:,}", f"{s['judged']:,}", f"{s['relevant']:,}"
    if item.kind == "run":
        return f"{s['queries']:,}", f"{s['documents']:,}", ""
    return "", "", ""


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
        self.tree.clear()
        for item in self.session.items:
            queries, docs, judged = _counts(item)
            badge, colour = _BADGES[item.badge]
            row = QTreeWidgetItem([badge, item.name, item.kind, queries, docs, judged])
            row.setData(0, Qt.ItemDataRole.UserRole, item.path)
            tip = item.path if not item.warnings else item.path + "\n" + "\n".join(f"⚠ {w}" for w in item.warnings)
            if item.kind == "run" and item.summary.get("runid"):
                tip += f"\nrun tag: {item.summary['runid']}"
            if not item.kind_detected:
                tip += "\nkind chosen by you"
            for c in range(len(_COLUMNS)):
                row.setToolTip(c, tip)
            for c in (3, 4, 5):
                row.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            row.setForeground(0, colour)
            self.tree.addTopLevelItem(row)
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
            for kind in KINDS:
                action = kind_menu.addAction(kind)
                action.setCheckable(True)
                action.setChecked(current is not None and current.kind == kind)
                action.setEnabled(kind in READABLE_KINDS)
                action.triggered.connect(lambda _=False, k=kind, p=path: self.reload_as.emit(p, k))
            menu.addAction("Remove", lambda p=path: self.remove_requested.emit(p))
            menu.addSeparator()
        menu.addAction("Open data…", self.open_requested.emit)
        menu.exec(self.tree.viewport().mapToGlobal(pos))
