"""The Python API: ``import evalgui as eg``. Each function calls the same workflow as the window and the
command line, and returns its :class:`~evalgui.core.workflows.outcome.Outcome`: tidy pandas DataFrames
in ``outcome.tables``, notes, and provenance.

Inputs are paths; later functions also take DataFrames and the ``{query: {doc: score}}`` dicts of
pytrec_eval and ranx (see each function).
"""

from __future__ import annotations

from evalgui.core.workflows.outcome import Outcome


def _paths(values) -> list[str]:
    import os

    if isinstance(values, (str, os.PathLike)):
        values = [values]
    return [os.fspath(v) for v in values]


def compare(qrels=None, runs=(), measures=(), *, scores=None, **settings) -> Outcome:
    """Significance tests between runs (all pairs, or against ``baselines``), on each measure.

    ``eg.compare("qrels.txt", ["a.run", "b.run"], ["AP", "nDCG@10"], test="randomization", samples=10000)``;
    or ``scores=`` a per-query scores file. ``settings`` are the compare request's parameters
    (``CompareRequest.PARAMS``: test, correction, alpha, samples, seed, baselines, tie_tolerance, level,
    complete...). Tables: ``comparison``, ``matrix``, ``per_query``, ``query_sets``, ``missing``."""
    from evalgui.core.workflows.compare import CompareRequest, run_compare

    request = CompareRequest(qrels=None if qrels is None else _paths(qrels)[0], runs=_paths(runs),
                             measures=list(measures), scores=None if scores is None else _paths(scores)[0],
                             **settings)
    return run_compare(request)


def preference(qrels, runs, measures=(), **settings) -> Outcome:
    """Recall-Paired Preference and lexicographic preferences between every two runs; with ``test=``, tested.
    Tables: ``pairs``, ``ranking``, ``matrix`` (and ``tests`` with a test)."""
    from evalgui.core.workflows.compare import PreferenceRequest, run_preference

    return run_preference(PreferenceRequest(qrels=_paths(qrels)[0], runs=_paths(runs), measures=list(measures),
                                            **settings))


def open_project(path):
    """A saved project: ``.requests`` (workflow key -> request), ``.outcomes`` (saved results), ``.changed``."""
    from evalgui.core.workflows.project import open_project as opened

    return opened(path)


def save_project(path, *outcomes: Outcome, requests=None) -> str:
    """Write a project the window opens, holding these outcomes (and their requests). Returns its path."""
    from evalgui.core.workflows import workflows
    from evalgui.core.workflows.project import save_project as saved

    by_type = {flow.request: key for key, flow in workflows().items()}
    return saved(path, requests=requests, outcomes={by_type[type(o.request)]: o for o in outcomes})


def run(project, key: str | None = None) -> dict:
    """Re-run a project's requests (or the one named ``key``): workflow key -> fresh Outcome."""
    from evalgui.core.workflows import workflows

    if isinstance(project, str):
        project = open_project(project)
    flows = workflows()
    keys = [key] if key is not None else list(project.requests)
    return {k: flows[k].run(project.requests[k]) for k in keys}


__all__ = ["compare", "preference", "open_project", "save_project", "run"]
