"""The README says what case-based retrieval is: its status and every module in the layout; the command line's
reference page (docs/command-line.md, linked from the README) names every metric, local similarity and
command-line option (a new one must be documented to pass)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def test_the_status_line_says_case_based_retrieval_is_here():
    status = next(p for p in README.split("\n\n") if p.startswith("Status:"))
    here, _, under_way = status.partition("under way")
    assert "case-based retrieval" in " ".join(here.split()) and "case-based" not in under_way.lower()


def test_the_layout_names_every_case_based_module():
    layout = _section("Layout")
    assert "without readers" not in layout
    assert "case bases (`case_base.py`) and similarity results (`similarity.py`)" in " ".join(layout.split())
    modules = [p for folder in ("evalgui/core/cbr", "evalgui/gui/workspaces/casebase")
               for p in sorted((ROOT / folder).glob("*.py")) if p.name != "__init__.py"]
    assert len(modules) >= 13
    for path in modules:
        assert f"`{path.name}`" in layout, f"{path.relative_to(ROOT)} is not in the README's layout"
    for name in ("`cbr/`", "`workspaces/casebase/`", "`similarity.py`", "`casebase.py`", "`bench_casebase.py`"):
        assert name in layout, name


def test_the_readme_links_the_command_lines_reference_page():
    assert "(docs/command-line.md)" in README


def test_every_metric_and_local_similarity_is_named():
    from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, QUALITY_METRICS, RETRIEVAL_METRICS, TIES

    for name in (*QUALITY_METRICS, *RETRIEVAL_METRICS, *LOCAL_SIMILARITIES, *TIES):
        assert f"`{name}`" in REFERENCE or f"{name}`" in REFERENCE, name


@pytest.mark.parametrize("command", ["similarity", "casebase"])
def test_every_option_of_the_commands_is_named(command):
    from evalgui.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions if hasattr(a, "choices")).choices[command]
    shared = {"--format", "--output", "--help"}          # every command's, documented once
    # An option is documented under any of its names (-m or --metric).
    missing = [a.option_strings[-1] for a in sub._actions if a.option_strings and not shared & set(a.option_strings)
               and not any(re.search(r"(?<![\w-])" + re.escape(o) + r"\b", REFERENCE) for o in a.option_strings)]
    assert not missing, f"evalgui-cli {command}: undocumented options {missing}"
