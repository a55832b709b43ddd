"""The command line as a process (issue 8): no abort at exit, one-line warnings and errors."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "evalgui.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd)


def collection(tmp_path, n_q=40, n_d=500):
    rng = np.random.default_rng(0)
    qrels = "".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(n_q) for d in range(0, n_d, 7))
    run = "".join(f"q{q} Q0 d{d} {d + 1} {rng.random():.3f} t\n" for q in range(n_q) for d in rng.permutation(n_d))
    (tmp_path / "q.txt").write_text(qrels)
    (tmp_path / "r.txt").write_text(run)
    return tmp_path / "q.txt", tmp_path / "r.txt"


def test_many_runs_at_once_never_abort_at_exit(tmp_path):
    # Point 7: pyarrow's thread pools torn down at interpreter exit sometimes aborted (status 134,
    # "terminate called without an active exception") on a loaded machine; the CLI now leaves with
    # os._exit once its output is flushed. Runs four at a time, to load the machine a little.
    qrels, run = collection(tmp_path)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: cli("evaluate", qrels, run, "-m", "P@10", "-m", "AP"), range(40)))
    statuses = [r.returncode for r in results]
    assert statuses == [0] * 40, [r.stderr for r in results if r.returncode][:1]
    assert not any("terminate" in r.stderr for r in results)
    assert len({r.stdout for r in results}) == 1 and results[0].stdout.startswith("run,query,measure,value\n")


def test_output_is_complete_when_piped_and_on_errors(tmp_path):
    qrels, run = collection(tmp_path, n_q=3, n_d=20)
    out = cli("trec_eval", "-q", qrels, run)
    assert out.returncode == 0 and out.stdout.endswith("\n") and out.stdout.count("\n") > 30
    bad = cli("trec_eval", qrels, tmp_path / "missing.txt")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1


def test_trec_eval_ignored_parameters_warn_in_one_line(tmp_path):
    # Point 4: accepted as trec_eval accepts them, with one warning line each.
    qrels, run = collection(tmp_path, n_q=3, n_d=20)
    out = cli("trec_eval", "-m", "bpref.1", "-m", "rbp.p=0.8,rel=2", qrels, run)
    assert out.returncode == 0
    assert [line.split()[0] for line in out.stdout.splitlines()] == ["bpref", "rbp_p=0.8,rel=2"]
    warnings = out.stderr.splitlines()
    assert len(warnings) == 2 and all(w.startswith("evalgui-cli: warning: ") for w in warnings)


def test_output_to_a_folder_names_the_folder(tmp_path):
    # Point 9: not the temporary file write_atomic would have used.
    qrels, run = collection(tmp_path, n_q=3, n_d=20)
    out = cli("evaluate", qrels, run, "-m", "P@10", "-o", tmp_path)
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1
    assert str(tmp_path) in out.stderr and "folder" in out.stderr and ".tmp" not in out.stderr
