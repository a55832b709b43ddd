"""The "Data" box of every form that evaluates runs: a qrels picker and a checkable run list.

Both are filled from the session. New runs are ticked, unless they share no query
with the chosen qrels (shown grey); the user's ticks survive refreshes, by path.
The ranked-retrieval and compare-systems forms use it, and :class:`Checklist`
(ticks remembered by key across refills) for their other lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QListView,
                               QPushButton, QStyledItemDelegate, QToolTip, QVBoxLayout, QWidget)

from evalgui.gui.naming import label
from evalgui.gui.plain_text import tip

_KEY = Qt.ItemDataRole.UserRole
_CHECKED, _UNCHECKED = Qt.CheckState.Checked, Qt.CheckState.Unchecked

# How many times a checklist was refilled and how many rows it was given, in this process: the tests count
# refills per project opened (a list of 20,000 runs is one model reset, not 20,000 widgets).
REFILLS = {"lists": 0, "rows": 0}


class ChecklistModel(QAbstractListModel):
    """The rows of a :class:`Checklist`: keys and texts in two lists, ticks in a dict.

    A refill is one model reset; a row's label, tooltip and colour are worked out only when a view asks
    for them (the rows in sight), so 20,000 runs cost two list copies, not 20,000 item widgets.
    """

    user_ticked = Signal(int)          # a row's tick changed through setData (a click, or ``item(i).setCheckState``)

    def __init__(self, ticks: dict[str, bool], parent=None):
        super().__init__(parent)
        self.ticks = ticks                 # key -> ticked by the user; shared with the Checklist
        self.keys: list[str] = []
        self.texts: list[str] = []
        self.default = True
        self.defaults: dict[str, bool] = {}
        self.tooltips: dict[str, str] | Callable[[str], str] | None = None
        self.greyed: set[str] = set()
        self._rows: dict[str, int] | None = None      # key -> row, built when first needed

    def refill(self, keys: list[str], texts: list[str], default: bool, defaults: dict[str, bool],
               tooltips, greyed: set[str]) -> None:
        self.beginResetModel()
        self.keys, self.texts, self.default, self.defaults = keys, texts, default, defaults
        self.tooltips, self.greyed, self._rows = tooltips, greyed, None
        self.endResetModel()
        REFILLS["lists"] += 1
        REFILLS["rows"] += len(keys)

    def is_ticked(self, key: str) -> bool:
        """The user's tick if there is one, else the refill's default for ``key``."""
        tick = self.ticks.get(key)
        return tick if tick is not None else self.defaults.get(key, self.default)

    def row_of(self, key: str) -> int:
        if self._rows is None:
            self._rows = {k: i for i, k in enumerate(self.keys)}
        return self._rows.get(key, -1)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.keys)

    def flags(self, index):
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row = index.row()
        if not 0 <= row < len(self.keys):
            return None
        key = self.keys[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return label(self.texts[row])         # a measure or metric in the window's naming
        if role == Qt.ItemDataRole.CheckStateRole:
            return _CHECKED if self.is_ticked(key) else _UNCHECKED
        if role == _KEY:
            return key
        if role == Qt.ItemDataRole.ToolTipRole:
            if callable(self.tooltips):
                return tip(self.tooltips(key))
            return tip(self.tooltips.get(key)) if self.tooltips else None
        if role == Qt.ItemDataRole.ForegroundRole and key in self.greyed:
            return Qt.GlobalColor.gray
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid():
            return False
        self.ticks[self.keys[index.row()]] = Qt.CheckState(value) == _CHECKED
        self.dataChanged.emit(index, index, [role])
        self.user_ticked.emit(index.row())
        return True

    def ticks_changed(self) -> None:
        """Every row's tick may have changed (one signal for the views)."""
        if self.keys:
            self.dataChanged.emit(self.index(0), self.index(len(self.keys) - 1), [Qt.ItemDataRole.CheckStateRole])


class ChecklistRow:
    """One row of a :class:`Checklist`, read and ticked as a ``QListWidgetItem`` is (``item(i)``)."""

    def __init__(self, model: ChecklistModel, row: int):
        self._model, self._index = model, model.index(row)

    def data(self, role):
        return self._model.data(self._index, role)

    def text(self) -> str:
        return self._model.data(self._index, Qt.ItemDataRole.DisplayRole)

    def toolTip(self) -> str:
        return self._model.data(self._index, Qt.ItemDataRole.ToolTipRole) or ""

    def checkState(self) -> Qt.CheckState:
        return self._model.data(self._index, Qt.ItemDataRole.CheckStateRole)

    def setCheckState(self, state: Qt.CheckState) -> None:
        """As a click does: the tick is the user's, and ``itemChanged`` fires."""
        self._model.setData(self._index, state, Qt.ItemDataRole.CheckStateRole)


class Checklist(QListView):
    """Checkable entries (key, text) whose ticks are remembered by key when the list is refilled.

    A view over a :class:`ChecklistModel`: refilling it is one model reset, whatever the number of entries.
    ``itemChanged(row)`` fires for the user's ticks only (a refill or :meth:`set_checked` sends none);
    ``changed`` for any change of the ticked entries.
    """

    changed = Signal()
    itemChanged = Signal(object)       # a ChecklistRow the user ticked or unticked

    def __init__(self, object_name: str = "", parent=None):
        super().__init__(parent)
        if object_name:
            self.setObjectName(object_name)
        self.ticks: dict[str, bool] = {}       # key -> ticked, remembered across refills
        self.list_model = ChecklistModel(self.ticks, self)
        self.setModel(self.list_model)
        self.setUniformItemSizes(True)         # else the view asks every row for its size
        # Laid out a thousand rows a turn: placing 20,000 asks the model twice a row, which a Python model pays for.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(1000)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list_model.user_ticked.connect(self._user_ticked)
        # A long name is shortened in the middle (its tooltip has it whole), never scrolled to sideways: the
        # list is as wide as the form column, narrow on a laptop.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setItemDelegate(_ViewportWide(self))

    def set_entries(self, entries: Iterable[tuple[str, str]], *, default: bool = True,
                    defaults: dict[str, bool] | None = None,
                    tooltips: dict[str, str] | Callable[[str], str] | None = None,
                    greyed: Iterable[str] = ()) -> None:
        """Refill. A key never ticked or unticked by the user gets ``defaults[key]``, else ``default``.
        ``tooltips`` may be a function of the key: it is called for the rows in sight only."""
        entries = list(entries)
        self.set_rows([key for key, _ in entries], [text for _, text in entries], default=default,
                      defaults=defaults, tooltips=tooltips, greyed=greyed)

    def set_rows(self, keys: list[str], texts: list[str], *, default: bool = True,
                 defaults: dict[str, bool] | None = None,
                 tooltips: dict[str, str] | Callable[[str], str] | None = None, greyed: Iterable[str] = ()) -> None:
        """:meth:`set_entries` with the keys and texts as two lists (no per-entry tuples)."""
        self.list_model.refill(list(keys), list(texts), default, dict(defaults or {}), tooltips, set(greyed))
        self.changed.emit()

    def count(self) -> int:
        return len(self.list_model.keys)

    def item(self, row: int) -> ChecklistRow | None:
        return ChecklistRow(self.list_model, row) if 0 <= row < self.count() else None

    def keys(self) -> list[str]:
        return list(self.list_model.keys)

    def checked(self) -> list[str]:
        """The ticked keys, in list order."""
        model = self.list_model
        ticks, defaults, default = self.ticks, model.defaults, model.default
        return [k for k in model.keys if ticks.get(k, defaults.get(k, default))]

    def set_checked(self, key: str, checked: bool) -> None:
        """Tick or untick ``key`` (remembered even while it is not listed); ``changed`` fires, ``itemChanged``
        (what a user's click sends) does not."""
        self.ticks[key] = checked
        row = self.list_model.row_of(key)
        if row >= 0:
            index = self.list_model.index(row)
            self.list_model.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.changed.emit()

    def set_all_checked(self, checked: bool) -> None:
        """Tick (or untick) every listed entry at once; one ``changed``."""
        self.ticks.update(dict.fromkeys(self.list_model.keys, checked))
        self.list_model.ticks_changed()
        self.changed.emit()

    def restore(self, ticks) -> None:
        """Take remembered ticks (``{key: bool}``, as :attr:`ticks` holds them): shown on the entries listed now,
        and on the others when a refill lists them; ``changed`` fires, ``itemChanged`` does not."""
        if not isinstance(ticks, dict):
            return
        self.ticks.update({str(k): bool(v) for k, v in ticks.items()})
        self.list_model.ticks_changed()
        self.changed.emit()

    def _user_ticked(self, row: int) -> None:
        self.itemChanged.emit(ChecklistRow(self.list_model, row))
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
                QToolTip.showText(event.globalPos(), tip(text), view)
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
            self.qrels_combo.setItemData(self.qrels_combo.count() - 1, tip(item.path), Qt.ItemDataRole.ToolTipRole)
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
        keys, texts, defaults, greyed, tooltip = self.session.cached(("run rows", self.qrels_path),
                                                                     lambda: _run_rows(self.session, self.qrels_path))
        self.run_list.set_rows(keys, texts, defaults=defaults, tooltips=tooltip, greyed=greyed)

    def checked_run_paths(self) -> list[str]:
        return self.run_list.checked()

    def checked_run_items(self) -> list:
        """The ticked runs' session items, in list order."""
        return [r for r in (self.session.find(p) for p in self.checked_run_paths()) if r is not None]

    def checked_held_run_items(self, needs: str) -> list:
        """The ticked runs' items, for a workflow that needs each run's rankings in memory (``needs`` says
        what it does with them); a run too large to hold (evaluated query by query) is refused by name."""
        from evalgui.core.errors import EvalUsageError

        items = self.checked_run_items()
        for item in items:
            if item.by_query:
                raise EvalUsageError(f"{item.path} is too large to hold in memory, so evalgui evaluates it query "
                                     f"by query (Ranked retrieval and Compare systems can use it). {needs}, which "
                                     f"needs every run's rankings in memory: untick it.")
        return items

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


def _run_rows(session, qrels_path: str | None):
    """The run list's rows for these qrels: keys (paths), texts, default ticks, greyed keys and a tooltip
    function. New runs are ticked, unless they share no query with the qrels (greyed)."""
    from evalgui.core.ranked.evaluate import shared_query_counts

    run_items = session.of_kind("run")
    qrels_item = session.find(qrels_path) if qrels_path else None
    shared = shared_query_counts(qrels_item.data, [r.data for r in run_items]) if qrels_item else \
        [-1] * len(run_items)
    keys = [item.path for item in run_items]
    texts = [item.name if common else f"{item.name}  (no query in common with the qrels)"
             for item, common in zip(run_items, shared)]
    defaults = {key: common != 0 for key, common in zip(keys, shared)}
    greyed = {key for key, common in zip(keys, shared) if common == 0}
    by_key = dict(zip(keys, zip(run_items, shared)))

    def tooltip(key: str) -> str:          # for the rows in sight only
        item, common = by_key[key]
        return (f"{item.path}\n{item.summary['queries']:,} queries, {item.summary['documents']:,} documents"
                + ("" if common < 0 else f", {common:,} judged"))

    return keys, texts, defaults, greyed, tooltip


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
