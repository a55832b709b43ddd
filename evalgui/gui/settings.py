"""Where the window keeps its settings (geometry, docks, recent files, last-used parameters).

``EVALGUI_SETTINGS`` names an INI file to use instead of the platform's store:
the tests point it at a temporary file so they never touch a user's settings.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings


def app_settings() -> QSettings:
    path = os.environ.get("EVALGUI_SETTINGS")
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings("evalgui", "evalgui")
