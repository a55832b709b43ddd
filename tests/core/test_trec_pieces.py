"""The TREC readers' piecewise fast path gives what the whole-file path gives."""

from __future__ import annotations

import numpy as np
import pytest

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import read_qrels, read_run, trec


def _rows(run):
    return list(zip(run.query.to_pylist(), run.doc.to_pylist(), run.score.tolist())), run.runid


def _run_text(n_queries=12, per_query=20, seed=0, sep=" "):
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(n_queries):
        docs = rng.choice(1000, per_query, replace=False)
        for rank, d in enumerate(docs):
            lines.append(sep.join([f"q{q}", "Q0", f"d{d}", str(rank + 1), f"{rng.normal():.6g}", f"tag{q}"]))
    return lines


@pytest.mark.parametrize("piece", [64, 200, 1000, 1 << 20])
@pytest.mark.parametrize("layout", ["plain", "tabs_then_spaces", "crlf", "bom_no_final_newline", "blank_lines"])
def test_pieces_match_whole_file(tmp_path, monkeypatch, piece, layout):
    lines = _run_text()
    if layout == "tabs_then_spaces":
        lines = [line.replace(" ", "\t") for line in lines[:100]] + lines[100:]
    text = "\n".join(lines) + "\n"
    if layout == "crlf":
        text = text.replace("\n", "\r\n")
    if layout == "bom_no_final_newline":
        text = "\ufeff" + text.rstrip("\n")
    if layout == "blank_lines":
        text = text.replace("\n", "\n\n", 30)
    path = tmp_path / "r.txt"
    path.write_bytes(text.encode())
    expected = _rows(read_run(path))
    monkeypatch.setattr(trec, "_PIECE", piece)
    assert _rows(read_run(path)) == expected
    assert expected[1] == "tag11"


@pytest.mark.parametrize("piece", [64, 500, 1 << 20])
def test_duplicate_across_pieces(tmp_path, monkeypatch, piece):
    lines = _run_text(n_queries=3, per_query=30)
    first = lines[0].split()
    lines.append(" ".join([first[0], "Q0", first[2], "99", "-5", "tag"]))
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(trec, "_PIECE", piece)
    with pytest.raises(EvalInputError) as info:
        read_run(path)
    assert info.value.line == len(lines)
    assert f"lines 1 and {len(lines)}" in str(info.value)


def test_bad_line_in_a_later_piece(tmp_path, monkeypatch):
    lines = _run_text(n_queries=3, per_query=30)
    lines[70] = lines[70].replace(lines[70].split()[4], "x12")
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(trec, "_PIECE", 300)
    with pytest.raises(EvalInputError) as info:
        read_run(path)
    assert info.value.line == 71
    assert "'x12' is not a number" in str(info.value)


def test_qrels_pieces(tmp_path, monkeypatch):
    lines = [f"q{i % 7} 0 d{i} {i % 3}" for i in range(300)]
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    expected = read_qrels(path)
    monkeypatch.setattr(trec, "_PIECE", 100)
    got = read_qrels(path)
    assert got.query.to_pylist() == expected.query.to_pylist()
    assert got.doc.to_pylist() == expected.doc.to_pylist()
    assert got.rel.tolist() == expected.rel.tolist()


@pytest.mark.parametrize("reader,bad", [(read_run, "1 Q0 dX 5 x12 t"), (read_run, "1 Q0 dX 5"),
                                        (read_qrels, "1 0 dX one")])
def test_a_bad_line_near_the_end_is_found_without_reading_the_file_again(tmp_path, monkeypatch, reader, bad):
    # Point 14: only a small part around the bad line is read line by line.
    lines = _run_text(n_queries=20, per_query=200)
    if reader is read_qrels:
        lines = [f"{t.split()[0]} 0 {t.split()[2]} 1" for t in lines]
    lines[-3] = bad
    path = tmp_path / "f.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(trec, "_PIECE", 20_000)
    monkeypatch.setattr(trec, "_BISECT_BELOW", 1_000)
    seen = []
    for name in ("_parse_run_slow", "_parse_qrels_slow"):
        original = getattr(trec, name)
        monkeypatch.setattr(trec, name, lambda data, *a, _f=original: seen.append(len(data)) or _f(data, *a))
    with pytest.raises(EvalInputError) as info:
        reader(path)
    assert info.value.line == len(lines) - 2
    assert seen and max(seen) < 2_000


def test_duplicate_and_nan_lines_come_from_row_numbers(tmp_path, monkeypatch):
    lines = _run_text(n_queries=5, per_query=100)
    lines[-1] = lines[-1].replace(lines[-1].split()[4], "nan")
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(trec, "_parse_run_slow", lambda *a: pytest.fail("read again line by line"))
    with pytest.raises(EvalInputError, match="NaN") as info:
        read_run(path)
    assert info.value.line == len(lines)


@pytest.mark.parametrize("start, newline, blank", [("", "\n", False), ("\ufeff", "\n", False),
                                                   ("", "\r\n", False), ("\ufeff", "\r\n", True)])
def test_lines_are_counted_only_for_errors_and_counted_right(tmp_path, monkeypatch, start, newline, blank):
    # Issue 8, point 13: lines are no longer counted while reading; an error counts them in the file
    # again (after a byte-order mark, with CRLF, with blank lines that make rows and lines differ).
    lines = _run_text(n_queries=3, per_query=30)
    if blank:
        lines[10:10] = [""]
    bad = 71 if blank else 70
    lines[bad] = lines[bad].replace(lines[bad].split()[4], "x12")
    path = tmp_path / "r.txt"
    path.write_bytes((start + newline.join(lines) + newline).encode())
    monkeypatch.setattr(trec, "_PIECE", 300)
    with pytest.raises(EvalInputError, match="'x12' is not a number") as info:
        read_run(path)
    assert info.value.line == bad + 1
    lines[bad] = lines[bad].replace("x12", "nan")
    path.write_bytes((start + newline.join(lines) + newline).encode())
    with pytest.raises(EvalInputError, match="NaN") as info:
        read_run(path)
    assert info.value.line == bad + 1
