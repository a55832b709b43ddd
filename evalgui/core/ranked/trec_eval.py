"""trec_eval 10.0's command-line behaviour: which measures, in which order, printed how."""

from __future__ import annotations

import math
import warnings
from typing import Callable

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked.evaluate import RunEvaluation
from evalgui.core.ranked.measures import NICKNAMES, REGISTRY
from evalgui.core.ranked.specs import MeasureRequest, split_trec_spec, trec_request, unknown_hint


def requests_for(measure_args: list[str], warn: Callable[[str], None] | None = None) -> list[MeasureRequest]:
    """Mark measures as ``-m`` does; output follows the registry order, not the command line.

    As in trec_eval, the first ``-m name.params`` given for a measure sets its
    parameters, and a nickname marks every measure it names. Parameters are
    read as trec_eval reads them; what it silently ignores is told to ``warn``
    (one line each; by default a Python warning).
    """
    if warn is None:
        def warn(message: str) -> None:
            warnings.warn(message, stacklevel=3)

    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in measure_args or ["official"]:
        name, param_text = split_trec_spec(arg)
        if param_text is not None:
            if param_text == "":
                raise EvalUsageError(f"improper measure in parameter '{arg}'")
            params.setdefault(name, param_text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in REGISTRY:
            marked.add(name)
        else:
            raise EvalUsageError(f"illegal measure '{arg}'" + unknown_hint(name))
    return [trec_request(name, params.get(name), lenient=True, warn=warn) for name in REGISTRY if name in marked]


def _line(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}"


def _real(value: float) -> str:
    """printf's %6.4f, as glibc writes it: a NaN with its sign bit set is "-nan" (0.0/0.0 on x86 is)."""
    if value != value:
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def format_lines(result: RunEvaluation, *, per_query: bool = False, summary: bool = True) -> list[str]:
    """The lines trec_eval prints: per query (with -q) in qrels order, then the summary."""
    lines: list[str] = []
    cols = list(enumerate(result.columns))
    if per_query:
        for qi, qid in enumerate(result.query_ids):
            for ci, col in cols:
                m = col.measure
                if not m.per_query:
                    continue
                if m.value_type == "text":
                    lines.append(_line(col.name, qid, f"'{result.text[col.name][qi]}'"))
                elif m.value_type == "int":
                    lines.append(_line(col.name, qid, str(int(result.per_query[qi, ci]))))
                else:
                    lines.append(_line(col.name, qid, _real(result.per_query[qi, ci])))
    if summary:
        for ci, col in cols:
            m = col.measure
            if m.name == "runid":
                lines.append(_line(col.name, "all", result.runid))
            elif m.aggregate == "none":
                continue
            elif m.value_type == "int":
                lines.append(_line(col.name, "all", str(int(result.trec_summary[ci]))))
            else:
                lines.append(_line(col.name, "all", _real(result.trec_summary[ci])))
    return lines
