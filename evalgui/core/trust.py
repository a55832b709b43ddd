"""Which projects may read files outside their own folder, as editors' workspace trust.

A project this user saved on this machine is trusted: every front end's save (the window,
``eg.save_project``) records the project's resolved path and its content hash. A project from
elsewhere that names files outside its folder is asked about once; the answer is kept here, for
that path and content (a project whose content changed is asked about again).

The store is one small JSON file in the user's configuration folder:
``EVALGUI_TRUST`` names it; else it sits beside ``EVALGUI_SETTINGS`` (the tests' settings);
else ``$XDG_CONFIG_HOME/evalgui/trust.json`` (``~/.config``; ``%APPDATA%`` on Windows,
``~/Library/Application Support`` on macOS). A store that cannot be read trusts nothing.
"""

from __future__ import annotations

import json
import os
import sys

STORE_NAME = "trust.json"
MAX_ENTRIES = 2000          # the oldest answers are forgotten past this (the store stays small)
MAX_STORE_BYTES = 4 << 20

SAVED, ALLOWED, REFUSED = "saved", "allowed", "refused"


def store_path() -> str:
    explicit = os.environ.get("EVALGUI_TRUST")
    if explicit:
        return explicit
    settings = os.environ.get("EVALGUI_SETTINGS")
    if settings:
        return os.path.join(os.path.dirname(os.path.abspath(settings)), "evalgui-" + STORE_NAME)
    if sys.platform.startswith("win"):
        base = os.environ.get("APPDATA") or os.path.expanduser("~")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Application Support")
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return os.path.join(base, "evalgui", STORE_NAME)


def _key(project_path: str) -> str:
    return os.path.realpath(project_path)


def _project_hash(project_path: str) -> str | None:
    from evalgui.core.hashing import content_hash

    try:
        return content_hash(project_path)
    except OSError:
        return None


def _load() -> dict:
    import stat

    path = store_path()
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_STORE_BYTES:
            return {}
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return {}
    entries = data.get("projects") if isinstance(data, dict) else None
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, dict)} \
        if isinstance(entries, dict) else {}


def _store(entries: dict) -> None:
    from evalgui.core.export import write_atomic

    if len(entries) > MAX_ENTRIES:        # dicts keep insertion order: the oldest go first
        entries = dict(list(entries.items())[-MAX_ENTRIES:])
    path = store_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps({"format": "evalgui-trust", "version": 1, "projects": entries}, indent=1) + "\n")
    except OSError:
        pass          # a read-only configuration folder: the user is asked again next time, nothing worse


def _record(project_path: str, status: str) -> None:
    digest = _project_hash(project_path)
    if digest is None:
        return
    entries = _load()
    key = _key(project_path)
    entries.pop(key, None)
    entries[key] = {"hash": digest, "status": status}
    _store(entries)


def record_saved(project_path: str) -> None:
    """This user saved the project here: trust it as it is now."""
    _record(project_path, SAVED)


def remember_answer(project_path: str, allowed: bool) -> None:
    """The user's answer for this project (as it is now): read its outside files, or not."""
    _record(project_path, ALLOWED if allowed else REFUSED)


def decision(project_path: str) -> bool | None:
    """True: read the project's outside files (saved here, or allowed); False: the user said no;
    None: not asked yet, or the project changed since."""
    entry = _load().get(_key(project_path))
    if entry is None or entry.get("hash") != _project_hash(project_path):
        return None
    status = entry.get("status")
    return True if status in (SAVED, ALLOWED) else False if status == REFUSED else None


def outside_folder(project_path: str, paths) -> list[str]:
    """The paths (in order, once each) that lie outside the project's folder after resolving links."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(project_path)))
    out = []
    for path in dict.fromkeys(paths):
        try:
            inside = os.path.commonpath([folder, os.path.realpath(path)]) == folder
        except ValueError:          # another drive on Windows
            inside = False
        if not inside:
            out.append(path)
    return out


def where_it_leads(path: str) -> str:
    """``path`` as the trust question names it: where its links lead (a link inside the project's folder
    can lead anywhere), and the link itself beside it."""
    target = os.path.realpath(path)
    return path if target == os.path.abspath(path) else f"{target} (through the link {path})"
