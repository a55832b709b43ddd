"""Each workspace package is self-contained: what two of them share lives in evalgui.gui (or in the
workspaces' own shared modules, base and run_picker), so a workspace can change without breaking another."""

from __future__ import annotations

import ast
from pathlib import Path

import evalgui.gui.workspaces as workspaces

ROOT = Path(workspaces.__file__).parent
PACKAGES = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists())


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_workspace_imports_another():
    assert len(PACKAGES) >= 5, PACKAGES
    crossings = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in _imported_modules(path):
                parts = module.split(".")
                if parts[:3] == ["evalgui", "gui", "workspaces"] and len(parts) > 3 \
                        and parts[3] in PACKAGES and parts[3] != package:
                    crossings.append(f"{path.relative_to(ROOT)} imports {module}")
    assert crossings == []
