"""Cells written for readers (issue 32): Markdown shows names literally, the window's CSV guards formulas for a
spreadsheet, and the command line and the Python API keep every value exactly (they feed programs)."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from evalgui.core.export import markdown_escape, spreadsheet_text, to_text
from tests.test_cli import run_cli

HOSTILE = ['<img src=probe.png>', "<b>x</b>", "&amp;", "\"quote'", "[x](javascript:alert(1))", "![i](p.png)",
           "`code`", "*em*", "_em_", "~~gone~~", "a|b", "back\\slash"]


@pytest.mark.parametrize("text, escaped", [
    ("<img src=probe.png>", "&lt;img src=probe.png&gt;"),
    ("<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"),
    ("&amp;", "&amp;amp;"),
    ("\"quote'", "\"quote'"),
    ("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"),
    ("![i](p.png)", "!\\[i\\](p.png)"),
    ("`code`", "\\`code\\`"),
    ("*em*", "\\*em\\*"),
    ("_em_", "\\_em\\_"),
    ("~~gone~~", "\\~\\~gone\\~\\~"),
    ("a|b", "a\\|b"),
    ("back\\slash", "back\\\\slash"),
    ("two\nlines", "two lines"),
    # what ordinary ids and measure names hold is left as it is
    ("run_a", "run_a"), ("P@10", "P@10"), ("nDCG(rel=2)@5", "nDCG(rel=2)@5"), ("AP.3-b", "AP.3-b"),
])
def test_markdown_escapes_what_would_render(text, escaped):
    assert markdown_escape(text) == escaped


def test_a_markdown_table_escapes_names_in_headers_and_cells():
    frame = pd.DataFrame({"run": HOSTILE, "<i>AP</i>": [0.5] * len(HOSTILE)})
    text = to_text(frame, "markdown")
    assert text.splitlines()[0] == "| run | &lt;i&gt;AP&lt;/i&gt; |"
    rows = text.splitlines()[2:]
    assert [row.split(" | ")[0][2:] for row in rows] == [markdown_escape(h) for h in HOSTILE]
    # every row keeps its two cells: no name adds a column
    assert all(row.replace("\\|", "").count("|") == 3 for row in rows)


def test_the_paper_tables_markdown_escapes_run_names(tmp_path):
    from evalgui.core.stats.compare import paper_table
    from evalgui.core.workflows.compare import CompareRequest, comparison_from_outcome, run_compare
    from tests.conftest import SAMPLE_DATA

    runs = []
    for name in ("<b>bm25", "[dense](x)"):
        (tmp_path / f"{name}.run").write_bytes((SAMPLE_DATA / "synthetic" / "bm25.run").read_bytes())
        runs.append(str(tmp_path / f"{name}.run"))
    outcome = run_compare(CompareRequest(qrels=str(SAMPLE_DATA / "synthetic" / "qrels.txt"), runs=runs,
                                         measures=["AP"], test="t"))
    table = paper_table(comparison_from_outcome(outcome), "markdown")
    assert "| (a) &lt;b&gt;bm25 |" in table and "| (b) \\[dense\\](x) |" in table
    assert "<b>" not in table


@pytest.mark.parametrize("cell, guarded", [
    ('=HYPERLINK("http://evil.example/x","y")', '\'=HYPERLINK("http://evil.example/x","y")'),
    ("=cmd|'/Ccalc'!A0", "'=cmd|'/Ccalc'!A0"),
    ("+1+1", "'+1+1"), ("-cmd", "'-cmd"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    # numbers written as text (a query id -1) and marks of dashes run nothing: left alone, as are ordinary ids
    ("-1", "-1"), ("--", "--"), ("-", "-"), ("--x", "'--x"), ("-0.25", "-0.25"), ("+3e5", "+3e5"),
    ("q-1", "q-1"), ("bm25", "bm25"), ("", ""),
])
def test_a_spreadsheet_cell_that_would_run_starts_with_a_quote(cell, guarded):
    assert spreadsheet_text(cell) == guarded


def test_spreadsheet_csv_guards_text_cells_and_keeps_number_columns_numbers():
    frame = pd.DataFrame({"query": ["=1+1", "-1", "@x", "q"], "diff": [-0.5, 0.25, -1.0, 0.0],
                          "n": [-1, 2, 3, 4], "=col": ["a", "b", "c", "d"]})
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        rows = list(csv.reader(io.StringIO(to_text(frame, fmt, spreadsheet=True)), delimiter=sep))
        assert rows[0] == ["query", "diff", "n", "'=col"]
        assert [r[0] for r in rows[1:]] == ["'=1+1", "-1", "'@x", "q"]
        assert [r[1] for r in rows[1:]] == ["-0.5", "0.25", "-1.0", "0.0"]       # negative numbers stay numbers
        assert [r[2] for r in rows[1:]] == ["-1", "2", "3", "4"]
        # without spreadsheet=True (the command line, the API): every value exactly
        exact = list(csv.reader(io.StringIO(to_text(frame, fmt)), delimiter=sep))
        assert [r[0] for r in exact[1:]] == ["=1+1", "-1", "@x", "q"] and exact[0][3] == "=col"
    assert to_text(frame, "json") == to_text(frame, "json", spreadsheet=True)      # only CSV and TSV


def test_evalgui_cli_writes_formula_ids_exactly(capsys, tmp_path):
    query = '=HYPERLINK("http://evil.example/x","y")'
    (tmp_path / "qrels.txt").write_text(f"{query} 0 d1 1\n{query} 0 d2 0\n-1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "a.run").write_text(f"{query} Q0 d1 1 2.0 a\n{query} Q0 d2 2 1.0 a\n-1 Q0 d1 1 1.0 a\n",
                                    encoding="utf-8")
    status, _, err = run_cli(capsys, "evaluate", tmp_path / "qrels.txt", tmp_path / "a.run", "-m", "AP",
                             "--per-query", "-o", tmp_path / "out.csv")
    assert status == 0, err
    with open(tmp_path / "out.csv", encoding="utf-8", newline="") as fh:
        cells = {cell for row in csv.reader(fh) for cell in row}
    assert query in cells and "'" + query not in cells
