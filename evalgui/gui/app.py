"""The `evalgui` entry point: the desktop application.

For now a main window titled "evalgui"; the desktop-application issue builds
the workspaces on it.
"""

from __future__ import annotations

import sys


def create_main_window():
    from PySide6.QtWidgets import QLabel, QMainWindow

    window = QMainWindow()
    window.setWindowTitle("evalgui")
    label = QLabel("evalgui: ranked-retrieval evaluation.\nThe workspaces arrive with the desktop-application issue; "
                   "use evalgui-cli meanwhile.")
    label.setMargin(24)
    window.setCentralWidget(label)
    window.resize(900, 600)
    return window


def main(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv if argv is None else [sys.argv[0], *argv])
    window = create_main_window()
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
