"""Issue 32, point 7: encodings. UTF-16 and UTF-32 files with a byte-order mark are read by every reader (as
UTF-8 is), never called binary; a UTF-8 byte-order mark is left out with a note (the window's load warnings,
the API's and the command line's notes) except by `evalgui-cli trec_eval`, which keeps it as the trec_eval
binary does; a file of NUL bytes is refused from its first block, before any memory estimate."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import read_qrels, read_run
from evalgui.core.inputs import read_input
from tests.conftest import SAMPLE_DATA
from tests.core.test_trec_fidelity import _binary

ROOT = Path(__file__).resolve().parents[2]
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d3 2\n"
RUN = "1 Q0 d1 1 3.5 r\n1 Q0 d2 2 2 r\n2 Q0 d3 1 1 r\n2 Q0 d1 2 0.5 r\n"
# Python's utf-16 and utf-32 codecs write a little-endian byte-order mark; the big-endian ones write none.
ENCODINGS = {"UTF-16LE": (b"", "utf-16"), "UTF-16BE": (b"\xfe\xff", "utf-16-be"),
             "UTF-32LE": (b"", "utf-32"), "UTF-32BE": (b"\x00\x00\xfe\xff", "utf-32-be")}


def rows(data) -> list[tuple]:
    values = data.rel if hasattr(data, "rel") else data.score
    return sorted(zip(data.query.to_pylist(), data.doc.to_pylist(), values.tolist()))


def encoded(path: Path, text: str, encoding: str) -> Path:
    mark, codec = ENCODINGS[encoding]
    path.write_bytes(mark + text.encode(codec))
    return path


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_utf16_and_utf32_qrels_and_runs_read_as_utf8(tmp_path, encoding):
    qrels = read_qrels(encoded(tmp_path / "q.txt", QRELS, encoding))
    run = read_run(encoded(tmp_path / "r.run", RUN, encoding))
    (tmp_path / "q8.txt").write_text(QRELS)
    (tmp_path / "r8.run").write_text(RUN)
    assert rows(qrels) == rows(read_qrels(tmp_path / "q8.txt"))
    assert rows(run) == rows(read_run(tmp_path / "r8.run"))
    assert run.runid == "r"


# Every kind of input the window loads: the same kind and summary in UTF-16 and UTF-32 as in UTF-8.
SAMPLES = ["synthetic/qrels.txt", "synthetic/bm25.run", "rankfile/citations.tsv", "cbr/cars.csv",
           "cbr/queries.csv", "cbr/procake_evaluated.csv", "meic/information_systems.qrels"]


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-32BE"])
def test_every_kind_reads_utf16_and_utf32(tmp_path, sample, encoding):
    source = Path(SAMPLE_DATA) / sample
    expected = read_input(source)
    loaded = read_input(encoded(tmp_path / source.name, source.read_text(encoding="utf-8"), encoding))
    assert (loaded.kind, loaded.summary, loaded.warnings) == (expected.kind, expected.summary, expected.warnings)


def test_utf16_json_and_gzip_read(tmp_path):
    import gzip

    (tmp_path / "q.json").write_bytes('{"1": {"d1": 1, "d2": 0}}'.encode("utf-16"))
    assert rows(read_qrels(tmp_path / "q.json")) == [("1", "d1", 1), ("1", "d2", 0)]
    (tmp_path / "r.run.gz").write_bytes(gzip.compress(RUN.encode("utf-16")))
    assert rows(read_run(tmp_path / "r.run.gz"))[-2:] == [("2", "d1", 0.5), ("2", "d3", 1.0)]


def test_broken_utf16_names_its_line_and_never_says_binary(tmp_path):
    lone_surrogate = b"\x00\xd8"
    text = "1 0 d1 1\n1 0 d2 0\n".encode("utf-16-le") + lone_surrogate + "x 0 d 1\n".encode("utf-16-le")
    (tmp_path / "q.txt").write_bytes(b"\xff\xfe" + text)
    with pytest.raises(EvalInputError) as caught:
        read_input(tmp_path / "q.txt")
    assert caught.value.line == 3 and "not valid UTF-16 text" in str(caught.value) and "UTF-8" in str(caught.value)
    assert "binary" not in str(caught.value)


def test_utf16_without_a_mark_is_named_so(tmp_path):
    (tmp_path / "q.txt").write_bytes(QRELS.encode("utf-16-le"))
    with pytest.raises(EvalInputError, match="UTF-16 text without a byte-order mark.*save it as UTF-8"):
        read_input(tmp_path / "q.txt")


# ---------------------------------------------------------------- a UTF-8 byte-order mark

BOM_NOTE = "starts with a UTF-8 byte-order mark"


def test_utf8_bom_is_left_out_with_a_note_in_the_load_and_the_outcome(tmp_path):
    import evalgui as eg

    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r.run").write_text(RUN)
    loaded = read_input(tmp_path / "q.txt")
    assert loaded.data.query_ids.tolist() == ["1", "2"]
    assert [w for w in loaded.warnings if BOM_NOTE in w] and loaded.badge == "warning"
    assert not [w for w in read_input(tmp_path / "r.run").warnings if BOM_NOTE in w]
    outcome = eg.evaluate(str(tmp_path / "q.txt"), [str(tmp_path / "r.run")], ["map"])
    assert [n for n in outcome.notes if n.startswith(f"{tmp_path / 'q.txt'} {BOM_NOTE}")] and len(outcome.notes) == 1
    assert outcome.tables["summary"]["value"].tolist() == [1.0]


def test_trec_eval_keeps_a_utf8_bom_in_the_first_query_id(tmp_path):
    from evalgui.core.formats._text import keeping_utf8_bom

    (tmp_path / "r.run").write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    assert read_run(tmp_path / "r.run").query_ids.tolist() == ["1", "2"]
    with keeping_utf8_bom():
        assert read_run(tmp_path / "r.run").query_ids.tolist() == ["1", "2", "\ufeff1"]   # line 2 is query 1
    assert read_run(tmp_path / "r.run").query_ids.tolist() == ["1", "2"]


# ---------------------------------------------------------------- NUL bytes, from the first block

@pytest.fixture
def sparse_zeros(tmp_path) -> Path:
    """A 2 GiB file of NUL bytes that takes no disk space."""
    path = tmp_path / "zeros.txt"
    with open(path, "wb") as fh:
        fh.truncate(2 << 30)
    return path


LIMIT = 600 << 20          # address space: far below the 2 GiB file (its memory estimate was 8,256 MiB)


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_AS is POSIX")
@pytest.mark.parametrize("kind", ["auto", "qrels", "run", "case base", "similarity results", "rank file"])
def test_a_file_of_nul_bytes_is_refused_from_its_first_block_under_a_memory_limit(sparse_zeros, tmp_path, kind):
    code = ("import sys\nfrom evalgui.core.errors import EvalInputError\nfrom evalgui.core.inputs import read_input\n"
            "try:\n    read_input(sys.argv[1], None if sys.argv[2] == 'auto' else sys.argv[2])\n"
            "except EvalInputError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code, str(sparse_zeros), kind], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_limited, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout == f"{sparse_zeros}, line 1: binary data, not a text file\n"


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_AS is POSIX")
@pytest.mark.parametrize("args", [["evaluate", "{z}", "{r}"], ["evaluate", "{q}", "{z}"], ["trec_eval", "{q}", "{z}"]])
def test_the_command_line_refuses_nul_bytes_in_one_line_under_a_memory_limit(sparse_zeros, tmp_path, args):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    files = {"z": sparse_zeros, "q": tmp_path / "q.txt", "r": tmp_path / "r.run"}
    out = subprocess.run([sys.executable, "-m", "evalgui.cli", *[a.format(**files) for a in args]],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         preexec_fn=_limited, timeout=120)
    assert (out.returncode, out.stderr) == (
        2, f"evalgui-cli: error: {sparse_zeros}, line 1: binary data, not a text file\n")


def test_check_head_reads_one_block(sparse_zeros, monkeypatch):
    """Whatever the file's size, one block is read (counted here, not timed)."""
    import builtins

    from evalgui.core.formats import _text

    read = []
    real_open = builtins.open

    def counting_open(*args, **kwargs):
        fh = real_open(*args, **kwargs)
        if str(args[0]) == str(sparse_zeros):
            original = fh.read

            def counted(size=-1):
                data = original(size)
                read.append(len(data))
                return data
            fh.read = counted
        return fh

    monkeypatch.setattr(builtins, "open", counting_open)
    with pytest.raises(EvalInputError, match="binary data"):
        _text.load_bytes(sparse_zeros)
    assert sum(read) <= _text.HEAD_CHECK_BYTES


def test_parquet_is_not_taken_for_binary_text(tmp_path):
    import pandas as pd

    pd.DataFrame({"query": ["1", "1"], "doc": ["d1", "d2"], "relevance": [1, 0]}).to_parquet(tmp_path / "q.parquet")
    assert rows(read_qrels(tmp_path / "q.parquet")) == [("1", "d1", 1), ("1", "d2", 0)]


# ---------------------------------------------------------------- `evalgui-cli trec_eval` and the binary


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalgui.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


def test_trec_eval_reads_the_bom_into_the_query_id_as_the_binary_does(tmp_path):
    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r.run").write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    args = ["-q", "-m", "num_ret", "-m", "num_rel_ret", tmp_path / "q.txt", tmp_path / "r.run"]
    out = _cli("trec_eval", *args)
    assert out.returncode == 0 and out.stderr == ""
    # The first line's query is "\ufeff1", the second line's "1" (in both files); the binary sorts query ids
    # by their bytes: "\ufeff1" (0xEF...) after "2".
    assert out.stdout == ("num_ret               \t1\t1\nnum_rel_ret           \t1\t0\n"
                          "num_ret               \t2\t2\nnum_rel_ret           \t2\t2\n"
                          "num_ret               \t\ufeff1\t1\nnum_rel_ret           \t\ufeff1\t1\n"
                          "num_ret               \tall\t4\nnum_rel_ret           \tall\t3\n")
    if _binary() is not None:
        theirs = subprocess.run([_binary(), *map(str, args)], capture_output=True, text=True, check=True).stdout
        assert out.stdout == theirs


def test_evaluate_warns_in_one_line_per_file_with_a_bom(tmp_path):
    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r.run").write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    out = _cli("evaluate", tmp_path / "q.txt", tmp_path / "r.run", "-m", "num_rel_ret")
    assert out.returncode == 0
    assert out.stdout == "run,query,measure,value\nr,all,num_rel_ret,3.0\n"
    assert out.stderr.splitlines() == [f"evalgui-cli: warning: {tmp_path / name} {BOM_NOTE} (an invisible character "
                                       "some editors write first): it was left out, so the first line reads as it "
                                       "looks" for name in ("q.txt", "r.run")]


def test_evaluate_reads_utf16(tmp_path):
    out = _cli("evaluate", encoded(tmp_path / "q.txt", QRELS, "UTF-16BE"), encoded(tmp_path / "r.run", RUN, "UTF-32LE"),
               "-m", "num_rel_ret")
    assert (out.returncode, out.stdout, out.stderr) == (0, "run,query,measure,value\nr,all,num_rel_ret,3.0\n", "")


def test_metaeval_matrix_error_is_its_one_line(tmp_path):
    # Every run lacks query 3: the notes about it would come first.
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in range(4) for d in range(6)))
    runs = []
    for k in range(3):
        runs.append(tmp_path / f"r{k}.run")
        runs[-1].write_text("".join(f"{q} Q0 d{(d + k) % 6} {d} {10 - d} r{k}\n" for q in range(3) for d in range(6)))
    out = _cli("metaeval", "--experiment", "stability", tmp_path / "q.txt", *runs, "-m", "ndcg", "--matrix", "nope")
    assert out.returncode == 2
    assert out.stderr.splitlines() == ["evalgui-cli: error: --matrix nope: not one of the measures (ndcg)"]
    ok = _cli("metaeval", "--experiment", "stability", tmp_path / "q.txt", *runs, "-m", "ndcg", "--matrix", "ndcg")
    assert ok.returncode == 0 and "warning" in ok.stderr           # the notes, when there is no error


def test_stamping_again_adds_no_second_note(tmp_path, monkeypatch):
    import evalgui as eg
    from evalgui.core.workflows.outcome import Outcome

    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r.run").write_text(RUN)
    outcome = eg.evaluate("q.txt", ["r.run"], ["map"])
    saved = Outcome.from_json(outcome.to_json(), type(outcome.request))       # notes saved capitalised
    assert saved.notes == [f"Q.txt {BOM_NOTE} (an invisible character some editors write first): it was left "
                           "out, so the first line reads as it looks"]
    assert saved.stamp().notes == saved.notes


def test_trec_eval_keeps_the_mark_only_in_trec_text(tmp_path):
    """JSON and CSV are no format of the binary's: their mark is left out there too (JSON would not parse)."""
    from evalgui.core.formats._text import keeping_utf8_bom

    (tmp_path / "r.json").write_bytes(b'\xef\xbb\xbf{"1": {"d1": 3.0, "d2": 2.0}}')
    (tmp_path / "r.csv").write_bytes(b"\xef\xbb\xbfquery,doc,score\n1,d1,3\n1,d2,2\n")
    with keeping_utf8_bom():
        assert rows(read_run(tmp_path / "r.json")) == rows(read_run(tmp_path / "r.csv")) == [("1", "d1", 3.0),
                                                                                          ("1", "d2", 2.0)]


def test_a_utf16_similarity_model_reads(tmp_path):
    from evalgui.core.cbr.model import load_model

    source = Path(SAMPLE_DATA) / "cbr" / "model.json"
    encoded(tmp_path / "model.json", source.read_text(encoding="utf-8"), "UTF-16BE")
    assert repr(load_model(tmp_path / "model.json")).replace(str(tmp_path / "model.json"), str(source)) == \
        repr(load_model(source))
