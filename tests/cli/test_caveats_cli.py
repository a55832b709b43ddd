"""evalgui-cli's caveats: one ``caveat:`` line each on stderr, always; ``--caveats FILE`` writes the table."""

from __future__ import annotations

import pandas as pd
import pytest

from evalgui.core import advisor
from evalgui.core.resources import sample_data
from tests.test_cli import run_cli

SYNTHETIC = sample_data("synthetic")
RUNS = [SYNTHETIC / f"{name}.run" for name in ("bm25", "dense", "rerank", "random")]
QRELS = SYNTHETIC / "qrels.txt"

COMMANDS = {
    "evaluate": ["evaluate", QRELS, *RUNS[:2], "-m", "P@10", "-m", "AP"],
    "compare": ["compare", QRELS, *RUNS[:3], "-m", "AP", "--correction", "none"],
    "preference": ["preference", QRELS, *RUNS[:3], "-m", "RPP", "--test", "t", "--correction", "none"],
    "metaeval": ["metaeval", QRELS, *RUNS, "-m", "AP", "-m", "RR", "--experiment", "power", "--samples", "200"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_caveat_lines_on_stderr_and_the_table_in_a_file(capsys, tmp_path, name):
    status, out, err = run_cli(capsys, *COMMANDS[name], caveats=True)
    assert status == 0 and out
    lines = [l for l in err if l.startswith("caveat: ")]
    assert lines and all(l.startswith(("caveat: warning: ", "caveat: note: ")) for l in lines)
    path = tmp_path / "caveats.csv"
    status, again, err = run_cli(capsys, *COMMANDS[name], "--caveats", path, caveats=True)
    assert status == 0 and again == out                   # the results on stdout are unchanged
    frame = pd.read_csv(path, keep_default_na=False)
    assert list(frame.columns) == list(advisor.COLUMNS)
    assert len(frame) == len(lines)
    assert [f"caveat: {s}: {m}" for s, m in zip(frame["severity"], frame["message"])] == lines
    if name == "compare":
        assert "multiple_comparisons" in set(frame["kind"])
    if name == "metaeval":
        assert "measure" in set(frame["kind"])


def test_the_caveats_file_cannot_be_an_input(capsys):
    status, _, err = run_cli(capsys, "evaluate", QRELS, RUNS[0], "-m", "AP", "--caveats", RUNS[0])
    assert status == 2 and "--caveats" in err[-1] and "also an input" in err[-1]


@pytest.mark.parametrize("name", ["evaluate", "compare", "preference", "metaeval"])
def test_judged_below_sets_the_judged_share_the_caveats_watch_for(capsys, name):
    def judged_lines(*extra):
        status, _, err = run_cli(capsys, *COMMANDS[name], *extra, caveats=True)
        assert status == 0
        return [line for line in err if line.startswith("caveat: ") and " are judged" in line]

    assert judged_lines("--judged-below", "100")
    assert judged_lines("--judged-below", "0") == []
    status, _, err = run_cli(capsys, *COMMANDS[name], "--judged-below", "150")
    assert status == 2 and err[-1].endswith("--judged-below 150.0: must be at most 100")
