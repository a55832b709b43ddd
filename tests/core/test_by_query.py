"""Runs too large to hold, evaluated by query: the same output as reading them whole, in bounded memory."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalgui.core import scratch
from evalgui.core.errors import EvalInputError
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.ranked import by_query
from evalgui.core.ranked.evaluate import EvalOptions, evaluate_run
from evalgui.core.ranked.trec_eval import format_lines, requests_for


def write_collection(folder: Path, n_queries=120, depth=60, n_docs=400, seed=3, judged_extra=4) -> tuple[Path, Path]:
    """A shuffled run with tied scores, and qrels with judged queries the run lacks and run queries unjudged."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    d = np.concatenate([rng.choice(n_docs, depth, replace=False) for _ in range(n_queries)])
    s = np.round(rng.random(len(q)), 1)
    order = rng.permutation(len(q))
    run = folder / "run.txt"
    run.write_text("".join(f"q{q[i]} Q0 d{d[i]} 1 {s[i]} tag{i % 3}\n" for i in order))
    lines = []
    for query in range(3, n_queries + judged_extra):
        for doc in rng.choice(n_docs, 40, replace=False):
            lines.append(f"q{query} 0 d{doc} {rng.integers(-1, 4)}\n")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(lines))
    return qrels, run


OPTIONS = [EvalOptions(), EvalOptions(complete=True), EvalOptions(relevance_level=2, max_docs=25),
           EvalOptions(judged_only=True), EvalOptions(complete=True, num_docs_in_coll=1000)]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    return write_collection(tmp_path_factory.mktemp("by_query"))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: repr(o)[11:60])
@pytest.mark.parametrize("partitions", [2, 7, 40])
def test_every_printed_line_is_the_whole_runs(collection, options, partitions):
    qrels_path, run_path = collection
    qrels, requests = read_qrels(qrels_path), requests_for(["all_trec"])
    whole = evaluate_run(qrels, read_run(run_path), requests, options)
    parts = by_query.evaluate_run_by_query(qrels, str(run_path), requests, options, partitions=partitions)
    assert format_lines(parts, per_query=True) == format_lines(whole, per_query=True)
    assert parts.runid == whole.runid and list(parts.absent_topics) == list(whole.absent_topics)
    assert np.array_equal(parts.summary, whole.summary)         # the exact sums too (tables, exports)


def test_gzip_comments_blank_lines_and_a_bom_read_as_the_whole_file_reader_reads_them(tmp_path, collection):
    qrels_path, run_path = collection
    lines = run_path.read_text().splitlines(keepends=True)
    text = "\ufeff" + "".join(line + ("\n" if i % 97 == 0 else "") + ("# a comment\n" if i % 311 == 0 else "")
                              for i, line in enumerate(lines))
    packed = tmp_path / "run.txt.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as fh:
        fh.write(text)
    qrels, requests = read_qrels(qrels_path), requests_for(["official"])
    whole = evaluate_run(qrels, read_run(packed), requests)
    parts = by_query.evaluate_run_by_query(qrels, str(packed), requests, partitions=5, name="run")
    assert format_lines(parts, per_query=True) == format_lines(whole, per_query=True)


def _pieces_of(path, piece_size=4096):
    return list(by_query.run_pieces(str(path), piece_size=piece_size))


def test_a_bad_line_far_into_the_file_is_named_with_its_line(tmp_path, collection):
    _, run_path = collection
    lines = run_path.read_text().splitlines(keepends=True)
    lines[5000] = "q1 Q0 d1 1 high tag\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines))
    with pytest.raises(EvalInputError, match=r"bad\.txt, line 5001: the score 'high' is not a number"):
        _pieces_of(bad)


def test_a_repeated_document_is_named_with_both_lines(tmp_path, collection):
    qrels_path, run_path = collection
    lines = run_path.read_text().splitlines(keepends=True)
    query, _, doc = lines[10].split()[:3]
    lines.append(f"{query} Q0 {doc} 1 0.5 tag\n")
    repeated = tmp_path / "repeated.txt"
    repeated.write_text("".join(lines))
    with pytest.raises(EvalInputError) as caught:
        by_query.evaluate_run_by_query(read_qrels(qrels_path), str(repeated), requests_for(["official"]),
                                       partitions=3)
    whole_reader_message = None
    try:
        read_run(repeated)
    except EvalInputError as exc:
        whole_reader_message = str(exc)
    assert str(caught.value) == whole_reader_message
    assert f"lines 11 and {len(lines)}" in str(caught.value)


def test_binary_data_is_refused_from_the_first_block(tmp_path):
    nul = tmp_path / "zeros.txt"
    with open(nul, "wb") as fh:
        fh.truncate(1 << 30)                        # sparse: a gibibyte of NUL bytes costs no disk
    with pytest.raises(EvalInputError, match="binary data"):
        next(by_query.run_pieces(str(nul)))


def _scratch_folders(root: Path) -> list[str]:
    return [name for name in os.listdir(root) if name.startswith(scratch.PREFIX)]


def test_the_temporary_folder_goes_on_success_on_error_and_on_cancel(tmp_path, monkeypatch, collection):
    qrels_path, run_path = collection
    monkeypatch.setenv("EVALGUI_SCRATCH", str(tmp_path))
    qrels, requests = read_qrels(qrels_path), requests_for(["official"])
    by_query.evaluate_run_by_query(qrels, str(run_path), requests, partitions=4)
    assert _scratch_folders(tmp_path) == []

    bad = tmp_path / "bad.txt"
    bad.write_text(run_path.read_text() + "q1 Q0 dx 1 nan tag\n")
    with pytest.raises(EvalInputError, match="NaN"):
        by_query.evaluate_run_by_query(qrels, str(bad), requests, partitions=4)
    assert _scratch_folders(tmp_path) == []

    seen = []

    def cancel_once_partitions_exist():
        seen.extend(_scratch_folders(tmp_path))
        return bool(seen) and any(os.listdir(tmp_path / name) for name in seen if (tmp_path / name).exists())

    state = JobState(is_cancelled=cancel_once_partitions_exist)
    with pytest.raises(Cancelled):
        by_query.evaluate_run_by_query(qrels, str(run_path), requests, state=state, partitions=4)
    assert seen and _scratch_folders(tmp_path) == []


def test_a_crashed_processs_folder_is_swept_at_the_next_start(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f"{scratch.PREFIX}{int(dead.stdout)}-by-query-x"
    left.mkdir()
    (left / "run-0001.arrows").write_bytes(b"partial")
    mine = tmp_path / f"{scratch.PREFIX}{os.getpid()}-by-query-y"
    mine.mkdir()
    assert scratch.sweep(str(tmp_path)) == [str(left)]
    assert not left.exists() and mine.exists()


def test_a_query_too_large_for_the_memory_left_is_refused_by_name(tmp_path, monkeypatch):
    run = tmp_path / "one.txt"
    run.write_text("".join(f"big Q0 d{i} 1 {i} t\n" for i in range(3000)) + "small Q0 d1 1 1 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("big 0 d1 1\nsmall 0 d1 1\n")
    monkeypatch.setattr(by_query, "_available", lambda: by_query.memory.READ_BASE + 10_000)
    monkeypatch.setattr(by_query, "_piece_size", lambda source, free: 1 << 20)     # reading itself fits
    with pytest.raises(EvalInputError, match=r"one\.txt: the query 'big' alone has 3,000 results"):
        by_query.evaluate_run_by_query(read_qrels(qrels), str(run), requests_for(["official"]), partitions=2)


def test_the_workflow_and_the_api_take_the_by_query_path_when_a_run_is_too_large(collection, monkeypatch):
    import evalgui as eg

    qrels_path, run_path = collection
    whole = eg.evaluate(str(qrels_path), [str(run_path)], ["AP", "nDCG@10", "P@10"], per_query=True)
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", "1")
    called = []
    original = by_query.evaluate_run_by_query
    monkeypatch.setattr(by_query, "evaluate_run_by_query", lambda *a, **k: called.append(1) or original(*a, **k))
    parts = eg.evaluate(str(qrels_path), [str(run_path)], ["AP", "nDCG@10", "P@10"], per_query=True)
    assert called
    for table in ("summary", "per_query"):
        assert parts.tables[table].equals(whole.tables[table])
    assert any("query by query" in note for note in parts.notes)


# ---------------------------------------------------------------- under a memory limit

COPIES = 40


def _write_copies(folder: Path, base_qrels: Path, base_run: Path) -> tuple[Path, Path]:
    """COPIES copies of the base collection under renamed queries and documents (c7q12, c7d40): every copy's
    values are the base's, and the run has as many distinct documents as a real run of its size."""
    run_text, qrels_text = b"\n" + base_run.read_bytes(), b"\n" + base_qrels.read_bytes()
    run, qrels = folder / "big.txt", folder / "big_qrels.txt"
    with open(run, "wb") as r, open(qrels, "wb") as q:
        for copy in range(COPIES):
            r.write(run_text.replace(b"\nq", b"\nc%dq" % copy).replace(b" Q0 d", b" Q0 c%dd" % copy)[1:])
            q.write(qrels_text.replace(b"\nq", b"\nc%dq" % copy).replace(b" 0 d", b" 0 c%dd" % copy)[1:])
    return qrels, run


def _limited(limit_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux counts it")
def test_a_run_larger_than_the_memory_limit_is_evaluated_and_agrees_with_the_whole_slice(tmp_path):
    base_qrels, base_run = write_collection(tmp_path, n_queries=1000, depth=250, n_docs=3000, seed=9,
                                            judged_extra=0)
    qrels, run = _write_copies(tmp_path, base_qrels, base_run)
    size = run.stat().st_size
    limit = 600 << 20
    # Held whole, the run does not fit under the limit: only the by-query path can pass.
    whole = subprocess.run([sys.executable, "-c", "import sys; from evalgui.core.formats import read_run; "
                            "read_run(sys.argv[1])", str(run)], capture_output=True, text=True,
                           preexec_fn=_limited(limit))
    assert whole.returncode != 0 and "memory" in whole.stderr.splitlines()[-1], whole.stderr[-300:]
    measures = ("map", "P.10", "ndcg_cut.10", "recip_rank", "num_ret", "num_rel_ret", "runid")
    cli = [sys.executable, "-m", "evalgui.cli", "trec_eval", "-q", *(f"-m{m}" for m in measures)]
    done = subprocess.run(cli + [str(qrels), str(run)], capture_output=True, text=True,
                          preexec_fn=_limited(limit), env=dict(os.environ, EVALGUI_SCRATCH=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    base = subprocess.run(cli + [str(base_qrels), str(base_run)], capture_output=True, text=True, check=True)
    per_query = {}
    for line in base.stdout.splitlines():
        measure, query, value = line.split("\t")
        if query != "all":
            per_query[(measure.strip(), query)] = value
    big = [line.split("\t") for line in done.stdout.splitlines()]
    copies = {query.split("q", 1)[0] for _, query, _ in big if query != "all"}
    assert len(copies) == COPIES
    for measure, query, value in big:
        if query != "all":
            assert value == per_query[(measure.strip(), "q" + query.split("q", 1)[1])]
    base_all = {m.strip(): v for m, q, v in (line.split("\t") for line in base.stdout.splitlines()) if q == "all"}
    big_all = {m.strip(): v for m, q, v in big if q == "all"}
    for measure in ("map", "P_10", "ndcg_cut_10", "recip_rank", "num_ret", "num_rel_ret"):
        assert float(big_all[measure]) == pytest.approx(float(base_all[measure]) * (COPIES if measure.startswith("num")
                                                                                     else 1), rel=1e-9)
    assert big_all["runid"] == base_all["runid"]
    assert _scratch_folders(tmp_path) == [] and size > 250 << 20


def test_a_partition_larger_than_its_share_is_split_again_with_the_same_output(collection, monkeypatch):
    qrels_path, run_path = collection
    qrels, requests = read_qrels(qrels_path), requests_for(["all_trec"])
    whole = evaluate_run(qrels, read_run(run_path), requests, EvalOptions(complete=True))
    splits = []
    original = by_query._splits_needed
    # Room for about a tenth of a partition: each must be split again, every query still fits alone.
    monkeypatch.setattr(by_query, "_available", lambda: by_query.memory.READ_BASE + 12_000)
    monkeypatch.setattr(by_query, "_piece_size", lambda source, free: 1 << 20)     # reading itself fits
    monkeypatch.setattr(by_query, "_splits_needed", lambda *a: splits.append(original(*a)) or splits[-1])
    parts = by_query.evaluate_run_by_query(qrels, str(run_path), requests, EvalOptions(complete=True), partitions=2)
    assert splits and min(splits) > 1
    assert format_lines(parts, per_query=True) == format_lines(whole, per_query=True)


def test_compare_reads_many_run_files_one_at_a_time(tmp_path, monkeypatch):
    import gc
    import weakref

    import evalgui as eg
    from evalgui.core import inputs as input_kinds

    qrels, base = write_collection(tmp_path, n_queries=30, depth=20, n_docs=100)
    paths = []
    for i in range(8):
        path = tmp_path / f"system{i}.run"
        lines = base.read_text().splitlines()
        path.write_text("\n".join(lines[i * 7:] + lines[:i * 7]).replace(" 0.", f" {i}.") + "\n")
        paths.append(str(path))
    alive, most = [], []
    original = input_kinds.kind

    def counting_kind(name):
        found = original(name)
        if name != "run":
            return found

        class Counting:
            def __getattr__(self, attr):
                return getattr(found, attr)

            def read(self, *args, **kwargs):
                gc.collect()
                most.append(sum(ref() is not None for ref in alive))
                run = found.read(*args, **kwargs)
                alive.append(weakref.ref(run))
                return run
        return Counting()

    monkeypatch.setattr(input_kinds, "kind", counting_kind)
    outcome = eg.compare(str(qrels), paths, ["AP", "P@10"], test="t", correction="holm")
    assert len(most) == 8 and max(most) == 0          # each run let go before the next is read
    assert set(outcome.tables["comparison"]["run_a"]) | set(outcome.tables["comparison"]["run_b"]) == \
        {f"system{i}" for i in range(8)}


def test_a_byte_order_mark_is_read_as_each_front_end_reads_it(tmp_path, collection):
    from evalgui.core.formats._text import keeping_utf8_bom

    qrels_path, run_path = collection
    marked = tmp_path / "marked.txt"
    marked.write_bytes(b"\xef\xbb\xbf" + run_path.read_bytes())
    qrels, requests = read_qrels(qrels_path), requests_for(["official"])
    for keeping in (False, True):
        with keeping_utf8_bom() if keeping else open(os.devnull):
            whole = evaluate_run(qrels, read_run(marked), requests)
            parts = by_query.evaluate_run_by_query(qrels, str(marked), requests, partitions=3)
        assert format_lines(parts, per_query=True) == format_lines(whole, per_query=True)
        assert any(q.startswith("\ufeff") for q in parts.absent_topics + list(parts.query_ids)) is False
    first_query = run_path.read_text().split(" ", 1)[0]
    with keeping_utf8_bom():
        pieces = list(by_query.run_pieces(str(marked)))
    assert pieces[0].table.column("query")[0].as_py() == "\ufeff" + first_query


def test_utf16_runs_are_read_whole(tmp_path, collection):
    _, run_path = collection
    wide = tmp_path / "wide.txt"
    wide.write_bytes(run_path.read_text().encode("utf-16"))
    assert by_query._streams(str(wide)) is False


@pytest.mark.parametrize("signum", [15, 1, 2])
def test_a_signal_mid_evaluation_removes_the_partitions(tmp_path, signum):
    import signal
    import time

    qrels, run = write_collection(tmp_path, n_queries=2000, depth=200, n_docs=3000, seed=4)
    scratch_root = tmp_path / "scratch"
    scratch_root.mkdir()
    env = dict(os.environ, EVALGUI_HOLD_AT_MOST="1", EVALGUI_SCRATCH=str(scratch_root))
    child = subprocess.Popen([sys.executable, "-m", "evalgui.cli", "trec_eval", "-q", str(qrels), str(run)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    deadline = time.monotonic() + 60
    # Wait (bounded) until the partitions are being written, then stop the process.
    while not any((scratch_root / name).is_dir() and os.listdir(scratch_root / name)
                  for name in _scratch_folders(scratch_root)):
        assert child.poll() is None and time.monotonic() < deadline, child.stderr.read() if child.poll() else "slow"
        time.sleep(0.01)
    child.send_signal(signum)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + signum, err
    assert err.count("\n") == 1 and f"stopped by {signal.Signals(signum).name}" in err
    assert _scratch_folders(scratch_root) == []


@pytest.mark.parametrize("options", [EvalOptions(), EvalOptions(complete=True), EvalOptions(max_docs=25)],
                         ids=lambda o: repr(o)[11:60])
def test_a_run_evaluated_by_query_has_the_caveats_of_the_run_evaluated_whole(collection, options):
    import pandas as pd

    from evalgui.core import advisor
    from evalgui.core.ranked.specs import parse_measures

    qrels_path, run_path = collection
    qrels, specs = read_qrels(qrels_path), parse_measures(["AP", "P@10", "nDCG@20", "RR"])
    whole_checks, part_checks = advisor.RunChecks(options), advisor.RunChecks(options)
    whole_checks.add("run", evaluate_run(qrels, read_run(run_path), specs, options), specs)
    parts = by_query.evaluate_run_by_query(qrels, str(run_path), specs, options, partitions=5,
                                           on_part=lambda part: part_checks.add_part("run", part, specs))
    assert parts.ranking is None
    part_checks.add("run", parts, specs)
    whole, by_parts = advisor.table(whole_checks.finish()), advisor.table(part_checks.finish())
    assert {"judged", "ties", "coverage"} <= set(whole["kind"])
    pd.testing.assert_frame_equal(by_parts, whole, check_exact=True)


def test_the_ranked_workflow_checks_a_run_evaluated_by_query(collection, monkeypatch):
    import evalgui as eg

    qrels_path, run_path = collection
    measures = ["AP", "nDCG@10", "P@10"]
    whole = eg.evaluate(str(qrels_path), [str(run_path)], measures).caveats
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", "1")
    parts = eg.evaluate(str(qrels_path), [str(run_path)], measures).caveats
    assert {"judged", "ties"} <= set(parts["kind"])
    assert parts.equals(whole)


def test_compare_checks_a_run_evaluated_by_query(collection, monkeypatch):
    import evalgui as eg

    qrels_path, run_path = collection
    runs = [str(run_path), str(run_path)]
    whole = eg.compare(str(qrels_path), runs, ["AP", "P@10"]).caveats
    monkeypatch.setenv("EVALGUI_HOLD_AT_MOST", "1")
    parts = eg.compare(str(qrels_path), runs, ["AP", "P@10"]).caveats
    assert {"judged", "ties"} <= set(parts["kind"])
    assert parts.equals(whole)


def test_a_truncated_gzip_run_is_named_as_the_whole_file_reader_names_it(tmp_path, collection):
    qrels_path, run_path = collection
    packed = tmp_path / "cut.txt.gz"
    with gzip.open(packed, "wb") as fh:
        fh.write(run_path.read_bytes())
    packed.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
    with pytest.raises(EvalInputError) as whole:
        read_run(packed)
    with pytest.raises(EvalInputError) as parts:
        by_query.evaluate_run_by_query(read_qrels(qrels_path), str(packed), requests_for(["official"]), partitions=3)
    assert str(parts.value) == str(whole.value)
