"""The Python API: ``import evalgui as eg``. Each function calls the same workflow as the window and the
command line, and returns its :class:`~evalgui.core.workflows.outcome.Outcome`: tidy pandas DataFrames
in ``outcome.tables``, notes, and provenance.

Inputs are paths; ``evaluate`` and ``metaeval`` also take pandas DataFrames and the
``{query: {doc: score}}`` / ``{query: {doc: grade}}`` dicts of pytrec_eval and ranx
(:mod:`evalgui.core.workflows.memory` converts them, for any workflow). ``evaluate``, ``compare``,
``preference`` and ``metaeval`` also give ``outcome.caveats`` (what to watch in the numbers: unjudged
documents, too few queries, uncorrected tests, ties, missing queries; :mod:`evalgui.core.advisor`), each
also raised as an :class:`evalgui.EvalguiWarning`. A bad value raises
:class:`~evalgui.core.workflows.params.RequestError` naming the parameter; bad data
:class:`~evalgui.core.errors.EvalInputError` naming the input.
"""

from __future__ import annotations

import functools

from evalgui.core.workflows.outcome import Outcome


def python_words(function):
    """A bad value raises RequestError worded for a Python caller: the keyword (``level=-1: must be at least
    0``, ``use complete=True``), as the window names its labels and the command line its flags."""
    from evalgui.core.workflows.params import RequestError

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except RequestError as exc:
            raise RequestError(exc.problems, python=True) from None
    return call


def _paths(values) -> list[str]:
    import os

    if isinstance(values, (str, os.PathLike)):
        values = [values]
    return [os.fspath(v) for v in values]


def _warned(outcome: Outcome) -> Outcome:
    """The outcome, its caveats raised as :class:`evalgui.EvalguiWarning` (``outcome.caveats`` holds them too)."""
    from evalgui.core.advisor import raise_warnings

    raise_warnings(outcome.caveats, stacklevel=4)
    return outcome


@python_words
def evaluate(qrels, runs, measures=("official",), **options) -> Outcome:
    """Evaluate runs against judgments; the ranked workflow's outcome.

    ``measures``: trec_eval or ir_measures names (``"AP"``, ``"nDCG@10"``, ``"P.10"``); ``options``: any
    of :class:`~evalgui.core.workflows.ranked.EvaluateRequest`'s parameters (``per_query=True``,
    ``level=2``, ``complete=True``, ``max_docs``, ``judged_only``, ``num_docs``, ``topic``;
    ``judged_below=80``: the judged share, in %, under which the caveats say so).
    Tables: ``summary``, ``per_query`` (with ``per_query=True``), ``curves`` and ``run_matrix`` (every
    ordered pair of runs per measure: the mean difference over their shared queries)."""
    from evalgui.core.workflows.memory import inputs_for
    from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

    qrels_key, run_keys, _, inputs = inputs_for(qrels, runs)
    measures = (measures,) if isinstance(measures, str) else tuple(measures)
    request = EvaluateRequest(qrels=qrels_key, runs=run_keys, measures=measures, **options)
    return _warned(run_evaluate(request, inputs=inputs))


@python_words
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
    return _warned(run_compare(request))


@python_words
def preference(qrels, runs, measures=(), **settings) -> Outcome:
    """Recall-Paired Preference and lexicographic preferences between every two runs; with ``test=``, tested.
    Tables: ``pairs``, ``ranking``, ``matrix`` (and ``tests`` with a test)."""
    from evalgui.core.workflows.compare import PreferenceRequest, run_preference

    request = PreferenceRequest(qrels=_paths(qrels)[0], runs=_paths(runs), measures=list(measures), **settings)
    return _warned(run_preference(request))


@python_words
def metaeval(qrels=None, runs=(), measures=(), experiment="stability", scores=None, **settings) -> Outcome:
    """Meta-evaluate measures (stability, power, robustness or agreement); the workflow's outcome.

    From judgments and runs, or from ``scores`` (a per-query scores table: a path or a DataFrame
    with run, query, measure, value). ``settings``: any of
    :class:`~evalgui.core.workflows.metaeval.MetaevalRequest`'s parameters (``set_sizes``, ``sets``,
    ``fuzziness``, ``test``, ``alpha``, ``samples``, ``fractions``, ``repetitions``, ``seed``, ``level``,
    ``complete``...). Tables: ``table``, and ``matrix`` (stability), ``curves`` (power) or
    ``per_repetition`` (robustness)."""
    from evalgui.core.workflows.memory import inputs_for
    from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval

    qrels_key, run_keys, scores_key, inputs = inputs_for(qrels, runs if runs is not None else (), scores)
    measures = (measures,) if isinstance(measures, str) else tuple(measures)
    request = MetaevalRequest(qrels=qrels_key, runs=run_keys, scores=scores_key, measures=measures,
                              experiment=experiment, **settings)
    return _warned(run_metaeval(request, inputs=inputs))


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


@python_words
def run(project, key: str | None = None) -> dict:
    """Re-run a project's requests (or the one named ``key``): workflow key -> fresh Outcome."""
    from evalgui.core.workflows import workflows

    if isinstance(project, str):
        project = open_project(project)
    flows = workflows()
    keys = [key] if key is not None else list(project.requests)
    return {k: flows[k].run(project.requests[k]) for k in keys}


def topic_set_size(sd: float, difference: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The fewest queries with which a two-sided paired t test at level ``alpha`` detects a true mean
    difference ``difference`` with probability ``power``, when the per-query differences have standard
    deviation ``sd`` (Sakai's topic-set-size design; exact power from the noncentral t distribution).

    ``eg.topic_set_size(sd=0.2, difference=0.05)`` is 128."""
    from evalgui.core.stats.power import topic_set_size as size

    return size(sd, difference, alpha, power)


def minimum_detectable_difference(sd: float, queries: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true mean difference that a two-sided paired t test at level ``alpha`` on ``queries``
    queries detects with probability ``power``, when the per-query differences have standard deviation ``sd``.

    ``eg.minimum_detectable_difference(sd=0.2, queries=50)`` is about 0.081."""
    from evalgui.core.stats.power import minimum_detectable_difference as detectable

    return detectable(sd, queries, alpha, power)


__all__ = ["evaluate", "compare", "preference", "metaeval", "open_project", "save_project", "run", "topic_set_size",
           "minimum_detectable_difference"]
