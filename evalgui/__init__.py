"""evalgui: a desktop workbench for evaluating retrieval systems.

``import evalgui as eg`` is light: the Python API (:mod:`evalgui.api`: ``eg.evaluate``,
``eg.metaeval``...) is imported when first used.
"""

_API = ("evaluate", "metaeval")


def __getattr__(name: str):
    # The version is read from the package metadata (pyproject.toml is its one source) when asked for.
    if name == "__version__":
        from evalgui.core.distribution import version

        return version()
    if name in _API:
        from evalgui import api

        return getattr(api, name)
    raise AttributeError(f"module 'evalgui' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "__version__", *_API])
