"""Help ▸ About evalgui, and the application's icon.

What the dialog says is read, never written down here: the version and the libraries' licences
from the package metadata (:mod:`evalgui.core.distribution`), what evalgui can do from the
workspace registry and the input kinds, so a build lists exactly what it holds.
"""

from __future__ import annotations

import html
import sys

import pandas as pd
from PySide6.QtCore import QSize, Qt, qVersion
from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout

from evalgui.core import distribution
from evalgui.core.resources import icon
from evalgui.gui.tables import DataFrameModel, FrameTableView

ICON_SIZES = (48, 256)


def application_icon() -> QIcon:
    """The window and task-bar icon: the SVG where Qt can draw it, the PNGs at their sizes."""
    app_icon = QIcon(str(icon("evalgui.svg")))
    for size in ICON_SIZES:
        app_icon.addFile(str(icon(f"evalgui-{size}.png")), QSize(size, size))
    return app_icon


def workspace_summaries() -> list[tuple[str, str]]:
    """(title, what it does) of every registered workspace: the first line of its module's docstring."""
    from evalgui.gui.workspaces import workspace_classes

    summaries = []
    for cls in workspace_classes():
        doc = (sys.modules[cls.__module__].__doc__ or "").strip().splitlines()
        line = doc[0] if doc else ""
        if line.lower().startswith(cls.title.lower() + ":"):
            line = line[len(cls.title) + 1:].strip()
        summaries.append((cls.title, line))
    return summaries


def libraries_frame() -> pd.DataFrame:
    """Python, Qt and every library evalgui runs on, with its version and licence."""
    libraries = distribution.bundled_libraries()
    pyside = next((lib for lib in libraries if lib.name.lower().startswith("pyside6")), None)
    rows = [distribution.python_library()]
    rows.append(distribution.Library("Qt", qVersion(), pyside.licence if pyside else distribution.UNKNOWN))
    rows += libraries
    return pd.DataFrame({"library": [r.name for r in rows], "version": [r.version for r in rows],
                         "licence": [r.licence for r in rows]})


class AboutDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About evalgui")
        from evalgui.core.inputs import readable_kinds

        logo = QLabel()
        logo.setPixmap(application_icon().pixmap(64, 64))
        logo.setAlignment(Qt.AlignmentFlag.AlignTop)
        workspaces = "".join(f"<li><b>{html.escape(title)}</b>{': ' + html.escape(line) if line else ''}</li>"
                             for title, line in workspace_summaries())
        kinds = ", ".join(html.escape(kind.label) for kind in readable_kinds())
        self.summary = QLabel(
            f"<h2>evalgui {html.escape(distribution.version())}</h2>"
            "<p>A desktop workbench for evaluating retrieval systems.</p>"
            f"<p>Workspaces:</p><ul>{workspaces}</ul><p>Reads: {kinds}.</p>"
            f"<p>evalgui is free software under the {html.escape(distribution.evalgui_licence())} licence. "
            "It runs on the libraries below, each under its own licence; Qt and PySide6 are used under "
            "the LGPL-3.0, as separate libraries that can be replaced.</p>")
        self.summary.setObjectName("aboutSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        header = QHBoxLayout()
        header.addWidget(logo)
        header.addWidget(self.summary, 1)

        self.libraries = DataFrameModel(best=None)
        self.libraries_view = FrameTableView(self.libraries, name="libraries", stretch_column="licence")
        self.libraries_view.setObjectName("aboutLibraries")
        self.libraries.set_frame(libraries_frame(), directions=None)      # the view fits its columns to it
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(QLabel("Libraries:"))
        layout.addWidget(self.libraries_view, 1)
        layout.addWidget(buttons)
        self.resize(640, 700)

    def text(self) -> str:
        """Everything the dialog says, as plain text."""
        rows = "\n".join("\t".join(map(str, row)) for row in self.libraries.frame.itertuples(index=False))
        document = QTextDocument()
        document.setHtml(self.summary.text())
        return f"{document.toPlainText()}\n{rows}"
