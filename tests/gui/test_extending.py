"""A new input kind and a new workspace each take one module and one registry line.

The fake workspace below is what a later issue's workspace looks like at its smallest:
a form, a result view, and an engine job run by the base class (Run, Cancel, progress).
"""

import sys
import textwrap

import pytest

from tests.core.test_inputs import FAKE_KIND
from tests.gui.conftest import load, run_and_wait

WORD_KIND = FAKE_KIND     # the fake kind the registry's own tests use

WORD_WORKSPACE = '''
import pandas as pd
from PySide6.QtWidgets import QComboBox, QVBoxLayout

from evalgui.gui.tables import DataFrameModel, FrameTableView
from evalgui.gui.workspaces.base import Workspace


def count_job(words):
    def job(state):
        counts = {}
        for i, word in enumerate(words):
            state.check()
            state.progress(i / len(words), f"Counting {word}")
            counts[word] = counts.get(word, 0) + 1
        return pd.DataFrame({"word": list(counts), "count": list(counts.values())})
    return job


class WordWorkspace(Workspace):
    key = "words"
    title = "Word counts"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.file_combo = QComboBox()
        self.model = DataFrameModel(best="column")
        self.view = FrameTableView(self.model, name="counts")
        layout = QVBoxLayout(self)
        layout.addWidget(self.file_combo)
        layout.addWidget(self.run_controls())
        layout.addWidget(self.view)
        session.changed.connect(self.refresh_inputs)

    def refresh_inputs(self):
        self.file_combo.clear()
        for item in self.session.of_kind("word list"):
            self.file_combo.addItem(item.name, item.path)

    def run(self):
        item = self.session.find(self.file_combo.currentData())
        self.start_job(count_job(item.data), "Counting…", on_success=self.model.set_frame)
'''


@pytest.fixture
def extended(tmp_path, monkeypatch):
    from evalgui.core import inputs
    from evalgui.gui import workspaces

    package = tmp_path / "fake_extension"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "words.py").write_text(textwrap.dedent(WORD_KIND))                 # one module…
    (package / "word_workspace.py").write_text(textwrap.dedent(WORD_WORKSPACE))   # …and one module
    monkeypatch.syspath_prepend(str(tmp_path))
    inputs.register("fake_extension.words")                                     # one line…
    workspaces.register("fake_extension.word_workspace:WordWorkspace")          # …and one line
    yield tmp_path
    inputs.unregister("fake_extension.words")
    workspaces.unregister("fake_extension.word_workspace:WordWorkspace")
    for name in [m for m in sys.modules if m.startswith("fake_extension")]:
        del sys.modules[name]


def test_a_new_kind_and_a_new_workspace_plug_in(qtbot, extended, make_window):
    words = extended / "poem.words"
    words.write_text("a rose is a rose is a rose\n")
    window = make_window()
    ws = window.workspaces["words"]
    assert window.tabs.tabText(window.tabs.indexOf(ws)) == "Word counts"
    load(qtbot, window, [words])
    item = window.session.items[0]
    assert item.kind == "word list"
    assert window.data_panel.tree.topLevelItem(0).text(3) == "8 words"
    run_and_wait(qtbot, ws)                                   # the real Run button
    frame = ws.model.frame
    assert dict(zip(frame["word"], frame["count"])) == {"a": 3, "rose": 3, "is": 2}
    assert ws.progress.value() == 1000 and not ws.cancel_button.isEnabled()
