"""Turn measure names typed by people into evaluation requests.

Two spellings are accepted:

- trec_eval: ``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``,
  ``Rprec_mult.0.2,0.5``, ``11pt_avg..25,.5,.75`` and the nicknames
  ``official``, ``all_trec`` and ``set``. Output names are trec_eval's
  (``P_5``, ``iprec_at_recall_0.10``, ``ndcg_1=3,2=9``).
- ir_measures: ``AP``, ``AP@10``, ``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``,
  ``IPrec@0.5``, ``AP(norm=retrieved)``... Output name is the text as typed
  (with whitespace removed).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Callable

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked import diversity
from evalgui.core.ranked.measures import NICKNAMES, REGISTRY, Measure, ParamKind


@dataclass(frozen=True)
class MeasureRequest:
    measure: Measure
    params: tuple
    names: tuple[str, ...]           # one output name per value column
    relevance_level: int | None = None  # overrides the evaluation's level (ir_measures rel=)
    text_length: int | None = None   # relstring length

    @property
    def key(self):
        return (self.measure.name, self.params, self.relevance_level)


# ------------------------------------------------------------------ trec_eval syntax

def _c_long(text: str, spec: str) -> int:
    """trec_eval's str_to_long: the integer part of a number ("23.4" -> 23)."""
    try:
        return int(float(text))
    except ValueError:
        raise EvalUsageError(f"'{spec}': '{text}' is not a number") from None


def _c_double(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise EvalUsageError(f"'{spec}': '{text}' is not a number") from None


def _finite(values, spec: str):
    for v in values:
        if not math.isfinite(v):
            raise EvalUsageError(f"'{spec}': parameter {v} is not a finite number")
    return values


def _is_c_integer(text: str) -> bool:
    """trec_eval's valid_int: an optional sign, then ASCII digits only."""
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isascii() and digits.isdigit()


def parse_params(measure: Measure, param_text: str | None, spec: str, *, lenient: bool = False,
                 warn: Callable[[str], None] | None = None) -> tuple:
    """Parse a trec_eval parameter string for ``measure`` (None: the defaults).

    ``lenient`` (the trec_eval subcommand) accepts what trec_eval 10.0 accepts,
    and reports through ``warn`` whatever it silently ignores; otherwise (evaluate)
    a parameter that cannot mean anything is a usage error.
    """
    if param_text is None:
        return measure.defaults
    if param_text == "":
        raise EvalUsageError(f"'{spec}': empty parameter list after '.'")
    parts = param_text.split(",")
    kind = measure.kind
    if kind is ParamKind.NONE:
        if not lenient:
            raise EvalUsageError(f"'{spec}': {measure.name} takes no parameters")
        if warn:
            warn(f"'{spec}': {measure.name} takes no parameters; '{param_text}' is ignored (as trec_eval does)")
        return measure.defaults
    if kind is ParamKind.LONG_CUTOFFS:
        values = sorted(_c_long(p, spec) for p in parts)
        if values[0] <= 0:
            raise EvalUsageError(f"'{spec}': cutoffs must be positive")
        if len(set(values)) != len(values):
            raise EvalUsageError(f"'{spec}': duplicate cutoffs")
        return tuple(values)
    if kind is ParamKind.DOUBLE_CUTOFFS:
        values = sorted(_c_double(p, spec) for p in parts)
        if len(set(values)) != len(values):
            raise EvalUsageError(f"'{spec}': duplicate cutoffs")
        return tuple(values if lenient else _finite(values, spec))
    if kind is ParamKind.DOUBLE_PARAMS:
        values = tuple(_c_double(p, spec) for p in parts)
        if measure.name == "utility" and len(values) != 4:
            raise EvalUsageError(f"'{spec}': utility takes exactly 4 coefficients a,b,c,d")
        if not lenient:
            _finite(values, spec)
            if measure.name == "set_F" and values[0] < 0:
                raise EvalUsageError(f"'{spec}': set_F's weight of recall must be 0 or more, not {parts[0]}")
        return values
    pairs = []
    takes_p = measure.name in ("rbp", "rbp_resid")
    for p in parts:
        name, eq, value = p.partition("=")
        if not eq or not name:
            raise EvalUsageError(f"'{spec}': parameters must be name=value pairs, e.g. {measure.name}.1=3,2=9")
        number = _c_double(value, spec)
        # trec_eval reads a pair as rel_level=gain when the name is an integer, rbp's p by name;
        # it skips any other name without a word.
        if not (_is_c_integer(name) or takes_p and name == "p"):
            what = "a relevance grade" + (" or p" if takes_p else "")
            if not lenient:
                raise EvalUsageError(f"'{spec}': '{name}' is not {what}")
            if warn:
                warn(f"'{spec}': '{name}={value}' is ignored ({name} is not {what}), as trec_eval does")
            continue
        if not lenient:
            _finite([number], spec)
            if name == "p" and not 0.0 <= number < 1.0:
                raise EvalUsageError(f"'{spec}': p must be from 0 to 1 (excluded), not {value}")
        pairs.append((name, number))
    return tuple(pairs)


def output_names(measure: Measure, params: tuple, param_text: str | None) -> tuple[str, ...]:
    kind = measure.kind
    if kind is ParamKind.LONG_CUTOFFS:
        return tuple(f"{measure.name}_{k}" for k in params)
    if kind is ParamKind.DOUBLE_CUTOFFS:
        return tuple(f"{measure.name}_{k:3.2f}" for k in params)
    if param_text is not None and kind is not ParamKind.NONE:
        return (f"{measure.name}_{param_text}",)
    return (measure.name,)


def trec_request(name: str, param_text: str | None, spec: str | None = None, *, lenient: bool = False,
                 warn: Callable[[str], None] | None = None) -> MeasureRequest:
    """A request in trec_eval's syntax; ``lenient`` and ``warn`` as in :func:`parse_params`."""
    spec = spec or (name if param_text is None else f"{name}.{param_text}")
    measure = REGISTRY.get(name)
    if measure is None:
        raise EvalUsageError(_unknown(name))
    params = parse_params(measure, param_text, spec, lenient=lenient, warn=warn)
    text_length = int(params[0]) if measure.name == "relstring" else None
    return MeasureRequest(measure, params, output_names(measure, params, param_text), text_length=text_length)


def split_trec_spec(spec: str) -> tuple[str, str | None]:
    name, dot, params = spec.partition(".")
    return name, (params if dot else None)


# ------------------------------------------------------------------ ir_measures syntax

_IR_SPEC = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<cutoff>[^@]+))?$")

# ir_measures name -> (trec_eval measure without cutoff, with cutoff, takes rel=)
IR_MEASURES = {
    "AP": ("map", "map_cut", True),
    "nDCG": ("ndcg", "ndcg_cut", False),
    "P": (None, "P", True),
    "R": (None, "recall", True),
    "RR": ("recip_rank", "recip_rank_cut", True),
    "Rprec": ("Rprec", None, True),
    "Bpref": ("bpref", None, True),
    "infAP": ("infAP", None, True),
    "Success": (None, "success", True),
    "SetP": ("set_P", None, True),
    "SetR": ("set_recall", None, True),
    "SetF": ("set_F", None, True),
    "IPrec": (None, "iprec_at_recall", True),
    "RBP": ("rbp", None, True),
    "NumRet": ("num_ret", None, False),
    "NumRel": ("num_rel", None, True),
    "NumRelRet": ("num_rel_ret", None, True),
    "NumQ": ("num_q", None, False),
    "Judged": (None, "judged", False),
}


def _parse_args(args: str, spec: str) -> dict[str, str]:
    out = {}
    for part in filter(None, (a.strip() for a in args.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise EvalUsageError(f"'{spec}': arguments are written name=value, e.g. P(rel=2)@5")
        out[key.strip()] = value.strip()
    return out


def _number(text, spec: str, what: str, low: float | None, high: float | None, open_high: bool = False) -> float:
    """A parameter as a float within [low, high] (or [low, high)), else a usage error saying so."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise EvalUsageError(f"'{spec}': {what} '{text}' is not a number") from None
    too_high = high is not None and (value >= high if open_high else value > high)
    if value != value or (low is not None and value < low) or too_high:
        bounds = f"from {low:g}" + (f" to {high:g}" if high is not None else " up") + \
            (" (excluded)" if open_high else "")
        raise EvalUsageError(f"'{spec}': {what} must be {bounds}, not {text}")
    return value


def _rel_arg(args: dict, spec: str) -> int | None:
    if "rel" not in args:
        return None
    try:
        return int(args.pop("rel"))
    except ValueError:
        raise EvalUsageError(f"'{spec}': rel must be an integer") from None


def ir_request(spec: str) -> MeasureRequest:
    compact = re.sub(r"\s+", "", spec)
    m = _IR_SPEC.match(compact)
    if m and m.group("name") in diversity.IR_NAMES:
        args = _parse_args(m.group("args") or "", spec)
        return diversity.ir_request(spec, compact, m.group("name"), args, m.group("cutoff"), _rel_arg(args, spec))
    if not m or m.group("name") not in IR_MEASURES:
        raise EvalUsageError(_unknown(spec))
    name, cutoff = m.group("name"), m.group("cutoff")
    args = _parse_args(m.group("args") or "", spec)
    plain, cut, takes_rel = IR_MEASURES[name]
    level = None
    if "rel" in args:
        if not takes_rel:
            raise EvalUsageError(f"'{spec}': {name} does not take rel= (it uses graded gains)")
        try:
            level = int(args.pop("rel"))
        except ValueError:
            raise EvalUsageError(f"'{spec}': rel must be an integer") from None
    if name == "AP" and args.get("norm") == "retrieved":
        args.pop("norm")
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': AP(norm=retrieved) takes no cutoff")
        plain = "ap_retrieved"
    if cutoff is None and plain is None:
        raise EvalUsageError(f"'{spec}': {name} needs a cutoff, e.g. {name}@10")
    if cutoff is not None and cut is None:
        raise EvalUsageError(f"'{spec}': {name} takes no cutoff")
    measure = REGISTRY[cut if cutoff is not None else plain]
    if cutoff is not None:
        value = _number(cutoff, spec, "the cutoff", 0.0, 1.0) if measure.kind is ParamKind.DOUBLE_CUTOFFS else None
        if value is None:
            try:
                value = int(cutoff)
            except ValueError:
                raise EvalUsageError(f"'{spec}': the cutoff '{cutoff}' is not a whole number") from None
            if value <= 0:
                raise EvalUsageError(f"'{spec}': the cutoff must be positive")
        params = (value,)
    elif name == "SetF":
        params = (_number(args.pop("beta", "1"), spec, "beta", 0.0, None),)
    elif name == "RBP":
        params = (("p", _number(args.pop("p", "0.9"), spec, "p", 0.0, 1.0, open_high=True)),)
        if level is not None:  # binary gains: grades >= rel count 1, others 0
            params += (("rel", float(level)),)
            level = None
    else:
        params = measure.defaults
    if args:
        raise EvalUsageError(f"'{spec}': unknown argument(s) {', '.join(sorted(args))} for {name}")
    return MeasureRequest(measure, params, (compact,), relevance_level=level)


# ------------------------------------------------------------------ entry points

def unknown_hint(spec: str) -> str:
    names = list(REGISTRY) + list(NICKNAMES) + list(IR_MEASURES)
    close = difflib.get_close_matches(spec.split(".")[0].split("@")[0].split("(")[0], list(dict.fromkeys(names)), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else "; run 'evalgui-cli measures' for the list"


def _unknown(spec: str) -> str:
    return f"unknown measure '{spec}'{unknown_hint(spec)}"


def is_ir_syntax(spec: str) -> bool:
    return any(c in spec for c in "@(") or spec in IR_MEASURES and spec not in REGISTRY


def parse_measures(specs: list[str], *, include_text: bool = False) -> list[MeasureRequest]:
    """Parse measure specs in either syntax; nicknames expand in trec_eval order.

    Text-valued measures (runid, relstring) are dropped from nicknames unless
    ``include_text``; asking for them by name without it is an error.
    """
    requests: list[MeasureRequest] = []
    seen: set[tuple] = set()
    for spec in specs:
        spec = spec.strip()
        if not spec:
            raise EvalUsageError("empty measure name")
        if spec in NICKNAMES:
            expanded = [trec_request(n, None) for n in NICKNAMES[spec]
                        if include_text or REGISTRY[n].value_type != "text"]
        elif is_ir_syntax(spec):
            expanded = [ir_request(spec)]
        else:
            name, params = split_trec_spec(spec)
            req = trec_request(name, params, spec)
            if req.measure.value_type == "text" and not include_text:
                raise EvalUsageError(f"'{spec}' is text, not a number; it is available with 'evalgui-cli trec_eval -q'")
            expanded = [req]
        for req in expanded:
            ident = (req.key, req.names)
            if ident not in seen:
                seen.add(ident)
                requests.append(req)
    return requests
