"""The report in a real browser (headless Chromium): no console error, every plot drawn; and the window's
File ▸ Export report."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from evalgui.core.workflows.report import Section, build_report
from tests.conftest import SAMPLE_DATA
from tests.core.test_report import RUNS, SYN, outcomes  # noqa: F401  (the fixture)
from tests.gui.conftest import load, run_and_wait



CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def rendered(page: str, tmp_path) -> tuple[list[tuple[int, int]], list[str]]:
    """The drawn size of every SVG of ``page`` in headless Chromium, and the console lines it printed.
    (The test's own copy of the page puts the sizes in its title.)"""
    probe = page.replace("</body>", "<script>document.title = Array.prototype.map.call("
                         "document.querySelectorAll('svg'), function (s) { var r = s.getBoundingClientRect(); "
                         "return Math.round(r.width) + 'x' + Math.round(r.height); }).join(' ');</script></body>")
    (tmp_path / "probe.html").write_text(probe, encoding="utf-8")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", "--dump-dom", (tmp_path / "probe.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    title = re.search(r"<title>(.*?)</title>", proc.stdout)
    assert title, proc.stderr[-2000:]
    sizes = [tuple(int(n) for n in s.split("x")) for s in title.group(1).split()]
    return sizes, [line for line in proc.stderr.splitlines() if "CONSOLE" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium (Debian: apt install chromium)")
def test_it_renders_in_a_real_browser_with_no_error_and_every_svg_drawn(qtbot, outcomes, tmp_path):
    from evalgui.gui.outcome_plots import svg_plots
    from evalgui.core.workflows.report import Plot

    sections = [Section(k, o, [Plot(*p) for p in svg_plots(k, o)]) for k, o in outcomes.items()]
    page = build_report(sections)
    assert page.count("<svg") >= 3
    sizes, console = rendered(page, tmp_path)
    assert len(sizes) == page.count("<svg") and all(w > 0 and h > 0 for w, h in sizes), sizes
    assert console == [], console


def test_file_export_report_writes_the_page_of_the_windows_results(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    load(qtbot, window, [SYN / "qrels.txt", *RUNS])
    compare = window.workspaces["compare"]
    compare.form.picker.set_checked({"map": ""})
    run_and_wait(qtbot, compare)
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "study"), ""))
    monkeypatch.setattr(type(window), "ask_open_report", lambda self, path: asked.append(path) or False)
    with qtbot.waitSignal(window.report_done, timeout=20_000):          # written on the worker
        window.report_action.trigger()
    page = (tmp_path / "study.html").read_text(encoding="utf-8")
    assert asked == [str(tmp_path / "study.html")]
    assert "Compare systems: significance tests" in page and "<svg" in page


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium (Debian: apt install chromium)")
def test_the_demo_projects_report_renders_every_workspace(qtbot, tmp_path, capsys):
    """resources/sample_data/demo.evalgui (every file it names is in that folder): its report holds every
    workspace, stays small, and renders in Chromium with every plot drawn and no console error."""
    from evalgui.cli import main

    target = tmp_path / "demo.html"
    assert main(["report", str(SAMPLE_DATA / "demo.evalgui"), "-o", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    assert target.stat().st_size < 5_000_000
    for title in ("Ranked retrieval", "Compare systems: significance tests", "Meta-evaluation", "Measure stability",
                  "Case-based retrieval"):
        assert f"<h2>{title}</h2>" in page
    # Each section's key plots, with their guides: the demo project keeps the ranked curves.
    sections = dict(re.findall(r'<section id="(\w+)">(.*?)</section>', page, re.S))
    for key, title in [("ranked", "Interpolated precision at 11 recall levels, mean over queries."),
                       ("metaeval", "Discriminative power: each run pair&#x27;s p-value, sorted."),
                       ("stability", "Error rate against tie rate, fuzziness 0.05."),
                       ("casebase", "Hits against retrieval time.")]:
        assert f"<figcaption><strong>{title}</strong> <span class=\"plot-guide\">" in sections[key], key
    assert "not saved in this project" not in page
    sizes, console = rendered(page, tmp_path)
    assert sizes and all(w > 0 and h > 0 for w, h in sizes), sizes
    assert console == [], console


def test_every_file_the_demo_project_names_is_in_its_folder():
    import json
    import os

    project = json.loads((SAMPLE_DATA / "demo.evalgui").read_text(encoding="utf-8"))
    for entry in project["files"]:
        assert not os.path.isabs(entry["path"]) and not entry["path"].startswith(".."), entry
        assert (SAMPLE_DATA / entry["path"]).is_file(), entry


def test_the_demo_projects_report_speaks_its_readers_words(tmp_path):
    """Headers, the parameters under "How these results were made" and the paper table's note are the window's
    words, never machine names (those stay in each header's title); plots are inline SVG elements (no XML
    declaration) whose text falls back to a sans-serif font where Qt's font name is unknown."""
    import html as html_module

    from evalgui.cli import main

    target = tmp_path / "demo.html"
    assert main(["report", str(SAMPLE_DATA / "demo.evalgui"), "-o", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    shown = [html_module.unescape(text) for text in
             re.findall(r'<th scope="(?:col|row)" title="[^"]*">([^<]*)</th>', page)]
    assert len(shown) > 50
    identifiers = [text for text in shown if "_" in text or re.match(r"[a-z]+[A-Z][a-z]", text)]   # systemCount
    assert identifiers == []
    assert "Queries left out" in shown and "Random seed" in shown and "Judgments (qrels)" in shown
    assert "Paired t-test, Holm correction for multiple comparisons, α = 0.05" in html_module.unescape(page)
    assert "<?xml" not in page
    families = set(re.findall(r'font-family="([^"]*)"', page))
    assert families and all(f.rsplit(",", 1)[-1].strip() in ("sans-serif", "serif", "monospace") for f in families)


def test_drawing_a_reports_plots_shows_no_window_on_the_screen(qtbot):
    """The report's plots are drawn by the window's own views, laid out as shown; none of them may appear on the
    desktop while a report is written (they are shown with WA_DontShowOnScreen)."""
    from PySide6.QtCore import QEvent, QObject, Qt
    from PySide6.QtWidgets import QApplication

    from evalgui.core.workflows.project import open_project
    from evalgui.gui.outcome_plots import svg_plots

    class ShowWatch(QObject):
        def __init__(self):
            super().__init__()
            self.on_screen = []

        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Show and getattr(watched, "isWindow", lambda: False)() \
                    and not watched.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen):
                self.on_screen.append(type(watched).__name__)
            return False

    project = open_project(str(SAMPLE_DATA / "demo.evalgui"))
    watch = ShowWatch()
    QApplication.instance().installEventFilter(watch)
    try:
        drawn = [plot for key, outcome in project.outcomes.items() for plot in svg_plots(key, outcome)]
    finally:
        QApplication.instance().removeEventFilter(watch)
    assert len(drawn) > 5 and watch.on_screen == []
