"""Issue 9, point 6: `evalgui` says what is missing for a window (libraries, a display) instead of Qt aborting."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalgui.gui.platform_check import (APT_LINE, DNF_LINE, NO_DISPLAY, XCB_LIBRARIES, platform_problem)

ROOT = Path(__file__).resolve().parents[2]
X11 = {"DISPLAY": ":0"}


def everything_loads(name):
    return None


def display_reachable(display):
    return None


def missing(*absent):
    """A library probe for a system lacking ``absent``."""
    return lambda name: f"{name}: cannot open shared object file" if name in absent else None


def check(env, load_error=everything_loads, display_error=display_reachable, system="linux"):
    return platform_problem(env, system, load_error=load_error, display_error=display_error)


def test_nothing_is_wrong_on_a_complete_x11_desktop():
    assert check(X11) is None


def test_no_display_at_all_says_so():
    assert check({}) == NO_DISPLAY
    assert check({"QT_QPA_PLATFORM": "xcb"}) == NO_DISPLAY
    assert "QT_QPA_PLATFORM=offscreen" in NO_DISPLAY and "DISPLAY" in NO_DISPLAY


@pytest.mark.parametrize("env", [
    {"QT_QPA_PLATFORM": "offscreen"},                                   # the tests and CI
    {"QT_QPA_PLATFORM": "wayland;xcb", "WAYLAND_DISPLAY": "wayland-0"},
    {"WAYLAND_DISPLAY": "wayland-0"},                                   # Qt tries Wayland first
    {"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"},
])
def test_other_platforms_are_left_to_qt(env):
    assert check(env, load_error=missing(*XCB_LIBRARIES), display_error=lambda d: "unreachable") is None


def test_other_systems_are_left_to_qt():
    assert check({}, system="darwin") is None and check({}, system="win32") is None


def test_missing_xcb_libraries_are_named_with_their_packages_and_the_install_lines():
    message = check(X11, load_error=missing("libxcb-icccm.so.4", "libxcb-keysyms.so.1"))
    first_line = message.splitlines()[0]
    assert "libxcb-icccm.so.4 (libxcb-icccm4; Fedora: xcb-util-wm)" in first_line
    assert "libxcb-keysyms.so.1 (libxcb-keysyms1; Fedora: xcb-util-keysyms)" in first_line
    assert "libxcb-cursor" not in first_line                      # only what is missing
    assert APT_LINE in message and DNF_LINE in message and "QT_QPA_PLATFORM=offscreen" in message
    # The same check with xcb chosen explicitly, with plugin options.
    assert check({**X11, "QT_QPA_PLATFORM": "xcb:nograb"}, load_error=missing("libxcb-icccm.so.4")) is not None


def test_the_install_lines_hold_the_whole_set_once():
    for package in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-image0", "libxkbcommon-x11-0",
                    "libxcb-render-util0"):
        assert APT_LINE.split().count(package) == 1
    for package in ("xcb-util-cursor", "xcb-util-wm", "xcb-util-keysyms", "xcb-util-image", "xcb-util-renderutil",
                    "libxkbcommon-x11"):
        assert DNF_LINE.split().count(package) == 1
    assert DNF_LINE.split().count("libxcb") == 1


def test_the_readme_gives_the_same_install_lines():
    readme = (ROOT / "README.md").read_text()
    assert APT_LINE in readme and DNF_LINE in readme


def test_an_unreachable_x_server_is_named():
    message = check({"DISPLAY": ":77"}, display_error=lambda d: f"cannot connect to the X display '{d}'")
    assert "':77'" in message and "QT_QPA_PLATFORM=offscreen" in message


def _plugin_files():
    from PySide6.QtCore import QLibraryInfo

    plugin = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
    qt_libs = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath))
    return plugin, qt_libs


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("readelf") is None,
                    reason="the xcb plugin's ELF dependencies are read with readelf, on Linux")
def test_the_library_list_covers_what_the_installed_xcb_plugin_needs():
    plugin, qt_libs = _plugin_files()
    if not plugin.exists():
        pytest.skip(f"no xcb plugin at {plugin}")
    files = [plugin] + sorted(qt_libs.glob("libQt6XcbQpa.so*"))[:1]
    needed = set()
    for path in files:
        dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
        needed |= {line.split("[", 1)[1].split("]", 1)[0] for line in dynamic.splitlines() if "(NEEDED)" in line}
    runtime = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
               "libpthread.so.0", "libdl.so.2", "librt.so.1"}          # the C and C++ runtime: always there
    system = {name for name in needed if not (qt_libs / name).exists() and name not in runtime}
    assert system - set(XCB_LIBRARIES) == set()


@pytest.mark.skipif(shutil.which("dpkg") is None or shutil.which("ldconfig") is None, reason="Debian's dpkg")
def test_the_debian_package_names_are_the_ones_holding_the_libraries():
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    checked = 0
    for soname, (debian, _fedora) in XCB_LIBRARIES.items():
        if f"\t{soname} (" not in cache:
            continue                                         # not installed here: nothing to compare
        owner = subprocess.run(["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True).stdout
        assert {line.split(":", 1)[0] for line in owner.splitlines()} == {debian}, soname
        checked += 1
    assert checked


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 displays are a Linux matter here")
def test_evalgui_without_a_display_exits_1_with_the_message_not_a_qt_abort(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env["EVALGUI_SETTINGS"] = str(tmp_path / "settings.ini")
    done = subprocess.run([sys.executable, "-m", "evalgui.gui.app"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == f"evalgui: {NO_DISPLAY}"


def test_the_quick_start_installs_the_system_libraries_first():
    """On a bare Linux the quick start works as written: the system-library line is the block right before its
    two commands (the ones .ci/run runs), in a block of its own, so nobody meets a missing library first."""
    readme = (ROOT / "README.md").read_text()
    before, marker, after = readme.partition("<!-- quickstart")
    assert marker
    blocks = re.findall(r"```bash\n(.*?)```", before, re.S)
    assert blocks and before.rstrip().endswith("```")
    system = blocks[-1].strip().splitlines()
    assert len(system) == 1 and APT_LINE in system[0] and "python3-venv" in system[0].split()
    commands = re.search(r"```bash\n(.*?)```", after, re.S).group(1).strip().splitlines()
    assert commands == ['pip install . && evalgui --demo', 'pip install ".[test]" && python -m pytest']
