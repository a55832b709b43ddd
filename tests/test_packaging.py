"""What installing evalgui gives: a wheel holding every module and resource, which works installed.

The wheel is built once per session from a copy of the checkout (as a user's ``pip install .``
does, without leaving build/ behind) and installed into a fresh virtual environment. That
environment sees this one's dependencies through a .pth file (no second download of Qt), but
its own evalgui: nothing of the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
NOT_SOURCES = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".venv",
                                     "_data", ".hypothesis", ".pytest_cache")


def _files(folder: Path) -> set[str]:
    """Every file below ``folder`` that a checkout holds (no caches), relative, in POSIX form."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT, work / "src", ignore=NOT_SOURCES)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(work / "dist"),
                    str(work / "src")], check=True, capture_output=True)
    return next((work / "dist").glob("evalgui-*.whl"))


@pytest.fixture(scope="session")
def installed(wheel, tmp_path_factory) -> Path:
    """A virtual environment with the wheel installed: its python."""
    folder = tmp_path_factory.mktemp("venv")
    venv.create(folder, with_pip=False)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    own_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                   check=True, capture_output=True, text=True).stdout.strip())
    (own_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # --ignore-installed: where evalgui is installed (not editable) in this venv, as in CI, pip
    # would see it through the .pth file and install nothing.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", "--ignore-installed", str(wheel)], check=True, capture_output=True)
    return python


def _run(python: Path, *args: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_the_wheel_holds_every_module_and_every_resource(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"evalgui/{name}" for name in _files(ROOT / "evalgui")}
    resources = {f"evalgui/_resources/{name}" for name in _files(ROOT / "resources")}
    assert modules <= names, f"not in the wheel: {sorted(modules - names)}"
    assert resources <= names, f"not in the wheel: {sorted(resources - names)}"
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_a_new_package_is_shipped_without_listing_it(tmp_path):
    """Packages are found (setup.py), not listed: a new workspace folder ships as it is."""
    shutil.copytree(ROOT, tmp_path / "src", ignore=NOT_SOURCES)
    new = tmp_path / "src" / "evalgui" / "gui" / "workspaces" / "brand_new"
    new.mkdir()
    (new / "__init__.py").write_text('"""A workspace no configuration file names."""\n')
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path / "dist"),
                    str(tmp_path / "src")], check=True, capture_output=True)
    names = zipfile.ZipFile(next((tmp_path / "dist").glob("*.whl"))).namelist()
    assert "evalgui/gui/workspaces/brand_new/__init__.py" in names


def test_the_installed_wheel_finds_its_own_resources_and_version(installed, tmp_path):
    probe = ("from evalgui.core.resources import resources_dir, sample_data, icon\n"
             "import evalgui\n"
             "print(resources_dir())\n"
             "print(sample_data('synthetic', 'qrels.txt').is_file(), icon('evalgui.svg').is_file(),"
             " icon('evalgui-48.png').is_file(), icon('evalgui-256.png').is_file())\n"
             "print(evalgui.__version__)\n")
    result = _run(installed, "-c", probe, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    folder, found, version = result.stdout.splitlines()
    assert Path(folder).is_relative_to(installed.parents[1])        # the venv's copy, not the checkout's
    assert found == "True True True True"
    assert version == PYPROJECT["version"]


def test_the_installed_commands_print_the_version(installed, tmp_path):
    scripts = installed.parent
    for command in ("evalgui", "evalgui-cli"):
        result = subprocess.run([str(scripts / command), "--version"], cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"{command} {PYPROJECT['version']}"


def test_the_installed_application_passes_its_self_test(installed, tmp_path):
    """The demo from the installed package, evaluated; then every module, the icon, the licences."""
    result = subprocess.run([str(installed.parent / "evalgui"), "--demo", "--self-test"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=180,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen",
                                 "EVALGUI_SETTINGS": str(tmp_path / "settings.ini")})
    assert result.returncode == 0, result.stderr
    assert "rerank" in result.stdout


def test_the_version_has_one_source():
    import evalgui
    from evalgui.core.distribution import version

    assert evalgui.__version__ == version() == PYPROJECT["version"]
    assert "__version__ =" not in (ROOT / "evalgui" / "__init__.py").read_text()


def test_every_library_evalgui_runs_on_has_its_licence_from_the_metadata():
    from importlib.metadata import metadata

    from evalgui.core.distribution import bundled_libraries, licence_of

    libraries = {lib.name.lower(): lib for lib in bundled_libraries()}
    for requirement in PYPROJECT["dependencies"]:                 # each direct dependency, and theirs
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
        assert name.lower().replace("-", "_") in {n.replace("-", "_") for n in libraries}, name
    assert libraries["pyarrow"].licence == licence_of(metadata("pyarrow")) == "Apache-2.0"
    assert libraries["pyqtgraph"].licence == "MIT"
    assert "LGPL-3.0" in libraries["pyside6_essentials"].licence
    assert all(lib.licence != "unknown" for lib in libraries.values())


def test_the_installation_is_complete():
    from evalgui.core.distribution import installation_problems, unimportable_modules

    assert installation_problems() == []
    assert unimportable_modules() == []


def test_a_module_left_out_is_reported(tmp_path, monkeypatch):
    from evalgui.core.distribution import unimportable_modules

    package = tmp_path / "half_bundled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "fine.py").write_text("")
    (package / "workspace.py").write_text("import a_module_the_bundler_missed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert unimportable_modules("half_bundled") == [
        "cannot import half_bundled.workspace: No module named 'a_module_the_bundler_missed'"]


def test_sample_data_is_found():
    from evalgui.core.resources import sample_data

    assert (sample_data("synthetic") / "qrels.txt").exists()
    assert (sample_data("meic") / "base.run").exists()
