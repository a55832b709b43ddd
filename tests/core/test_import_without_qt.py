"""The layers: evalgui.core never imports Qt, the GUI or the CLI; the engines never import the workflows;
core has no import cycle. Checked twice: by importing every module with Qt made unimportable, and
statically (an AST walk over every module, which also sees the imports a run never reaches)."""

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SCRIPT = r"""
import importlib, importlib.abc, pkgutil, sys

class BlockQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph"):
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, BlockQt())
import evalgui.core
names = [m.name for m in pkgutil.walk_packages(evalgui.core.__path__, "evalgui.core.")]
for name in names:
    importlib.import_module(name)
import evalgui.cli
leaked = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph")]
assert not leaked, leaked
print(len(names))
"""


def test_core_and_cli_import_with_qt_blocked():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip()) >= 8  # every submodule was walked, not just the package


# ---------------------------------------------------------------- the layers, statically
# Every import counts: at module level, inside functions, and importlib.import_module("...") with a
# literal name, so a lazy import cannot hide a crossing. Imports under `if TYPE_CHECKING:` never run;
# they count for the layer rules, not for cycles.

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "evalgui"
QT = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph")
WORKFLOWS = "evalgui.core.workflows"
ENGINES = ("evalgui.core.ranked", "evalgui.core.stats", "evalgui.core.metaeval", "evalgui.core.rankfile",
           "evalgui.core.cbr", WORKFLOWS)


@dataclass(frozen=True)
class Import:
    source: str          # the importing module, e.g. "evalgui.core.formats"
    target: str          # what it imports, resolved: the module when the name is one, else the package
    path: Path
    line: int
    runs: bool           # False under `if TYPE_CHECKING:`

    def __str__(self):
        where = self.path.relative_to(PACKAGE_ROOT.parent) if self.path.is_relative_to(PACKAGE_ROOT) else self.path
        return f"{where}:{self.line}: {self.source} imports {self.target}"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of evalgui: dotted name -> (file, is a package)."""
    found = {}
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        found[".".join(parts)] = (path, package)
    return found


MODULES = _modules()


def _resolve(name: str, level: int, source: str, is_package: bool) -> str:
    """The absolute module name of a (perhaps relative) import inside ``source``."""
    if not level:
        return name
    base = source.split(".") if is_package else source.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or \
        (isinstance(func, ast.Name) and func.id == "import_module")


def imports_of(source: str, path: Path | None = None, is_package: bool = False) -> list[Import]:
    """Every import in module ``source`` (read from ``path``, by default its file in evalgui)."""
    if path is None:
        path, is_package = MODULES[source]
    found: list[Import] = []

    def add(target: str, node: ast.AST, runs: bool):
        found.append(Import(source, target, path, node.lineno, runs))

    def visit(node: ast.AST, runs: bool):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, runs)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node, runs)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module or "", node.level, source, is_package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in MODULES else base, node, runs)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            name = node.args[0].value
            package = node.args[1] if len(node.args) > 1 else \
                next((k.value for k in node.keywords if k.arg == "package"), None)
            if name.startswith(".") and isinstance(package, ast.Constant) and isinstance(package.value, str):
                level = len(name) - len(name.lstrip("."))
                name = _resolve(name.lstrip("."), level, package.value, True)
            add(name, node, runs)
        for child in ast.iter_child_nodes(node):
            visit(child, runs)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), True)
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _known(target: str) -> str | None:
    """The evalgui module an import loads (the longest known prefix), or None outside evalgui."""
    parts = target.split(".")
    while parts:
        if ".".join(parts) in MODULES:
            return ".".join(parts)
        parts.pop()
    return None


CORE = [name for name in MODULES if _within(name, "evalgui.core")]


def test_the_static_check_sees_lazy_relative_and_dynamic_imports(tmp_path):
    """The walker itself, on a module written for it: each import found, resolved, with its line."""
    path = tmp_path / "probe.py"
    path.write_text("from typing import TYPE_CHECKING\n"
                    "import importlib\n"
                    "if TYPE_CHECKING:\n"
                    "    from evalgui.core.data import Qrels\n"
                    "def f():\n"
                    "    from ..ranked import measures\n"
                    "    from . import _text\n"
                    "    importlib.import_module('evalgui.gui.app')\n"
                    "    return importlib.import_module('.trec', 'evalgui.core.formats')\n", encoding="utf-8")
    found = [(i.target, i.line, i.runs) for i in imports_of("evalgui.core.formats.probe", path)]
    assert found == [("typing", 1, True), ("importlib", 2, True), ("evalgui.core.data", 4, False),
                     ("evalgui.core.ranked.measures", 6, True), ("evalgui.core.formats._text", 7, True),
                     ("evalgui.gui.app", 8, True), ("evalgui.core.formats.trec", 9, True)]
    assert str(imports_of("evalgui.core.formats.probe", path)[5]).endswith(
        "probe.py:8: evalgui.core.formats.probe imports evalgui.gui.app")


def test_core_never_imports_gui_cli_or_qt():
    """evalgui.core is below both front ends: not even a lazy import of them, nor of Qt."""
    crossings = [str(i) for source in CORE for i in imports_of(source)
                 if _within(i.target, "evalgui.gui") or _within(i.target, "evalgui.cli")
                 or i.target.split(".")[0] in QT or i.target == "evalgui"]
    assert crossings == [], "core imports a front end or Qt:\n" + "\n".join(crossings)


def test_engines_never_import_the_workflows():
    """The engines (all of core but core/workflows) are below the workflows that call them."""
    crossings = [str(i) for source in CORE if not _within(source, WORKFLOWS)
                 for i in imports_of(source) if _within(i.target, WORKFLOWS)]
    assert crossings == [], "an engine imports a workflow:\n" + "\n".join(crossings)


def test_the_input_layer_imports_no_engine():
    """Readers and input kinds (core/formats, core/inputs) are below every engine that reads what they read."""
    crossings = [str(i) for source in CORE if _within(source, "evalgui.core.formats") or
                 _within(source, "evalgui.core.inputs")
                 for i in imports_of(source) if any(_within(i.target, engine) for engine in ENGINES)]
    assert crossings == [], "the input layer imports an engine:\n" + "\n".join(crossings)


def test_core_has_no_import_cycle():
    """No cycle among core's modules, counting imports inside functions (a lazy import only hides one)."""
    edges: dict[str, dict[str, Import]] = {name: {} for name in CORE}
    for source in CORE:
        for i in imports_of(source):
            target = _known(i.target)
            if i.runs and target in edges and target != source:
                edges[source].setdefault(target, i)
    cycles = [component for component in _strongly_connected(edges) if len(component) > 1]
    report = []
    for component in cycles:
        members = set(component)
        report.append("cycle among " + ", ".join(sorted(members)) + ":")
        report += [f"  {i}" for source in sorted(members) for target, i in sorted(edges[source].items())
                   if target in members]
    assert cycles == [], "\n".join(report)


def _strongly_connected(edges: dict[str, dict]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph is small, but recursion limits are not ours to set)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(component)
    return components
