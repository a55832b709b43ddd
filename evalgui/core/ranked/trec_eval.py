"""trec_eval 10.0's command-line behaviour: which measures, in which order, printed how."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Callable

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked.evaluate import RunEvaluation
from evalgui.core.ranked.measures import NICKNAMES, REGISTRY
from evalgui.core.ranked.specs import (MeasureRequest, output_names, parse_params, split_trec_spec, trec_request,
                                       unknown_hint)


# trec_eval -R: which judgments the qrels argument holds, and the measures each one can compute.
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")
_DEFAULT_NICKNAME = {"qrels": "official", "prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}


def _families():
    """(registry, nicknames, rel formats it reads), in trec_eval's measure order."""
    from evalgui.core.ranked import judgment_groups, prefs

    return [(REGISTRY, NICKNAMES, ("qrels",)),
            (prefs.REGISTRY, prefs.NICKNAMES, ("prefs", "qrels_prefs")),
            (judgment_groups.REGISTRY, judgment_groups.NICKNAMES, ("qrels_jg",))]


def requests_for(measure_args: list[str], warn: Callable[[str], None] | None = None,
                 rel_format: str = "qrels") -> list[MeasureRequest]:
    """Mark measures as ``-m`` does; output follows the registry order, not the command line.

    As in trec_eval, the first ``-m name.params`` given for a measure sets its
    parameters, and a nickname marks every measure it names. Parameters are
    read as trec_eval reads them; what it silently ignores is told to ``warn``
    (one line each; by default a Python warning). ``rel_format`` is ``-R``: a
    measure that cannot be computed from that kind of judgments is refused
    (trec_eval stops with "Can't calculate measure"); without ``-m`` the
    format's own nickname is used (trec_eval would try "official" and stop).
    """
    if warn is None:
        def warn(message: str) -> None:
            warnings.warn(message, stacklevel=3)

    families = _families()
    nicknames = {k: v for _, nick, _ in families for k, v in nick.items()}
    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in measure_args or [_DEFAULT_NICKNAME[rel_format]]:
        name, param_text = split_trec_spec(arg)
        if param_text is not None:
            if param_text == "":
                raise EvalUsageError(f"improper measure in parameter '{arg}'")
            params.setdefault(name, param_text)
        if name in nicknames:
            marked.update(nicknames[name])
        elif any(name in registry for registry, _, _ in families):
            marked.add(name)
        else:
            raise EvalUsageError(f"illegal measure '{arg}'" + unknown_hint(name))
    requests = []
    for registry, _, formats in families:
        for name in registry:
            if name not in marked or (registry is not REGISTRY and name in REGISTRY):
                continue
            if registry is REGISTRY:
                request = trec_request(name, params.get(name), lenient=True, warn=warn)
            else:
                measure = registry[name]
                spec = name if params.get(name) is None else f"{name}.{params[name]}"
                values = parse_params(measure, params.get(name), spec, lenient=True, warn=warn)
                request = MeasureRequest(measure, values, output_names(measure, values, params.get(name)))
            if rel_format not in formats and name not in ("runid", "num_q"):
                needs = " or ".join(f"-R {f}" for f in formats)
                raise EvalUsageError(f"cannot calculate measure '{name}' from -R {rel_format} judgments "
                                     f"(it needs {needs})")
            requests.append(request)
    return requests


def apply_zscores(result: RunEvaluation, zscores: dict[tuple[str, str], tuple[float, float]],
                  complete: bool = False) -> RunEvaluation:
    """trec_eval -Z: each query's value becomes (value - mean) / stddev, the mean and stddev given for
    that query and printed measure name; -1000000 where none is given (or stddev is 0 and the value
    differs from the mean), 0 where stddev is 0 and the value equals the mean. Summaries then average
    (or sum) the z-scores. num_q, runid and relstring are left as they are, and so is num_rel's summary
    with -c (``complete``): trec_eval then counts the qrels' relevant documents."""
    from evalgui.core.ranked.evaluate import _aggregate

    per = result.per_query.copy()
    n_q = len(result.query_ids)
    summary = result.trec_summary.copy()
    for ci, col in enumerate(result.columns):
        if col.measure.name in ("num_q", "runid", "relstring"):
            continue
        for qi, qid in enumerate(result.query_ids.tolist()):
            found = zscores.get((qid, col.name))
            value = per[qi, ci]
            if found is None:
                per[qi, ci] = MISSING_ZSCORE
            elif found[1]:
                per[qi, ci] = (value - found[0]) / found[1]
            else:
                per[qi, ci] = 0.0 if value == found[0] else MISSING_ZSCORE
        if col.measure.aggregate != "none" and not (complete and col.measure.name == "num_rel"):
            with np.errstate(all="ignore"):
                summary[ci] = _aggregate(per[:, [ci]], col.measure.aggregate, n_q)[0]
    return replace(result, per_query=per, summary=summary, trec_summary=summary)


MISSING_ZSCORE = -1000000.0     # trec_eval's MISSING_ZSCORE_VALUE


def _line(name: str, qid: str, value: str, z: bool = False) -> str:
    return f"{'Z' if z else ''}{name:<22}\t{qid}\t{value}"


def _real(value: float) -> str:
    """printf's %6.4f, as glibc writes it: a NaN with its sign bit set is "-nan" (0.0/0.0 on x86 is)."""
    if value != value:
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def format_lines(result: RunEvaluation, *, per_query: bool = False, summary: bool = True,
                 zscores: bool = False) -> list[str]:
    """The lines trec_eval prints: per query (with -q) in qrels order, then the summary.

    ``zscores`` (-Z): numbers are printed as reals and their names prefixed with Z, as trec_eval does."""
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
                elif m.value_type == "int" and not zscores:
                    lines.append(_line(col.name, qid, str(int(result.per_query[qi, ci]))))
                else:
                    lines.append(_line(col.name, qid, _real(result.per_query[qi, ci]), zscores))
    if summary:
        for ci, col in cols:
            m = col.measure
            if m.name == "runid":
                lines.append(_line(col.name, "all", result.runid))
            elif m.aggregate == "none":
                continue
            elif m.value_type == "int" and not zscores:
                lines.append(_line(col.name, "all", str(int(result.trec_summary[ci]))))
            else:
                lines.append(_line(col.name, "all", _real(result.trec_summary[ci]), zscores))
    return lines
