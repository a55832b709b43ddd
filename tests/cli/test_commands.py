"""evalgui.cli as a package: the subcommand interface, --help, exit codes, measures --family, write_table."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib import import_module

import numpy as np
import pandas as pd
import pytest

import evalgui.cli as cli
from evalgui.cli import main
from evalgui.cli.common import UsageProblem, write_table
from evalgui.core.export import FORMATS
from evalgui.core.ranked.measures import REGISTRY
from evalgui.core import registry
from tests import fake_family
from tests.test_cli import QRELS, RUN, run_cli, write

SUBCOMMAND_MODULES = [import_module(f"evalgui.cli.{name}") for name in cli.SUBCOMMANDS]


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "qrels.txt", QRELS), write(tmp_path, "run.txt", RUN)


# ---------------------------------------------------------------- one module per subcommand

@pytest.mark.parametrize("module", SUBCOMMAND_MODULES, ids=lambda m: m.NAME)
def test_every_subcommand_module_has_the_interface(module):
    assert isinstance(module.NAME, str) and module.HELP and module.DESCRIPTION
    assert callable(module.add_arguments) and callable(module.run)


def test_subcommands_are_listed_once_in_order():
    assert [m.NAME for m in SUBCOMMAND_MODULES] == ["trec_eval", "evaluate", "compare", "preference", "metaeval",
                                                    "stability", "similarity", "casebase", "measures", "run", "report"]
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == [m.NAME for m in SUBCOMMAND_MODULES]


@pytest.mark.parametrize("name", cli.SUBCOMMANDS)
def test_every_subcommand_help_exits_0_with_its_usage(capsys, name):
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    out, err = capsys.readouterr()
    assert info.value.code == 0 and err == ""
    assert out.startswith(f"usage: evalgui-cli {name} ")


def test_top_level_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert all(m.NAME in out and m.HELP in out for m in SUBCOMMAND_MODULES)


def test_format_choices_are_the_export_formats(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "{" + ",".join(FORMATS) + "}" in capsys.readouterr().out


def test_importing_the_cli_imports_no_engine():
    code = ("import sys, evalgui.cli as c; c.build_parser(); "
            "heavy = [m for m in ('numpy', 'pandas', 'pyarrow', 'evalgui.core.ranked') if m in sys.modules]; "
            "print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize("command", ["evaluate", "trec_eval"])
def test_ranked_subcommands_are_set_up_for_one_pass_and_read_the_version_only_when_asked(files, command):
    # Issue 8, point 13: start-up and page faults count on a 1-second run. Neither subcommand does
    # linear algebra (OpenBLAS need not start its threads) or keeps its memory long (numpy is not to
    # ask for huge pages), and the package metadata is read for --version alone.
    code = ("import os, sys; [os.environ.pop(v, None) for v in ('OPENBLAS_NUM_THREADS', 'NUMPY_MADVISE_HUGEPAGE')]; "
            f"from evalgui.cli import _main; status = _main([{command!r}, *sys.argv[1:]]); "
            "import numpy._core.multiarray as m; "
            "print(status, os.environ.get('OPENBLAS_NUM_THREADS'), m._get_madvise_hugepage(), "
            "'importlib.metadata' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *map(str, files)], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == "0 1 False False", proc.stderr


# ---------------------------------------------------------------- exit codes

def test_success_is_0(capsys, files):
    assert run_cli(capsys, "trec_eval", "-m", "map", *files)[0] == 0


@pytest.mark.parametrize("argv", [["evaluate"], ["trec_eval", "--no-such-option", "q", "r"],
                                  ["evaluate", "q", "r", "--format", "xml"], ["nosuchcommand"]])
def test_usage_errors_are_2_with_one_line(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == "" and len(err.splitlines()) == 1


def test_bad_input_is_2_with_one_line(capsys, tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 oops t\n")
    for command in ("trec_eval", "evaluate"):
        status, out, err = run_cli(capsys, command, qrels, run)
        assert (status, out, len(err)) == (2, "", 1) and "line 1" in err[0]


def test_internal_error_is_1_with_one_line(capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("kaput")

    monkeypatch.setattr(import_module("evalgui.cli.measures"), "run", broken)
    monkeypatch.delenv("EVALGUI_DEBUG", raising=False)
    status, out, err = run_cli(capsys, "measures")
    assert status == 1 and out == ""
    assert err == ["evalgui-cli: error: internal error: RuntimeError: kaput (set EVALGUI_DEBUG=1 for details)"]
    monkeypatch.setenv("EVALGUI_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["measures"])


@pytest.mark.parametrize("exc, status", [(BrokenPipeError, 0), (KeyboardInterrupt, 130)])
def test_broken_pipe_and_interrupt(capsys, monkeypatch, exc, status):
    def interrupted(args):
        raise exc()

    monkeypatch.setattr(import_module("evalgui.cli.measures"), "run", interrupted)
    monkeypatch.setattr(sys, "stdout", sys.stdout)        # main swaps stdout after a broken pipe
    assert main(["measures"]) == status


def test_python_m_evalgui_cli_runs(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "evalgui.cli", "measures", "map"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == "map  (ir_measures: AP)"


# ---------------------------------------------------------------- measures and families

def test_measures_lists_each_family_under_a_heading(capsys):
    status, out, err = run_cli(capsys, "measures")
    lines = out.splitlines()
    assert status == 0 and err == []
    assert lines[0] == "# Ranked retrieval measures (--family ranked)"
    ranked = lines[1:lines.index("")]
    assert [l.split()[0] for l in ranked] == list(REGISTRY)
    assert "# Significance tests (--family tests)" in lines
    assert "# Multiple-comparison corrections (--family corrections)" in lines


def test_measures_family_ranked(capsys):
    status, out, _ = run_cli(capsys, "measures", "--family", "ranked")
    assert status == 0 and run_cli(capsys, "measures")[1].startswith(out)
    status, out, _ = run_cli(capsys, "measures", "--family", "ranked", "P")
    assert status == 0 and out.splitlines()[0] == "P  (ir_measures: P@k)"


@pytest.mark.parametrize("argv", [["--family", "nosuch"], ["--family", "nosuch", "map"]])
def test_measures_unknown_family_is_2_with_one_line(capsys, argv):
    status, out, err = run_cli(capsys, "measures", *argv)
    assert status == 2 and out == "" and len(err) == 1 and "'nosuch'" in err[0] and "ranked" in err[0]


def test_a_registered_family_is_listed_by_the_cli(capsys):
    with fake_family.registered():
        status, out, _ = run_cli(capsys, "measures")
        assert status == 0
        blocks = out.split("\n\n")
        assert len(blocks) == len(registry.family_keys()) and blocks[0].startswith("# Ranked retrieval measures")
        assert blocks[-1].splitlines() == [
            f"# Fake significance tests (--family {fake_family.KEY})",
            f"{'coin_flip':<24}Zyzzyva statistic: flips a coin per query",
            f"{'tally':<24}How many queries were flipped [tally_fn]"]
        status, only, _ = run_cli(capsys, "measures", "--family", fake_family.KEY)
        assert status == 0 and only == blocks[-1]
        status, one, _ = run_cli(capsys, "measures", "tally")
        assert status == 0 and one.splitlines() == ["tally  (scipy: tally_fn)", "How many queries were flipped.", "",
                                                    "Formula: |Q|"]
        status, _, err = run_cli(capsys, "measures", "--family", fake_family.KEY, "map")
        assert status == 2 and len(err) == 1
    assert "coin_flip" not in run_cli(capsys, "measures")[1]


# ---------------------------------------------------------------- write_table

COLUMNS = {"run": np.array(["a", "a"], dtype=object), "query": np.array(["1", "all"], dtype=object),
           "measure": np.array(["map", "map"], dtype=object), "value": np.array([0.5, 2 / 3])}


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_table_columns_and_frame_agree(capsys, fmt):
    write_table(COLUMNS, fmt)
    from_columns = capsys.readouterr().out
    write_table(pd.DataFrame(COLUMNS), fmt)
    assert from_columns == capsys.readouterr().out


def test_write_table_csv_writes_15_significant_digits(capsys):
    write_table(COLUMNS, "csv")   # issue 8, point 12: as spreadsheets show numbers, without float noise
    assert pd.read_csv(io.StringIO(capsys.readouterr().out))["value"].tolist() == [0.5, 0.666666666666667]


def test_write_table_to_a_file(tmp_path, capsys):
    target = tmp_path / "t.json"
    write_table(COLUMNS, "json", str(target))
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())[1]["value"] == 0.666666666666667
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_write_table_refuses_an_unknown_format():
    with pytest.raises(UsageProblem, match="unknown format 'xml'"):
        write_table(COLUMNS, "xml")
