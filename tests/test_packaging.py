"""pyproject lists every package by hand (resources/ ships as evalgui._resources): none may be forgotten."""

import tomllib

from tests.conftest import ROOT


def test_every_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "evalgui").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"]["evalgui._resources"] == "resources"


def test_sample_data_is_found():
    from evalgui.core.resources import sample_data

    assert (sample_data("synthetic") / "qrels.txt").exists()
    assert (sample_data("meic") / "base.run").exists()
