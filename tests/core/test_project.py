"""Project files: relative paths (files and form references), and clear errors for bad project files."""

import json
import os

import pytest

from evalgui.core.errors import EvalInputError
from evalgui.core.project import make_project, read_project


def test_paths_near_the_project_are_relative_and_resolve_back(tmp_path):
    data = tmp_path / "study" / "data"
    data.mkdir(parents=True)
    qrels, run = str(data / "q.txt"), str(data / "a.run")
    far = os.path.abspath(os.sep + os.path.join("x", "y", "z", "w", "far.run"))
    project = tmp_path / "study" / "p.evalgui"
    forms = {"ranked": {"qrels": qrels, "runs": {run: True, far: False}, "measures": {"checked": {"P": "10"}}}}
    state = make_project(str(project), [(qrels, "qrels"), (run, "run"), (far, "run")], forms,
                         {"ranked": {"rows": {}}, "other": None})
    assert [f["path"] for f in state["files"]] == ["data/q.txt", "data/a.run", far.replace(os.sep, "/")]
    assert state["forms"]["ranked"]["qrels"] == "file:data/q.txt"
    assert state["forms"]["ranked"]["runs"] == {"file:data/a.run": True, "file:" + far.replace(os.sep, "/"): False}
    assert "other" not in state["results"]                       # workspaces without results are left out
    project.write_text(json.dumps(state))

    # The folder moves: everything still resolves next to the project file.
    moved = tmp_path / "moved"
    (tmp_path / "study").rename(moved)
    opened = read_project(str(moved / "p.evalgui"))
    assert [f["path"] for f in opened["files"][:2]] == [str(moved / "data" / "q.txt"), str(moved / "data" / "a.run")]
    assert opened["forms"]["ranked"]["qrels"] == str(moved / "data" / "q.txt")
    assert opened["forms"]["ranked"]["runs"] == {str(moved / "data" / "a.run"): True, far: False}
    assert opened["forms"]["ranked"]["measures"] == {"checked": {"P": "10"}}


@pytest.mark.parametrize("text, reason", [
    ("{\n  \"format\": ", "line 2: not valid JSON"),
    ("[1, 2]", "not an evalgui project"),
    ('{"format": "evalgui-project", "version": 99}', "newer than this evalgui reads"),
    ('{"format": "evalgui-project", "version": 1, "files": [{"kind": "run"}]}', "file entry 1 has no path"),
])
def test_bad_project_files_say_why(tmp_path, text, reason):
    path = tmp_path / "bad.evalgui"
    path.write_text(text)
    with pytest.raises(EvalInputError) as err:
        read_project(str(path))
    assert str(path) in str(err.value) and reason in str(err.value)


def test_missing_and_binary_project_files(tmp_path):
    with pytest.raises(EvalInputError, match="no such file"):
        read_project(str(tmp_path / "nope.evalgui"))
    binary = tmp_path / "b.evalgui"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(EvalInputError, match="not a text file"):
        read_project(str(binary))


def test_what_results_were_computed_with_is_stored_relative_too(tmp_path):
    data = tmp_path / "study" / "data"
    data.mkdir(parents=True)
    qrels, run = str(data / "q.txt"), str(data / "a.run")
    rows = {"run": ["a"], "query": [qrels], "measure": ["map"], "value": [0.5]}     # rows are left as they are
    inputs = {"qrels": qrels, "runs": [["a", run]], "measures": ["map"]}
    project = tmp_path / "study" / "p.evalgui"
    state = make_project(str(project), [(qrels, "qrels"), (run, "run")], {}, {"ranked": {"rows": rows,
                                                                                         "inputs": inputs}})
    assert state["results"]["ranked"]["inputs"] == {"qrels": "file:data/q.txt", "runs": [["a", "file:data/a.run"]],
                                                    "measures": ["map"]}
    assert state["results"]["ranked"]["rows"] == rows
    project.write_text(json.dumps(state))
    opened = read_project(str(project))
    assert opened["results"]["ranked"] == {"rows": rows, "inputs": inputs}


def test_an_outcomes_request_and_provenance_and_the_mac_model_are_stored_relative(tmp_path):
    """A shared project names no folder of the machine it was saved on: the Outcomes' requests and provenance
    and the case-based form's MAC model file are stored like the data files (the demo project held
    /work/... paths)."""
    data = tmp_path / "study" / "data"
    data.mkdir(parents=True)
    rank_file, mac = str(data / "ranks.tsv"), str(data / "mac.json")
    table = {"encoding": "columns-1", "columns": ["name"], "dtypes": ["str"], "data": [[rank_file]]}
    outcome = {"workspace": "stability", "request": {"rank_file": rank_file, "splits": [10]},
               "tables": {"legend": table}, "notes": [],
               "provenance": {"workspace": "stability", "request": {"rank_file": rank_file},
                              "inputs": [{"path": rank_file, "size": 3, "hash": "sha256:0"}]}}
    forms = {"casebase": {"mac_model": mac}}
    project = tmp_path / "study" / "p.evalgui"
    state = make_project(str(project), [(rank_file, "rank file")], forms, {"stability": {"stability": outcome}})
    text = json.dumps(state)
    saved = json.loads(text)["results"]["stability"]["stability"]
    assert saved["request"]["rank_file"] == "file:data/ranks.tsv"
    assert saved["provenance"]["inputs"][0]["path"] == "file:data/ranks.tsv"
    assert saved["tables"] == {"legend": table}                   # tables are left as they are
    assert json.loads(text)["forms"]["casebase"]["mac_model"] == "file:data/mac.json"
    assert str(tmp_path) not in text.replace(json.dumps(rank_file)[1:-1], "", 1)   # only the table's own string
    project.write_text(text)
    opened = read_project(str(project))
    assert opened["results"]["stability"]["stability"] == outcome
    assert opened["forms"]["casebase"]["mac_model"] == mac


def test_the_demo_project_names_only_files_in_its_own_folder():
    """resources/sample_data/demo.evalgui is shared with every install: no path of the machine that made it."""
    from pathlib import Path

    demo = Path(__file__).resolve().parents[2] / "resources" / "sample_data" / "demo.evalgui"
    text = demo.read_text(encoding="utf-8")
    strings = []

    def walk(value):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(k), walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            strings.append(value)

    walk(json.loads(text))
    absolute = [s for s in strings if s.startswith("/") or s.startswith("file:/") or s.startswith("file:..")
                or (len(s) > 2 and s[1] == ":" and s[2] in "\\/")]
    assert not absolute, absolute[:5]
    folder = demo.parent
    for item in read_project(str(demo), hash_files=False)["files"]:
        assert Path(item["path"]).resolve().is_relative_to(folder), item["path"]


# ---------------------------------------------------------------- saving on the worker (saving_job)
def _files(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "q.txt").write_text("1 0 d1 1\n")
    (data / "a.run").write_text("1 Q0 d1 1 1.0 a\n")
    return [(str(data / "q.txt"), "qrels"), (str(data / "a.run"), "run")]


def test_the_saving_job_writes_what_make_project_makes_and_the_results_json_it_is_handed(tmp_path):
    from evalgui.core.jobs import JobState
    from evalgui.core.project import saving_job
    from evalgui.core.trust import decision

    files, target = _files(tmp_path), str(tmp_path / "p.evalgui")
    made_on_the_worker = []
    results = {"ranked": lambda: made_on_the_worker.append(1) or {"rows": {"run": ["a"]}}, "compare": lambda: None}
    seen = []
    assert saving_job(target, files, {"ranked": {"level": 1}}, results, {}, None)(
        JobState(lambda f, m: seen.append((f, m)), min_interval=0.0)) == target
    expected = make_project(target, files, {"ranked": {"level": 1}}, {"ranked": {"rows": {"run": ["a"]}}}, {})
    assert (tmp_path / "p.evalgui").read_text() == json.dumps(expected, indent=1, allow_nan=True) + "\n"
    assert made_on_the_worker == [1] and seen[-1] == (1.0, "Saved p.evalgui")
    assert any("hashing a.run (2 of 2)" in m for _, m in seen)
    assert decision(target) is True                   # saved by this user: trusted


@pytest.mark.parametrize("stop_after", range(5))      # the 5th check: the temporary file is written
def test_a_cancelled_saving_job_leaves_the_old_file_and_no_temporary_file(tmp_path, stop_after):
    from evalgui.core.jobs import Cancelled, JobState
    from evalgui.core.project import saving_job

    files, target = _files(tmp_path), tmp_path / "p.evalgui"
    target.write_text("old")
    checks = []

    def cancelled():          # says stop at the n-th cancel check: before, between and after the hashing, the write
        checks.append(1)
        return len(checks) > stop_after

    with pytest.raises(Cancelled):
        saving_job(str(target), files, {}, {}, {}, None)(JobState(is_cancelled=cancelled))
    assert target.read_text() == "old" and [n for n in os.listdir(tmp_path) if n.startswith(".evalgui-")] == []


def test_a_hash_cache_reads_each_file_version_once(tmp_path, monkeypatch):
    from evalgui.core import hashing

    path = tmp_path / "a.run"
    path.write_text("one\n")
    read = []
    original = hashing.content_hash
    monkeypatch.setattr(hashing, "content_hash", lambda p, check=None: read.append(p) or original(p, check))
    cache = hashing.HashCache()
    first = cache.content_hash(str(path))
    assert cache.content_hash(str(path)) == first == original(str(path)) and len(read) == 1
    path.write_text("two\n")                          # a new version (size, times): read again
    assert cache.content_hash(str(path)) == original(str(path)) != first and len(read) == 2
    assert cache.content_hash(str(tmp_path / "missing")) is None


def test_hashing_a_huge_file_stops_at_a_cancel(tmp_path):
    from evalgui.core import hashing
    from evalgui.core.jobs import Cancelled

    path = tmp_path / "big.run"
    path.write_bytes(b"x" * (5 * hashing._CHUNK))
    chunks = []

    def check():
        chunks.append(1)
        if len(chunks) == 2:
            raise Cancelled()

    cache = hashing.HashCache()
    with pytest.raises(Cancelled):
        cache.content_hash(str(path), check)
    assert len(chunks) == 2                            # stopped after the first MiB, not read to the end
    assert cache.content_hash(str(path)) == hashing.content_hash(str(path))      # nothing half-kept
