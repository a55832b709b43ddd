"""The "Data" box of every form that evaluates runs: a qrels picker and a checkable run list.

Both are filled from the session. New runs are ticked, unless they share no query
with the chosen qrels (shown grey); the user's ticks survive refreshes, by path.
The ranked-retrieval and compare-systems forms use it, and :class:`Checklist`
(ticks remembered by key across refills) for their other lists.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QListWidget, QListWidgetItem,
                               QPushButton, QStyledItemDelegate, QToolTip, QVBoxLayout, QWidget)

from evalgui.gui.naming import label

_KEY = Qt.ItemDataRole.UserRole


class Checklist(QListWidget):
    """Checkable entries (key, text) whose ticks are remembered by key when the list is refilled."""

    changed = Signal()

    def __init__(self, object_name: str = "", parent=None):
        super().__init__(parent)
        if object_name:
            self.setObjectName(object_name)
        self.ticks: dict[str, bool] = {}       # key -> ticked, remembered across refills
        self.itemChanged.connect(self._item_changed)
        # A long name is shortened in the middle (its tooltip has it whole), never scrolled to sideways: the
        # list is as wide as the form column, narrow on a laptop.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setUniformItemSizes(True)         # (one size hint for all rows: 20,000 runs lay out at once)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setItemDelegate(_ViewportWide(self))

    def set_entries(self, entries: Iterable[tuple[str, str]], *, default: bool = True,
                    defaults: dict[str, bool] | None = None, tooltips: dict[str, str] | None = None,
                    greyed: Iterable[str] = ()) -> None:
        """Refill. A key never ticked or unticked by the user gets ``defaults[key]``, else ``default``."""
        greyed = set(greyed)
        defaults = defaults or {}
        # Qt's enum values looked up once: each lookup costs more than the rest of a row (20,000 runs).
        flags = QListWidgetItem().flags() | Qt.ItemFlag.ItemIsUserCheckable
        checked, unchecked, gray, key_role = Qt.CheckState.Checked, Qt.CheckState.Unchecked, Qt.GlobalColor.gray, _KEY
        self.blockSignals(True)
        self.setUpdatesEnabled(False)
        self.clear()
        for key, text in entries:
            row = QListWidgetItem(label(text), self)      # a measure or metric in the window's naming
            row.setData(key_role, key)
            row.setFlags(flags)
            if key in greyed:
                row.setForeground(gray)
            if tooltips and key in tooltips:
                row.setToolTip(tooltips[key])
            row.setCheckState(checked if self.ticks.get(key, defaults.get(key, default)) else unchecked)
        self.setUpdatesEnabled(True)
        self.blockSignals(False)
        self.changed.emit()

    def keys(self) -> list[str]:
        return [self.item(i).data(_KEY) for i in range(self.count())]

    def checked(self) -> list[str]:
        """The ticked keys, in list order."""
        return [self.item(i).data(_KEY) for i in range(self.count())
                if self.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, key: str, checked: bool) -> None:
        """Tick or untick ``key`` (remembered even while it is not listed); ``changed`` fires, ``itemChanged``
        (what a user's click sends) does not."""
        self.ticks[key] = checked
        self.blockSignals(True)
        for i in range(self.count()):
            if self.item(i).data(_KEY) == key:
                self.item(i).setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.blockSignals(False)
        self.changed.emit()

    def set_all_checked(self, checked: bool) -> None:
        """Tick (or untick) every listed entry at once; one ``changed``."""
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        self.blockSignals(True)
        for i in range(self.count()):
            self.item(i).setCheckState(state)
            self.ticks[self.item(i).data(_KEY)] = checked
        self.blockSignals(False)
        self.changed.emit()

    def restore(self, ticks) -> None:
        """Take remembered ticks (``{key: bool}``, as :attr:`ticks` holds them): shown on the entries listed now,
        and on the others when a refill lists them."""
        if not isinstance(ticks, dict):
            return
        self.ticks.update({str(k): bool(v) for k, v in ticks.items()})
        self.blockSignals(True)
        for i in range(self.count()):
            key = self.item(i).data(_KEY)
            if key in self.ticks:
                self.item(i).setCheckState(Qt.CheckState.Checked if self.ticks[key] else Qt.CheckState.Unchecked)
        self.blockSignals(False)
        self.changed.emit()

    def _item_changed(self, row: QListWidgetItem) -> None:
        self.ticks[row.data(_KEY)] = row.checkState() == Qt.CheckState.Checked
        self.changed.emit()


class _ViewportWide(QStyledItemDelegate):
    """Rows as wide as the list's viewport, so that a long name is elided rather than scrolled; a shortened
    name without a tooltip of its own shows itself whole as one."""

    def sizeHint(self, option, index) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(max(self.parent().viewport().width() - 2, 20), hint.height())

    def helpEvent(self, event, view, option, index) -> bool:
        text = index.data()
        if event.type() == QEvent.Type.ToolTip and not index.data(Qt.ItemDataRole.ToolTipRole) and text:
            if view.visualRect(index).width() - 30 < option.fontMetrics.horizontalAdvance(text):
                QToolTip.showText(event.globalPos(), text, view)
                return True
        return super().helpEvent(event, view, option, index)


class QrelsRunsPicker(QGroupBox):
    """Picks the qrels and the runs from the session; ``changed`` fires when the choice changes."""

    changed = Signal()

    def __init__(self, session, parent=None, *, object_prefix: str = ""):
        super().__init__("Data", parent)
        self.session = session
        self.qrels_path: str | None = None
        self.qrels_combo = QComboBox()
        self.qrels_combo.setObjectName(_name(object_prefix, "qrelsCombo"))
        self.qrels_combo.setToolTip("The relevance judgments to evaluate against")
        self.qrels_combo.currentIndexChanged.connect(self._qrels_changed)
        self.run_list = Checklist(_name(object_prefix, "runList"))     # keyed by path
        # Eight runs in sight (the form scrolls when the window is short), up to fourteen.
        row = self.run_list.sizeHintForRow(0) if self.run_list.count() else self.run_list.fontMetrics().height() + 2
        self.run_list.setMinimumHeight(8 * row + 2 * self.run_list.frameWidth() + 4)
        self.run_list.setMaximumHeight(14 * row + 2 * self.run_list.frameWidth() + 4)
        self.run_list.changed.connect(self.changed)
        self.select_all_button, self.select_none_button = select_buttons(self.run_list, "runs")
        layout = QFormLayout(self)
        layout.addRow("Qrels", self.qrels_combo)
        layout.addRow("Runs", with_select_buttons(self.run_list, self.select_all_button, self.select_none_button))

    def refresh_inputs(self) -> None:
        """Rebuild the qrels picker and run checklist from the session, keeping the user's choices."""
        qrels_items = self.session.of_kind("qrels")
        self.qrels_combo.blockSignals(True)
        self.qrels_combo.clear()
        for item in qrels_items:
            self.qrels_combo.addItem(item.name, item.path)
            self.qrels_combo.setItemData(self.qrels_combo.count() - 1, item.path, Qt.ItemDataRole.ToolTipRole)
        paths = [i.path for i in qrels_items]
        if self.qrels_path in paths:
            self.qrels_combo.setCurrentIndex(paths.index(self.qrels_path))
        elif paths:
            self.qrels_combo.setCurrentIndex(0)
            self.qrels_path = paths[0]
        self.qrels_combo.blockSignals(False)
        self._refresh_runs()

    def qrels_item(self):
        return self.session.find(self.qrels_path) if self.qrels_path else None

    def _qrels_changed(self) -> None:
        self.qrels_path = self.qrels_combo.currentData()
        self._refresh_runs()

    def _refresh_runs(self) -> None:
        from evalgui.core.ranked.evaluate import shared_query_counts

        run_items = self.session.of_kind("run")
        qrels_item = self.qrels_item()
        shared = shared_query_counts(qrels_item.data, [r.data for r in run_items]) if qrels_item else \
            [-1] * len(run_items)
        # New runs are ticked, unless they share no query with the chosen qrels.
        entries, defaults, tooltips = [], {}, {}
        for item, common in zip(run_items, shared):
            entries.append((item.path, item.name if common else f"{item.name}  (no query in common with the qrels)"))
            defaults[item.path] = common != 0
            tooltips[item.path] = (f"{item.path}\n{item.summary['queries']:,} queries, "
                                   f"{item.summary['documents']:,} documents"
                                   + ("" if common < 0 else f", {common:,} judged"))
        self.run_list.set_entries(entries, defaults=defaults, tooltips=tooltips,
                                  greyed=[p for p, ticked in defaults.items() if not ticked])

    def checked_run_paths(self) -> list[str]:
        return self.run_list.checked()

    def checked_run_items(self) -> list:
        """The ticked runs' session items, in list order."""
        return [r for r in (self.session.find(p) for p in self.checked_run_paths()) if r is not None]

    def set_run_checked(self, path: str, checked: bool) -> None:
        self.run_list.set_checked(path, checked)

    def set_qrels(self, path: str) -> None:
        self.qrels_path = path
        self.refresh_inputs()

    # ------------------------------------------------------------ settings
    def bind_to(self, bindings) -> None:
        """Bind the qrels chosen (held by path until it is loaded) and the runs ticked to the form's
        ``bindings``, under the requests' names ``qrels`` and ``runs``."""
        from evalgui.core.workflows.common import QRELS, RUNS

        bindings.hold(QRELS, self, "qrels_path", shows=(self.qrels_combo,))
        bindings.bind(RUNS, self.run_list)


def select_buttons(checklist: Checklist, what: str) -> tuple[QPushButton, QPushButton]:
    """"Select all" and "Select none" buttons that tick or untick every entry of ``checklist``."""
    buttons = []
    for text, checked in (("Select all", True), ("Select none", False)):
        button = QPushButton(text)
        button.setObjectName(_name(checklist.objectName(), "all" if checked else "none"))
        button.setToolTip(f"{'Tick' if checked else 'Untick'} every one of the {what}")
        button.setAutoDefault(False)
        button.clicked.connect(lambda _=False, c=checked: checklist.set_all_checked(c))
        buttons.append(button)
    return buttons[0], buttons[1]


def with_select_buttons(checklist: Checklist, *buttons: QPushButton) -> QWidget:
    """The list with its select buttons in a row under it."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    column.addWidget(checklist)
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    for button in buttons:
        row.addWidget(button)
    row.addStretch(1)
    column.addLayout(row)
    return box


def _name(prefix: str, name: str) -> str:
    return prefix + name[:1].upper() + name[1:] if prefix else name
