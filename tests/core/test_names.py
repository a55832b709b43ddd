"""distinguishing_names: the fewest folders that tell same-named files apart (the window and the CLI name runs so)."""

import os

import pytest

from evalgui.core.data import Run
from evalgui.core.inputs import distinguishing_names
from evalgui.core.ranked.evaluate import unique_run_names

ROOT = os.path.abspath(os.sep + "data")


def at(*parts: str) -> str:
    return os.path.join(ROOT, *parts)


def test_different_names_stay_bare_stems():
    assert distinguishing_names([at("x", "bm25.run"), at("x", "dense.run")]) == ["bm25", "dense"]
    assert distinguishing_names([at("x", "bm25.run"), at("y", "dense.txt")], keep_extension=True) == \
        ["bm25.run", "dense.txt"]
    assert distinguishing_names([]) == []


def test_the_same_stem_in_two_folders_shows_the_folder():
    paths = [at("a", "bm25.run"), at("b", "bm25.run"), at("a", "dense.run")]
    assert distinguishing_names(paths) == ["a/bm25", "b/bm25", "dense"]
    assert distinguishing_names(paths, keep_extension=True) == ["a/bm25.run", "b/bm25.run", "dense.run"]
    # Folders are compared on stems: a compressed copy elsewhere is told apart by its folder, not its extension.
    assert distinguishing_names([at("a", "bm25.run.gz"), at("b", "bm25.run")]) == ["a/bm25", "b/bm25"]


def test_three_levels_of_folders():
    paths = [at("x", "a", "c", "bm25.run"), at("y", "a", "c", "bm25.run"), at("y", "b", "c", "bm25.run")]
    assert distinguishing_names(paths) == ["x/a/c/bm25", "y/a/c/bm25", "b/c/bm25"]


def test_a_path_that_is_the_tail_of_another_is_shown_whole():
    assert distinguishing_names([at("b", "bm25.run"), at("a", "b", "bm25.run")]) == ["data/b/bm25", "a/b/bm25"]
    top = os.path.abspath(os.path.join(os.sep, "b", "bm25.run"))          # nothing above b to show
    names = distinguishing_names([top, os.path.abspath(os.path.join(os.sep, "a", "b", "bm25.run"))])
    assert names == [top.replace(os.sep, "/")[: -len(".run")], "a/b/bm25"]


def test_names_differing_only_in_extension_keep_it():
    assert distinguishing_names([at("x", "bm25.run"), at("x", "bm25.txt")]) == ["bm25.run", "bm25.txt"]
    assert distinguishing_names([at("a", "bm25.run"), at("b", "bm25.run"), at("b", "bm25.txt")]) == \
        ["a/bm25", "b/bm25.run", "b/bm25.txt"]


def test_identical_paths_cannot_be_told_apart():
    with pytest.raises(ValueError, match="given twice"):
        distinguishing_names([at("a", "bm25.run"), at("a", "..", "a", "bm25.run")])


def test_relative_paths_are_read_from_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert distinguishing_names(["a/run.txt", "b/run.txt"]) == ["a/run", "b/run"]


def test_names_never_meet():
    # A stem with a dot ("bm25.run.txt") against another folder's pair bm25.run / bm25.txt.
    paths = [at("p", "bm25.run.txt"), at("q", "p", "bm25.run"), at("q", "p", "bm25.txt")]
    names = distinguishing_names(paths)
    assert len(set(names)) == 3


def _run(path: str, name: str | None = None) -> Run:
    stem = os.path.basename(path).split(".")[0]
    return Run.from_dict({"q": {"d": 1.0}}, name=name or stem, source=path)


def test_unique_run_names_tells_same_named_run_files_apart_by_folder():
    runs = [_run(at("a", "bm25.run")), _run(at("b", "bm25.run")), _run(at("a", "dense.run"))]
    assert unique_run_names(runs) == ["a/bm25", "b/bm25", "dense"]


def test_unique_run_names_numbers_runs_that_share_a_name_without_distinct_files():
    same_file = [_run(at("a", "bm25.run")), _run(at("a", "bm25.run"))]
    assert unique_run_names(same_file) == ["bm25", "bm25-2"]
    in_memory = [Run.from_dict({"q": {"d": 1.0}}), Run.from_dict({"q": {"d": 2.0}})]
    assert unique_run_names(in_memory) == ["run", "run-2"]
    # A name chosen by the caller is kept, not replaced by the file's stem.
    chosen = [_run(at("a", "x.run"), name="system"), _run(at("b", "y.run"), name="system")]
    assert unique_run_names(chosen) == ["system", "system-2"]
