"""The Python API for notebooks: ``import evalgui as eg``.

Each function builds its workflow's request from keyword arguments (the parameters the window
and ``evalgui-cli`` declare, under their declared names), hands the data over (paths, pandas
DataFrames, or pytrec_eval / ranx style ``{query: {doc: score}}`` dicts, see
:mod:`evalgui.core.workflows.memory`) and returns the workflow's Outcome: ``outcome.tables`` holds
tidy DataFrames. A bad value raises :class:`~evalgui.core.workflows.params.RequestError` naming the
parameter; bad data :class:`~evalgui.core.errors.EvalInputError` naming the input.
"""

from __future__ import annotations


def evaluate(qrels, runs, measures=("official",), **options):
    """Evaluate runs against judgments; the ranked workflow's outcome.

    ``measures``: trec_eval or ir_measures names (``"AP"``, ``"nDCG@10"``, ``"P.10"``); ``options``: any
    of :class:`~evalgui.core.workflows.ranked.EvaluateRequest`'s parameters (``per_query=True``,
    ``level=2``, ``complete=True``, ``max_docs``, ``judged_only``, ``num_docs``, ``topic``).
    Tables: ``summary``, ``per_query`` (with ``per_query=True``) and ``curves``."""
    from evalgui.core.workflows.memory import inputs_for
    from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

    qrels_key, run_keys, _, inputs = inputs_for(qrels, runs)
    measures = (measures,) if isinstance(measures, str) else tuple(measures)
    request = EvaluateRequest(qrels=qrels_key, runs=run_keys, measures=measures, **options)
    return run_evaluate(request, inputs=inputs)


def metaeval(qrels=None, runs=(), measures=(), experiment="stability", scores=None, **settings):
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
    return run_metaeval(request, inputs=inputs)
