"""``eg.casebase`` and ``eg.similarity``: case-based retrieval from Python (the case-based workflows)."""

from __future__ import annotations

from evalgui.api import python_words

import os


def _predicted(inputs, predicted) -> dict:
    """The request's ``predicted`` and ``predicted_names`` of a dict {name: path or DataFrame}, or a list of paths
    (named after their files)."""
    from evalgui._api_inputs import add_input

    if isinstance(predicted, (str, os.PathLike)):
        predicted = [predicted]
    if not isinstance(predicted, dict):
        return {"predicted": tuple(os.fspath(p) for p in predicted)}
    return {"predicted": tuple(add_input(inputs, value, "similarity results", f"<predicted {name}>")
                               for name, value in predicted.items()),
            "predicted_names": tuple(str(name) for name in predicted)}


def _model(values: dict, name: str, model) -> None:
    """A model given as a path (its file) or as attribute records (a list, or {"attributes": [...]})."""
    if model is None:
        return
    if isinstance(model, (str, os.PathLike)):
        values[f"{name}_file"] = os.fspath(model)
    else:
        values[name] = model.to_dict()["attributes"] if hasattr(model, "to_dict") else model


@python_words
def casebase(train, *, model, test=None, mac_model=None, predicted=(), state=None, **settings):
    """Retrieve with the linear retriever (the ground truth) and MAC/FAC, time and evaluate every retrieval.

    ``train`` and ``test``: case bases (paths or DataFrames; ``test`` defaults to ``train``). ``model`` and
    ``mac_model``: model files, or attribute records (``[{"name": "price", "type": "numeric", ...}]``).
    ``predicted``: imported retrievers' results, {name: path or DataFrame}. ``settings`` are
    :class:`~evalgui.core.workflows.casebase.CasebaseRequest`'s parameters (``filter_sizes``, ``ks``,
    ``metrics``, ``mac_attributes``…). Returns the Outcome: tables ``results`` (tidy) and ``wide``.
    """
    from evalgui._api_inputs import add_input
    from evalgui.core.workflows.casebase import CasebaseRequest, run_casebase
    from evalgui.core.workflows.inputs import Inputs

    inputs = Inputs()
    values = dict(settings)
    values["train"] = add_input(inputs, train, "case base", "<train>")
    if test is not None:
        values["test"] = add_input(inputs, test, "case base", "<test>")
    _model(values, "model", model)
    _model(values, "mac_model", mac_model)
    values.update(_predicted(inputs, predicted))
    return run_casebase(CasebaseRequest(**values), state, inputs)


@python_words
def similarity(ground_truth, predicted, *, state=None, **settings):
    """Retrievers' similarity results against a ground truth, by ProCAKE's metrics.

    ``ground_truth``: a path or a DataFrame (query_id, case_id, similarity); ``predicted``: {name: path or
    DataFrame}, or a list of paths (named after their files). ``settings`` are
    :class:`~evalgui.core.workflows.casebase.SimilarityRequest`'s parameters (``metrics``, ``ks``, ``ties``,
    ``per_query``…). Returns the Outcome: tables ``results`` (tidy) and ``wide``.
    """
    from evalgui._api_inputs import add_input
    from evalgui.core.workflows.casebase import SimilarityRequest, run_similarity
    from evalgui.core.workflows.inputs import Inputs

    inputs = Inputs()
    values = dict(settings)
    values["ground_truth"] = add_input(inputs, ground_truth, "similarity results", "<ground truth>")
    values.update(_predicted(inputs, predicted))
    return run_similarity(SimilarityRequest(**values), state, inputs)
