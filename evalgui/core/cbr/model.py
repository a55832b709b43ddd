"""The similarity model (local-global principle) and its JSON file.

Per attribute a type, a local similarity measure with its parameters, and a weight. The
global similarity of a query and a case is the weighted mean of the local similarities
over the attributes both have a value for (a missing value leaves the attribute out and
the other weights renormalise); 0 when they share none. The file::

    {"attributes": [
        {"name": "price", "type": "numeric", "measure": "linear", "weight": 2, "parameters": {"range": 50000}},
        {"name": "color", "type": "categorical", "measure": "table", "parameters": {"table": {"red": {"orange": 0.5}}}},
        {"name": "tags", "type": "set", "measure": "jaccard_index", "delimiter": ";"}
    ]}

``type`` defaults to the type the case base's column suggests, ``measure`` to the type's
first measure, ``weight`` to 1.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evalgui.core.cbr.catalogue import MEASURES_BY_TYPE
# At import, not at the first model checked: that is on the GUI thread, and compiling local.py there costs
# the window ten milliseconds.
from evalgui.core.cbr.local import check_parameters, encode, with_range
from evalgui.core.errors import EvalInputError

TYPES = tuple(MEASURES_BY_TYPE)
DEFAULT_SOURCE = "<default model>"          # the source of default_model's models
_KEYS = ("name", "type", "measure", "weight", "parameters", "delimiter")


@dataclass(frozen=True)
class AttributeModel:
    name: str
    type: str
    measure: str
    weight: float = 1.0
    parameters: dict = field(default_factory=dict, hash=False)
    delimiter: str | None = None            # set attributes: overrides the case base's delimiter

    def to_dict(self) -> dict:
        out = {"name": self.name, "type": self.type, "measure": self.measure, "weight": self.weight}
        if self.parameters:
            out["parameters"] = dict(self.parameters)
        if self.delimiter is not None:
            out["delimiter"] = self.delimiter
        return out


@dataclass
class SimilarityModel:
    attributes: list[AttributeModel]
    source: str = "<model>"

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def to_dict(self) -> dict:
        return {"attributes": [a.to_dict() for a in self.attributes]}

    def save(self, path: str | os.PathLike) -> None:
        from evalgui.core.export import write_atomic

        write_atomic(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n")

    def subset(self, names: list[str]) -> "SimilarityModel":
        """The model over some of its attributes (a MAC phase's cheaper model)."""
        unknown = [n for n in names if n not in self.names]
        if unknown:
            raise EvalInputError(self.source, f"the model has no attribute '{unknown[0]}' "
                                              f"(it has {', '.join(self.names)})")
        return SimilarityModel([a for a in self.attributes if a.name in names], self.source)

    def check_columns(self, *case_bases) -> None:
        """Every attribute must be a column of every case base."""
        for cb in case_bases:
            for a in self.attributes:
                if a.name not in cb.cells:
                    raise EvalInputError(self.source, f"the attribute '{a.name}' is not a column of {cb.source} "
                                                      f"(its columns: {', '.join(cb.attributes)})")

    @classmethod
    def from_dict(cls, data, source: str = "<model>", text: str | None = None, case_base=None) -> "SimilarityModel":
        """Build and check a model. ``case_base`` supplies the types a model leaves out."""
        def bad(reason: str, name: str | None = None) -> EvalInputError:
            line = None
            if text is not None and name is not None:
                at = text.find(json.dumps(name))
                line = text.count("\n", 0, at) + 1 if at >= 0 else None
            return EvalInputError(source, reason, line)

        if not isinstance(data, dict) or not isinstance(data.get("attributes"), list):
            raise bad('expected an object {"attributes": [{"name": ..., "type": ..., "measure": ..., "weight": ...}]}')
        attributes, seen = [], set()
        for i, item in enumerate(data["attributes"], 1):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
                raise bad(f"attribute {i} needs a \"name\" (the case base's column)")
            name = item["name"]
            where = f"attribute '{name}'"
            unknown = [k for k in item if k not in _KEYS]
            if unknown:
                raise bad(f"{where}: unknown key '{unknown[0]}' (keys: {', '.join(_KEYS)})", name)
            if name in seen:
                raise bad(f"{where} is given twice", name)
            seen.add(name)
            kind = item.get("type")
            if kind is None and case_base is not None and name in case_base.types:
                kind = case_base.types[name]
            if kind not in TYPES:
                raise bad(f"{where}: the type must be one of {', '.join(TYPES)}, not {kind!r}", name)
            measure = item.get("measure", MEASURES_BY_TYPE[kind][0])
            weight = item.get("weight", 1.0)
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not np.isfinite(weight) \
                    or weight < 0:
                raise bad(f"{where}: the weight must be a number of at least 0, not {weight!r}", name)
            parameters = item.get("parameters", {})
            if not isinstance(parameters, dict):
                raise bad(f"{where}: \"parameters\" must be an object", name)
            try:
                check_parameters(kind, measure, parameters)
            except ValueError as exc:
                raise bad(f"{where}: {exc}", name) from None
            delimiter = item.get("delimiter")
            if delimiter is not None and (not isinstance(delimiter, str) or not delimiter):
                raise bad(f"{where}: the delimiter must be a non-empty string", name)
            attributes.append(AttributeModel(name, kind, measure, float(weight), dict(parameters), delimiter))
        if not attributes:
            raise bad("the model has no attributes")
        if not any(a.weight > 0 for a in attributes):
            raise bad("every weight is 0: at least one attribute must count")
        return cls(attributes, source)


def load_model(path: str | os.PathLike, case_base=None, state=None) -> SimilarityModel:
    """Read a model file. EvalInputError naming the file, the line and the reason. With a job's ``state``:
    progress while the file is read, and Cancel between chunks of it."""
    from evalgui.core.formats import _text

    source = os.fspath(path)
    _text.check_regular(source)
    text, obj = _text.parse_json(_text.load_bytes(source, state), source)
    if state is not None:
        state.check()
        state.progress(1.0, f"Read {os.path.basename(source)}")
    return SimilarityModel.from_dict(obj, source, text, case_base)


def default_model(case_base) -> SimilarityModel:
    """Every attribute of a case base with its type's first measure and weight 1 (the form's start)."""
    return SimilarityModel([AttributeModel(name, kind, MEASURES_BY_TYPE[kind][0])
                            for name, kind in case_base.types.items()], DEFAULT_SOURCE)


class Scorer:
    """A model compiled for one pair of case bases: global similarities of queries (test cases)
    against cases (train), for a block of queries or for given pairs.

    ``pair`` (a query's row, a case's row): only that query and that case are encoded, as rows 0
    and 0 (the preview: a few cells, not 50,000 cases; numeric ranges still span every case).
    ``check`` is called between attributes, here and in every block or pairs scored (a job's cancel check:
    one attribute over a block of 50,000 cases is the longest step between two checks)."""

    def __init__(self, model: SimilarityModel, test, train, pair: tuple[int, int] | None = None,
                 check: Callable[[], None] | None = None):
        model.check_columns(train, test)
        self.model = model
        self._check = check
        self.attributes = []
        for a in model.attributes:
            if a.weight == 0:
                continue
            if check is not None:
                check()
            params = check_parameters(a.type, a.measure, a.parameters)
            c = train.values(a.name, a.type, a.delimiter)          # the train file's errors first
            q = test.values(a.name, a.type, a.delimiter)
            if pair is not None:
                if a.type == "numeric":
                    params = with_range(a.measure, params, q, c)
                q, c = q[pair[0]:pair[0] + 1], c[pair[1]:pair[1] + 1]
            try:
                self.attributes.append((a.weight, encode(a.type, a.measure, params, q, c)))
            except ValueError as exc:
                raise EvalInputError(model.source, f"attribute '{a.name}': {exc}") from None
        self.n_queries, self.n_cases = (1, 1) if pair is not None else (len(test), len(train))

    def _combine(self, parts, shape) -> np.ndarray:
        total = np.zeros(shape)
        weights = None                          # the weights of the attributes present, where any is missing
        full = 0.0
        for weight, (sim, present) in parts:
            if self._check is not None:
                self._check()
            if present is None:
                full += weight
            else:
                sim[~present] = 0.0
                if weights is None:
                    weights = np.zeros(shape)
                weights += weight * present
            if weight != 1.0:
                sim *= weight
            total += sim
        if weights is None:
            total /= full
        else:
            weights += full
            np.divide(total, weights, out=total, where=weights > 0)
        # Summed in another order than the weights, a mean of ones can come out 1 + 1 ulp.
        return np.minimum(total, 1.0, out=total)

    def block(self, q: np.ndarray) -> np.ndarray:
        """Similarities of the queries ``q`` (indices into the test cases) to every case: (len(q), n_cases)."""
        return self._combine(((w, local.block(q)) for w, local in self.attributes), (len(q), self.n_cases))

    def pairs(self, qi: np.ndarray, ci: np.ndarray) -> np.ndarray:
        """Similarities of paired queries and cases (equal-length index arrays)."""
        return self._combine(((w, local.pairs(qi, ci)) for w, local in self.attributes), (len(qi),))

    def explain(self, qi: int, ci: int) -> list[tuple[str, float, float | None]]:
        """(attribute, weight, local similarity or None when a value is missing) for one pair: the preview."""
        out = []
        names = [a.name for a in self.model.attributes if a.weight != 0]
        for name, (weight, local) in zip(names, self.attributes):
            sim, present = local.pairs(np.array([qi]), np.array([ci]))
            out.append((name, weight, None if present is not None and not present[0] else float(sim[0])))
        return out
