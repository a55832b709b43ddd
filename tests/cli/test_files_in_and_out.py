"""The command line's files: outputs never replace an input, a link or a device; pipes are inputs like any
file; tables with a wrong number of fields are refused at their line."""

from __future__ import annotations

import os
import threading

import pytest

from evalgui.core.export import atomic_path
from tests.test_cli import QRELS, RUN, no_temp_files, run_cli, write

posix_only = pytest.mark.skipif(os.name != "posix", reason="named pipes and symbolic links")


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(capsys, files, tmp_path):
    qrels, run = files
    status, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP", "-o", qrels)
    assert status == 2 and len(err) == 1 and f"-o {qrels} is also an input" in err[0]
    assert open(qrels).read() == QRELS and no_temp_files(tmp_path)
    # The same file under another name, and the file a NAME=FILE option names.
    os.link(run, tmp_path / "same.run")
    status, _, err = run_cli(capsys, "evaluate", qrels, tmp_path / "same.run", "-m", "AP", "-o", run)
    assert status == 2 and "is also an input" in err[0] and open(run).read() == RUN


def test_two_outputs_naming_one_file_are_refused(capsys, tmp_path):
    rows = ["Exp\tA\tB\tC"] + [f"e{i}\t{i + 1}\t{2 * i + 1}\t{30 - i}" for i in range(12)]
    ranks = write(tmp_path, "ranks.txt", "\n".join(rows) + "\n")
    out = tmp_path / "out.csv"
    status, _, err = run_cli(capsys, "stability", ranks, "--save-ranks", out, "-o", out)
    assert status == 2 and len(err) == 1 and "name the same file" in err[0] and not out.exists()


@posix_only
def test_a_symbolic_link_is_written_through(capsys, files, tmp_path):
    qrels, run = files
    target, link = tmp_path / "results.csv", tmp_path / "latest.csv"
    os.symlink(target, link)
    status, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP", "-o", link)
    assert status == 0 and err == []
    assert os.path.islink(link) and target.read_text().startswith("run,query,measure,value\n")


@posix_only
def test_a_named_pipe_is_written_in_place_not_replaced(capsys, files, tmp_path):
    qrels, run = files
    pipe = tmp_path / "out.pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(pipe).read()))
    reader.start()
    status, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP", "-o", pipe)
    reader.join(10)
    assert status == 0 and err == [] and received[0].startswith("run,query,measure,value\n")
    assert os.path.exists(pipe) and not os.path.isfile(pipe) and no_temp_files(tmp_path)


def _fed_pipe(tmp_path, name: str, text: str):
    """A named pipe that a thread fills once, as ``<(cat file)`` would."""
    pipe = tmp_path / name
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_text(text))
    writer.start()
    return pipe, writer


@posix_only
def test_a_pipe_is_read_as_an_input_and_named_in_messages(capsys, files, tmp_path):
    qrels, _ = files
    pipe, writer = _fed_pipe(tmp_path, "bm25", RUN)
    status, out, err = run_cli(capsys, "evaluate", qrels, pipe, "-m", "AP")
    writer.join(10)
    assert status == 0 and err == [] and out.splitlines()[1] == "bm25,all,AP,0.666666666666667"
    pipe, writer = _fed_pipe(tmp_path, "bad", RUN + "2 Q0 d9 x\n")
    status, _, err = run_cli(capsys, "evaluate", qrels, pipe, "-m", "AP")
    writer.join(10)
    assert status == 2 and err == [f"evalgui-cli: error: {pipe}, line 6: expected 6 columns "
                                   "(query Q0 doc rank score tag), found 4"]


def test_infinite_per_query_scores_are_refused_at_their_line(capsys, tmp_path):
    scores = write(tmp_path, "scores.csv", "run,query,measure,value\na,1,AP,0.5\nb,1,AP,inf\na,2,AP,0.1\n"
                                           "b,2,AP,0.2\n")
    status, _, err = run_cli(capsys, "compare", "--scores", scores, "-m", "AP")
    assert status == 2 and err == [f"evalgui-cli: error: {scores}, line 3: the value 'inf' is not a finite number"]


@pytest.mark.parametrize("rows, line, found", [
    ("1,d1,3,x\n1,d2,2\n", 2, 4),              # pandas would have taken the first column for an index
    ("1,d1,3\n\n1,d2\n", 4, 2),                # a short row, after a blank line
    ('1,"d1\nd2",3\n1,"d3,d4"\n', 4, 2),       # a quoted field spans two lines; another holds a comma
])
def test_a_table_row_with_a_wrong_number_of_fields_is_refused_at_its_line(capsys, files, tmp_path, rows, line,
                                                                          found):
    qrels, _ = files
    run = write(tmp_path, "run.csv", "query,doc,score\n" + rows)
    status, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP")
    assert status == 2 and err == [f"evalgui-cli: error: {run}, line {line}: expected 3 fields, as in the header "
                                   f"(query, doc, score), found {found}"]


def test_a_quoted_field_over_two_lines_keeps_later_line_numbers_right(capsys, files, tmp_path):
    qrels, _ = files
    run = write(tmp_path, "run.csv", 'query,doc,score\n1,"d1\nd2",3\n1,d3,x\n')
    status, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "AP")
    assert status == 2 and err == [f"evalgui-cli: error: {run}, line 4: the score 'x' is not a number"]


def test_stability_writes_no_ranks_when_its_settings_are_refused(capsys, files, tmp_path):
    qrels, run = files
    other = write(tmp_path, "other.txt", RUN.replace("d4", "d3").replace("Q0 d3 3", "Q0 d4 3"))
    saved = tmp_path / "ranks.txt"
    status, _, err = run_cli(capsys, "stability", "--qrels", qrels, run, other, "-m", "nosuch",
                             "--save-ranks", saved)
    assert status == 2 and len(err) == 1 and not saved.exists()
    status, _, err = run_cli(capsys, "stability", "--qrels", qrels, run, other, "--missing-rank", "inf")
    assert status == 2 and err == ["evalgui-cli: error: --missing-rank inf: 'inf' is not a finite number"]


def test_a_failure_to_create_the_temporary_file_names_the_output(tmp_path, monkeypatch):
    from evalgui.core import export

    def refused(folder, suffix):
        raise PermissionError(13, "Permission denied", os.path.join(folder, ".evalgui-1234.tmp"))

    monkeypatch.setattr(export, "_create_temp", refused)
    with pytest.raises(PermissionError) as raised:
        with atomic_path(tmp_path / "out.csv"):
            pass
    assert raised.value.filename == str(tmp_path / "out.csv")
