"""Smoke test of benchmarks/bench_gui_workspaces.py (the 100 ms GUI-thread target the GUI tests no longer time):
its ``--quick --tiny`` run, in a subprocess, writes its section with a row per workspace scenario. Timings are
the benchmark's business: nothing here checks them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_gui_workspaces.py"
TITLES = ("Ranked retrieval", "Compare systems", "Compare systems: preferences", "Meta-evaluation",
          "Measure stability", "Case-based retrieval")


def test_quick_run_on_tiny_data_writes_a_row_per_scenario_into_its_section(tmp_path):
    output = tmp_path / "benchmarks.md"
    output.write_text("# Benchmarks\n\n<!-- other:begin -->\nkept\n<!-- other:end -->\n\n"
                      "<!-- bench_gui_workspaces:begin -->\nold numbers\n<!-- bench_gui_workspaces:end -->\n\n"
                      "## After\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--tiny", "--output", str(output)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    text = output.read_text()
    assert "old numbers" not in text and text.count("<!-- bench_gui_workspaces:begin -->") == 1
    assert "<!-- other:begin -->\nkept\n<!-- other:end -->" in text and text.rstrip().endswith("## After")
    section = text.split("<!-- bench_gui_workspaces:begin -->")[1].split("<!-- bench_gui_workspaces:end -->")[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| ")}
    for title in TITLES:
        assert title in rows, f"no row for {title}"
        assert " met " in rows[title] or "NOT met" in rows[title]              # a verdict, whichever it is
    assert "pytrec_eval" in rows["Ranked retrieval"]                            # the peer, or why it is absent
    assert "no peer" in rows["Meta-evaluation"]
    assert "load average" in section and "0.5 s" in section                     # the machine's load; the tests' limit
    assert not list(tmp_path.glob("*.tmp"))
