"""Names from the data (runs, queries, documents, measures, attributes, files) shown as text, never as markup.

Qt reads rich text in many places: pyqtgraph's titles, axis labels and legends always (``rich``), and a
label, tooltip or message box whenever the text looks like HTML (``tip``). A run named ``<img src=x>`` must
show those characters, not load an image (and an exported SVG must not carry the image as a data URI).
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt


def rich(text) -> str:
    """``text`` for a place that reads Qt rich text (pyqtgraph's LabelItem, AxisItem labels, legends)."""
    return html.escape(str(text), quote=False)


def tip(text):
    """``text`` for a tooltip or an AutoText label: unchanged unless Qt would take it for markup, else
    converted so that it shows literally (line breaks kept)."""
    if not text or not Qt.mightBeRichText(text):
        return text
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
