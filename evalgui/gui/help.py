"""Help ▸ Measures reference: every family's records (family ▸ group ▸ record), searchable.
Help ▸ Getting started: one page per workspace (resources/help/<key>.html, with its picture), and an overview.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import (QDialog, QLineEdit, QListWidget, QListWidgetItem, QSplitter, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout)

from evalgui.core.registry import Record, families
from evalgui.gui.measurepicker import help_html

_KEY_ROLE = Qt.ItemDataRole.UserRole     # on a record's item: "family key/record name"


class MeasuresReference(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Measures reference")
        self.resize(820, 560)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search…")
        self.search.setClearButtonEnabled(True)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.text = QTextBrowser(self)
        self._records: dict[str, Record] = {}
        self._families = {}
        for family in families():
            self._families[family.key] = family
            top = QTreeWidgetItem(self.tree, [family.title])
            top.setData(0, _KEY_ROLE, family.key)
            self._bold(top)
            for group in family.groups():
                heading = QTreeWidgetItem(top, [group])
                for record in family.in_group(group):
                    aliases = ", ".join(name for _, name in record.aliases)
                    item = QTreeWidgetItem(heading, [record.name + (f"  ({aliases})" if aliases else "")])
                    key = f"{family.key}/{record.name}"
                    item.setData(0, _KEY_ROLE, key)
                    self._records[key] = record
        self.tree.expandAll()
        self.tree.currentItemChanged.connect(self._show)
        self.search.textChanged.connect(self._filter)
        splitter = QSplitter(self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.text)
        splitter.setSizes([260, 560])
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(splitter)
        first = next(self.record_items(), None)
        if first is not None:
            self.tree.setCurrentItem(first)

    @staticmethod
    def _bold(item: QTreeWidgetItem) -> None:
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)

    def record_items(self):
        """The items of the records (not the family and group headings), in order."""
        for f in range(self.tree.topLevelItemCount()):
            family = self.tree.topLevelItem(f)
            for g in range(family.childCount()):
                group = family.child(g)
                for r in range(group.childCount()):
                    yield group.child(r)

    def record_of(self, item: QTreeWidgetItem) -> Record | None:
        return self._records.get(item.data(0, _KEY_ROLE) or "") if item.parent() is not None else None

    def _show(self, item, _previous=None) -> None:
        if item is None:
            return
        record = self.record_of(item)
        if record is not None:
            self.text.setHtml(help_html(record))
        elif item.parent() is None:                   # a family heading
            family = self._families[item.data(0, _KEY_ROLE)]
            self.text.setHtml(f"<h3>{html.escape(family.title)}</h3><p>{html.escape(family.description)}</p>"
                              f"<p style='color:gray'>{len(family)} entries.</p>")

    def _filter(self, text: str) -> None:
        """Hide records whose name, other names and description miss the text; then empty headings."""
        needle = text.lower()
        for f in range(self.tree.topLevelItemCount()):
            family = self.tree.topLevelItem(f)
            family_visible = 0
            for g in range(family.childCount()):
                group = family.child(g)
                group_visible = 0
                for r in range(group.childCount()):
                    item = group.child(r)
                    haystack = item.text(0) + " " + self.record_of(item).description
                    show = not needle or needle in haystack.lower()
                    item.setHidden(not show)
                    group_visible += show
                group.setHidden(group_visible == 0)
                family_visible += group_visible
            family.setHidden(family_visible == 0)
        self._follow_filter(text)

    def _follow_filter(self, text: str) -> None:
        """The description never shows an entry the filter hides: the first match takes its place."""
        current = self.tree.currentItem()
        if current is not None and not _hidden(current):
            return
        first = next((i for i in self.record_items() if not _hidden(i)), None)
        if first is not None:
            self.tree.setCurrentItem(first)
        else:
            self.tree.setCurrentItem(None)
            self.text.setHtml(f"<p style='color:gray'>Nothing matches “{html.escape(text)}”.</p>")


def _hidden(item: QTreeWidgetItem) -> bool:
    """Hidden itself or under a hidden heading."""
    while item is not None:
        if item.isHidden():
            return True
        item = item.parent()
    return False


# ---------------------------------------------------------------------------- Getting started
OVERVIEW = "index"          # resources/help/index.html: what every workspace shares, and links to each


def help_dir() -> Path:
    from evalgui.core.resources import resource

    return resource("help")


def page_path(key: str) -> Path:
    """The Getting started page of a workspace (its key) or the overview."""
    return help_dir() / f"{key}.html"


class GettingStarted(QDialog):
    """The pages in a list (the overview, then one per workspace, in tab order) and the page shown beside it.

    Links between pages (``compare.html``) turn the page and follow in the list; images resolve in
    resources/help/."""

    def __init__(self, workspaces: list[tuple[str, str]], parent=None, start: str = OVERVIEW):
        """``workspaces``: (key, title) in tab order; the pages shown are those that exist."""
        super().__init__(parent)
        self.setWindowTitle("Getting started")
        self.setObjectName("gettingStarted")
        self.resize(900, 640)
        self.pages = QListWidget(self)
        self.pages.setObjectName("helpPages")
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("helpPage")
        self.browser.setOpenLinks(False)            # links are followed here: a page turns the list too
        self.browser.setSearchPaths([str(help_dir())])
        self.browser.anchorClicked.connect(self.follow)
        for key, title in [(OVERVIEW, "Overview")] + list(workspaces):
            if page_path(key).is_file():
                item = QListWidgetItem(title, self.pages)
                item.setData(Qt.ItemDataRole.UserRole, key)
        self.pages.currentItemChanged.connect(lambda item, _previous: item is not None and self._load(item))
        self.pages.setMaximumWidth(220)
        splitter = QSplitter(self)
        splitter.addWidget(self.pages)
        splitter.addWidget(self.browser)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([180, 720])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.show_page(start if page_path(start).is_file() else OVERVIEW)

    def keys(self) -> list[str]:
        return [self.pages.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.pages.count())]

    def current_key(self) -> str | None:
        item = self.pages.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def show_page(self, key: str) -> bool:
        keys = self.keys()
        if key not in keys:
            return False
        self.pages.setCurrentRow(keys.index(key))
        return True

    def _load(self, item: QListWidgetItem) -> None:
        self.browser.setSource(QUrl.fromLocalFile(str(page_path(item.data(Qt.ItemDataRole.UserRole)))))

    def follow(self, url: QUrl) -> None:
        """A link: another page of this help (turns the page), else the system's browser."""
        name = Path(url.path()).name
        if name.endswith(".html") and self.show_page(name[:-len(".html")]):
            return
        from PySide6.QtGui import QDesktopServices

        QDesktopServices.openUrl(url)
