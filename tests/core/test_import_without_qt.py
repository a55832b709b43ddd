"""evalgui.core must never import Qt: it is imported here with Qt made unimportable."""

import subprocess
import sys

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
