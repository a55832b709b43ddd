"""What every workspace offers the main window."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget


class Workspace(QWidget):
    """A tab of the main window. Subclasses set ``key`` (project files, settings) and ``title``."""

    key = "workspace"
    title = "Workspace"

    status_message = Signal(str)
    busy_changed = Signal(bool)
    error = Signal(str, str)        # title, message: the window shows the dialog

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session

    # The form's settings, as plain JSON-able values (projects and QSettings keep them).
    def form_state(self) -> dict:
        return {}

    def restore_form_state(self, state: dict) -> None:
        pass

    # Results for a project file (None: nothing to keep).
    def results_state(self) -> dict | None:
        return None

    def restore_results_state(self, state: dict) -> None:
        pass

    def clear_results(self) -> None:
        """Stop any job and forget the results (another project replaces the session)."""

    def run(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    def is_busy(self) -> bool:
        return False

    def wait(self, msecs: int = 5000) -> bool:
        return True

    def export_targets(self) -> list[tuple[str, object]]:
        """(label, callable that shows an export dialog) for File ▸ Export…"""
        return []
