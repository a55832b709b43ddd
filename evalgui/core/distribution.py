"""What this installation of evalgui is: its version, the libraries it ships with and their licences.

One source for each: pyproject.toml, through the package metadata that installing evalgui writes
(a wheel, an editable install, a PyInstaller bundle, which copies the metadata). Code running from a
source checkout reads the checkout's pyproject.toml itself, as :mod:`evalgui.core.resources` reads its
resources/: the metadata may be missing or describe another checkout.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import pkgutil
import platform
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

DISTRIBUTION = "evalgui"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Library:
    name: str
    version: str
    licence: str


def _checkout_pyproject() -> dict | None:
    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not path.is_file():
        return None
    project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    return project if project.get("name") == DISTRIBUTION else None


def _metadata():
    """importlib.metadata, imported when first needed: it costs about 40 ms, at every start of the CLI."""
    import importlib.metadata

    return importlib.metadata


@functools.cache
def version() -> str:
    project = _checkout_pyproject()
    if project is not None:
        return str(project["version"])
    try:
        return _metadata().version(DISTRIBUTION)
    except _metadata().PackageNotFoundError:
        return UNKNOWN


class VersionAction(argparse.Action):
    """``--version``: prints ``template`` (``%(prog)s`` and ``{version}``) and exits. The version is
    looked up only when the option is given, so that a normal start does not pay for it."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, template="%(prog)s {version}",
                 help="show the program's version and exit"):
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)
        self.template = template

    def __call__(self, parser, namespace, values, option_string=None):
        print(self.template.replace("%(prog)s", parser.prog).format(version=version()))   # stdout, as argparse's
        parser.exit()


def _requirement_names(requirements: list[str]) -> list[str]:
    """The distributions a list of requirement strings names, leaving out those of optional extras."""
    names = []
    for requirement in requirements:
        if re.search(r"extra\s*==", requirement.partition(";")[2]):
            continue
        names.append(re.match(r"[A-Za-z0-9._-]+", requirement.strip()).group(0))
    return names


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def licence_of(meta) -> str:
    """The licence a distribution declares: its SPDX expression, a short License field or the classifier."""
    expression = meta.get("License-Expression")
    if expression:
        return expression
    field = (meta.get("License") or "").strip()
    if field and "\n" not in field and len(field) <= 60:
        return field
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    return ", ".join(classifiers) or UNKNOWN


@functools.cache
def bundled_libraries() -> tuple[Library, ...]:
    """Every installed distribution evalgui runs on (its dependencies and theirs), sorted by name."""
    project = _checkout_pyproject()
    try:
        pending = _requirement_names(project["dependencies"] if project is not None
                                     else _metadata().requires(DISTRIBUTION) or [])
    except _metadata().PackageNotFoundError:
        pending = []
    found: dict[str, Library] = {}
    while pending:
        name = pending.pop()
        if _canonical(name) in found:
            continue
        try:
            dist = _metadata().distribution(name)
        except _metadata().PackageNotFoundError:     # a dependency for another platform
            continue
        found[_canonical(name)] = Library(dist.metadata["Name"], dist.version, licence_of(dist.metadata))
        pending += _requirement_names(dist.requires or [])
    return tuple(sorted(found.values(), key=lambda lib: lib.name.lower()))


def python_library() -> Library:
    return Library("Python", platform.python_version(), "PSF-2.0")


def evalgui_licence() -> str:
    project = _checkout_pyproject()
    if project is not None:
        return str(project.get("license", UNKNOWN))
    try:
        return licence_of(_metadata().metadata(DISTRIBUTION))
    except _metadata().PackageNotFoundError:
        return UNKNOWN


def installation_problems() -> list[str]:
    """What this installation lacks (a bundle that left something out): metadata, licences, resources."""
    from evalgui.core.resources import icon, resource, sample_data

    problems = []
    if version() == UNKNOWN:
        problems.append("the version is unknown: evalgui's package metadata is missing")
    libraries = bundled_libraries()
    if not libraries:
        problems.append("no dependency found in the package metadata")
    problems += [f"no licence found for {lib.name}" for lib in libraries if lib.licence == UNKNOWN]
    for path in (sample_data("synthetic", "qrels.txt"), icon("evalgui.svg"), icon("evalgui-256.png"),
                 resource("help", "index.html")):
        if not path.is_file():
            problems.append(f"resource missing: {path}")
    return problems


def unimportable_modules(package: str = "evalgui") -> list[str]:
    """Every module of ``package`` that fails to import, with the reason (a bundle that missed one).

    The workspaces and input kinds are imported by name from their registries, which a bundler
    cannot see; this finds any it left out.
    """
    root = importlib.import_module(package)
    modules = [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")
               if not m.name.startswith(f"{package}._resources") and not m.name.endswith("__main__")]
    problems = [] if modules else [f"no module of {package} found"]
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:          # noqa: BLE001 - any failure is what we report
            problems.append(f"cannot import {name}: {exc}")
    return problems
