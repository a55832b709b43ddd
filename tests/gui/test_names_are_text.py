"""Names from the data are text everywhere: run names, query ids and doc ids full of markup are shown literally
by the window's views, written literally by every export, and never become elements in an SVG or the report
(issue 32: a run file named <img src=SECRET_probe.png ...>.run put that local image into the shared page)."""

from __future__ import annotations

import csv
import html
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QAbstractItemView, QGraphicsTextItem, QLabel, QWidget

import pyqtgraph as pg

from tests.gui.conftest import load, run_and_wait
from tests.test_cli import run_cli

PROBE = "SECRET_probe.png"
IMAGE_RUN = f"<img src={PROBE} width=60 height=60>"
BOLD_RUN = "<b>R&amp;1"
QUOTE_RUN = "\"quote'"
RUNS = (IMAGE_RUN, BOLD_RUN, QUOTE_RUN, "plain")
FORMULA_QUERY = '=HYPERLINK("http://evil.example/x","y")'
QUERIES = ("<b>q1</b>", FORMULA_QUERY, "q&amp;3", "\"quote'4", "[x](javascript:alert(1))")
DOCS = tuple(f"d{i}" for i in range(12)) + ("<img/src=doc.png>", "@SUM(1)", "*star*", "-2")


def write_collection(folder, runs=RUNS, queries=QUERIES, docs=DOCS) -> None:
    """A qrels file and one run per name (the same numbers whatever the names: the generator is seeded)."""
    folder.mkdir(exist_ok=True)
    rng = np.random.default_rng(5)
    with open(folder / "qrels.txt", "w", encoding="utf-8") as fh:
        for q in queries:
            fh.writelines(f"{q} 0 {d} {int(rng.integers(0, 3))}\n" for d in docs)
    for name in runs:
        with open(folder / f"{name}.run", "w", encoding="utf-8") as fh:
            for q in queries:
                fh.writelines(f"{q} Q0 {d} {r + 1} {100 - r} tag\n" for r, d in enumerate(rng.permutation(docs)))


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """Runs whose names, query ids and doc ids are markup, in a folder that also holds the probe image (the
    working folder: where a rendered <img src=...> would load it from)."""
    from PySide6.QtGui import QColor, QImage

    write_collection(tmp_path)
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(tmp_path / PROBE))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shown(text: str) -> str:
    """What a label or tooltip with this text shows: Qt reads it as rich text when it looks like markup."""
    if not text or not GuiQt.mightBeRichText(text):
        return text or ""
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()


def text_items(widget: pg.GraphicsView) -> list[QGraphicsTextItem]:
    return [i for i in widget.scene().items() if isinstance(i, QGraphicsTextItem)]


def assert_no_element(item: QGraphicsTextItem) -> None:
    """A drawn text holds no image, link or bold run from a name (the literal characters instead)."""
    rendered = item.document().toHtml()
    assert "<img" not in rendered and "<a " not in rendered, rendered
    assert "\ufffc" not in item.toPlainText()          # an inline object: an image


def assert_nothing_read_as_markup(window) -> None:
    """Every plot's texts, and every label's text and widget's tooltip that Qt would read as rich text, in the
    whole window: no image and no inline object from a name."""
    for view in window.findChildren(pg.GraphicsView):
        for item in text_items(view):
            assert_no_element(item)
    for widget in window.findChildren(QWidget):
        texts = [widget.toolTip()]
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText:
            texts.append(widget.text())
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:       # tables' tooltips
            model, tip, root = widget.model(), Qt.ItemDataRole.ToolTipRole, QModelIndex()
            columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(root)
            texts += [model.headerData(c, Qt.Orientation.Horizontal, tip) for c in range(columns)]
            texts += [model.data(model.index(r, c, root), tip) for r in range(min(model.rowCount(root), 40))
                      for c in range(columns)]
        for text in texts:
            if isinstance(text, str) and text and GuiQt.mightBeRichText(text):
                document = QTextDocument()
                document.setHtml(text)
                assert "<img" not in document.toHtml() and "\ufffc" not in document.toPlainText(), text


def elements(svg: str) -> set[str]:
    return {element.tag.split("}")[-1] for element in ET.fromstring(svg).iter()}


def assert_clean_svg(svg: str) -> None:
    tags = elements(svg)
    assert "image" not in tags and "a" not in tags and "foreignObject" not in tags, tags
    assert "data:" not in svg


def images(text: str) -> int:
    """Image elements (an SVG's <image>, an HTML <img>) and data URIs in a page or an SVG."""
    return len(re.findall(r"<image\b|<img\b|data:", text))


def svg_text(svg: str) -> str:
    return "".join(ET.fromstring(svg).itertext())


def run_ranked(qtbot, window, folder):
    load(qtbot, window, [folder / "qrels.txt", *(folder / f"{name}.run" for name in RUNS)])
    ranked = window.workspaces["ranked"]
    ranked.form.picker.set_checked({"map": "", "P": "10"})
    run_and_wait(qtbot, ranked)
    return ranked


def test_the_windows_views_show_names_literally(qtbot, window, hostile):
    ranked = run_ranked(qtbot, window, hostile)
    for view in ranked.views:
        getattr(view, "shown", lambda: None)()

    # The precision-recall legend: the names as typed (long ones shortened), no image, no bold.
    plot = ranked.curves.plot
    legend = [label.item.toPlainText() for _, label in plot.legend.items]
    assert BOLD_RUN in legend and QUOTE_RUN in legend
    assert any(text.startswith(IMAGE_RUN[:30]) for text in legend), legend
    for item in text_items(plot):
        assert_no_element(item)

    # The difference chart's title and axis name the runs; its ticks and hover the queries.
    diff = ranked.differences
    diff.baseline.setCurrentIndex(diff.baseline.findData(QUOTE_RUN))
    diff.run.setCurrentIndex(diff.run.findData(BOLD_RUN))
    texts = [item.toPlainText() for item in text_items(diff.chart)]
    assert any(f"{BOLD_RUN} vs {QUOTE_RUN}" in t for t in texts), texts
    assert any(f"{BOLD_RUN} − {QUOTE_RUN}" in t for t in texts), texts
    for item in text_items(diff.chart):
        assert_no_element(item)
    assert "<b>q1</b>" in diff.chart.frame["query"].tolist()

    # The run × run matrix: its cells' and headers' tooltips, and the heatmap's hover.
    model = ranked.run_matrix.model
    tips = [shown(model.data(model.index(r, c), Qt.ItemDataRole.ToolTipRole))
            for r in range(model.rowCount()) for c in range(model.columnCount())]
    assert any(BOLD_RUN in t and QUOTE_RUN in t for t in tips), tips
    headers = [shown(model.headerData(i, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole))
               for i in range(model.columnCount())]
    assert IMAGE_RUN in headers and BOLD_RUN in headers
    for item in text_items(ranked.run_matrix.heatmap):
        assert_no_element(item)

    # The summary table: the names in the cells (a table cell is always text).
    summary = ranked.summary.model
    cells = {summary.data(summary.index(r, 0)) for r in range(summary.rowCount())}
    assert set(RUNS) <= cells

    # Drill-down: the rich text labels escape the run and query they name.
    drill = ranked.drill_down
    drill.show_pair("<b>q1</b>", BOLD_RUN, IMAGE_RUN)
    qtbot.waitUntil(lambda: "q1" in drill.label_a.text(), timeout=5000)
    assert f"{BOLD_RUN}, query <b>q1</b>" in shown(drill.label_a.text())
    assert IMAGE_RUN in shown(drill.label_b.text())

    assert_nothing_read_as_markup(window)

    # The Data dock: each file's tooltip names it as it is.
    files = window.data_panel.tree.model()
    tips = [shown(files.data(files.index(r, 1), Qt.ItemDataRole.ToolTipRole)) for r in range(files.rowCount())]
    assert any(IMAGE_RUN in t for t in tips), tips


def test_the_windows_exports_hold_the_names_as_text(qtbot, window, hostile):
    from evalgui.gui.plots import export_plot
    from evalgui.gui.tables import export_frame

    ranked = run_ranked(qtbot, window, hostile)
    per_query = ranked.per_query.model.frame
    out = hostile / "out"
    out.mkdir()

    # CSV and TSV for a spreadsheet: the formula query id is text; numbers (negative ones too) stay numbers.
    for ext, sep in ((".csv", ","), (".tsv", "\t")):
        export_frame(per_query, str(out / f"per_query{ext}"))
        with open(out / f"per_query{ext}", encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh, delimiter=sep))
        first = [row[0] for row in rows[1:]] + [c for row in rows[1:] for c in row]
        assert "'" + FORMULA_QUERY in first and FORMULA_QUERY not in first
        assert not any(c.startswith(("=", "+", "@")) for c in first)
        assert BOLD_RUN in rows[0] or any(BOLD_RUN in c for row in rows for c in row)

    # Markdown: a renderer (Qt's: CommonMark with GitHub's tables) shows every name literally.
    export_frame(per_query, str(out / "per_query.md"))
    document = QTextDocument()
    document.setMarkdown((out / "per_query.md").read_text(encoding="utf-8"))
    rendered = document.toPlainText()
    assert set(RUNS) <= set(per_query.columns) and set(QUERIES) <= set(per_query["query"])
    for name in (*RUNS, *QUERIES):
        assert name in rendered, name
    assert "<img" not in document.toHtml() and "<a " not in document.toHtml()

    # LaTeX keeps its escaping.
    export_frame(per_query, str(out / "per_query.tex"))
    assert r"q\&amp;3" in (out / "per_query.tex").read_text(encoding="utf-8")

    # The precision-recall plot as SVG and PNG: the names as text, no image element, no data URI.
    export_plot(ranked.curves.plot, str(out / "curves.svg"))
    export_plot(ranked.curves.plot, str(out / "curves.png"))
    svg = (out / "curves.svg").read_text(encoding="utf-8")
    assert_clean_svg(svg)
    assert BOLD_RUN in svg_text(svg) and QUOTE_RUN in svg_text(svg)
    assert (out / "curves.png").stat().st_size > 0

    # The run × run heatmap: the names on its axes, its images only its cells and colour scale.
    ranked.run_matrix.export_plot(str(out / "heatmap.svg"))
    svg = (out / "heatmap.svg").read_text(encoding="utf-8")
    sizes = sorted((e.get("width"), e.get("height")) for e in ET.fromstring(svg).iter() if e.tag.endswith("image"))
    assert len(sizes) == 2 and ("8", "8") not in sizes, sizes          # (the probe is 8 × 8)
    assert not {"a", "foreignObject", "script"} & elements(svg)
    drawn = svg_text(svg)
    assert all(name in drawn for name in (BOLD_RUN, QUOTE_RUN, IMAGE_RUN[:20])), drawn


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _project(folder, runs):
    import evalgui as eg

    qrels, paths = str(folder / "qrels.txt"), [str(folder / f"{name}.run") for name in runs]
    return eg.save_project(str(folder / "p.evalgui"), eg.evaluate(qrels, paths, ["AP", "P@10"]),
                           eg.compare(qrels, paths, ["AP"], test="t"))


def test_evalgui_cli_run_and_report_write_names_as_text(qtbot, capsys, hostile):
    # The same collection with ordinary names: what the plots and the page hold when nothing is injected.
    ordinary_runs = [f"run{i}" for i in range(len(RUNS))]
    write_collection(hostile / "ordinary", ordinary_runs, [f"q{i}" for i in range(len(QUERIES))],
                     [f"doc{i}" for i in range(len(DOCS))])
    written = {}
    for folder, runs in ((hostile, RUNS), (hostile / "ordinary", ordinary_runs)):
        project = _project(folder, runs)
        status, _, err = run_cli(capsys, "run", project, "-o", folder / "out")
        assert status == 0, err
        status, _, err = run_cli(capsys, "report", project, "-o", folder / "report.html")
        assert status == 0, err
        written[folder] = ({p.name: p.read_text(encoding="utf-8") for p in (folder / "out").glob("*.svg")},
                           (folder / "report.html").read_text(encoding="utf-8"))
    svgs, page = written[hostile]
    ordinary_svgs, ordinary_page = written[hostile / "ordinary"]

    # evalgui-cli run: the precision-recall curves and the heatmap, their images only the heatmap's own.
    assert sorted(svgs) == sorted(ordinary_svgs) == ["compare-heatmap-AP.svg", "ranked-precision-recall.svg"]
    for name, svg in svgs.items():
        assert images(svg) == images(ordinary_svgs[name]), name
        assert not {"a", "foreignObject", "script"} & elements(svg)
    assert_clean_svg(svgs["ranked-precision-recall.svg"])
    for name in ("ranked-precision-recall.svg", "compare-heatmap-AP.svg"):
        assert BOLD_RUN in svg_text(svgs[name]) and QUOTE_RUN in svg_text(svgs[name]), name
    # The command line's tables feed programs: the values exactly.
    with open(hostile / "out" / "ranked-summary.csv", encoding="utf-8", newline="") as fh:
        assert set(RUNS) <= {cell for row in csv.reader(fh) for cell in row}

    # evalgui-cli report: the names as the page's text; no element and no data URI beyond the ordinary page's.
    parser, ordinary = _Elements(), _Elements()
    parser.feed(page)
    ordinary.feed(ordinary_page)
    assert images(page) == images(ordinary_page)
    risky = ("img", "image", "script", "iframe", "object", "embed", "foreignobject", "a", "link", "style")
    assert [parser.tags.count(t) for t in risky] == [ordinary.tags.count(t) for t in risky]
    assert "img" not in parser.tags
    assert all(href.startswith("#") for href in re.findall(r'<a [^>]*href="([^"]*)"', page))
    text = "".join(parser.text)
    for name in (IMAGE_RUN, BOLD_RUN, QUOTE_RUN):
        assert name in text, name


def test_a_legend_with_a_markup_name_draws_it_literally(qtbot, tmp_path, monkeypatch):
    """The drawing itself: the legend's text is as wide as the literal name (an image or bold text is not)."""
    from evalgui.gui.plots import PrecisionRecallPlot

    monkeypatch.chdir(tmp_path)
    plot = PrecisionRecallPlot()
    qtbot.addWidget(plot)
    curve = {("interpolated", "all"): (np.linspace(0, 1, 11), np.linspace(1, 0, 11))}
    for run in ("<b>bold</b>", "<img src=x onerror=alert(11)>"):
        plot.set_run(run, curve)
    plot.show_curves("interpolated", "all")
    labels = {label.item.toPlainText() for _, label in plot.legend.items}
    assert labels == {"<b>bold</b>", "<img src=x onerror=alert(11)>"}
    for item in text_items(plot):
        assert_no_element(item)
    assert any(html.escape("<b>bold</b>") in label.text for _, label in plot.legend.items)


def test_the_compare_views_show_names_literally(qtbot, window, hostile):
    load(qtbot, window, [hostile / "qrels.txt", *(hostile / f"{name}.run" for name in RUNS)])
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    compare.form.picker.set_checked({"map": ""})
    run_and_wait(qtbot, compare)
    assert compare.comparison is not None, compare.progress_label.text()

    # The scatter: legend, axis names and title name the two runs; a point's tooltip its query.
    scatter = compare.scatter
    compare.results_tabs.setCurrentWidget(scatter.page)
    scatter.run_a.setCurrentIndex(scatter.run_a.findData(BOLD_RUN))
    scatter.run_b.setCurrentIndex(scatter.run_b.findData(IMAGE_RUN))
    legend = [label.item.toPlainText() for _, label in scatter.legend.items]
    assert any(t.startswith(f"{BOLD_RUN} higher") for t in legend) and any(IMAGE_RUN in t for t in legend), legend
    texts = [item.toPlainText() for item in text_items(scatter.plot)]
    assert any(f"{BOLD_RUN}: " in t for t in texts) and any(f"{IMAGE_RUN} higher on" in t for t in texts), texts
    for item in text_items(scatter.plot):
        assert_no_element(item)
    assert "<b>q1</b>" in shown(scatter._tip(0.5, 0.25, "<b>q1</b>"))

    # The comparison matrix: cell and header tooltips; the pair view's caption and axes.
    matrix = compare.matrix
    compare.results_tabs.setCurrentWidget(matrix.page)
    model = matrix.model
    runs = list(model.frame.index)
    a, b = runs.index(BOLD_RUN), runs.index(IMAGE_RUN)
    tip = model.data(model.index(a, b), Qt.ItemDataRole.ToolTipRole)
    assert BOLD_RUN in shown(tip) and IMAGE_RUN in shown(tip), tip
    for item in text_items(matrix.heatmap):
        assert_no_element(item)
    matrix.open_pair(a, b)
    pair = matrix.pair_view
    assert pair.caption.textFormat() == Qt.TextFormat.PlainText and BOLD_RUN in pair.caption.text()
    for widget in (pair.bars, pair.scatter):
        for item in text_items(widget):
            assert_no_element(item)
    axes = [item.toPlainText().strip() for item in text_items(pair.scatter)]
    assert BOLD_RUN in axes and IMAGE_RUN in axes, axes
    for view in (compare.matrix, compare.scatter):
        compare.results_tabs.setCurrentWidget(view.page)
    assert_nothing_read_as_markup(window)


@pytest.mark.parametrize("experiment", ["stability", "power"])
def test_the_meta_evaluation_views_show_names_literally(qtbot, window, hostile, experiment):
    load(qtbot, window, [hostile / "qrels.txt", *(hostile / f"{name}.run" for name in RUNS)])
    metaeval = window.workspaces["metaeval"]
    window.tabs.setCurrentWidget(metaeval)
    metaeval.form.picker.set_checked({"map": "", "P": "10"})
    metaeval.form.experiment_combo.setCurrentIndex(metaeval.form.experiment_combo.findData(experiment))
    run_and_wait(qtbot, metaeval)
    assert metaeval.outcome is not None, metaeval.progress_label.text()
    for view in metaeval.views:
        if metaeval.results_tabs.isTabVisible(metaeval.results_tabs.indexOf(view.page)):
            metaeval.results_tabs.setCurrentWidget(view.page)
    assert_nothing_read_as_markup(window)



# ---------------------------------------------------------------- Measure stability and Case-based retrieval
ENTITIES = ("<b>e1</b>", FORMULA_QUERY, "e&amp;3", "\"quote'4", "[x](javascript:alert(1))", "<img src=e.png>")


def write_hostile_ranks(folder, systems=(IMAGE_RUN, BOLD_RUN, QUOTE_RUN, "plain"), names=ENTITIES) -> str:
    """A rank file whose systems (its header) and test entities (its first column) are markup."""
    rng = np.random.default_rng(3)
    entities = [f"{name}{i}" for i in range(8) for name in names]
    latent = rng.normal(4.5, 1.5, len(entities))
    ranks = np.clip(np.round(np.exp(latent[:, None] + rng.normal(0, 1, (len(entities), len(systems))))), 1, 5000)
    lines = ["Generated\t" + "\t".join(systems)]
    lines += [f"{e}\t" + "\t".join(f"{v:g}" for v in row) for e, row in zip(entities, ranks)]
    path = folder / f"{systems[0]}.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_hostile_similarities(folder, files=(f"{BOLD_RUN}truth", IMAGE_RUN, QUOTE_RUN), queries=ENTITIES[:4],
                               cases=(BOLD_RUN, IMAGE_RUN, QUOTE_RUN, "c4", "<i>c5</i>")) -> tuple:
    """A ground truth and two retrievers' similarity files: their file names, query ids and case ids markup."""
    rng = np.random.default_rng(4)
    paths = []
    for name in files:
        path = folder / f"{name}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["query_id", "case_id", "similarity"])
            writer.writerows((q, c, f"{rng.random():.4f}") for q in queries for c in cases)
        paths.append(path)
    return tuple(paths)


def assert_svg_holds(svg: str, names) -> None:
    assert_clean_svg(svg) if "image" not in elements(svg) else None
    assert not {"a", "foreignObject", "script"} & elements(svg), elements(svg)
    assert PROBE not in svg or all(e.get("href", "").startswith("data:image/png") is False
                                   for e in ET.fromstring(svg).iter() if e.tag.endswith("image"))
    drawn = svg_text(svg)
    assert any(name in drawn for name in names), drawn[:500]


def export_everything(window, workspace, folder, monkeypatch) -> dict:
    """Every export target of the workspace in every format it offers: {file name: text or bytes}."""
    from PySide6.QtWidgets import QFileDialog

    written = {}
    for i, (label, export) in enumerate(workspace.export_targets()):
        if "similarity file" in label:
            continue            # a data file evalgui reads back (the ids exactly), not a spreadsheet's
        plot = label.endswith("plot…") or "heatmap" in label.lower() or "chart" in label.lower()
        for ext in ((".png", ".svg") if plot else (".csv", ".md", ".tex")):
            path = folder / f"export{i}{ext}"
            monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, p=path, **k: (str(p), "")))
            export()
            if path.exists():
                written[path.name] = path.read_bytes() if ext == ".png" else path.read_text(encoding="utf-8")
    return written


def assert_exports_hold_names(written: dict, names) -> None:
    assert written, "nothing exported"
    for name, content in written.items():
        if name.endswith(".svg"):
            assert not {"a", "foreignObject", "script"} & elements(content), name
            assert "data:image/png" not in content or "<image" in content, name
        elif name.endswith(".md"):
            document = QTextDocument()
            document.setMarkdown(content)
            assert "<img" not in document.toHtml() and "<a " not in document.toHtml(), name
        elif name.endswith(".csv"):
            cells = [c for row in csv.reader(content.splitlines()) for c in row]
            assert not any(c.startswith(("=", "@")) for c in cells), name
        elif name.endswith(".png"):
            assert content[:8] == b"\x89PNG\r\n\x1a\n"


def assert_window_report_holds_names(window, path, names) -> None:
    """The window's report (File ▸ Export report): the names as the page's text, no image element, no data URI
    but the plots' own, no link leaving the page."""
    assert window.write_report(str(path))
    page = path.read_text(encoding="utf-8")
    parser = _Elements()
    parser.feed(page)
    assert not {"img", "iframe", "object", "embed", "foreignobject"} & set(parser.tags), set(parser.tags)
    assert parser.tags.count("script") == 1 and "</footer><script>" in page      # the page's own (sortable tables)
    assert all(href.startswith("#") for href in re.findall(r'<a [^>]*href="([^"]*)"', page))
    assert PROBE not in page.replace(html.escape(IMAGE_RUN), "").replace(html.escape(IMAGE_RUN, quote=False), "") \
        or "data:image/png" not in "".join(re.findall(r"<image[^>]*>", page))
    text = "".join(parser.text)
    for name in names:
        assert name in text, name


def test_the_stability_workspace_shows_and_exports_names_literally(qtbot, window, hostile, monkeypatch):
    from tests.gui.test_stability_workspace import _run

    path = write_hostile_ranks(hostile)
    stability = _run(qtbot, window, path, measures=("AP", "Average"))
    systems = stability.outcome.systems
    assert IMAGE_RUN in systems and BOLD_RUN in systems
    for view in stability.views:
        if stability.results_tabs.isTabVisible(stability.results_tabs.indexOf(view.page)):
            stability.results_tabs.setCurrentWidget(view.page)
    assert_nothing_read_as_markup(window)
    # the significance heatmap names the systems on its axes, as they are
    view = stability.significance
    stability.results_tabs.setCurrentWidget(view.page)
    for item in text_items(view.heatmap):
        assert_no_element(item)
    # hovering a cell: its details name the two systems as they are
    from PySide6.QtCore import QPointF

    box = view.heatmap.getPlotItem().getViewBox()
    rows = list(view.model.frame.index)
    view.heatmap._hover(box.mapViewToScene(QPointF(rows.index(BOLD_RUN), rows.index(IMAGE_RUN))))
    hover = view.heatmap.toolTip()
    assert f"{IMAGE_RUN} against {BOLD_RUN}" in shown(hover), hover
    window.resize(1360, 860)
    window.show()
    qtbot.waitExposed(window)
    window.grab().save(str(hostile / "stability.png"))
    document = QTextDocument()
    document.setHtml(hover)
    assert "<img" not in document.toHtml() and "\ufffc" not in document.toPlainText(), hover
    for widget in window.findChildren(QLabel):
        if widget.isVisibleTo(window) and widget.textFormat() != Qt.TextFormat.PlainText:
            assert "<img" not in QTextDocument(widget.text()).toHtml() or not GuiQt.mightBeRichText(widget.text())
    out = hostile / "stability-out"
    out.mkdir()
    written = export_everything(window, stability, out, monkeypatch)
    assert any(n.endswith(".svg") for n in written) and any(n.endswith(".md") for n in written)
    assert_exports_hold_names(written, systems)
    heatmaps = [c for n, c in written.items() if n.endswith(".svg") and BOLD_RUN in svg_text(c)]
    assert heatmaps, sorted(written)
    assert_window_report_holds_names(window, hostile / "report.html", [BOLD_RUN, QUOTE_RUN, IMAGE_RUN])


def test_the_casebase_workspace_shows_and_exports_names_literally(qtbot, window, hostile, monkeypatch):
    truth, *predicted = write_hostile_similarities(hostile)
    load(qtbot, window, [truth, *predicted])
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    form = casebase.form
    form.source_combo.setCurrentIndex(form.source_combo.findData("files"))
    form.truth_combo.setCurrentIndex(form.truth_combo.findData(str(truth)))
    for i in range(form.predicted.count()):
        item = form.predicted.item(i)
        item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) != str(truth)
                           else Qt.CheckState.Unchecked)
    form.ks.setText("2")
    run_and_wait(qtbot, casebase)
    assert casebase.outcome is not None, casebase.progress_label.text()
    retrievers = set(casebase.outcome.table["retriever"])
    assert IMAGE_RUN in retrievers and QUOTE_RUN in retrievers, retrievers
    for view in casebase.views:
        if casebase.results_tabs.isTabVisible(casebase.results_tabs.indexOf(view.page)):
            casebase.results_tabs.setCurrentWidget(view.page)
            getattr(view, "shown", lambda: None)()
    assert_nothing_read_as_markup(window)
    # the table's cells and the drill-down's choices name the retrievers as they are
    assert retrievers <= set(casebase.table.tidy_model.frame["retriever"])
    drill = casebase.drill_down.retriever
    assert {drill.itemText(i) for i in range(drill.count())} >= {IMAGE_RUN, QUOTE_RUN}
    window.resize(1360, 860)
    window.show()
    qtbot.waitExposed(window)
    window.grab().save(str(hostile / "casebase.png"))
    out = hostile / "casebase-out"
    out.mkdir()
    written = export_everything(window, casebase, out, monkeypatch)
    assert_exports_hold_names(written, retrievers)


def test_the_reports_of_stability_and_casebase_hold_names_as_text(qtbot, capsys, hostile):
    import evalgui as eg

    pages = []
    for folder, names in ((hostile, None), (hostile / "ordinary", "ordinary")):
        folder.mkdir(exist_ok=True)
        if names is None:
            ranks, (truth, *predicted) = write_hostile_ranks(folder), write_hostile_similarities(folder)
        else:
            ranks = write_hostile_ranks(folder, ("s1", "s2", "s3", "s4"), [f"e{i}" for i in range(6)])
            truth, *predicted = write_hostile_similarities(folder, ("truth", "r1", "r2"), ["q1", "q2", "q3", "q4"],
                                                           ["c1", "c2", "c3", "c4", "c5"])
        outcomes = [eg.stability(str(ranks), total_ranks=5000, iterations=5, splits=(2,)),
                    eg.similarity(str(truth), [str(p) for p in predicted], ks=(2,))]
        if names is None:           # case bases: markup attribute names, case and query ids, file names
            from evalgui.core.cbr.model import default_model
            from evalgui.core.inputs.case_base import read_case_base

            cases, queries = write_hostile_case_bases(folder)
            model = default_model(read_case_base(cases))
            outcomes.append(eg.casebase(str(cases), test=str(queries), model=model,
                                       mac_attributes=[ATTRIBUTES[1], "price"], filter_sizes=(3,), ks=(2,)))
        project = eg.save_project(str(folder / "p.evalgui"), *outcomes)
        status, _, err = run_cli(capsys, "report", project, "-o", folder / "report.html")
        assert status == 0, err
        pages.append((folder / "report.html").read_text(encoding="utf-8"))
        status, _, err = run_cli(capsys, "run", project, "-o", folder / "out")
        assert status == 0, err
        for svg in (folder / "out").glob("*.svg"):
            assert not {"a", "foreignObject", "script"} & elements(svg.read_text(encoding="utf-8")), svg.name
    page, ordinary_page = pages
    parser, ordinary = _Elements(), _Elements()
    parser.feed(page)
    ordinary.feed(ordinary_page)
    # no element and no image beyond the ordinary page's: the names are the page's text
    assert images(page) == images(ordinary_page)      # (the case-base chart has none)
    risky = ("img", "script", "iframe", "object", "embed", "foreignobject", "link", "style", "b", "i", "u")
    assert [parser.tags.count(t) for t in risky] == [ordinary.tags.count(t) for t in risky]
    assert all(href.startswith("#") for href in re.findall(r'<a [^>]*href="([^"]*)"', page))
    text = "".join(parser.text)
    for name in (BOLD_RUN, QUOTE_RUN, IMAGE_RUN, *ATTRIBUTES):
        assert name in text, name


ATTRIBUTES = (BOLD_RUN, "<img src=attr.png>", QUOTE_RUN, "price")


def write_hostile_case_bases(folder) -> tuple:
    """Case bases whose file names, case ids, query ids, attribute names and symbolic values are markup."""
    rng = np.random.default_rng(6)
    paths = []
    for name, ids in ((f"{IMAGE_RUN} cases", [f"{e}{i}" for i in range(4) for e in ENTITIES]),
                      (f"{BOLD_RUN} queries", [f"q{e}" for e in ENTITIES])):
        path = folder / f"{name}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", *ATTRIBUTES])
            writer.writerows([case, ENTITIES[int(rng.integers(0, 6))], ENTITIES[int(rng.integers(0, 3))],
                              f"<u>{int(rng.integers(0, 3))}</u>", int(rng.integers(1000, 9000))] for case in ids)
        paths.append(path)
    return tuple(paths)


def test_the_casebase_workspace_with_case_bases_of_markup_names(qtbot, window, hostile, monkeypatch):
    train, test = write_hostile_case_bases(hostile)
    load(qtbot, window, [train, test])
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    form = casebase.form
    form.train_combo.setCurrentIndex(form.train_combo.findData(str(train)))
    form.test_combo.setCurrentIndex(form.test_combo.findData(str(test)))
    qtbot.waitUntil(lambda: form.editor.table.rowCount() == len(ATTRIBUTES), timeout=10_000)
    assert [form.editor.table.item(r, 0).text() for r in range(len(ATTRIBUTES))] == list(ATTRIBUTES)
    assert {form.mac_list.item(i).text() for i in range(form.mac_list.count())} == set(ATTRIBUTES)
    qtbot.waitUntil(lambda: not casebase.preview_pending(), timeout=10_000)
    form.filter_sizes.setText("3,6")
    form.ks.setText("2,2")
    errors = []
    window.error_shown.connect(lambda title, message: errors.append((title, message)))
    qtbot.mouseClick(casebase.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: casebase.outcome is not None or bool(errors), timeout=30_000)
    qtbot.waitUntil(lambda: not casebase.is_busy(), timeout=30_000)
    assert casebase.outcome is not None and not errors, (errors, casebase.progress_label.text())
    for view in casebase.views:
        if casebase.results_tabs.isTabVisible(casebase.results_tabs.indexOf(view.page)):
            casebase.results_tabs.setCurrentWidget(view.page)
            getattr(view, "shown", lambda: None)()
    assert_nothing_read_as_markup(window)
    # the drill-down's tables and choices hold the ids as they are
    drill = casebase.drill_down
    assert {drill.query.itemText(i) for i in range(drill.query.count())} == {f"q{e}" for e in ENTITIES}
    cases = set(drill.model_truth.frame.iloc[:, 1].astype(str)) if len(drill.model_truth.frame) else set()
    assert cases and cases <= {f"{e}{i}" for i in range(4) for e in ENTITIES}, cases
    # the preview names the attributes in its table's cells
    preview = form.preview.model.frame
    assert set(ATTRIBUTES) <= set(preview.iloc[:, 0].astype(str)) | set(preview.columns), preview
    window.resize(1360, 860)
    window.show()
    qtbot.waitExposed(window)
    casebase.results_tabs.setCurrentWidget(casebase.chart.page)
    window.grab().save(str(hostile / "casebase-chart.png"))
    out = hostile / "casebase-out"
    out.mkdir()
    written = export_everything(window, casebase, out, monkeypatch)
    assert any(n.endswith(".svg") for n in written)
    assert_exports_hold_names(written, ATTRIBUTES)
    assert_window_report_holds_names(window, hostile / "report.html", [f"q{ENTITIES[0]}", IMAGE_RUN[:20]])
