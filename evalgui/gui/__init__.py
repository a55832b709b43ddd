"""The Qt application. Only this package imports Qt; it reaches the engines through its worker."""

from __future__ import annotations

import sys


def _cheaper_pyside_module_check() -> None:
    """PySide6 looks at every module imported after it for the word "PySide6" (its ``__feature__``
    switches, PYSIDE-2029) through ``inspect.getsource``, which reads and tokenizes the file line by
    line: some 0.15 s of the window's start-up over the ~900 modules it imports. The same question,
    answered by reading the file's bytes once. Left as it is when PySide6 no longer has the hook."""
    import PySide6.QtCore  # noqa: F401  (loads the hook's module)

    feature = sys.modules.get("shibokensupport.feature")
    upstream = getattr(feature, "_mod_uses_pyside", None)
    if upstream is None or getattr(upstream, "evalgui", False):
        return

    def mod_uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return upstream(module)
        try:
            with open(path, "rb") as fh:
                return b"PySide6" in fh.read()
        except OSError:
            return upstream(module)

    mod_uses_pyside.evalgui = True
    feature._mod_uses_pyside = mod_uses_pyside


_cheaper_pyside_module_check()
