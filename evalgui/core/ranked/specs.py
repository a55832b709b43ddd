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
from dataclasses import dataclass, replace
from typing import Callable

from evalgui.core.measure_names import paper_alias
from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked import diversity
from evalgui.core.ranked.measures import NICKNAMES, REGISTRY, Measure, ParamKind
from evalgui.core.ranked import irm_extras  # noqa: I001  (after measures: its records come after trec_eval's)


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


_OUTPUT_NAME = re.compile(r"^(?P<name>[A-Za-z0-9_]+?)_(?P<value>\d+(?:\.\d+)?)$")
_OUTPUT_KINDS = (ParamKind.LONG_CUTOFFS, ParamKind.DOUBLE_CUTOFFS, ParamKind.DOUBLE_PARAMS)


def output_request(spec: str) -> MeasureRequest | None:
    """A measure named as trec_eval's output names it (``P_10``, ``ndcg_cut_10``,
    ``iprec_at_recall_0.10``): one value of a measure with cutoffs, so a table exported with
    trec_eval's names reads back. None when ``spec`` is not such a name."""
    match = _OUTPUT_NAME.match(spec)
    if match is None or spec in REGISTRY:
        return None
    measure = REGISTRY.get(match["name"])
    if measure is None or measure.kind not in _OUTPUT_KINDS or measure.value_type == "text":
        return None
    try:
        request = trec_request(measure.name, match["value"], spec)
    except EvalUsageError:
        return None
    return request if request.names == (spec,) else None


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
    "GMAP": ("gm_map", None, True),         # not ir_measures': what papers write for gm_map
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
    if m and (m.group("name") in diversity.IR_NAMES or m.group("name") in diversity.IR_ALIASES):
        name = diversity.IR_ALIASES.get(m.group("name"), m.group("name"))
        args = _parse_args(m.group("args") or "", spec)
        level = _rel_arg(args, spec)
        measure, params = diversity.ir_params(spec, name, args, m.group("cutoff"))
        return MeasureRequest(measure, params, (compact,), relevance_level=level)
    if not m or m.group("name") not in IR_MEASURES:
        raise EvalUsageError(_unknown(spec))
    extra = extra_request(spec, compact, m)   # gdeval, C/W/L and ir_measures' other names/arguments
    if extra is not None:
        return extra
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
        params = (("p", _number(args.pop("p", "0.8"), spec, "p", 0.0, 1.0, open_high=True)),)
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
    return any(c in spec for c in "@(") or spec in IR_MEASURES and spec not in REGISTRY or spec in diversity.IR_ALIASES


def _expand(spec: str, include_text: bool) -> list[MeasureRequest]:
    """One spec's requests: a nickname's measures, or the one measure it names."""
    if spec in NICKNAMES:
        return [trec_request(n, None) for n in NICKNAMES[spec] if include_text or REGISTRY[n].value_type != "text"]
    if is_ir_syntax(spec):
        return [ir_request(spec)]
    if (output := output_request(spec)) is not None:
        return [output]
    name, params = split_trec_spec(spec)
    req = trec_request(name, params, spec)
    if req.measure.value_type == "text" and not include_text:
        raise EvalUsageError(f"'{spec}' is text, not a number; it is available with 'evalgui-cli trec_eval -q'")
    return [req]


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
        try:
            expanded = _expand(spec, include_text)
        except EvalUsageError:
            alias = paper_alias(spec)        # a name the window gives a trec_eval measure (YAAP, RelP@10)
            if alias == spec:
                raise
            expanded = _expand(alias, include_text)
        for req in expanded:
            ident = (req.key, req.names)
            if ident not in seen:
                seen.add(ident)
                requests.append(req)
    return requests



# ---------------------------------------------------------------------------
# ir_measures' names and arguments beyond the trec_eval ones above: :func:`extra_request` is called
# first by :func:`ir_request`; it returns a request for what it knows (gdeval's ERR@k and
# nDCG(dcg="exp-log2")@k, the C/W/L family, Compat, Accuracy, SetAP, SetRelP, the aliases MAP, MRR,
# NDCG..., and the judged_only=, gains=, relative= arguments) and None for the rest. What
# ir_measures 0.4 parses and evalgui refuses is listed in docs/measures.md.
# ---------------------------------------------------------------------------

ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Precision": "P", "Recall": "R", "BPref": "Bpref",
           "RPrec": "Rprec"}
JUDGED_ONLY = {"P", "AP", "RR", "nDCG", "R", "Success", "IPrec", "Rprec", "SetP", "SetF", "SetAP"}
# C/W/L measures: record, whether @k is required, the option the measure's own parameter goes by.
CWL = {"BPM": ("bpm", True, "T"), "SDCG": ("sdcg", True, None), "NERR8": ("nerr8", True, None),
       "NERR9": ("nerr9", True, None), "NERR10": ("nerr10", False, "p"), "NERR11": ("nerr11", False, "T"),
       "INST": ("inst", False, "T"), "INSQ": ("insq", False, "T")}
NAMES = ["ERR", "Compat", "Accuracy", "SetAP", "SetRelP", *ALIASES, *CWL]
_TRUE, _FALSE = ("true", "1"), ("false", "0")


def _split_args(text: str, spec: str) -> dict[str, str]:
    """name=value arguments, split at the commas outside braces (gains={0:0,1:1})."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    out = {}
    for part in filter(None, parts):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise EvalUsageError(f"'{spec}': arguments are written name=value, e.g. P(rel=2)@5")
        out[key] = value.strip("'\"")
    return out


def _bool(text: str, spec: str, what: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise EvalUsageError(f"'{spec}': {what} must be True or False, not {text}")


def _int(text: str, spec: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise EvalUsageError(f"'{spec}': {what} must be a whole number, not {text}") from None


def _gains(text: str, spec: str) -> tuple:
    """gains={0:0,1:1,2:3} as level=gain pairs (whole numbers, 0 or more, as pytrec_eval's qrels need)."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise EvalUsageError(f"'{spec}': gains are written {{grade:gain,...}}, e.g. gains={{0:0,1:1,2:3}}")
    pairs = []
    for item in filter(None, body[1:-1].split(",")):
        level, colon, gain = item.partition(":")
        if not colon:
            raise EvalUsageError(f"'{spec}': gains are written {{grade:gain,...}}, e.g. gains={{0:0,1:1,2:3}}")
        level, gain = _int(level, spec, "a grade in gains"), _int(gain, spec, "a gain")
        if level < 0 or gain < 0:
            raise EvalUsageError(f"'{spec}': grades and gains in gains= must be 0 or more")
        pairs.append((str(level), float(gain)))
    return tuple(pairs)


def _cutoff(cutoff: str | None, spec: str) -> int | None:
    if cutoff is None:
        return None
    value = _int(cutoff, spec, "the cutoff")
    if value <= 0:
        raise EvalUsageError(f"'{spec}': the cutoff must be positive")
    return value


def _spec_text(name: str, args: dict[str, str], cutoff: str | None) -> str:
    inner = ",".join(f"{k}={v}" for k, v in args.items())
    return name + (f"({inner})" if inner else "") + (f"@{cutoff}" if cutoff is not None else "")


def _with_kernel(request: MeasureRequest, kernel, compact: str, params=None) -> MeasureRequest:
    """The request computed by another kernel (same record otherwise), named as typed."""
    measure = request.measure if kernel is None else replace(request.measure, kernel=kernel)
    return replace(request, measure=measure, names=(compact,), params=request.params if params is None else params)


def _judged_only(kernel):
    return lambda r, params: kernel(irm_extras.judged_view(r), params)


def _level(args: dict[str, str], spec: str) -> int | None:
    return _int(args.pop("rel"), spec, "rel") if "rel" in args else None


def _no_more(args: dict, spec: str, name: str) -> None:
    if args:
        raise EvalUsageError(f"'{spec}': unknown argument(s) {', '.join(sorted(args))} for {name}")


def _cwl_request(name: str, args: dict, cutoff: str | None, spec: str, compact: str) -> MeasureRequest:
    record, needs_cutoff, main = CWL[name]
    k = _cutoff(cutoff, spec)
    if needs_cutoff and k is None:
        raise EvalUsageError(f"'{spec}': {name} needs a cutoff, e.g. {name}(max_rel=3)@10")
    if not needs_cutoff and k is not None:
        raise EvalUsageError(f"'{spec}': {name} takes no cutoff")
    options = []
    if "min_rel" in args:
        options.append(("min_rel", _int(args.pop("min_rel"), spec, "min_rel")))
    if "max_rel" in args:
        options.append(("max_rel", _int(args.pop("max_rel"), spec, "max_rel")))
    if len(options) == 2 and not options[1][1] > options[0][1]:
        raise EvalUsageError(f"'{spec}': max_rel must be above min_rel")
    if main is not None and main in args:
        low, high, open_high = (0.0, 1.0, True) if main == "p" else (0.0, None, False)
        options.append((main, _number(args.pop(main), spec, main, low, high, open_high)))
    if name == "SDCG" and args.get("dcg", "log2") == "log2":
        args.pop("dcg", None)
    _no_more(args, spec, name)
    params = ((("k", k),) if k is not None else ()) + tuple(options)
    return MeasureRequest(REGISTRY[record], params, (compact,))


def extra_request(spec: str, compact: str, match: re.Match) -> MeasureRequest | None:
    """The request for ``spec`` if it needs more than ir_request knows, else None."""
    name, cutoff = match.group("name"), match.group("cutoff")
    raw = match.group("args") or ""
    if name in ALIASES:
        request = ir_request(_spec_text(ALIASES[name], _split_args(raw, spec), cutoff))
        return _with_kernel(request, None, compact)
    args = _split_args(raw, spec)
    if name in CWL:
        return _cwl_request(name, args, cutoff, spec, compact)
    if name == "ERR":
        _no_more(args, spec, name)
        k = _cutoff(cutoff, spec)
        if k is None:
            raise EvalUsageError(f"'{spec}': ERR needs a cutoff, e.g. ERR@20 (gdeval computes it at a cutoff)")
        return MeasureRequest(REGISTRY["err_cut"], (k,), (compact,))
    if name == "RBP" and ("min_rel" in args or "max_rel" in args):
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': RBP with min_rel/max_rel (cwl_eval's graded RBP) takes no cutoff")
        options = [("p", _number(args.pop("p", "0.8"), spec, "p", 0.0, 1.0, open_high=True))]
        for key in ("min_rel", "max_rel"):
            if key in args:
                options.append((key, _int(args.pop(key), spec, key)))
        _no_more(args, spec, name)
        return MeasureRequest(REGISTRY["rbp_cwl"], tuple(options), (compact,))
    if name == "Compat":
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': Compat takes no cutoff")
        p = _number(args.pop("p", "0.95"), spec, "p", 0.0, 1.0, open_high=True)
        normalize = _bool(args.pop("normalize", "True"), spec, "normalize")
        _no_more(args, spec, name)
        return MeasureRequest(REGISTRY["compat"], (("p", p), ("normalize", normalize)), (compact,))
    if name == "Accuracy":
        level = _level(args, spec)
        if level is not None and level < 1:
            raise EvalUsageError(f"'{spec}': rel must be 1 or more for Accuracy")
        _no_more(args, spec, name)
        k = _cutoff(cutoff, spec)
        return MeasureRequest(REGISTRY["accuracy"], (k or 0,), (compact,), relevance_level=level)
    if name == "SetRelP":   # SetP(relative=True), whose relative= may still be overridden, as in ir_measures
        args.setdefault("relative", "True")
        name = "SetP"
    if name == "SetP" and "relative" in args:
        if not _bool(args.pop("relative"), spec, "relative"):
            return _with_kernel(ir_request(_spec_text("SetP", args, cutoff)), None, compact)
        judged = _bool(args.pop("judged_only", "False"), spec, "judged_only")
        level = _level(args, spec)
        _no_more(args, spec, "SetP")
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': SetP takes no cutoff")
        measure = REGISTRY["set_relative_P"]
        request = MeasureRequest(measure, (), (compact,), relevance_level=level)
        return _with_kernel(request, _judged_only(measure.kernel) if judged else None, compact)
    if name == "SetAP":
        judged = _bool(args.pop("judged_only", "False"), spec, "judged_only")
        level = _level(args, spec)
        _no_more(args, spec, name)
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': SetAP takes no cutoff")
        measure = REGISTRY["set_map"]
        request = MeasureRequest(measure, (), (compact,), relevance_level=level)
        return _with_kernel(request, _judged_only(measure.kernel) if judged else None, compact)
    if name == "NumRet" and "rel" in args:
        level = _level(args, spec)
        _no_more(args, spec, name)
        return MeasureRequest(REGISTRY["num_rel_ret"], (), (compact,), relevance_level=level)
    if name == "Judged" and cutoff is None:
        _no_more(args, spec, name)
        return MeasureRequest(REGISTRY["judged"], (1 << 62,), (compact,))   # a cutoff past any ranking
    if name == "nDCG" and ({"dcg", "gains", "judged_only"} & set(args)):
        return _ndcg_request(args, cutoff, spec, compact)
    if name in JUDGED_ONLY and "judged_only" in args:
        judged = _bool(args.pop("judged_only"), spec, "judged_only")
        request = ir_request(_spec_text(name, args, cutoff))
        return _with_kernel(request, _judged_only(request.measure.kernel) if judged else None, compact)
    return None


def _ndcg_request(args: dict, cutoff: str | None, spec: str, compact: str) -> MeasureRequest:
    dcg = args.pop("dcg", "log2")
    judged = _bool(args.pop("judged_only", "False"), spec, "judged_only")
    gains = _gains(args.pop("gains"), spec) if "gains" in args else None
    _no_more(args, spec, "nDCG")
    k = _cutoff(cutoff, spec)
    if dcg == "exp-log2":
        if gains is not None:
            raise EvalUsageError(f"'{spec}': gains= cannot be combined with dcg=exp-log2 (its gain is 2^grade - 1)")
        if k is None:
            raise EvalUsageError(f"'{spec}': nDCG(dcg=exp-log2) needs a cutoff, e.g. @20 (gdeval computes it at one)")
        measure, params = REGISTRY["ndcg_exp_cut"], (k,)
    elif dcg == "log2":
        if gains is None:
            measure, params = (REGISTRY["ndcg"], ()) if k is None else (REGISTRY["ndcg_cut"], (k,))
        elif k is None:
            measure, params = REGISTRY["ndcg"], gains
        else:
            pairs = gains
            measure = replace(REGISTRY["ndcg_cut"],
                              kernel=lambda r, params: irm_extras.ndcg_cut_with_gains(r, params, pairs))
            params = (k,)
    else:
        raise EvalUsageError(f"'{spec}': dcg must be log2 or exp-log2, not {dcg}")
    if judged:
        measure = replace(measure, kernel=_judged_only(measure.kernel))
    return MeasureRequest(measure, params, (compact,))


for _name in NAMES:
    IR_MEASURES.setdefault(_name, (None, None, False))
