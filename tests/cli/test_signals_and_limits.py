"""Issue 32, points 4-6: signals at any moment, every output atomic (plots too), low memory limits.

Each test runs evalgui-cli as a process: what is checked is the exit status, stderr and the files left.
"""

from __future__ import annotations

import os
import random
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_run_project import make_project

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="signals, resource limits and /proc/PID/status are Linux's")
PROGRESS = re.compile(r"evalgui-cli: \w+: \d+%")
TEMPORARY = ".evalgui-"


def env_for(tmp_path) -> dict:
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(temp)}


def start(tmp_path, *args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evalgui.cli", *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env_for(tmp_path), **kwargs)


def cli(tmp_path, *args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalgui.cli", *map(str, args)], capture_output=True, text=True,
                          env=env_for(tmp_path), timeout=120, **kwargs)


def said(stderr: str) -> list[str]:
    """stderr less the progress lines of ``run`` and the caveats that come after the results (issue 38)."""
    return [line for line in stderr.splitlines() if not PROGRESS.match(line) and not line.startswith("caveat: ")]


def temporaries(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.startswith(TEMPORARY)]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A folder with qrels, three runs and a project p.evalgui holding a comparison and a preference."""
    folder = tmp_path_factory.mktemp("data")
    make_project(folder)
    return folder


def commands(data: Path, out: Path) -> dict[str, list]:
    """Name -> the arguments of a command writing into ``out`` (a folder, or a file there)."""
    qrels, runs = data / "qrels.txt", [data / f"{r}.run" for r in ("bm25", "dense", "rerank")]
    return {
        "run": ["run", data / "p.evalgui", "-o", out],
        "run --no-plots": ["run", data / "p.evalgui", "-o", out, "--no-plots"],
        "report": ["report", data / "p.evalgui", "-o", out / "report.html"],
        "evaluate": ["evaluate", qrels, *runs, "-m", "AP", "-m", "nDCG@10", "--per-query", "-o", out / "e.csv"],
        "compare": ["compare", qrels, *runs, "-m", "AP", "--test", "randomization", "--samples", "2000", "--seed",
                    "1", "-o", out / "c.csv"],
        "trec_eval": ["trec_eval", "-q", qrels, runs[0]],
    }


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its SigCgt mask); False once it has ended."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            mask = next(line for line in fh if line.startswith("SigCgt:")).split()[1]
    except (OSError, StopIteration):
        return False
    return bool(int(mask, 16) >> (signum - 1) & 1)


def test_signals_at_random_moments_end_every_subcommand_with_128_plus_n_and_one_line(data, tmp_path):
    """SIGTERM, SIGHUP and SIGINT at random moments of six subcommands (start-up, reading, computing, Qt drawing,
    writing): 128 + N, one line, no traceback, no crash, and every file under its final name whole."""
    spent, references = {}, {}
    for i, name in enumerate(commands(data, tmp_path)):
        references[name] = tmp_path / f"reference{i}"
        references[name].mkdir()
        began = time.monotonic()
        done = cli(tmp_path, *commands(data, references[name])[name])
        spent[name] = time.monotonic() - began
        assert done.returncode == 0 and said(done.stderr) == [], (name, done.stderr)
    rng = random.Random(os.getpid())
    tries = [(name, signum) for name in spent for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)]
    stopped = 0
    for i, (name, signum) in enumerate(tries):
        out = tmp_path / f"out{i}"
        out.mkdir()
        process = start(tmp_path, *commands(data, out)[name])
        # From evalgui's first line on (before it, the interpreter's start-up is Python's, not ours): the handler
        # is installed before anything heavy is imported.
        deadline = time.monotonic() + 60
        while not _catches(process.pid, signal.SIGHUP) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, spent[name]))
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
        lines = said(err)
        where = (name, signal.Signals(signum).name, process.returncode, err[-2000:])
        assert "Traceback" not in err, where
        if process.returncode == 0:                        # it had finished: all of it, and nothing said
            assert lines == [], where
        else:
            assert process.returncode == 128 + signum, where
            assert lines == [f"evalgui-cli: stopped by {signal.Signals(signum).name}"
                             f"{' (Ctrl+C)' if signum == signal.SIGINT else ''}"], where
            stopped += 1
        assert temporaries(out) == [], where
        assert [n for n in os.listdir(tmp_path / "tmp") if n.startswith("evalgui-")] == [], where   # pipes' copies
        for file in out.iterdir():                          # whatever has its final name is whole
            if file.name == "report.html":                  # dated: whole is all that can be checked
                assert file.read_text(encoding="utf-8").endswith("</html>\n"), where
            else:
                assert file.read_bytes() == (references[name] / file.name).read_bytes(), (file.name, where)
    assert stopped >= len(tries) // 2, f"only {stopped} of {len(tries)} runs were still running when signalled"


def test_a_run_killed_mid_write_leaves_a_temporary_file_that_the_next_run_removes(data, tmp_path):
    from tests.cli.test_untrusted_inputs import _SLOW_WRITE        # holds the first write before its rename

    out = tmp_path / "out"
    killed = subprocess.Popen([sys.executable, "-c", _SLOW_WRITE, "run", data / "p.evalgui", "-o", out],
                              stderr=subprocess.PIPE, text=True, env=env_for(tmp_path))
    while (line := killed.stderr.readline()) != "writing\n":
        assert line, "the run ended before writing"
    killed.kill()                                 # SIGKILL: no handler runs
    killed.wait(30)
    left = temporaries(out)
    assert len(left) == 1 and left[0].startswith(f"{TEMPORARY}{killed.pid}-"), left
    assert os.listdir(out) == left                # the table being written was never renamed
    # and one of an older evalgui (no process id), a day and more old; one of a process that runs (this one)
    (out / ".evalgui-0123abcd.tmp").write_text("half")
    os.utime(out / ".evalgui-0123abcd.tmp", (time.time() - 2 * 86400,) * 2)
    running = f"{TEMPORARY}{os.getpid()}-89abcdef.svg"
    (out / running).write_text("being written")
    done = cli(tmp_path, "run", data / "p.evalgui", "-o", out, "--no-plots")
    assert done.returncode == 0, done.stderr
    assert temporaries(out) == [running]


def test_a_plot_that_cannot_be_written_is_one_line_and_leaves_nothing_partial(data, tmp_path):
    """A full disk, as a file-size limit (RLIMIT_FSIZE binds root too): the tables (under 16 KiB) are written, the
    first plot (a PNG of about 80 KiB) is not. It said nothing and exited 0, leaving truncated PNGs under their
    final names, with libpng's "Write Error" on stderr."""
    out = tmp_path / "out"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (48 << 10, resource.RLIM_INFINITY))

    done = cli(tmp_path, "run", data / "p.evalgui", "-o", out, preexec_fn=small_files)
    assert done.returncode == 2, done.stderr
    assert said(done.stderr) == [f"evalgui-cli: error: {out / 'compare-heatmap-AP.png'}: File too large"]
    assert (out / "compare-comparison.csv").exists()
    assert not [name for name in os.listdir(out) if name.endswith((".png", ".svg"))] and temporaries(out) == []


@pytest.mark.parametrize("kib", [150_000, 200_000, 250_000, 300_000, 700_000])
def test_a_low_memory_limit_is_exit_2_and_one_line_naming_it_never_an_abort(data, tmp_path, kib):
    """Under ``ulimit -v``: Arrow's allocators aborted (134: "<jemalloc>: arena 0 background thread creation
    failed ... std::bad_alloc") or a library crashed (139) while loading, and ``run`` hung drawing plots at 700,000
    KiB (scipy's OpenBLAS retrying a failed buffer for ever); now the limit is named, or it fits."""
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (kib << 10, resource.RLIM_INFINITY))

    qrels, run = data / "qrels.txt", data / "bm25.run"
    for args in (["evaluate", qrels, run, "-m", "AP"], ["trec_eval", qrels, run], ["measures", "map"],
                 ["run", data / "p.evalgui", "-o", tmp_path / "out"]):
        done = cli(tmp_path, *args, preexec_fn=limited)
        where = (kib, args[0], done.returncode, done.stderr[-1500:])
        assert done.returncode in (0, 2), where
        if done.returncode == 2:
            lines = said(done.stderr)
            assert len(lines) == 1 and lines[0].startswith("evalgui-cli: error: "), where
            assert f"address-space limit (ulimit -v) of {kib * 1024 / 2**20:,.0f} MiB" in lines[0], where
