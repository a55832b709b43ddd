"""Every workspace, run on the sample data, shows no programmer's word: no snake_case or camelCase
identifier, no command-line flag, no Python value (True, nan, 2.9e-05), no setting's machine value (holm,
shared), no measure under its trec_eval name (map), in any label, button, check box, combo item, tab title,
table header or cell, tooltip, caption, note or dialog; nor do Help's pages, the report (every section and its
provenance) and the window's exports (their default file names, headers and cells)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QFileDialog

from tests.gui.conftest import SAMPLE_DATA, load, load_synthetic, open_demo_and_wait, run_and_wait

CBR = SAMPLE_DATA / "cbr"
RANKS = SAMPLE_DATA / "rankfile" / "citations.tsv"

IDENTIFIER = re.compile(
    r"(?<![\w.@/\\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w.@(/\\])"      # snake_case
    r"|(?<![\w.@/\\-])[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w.@(/\\])"   # P_10, AP_interpolated
    r"|(?<![\w.@/\\-])[a-z]+[a-z0-9]*[A-Z][A-Za-z0-9]*(?![\w.@/\\])"  # camelCase
    r"|(?<![\w-])--[a-z][\w-]*"                                          # --flag
    r"|\(-[A-Za-z]\)")                                                   # (-x)
# Words of the command line's language that are not identifiers but still not words; Python's values; a number
# in e-notation that a plain decimal writes (above 1e-12); measures under trec_eval's one-word names.
# (True in "True similarity" is a word; False in "normalize=False" a measure's syntax, as min_rel is.)
BANNED_WORDS = re.compile(r"\b(?:ks|Sep\.)(?!\w)|(?<!=)\b(?:True|False)\b(?! [a-z])|\b(?:nan|inf|NaN)\b"
                          r"|\b\d(?:\.\d+)?e-(?:0?\d|1[01])\b|(?<![\w.@/\\-])(?:map|yaap|recip_rank|num_q)(?![\w.@(/\\])")


def _setting_codes() -> re.Pattern:
    """A test's, a correction's or a query set's machine value (holm, randomization, shared) where the window
    names the setting: a whole cell, in brackets, or after "test" or "correction"."""
    from evalgui.core.stats.catalogue import CORRECTION_LABELS, TEST_LABELS
    from evalgui.core.stats.compare import SHARED, WITH_RELEVANT, ZERO_FILLED

    query_sets = {code: "" for code in (SHARED, ZERO_FILLED, WITH_RELEVANT)}    # the compared queries' machine values

    def alternatives(*tables):
        return "|".join(sorted((re.escape(c) for labels in tables for c, shown in labels.items()
                                if c != shown and c.lower() != "none"), key=len, reverse=True))

    codes, tests, corrections = (alternatives(TEST_LABELS, CORRECTION_LABELS, query_sets),
                                 alternatives(TEST_LABELS), alternatives(CORRECTION_LABELS))
    return re.compile(rf"^(?:{codes})$|\((?:{corrections})\)|\b[Tt]est:? (?:{tests})\b"
                      rf"|\b[Cc]orrection:? (?:{corrections})\b")


SETTING_CODES = _setting_codes()


def _registered_names() -> re.Pattern:
    """The preference measures' registered names that papers write otherwise (rpp, not RPP; lexiprecision, not
    Lexiprecision): plain lower-case words, so the identifier pattern cannot tell them from prose."""
    from evalgui.core.ranked.preference import REGISTRY

    names = sorted((n for n, r in REGISTRY.items() if getattr(r, "paper_name", None) != n and "_" not in n), key=len,
                   reverse=True)
    return re.compile(r"(?<![\w.@/\\-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w.@(/\\])")


REGISTERED_NAMES = _registered_names()
# Legitimate tokens that look like identifiers: file names (the sample data) and the names
# people write for measures.
ALLOWED = {"make_ranks", "mac_model", "procake_evaluated", "procake_ground_truth", "information_systems",
           "pyqtgraph", "trec_eval",
           # the reference tools, named in the measures' help
           "ir_measures", "cwl_eval", "pytrec_eval",
           # measures as papers write them (camel-cased by their authors)
           "nDCG", "nERR", "nNRBP", "infAP", "binG",
           # the arguments written in a measure's name, e.g. SDCG(max_rel=3)@10
           "min_rel", "max_rel"}
# Parts of a tooltip that are meant for machines or mathematicians, not read as prose: a measure's
# formula (subscripts such as d_k, mean_q) and the column's name in exported files (which exports keep).
NOT_PROSE = re.compile(r"^(?:Formula\b.*|Column in exported files: .*|Name in evalgui-cli's files and in projects: .*)$",
                       re.MULTILINE)
# (widget's object name, word) pairs tolerated while a form is being rebuilt from the workflow layer's
# declarations (the meta-evaluation form's migration): remove them when it lands.
TOLERATED: set[tuple[str, str]] = set()      # (object name, word) a migration still under way may show
# Widgets whose text is a file's content or a path the user chose (not the window's own words).
SKIP_OBJECTS = {"filePath"}


def offending_words(text: str) -> list[str]:
    """The identifier-like words and flags in ``text`` (file names and ALLOWED words excepted)."""
    text = NOT_PROSE.sub("", text)
    words = [m.group(0) for m in IDENTIFIER.finditer(text)] + [m.group(0) for m in BANNED_WORDS.finditer(text)] \
        + [m.group(0) for m in REGISTERED_NAMES.finditer(text)] \
        + [m.group(0) for line in text.splitlines() for m in SETTING_CODES.finditer(line.strip())]
    return [w for w in words if w not in ALLOWED and not re.search(r"\.\w{2,4}$", w)]


def test_the_pattern_catches_identifiers_and_flags_and_spares_words():
    assert offending_words("ci_low and mean_preference, systemCount") == ["ci_low", "mean_preference",
                                                                          "systemCount"]
    assert offending_words("Use --compat dunaiski2018 (-c)") == ["--compat", "(-c)"]
    assert offending_words("ks test; Sep. rate") == ["ks", "Sep."]
    assert offending_words("nDCG@10, P(rel=2)@5, AP, 95 % CI (low), non-parametric – a note") == []
    assert offending_words("read cars.csv and mac_model.json") == []
    # a formula and the exported column's name are not prose; the rest of the tooltip is
    assert offending_words("Mean of the first.\n\nFormula: AP = mean_q sum_i d_i\n\nColumn in exported files: "
                           "ci_low") == []
    assert offending_words("Use ci_low here\nFormula: x_i") == ["ci_low"]
    # a preference measure under its registered name, not the name papers write
    assert offending_words("Preference matrix: rpp; lexiprecision over dcgrpp") == ["rpp", "lexiprecision", "dcgrpp"]
    assert offending_words("RPP, DCGPP, INVPP, Lexirecall, Lexiprecision, ST-RPP(rel); read prefs.rpp") == []
    # Python's values, e-notation, a setting's machine value, trec_eval's names of measures
    assert offending_words("True") == ["True"] and offending_words("0.005: inf") == ["inf"]
    assert offending_words("2.97951978425911e-05") == ["2.97951978425911e-05"]
    assert offending_words("1.1e-39") == []                        # too small to write without it
    assert offending_words("holm") == ["holm"] and offending_words("shared") == ["shared"]
    assert offending_words("Test t, correction holm") == ["Test t", "correction holm"]
    assert offending_words("adjusted p = 0.01 (holm): significant") == ["(holm)"]
    assert offending_words("A randomization test, shared by two") == []
    assert offending_words("map: 45 of 46 queries; P_10, set_relative_P, 11pt_avg, AP_interpolated") == \
        ["P_10", "set_relative_P", "11pt_avg", "AP_interpolated", "map"]
    assert offending_words("Test: Paired t-test; correction: Holm. AP: 45 of 46 queries, P@10, 11-point AP") == []


def hover_texts(widget, name: str) -> list[tuple[str, str]]:
    """What a user reads on hovering or with a screen reader: the widget's tooltip, status tip,
    accessible description and placeholder; its items' and headers' tooltips."""
    from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QPlainTextEdit, QTabWidget, QTextEdit,
                                   QTreeWidget)

    tip = Qt.ItemDataRole.ToolTipRole
    texts = [(name + " tooltip", widget.toolTip()), (name + " status tip", widget.statusTip()),
             (name + " accessible description", widget.accessibleDescription())]
    if isinstance(widget, (QTextEdit, QPlainTextEdit, QComboBox)):
        texts.append((name + " placeholder", widget.placeholderText()))
    if isinstance(widget, QComboBox):
        texts += [(name + " item tooltip", str(widget.itemData(i, tip) or "")) for i in range(widget.count())]
    if isinstance(widget, QTabWidget):
        texts += [(name + " tab tooltip", widget.tabToolTip(i)) for i in range(widget.count())]
    if isinstance(widget, QTreeWidget):
        header = widget.headerItem()
        texts += [(name + " header tooltip", header.toolTip(c)) for c in range(widget.columnCount())]
        items = [widget.topLevelItem(i) for i in range(widget.topLevelItemCount())]
        items += [top.child(i) for top in items for i in range(top.childCount())]
        texts += [(name + " item tooltip", item.toolTip(c))
                  for item in items[:200] for c in range(widget.columnCount())]
    elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
        model = widget.model()
        rows = model.rowCount(QModelIndex())
        try:
            columns = model.columnCount(QModelIndex())
        except TypeError:           # a list model: one column
            columns = 1
        texts += [(name + " header tooltip", str(model.headerData(c, Qt.Orientation.Horizontal, tip) or ""))
                  for c in range(columns)]
        texts += [(name + " cell tooltip", str(model.index(r, c).data(tip) or ""))
                  for r in range(min(rows, 50)) for c in range(min(columns, 50))]
    return texts


def visible_texts(root) -> list[tuple[str, str]]:
    """(where, text) for every text a user can see under ``root``: widgets, combo items, tab titles,
    table headers (both directions), plot axis labels and legends; tooltips, status tips, placeholders
    and accessible descriptions (:func:`hover_texts`)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit, QListView,
                                   QListWidget, QTableView, QTabWidget, QTreeWidget)

    texts = []
    for widget in [root, *root.findChildren(QWidget_())]:
        if widget.objectName() in SKIP_OBJECTS:
            continue
        name = f"{type(widget).__name__}({widget.objectName()})"
        texts += hover_texts(widget, name)
        if isinstance(widget, (QLabel, QAbstractButton)):
            texts.append((name, re.sub(r"<[^>]+>", " ", widget.text())))
        if isinstance(widget, QGroupBox):
            texts.append((name, widget.title()))
        if isinstance(widget, QLineEdit):
            texts.append((name + " placeholder", widget.placeholderText()))
        if isinstance(widget, QComboBox):
            texts += [(name + " item", widget.itemText(i)) for i in range(widget.count())]
        if isinstance(widget, QTabWidget):
            texts += [(name + " tab", widget.tabText(i)) for i in range(widget.count())]
        if isinstance(widget, QListWidget):
            texts += [(name + " item", widget.item(i).text()) for i in range(widget.count())]
        elif isinstance(widget, QListView) and widget.model() is not None:      # a checklist's rows
            model = widget.model()
            texts += [(name + " item", str(model.index(r, 0).data() or "")) for r in range(min(model.rowCount(), 50))]
        if widget.isWindow():
            texts.append((name + " window title", widget.windowTitle()))
        if isinstance(widget, QTableView) and widget.model() is not None:
            model = widget.model()
            texts += [(name + " header", str(model.headerData(c, Qt.Orientation.Horizontal) or ""))
                      for c in range(model.columnCount())]
            if widget.verticalHeader().isVisibleTo(widget):
                texts += [(name + " row header", str(model.headerData(r, Qt.Orientation.Vertical) or ""))
                          for r in range(min(model.rowCount(), 50))]
            # The words in the cells (measure names, labels), not the numbers.
            texts += [(name + " cell", str(model.index(r, c).data() or ""))
                      for r in range(min(model.rowCount(), 50)) for c in range(model.columnCount())]
        if isinstance(widget, QTreeWidget):
            header = widget.headerItem()
            texts += [(name + " header", header.text(c)) for c in range(widget.columnCount())]
            texts += [(name + " group", widget.topLevelItem(i).text(0)) for i in range(widget.topLevelItemCount())]
            # every item, in every column but the one that gives trec_eval's names on purpose
            from PySide6.QtWidgets import QTreeWidgetItemIterator

            shown = [c for c in range(widget.columnCount()) if header.text(c) not in ("trec_eval", "As in papers")]
            items = QTreeWidgetItemIterator(widget)
            while items.value():
                texts += [(name + " item", items.value().text(c)) for c in shown]
                items += 1
        if isinstance(widget, pg.PlotWidget):
            item = widget.getPlotItem()
            for side in ("left", "bottom"):
                texts.append((name + f" {side} axis", item.getAxis(side).labelText))
            if item.legend is not None:
                texts += [(name + " legend", label.text) for _sample, label in item.legend.items]
    return [(where, text, where[where.index("(") + 1:where.index(")")]) for where, text in texts if text]


def QWidget_():
    from PySide6.QtWidgets import QWidget

    return QWidget


def show_every_tab(qtbot, workspace) -> None:
    """Make every tab current once, so the views that draw only in sight are drawn."""
    from PySide6.QtWidgets import QTabWidget

    for tabs in workspace.findChildren(QTabWidget):
        for i in range(tabs.count()):
            tabs.setCurrentIndex(i)
            qtbot.wait(1)


def offences(root) -> list[str]:
    return sorted({f"{where}: {word!r} in {text!r}" for where, text, name in visible_texts(root)
                   for word in offending_words(text) if (name, word) not in TOLERATED} | set(shared_headers(root)))


def shared_headers(root) -> list[str]:
    """Tables with two columns under one header (Compare's two "Queries"): which is which cannot be told."""
    from PySide6.QtWidgets import QTableView

    found = []
    for table in [root, *root.findChildren(QTableView)]:
        if isinstance(table, QTableView) and table.model() is not None:
            model = table.model()
            heads = [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(model.columnCount())]
            found += [f"{type(table).__name__}({table.objectName()}): two columns headed {h!r}"
                      for h in sorted({h for h in heads if h and heads.count(h) > 1})]
    return found


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def run_every_workspace(qtbot, window, monkeypatch):
    """Each workspace, run once on the sample data with its defaults."""
    ranked = open_demo_and_wait(qtbot, window)
    yield ranked
    load_synthetic(qtbot, window)
    for key in ("compare", "metaeval", "power", "robustness", "agreement"):
        workspace = window.workspaces.get(key, window.workspaces["metaeval"])
        window.tabs.setCurrentWidget(workspace)
        if key not in window.workspaces:    # the meta-evaluation's other experiments, each with its own tables
            _choose(workspace.form.experiment_combo, key)
        elif key == "compare":            # the preferences too (plain qrels: not ST-RPP, which would be RPP again)
            from evalgui.core.ranked.preference import REGISTRY

            for name, record in REGISTRY.items():
                workspace.form.preference_list.set_checked(name, not record.subtopics)
        else:                           # two preferences beside the ranked measures
            picker = workspace.form.picker
            picker.set_checked({**picker.checked(), "rpp": "", "lexiprecision": ""})
        run_and_wait(qtbot, workspace)
        assert workspace.has_results(), workspace.progress_label.text()
        if key == "metaeval":
            assert {"rpp", "lexiprecision"} <= set(workspace.outcome.request.measures)
        yield workspace
    load(qtbot, window, [RANKS])
    stability = window.workspaces["stability"]
    window.tabs.setCurrentWidget(stability)
    _choose(stability.form.rank_file_combo, str(RANKS))
    run_and_wait(qtbot, stability, timeout=120_000)
    assert stability.has_results(), stability.progress_label.text()
    yield stability
    load(qtbot, window, [CBR / "cars.csv", CBR / "queries.csv"])
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    form = casebase.form
    _choose(form.train_combo, str(CBR / "cars.csv"))
    _choose(form.test_combo, str(CBR / "queries.csv"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(CBR / "model.json"), "")))
    qtbot.mouseClick(form.editor.load_button, Qt.MouseButton.LeftButton)
    run_and_wait(qtbot, casebase)
    assert casebase.has_results(), casebase.progress_label.text()
    yield casebase


def preference_offences(qtbot, compare) -> list[str]:
    """The Preferences tab drawn for each preference measure: the heatmap, its caption, its cells' tooltips,
    the tables, the exported plot's title; and a cell's pair, query by query."""
    view = compare.preference_view
    assert view.comparison is not None and view.measure.count() >= 5, "no preferences were computed"
    compare.results_tabs.setCurrentWidget(view.page)
    found = []
    for index in range(view.measure.count()):
        view.measure.setCurrentIndex(index)
        for value in range(view.value.count()):
            view.value.setCurrentIndex(value)
            qtbot.wait(1)
            found += [f"export title: {word!r} in {line!r}" for line in view.export_title()
                      for word in offending_words(line)]
            found += offences(view.page)
        runs = view.runs()
        view.show_pair(view.measure.currentData(), runs[0], runs[1])
        found += offences(view.pair_view)
    return found


def test_no_workspace_shows_a_programmers_word(qtbot, window, monkeypatch):
    window.resize(1366, 768)
    found = []
    for workspace in run_every_workspace(qtbot, window, monkeypatch):
        show_every_tab(qtbot, workspace)
        found += [f"{workspace.key}: {o}" for o in offences(workspace)]
        if workspace.key == "compare":
            found += [f"compare preferences: {o}" for o in preference_offences(qtbot, workspace)]
    found += [f"window: {o}" for o in offences(window.data_dock)]
    menus = [action for menu in window.menuBar().actions() for action in [menu, *menu.menu().actions()]]
    found += [f"menu: {a.text()!r}" for a in menus if offending_words(a.text().replace("&", ""))]
    found += [f"menu {a.text()!r} tip: {text!r}" for a in menus for text in (a.toolTip(), a.statusTip())
              if text != a.text().replace("&", "") and offending_words(text)]
    assert not found, "\n".join(found)


def _page_text(html_text: str) -> str:
    """What a reader of an HTML page reads: its text, tags and scripts removed, one line per block."""
    import html as html_module

    text = re.sub(r"<(script|style)\b.*?</\1>", " ", html_text, flags=re.S)
    text = re.sub(r"<(?:br|/p|/li|/tr|/dd|/dt|/h\d|/figcaption|/summary|/text)\b[^>]*>", "\n", text)
    text = re.sub(r"<(?:td|th)\b[^>]*>", " | ", text)
    return html_module.unescape(re.sub(r"<[^>]+>", " ", text))


# The header a similarity file must have, which Help spells out for the user to write.
FILE_COLUMNS = {"query_id", "case_id"}


def test_help_pages_speak_plain_words():
    """Help's pages name no command, flag or machine name: the window's words (a check box's label, NumQ)."""
    from evalgui.core.resources import resource

    found = []
    for page in sorted(resource("help").glob("*.html")):
        for line in _page_text(page.read_text(encoding="utf-8")).splitlines():
            words = offending_words(line) + re.findall(r"evalgui-cli|(?<![\w-])-[a-z]\b", line)
            found += [f"{page.name}: {w!r} in {line.strip()!r}" for w in words if w not in FILE_COLUMNS]
    assert not found, "\n".join(found)


def test_the_report_speaks_plain_words_and_tells_how_each_result_was_made(qtbot, tmp_path):
    """Every section of the demo's report, with its plots and its provenance: no programmer's word; each
    parameter in its form's words; every input with its size and content hash; the version."""
    from evalgui.core.resources import sample_data
    from evalgui.core.workflows.project import open_project
    from evalgui.core.workflows.report import Plot, Section, build_report
    from evalgui.gui.outcome_plots import svg_plots

    project = open_project(str(sample_data() / "demo.evalgui"))
    sections = [Section(key, outcome, [Plot(*p) for p in svg_plots(key, outcome)])
                for key, outcome in project.outcomes.items()]
    page = build_report(sections, "Demo", "evalgui-cli report demo.evalgui -o demo.html", project.path)
    body = page[page.index("<main>"):page.index("</main>")]           # the footer's command is meant to be typed
    found = []
    guides = {}
    for section in re.findall(r'<section id="(\w+)">(.*?)</section>', body, re.S):
        key, text = section
        lines = _page_text(text).splitlines()
        found += [f"{key}: {w!r} in {line.strip()!r}" for line in lines for w in offending_words(line)
                  if not line.strip().startswith(("/", "sha256:"))]
        guide = re.search(r'<p class="guide">(.*?)</p>', text, re.S)
        guides[key] = guide.group(1) if guide else ""
        provenance = text[text.index('<details class="provenance">'):]
        assert "evalgui ?" not in provenance and re.search(r"evalgui \d", provenance), key
        # the parameters: no Python value or repr, whatever their type
        assert not re.search(r"\b(?:True|False)\b|\{'|\[\{", _page_text(provenance)), key
        # every input the request names, with its size and hash
        outcome = project.outcomes[key]
        for path in outcome.request.files():
            row = re.search(re.escape(path.replace("&", "&amp;")) + r'</td><td class="num">([\d,]+)</td><td><code>'
                            r'(sha256:[0-9a-f]{64})', provenance)
            assert row, f"{key}: {path} is not listed with its size and hash"
    assert not found, "\n".join(found)
    assert guides["preference"] and guides["preference"] != guides["compare"]    # not the tests' introduction again


def test_dialogs_name_no_programmers_word(tmp_path):
    """What a bad file's dialog says (the message of the error it raises)."""
    from evalgui.core.errors import EvalInputError
    from evalgui.core.formats.trec import read_trec_qrels as read_qrels, read_trec_run as read_run

    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"q1 0 d1 1\n\x00\x01\x02\n")
    run_like = tmp_path / "run_like.txt"
    run_like.write_text("q1 Q0 d1 1 2.5 bm25\n")
    qrels_like = tmp_path / "qrels_like.txt"
    qrels_like.write_text("q1 0 d1 1\n")
    messages = []
    for reader, path in ((read_qrels, binary), (read_qrels, run_like), (read_run, qrels_like)):
        with pytest.raises(EvalInputError) as caught:
            reader(str(path))
        messages.append(str(caught.value))
    found = [f"{w!r} in {m!r}" for m in messages for w in offending_words(m.replace(str(tmp_path), ""))
             + re.findall(r"\bNUL\b|\biter\b", m)]
    assert not found, "\n".join(found)


def test_the_windows_exports_say_what_it_shows(qtbot, window, tmp_path, monkeypatch):
    """Compare's table and matrix exported from the window: default file names in words, the headers it
    shows, yes/no, a test's and a correction's names, numbers at full precision without e-notation."""
    import pandas as pd

    load_synthetic(qtbot, window)
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    run_and_wait(qtbot, compare)
    offered = []

    def save_as(path):
        def answer(parent, title, start, *rest, **kwargs):
            offered.append(start)
            return str(path), ""
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer))

    csv_path = tmp_path / "table.csv"
    save_as(csv_path)
    compare.table.view.export_dialog()
    save_as(tmp_path / "matrix.png")
    compare.matrix.export_plot_dialog()
    names = [re.sub(r"\.\w+$", "", p.rsplit("/", 1)[-1]) for p in offered]
    assert len(names) == 2 and not [n for n in names if "_" in n or offending_words(n)], names
    text = csv_path.read_text()
    back = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    model = compare.table.model
    assert list(back.columns) == [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert set(back["Significant"]) <= {"yes", "no"} and set(back["Correction"]) == {"Holm"}
    assert set(back["Test"]) == {"Paired t-test"} and set(back["Query set"]) == {"Shared"}
    assert not re.search(r"\d(?:\.\d+)?e-(?:0?\d|1[01])\b", text) and not offending_words(text.replace(",", " "))
    # full precision: the numbers read back exactly
    frame = compare.table.model.frame
    assert [float(v) for v in back["p (adjusted)"]] == frame["p_adjusted"].tolist()
