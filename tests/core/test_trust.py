"""Untrusted files (issue 23): the trust store of projects, regular files only, a bounded gunzip."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from evalgui.core import trust
from evalgui.core.errors import EvalInputError
from evalgui.core.formats._text import check_regular, gunzip, load_bytes


def test_the_store_sits_beside_the_settings_or_where_evalgui_trust_says(tmp_path, monkeypatch):
    assert trust.store_path() == str(tmp_path / "evalgui-trust.json")        # EVALGUI_SETTINGS (tests/conftest)
    monkeypatch.setenv("EVALGUI_TRUST", str(tmp_path / "elsewhere.json"))
    assert trust.store_path() == str(tmp_path / "elsewhere.json")
    monkeypatch.delenv("EVALGUI_TRUST")
    monkeypatch.delenv("EVALGUI_SETTINGS")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    if os.name == "posix" and not os.sys.platform == "darwin":
        assert trust.store_path() == str(tmp_path / "config" / "evalgui" / "trust.json")


def test_saved_allowed_refused_and_changed_projects(tmp_path):
    project = tmp_path / "p.evalgui"
    project.write_text('{"format": "evalgui-project", "version": 2}')
    assert trust.decision(str(project)) is None                   # never seen: ask
    trust.record_saved(str(project))
    assert trust.decision(str(project)) is True
    project.write_text('{"format": "evalgui-project", "version": 2, "files": []}')
    assert trust.decision(str(project)) is None                   # changed since: ask again
    trust.remember_answer(str(project), False)
    assert trust.decision(str(project)) is False
    trust.remember_answer(str(project), True)
    assert trust.decision(str(project)) is True
    link = tmp_path / "link.evalgui"
    os.symlink(project, link)
    assert trust.decision(str(link)) is True                      # the resolved path is what counts
    stored = json.loads((tmp_path / "evalgui-trust.json").read_text())
    assert list(stored["projects"]) == [str(project)]


def test_a_broken_store_trusts_nothing(tmp_path):
    project = tmp_path / "p.evalgui"
    project.write_text("{}")
    (tmp_path / "evalgui-trust.json").write_text("[" * 100_000)
    assert trust.decision(str(project)) is None
    trust.record_saved(str(project))                              # and is replaced by a good one
    assert trust.decision(str(project)) is True


def test_eg_save_project_records_the_project_as_trusted(tmp_path):
    from evalgui.core.resources import sample_data
    from evalgui.core.workflows import workflows
    from evalgui.core.workflows.project import save_project

    synthetic = sample_data("synthetic")
    flow = workflows()["compare"]
    request = flow.request.from_json({"qrels": str(synthetic / "qrels.txt"),
                                      "runs": [str(synthetic / "bm25.run"), str(synthetic / "dense.run")]})
    path = save_project(str(tmp_path / "p.evalgui"), {"compare": request})
    assert trust.decision(path) is True


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_only_regular_files_are_read(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(EvalInputError, match="a named pipe"):
        check_regular(tmp_path / "pipe")
    with pytest.raises(EvalInputError, match="a folder"):
        check_regular(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(EvalInputError, match="a device"):
            check_regular("/dev/zero")
    if os.path.exists("/proc/self/status"):
        with pytest.raises(EvalInputError, match="reports no size"):
            check_regular("/proc/self/status")
    (tmp_path / "empty").write_text("")
    check_regular(tmp_path / "empty")                  # empty but regular: its reader says "empty"
    with pytest.raises(EvalInputError, match="no such file"):
        check_regular(tmp_path / "nothing")


def test_gunzip_stops_past_its_limit_and_says_why(tmp_path):
    bomb = gzip.compress(b"q1 Q0 d1 1 1.0 r\n" * 100_000)      # 1.7 MB from a few kB
    assert gunzip(bomb, "x.gz") == b"q1 Q0 d1 1 1.0 r\n" * 100_000
    with pytest.raises(EvalInputError, match="decompresses to more than 1,000 bytes"):
        gunzip(bomb, "x.gz", limit=1000)
    two_members = gzip.compress(b"a\n") + gzip.compress(b"b\n")
    assert gunzip(two_members, "x.gz") == b"a\nb\n"
    path = tmp_path / "bad.run.gz"
    path.write_bytes(bomb[:20])
    with pytest.raises(EvalInputError, match="not a valid gzip file"):
        load_bytes(path)
