"""Crafted projects (issue 32): each is one line on stderr naming the project file, exit status 2, and what
eg.save_project writes for unusual inputs. Every crafted file is made here, in tmp_path."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import evalgui as eg
from evalgui.core import project as project_file
from evalgui.core.errors import EvalInputError
from evalgui.core.resources import sample_data
from tests.test_cli import run_cli

SYNTHETIC = sample_data("synthetic")


def _data(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for name in ("qrels.txt", "bm25.run", "dense.run"):
        shutil.copy(SYNTHETIC / name, data / name)
    return data


def _write(path, project: dict) -> str:
    # json.dumps escapes a lone surrogate and a NUL ("\ud800", "\u0000"), as a crafted file holds them
    path.write_text(json.dumps(project), encoding="ascii")
    return str(path)


def _ranked_request_project(tmp_path, runs) -> str:
    _data(tmp_path)
    return _write(tmp_path / "crafted.evalgui", {
        "format": "evalgui-project", "version": 2,
        "files": [{"path": "data/qrels.txt", "kind": "qrels"}, {"path": "data/bm25.run", "kind": "run"}],
        "requests": {"ranked": {"qrels": "file:data/qrels.txt", "runs": runs, "measures": ["AP"]}}})


def _one_line(capsys, *argv):
    status, out, err = run_cli(capsys, *argv)
    assert status == 2 and len(err) == 1, (status, err)
    return err[0]


@pytest.mark.parametrize("bad, reason", [("file:data/\ud800.run", "a character that is not text"),
                                         ("file:data/b\u0000.run", "a NUL character"),
                                         ("/tmp/\ud800.run", "a character that is not text")])
def test_a_request_path_that_cannot_name_a_file_is_one_line(capsys, tmp_path, bad, reason):
    path = _ranked_request_project(tmp_path, ["file:data/bm25.run", bad])
    line = _one_line(capsys, "run", path, "-o", tmp_path / "out", "--no-plots")
    assert path in line and 'requests, "ranked", "runs", item 2' in line and reason in line
    assert "\\u" in line or "\\x00" in line or "\\ud800" in line          # the bad path shown escaped, on one line
    assert not (tmp_path / "out").exists()


def test_a_file_entry_that_cannot_name_a_file_is_one_line(capsys, tmp_path):
    path = _write(tmp_path / "crafted.evalgui", {"format": "evalgui-project", "version": 2,
                                                 "files": [{"path": "a.run"}, {"path": "\ud800.run"}]})
    line = _one_line(capsys, "run", path, "-o", tmp_path / "out")
    assert path in line and "file entry 2" in line and "not text" in line


def _saved_ranked(tmp_path) -> str:
    data = _data(tmp_path)
    outcome = eg.evaluate(str(data / "qrels.txt"), [str(data / "bm25.run"), str(data / "dense.run")], ["AP"],
                          per_query=True)
    return eg.save_project(str(tmp_path / "saved.evalgui"), outcome)


@pytest.mark.parametrize("change, reason", [
    (lambda t: t["columns"].__setitem__(t["columns"].index("value"), "valeur"), "has no column 'value'"),
    (lambda t: (t["dtypes"].__setitem__(t["columns"].index("value"), "str"),
                t["data"].__setitem__(t["columns"].index("value"), ["x"] * len(t["data"][0]))),
     "column 'value' holds other than numbers"),
])
def test_a_malformed_saved_table_is_one_line_naming_the_table(capsys, tmp_path, change, reason):
    path = _saved_ranked(tmp_path)
    project = json.loads(open(path).read())
    change(project["results"]["ranked"]["ranked"]["tables"]["summary"])
    _write(tmp_path / "saved.evalgui", project)
    line = _one_line(capsys, "report", path, "-o", tmp_path / "r.html")
    assert path in line and 'the saved results of "ranked", table "summary"' in line and reason in line
    assert not (tmp_path / "r.html").exists()


def _many_objects(tmp_path, n: int) -> str:
    path = tmp_path / "big.evalgui"
    path.write_text('{"format": "evalgui-project", "version": 2, "files": [' + "{}," * n + "{}]}")
    return str(path)


def test_a_project_too_big_for_memory_is_refused_before_parsing(capsys, tmp_path, monkeypatch):
    # The limit is lowered so that a small file trips it; parsing it would fail the test.
    monkeypatch.setattr(project_file, "MAX_PROJECT_MEMORY", 8 << 20)
    monkeypatch.setattr(project_file.json, "loads", lambda *a, **k: pytest.fail("the project was parsed"))
    path = _many_objects(tmp_path, 100_000)
    line = _one_line(capsys, "run", path, "-o", tmp_path / "out")
    assert path in line and "opening it would take about 26 MiB of memory (100,003 objects and lists, 100,002 items)" in line
    assert "more than the 8 MiB a project may take" in line


def test_a_500_mb_project_of_empty_objects_is_refused_at_a_thousandth_of_the_scale(tmp_path, monkeypatch):
    # The audit's 500 MB of {} entries (under the 512 MB cap), and the cap on what opening a project takes,
    # both divided by 1,000: the estimate grows as the text does, so the real file is refused as this one is.
    monkeypatch.setattr(project_file, "MAX_PROJECT_MEMORY", project_file.MAX_PROJECT_MEMORY // 1000)
    path = _many_objects(tmp_path, 500_000 // 3)
    with pytest.raises(EvalInputError, match="opening it would take about 44 MiB of memory"):
        project_file.read_project(path)


@pytest.mark.parametrize("content", ["[1, 2, 3]", "  \n 42", '"text"', "null"])
def test_json_that_is_not_an_object_is_refused_from_its_first_character(capsys, tmp_path, monkeypatch, content):
    monkeypatch.setattr(project_file.json, "loads", lambda *a, **k: pytest.fail("the project was parsed"))
    path = tmp_path / "list.evalgui"
    path.write_text(content)
    line = _one_line(capsys, "run", path, "-o", tmp_path / "out")
    assert str(path) in line and "not an evalgui project (its JSON is not an object)" in line


def test_the_same_file_listed_many_times_is_read_once(tmp_path, monkeypatch):
    from evalgui.core import hashing

    data = _data(tmp_path)
    digest = hashing.content_hash(str(data / "qrels.txt"))
    path = _write(tmp_path / "dup.evalgui", {
        "format": "evalgui-project", "version": 2,
        "files": [{"path": "data/qrels.txt", "kind": "qrels", "hash": digest},
                  {"path": "./data//qrels.txt", "kind": "qrels", "hash": digest}] * 10_000})
    calls = []
    real = hashing.content_hash
    monkeypatch.setattr(hashing, "content_hash", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    read = project_file.read_project(path)
    assert read["files"] == [{"path": str(data / "qrels.txt"), "kind": "qrels", "hash": digest}]
    assert calls == [str(data / "qrels.txt")] and read["changed"] == []


def test_deep_nesting_in_forms_is_refused_in_one_line(capsys, tmp_path):
    form = inner = {}
    for _ in range(500):           # within what the JSON parser takes; deeper than any form
        inner["a"] = {}
        inner = inner["a"]
    path = _write(tmp_path / "deep.evalgui", {"format": "evalgui-project", "version": 2, "forms": {"ranked": form}})
    line = _one_line(capsys, "run", path, "-o", tmp_path / "out")
    assert path in line and '"forms" is nested too deeply to be a project' in line


def test_the_trust_question_names_where_a_link_leads(tmp_path):
    from evalgui.core import trust

    outside = tmp_path / "elsewhere" / "passwd"
    outside.parent.mkdir()
    outside.write_text("secret\n")
    folder = tmp_path / "project"
    (folder / "etcdir").mkdir(parents=True)
    os.symlink(outside.parent, folder / "etcdir" / "link")
    named = str(folder / "etcdir" / "link" / "passwd")
    assert trust.outside_folder(str(folder / "p.evalgui"), [named]) == [named]
    assert trust.where_it_leads(named) == f"{outside} (through the link {named})"
    assert trust.where_it_leads(str(outside)) == str(outside)


def test_save_project_keeps_untested_preferences(tmp_path):
    data = _data(tmp_path)
    outcome = eg.preference(str(data / "qrels.txt"), [str(data / "bm25.run"), str(data / "dense.run")])
    path = eg.save_project(str(tmp_path / "pref.evalgui"), outcome)
    reopened = eg.open_project(path)
    assert set(reopened.outcomes) == {"preference"} and not reopened.problems
    assert len(reopened.outcomes["preference"].tables["pairs"]) == len(outcome.tables["pairs"]["run_a"])


def test_save_project_takes_a_real_file_whose_name_starts_with_a_bracket(tmp_path, monkeypatch):
    import pandas as pd

    data = _data(tmp_path)
    for name in ("<b>.run", "<c>"):
        shutil.copy(data / "bm25.run", data / name)
    monkeypatch.chdir(data)
    outcome = eg.evaluate("qrels.txt", ["<b>.run", "<c>"], ["AP"])
    path = eg.save_project(str(tmp_path / "brackets.evalgui"), outcome)
    saved = json.loads(open(path).read())
    assert [(f["path"], f["kind"]) for f in saved["files"]] == [
        ("data/qrels.txt", "qrels"), ("data/<b>.run", "run"), ("data/<c>", "run")]
    # data in memory is still refused, by what it is
    run = pd.read_csv(data / "bm25.run", sep=r"\s+", header=None, names=["query", "q0", "doc", "rank", "score", "tag"])
    in_memory = eg.evaluate("qrels.txt", {"mine": run}, ["AP"])
    with pytest.raises(ValueError, match="is data in memory"):
        eg.save_project(str(tmp_path / "memory.evalgui"), in_memory)


def test_save_project_lists_model_files_as_models(tmp_path):
    cbr = tmp_path / "cbr"
    shutil.copytree(sample_data("cbr"), cbr)
    outcome = eg.casebase(str(cbr / "cars.csv"), test=str(cbr / "queries.csv"), model=str(cbr / "model.json"),
                          mac_model=str(cbr / "mac_model.json"), filter_sizes=(10,), ks=(5,))
    saved = json.loads(open(eg.save_project(str(tmp_path / "cbr.evalgui"), outcome)).read())
    assert {f["path"]: f["kind"] for f in saved["files"]} == {
        "cbr/cars.csv": "case base", "cbr/queries.csv": "case base", "cbr/model.json": "similarity model",
        "cbr/mac_model.json": "similarity model"}


def test_a_multi_line_message_is_one_line(capsys, tmp_path, monkeypatch):
    import dataclasses

    from evalgui.core import workflows

    path = _ranked_request_project(tmp_path, ["file:data/bm25.run"])

    def broken(*args, **kwargs):
        raise EvalInputError(str(tmp_path / "data" / "bm25.run"), "first line\nsecond line")

    flows = workflows.workflows()
    flows["ranked"] = dataclasses.replace(flows["ranked"], run=broken)
    monkeypatch.setattr(workflows, "workflows", lambda: flows)
    status, _, err = run_cli(capsys, "run", path, "-o", tmp_path / "out", "--no-plots")
    assert status == 2 and len(err) == 1 and "first line\\nsecond line" in err[0], err
