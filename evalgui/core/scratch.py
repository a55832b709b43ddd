"""Temporary files of long jobs, all in one folder per process, so that nothing is left behind.

The folder (``evalgui-scratch-<pid>-<random>`` in the system's temporary folder, or ``EVALGUI_SCRATCH``'s
folder) is removed when its job ends (finished, cancelled or failed), when the process exits, and, after a
crash or a kill, by the next evalgui that starts: :func:`sweep` removes every scratch folder whose
process is gone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from evalgui.core.errors import EvalInputError

PREFIX = "evalgui-scratch-"
_MINE: set[str] = set()


def root() -> str:
    return os.environ.get("EVALGUI_SCRATCH") or tempfile.gettempdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:              # another user's process
        return True
    except OSError:
        return True
    return True


def sweep(where: str | None = None) -> list[str]:
    """Remove the scratch folders that processes now gone left behind; returns those removed."""
    where = where or root()
    removed = []
    try:
        names = os.listdir(where)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX):
            continue
        pid_text = name[len(PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        path = os.path.join(where, name)
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            removed.append(path)
    return removed


def folder(purpose: str) -> str:
    """A new folder for one job's temporary files (remove it with :func:`remove`)."""
    sweep()
    try:
        path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{purpose}-", dir=root())
    except OSError as exc:
        raise EvalInputError(root(), f"cannot make a folder for temporary files ({exc.strerror or exc})") from None
    _MINE.add(path)
    return path


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
    _MINE.discard(path)


def remove_all() -> None:
    """This process's scratch folders (at exit, and from a signal handler before the process ends)."""
    for path in list(_MINE):
        remove(path)


def check_space(path: str, need: int, what: str) -> None:
    """Refuse, before writing, temporary files that would not fit on ``path``'s disk."""
    try:
        free = shutil.disk_usage(path).free
    except OSError:
        return
    if need > free:
        raise EvalInputError(path, f"not enough free disk space for {what}: about {need / 2**20:,.0f} MiB needed, "
                                   f"{free / 2**20:,.0f} MiB free (EVALGUI_SCRATCH names another folder)")


atexit.register(remove_all)
