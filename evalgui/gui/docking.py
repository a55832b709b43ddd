"""The Data dock keeps the width the user gave it.

QMainWindow squeezes a dock when the window is made small, then hands all the room to the
central widget when the window grows again, so the dock stays squeezed. This gives the dock
its width back, and remembers a width set by dragging the separator (between sessions too).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

from evalgui.gui.settings import app_settings


class DockWidthKeeper(QObject):
    def __init__(self, window: QMainWindow, dock: QDockWidget, default_width: int, settings_key: str,
                 limit=None):
        """``limit(window_width)``: the widest the dock may be in a window that wide (None: no limit),
        so that on a laptop's screen the results keep most of the room."""
        super().__init__(window)
        self.window, self.dock, self.settings_key = window, dock, settings_key
        self.limit = limit
        self.width = app_settings().value(settings_key, default_width, type=int)
        self._width_at_press: int | None = None
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show or kind == QEvent.Type.Resize and event.size().width() > event.oldSize().width():
            QTimer.singleShot(0, self.restore)       # once the window's layout has the new size
        elif kind == QEvent.Type.Resize and event.size().width() < event.oldSize().width():
            QTimer.singleShot(0, self.narrow)
        elif kind == QEvent.Type.MouseButtonPress:
            self._width_at_press = self.dock.width()
        elif kind == QEvent.Type.MouseButtonRelease and self._width_at_press is not None:
            if self.dock.width() != self._width_at_press:    # the separator was dragged
                self.width = self.dock.width()
                app_settings().setValue(self.settings_key, self.width)
            self._width_at_press = None
        return False

    def target_width(self) -> int:
        """The dock's width in the window as it is now: the kept width, within the limit."""
        limit = self.limit(self.window.width()) if self.limit is not None else None
        return self.width if limit is None else min(self.width, limit)

    def _beside(self) -> bool:
        side = self.window.dockWidgetArea(self.dock) in (Qt.DockWidgetArea.LeftDockWidgetArea,
                                                         Qt.DockWidgetArea.RightDockWidgetArea)
        return side and self.dock.isVisible() and not self.dock.isFloating()

    def restore(self) -> None:
        """Widen the dock back to its width, as far as the window's other parts leave room."""
        target = self.target_width()
        if self._beside() and self.dock.width() != target:
            self.window.resizeDocks([self.dock], [target], Qt.Orientation.Horizontal)

    def narrow(self) -> None:
        """A narrower window: the dock gives up its room down to the limit (the results need it more)."""
        target = self.target_width()
        if self._beside() and self.dock.width() > target:
            self.window.resizeDocks([self.dock], [target], Qt.Orientation.Horizontal)
