"""The Linux desktop files: the entry, the .evalgui project type, the AppStream metadata, install.sh.

Each is parsed and checked against the others and against the application; the freedesktop
validators check them too where installed (desktop-file-utils, appstream).
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import ROOT

LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "evalgui.desktop"
MIME = LINUX / "evalgui-mime.xml"
METAINFO = LINUX / "io.github.evalgui.evalgui.metainfo.xml"
MIME_NS = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
PROJECT_TYPE = "application/x-evalgui-project"


def desktop_entry() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str                    # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_the_desktop_entry_opens_a_project_with_the_application():
    entry = desktop_entry()
    assert entry["Type"] == "Application" and entry["Name"] == "evalgui" and entry["Terminal"] == "false"
    assert entry["Exec"] == "evalgui %f"                    # the double-clicked file, as app.main reads it
    assert entry["MimeType"].rstrip(";").split(";") == [PROJECT_TYPE]
    from evalgui.core.resources import icon
    from evalgui.gui.app import DESKTOP_FILE

    assert entry["Icon"] == "evalgui" and icon("evalgui.svg").is_file()

    assert f"{DESKTOP_FILE}.desktop" == DESKTOP.name      # Wayland matches the window to the entry by it


def test_the_project_type_is_the_evalgui_extension():
    mime = ET.parse(MIME).getroot().find("m:mime-type", MIME_NS)
    assert mime.get("type") == PROJECT_TYPE
    assert [g.get("pattern") for g in mime.findall("m:glob", MIME_NS)] == ["*.evalgui"]
    assert mime.find("m:sub-class-of", MIME_NS).get("type") == "application/json"
    from evalgui.gui.mainwindow import PROJECT_FILTER

    assert "*.evalgui" in PROJECT_FILTER


def test_the_metainfo_names_the_entry_the_type_and_this_version():
    component = ET.parse(METAINFO).getroot()
    assert component.get("type") == "desktop-application"
    assert component.findtext("id") == METAINFO.name.removesuffix(".metainfo.xml")
    for required in ("name", "summary", "metadata_license", "project_license", "description"):
        assert (component.findtext(required) or component.find(required) is not None), required
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert component.findtext("project_license") == project["license"]
    assert component.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert component.findtext("provides/mediatype") == PROJECT_TYPE
    assert component.find("releases/release").get("version") == project["version"]


@pytest.mark.parametrize("tool, args, path", [
    ("desktop-file-validate", [], DESKTOP),
    ("appstreamcli", ["validate", "--no-net"], METAINFO),
])
def test_the_freedesktop_validators_accept_the_files(tool, args, path):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (apt install desktop-file-utils appstream)")
    result = subprocess.run([tool, *args, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower()


def test_install_sh_registers_the_entry_icons_and_project_type(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    subprocess.run(["bash", str(LINUX / "install.sh")], env=env, check=True, capture_output=True)
    installed = configparser.ConfigParser(interpolation=None)
    installed.optionxform = str
    installed.read(tmp_path / "applications" / "evalgui.desktop")
    assert installed["Desktop Entry"]["Exec"] == '"evalgui" %f'           # a checkout: the command on PATH
    for icon in ("scalable/apps/evalgui.svg", "48x48/apps/evalgui.png", "256x256/apps/evalgui.png"):
        assert (tmp_path / "icons" / "hicolor" / icon).is_file()
    assert (tmp_path / "mime" / "packages" / MIME.name).is_file()
    if shutil.which("update-mime-database"):
        assert f"{PROJECT_TYPE}:*.evalgui" in (tmp_path / "mime" / "globs2").read_text()
    subprocess.run(["bash", str(LINUX / "install.sh"), "--uninstall"], env=env, check=True, capture_output=True)
    assert not (tmp_path / "applications" / "evalgui.desktop").exists()
