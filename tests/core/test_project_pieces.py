"""Projects parsed in pieces (issue 32, point 3): the window's worker parses a project with no C call over more
than PIECE_CHARS of text (json.loads holds the GIL for a whole file: the window's thread froze while its worker
parsed a large project), giving what json.loads gives, and json's own error for bad JSON."""

from __future__ import annotations

import json
import random

import pytest

from evalgui.core import project as project_file
from evalgui.core.jobs import JobState


def _document(rnd: random.Random, depth: int = 0):
    r = rnd.random()
    if depth > 4 or r < 0.5:
        return rnd.choice([rnd.random(), rnd.randint(-10**20, 10**20), 's,]"[\\{},' + str(rnd.random()), None, True,
                           False, float("nan"), float("-inf"), "", []])
    if r < 0.75:
        return [_document(rnd, depth + 1) for _ in range(rnd.randint(0, 30))]
    return {str(rnd.random()): _document(rnd, depth + 1) for _ in range(rnd.randint(0, 5))}


@pytest.mark.parametrize("piece", [1, 3, 16, 1000])
def test_pieces_give_what_json_loads_gives(monkeypatch, piece):
    monkeypatch.setattr(project_file, "PIECE_CHARS", piece)
    monkeypatch.setattr(project_file, "FIRST_PIECE", 2)
    rnd = random.Random(piece)
    for _ in range(60):
        doc = {"x": _document(rnd), "columns": [[rnd.random() for _ in range(rnd.randint(0, 60))], ["a,b"] * 9,
                                                [{"k": "v,}"}] * 7]}
        text = json.dumps(doc, indent=rnd.choice([None, 1]))
        assert json.dumps(project_file.parse_in_pieces(text)) == json.dumps(json.loads(text))
    assert project_file.parse_in_pieces('{"a": 1, "a": 2}') == {"a": 2}          # the last of a repeated key


@pytest.mark.parametrize("bad", ["", "{", "[1,]", "[1, 2, ]", "[1,,2]", '{"a": [1, 2,], "b": 1}', "[1 2]", "[1,2,3",
                                 '["a",]', "[[1],]", "[1,2]]", "[1,2],[3]", '{"a" 1}', '{"a": 1,}', "x", "[1,2] x"])
def test_bad_json_gives_json_loads_own_error(monkeypatch, bad):
    for piece in (1, 2, 5, 1 << 20):
        monkeypatch.setattr(project_file, "PIECE_CHARS", piece)
        monkeypatch.setattr(project_file, "FIRST_PIECE", min(piece, 2))
        with pytest.raises(json.JSONDecodeError) as expected:
            json.loads(bad)
        with pytest.raises(json.JSONDecodeError) as got:
            project_file.parse_in_pieces(bad)
        assert (got.value.msg, got.value.pos) == (expected.value.msg, expected.value.pos)


def test_no_call_of_the_c_parser_reads_more_than_a_piece(monkeypatch, tmp_path):
    monkeypatch.setattr(project_file, "PIECE_CHARS", 1 << 16)
    n = 100_000
    project = {"format": "evalgui-project", "version": 2,
               "files": [{"path": f"r{i}.run", "kind": "run"} for i in range(2_000)],
               "results": {"ranked": {"rows": {"run": ["bm25"] * n, "query": [str(i) for i in range(n)],
                                               "value": [i / 7 for i in range(n)]}}}}
    path = tmp_path / "large.evalgui"
    path.write_text(json.dumps(project, indent=1))
    assert path.stat().st_size > 30 * project_file.PIECE_CHARS
    read, real = [], json.loads
    monkeypatch.setattr(project_file.json, "loads", lambda text, *a, **k: read.append(len(text)) or real(text, *a, **k))
    # the window's reading job parses in pieces
    opened = project_file.reading_job(str(path))(JobState())
    assert max(read) <= project_file.PIECE_CHARS + 2 and len(read) > 30
    assert opened["results"]["ranked"]["rows"]["value"][-1] == (n - 1) / 7 and len(opened["files"]) == 2_000
