"""Judgments or a run? What the values say when the layout does not.

JSON judgments and JSON runs share one layout, ``{query: {doc: value}}``, and a
run may have whole-number scores. What tells them apart is how the values
spread: a run's scores are many and differ between the documents of a query
(and a run is often cut at the same depth for every query); judgments use a
few small grades, repeated within each query. :func:`weigh` reads a sample of
the values (a file's head) and says which way it leans, and why.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Relevance grades in practice: a few small integers (TREC uses -2..4).
MAX_GRADES = 10
GRADE_RANGE = (-10, 100)
# Leans weaker than this leave the choice to the files already loaded.
BALANCED = 0.25


@dataclass(frozen=True)
class Lean:
    """Which way the values lean: toward a run (> 0) or judgments (< 0), with the reason; 0 is balanced."""

    toward_run: float
    reason: str
    whole_numbers: bool = True

    @property
    def balanced(self) -> bool:
        return abs(self.toward_run) < BALANCED


NOTHING_TO_WEIGH = Lean(0.0, "no values to weigh")


def weigh(by_query: dict[str, list[float]], complete: bool) -> Lean:
    """Weigh the values of each query (in file order). ``complete``: the sample is the whole file,
    so its last query is not cut short."""
    values = [v for vs in by_query.values() for v in vs]
    if not values:
        return NOTHING_TO_WEIGH
    if not all(math.isfinite(v) and float(v).is_integer() for v in values):
        return Lean(1.0, "the scores are not whole numbers, as in a run", whole_numbers=False)
    distinct = sorted(set(values))
    low, high = GRADE_RANGE
    reasons: list[tuple[float, str]] = []   # (weight, text): the strongest sign names the reason

    if len(distinct) > MAX_GRADES:
        reasons.append((0.8, f"{len(distinct):,} different values, more than relevance grades have, as in a run"))
    elif distinct[0] < low or distinct[-1] > high:
        reasons.append((0.8, f"values from {distinct[0]:g} to {distinct[-1]:g}, beyond relevance grades, "
                             f"as in a run"))

    # Within each query: a run's scores differ, grades repeat. Telling only with more documents
    # in a query than the usual five grades (0-4): fewer could be either.
    several = [vs for vs in by_query.values() if len(vs) >= 2]
    pairs = sum(len(vs) - 1 for vs in several)
    repeats = sum(len(vs) - len(set(vs)) for vs in several)
    if pairs >= 4 and repeats == 0 and max(map(len, several)) > 5:
        reasons.append((0.5, "the scores differ between the documents of each query, as in a run"))
    elif pairs >= 4 and repeats / pairs >= 0.5 and len(distinct) <= MAX_GRADES:
        grades = ", ".join(f"{v:g}" for v in distinct)
        reasons.append((-0.7, f"a few values ({grades}) repeated within queries, as relevance grades are"))

    # A run is often cut at one depth for every query; judgments per query vary.
    counts = [len(vs) for vs in by_query.values()]
    if not complete:
        counts = counts[:-1]                # the last query of a head may be cut short
    if len(counts) >= 3 and min(counts) == max(counts) >= 5:
        reasons.append((0.3, f"every query has {counts[0]} documents, as a run cut at {counts[0]} has"))

    toward_run = max(-1.0, min(1.0, sum(w for w, _ in reasons)))
    if abs(toward_run) < BALANCED:
        return Lean(toward_run, "whole numbers that could be relevance grades or scores")
    side = [r for r in reasons if (r[0] > 0) == (toward_run > 0)]
    return Lean(toward_run, max(side, key=lambda r: abs(r[0]))[1])


# ---------------------------------------------------------------- the values of a JSON file's head

_HEAD_BYTES = 1 << 16
# A JSON key and what follows its colon: an object (a query's documents) or a number (a document's value).
_JSON_ENTRY = re.compile(rb'"((?:[^"\\]|\\.)*)"\s*:\s*(\{|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)')


def json_values_by_query(path: str) -> tuple[dict[str, list[float]], bool]:
    """The values in the head of a ``{query: {doc: value}}`` JSON file, by query, and whether the
    head is the whole file. An unreadable head gives nothing (the reader will say why)."""
    from evalgui.core.errors import EvalInputError
    from evalgui.core.formats import _text

    try:
        data = _text.load_head(path, _HEAD_BYTES)
    except (EvalInputError, OSError):
        return {}, True
    complete = len(data) < _HEAD_BYTES
    if not complete:
        data = data[:data.rfind(b",") + 1]             # the last entry may be cut short
    by_query: dict[str, list[float]] = {}
    query = None
    for match in _JSON_ENTRY.finditer(data):
        key, value = match.groups()
        if value == b"{":
            query = key.decode("utf-8", "replace")
        elif query is not None:
            by_query.setdefault(query, []).append(float(value))
    return by_query, complete
