"""``eg.stability``: measure stability on ranks of test entities, from Python (the stability workflow)."""

from __future__ import annotations

from evalgui.api import python_words


@python_words
def stability(ranks=None, *, qrels=None, runs=(), state=None, **settings):
    """Evaluate ranking systems from the ranks they give test entities, and the measures themselves.

    ``ranks``: a rank file's path, or a DataFrame whose first column holds the entities (its name is the
    experiment's) and one column per system holds their ranks. Or ``qrels`` and ``runs`` (paths,
    DataFrames or ``{query: {doc: score}}`` dicts; ``runs`` a list, or a dict naming them). ``settings``
    are :class:`~evalgui.core.workflows.stability.StabilityRequest`'s parameters (``measures``,
    ``total_ranks``, ``splits``, ``iterations``, ``seed``…). Returns the Outcome: tables ``actual``,
    ``evaluation``, ``significance``…
    """
    from evalgui._api_inputs import add_input
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.stability import StabilityRequest, run_stability

    inputs = Inputs()
    values = dict(settings)
    if ranks is not None:
        values["rank_file"] = add_input(inputs, ranks, "rank file", "<ranks>")
    if qrels is not None:
        values["qrels"] = add_input(inputs, qrels, "qrels", "<qrels>")
    named = runs.items() if isinstance(runs, dict) else ((None, run) for run in runs)
    values["runs"] = tuple(add_input(inputs, run, "run", f"<runs[{i}]>", name)
                           for i, (name, run) in enumerate(named))
    if isinstance(values.get("measures"), str):
        values["measures"] = (values["measures"],)
    return run_stability(StabilityRequest(**values), state, inputs)
