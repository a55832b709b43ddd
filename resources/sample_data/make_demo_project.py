"""Make ``demo.evalgui``: the demo (every workspace evaluated on the sample data) saved as a project.

Every file it names is in this folder, so the project opens wherever evalgui is installed;
``evalgui-cli report demo.evalgui -o demo.html`` writes its report.

    QT_QPA_PLATFORM=offscreen python resources/sample_data/make_demo_project.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("EVALGUI_SETTINGS", str(Path(os.environ.get("TMPDIR", "/tmp")) / "evalgui-demo.ini"))
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from evalgui.gui.app import create_main_window

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = create_main_window()
    window.ask_open_report = lambda path: False
    loop = QEventLoop()
    failed: list = []
    window.demo_finished.connect(lambda names: (failed.extend(names), loop.quit()))
    QTimer.singleShot(600_000, loop.quit)
    window.open_demo()
    loop.exec()
    if failed or not all(ws.has_results() for ws in window.workspaces.values()):
        print(f"the demo did not evaluate every workspace: {failed}", file=sys.stderr)
        return 1
    target = Path(__file__).resolve().parent / "demo.evalgui"
    ok = window.write_project(str(target), include_results=True)
    window.setWindowModified(False)
    window._set_modified(False)
    app.processEvents()
    return 0 if ok else 1


if __name__ == "__main__":
    code = main()
    os._exit(code)
