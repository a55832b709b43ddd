"""Where the bundled resources (sample data, icons, help) are: the one place that knows.

resources/ ships inside the package as ``evalgui._resources`` (setup.py), and is found through
importlib.resources in a wheel, an editable install and a PyInstaller bundle alike. Code running
from a source checkout reads that checkout's own resources/ first: it may not be installed, or
another checkout (a git worktree) may be the one installed in editable mode.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

PACKAGE = "evalgui._resources"


@functools.cache
def resources_dir() -> Path:
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "resources" / "__init__.py").is_file():
        return checkout / "resources"
    found = importlib.resources.files(PACKAGE)
    if not isinstance(found, Path):
        # The readers and Qt take file names: a zipped install cannot serve them.
        raise RuntimeError(f"evalgui's resources must be installed as files, not in an archive ({found})")
    return found


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def sample_data(*parts: str) -> Path:
    return resource("sample_data", *parts)


def icon(name: str) -> Path:
    """An icon file of resources/icons/, e.g. ``icon("evalgui.svg")``."""
    return resource("icons", name)
