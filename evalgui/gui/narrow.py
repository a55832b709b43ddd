"""Forms that fit a laptop's narrow form column without scrolling sideways (issue 25).

At 1024×640 the form column is under 300 pixels wide: a row whose label and field do not fit side by side
puts its field under its label instead, long notes wrap, and group boxes keep thin margins.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

WRAP_WIDTH = 200        # notes wider than this wrap (a row's own label stays on one line)
GROUP_MARGIN = 6        # a group box's side margins (the style's are 9: nested boxes add up)


def fit_narrow(form: QWidget) -> None:
    """Lay ``form`` out for a narrow column; call it again for parts built later (forms made for the data)."""
    row_labels = set()
    for layout in form.findChildren(QFormLayout):
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        row_labels.update(layout.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
                          for row in range(layout.rowCount())
                          if layout.itemAt(row, QFormLayout.ItemRole.LabelRole) is not None)
    for label in form.findChildren(QLabel):
        if label not in row_labels and not label.wordWrap() and label.sizeHint().width() > WRAP_WIDTH:
            label.setWordWrap(True)
    for box in form.findChildren(QGroupBox) + ([form] if isinstance(form, QGroupBox) else []):
        layout = box.layout()
        if layout is not None:
            margins = layout.contentsMargins()
            layout.setContentsMargins(min(margins.left(), GROUP_MARGIN), margins.top(),
                                      min(margins.right(), GROUP_MARGIN), margins.bottom())
