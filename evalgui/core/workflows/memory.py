"""Data people already hold in a notebook, as the workflows' inputs.

Judgments and runs come as paths, as our own :class:`~evalgui.core.data.Qrels` / :class:`~evalgui.core.data.Run`,
as pandas DataFrames (a column each for the query, the document and the grade or score, under the
names pandas users give them: ``query``/``query_id``/``qid``, ``doc``/``doc_id``/``docno``,
``relevance``/``rel``/``grade`` and ``score``), or as the ``{query: {doc: grade}}`` and
``{query: {doc: score}}`` dicts of pytrec_eval and ranx. :func:`inputs_for` turns them into what a
request names (paths, or ``<name>`` keys) and an :class:`~evalgui.core.workflows.inputs.Inputs`
holding the data in memory. Every value is checked: bad data raises
:class:`~evalgui.core.errors.EvalInputError` naming the input.
"""

from __future__ import annotations

import os
from typing import Any

from evalgui.core.errors import EvalInputError
from evalgui.core.workflows.inputs import Inputs

QUERY_COLUMNS = ("query", "query_id", "qid", "q_id", "topic", "topic_id")
DOC_COLUMNS = ("doc", "doc_id", "docno", "docid", "document", "document_id")
GRADE_COLUMNS = ("relevance", "rel", "grade", "label", "judgment")
SCORE_COLUMNS = ("score", "sim", "similarity")


def is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike))


def _is_frame(value) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns")


def _column(frame, names: tuple[str, ...], what: str, source: str) -> str:
    by_lower = {str(c).lower(): c for c in frame.columns}
    for name in names:
        if name in by_lower:
            return by_lower[name]
    raise EvalInputError(source, f"no {what} column (one of {', '.join(names)}; it has "
                                 f"{', '.join(map(str, frame.columns))})")


def _numbers(values, source: str, what: str, whole: bool):
    import numpy as np

    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise EvalInputError(source, f"a {what} is not a number") from None
    bad = ~np.isfinite(array) | ((array != np.round(array)) if whole else np.zeros(len(array), bool))
    if bad.any():
        kind = "whole number" if whole else "finite number"
        raise EvalInputError(source, f"the {what} {values[int(np.flatnonzero(bad)[0])]!r} is not a {kind}")
    return array


def _flatten(nested: dict, source: str, what: str):
    """{query: {doc: value}} as three lists."""
    queries, docs, values = [], [], []
    for query, per_doc in nested.items():
        if not isinstance(per_doc, dict):
            raise EvalInputError(source, f"query {query!r} maps to {type(per_doc).__name__}, not {{document: {what}}}")
        for doc, value in per_doc.items():
            queries.append(str(query))
            docs.append(str(doc))
            values.append(value)
    return queries, docs, values


def _triples(value, source: str, value_columns, what: str, subject: str):
    """(queries, documents, values) from a DataFrame or a {query: {doc: value}} dict."""
    if _is_frame(value):
        return (value[_column(value, QUERY_COLUMNS, "query", source)].astype(str).tolist(),
                value[_column(value, DOC_COLUMNS, "document", source)].astype(str).tolist(),
                value[_column(value, value_columns, what, source)].tolist())
    if isinstance(value, dict):
        return _flatten(value, source, what)
    raise EvalInputError(source, f"{subject} a path, a DataFrame or {{query: {{doc: {what}}}}}, not "
                                 f"{type(value).__name__}")


def qrels_from(value, source: str = "<qrels>"):
    """Judgments as a Qrels: from a Qrels, a DataFrame or a {query: {doc: grade}} dict."""
    import numpy as np
    import pyarrow as pa

    from evalgui.core.data import Qrels

    if isinstance(value, Qrels):
        return value
    queries, docs, grades = _triples(value, source, GRADE_COLUMNS, "grade", "judgments are")
    rel = _numbers(grades, source, "grade", whole=True).astype(np.int64)
    return Qrels(pa.array(queries, pa.string()), pa.array(docs, pa.string()), rel, source)


def run_from(value, name: str, source: str | None = None):
    """A run as a Run named ``name``: from a Run, a DataFrame or a {query: {doc: score}} dict."""
    import pyarrow as pa

    from evalgui.core.data import Run

    source = source or f"<{name}>"
    if isinstance(value, Run):
        return value
    queries, docs, scores = _triples(value, source, SCORE_COLUMNS, "score", "a run is")
    if len(set(zip(queries, docs))) != len(queries):
        raise EvalInputError(source, "the same document is given twice for one query (a run ranks each "
                                     "document once per query)")
    return Run(pa.array(queries, pa.string()), pa.array(docs, pa.string()),
               _numbers(scores, source, "score", whole=False), runid=name, name=name, source=source)


def _is_one_run(value) -> bool:
    """A {query: {doc: score}} dict (one run), rather than {name: run}."""
    if not isinstance(value, dict) or not value:
        return False
    first = next(iter(value.values()))
    return isinstance(first, dict) and all(not isinstance(v, (dict, str, os.PathLike)) and not _is_frame(v)
                                           for v in first.values())


def named_runs(runs) -> list[tuple[str | None, Any]]:
    """(name, run) pairs of ``runs``: one run, a list of runs, or {name: run}. A file's name is None (it is
    named after the file, as on the command line); data without a name is run1, run2..."""
    if is_path(runs) or _is_frame(runs) or _is_one_run(runs) or type(runs).__name__ == "Run":
        runs = [runs]
    if isinstance(runs, dict):
        return [(str(name), run) for name, run in runs.items()]
    out = []
    for i, run in enumerate(runs):
        if is_path(run):
            out.append((None, run))
        elif type(run).__name__ == "Run":
            out.append((run.name, run))
        else:
            out.append((f"run{i + 1}", run))
    return out


def inputs_for(qrels=None, runs=(), scores=None, inputs: Inputs | None = None):
    """What a request names for these inputs (qrels key, run keys, scores key) and the Inputs holding them."""
    inputs = inputs or Inputs()
    qrels_key = None
    if qrels is not None:
        qrels_key = os.fspath(qrels) if is_path(qrels) else inputs.add("<qrels>", qrels_from(qrels))
    run_keys = []
    for name, run in named_runs(runs) if runs is not None else []:
        if is_path(run):
            path = os.fspath(run)
            if name is not None:
                inputs.add(path, inputs.get(path, "run"), name)
            run_keys.append(path)
        else:
            key = f"<{name}>"
            if key in run_keys:
                raise EvalInputError(key, "two runs have this name")
            run_keys.append(inputs.add(key, run_from(run, name), name))
    scores_key = None
    if scores is not None:
        scores_key = os.fspath(scores) if is_path(scores) else inputs.add("<scores>", scores_from(scores))
    return qrels_key, tuple(run_keys), scores_key, inputs


def scores_from(value, source: str = "<scores>"):
    """Per-query scores (run, query, measure, value) from a DataFrame, as the scores reader gives them."""
    import numpy as np
    import pandas as pd

    from evalgui.core import tidy
    from evalgui.core.inputs.scores import PerQueryScores

    if isinstance(value, PerQueryScores):
        return value
    if not _is_frame(value):
        raise EvalInputError(source, f"per-query scores are a path or a DataFrame (run, query, measure, value), "
                                     f"not {type(value).__name__}")
    columns = {name: _column(value, (name,), name, source) for name in tidy.COLUMNS}
    frame = pd.DataFrame({name: value[column].astype(str).str.strip() for name, column in columns.items()
                          if name != tidy.VALUE})
    frame[tidy.VALUE] = pd.to_numeric(value[columns[tidy.VALUE]], errors="coerce").to_numpy(dtype=np.float64)
    if np.isinf(frame[tidy.VALUE].to_numpy()).any():
        raise EvalInputError(source, "a value is not a finite number")
    if frame.duplicated([tidy.RUN, tidy.QUERY, tidy.MEASURE]).any():
        raise EvalInputError(source, "a run, query and measure appear twice")
    is_summary = (frame[tidy.QUERY] == tidy.ALL_QUERIES).to_numpy()
    return PerQueryScores(source, frame[~is_summary].reset_index(drop=True),
                          frame[is_summary].reset_index(drop=True))

