"""What ``import evalgui as eg`` functions take as inputs: paths, pandas DataFrames, or ``{query: {doc: score}}``
dicts, turned into names that a workflow's request holds and an :class:`Inputs` that holds the data.

A DataFrame is read by the same reader as a file (written to a private temporary file first, removed at
once), so it is checked the same way; an error names the argument, not the temporary file.
"""

from __future__ import annotations

import os


def add_input(inputs, value, kind: str, key: str, name: str | None = None) -> str:
    """What the request names ``value`` by: its path, or ``key`` for data now held in ``inputs``."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if name is not None:
            inputs.add(path, inputs.get(path, kind), name)
        return path
    inputs.add(key, _data(value, kind, key), name)
    return key


def _data(value, kind: str, key: str):
    import pandas as pd

    if kind in ("qrels", "run") and isinstance(value, (pd.DataFrame, dict)):
        # the one conversion of judgments and runs in memory (eg.evaluate, eg.compare... use it too)
        from evalgui.core.workflows.memory import qrels_from, run_from

        return qrels_from(value, key) if kind == "qrels" else run_from(value, key.strip("<>"), key)
    if isinstance(value, pd.DataFrame):
        return _read_frame(value, kind, key)
    if hasattr(value, "__dataclass_fields__"):           # already the engine's object (a RankFile, a CaseBase…)
        return value
    raise TypeError(f"{key.strip('<>')}: expected a path or a pandas DataFrame"
                    f"{' or a {query: {doc: score}} dict' if kind in ('qrels', 'run') else ''}, "
                    f"not {type(value).__name__}")


def _read_frame(frame, kind: str, key: str):
    import tempfile

    from evalgui.core.errors import EvalInputError
    from evalgui.core.inputs import kind as input_kind

    with tempfile.TemporaryDirectory(prefix="evalgui-") as folder:
        if kind == "rank file":              # a header of the experiment's name and the systems, tab-separated
            path = os.path.join(folder, "ranks.tsv")
            frame.to_csv(path, sep="\t", index=False)
        else:
            path = os.path.join(folder, "table.csv")
            frame.to_csv(path, index=False)
        try:
            data = input_kind(kind).read(path)
        except EvalInputError as exc:
            raise EvalInputError(key, exc.reason, exc.line) from None
    if hasattr(data, "source"):
        try:
            data.source = key
        except AttributeError:
            pass
    return data
