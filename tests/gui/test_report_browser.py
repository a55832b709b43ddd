"""The report in a real browser (headless Chromium): no console error, every plot drawn; and the window's
File ▸ Export report."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from evalgui.core.report import Section, build_report
from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest, run_compare, run_preference
from tests.conftest import SAMPLE_DATA
from tests.gui.conftest import load, run_and_wait

SYN = SAMPLE_DATA / "synthetic"
RUNS = [str(SYN / f"{r}.run") for r in ("bm25", "dense", "rerank")]


@pytest.fixture(scope="module")
def outcomes():
    compared = run_compare(CompareRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=["AP", "P@10"],
                                          test="randomization", samples=1000, seed=4))
    preferred = run_preference(PreferenceRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=["rpp"], test="t"))
    return {"compare": compared, "preference": preferred}


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium (Debian: apt install chromium)")
def test_it_renders_in_a_real_browser_with_no_error_and_every_svg_drawn(qtbot, outcomes, tmp_path):
    from evalgui.gui.outcome_plots import svg_plots
    from evalgui.core.report import Plot

    sections = [Section(k, o, [Plot(t, svg) for t, svg in svg_plots(k, o)]) for k, o in outcomes.items()]
    page = build_report(sections)
    assert page.count("<svg") >= 3
    # The test's own copy reports the drawn size of every SVG in the title.
    probe = page.replace("</body>", "<script>document.title = Array.prototype.map.call("
                         "document.querySelectorAll('svg'), function (s) { var r = s.getBoundingClientRect(); "
                         "return Math.round(r.width) + 'x' + Math.round(r.height); }).join(' ');</script></body>")
    (tmp_path / "report.html").write_text(probe, encoding="utf-8")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", "--dump-dom", (tmp_path / "report.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    title = re.search(r"<title>(.*?)</title>", proc.stdout)
    assert title, proc.stderr[-2000:]
    sizes = title.group(1).split()
    assert len(sizes) == page.count("<svg") and all(int(w) > 0 and int(h) > 0
                                                   for w, h in (s.split("x") for s in sizes)), sizes
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and "report.html" in line]
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
    window.report_action.trigger()
    page = (tmp_path / "study.html").read_text(encoding="utf-8")
    assert asked == [str(tmp_path / "study.html")]
    assert "Compare systems: significance tests" in page and "<svg" in page
