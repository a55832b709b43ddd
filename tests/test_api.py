"""The Python API: the README's example runs as written, and the API gives what the command line gives."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import pandas as pd

from tests.conftest import ROOT, SAMPLE_DATA


def test_the_readme_example_runs(monkeypatch, tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- api-example[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert block, "the README has no api-example block"
    code = block.group(1).replace("/tmp/evalgui-example.evalgui", str(tmp_path / "example.evalgui"))
    monkeypatch.chdir(SAMPLE_DATA)
    with redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "example.evalgui").exists()


def test_compare_gives_the_command_lines_table(capsys, monkeypatch):
    import evalgui as eg
    from evalgui.cli import main

    monkeypatch.chdir(SAMPLE_DATA)
    runs = ["synthetic/bm25.run", "synthetic/dense.run"]
    assert main(["compare", "synthetic/qrels.txt", *runs, "-m", "AP", "-m", "P@10"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    outcome = eg.compare("synthetic/qrels.txt", runs, ["AP", "P@10"])
    from evalgui.core.export import to_text

    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(to_text(outcome.tables["comparison"], "csv"))), printed)


def test_importing_evalgui_stays_light():
    import subprocess
    import sys

    code = "import sys, evalgui; print([m for m in ('numpy', 'pandas', 'PySide6') if m in sys.modules])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]", proc.stderr
