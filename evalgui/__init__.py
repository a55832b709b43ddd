"""evalgui: a desktop workbench for evaluating retrieval systems.

``import evalgui as eg`` gives the Python API (:mod:`evalgui.api`): ``eg.evaluate``, ``eg.compare``,
``eg.preference``, ``eg.metaeval``,
``eg.open_project``, ``eg.save_project``, ``eg.run``..., each returning a workflow's Outcome; and the
calculators ``eg.topic_set_size`` and ``eg.minimum_detectable_difference``. They are
imported when first used, so that importing evalgui stays light.
"""

_API = ("evaluate", "compare", "preference", "metaeval", "open_project", "save_project", "run", "topic_set_size",
        "minimum_detectable_difference")


# ---- eg.stability, eg.casebase, eg.similarity: the rank-file and case-based workflows (imported when asked for)
_STABILITY_CASEBASE = {"stability": "evalgui._api_stability", "casebase": "evalgui._api_casebase",
                       "similarity": "evalgui._api_casebase"}
# ---- end of eg.stability / eg.casebase
# ---- eg.EvalguiWarning: the category of the results' caveats, raised as warnings (evalgui.core.advisor)
_ADVISOR = {"EvalguiWarning": "evalgui.core.advisor"}


def __getattr__(name: str):
    if name in _STABILITY_CASEBASE or name in _ADVISOR:
        import importlib

        return getattr(importlib.import_module({**_STABILITY_CASEBASE, **_ADVISOR}[name]), name)
    # The version is read from the package metadata (pyproject.toml is its one source) when asked for.
    if name == "__version__":
        from evalgui.core.distribution import version

        return version()
    if name in _API:
        from evalgui import api

        return getattr(api, name)
    raise AttributeError(f"module 'evalgui' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "__version__", *_API, *_STABILITY_CASEBASE, *_ADVISOR])
