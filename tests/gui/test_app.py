"""The `evalgui` entry point opens a main window titled "evalgui"."""

import pytest

pytest.importorskip("PySide6")


def test_main_window_title(qtbot):
    from evalgui.gui.app import create_main_window

    window = create_main_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.windowTitle() == "evalgui"
