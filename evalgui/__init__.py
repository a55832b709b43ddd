"""evalgui: a desktop workbench for evaluating retrieval systems."""


# ---- eg.stability, eg.casebase, eg.similarity: the rank-file and case-based workflows (imported when asked for)
_STABILITY_CASEBASE = {"stability": "evalgui._api_stability", "casebase": "evalgui._api_casebase",
                       "similarity": "evalgui._api_casebase"}
# ---- end of eg.stability / eg.casebase


def __getattr__(name: str):
    if name in _STABILITY_CASEBASE:
        import importlib

        return getattr(importlib.import_module(_STABILITY_CASEBASE[name]), name)
    # The version is read from the package metadata (pyproject.toml is its one source) when asked for.
    if name == "__version__":
        from evalgui.core.distribution import version

        return version()
    raise AttributeError(f"module 'evalgui' has no attribute {name!r}")
