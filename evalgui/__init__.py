"""evalgui: a desktop workbench for evaluating retrieval systems."""


def __getattr__(name: str):
    # The version is read from the package metadata (pyproject.toml is its one source) when asked for.
    if name == "__version__":
        from evalgui.core.distribution import version

        return version()
    raise AttributeError(f"module 'evalgui' has no attribute {name!r}")
