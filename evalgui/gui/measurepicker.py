"""The measure picker: a searchable, checkable list under its groups, with editable cutoffs and help.

Each measure is listed in the naming View ▸ Measure names chooses (AP, nDCG@k as in papers, or map,
ndcg_cut as in trec_eval), with the other spelling greyed beside it; the search finds either.

Items come from a family's registry (the ranked measures by default; any mapping of
names to records, e.g. ranked and preference measures together), so every
measure the engine knows is offered with its own description and formula. A checked item
becomes a trec_eval-style spec (``P.5,10``) or, for the custom ones typed in,
the text as typed (``P(rel=2)@5``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLineEdit, QPushButton, QSplitter, QStyledItemDelegate,
                               QTextBrowser, QTreeWidget, QTreeWidgetItem, QTreeWidgetItemIterator, QVBoxLayout,
                               QWidget)

from evalgui.core import display
from evalgui.core.ranked.measures import REGISTRY, Measure, ParamKind, params_text
from evalgui.core.registry import Record
from evalgui.gui import naming
from evalgui.gui.plain_text import tip as plain_tip

# What a new user starts with: the usual suspects at the usual cutoffs.
DEFAULT_CHECKED = {"map": "", "P": "10", "ndcg_cut": "10", "recall": "100", "recip_rank": ""}
CUSTOM_FAMILY = "Custom (written as in papers or as in trec_eval)"
_NAME_ROLE = Qt.ItemDataRole.UserRole
_SPEC_ROLE = Qt.ItemDataRole.UserRole + 1      # a custom item's spec as typed (its text is the papers' name)


def _spec(item: QTreeWidgetItem) -> str:
    return item.data(0, _SPEC_ROLE) or item.text(0)
_EDITABLE_KINDS = (ParamKind.LONG_CUTOFFS, ParamKind.DOUBLE_CUTOFFS, ParamKind.DOUBLE_PARAMS, ParamKind.PAIRS)

HELP_LINES = 8          # the help pane shows this many lines at least
TREE_ROWS = 10          # and the list this many measures
NAME_WIDTH = 185        # the measure column when there is room
PARAMETERS_MIN_WIDTH = 60
COLUMN_MIN_WIDTH = 60


def _kind(record: Record) -> ParamKind:
    """A ranked measure's parameter syntax; a record of another family takes none here."""
    return getattr(record, "kind", ParamKind.NONE)


def paper_label(record: Record) -> str:
    """``record`` as papers write it: its ir_measures name (AP, nDCG@k), else the paper notation
    of its trec_eval name (gm_map: GMAP) or of a preference (rpp: RPP), else its plain header, else its name."""
    ir_name = getattr(record, "ir_name", None)
    if ir_name:       # the intent-aware measures as their papers write them (ERR-IA@k, AP-IA), not ir_measures
        return re.sub(r"_IA\b", "-IA", ir_name)
    plain = display.paper_name(record.name + "_1")      # a measure with cut-offs: RelP@k, RprecMult@k
    if plain.endswith("@1") and plain != record.name + "_1":
        return plain[:-1] + "k"
    plain = display.paper_name(record.name)
    if plain != record.name:
        return plain
    return display.COLUMN_LABELS.get(record.name, record.name)


def _names(record: Record, chosen: str) -> tuple[str, str]:
    """(shown first, shown greyed beside it) in the ``chosen`` naming; the second is empty when both
    spellings are the same."""
    paper, trec = paper_label(record), record.name
    first, second = (trec, paper) if chosen == display.TREC_EVAL else (paper, trec)
    return first, "" if second == first else second


OTHER_NAME_HEADER = {display.PAPER: "trec_eval", display.TREC_EVAL: "As in papers"}


def _default_params_text(measure: Measure) -> str:
    return "" if _kind(measure) == ParamKind.NONE else params_text(measure.defaults)


def spec_problem(spec: str) -> str | None:
    """Why the engine would refuse ``spec`` (a measure in either syntax), or None when it reads it."""
    from evalgui.core.errors import EvalUsageError
    from evalgui.core.ranked.specs import parse_measures

    try:
        parse_measures([spec])
    except EvalUsageError as exc:
        return str(exc).replace("run 'evalgui-cli measures' for the list", "see Help ▸ Measures reference")
    return None


def mark_invalid(box: QLineEdit, reason: str | None) -> None:
    """Mark a text box red with ``reason`` as its tooltip, or clear the mark (None)."""
    box.setProperty("invalid", reason is not None)
    box.setStyleSheet("QLineEdit { border: 1px solid #c62828; background: #fdecea; }" if reason else "")
    box.setToolTip(plain_tip(reason or ""))


class _ParametersDelegate(QStyledItemDelegate):
    """Edits a measure's parameters (column 1): checked as typed, and a value the engine would
    refuse is not kept (the previous one stays and the help pane says why)."""

    def __init__(self, picker: "MeasurePicker"):
        super().__init__(picker.tree)
        self.picker = picker

    def createEditor(self, parent, option, index):
        editor = super().createEditor(parent, option, index)
        name = index.siblingAtColumn(0).data(_NAME_ROLE)
        if isinstance(editor, QLineEdit) and name is not None:
            editor.setObjectName("parametersEditor")
            editor.textChanged.connect(lambda text: self.picker._check_parameters(editor, name, text))
        return editor

    def setModelData(self, editor, model, index):
        name = index.siblingAtColumn(0).data(_NAME_ROLE)
        if isinstance(editor, QLineEdit) and name is not None:
            problem = self.picker.parameters_problem(name, editor.text())
            if problem is not None:
                self.picker._refuse_parameters(name, editor.text(), index.data(), problem)
                return
        super().setModelData(editor, model, index)


def help_html(record: Record, chosen: str | None = None) -> str:
    """A record of any family as help: name, other spellings, description, formula, parameters, notes.
    ``chosen`` (a naming): the name in that naming first, the other spellings after it."""
    title, aliases = record.name, list(record.aliases)
    if chosen is not None:
        first, other = _names(record, chosen)
        if other:
            title = first
            aliases = [(where, name) for where, name in aliases if name != first and (where, name) != ("paper", other)]
            # the other name: trec_eval's for a ranked measure, the registered one (files, projects) for others
            machine = "trec_eval" if record.family == "ranked" else "registered"
            aliases.insert(0, (machine, other) if chosen == display.PAPER else ("in papers", other))
    aliases = ", ".join(f"{where}: {name}" for where, name in aliases)
    alias = f" &nbsp;<span style='color:gray'>({html.escape(aliases)})</span>" if aliases else ""
    params = "".join(f"<p><b>Parameters</b> ({html.escape(p.name)}): {html.escape(p.description)}; "
                     f"default: {html.escape(p.default or 'none')}</p>" for p in record.parameters)
    notes = "".join(f"<p><i>{html.escape(note)}</i></p>" for note in record.notes)
    return (f"<h3>{html.escape(title)}{alias}</h3><p>{html.escape(record.description)}</p>"
            f"<p><b>Formula</b><br><code>{html.escape(record.formula)}</code></p>{params}{notes}")


class MeasurePicker(QWidget):
    """Checkable measures of ``registry`` (the ranked family by default), under the registry's groups.

    Another family's picker subclasses it: the custom entries' group, hint and help, and
    :meth:`spec_problem` (what its engine refuses) say what that family's names look like."""

    changed = Signal()
    custom_family = CUSTOM_FAMILY
    custom_placeholder = "Add a measure, e.g. P(rel=2)@5, RBP(p=0.8), ndcg_cut.15"
    custom_about = "A measure you added, in ir_measures or trec_eval syntax."

    def __init__(self, parent=None, registry: Mapping[str, Record] = REGISTRY):
        super().__init__(parent)
        self.registry = registry
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search measures (name as in papers or in trec_eval, description)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("measureTree")
        self.tree.setHeaderLabels(["Measure", "Parameters", OTHER_NAME_HEADER[naming.current()]])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)     # columns fit (below)
        self.tree.viewport().installEventFilter(self)
        self.tree.header().setStretchLastSection(False)
        self.tree.currentItemChanged.connect(self._show_help)
        self.tree.itemChanged.connect(lambda *_: self.changed.emit())
        self.tree.setItemDelegateForColumn(1, _ParametersDelegate(self))
        self.help = QTextBrowser(self)
        self.help.setObjectName("measureHelp")
        self.help.setHtml("<p style='color:gray'>Select a measure to read what it means and how it is computed. "
                          "Tick it to evaluate it; double-click its parameters to change the cutoffs.</p>")
        self.help.setOpenExternalLinks(False)
        self.custom = QLineEdit(self)
        self.custom.setPlaceholderText(self.custom_placeholder)
        self.custom.returnPressed.connect(self._add_custom_from_box)
        self.custom.textEdited.connect(lambda _: mark_invalid(self.custom, None))
        add = QPushButton("Add", self)
        add.clicked.connect(self._add_custom_from_box)
        self._families: dict[str, QTreeWidgetItem] = {}     # group heading -> its tree item
        self._build()
        self.tree.setColumnWidth(0, NAME_WIDTH)
        # Columns no record of this family fills (parameters, ir_measures names) are left out.
        records = list(self.registry.values())
        self.tree.setColumnHidden(1, not any(getattr(r, "kind", None) in _EDITABLE_KINDS for r in records))
        self.tree.setColumnHidden(2, not any(paper_label(r) != r.name for r in records))
        naming.NAMING.changed.connect(self._rename)

        custom_row = QHBoxLayout()
        custom_row.addWidget(self.custom)
        custom_row.addWidget(add)
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.search)
        top_layout.addWidget(self.tree)
        top_layout.addLayout(custom_row)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(top)
        splitter.addWidget(self.help)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        # Room to read a measure's help (its name, a description of a few lines, the formula) without
        # scrolling it line by line; the form scrolls instead.
        self.help.setMinimumHeight(HELP_LINES * self.help.fontMetrics().lineSpacing()
                                   + 2 * self.help.frameWidth() + 8)
        self.tree.setMinimumHeight(TREE_ROWS * self.tree.fontMetrics().height() + 30)     # and the header
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # ------------------------------------------------------------ building
    def _group(self, title: str) -> QTreeWidgetItem:
        if title not in self._families:
            group = QTreeWidgetItem(self.tree, [title])
            group.setFirstColumnSpanned(True)          # a heading is read whole, not cut at the first column
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setExpanded(True)
            self._families[title] = group
        return self._families[title]

    def eventFilter(self, watched, event) -> bool:
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """The names and their other spellings (greyed) at their natural widths when the tree is wide enough;
        in a laptop's narrow form narrower, the other spellings first (their texts elided), rather than
        scrolled sideways."""
        header = self.tree.header()
        width = self.tree.viewport().width() - (0 if header.isSectionHidden(1) else PARAMETERS_MIN_WIDTH)
        papers = 0 if header.isSectionHidden(2) else self.tree.sizeHintForColumn(2) + 8
        name = NAME_WIDTH
        if papers and name + papers > width > 0:          # the other spellings give way first
            papers = max(COLUMN_MIN_WIDTH, width - name)
        if name + papers > width > 0:
            name = max(COLUMN_MIN_WIDTH, width - papers)
        self.tree.setColumnWidth(0, name)
        if papers:
            self.tree.setColumnWidth(2, papers)

    def _build(self) -> None:
        self.tree.blockSignals(True)
        for measure in self.registry.values():
            if measure.value_type == "text":     # runid, relstring: text, not numbers to compare
                continue
            item = QTreeWidgetItem(self._group(measure.group), ["", "", ""])
            item.setData(0, _NAME_ROLE, measure.name)
            item.setForeground(2, QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText)))
            self._name_item(item, measure, naming.current())
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable
            if _kind(measure) in _EDITABLE_KINDS:
                flags |= Qt.ItemFlag.ItemIsEditable
                item.setText(1, _default_params_text(measure))
            item.setFlags(flags)
            item.setCheckState(0, Qt.CheckState.Unchecked)
            item.setToolTip(0, measure.help_text)
            if _kind(measure) in _EDITABLE_KINDS:
                item.setToolTip(1, "Double-click to edit, e.g. 5,10,20 (empty: trec_eval's defaults)")
        self.tree.blockSignals(False)
        self.set_checked({name: cutoffs for name, cutoffs in DEFAULT_CHECKED.items() if name in self.registry})

    def _name_item(self, item: QTreeWidgetItem, record: Record, chosen: str) -> None:
        first, second = _names(record, chosen)
        item.setText(0, first)
        item.setText(2, second)

    def _rename(self, chosen: str) -> None:
        """View ▸ Measure names changed: every measure listed in the new naming first."""
        self.tree.blockSignals(True)
        self.tree.headerItem().setText(2, OTHER_NAME_HEADER.get(chosen, ""))
        for item in self._items():
            name = item.data(0, _NAME_ROLE)
            if name is not None:
                self._name_item(item, self.registry[name], chosen)
        self.tree.blockSignals(False)
        self._fit_columns()
        self._filter(self.search.text())
        self._show_help(self.tree.currentItem())

    def item_for(self, name: str) -> QTreeWidgetItem | None:
        """The list's item of registry measure ``name`` (its machine name, whatever is shown)."""
        return next((i for i in self._items() if i.data(0, _NAME_ROLE) == name), None)

    def _items(self):
        it = QTreeWidgetItemIterator(self.tree)
        while it.value():
            item = it.value()
            if item.parent() is not None:
                yield item
            it += 1

    # ------------------------------------------------------------ state
    def specs(self) -> list[str]:
        """The checked measures as specs the engine parses."""
        out = []
        for item in self._items():
            if item.checkState(0) != Qt.CheckState.Checked:
                continue
            name = item.data(0, _NAME_ROLE)
            if name is None:                    # a custom spec
                out.append(_spec(item))
                continue
            params = item.text(1).strip().replace(" ", "")
            measure = self.registry[name]
            out.append(f"{name}.{params}" if params and params != _default_params_text(measure) else name)
        return out

    def checked(self) -> dict[str, str]:
        return {item.data(0, _NAME_ROLE): item.text(1) for item in self._items()
                if item.data(0, _NAME_ROLE) is not None and item.checkState(0) == Qt.CheckState.Checked}

    def custom_specs(self) -> list[tuple[str, bool]]:
        return [(_spec(item), item.checkState(0) == Qt.CheckState.Checked) for item in self._items()
                if item.data(0, _NAME_ROLE) is None]

    def set_checked(self, checked: dict[str, str]) -> None:
        self.tree.blockSignals(True)
        for item in self._items():
            name = item.data(0, _NAME_ROLE)
            if name is None:
                continue
            measure = self.registry[name]
            on = name in checked and measure.value_type != "text"
            item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            if _kind(measure) in _EDITABLE_KINDS:
                item.setText(1, checked[name] if on and checked[name] else _default_params_text(measure))
        self.tree.blockSignals(False)
        self.changed.emit()

    def add_custom(self, spec: str, checked: bool = True) -> None:
        spec = spec.strip()
        if not spec:
            return
        group = self._group(self.custom_family)
        for i in range(group.childCount()):
            if _spec(group.child(i)) == spec:
                group.child(i).setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                return
        shown = display.paper_name(spec)              # P@2000_per reads P@2000 ‰
        item = QTreeWidgetItem(group, [shown, "", spec if shown != spec else ""])
        item.setData(0, _SPEC_ROLE, spec)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.changed.emit()

    def _add_custom_from_box(self) -> None:
        spec = self.custom.text().strip()
        if not spec:
            return
        problem = self.spec_problem(spec)        # reject typos now, not at Run time
        mark_invalid(self.custom, problem)
        if problem is not None:
            self._show_problem("Not a measure:", problem)
            return
        self.add_custom(spec)
        self.custom.clear()
        self.help.setHtml(f"<p>Added <b>{html.escape(spec)}</b> under “{html.escape(self.custom_family)}”.</p>")

    def _show_problem(self, title: str, reason: str, after: str = "") -> None:
        self.help.setHtml(f"<p style='color:#b00020'><b>{html.escape(title)}</b> {html.escape(reason)}</p>{after}")

    # ------------------------------------------------------------ checking parameters
    def spec_problem(self, spec: str) -> str | None:
        """Why the engine would refuse ``spec``, or None when it reads it."""
        return spec_problem(spec)

    def parameters_problem(self, name: str, text: str) -> str | None:
        """Why ``text`` is not a parameter list for measure ``name`` (None: fine; empty: the defaults)."""
        params = text.strip().replace(" ", "")
        spec = f"{name}.{params}"
        problem = self.spec_problem(spec) if params else None
        return problem.removeprefix(f"'{spec}': ") if problem else None

    def _check_parameters(self, editor: QLineEdit, name: str, text: str) -> None:
        problem = self.parameters_problem(name, text)
        mark_invalid(editor, problem)
        if problem is not None:
            self._show_problem(f"{text.strip()!r} is not valid for {name}:", problem,
                               "<p>Correct it, or press Esc to keep the previous parameters.</p>")
        else:
            self._show_help(self.tree.currentItem())

    def _refuse_parameters(self, name: str, text: str, kept: str, problem: str) -> None:
        self._show_problem(f"Not changed: {text.strip()!r} is not valid for {name}:", problem,
                           f"<p>{html.escape(name)} keeps {html.escape(repr(kept or ''))}.</p>")

    def specs_problem(self) -> str | None:
        """Why the engine would refuse a ticked measure (the measure named), or None when it reads them all."""
        for spec in self.specs():
            problem = self.spec_problem(spec)
            if problem is not None:
                return f"The measure {spec} cannot be evaluated: {problem.removeprefix(repr(spec) + ': ')}"
        return None

    def state(self) -> dict:
        return {"checked": self.checked(), "custom": [[s, on] for s, on in self.custom_specs()]}

    def restore(self, state: dict) -> None:
        """The measures ticked, and those added, as ``state`` lists them (an added one it does not list goes)."""
        checked = state.get("checked")
        if isinstance(checked, dict):
            self.set_checked({k: str(v) for k, v in checked.items() if k in self.registry})
        entries = [entry for entry in state.get("custom", []) if isinstance(entry, (list, tuple)) and entry]
        if "custom" in state and self.custom_family in self._families:
            listed = {str(entry[0]).strip() for entry in entries}
            group = self._families[self.custom_family]
            for i in reversed(range(group.childCount())):
                if _spec(group.child(i)) not in listed:         # (its text is the papers' name, not the spec)
                    group.removeChild(group.child(i))
        for entry in entries:
            self.add_custom(str(entry[0]), bool(entry[1]) if len(entry) > 1 else True)

    # ------------------------------------------------------------ view
    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        # A measure at a cutoff finds its family: P@10 -> P@k, ndcg_cut_10 -> ndcg_cut.
        needles = {needle, re.sub(r"@[\d.]+$", "@k", needle), re.sub(r"(?<=[a-z])_[\d.]+$", "", needle)} - {""}
        for group in self._families.values():
            visible = 0
            for i in range(group.childCount()):
                item = group.child(i)
                name = item.data(0, _NAME_ROLE)
                haystack = item.text(0) + " " + item.text(2)
                if name is not None:
                    record = self.registry[name]
                    haystack += " ".join(("", record.name, paper_label(record), record.description))
                show = not needle or any(n in haystack.lower() for n in needles)
                item.setHidden(not show)
                visible += show
            group.setHidden(visible == 0)
        # The help never describes a measure the filter hides: the first match takes its place.
        current = self.tree.currentItem()
        if current is not None and (current.isHidden() or (current.parent() or current).isHidden()):
            first = next((i for i in self._items() if not i.isHidden() and not i.parent().isHidden()), None)
            self.tree.setCurrentItem(first)
            if first is None:
                self.help.setHtml(f"<p style='color:gray'>No measure matches “{html.escape(text.strip())}”. "
                                  "Type it in the box below to add it.</p>")

    def _show_help(self, item, _previous=None) -> None:
        if item is None:
            return
        name = item.data(0, _NAME_ROLE)
        if name is not None:
            self.help.setHtml(help_html(self.registry[name], naming.current()))
        elif item.parent() is not None:
            self.help.setHtml(self.custom_help(_spec(item)))

    def custom_help(self, spec: str) -> str:
        """The help pane's text for a measure the user added."""
        return f"<h3>{html.escape(spec)}</h3><p>{html.escape(self.custom_about)}</p>"
