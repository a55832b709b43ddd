"""Atomic writes: the target holds the old or the whole new content, with the mode open() would give."""

from __future__ import annotations

import os
import stat

import pytest

from evalgui.core.export import atomic_path, write_atomic


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _leftovers(folder) -> list[str]:
    return [n for n in os.listdir(folder) if n.startswith(".evalgui-") or n.endswith(".tmp")]


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_new_file_gets_the_umask_mode_and_a_replaced_file_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "out.csv"
    write_atomic(target, "a\n")
    assert _mode(target) == 0o644 and target.read_text() == "a\n"
    os.chmod(target, 0o640)
    write_atomic(target, "b\n")
    assert _mode(target) == 0o640 and target.read_text() == "b\n"
    os.umask(0o077)                       # the umask is read afresh for every new file
    write_atomic(tmp_path / "private.csv", "c\n")
    assert _mode(tmp_path / "private.csv") == 0o600
    assert _leftovers(tmp_path) == []


def test_failure_keeps_the_old_content_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            with open(tmp, "w") as fh:
                fh.write("half")
            raise RuntimeError("writer failed")
    assert target.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_errors_name_the_path_given_not_the_temporary_file(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as raised:
        write_atomic(folder, "x")
    assert raised.value.filename == str(folder) and ".tmp" not in str(raised.value)
    missing = tmp_path / "no" / "out.csv"
    with pytest.raises(FileNotFoundError) as raised:
        write_atomic(missing, "x")
    assert raised.value.filename == str(missing)
    assert _leftovers(tmp_path) == [] and _leftovers(folder) == []


def test_atomic_path_keeps_the_suffix_for_writers_that_read_it(tmp_path):
    with atomic_path(tmp_path / "plot.png", suffix=".png") as tmp:
        assert tmp.endswith(".png") and os.path.dirname(tmp) == str(tmp_path)
        with open(tmp, "wb") as fh:
            fh.write(b"png")
    assert (tmp_path / "plot.png").read_bytes() == b"png"


def test_a_temporary_file_carries_the_writer_s_process_id_and_is_known_while_written(tmp_path):
    from evalgui.core import export

    with atomic_path(tmp_path / "out.csv") as tmp:
        assert os.path.basename(tmp).startswith(f".evalgui-{os.getpid()}-") and tmp in export.UNFINISHED
        export.remove_unfinished()                 # what a signal's handler does before the process ends
        assert not os.path.exists(tmp) and not export.UNFINISHED
        with open(tmp, "w") as fh:                 # (the writer carries on here, as the process would not)
            fh.write("x")
    assert not export.UNFINISHED


@pytest.mark.skipif(os.name != "posix", reason="process ids are checked with kill(pid, 0)")
def test_writing_into_a_folder_removes_what_killed_writers_left_there(tmp_path, monkeypatch):
    import subprocess
    import sys
    import time

    from evalgui.core import export

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    old = time.time() - export.ABANDONED_AFTER - 60
    names = {"dead": f".evalgui-{ended.pid}-0123abcd.png", "alive": f".evalgui-{os.getpid()}-0123abcd.svg",
             "legacy-old": ".evalgui-89abcdef.tmp", "legacy-new": ".evalgui-fedcba98.tmp",
             "alive-but-old": f".evalgui-{os.getpid()}-00000000.tmp", "not-ours": ".evalgui-notes.txt"}
    for key, name in names.items():
        (tmp_path / name).write_text("half")
        if key.endswith("old"):
            os.utime(tmp_path / name, (old, old))
    monkeypatch.setattr(export, "_TIDIED", set())
    write_atomic(tmp_path / "out.csv", "a\n")
    kept = {key for key, name in names.items() if (tmp_path / name).exists()}
    assert kept == {"alive", "legacy-new", "not-ours"}
    (tmp_path / names["dead"]).write_text("half")
    write_atomic(tmp_path / "out.csv", "b\n")      # once per folder and process: listed at the first write only
    assert (tmp_path / names["dead"]).exists()
