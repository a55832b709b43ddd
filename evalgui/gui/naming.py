"""The window's choice of measure names (View ▸ Measure names): as in papers (AP, nDCG@10) or as in
trec_eval (map, ndcg_cut_10), remembered in the settings. Views read :func:`current` when they draw
and redraw on :data:`NAMING.changed`."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from evalgui.core import display

SETTINGS_KEY = "measure_names"


class _Naming(QObject):
    changed = Signal(str)

    def __init__(self):
        super().__init__()
        self.value: str | None = None


NAMING = _Naming()


def current() -> str:
    if NAMING.value is None:
        from evalgui.gui.settings import app_settings

        stored = str(app_settings().value(SETTINGS_KEY, display.PAPER) or display.PAPER)
        NAMING.value = stored if stored in display.NAMINGS else display.PAPER
    return NAMING.value


def set_current(naming: str) -> None:
    from evalgui.gui.settings import app_settings

    if naming not in display.NAMINGS:
        raise ValueError(naming)
    app_settings().setValue(SETTINGS_KEY, naming)
    if naming != NAMING.value:
        NAMING.value = naming
        NAMING.changed.emit(naming)


def label(text):
    """A machine word (measure, metric, column) as the window shows it now."""
    return display.label(text, current())


def measure(name: str) -> str:
    return display.measure_label(name, current())


CHOICES = ((display.PAPER, "As in papers (AP, nDCG@10, P@10)"),
           (display.TREC_EVAL, "As in trec_eval (map, ndcg_cut_10, P_10)"))


def add_menu(menu):
    """View ▸ Measure names: two exclusive choices, ticked as the settings say."""
    from PySide6.QtGui import QAction, QActionGroup

    submenu = menu.addMenu("Measure names")
    submenu.setObjectName("measureNamesMenu")
    group = QActionGroup(submenu)
    group.setExclusive(True)
    for key, text in CHOICES:
        action = QAction(text, submenu, checkable=True)
        action.setData(key)
        action.setChecked(key == current())
        action.triggered.connect(lambda _checked=False, key=key: set_current(key))
        group.addAction(action)
        submenu.addAction(action)
    return submenu
