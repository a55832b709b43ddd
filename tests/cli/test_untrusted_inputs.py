"""Issue 23, the command line: endless inputs, signals, silent wrong answers, exit 2 with one line,
formats that agree. Limits are tested small (monkeypatched constants, RLIMIT_FSIZE in a subprocess)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_cli import QRELS, RUN, run_cli, write

ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(os.name != "posix", reason="pipes, signals and resource limits are POSIX")


def cli(*args, env=None, preexec_fn=None, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "evalgui.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, preexec_fn=preexec_fn, timeout=120, **kwargs)


def one_error(err) -> str:
    lines = err.splitlines() if isinstance(err, str) else err
    assert len(lines) == 1 and lines[0].startswith("evalgui-cli: error: "), lines
    return lines[0].removeprefix("evalgui-cli: error: ")


# A run of 300 lines (about 6 KiB), every document once.
BIG_RUN = "".join(f"1 Q0 d{i} {i} {1000 - i} t\n" for i in range(1, 301))


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)


# ---------------------------------------------------------------- point 5: endless inputs

@posix_only
def test_a_device_without_newlines_is_refused_at_line_1_not_spooled_forever(capsys, files, monkeypatch):
    from evalgui.core.formats import _text

    monkeypatch.setattr(_text, "MAX_LINE_BYTES", 4096)
    status, _, err = run_cli(capsys, "evaluate", files[0], "/dev/zero", "-m", "AP")
    assert status == 2 and one_error(err) == "/dev/zero, line 1: a line longer than 4,096 bytes: not a text file " \
                                             "evalgui reads"


def test_a_long_line_is_refused_at_its_line_number(tmp_path):
    from evalgui.core.errors import EvalInputError
    from evalgui.core.formats import _text

    path = write(tmp_path, "q.txt", "1 0 d1 1\n" * 3 + "x" * (_text.MAX_LINE_BYTES + 1) + "\n1 0 d2 1\n")
    with pytest.raises(EvalInputError) as raised:
        _text.load_bytes(path)
    assert raised.value.line == 4
    assert _text.long_line_start(b"ab\ncdef\ng", 3) == 3 and _text.long_line_start(b"ab\ncde\nfg", 3) == -1


def _fifo(tmp_path, name: str, text: str):
    import threading

    pipe = tmp_path / name
    os.mkfifo(pipe)

    def feed():
        try:
            with open(pipe, "w") as fh:
                fh.write(text)
        except BrokenPipeError:
            pass
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return pipe


@posix_only
def test_a_pipe_stops_at_the_size_limit_the_user_can_raise(capsys, files, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALGUI_PIPE_LIMIT", "1K")
    pipe = _fifo(tmp_path, "bm25", BIG_RUN)
    status, _, err = run_cli(capsys, "evaluate", files[0], pipe, "-m", "AP")
    assert status == 2 and one_error(err).startswith(f"{pipe}: stopped reading after 1 KiB, the limit for a pipe")
    assert "EVALGUI_PIPE_LIMIT" in err[0]
    monkeypatch.setenv("EVALGUI_PIPE_LIMIT", "1M")
    pipe = _fifo(tmp_path, "bm25b", BIG_RUN)
    status, out, err = run_cli(capsys, "evaluate", files[0], pipe, "-m", "AP")
    assert status == 0 and len(err) == 1 and f"no results in {pipe} " in err[0]     # named as given


@posix_only
def test_a_pipe_stops_before_filling_the_disk(capsys, files, tmp_path, monkeypatch):
    from evalgui.cli import common

    monkeypatch.setattr(common, "FREE_SPACE_MARGIN", 1 << 62)
    pipe = _fifo(tmp_path, "bm25", RUN)
    status, _, err = run_cli(capsys, "evaluate", files[0], pipe, "-m", "AP")
    assert status == 2 and one_error(err).startswith(f"{pipe}: stopped reading after 0 bytes: its copy would fill")


@posix_only
def test_a_copy_cut_short_by_a_file_size_limit_names_the_pipe(files, tmp_path):
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = cli("evaluate", files[0], "/dev/stdin", "-m", "AP", input=BIG_RUN, preexec_fn=small_files)
    assert out.returncode == 2 and one_error(out.stderr).startswith("/dev/stdin: cannot copy it to the temporary")


# ---------------------------------------------------------------- point 6: signals

# The CLI, with the atomic write held open (its temporary file exists) until the test signals it.
_SLOW_WRITE = """
import contextlib, sys, time
from evalgui.core import export
atomic = export.atomic_path
@contextlib.contextmanager
def held(path, suffix=".tmp"):
    with atomic(path, suffix) as tmp:
        yield tmp
        sys.stderr.write("writing\\n"); sys.stderr.flush(); time.sleep(60)
export.atomic_path = held
from evalgui.cli import main
main()
"""


@posix_only
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_o_leaves_no_temporary_file_and_no_spool_folder(files, tmp_path, signum):
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "out.csv"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    with open(files[1], "rb") as run:
        process = subprocess.Popen([sys.executable, "-c", _SLOW_WRITE, "evaluate", files[0], "/dev/stdin", "-m",
                                    "AP", "-o", out], stdin=run, stderr=subprocess.PIPE, text=True, env=env)
        assert process.stderr.readline() == "writing\n"
        assert [p for p in os.listdir(tmp_path) if p.startswith(".evalgui-")]
        assert [p for p in os.listdir(temp) if p.startswith("evalgui-pipes-")]
        process.send_signal(signum)
        assert process.wait(30) == 128 + signum
    assert process.stderr.read() == f"evalgui-cli: stopped by {signal.Signals(signum).name}\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".evalgui-")] and not out.exists()
    assert os.listdir(temp) == []


@posix_only
def test_a_signal_while_a_pipe_is_read_exits_128_plus_it_and_removes_the_copy(files, tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    process = subprocess.Popen([sys.executable, "-m", "evalgui.cli", "evaluate", files[0], "/dev/stdin", "-m", "AP"],
                               stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    process.stdin.write(RUN.encode())
    process.stdin.flush()
    deadline = time.monotonic() + 30
    while not os.listdir(temp) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 128 + signal.SIGTERM
    process.stdin.close()
    assert os.listdir(temp) == []


def test_a_spool_folder_of_a_killed_run_is_removed_at_the_next_start(files, tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    abandoned = temp / f"evalgui-pipes-{gone.pid}-abcd1234"
    (abandoned / "0").mkdir(parents=True)
    (abandoned / "0" / "run").write_text(RUN)
    running = temp / f"evalgui-pipes-{os.getpid()}-abcd1234"       # its process still runs
    running.mkdir()
    other = temp / "evalgui-pipes-unrelated"
    other.mkdir()
    out = cli("evaluate", *files, "-m", "AP", env={"TMPDIR": str(temp)})
    assert out.returncode == 0
    assert sorted(os.listdir(temp)) == sorted([running.name, other.name])


# ---------------------------------------------------------------- point 7: no silent wrong answers

def _ranks(tmp_path, name: str, cells: list[list[str]]) -> str:
    rows = ["E\tA\tB"] + ["\t".join([f"e{i}", *row]) for i, row in enumerate(cells, 1)]
    return write(tmp_path, name, "\n".join(rows) + "\n")


def test_stability_warns_about_a_run_sharing_no_query_with_the_qrels(capsys, files, tmp_path):
    qrels, run = files
    other = write(tmp_path, "other.txt", RUN.replace("1 Q0", "7 Q0").replace("2 Q0", "8 Q0"))
    status, out, err = run_cli(capsys, "stability", "--qrels", qrels, run, other, "-p", "actual", "-m", "AP")
    assert status == 0 and err[0] == f"evalgui-cli: warning: {other} has no query in {qrels}; it ranks no " \
                                     "relevant document"
    status, _, err = run_cli(capsys, "stability", "--qrels", qrels, other, other, "-p", "actual", "-m", "AP")
    assert status == 2 and one_error(err).startswith("no query has both results and relevance information")
    # Refused settings stay one line: the warning is said only once they are checked.
    status, _, err = run_cli(capsys, "stability", "--qrels", qrels, run, other, "-m", "nosuch")
    assert status == 2 and one_error(err).startswith("-m nosuch: unknown rank measure")


@pytest.mark.parametrize("cell, reason", [
    ("inf", "the rank 'inf' of system B is not a finite number"),
    ("nan", "the rank 'nan' of system B is not a finite number"),
    ("1e308", "the rank 1e308 of system B is above 1e15 (more entities than any ranking holds)"),
    ("1_0", "the rank '1_0' of system B is not a number"),
    ("\u0661\u0662", "the rank '\u0661\u0662' of system B is not a number"),
    ("\uff11", "the rank '\uff11' of system B is not a number"),
])
def test_rank_files_refuse_what_would_overflow_or_is_not_a_plain_number(capsys, tmp_path, cell, reason):
    path = _ranks(tmp_path, "ranks.txt", [["1", "2"], ["3", cell], ["2", "1"]])
    status, _, err = run_cli(capsys, "stability", path, "-n", "100", "-p", "actual")
    assert status == 2 and one_error(err) == f"{path}, line 3: {reason}"


def test_huge_per_query_scores_are_refused_at_their_line(capsys, tmp_path):
    scores = write(tmp_path, "scores.csv", "run,query,measure,value\na,1,AP,0.5\nb,1,AP,0.25\na,2,AP,0.1\n"
                                           "b,2,AP,1e308\na,3,AP,0.3\nb,3,AP,0.2\n")
    for argv in (["compare", "--scores", scores], ["metaeval", "--scores", scores, "--experiment", "power"]):
        status, out, err = run_cli(capsys, *argv)
        assert status == 2 and out == "" and one_error(err) == (
            f"{scores}, line 5: the value '1e308' is too large: per-query scores are read up to ±1e100, beyond "
            "which the statistics would overflow")


# ---------------------------------------------------------------- point 8: exit 2 and one line

def test_usage_that_was_an_internal_error_is_exit_2_with_one_line(capsys, tmp_path):
    from evalgui.core.resources import sample_data

    gt = write(tmp_path, "gt.csv", "query_id,case_id,similarity\nq1,a,0.9\nq1,b,0.5\n")
    status, _, err = run_cli(capsys, "similarity", "--ground-truth", gt, "--predicted", f"a={gt}",
                             "-k", "999999999999999999999")
    assert status == 2 and one_error(err) == "-k 999999999999999999999: must be at most 1,000,000,000,000 " \
                                             "(a limit that protects the arrays' whole numbers)"
    cars, model = sample_data("cbr") / "cars.csv", sample_data("cbr") / "model.json"
    status, _, err = run_cli(capsys, "casebase", "--train", cars, "--model", model, "--delimiter", "")
    assert status == 2 and one_error(err) == "the delimiter of set values must be at least one character " \
                                             "(default ';')"
    deep = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    status, _, err = run_cli(capsys, "casebase", "--train", cars, "--model", deep)
    assert status == 2 and one_error(err) == f"{deep}: the JSON is nested too deeply to read"
    deep_cases = write(tmp_path, "cases.json", '[{"id": 1, "a": ' + "[" * 100_000 + "]" * 100_000 + "}]")
    status, _, err = run_cli(capsys, "casebase", "--train", deep_cases, "--model", model)
    assert status == 2 and one_error(err) == f"{deep_cases}, line 1: the JSON is nested too deeply to read"
    ranks = _ranks(tmp_path, "ranks.txt", [["1", "2"], ["3", "4"], ["2", "1"]])
    for argv in (["stability", ranks, "-n", "100", "-s", "-1"], ["stability", ranks, "-n", "1e400"]):
        status, _, err = run_cli(capsys, *argv)
        assert status == 2 and one_error(err) in ("-s -1: must be at least 0",
                                                  "-n 1e400: '1e400' is not a finite number")


def test_numpy_warnings_become_one_warning_line(capsys, monkeypatch):
    import numpy as np

    from evalgui.cli import measures

    def overflowing(args):
        big = np.array([1e308, 1e308])
        print(float(big.sum()), float((big * 10).max()))
        return 0
    monkeypatch.setattr(measures, "run", overflowing)
    status, out, err = run_cli(capsys, "measures")
    assert status == 0 and out == "inf inf\n"
    assert err == ["evalgui-cli: warning: overflow encountered in reduce (RuntimeWarning; 1 more warning): check "
                   "the results for NaN or infinite values"]


def test_control_characters_in_a_message_are_escaped(capsys, tmp_path):
    path = tmp_path / "bad\nname.txt"
    path.write_text("1 Q0 d1 1 x t\n")
    status, _, err = run_cli(capsys, "evaluate", path, path, "-m", "AP")
    assert status == 2 and "bad\\nname.txt" in one_error(err)


@posix_only
def test_a_full_disk_names_the_file(capsys, files, tmp_path):
    import resource

    status, _, err = run_cli(capsys, "evaluate", *files, "-m", "AP", "-o", "/dev/full")
    assert status == 2 and one_error(err) == "/dev/full: No space left on device"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    out = cli("evaluate", *files, "-m", "AP", "--per-query", "-o", tmp_path / "big.csv", preexec_fn=small_files)
    assert out.returncode == 2 and one_error(out.stderr) == f"{tmp_path / 'big.csv'}: File too large"
    assert not (tmp_path / "big.csv").exists() and not [p for p in os.listdir(tmp_path) if p.startswith(".evalgui")]
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-m", "evalgui.cli", "evaluate", *files, "-m", "AP", "--per-query"],
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and one_error(out.stderr) == "standard output: No space left on device"


# ---------------------------------------------------------------- point 10: formats that agree

def test_an_empty_output_name_is_refused_not_taken_for_standard_output(capsys, files):
    status, out, err = run_cli(capsys, "evaluate", *files, "-m", "AP", "-o", "")
    assert status == 2 and out == "" and one_error(err) == "-o needs a file name (leave the option out to write " \
                                                           "to standard output)"


@pytest.mark.parametrize("value", ["1e400", "1" + "0" * 400, "-1" + "0" * 400])
def test_a_json_score_beyond_a_float_is_refused(capsys, files, tmp_path, value):
    run = write(tmp_path, "run.json", '{"1": {"d1": %s, "d3": 0.5}}' % value)
    status, _, err = run_cli(capsys, "evaluate", files[0], run, "-m", "AP")
    assert status == 2 and one_error(err).startswith(f"{run}, line 1: query '1', document 'd1': the score ")
    assert one_error(err).endswith("is not a finite number") and len(err[0]) < 200


def test_what_evaluate_writes_to_a_txt_file_compare_reads(capsys, files, tmp_path):
    qrels, run = files
    other = write(tmp_path, "other.txt", RUN.replace("1 Q0 d4 2 2.0", "1 Q0 d4 2 9.0"))
    out = tmp_path / "scores.txt"
    assert run_cli(capsys, "evaluate", qrels, run, other, "-m", "AP", "--per-query", "-o", out)[0] == 0
    assert out.read_text().startswith("run\tquery\tmeasure\tvalue\n")
    status, table, err = run_cli(capsys, "compare", "--scores", out, "-m", "AP")
    assert status == 0 and err == [] and table.splitlines()[1].startswith("AP,run,other,")


@pytest.mark.parametrize("extension", ["json", "txt", "tsv", "parquet"])
def test_the_exported_ground_truth_is_what_similarity_reads(capsys, tmp_path, extension):
    from evalgui.core.resources import sample_data

    cbr = sample_data("cbr")
    gt = tmp_path / f"gt.{extension}"
    status, _, err = run_cli(capsys, "casebase", "--train", cbr / "cars.csv", "--test", cbr / "queries.csv",
                             "--model", cbr / "model.json", "--export-ground-truth", gt)
    assert status == 0 and gt.exists()
    status, table, err = run_cli(capsys, "similarity", "--ground-truth", gt, "--predicted", f"same={gt}", "-k", "3",
                                 "-m", "hits_normalized")
    assert status == 0 and table == "retriever,k,metric,value\nsame,3,hits_normalized,1.0\n"


def test_a_ground_truth_format_similarity_cannot_read_is_refused_before_the_work(capsys, tmp_path):
    from evalgui.core.resources import sample_data

    cbr = sample_data("cbr")
    status, _, err = run_cli(capsys, "casebase", "--train", cbr / "cars.csv", "--model", cbr / "model.json",
                             "--export-ground-truth", tmp_path / "gt.md")
    assert status == 2 and one_error(err).endswith("which similarity --ground-truth reads")
    assert not (tmp_path / "gt.md").exists()


def test_a_json_ground_truth_error_names_the_line_of_its_record(capsys, tmp_path):
    gt = write(tmp_path, "gt.json", '[\n {\n  "query_id": "q1",\n  "case_id": "a",\n  "similarity": 0.5\n },\n'
                                    ' {\n  "query_id": "q1",\n  "case_id": "b",\n  "similarity": 1.5\n }\n]\n')
    status, _, err = run_cli(capsys, "similarity", "--ground-truth", gt, "--predicted", f"a={gt}")
    assert status == 2 and one_error(err) == f"{gt}, line 7: the similarity 1.5 is outside [0, 1]"


def test_topic_keeps_one_query_of_trec_qrels(capsys, files):
    qrels, run = files
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP", "--topic", "2")
    assert status == 0 and out == "run,query,measure,value\nrun,all,AP,0.5\n"
    status, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP", "--topic", "9")
    assert status == 2 and one_error(err) == f"{qrels}: no judgments for the topic '9' (the queries are 1, 2)"


# ---------------------------------------------------------------- point 8: memory limits

def test_a_file_that_cannot_fit_under_the_memory_limit_is_refused_before_reading(files, tmp_path, monkeypatch):
    from evalgui.core import memory
    from evalgui.core.errors import EvalInputError
    from evalgui.core.formats import read_qrels, read_run

    qrels = write(tmp_path, "big_qrels.txt", "".join(f"q{q} 0 d{d} 1\n" for q in range(300) for d in range(300)))
    assert 2**20 < os.path.getsize(qrels) < 2**21
    monkeypatch.setattr(memory, "room", lambda: memory.Room(300 << 20, 1 << 30, "the test's limit"))
    assert len(read_qrels(qrels)) == 90_000          # a 1 MiB qrels is not "too big" under such a limit
    monkeypatch.setattr(memory, "room", lambda: memory.Room(60 << 20, 1 << 30, "the test's limit"))
    with pytest.raises(EvalInputError) as raised:
        read_run(qrels)
    assert raised.value.reason.startswith("not enough memory to read it: reading 1 MiB needs about 6")
    assert raised.value.reason.endswith(" MiB, and 60 MiB remain under the test's limit of 1,024 MiB")


def test_the_cgroup_memory_limits_are_read(tmp_path):
    from evalgui.core import memory

    (tmp_path / "sys" / "a" / "b").mkdir(parents=True)
    (tmp_path / "sys" / "a" / "memory.max").write_text("1073741824\n")
    (tmp_path / "sys" / "a" / "memory.current").write_text("104857600\n")
    (tmp_path / "sys" / "a" / "b" / "memory.max").write_text("max\n")
    (tmp_path / "cgroup").write_text("0::/a/b\n")
    assert memory._cgroup(str(tmp_path / "sys"), str(tmp_path / "cgroup")) == \
        memory.Room(1073741824 - 104857600, 1073741824, "the memory limit of its control group")
    (tmp_path / "sys" / "memory" / "c").mkdir(parents=True)
    (tmp_path / "sys" / "memory" / "c" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    (tmp_path / "cgroup").write_text("4:memory:/c\n0::/\n")
    assert memory._cgroup(str(tmp_path / "sys"), str(tmp_path / "cgroup")) is None


@posix_only
@pytest.mark.skipif(not os.path.exists("/usr/bin/prlimit"), reason="needs prlimit")
def test_under_an_address_space_limit_a_big_run_gives_one_line_never_an_abort(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(2000) for d in range(0, 600, 30)))
    run = tmp_path / "r.txt"
    with open(run, "w") as fh:
        for q in range(2000):                         # 2M lines, 60 MB
            fh.write("".join(f"q{q} Q0 d{d} {r} {1000 - r} run\n" for r, d in enumerate(range(1000), 1)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    statuses = set()
    for mib in (300, 450, 600, 1200):
        out = subprocess.run(["/usr/bin/prlimit", f"--as={mib << 20}", sys.executable, "-m", "evalgui.cli", "evaluate",
                              qrels, run, "-m", "AP"], capture_output=True, text=True, env=env, timeout=120)
        statuses.add(out.returncode)
        assert out.returncode in (0, 2), (mib, out.returncode, out.stderr[-300:])
        if out.returncode == 2:                        # what ran out, not "too big for this computer"
            message = one_error(out.stderr)            # the run, or at 300 MiB sometimes already the qrels
            # At 300 MiB the interpreter and its libraries leave so little that the 1 MiB qrels may pass the
            # estimate and still run out: then the message says so, naming the file and the limit.
            assert message.startswith((f"{run}: not enough memory to read it: reading 48 MiB needs about ",
                                       f"{run}: not enough memory to read it, even query by query: that needs about ",
                                       f"{qrels}: not enough memory to read it: reading ",
                                       f"{qrels}: ran out of memory reading the file (1 MiB) under the process's "
                                       "address-space limit (ulimit -v) of 300 MiB")), message
        else:
            assert out.stdout.startswith("run,query,measure,value\nr,all,AP,")
    assert statuses == {0, 2}
    # A 1 MiB qrels fits under a limit its data fits in (it was "too big to read into memory").
    small_run = write(tmp_path, "small.txt", "q1 Q0 d0 1 1.0 run\n")
    big_qrels = write(tmp_path, "big_qrels.txt", "".join(f"q{q} 0 d{d} 1\n" for q in range(300) for d in range(300)))
    out = subprocess.run(["/usr/bin/prlimit", f"--as={450 << 20}", sys.executable, "-m", "evalgui.cli", "evaluate",
                          big_qrels, small_run, "-m", "AP"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr


def _parquet_run(path, rows: int):
    """A run of ``rows`` rows as Parquet: its text repeats, so it packs into a file of about a MiB."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    i = np.arange(rows)
    pq.write_table(pa.table({"query": pa.array([f"q{q}" for q in (i // 1000).tolist()]),
                             "q0": pa.array(["Q0"] * rows), "docno": pa.array([f"d{d}" for d in (i % 1000).tolist()]),
                             "rank": i % 1000 + 1, "score": 1000.0 - i % 1000, "run": pa.array(["run"] * rows)}),
                   path, compression="zstd")
    return path


def test_the_parquet_estimate_reads_the_footer(tmp_path):
    """The size a Parquet table takes once read comes from its footer (row count, column types, sizes, text
    statistics), not from its size on disk: within 10 % of Arrow's own count, for repeated and distinct text."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalgui.core import memory

    run = _parquet_run(tmp_path / "run.parquet", 200_000)
    distinct = tmp_path / "distinct.parquet"
    pq.write_table(pa.table({"doc": pa.array([f"document-{i:09}" for i in range(100_000)]),
                             "grade": pa.array(np.arange(100_000, dtype=np.int32) % 3)}), distinct,
                   use_dictionary=False)
    for path in (run, distinct):
        need = memory.parquet_need(str(path))
        table = pq.read_table(path)
        assert need.rows == table.num_rows
        assert 0.9 * table.nbytes <= need.table <= 1.1 * table.nbytes, (path, need, table.nbytes)
        assert need.need > memory.READ_BASE + 2 * need.table
    assert os.path.getsize(run) * 8 < memory.parquet_need(str(run)).table      # packed far below its size read
    assert memory.parquet_need(str(write(tmp_path, "r.txt", "q1 Q0 d1 1 1.0 r\n"))) is None
    assert memory.parquet_need(str(write(tmp_path, "bad.parquet", "PAR1 not really"))) is None


@posix_only
@pytest.mark.skipif(not os.path.exists("/usr/bin/prlimit"), reason="needs prlimit")
def test_under_an_address_space_limit_a_big_parquet_run_is_refused_before_reading(tmp_path):
    """A Parquet run of 2,000,000 rows packs into a MiB: judged by that size it was read, and ran out of memory
    part way ("ran out of memory reading the file (1 MiB)"). Its footer says what it needs: refused at once,
    in one line naming the file and what ran out; read when the limit leaves room."""
    run = _parquet_run(tmp_path / "big.parquet", 2_000_000)
    qrels = write(tmp_path, "q.txt", "".join(f"q{q} 0 d{d} 1\n" for q in range(0, 2000, 7) for d in range(0, 600, 30)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def evaluate(mib: int):
        return subprocess.run(["/usr/bin/prlimit", f"--as={mib << 20}", sys.executable, "-m", "evalgui.cli",
                               "evaluate", qrels, run, "-m", "AP"], capture_output=True, text=True, env=env,
                              timeout=120, cwd=tmp_path)

    out = evaluate(500)
    assert out.returncode == 2, (out.returncode, out.stderr[-300:])
    message = one_error(out.stderr)
    assert message.startswith(f"{run}: not enough memory to read it: reading its 2,000,000 rows (") and \
        "remain under the process's address-space limit (ulimit -v) of 500 MiB" in message, message
    out = evaluate(1500)
    assert out.returncode == 0, out.stderr[-300:]
    assert out.stdout.startswith("run,query,measure,value\nbig,all,AP,"), out.stdout[:200]


@posix_only
def test_a_signal_stops_stability_s_worker_processes_too(tmp_path):
    import random

    rng = random.Random(1)
    ranks = _ranks(tmp_path, "ranks.txt", [[str(rng.randint(1, 50)), str(rng.randint(1, 50))] for _ in range(60)])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "evalgui.cli", "stability", ranks, "-n", "100", "-t", "2",
                                "-i", "5000", "--splits", "5", "10", "-o", tmp_path / "out.csv"],
                               stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(4)                       # the workers are busy
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 128 + signal.SIGTERM
    time.sleep(0.5)
    # No "leaked semaphore objects" from multiprocessing's tracker: the pool was shut down.
    assert process.stderr.read() == "evalgui-cli: stopped by SIGTERM\n" and not (tmp_path / "out.csv").exists()


def test_memory_running_out_in_the_work_is_one_line_naming_the_limit(capsys, monkeypatch):
    from evalgui.cli import measures
    from evalgui.core import memory

    def greedy(args):
        raise MemoryError("Unable to allocate 8.41 MiB for an array")
    monkeypatch.setattr(measures, "run", greedy)
    monkeypatch.setattr(memory, "room", lambda: memory.Room(1 << 20, 512 << 20, "the test's limit"))
    status, _, err = run_cli(capsys, "measures")
    assert status == 2 and one_error(err) == "out of memory under the test's limit of 512 MiB (Unable to allocate " \
                                             "8.41 MiB for an array)"


def test_scores_at_the_limit_compare_without_numpy_warnings(capsys, tmp_path):
    rows = "".join(f"{run},{q},AP,{value}\n" for q, (a, b) in enumerate([("1e100", "-1e100"), ("0.5", "9.9e99"),
                                                                         ("-1e100", "0.25"), ("1e100", "1e100")])
                   for run, value in (("a", a), ("b", b)))
    scores = write(tmp_path, "scores.csv", "run,query,measure,value\n" + rows)
    for test in ("t", "wilcoxon", "bootstrap"):
        status, out, err = run_cli(capsys, "compare", "--scores", scores, "--test", test)
        assert status == 0 and err == [] and "nan" not in out.lower().replace("n_queries", "")
    status, out, err = run_cli(capsys, "metaeval", "--scores", scores, "--experiment", "power")
    assert status == 0 and err == []
