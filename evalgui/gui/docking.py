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
    def __init__(self, window: QMainWindow, dock: QDockWidget, default_width: int, settings_key: str):
        super().__init__(window)
        self.window, self.dock, self.settings_key = window, dock, settings_key
        self.width = app_settings().value(settings_key, default_width, type=int)
        self._width_at_press: int | None = None
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show or kind == QEvent.Type.Resize and event.size().width() > event.oldSize().width():
            QTimer.singleShot(0, self.restore)       # once the window's layout has the new size
        elif kind == QEvent.Type.MouseButtonPress:
            self._width_at_press = self.dock.width()
        elif kind == QEvent.Type.MouseButtonRelease and self._width_at_press is not None:
            if self.dock.width() != self._width_at_press:    # the separator was dragged
                self.width = self.dock.width()
                app_settings().setValue(self.settings_key, self.width)
            self._width_at_press = None
        return False

    def restore(self) -> None:
        """Widen the dock back to its width, as far as the window's other parts leave room."""
        side = self.window.dockWidgetArea(self.dock) in (Qt.DockWidgetArea.LeftDockWidgetArea,
                                                         Qt.DockWidgetArea.RightDockWidgetArea)
        if side and self.dock.isVisible() and not self.dock.isFloating() and self.dock.width() < self.width:
            self.window.resizeDocks([self.dock], [self.width], Qt.Orientation.Horizontal)
