"""Can Qt open a window here? Asked before the QApplication exists.

On Linux, Qt's X11 ("xcb") platform plugin needs system libraries that PySide6
does not ship. When one is missing, or there is no display at all, Qt prints
a message naming only xcb-cursor and aborts (exit status 134). ``evalgui``
asks first and says what to do instead: which packages to install, or how to
run headless. Importing this module does not import Qt.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Callable, Mapping

# The system libraries Qt 6's xcb plugin loads (the NEEDED entries of libqxcb.so and
# libQt6XcbQpa.so, less PySide6's own Qt libraries and the C/C++ runtime), with the
# package holding each on Debian/Ubuntu and on Fedora. A test keeps this list in step
# with the installed plugin.
XCB_LIBRARIES: dict[str, tuple[str, str]] = {
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}


def _install_line(command: str, column: int) -> str:
    return command + " " + " ".join(dict.fromkeys(packages[column] for packages in XCB_LIBRARIES.values()))


APT_LINE = _install_line("sudo apt install", 0)
DNF_LINE = _install_line("sudo dnf install", 1)

NO_DISPLAY = "no display: set DISPLAY, or QT_QPA_PLATFORM=offscreen for a headless run"


def library_load_error(name: str) -> str | None:
    """Why the dynamic loader cannot load ``name`` (a soname or a path), or None when it can."""
    try:
        ctypes.CDLL(name)
    except OSError as exc:
        return str(exc)
    return None


def x_display_error(display: str) -> str | None:
    """Why no connection to the X server ``display`` can be made, or None when one can (or libxcb is absent)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    failed = xcb.xcb_connection_has_error(connection)
    xcb.xcb_disconnect(connection)         # also frees the error object xcb_connect returns
    return f"cannot connect to the X display '{display}' (DISPLAY)" if failed else None


def _uses_xcb(env: Mapping[str, str]) -> bool:
    """Whether Qt will start with its xcb plugin (the one needing X11 libraries)."""
    requested = env.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        # "xcb", "xcb:option=value" or a fallback list "wayland;xcb": the first one is tried first.
        return requested.split(";")[0].split(":")[0].strip() == "xcb"
    # Without a choice Qt 6 tries Wayland first when there are signs of Wayland.
    return not (env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland")


def platform_problem(env: Mapping[str, str] | None = None, system: str | None = None,
                     load_error: Callable[[str], str | None] = library_load_error,
                     display_error: Callable[[str], str | None] = x_display_error) -> str | None:
    """What stops Qt from opening a window here, as a message for the terminal; None if nothing does.

    ``env``, ``system``, ``load_error`` and ``display_error`` default to this process's environment,
    ``sys.platform``, the real dynamic loader and X server; tests pass their own.
    """
    env = os.environ if env is None else env
    system = sys.platform if system is None else system
    if not system.startswith("linux") or not _uses_xcb(env):
        return None
    if not env.get("DISPLAY"):
        return NO_DISPLAY
    missing = [name for name in XCB_LIBRARIES if load_error(name) is not None]
    if not missing:
        unreachable = display_error(env["DISPLAY"])
        return f"{unreachable}: is the X server running? Or run headless with QT_QPA_PLATFORM=offscreen." \
            if unreachable else None
    listed = ", ".join(f"{name} ({XCB_LIBRARIES[name][0]}; Fedora: {XCB_LIBRARIES[name][1]})" for name in missing)
    return ("Qt cannot open a window: its X11 (xcb) platform plugin needs libraries this system lacks: "
            f"{listed}.\n"
            "Install what Qt needs, on Debian or Ubuntu:\n"
            f"    {APT_LINE}\n"
            "on Fedora:\n"
            f"    {DNF_LINE}\n"
            "or run headless with QT_QPA_PLATFORM=offscreen.")
