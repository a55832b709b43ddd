"""Help ▸ Getting started: a page per workspace with its picture, result tabs and pitfalls; links work."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument

from evalgui.gui.workspaces import workspace_classes

KEYS = [cls.key for cls in workspace_classes()]
MAX_PICTURE_BYTES = 150_000


class _Page(HTMLParser):
    def __init__(self, text: str):
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs["src"])
        elif tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])


def _page(key: str) -> tuple[str, _Page]:
    from evalgui.gui.help import page_path

    text = page_path(key).read_text(encoding="utf-8")
    return text, _Page(text)


def _all_pages():
    from evalgui.gui.help import OVERVIEW

    return [OVERVIEW] + KEYS


def test_every_workspace_has_a_page_listed_in_tab_order(qtbot, window):
    from evalgui.gui.help import OVERVIEW, GettingStarted, page_path

    for key in KEYS:
        assert page_path(key).is_file(), f"no Getting started page for the {key} workspace"
    dialog = GettingStarted([(key, ws.title) for key, ws in window.workspaces.items()])
    qtbot.addWidget(dialog)
    assert dialog.keys() == [OVERVIEW] + list(window.workspaces)
    assert [dialog.pages.item(i).text() for i in range(1, dialog.pages.count())] == \
        [ws.title for ws in window.workspaces.values()]


@pytest.mark.parametrize("key", KEYS)
def test_a_page_teaches_its_workspace(window, key):
    text, page = _page(key)
    ws = window.workspaces[key]
    assert f"<h1>{ws.title}</h1>" in text
    assert "What to load" in text and "The results" in text and "Common pitfalls" in text
    for i in range(ws.results_tabs.count()):           # every result tab is explained
        assert f"<b>{ws.results_tabs.tabText(i)}</b>" in text, ws.results_tabs.tabText(i)
    assert page.images, "a picture of the workspace"


def test_the_pitfalls_are_where_they_bite():
    pitfalls = {"ranked": ["Query coverage", "Ties"],
                "compare": ["Multiple comparisons", "Query coverage", "Ties", "Resampling seeds"],
                "metaeval": ["Multiple comparisons", "Query coverage", "Ties", "Resampling seeds"],
                "stability": ["Ties", "Resampling seeds", "Multiple comparisons"],
                "casebase": ["Ties", "Query coverage"]}
    for key, names in pitfalls.items():
        text = _page(key)[0]
        pitfalls_part = text[text.index("Common pitfalls"):]
        for name in names:
            assert name in pitfalls_part, (key, name)


@pytest.mark.parametrize("key", _all_pages())
def test_every_picture_exists_loads_and_is_small(qtbot, key):
    from evalgui.gui.help import GettingStarted, help_dir

    _, page = _page(key)
    for src in page.images:
        path = help_dir() / src
        assert path.is_file(), src
        assert path.stat().st_size < MAX_PICTURE_BYTES, src
        image = QImage(str(path))
        assert not image.isNull() and 300 <= image.width() <= 800, src
    # ... and the help browser finds it (the page's relative name resolves in resources/help/).
    dialog = GettingStarted([(k, k) for k in KEYS], start=key)
    qtbot.addWidget(dialog)
    for src in page.images:
        loaded = dialog.browser.loadResource(QTextDocument.ResourceType.ImageResource, QUrl(src))
        assert loaded is not None and not QImage.fromData(loaded).isNull(), src     # the file's bytes


@pytest.mark.parametrize("key", _all_pages())
def test_every_link_turns_to_its_page(qtbot, key):
    from evalgui.gui.help import GettingStarted, help_dir

    _, page = _page(key)
    dialog = GettingStarted([(k, k) for k in KEYS], start=key)
    qtbot.addWidget(dialog)
    assert dialog.current_key() == key
    for href in page.links:
        assert (help_dir() / href).is_file(), href          # every link leads to a page of this help
        dialog.show_page(key)
        dialog.browser.anchorClicked.emit(QUrl(href))       # as a click on the link
        target = href.removesuffix(".html")
        assert dialog.current_key() == target
        assert dialog.browser.source().fileName() == href
        assert dialog.browser.toPlainText().strip(), href


def test_help_menu_opens_the_current_workspaces_page(qtbot, window):
    from PySide6.QtWidgets import QPushButton

    from evalgui.gui.help import OVERVIEW

    assert window.getting_started_action in window.menuBar().actions()[-1].menu().actions()
    window.tabs.setCurrentWidget(window.workspaces["stability"])
    window.getting_started_action.trigger()
    dialog = window.getting_started
    assert dialog.isVisible() and dialog.current_key() == "stability"
    assert "Total ranks T" in dialog.browser.toPlainText()
    window.tabs.setCurrentWidget(window.welcome)
    window.welcome.findChild(QPushButton, "gettingStartedButton").click()
    assert window.getting_started is dialog and dialog.current_key() == OVERVIEW
