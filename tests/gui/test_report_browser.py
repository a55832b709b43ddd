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
    probe = page.replace("</body>", "<script>document.title = Array.prototype.map.call("
                         "document.querySelectorAll('svg'), function (s) { var r = s.getBoundingClientRect(); "
                         "return Math.round(r.width) + 'x' + Math.round(r.height); }).join(' ');</script></body>")
    (tmp_path / "probe.html").write_text(probe, encoding="utf-8")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", "--dump-dom", (tmp_path / "probe.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    sizes = re.search(r"<title>(.*?)</title>", proc.stdout).group(1).split()
    assert sizes and all(int(w) > 0 and int(h) > 0 for w, h in (s.split("x") for s in sizes)), sizes
    assert [line for line in proc.stderr.splitlines() if "CONSOLE" in line] == []


def test_every_file_the_demo_project_names_is_in_its_folder():
    import json
    import os

    project = json.loads((SAMPLE_DATA / "demo.evalgui").read_text(encoding="utf-8"))
    for entry in project["files"]:
        assert not os.path.isabs(entry["path"]) and not entry["path"].startswith(".."), entry
        assert (SAMPLE_DATA / entry["path"]).is_file(), entry
