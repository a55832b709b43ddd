"""ir_measures' names and arguments beyond the trec_eval ones :mod:`evalgui.core.ranked.specs` maps.

:func:`extra_request` is called first by ``specs.ir_request``; it returns a request for what it
knows (gdeval's ERR@k and nDCG(dcg="exp-log2")@k, the C/W/L family, Compat, Accuracy, SetAP,
SetRelP, the aliases MAP, MRR, NDCG..., and the judged_only=, gains=, relative= arguments) and None
for the rest. What ir_measures 0.4 parses and evalgui refuses is listed in the README.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evalgui.core.errors import EvalUsageError
from evalgui.core.ranked import cwl, gdeval, irm_extras  # noqa: F401  (their records are in the registry)
from evalgui.core.ranked import specs
from evalgui.core.ranked.measures import REGISTRY

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


def _with_kernel(request: specs.MeasureRequest, kernel, compact: str, params=None) -> specs.MeasureRequest:
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


def _cwl_request(name: str, args: dict, cutoff: str | None, spec: str, compact: str) -> specs.MeasureRequest:
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
        options.append((main, specs._number(args.pop(main), spec, main, low, high, open_high)))
    if name == "SDCG" and args.get("dcg", "log2") == "log2":
        args.pop("dcg", None)
    _no_more(args, spec, name)
    params = ((("k", k),) if k is not None else ()) + tuple(options)
    return specs.MeasureRequest(REGISTRY[record], params, (compact,))


def extra_request(spec: str, compact: str, match: re.Match) -> specs.MeasureRequest | None:
    """The request for ``spec`` if it needs more than specs.ir_request knows, else None."""
    name, cutoff = match.group("name"), match.group("cutoff")
    raw = match.group("args") or ""
    if name in ALIASES:
        request = specs.ir_request(_spec_text(ALIASES[name], _split_args(raw, spec), cutoff))
        return _with_kernel(request, None, compact)
    args = _split_args(raw, spec)
    if name in CWL:
        return _cwl_request(name, args, cutoff, spec, compact)
    if name == "ERR":
        _no_more(args, spec, name)
        k = _cutoff(cutoff, spec)
        if k is None:
            raise EvalUsageError(f"'{spec}': ERR needs a cutoff, e.g. ERR@20 (gdeval computes it at a cutoff)")
        return specs.MeasureRequest(REGISTRY["err_cut"], (k,), (compact,))
    if name == "RBP" and ("min_rel" in args or "max_rel" in args):
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': RBP with min_rel/max_rel (cwl_eval's graded RBP) takes no cutoff")
        options = [("p", specs._number(args.pop("p", "0.8"), spec, "p", 0.0, 1.0, open_high=True))]
        for key in ("min_rel", "max_rel"):
            if key in args:
                options.append((key, _int(args.pop(key), spec, key)))
        _no_more(args, spec, name)
        return specs.MeasureRequest(REGISTRY["rbp_cwl"], tuple(options), (compact,))
    if name == "Compat":
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': Compat takes no cutoff")
        p = specs._number(args.pop("p", "0.95"), spec, "p", 0.0, 1.0, open_high=True)
        normalize = _bool(args.pop("normalize", "True"), spec, "normalize")
        _no_more(args, spec, name)
        return specs.MeasureRequest(REGISTRY["compat"], (("p", p), ("normalize", normalize)), (compact,))
    if name == "Accuracy":
        level = _level(args, spec)
        if level is not None and level < 1:
            raise EvalUsageError(f"'{spec}': rel must be 1 or more for Accuracy")
        _no_more(args, spec, name)
        k = _cutoff(cutoff, spec)
        return specs.MeasureRequest(REGISTRY["accuracy"], (k or 0,), (compact,), relevance_level=level)
    if name == "SetRelP":   # SetP(relative=True), whose relative= may still be overridden, as in ir_measures
        args.setdefault("relative", "True")
        name = "SetP"
    if name == "SetP" and "relative" in args:
        if not _bool(args.pop("relative"), spec, "relative"):
            return _with_kernel(specs.ir_request(_spec_text("SetP", args, cutoff)), None, compact)
        judged = _bool(args.pop("judged_only", "False"), spec, "judged_only")
        level = _level(args, spec)
        _no_more(args, spec, "SetP")
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': SetP takes no cutoff")
        measure = REGISTRY["set_relative_P"]
        request = specs.MeasureRequest(measure, (), (compact,), relevance_level=level)
        return _with_kernel(request, _judged_only(measure.kernel) if judged else None, compact)
    if name == "SetAP":
        judged = _bool(args.pop("judged_only", "False"), spec, "judged_only")
        level = _level(args, spec)
        _no_more(args, spec, name)
        if cutoff is not None:
            raise EvalUsageError(f"'{spec}': SetAP takes no cutoff")
        measure = REGISTRY["set_map"]
        request = specs.MeasureRequest(measure, (), (compact,), relevance_level=level)
        return _with_kernel(request, _judged_only(measure.kernel) if judged else None, compact)
    if name == "NumRet" and "rel" in args:
        level = _level(args, spec)
        _no_more(args, spec, name)
        return specs.MeasureRequest(REGISTRY["num_rel_ret"], (), (compact,), relevance_level=level)
    if name == "Judged" and cutoff is None:
        _no_more(args, spec, name)
        return specs.MeasureRequest(REGISTRY["judged"], (1 << 62,), (compact,))   # a cutoff past any ranking
    if name == "nDCG" and ({"dcg", "gains", "judged_only"} & set(args)):
        return _ndcg_request(args, cutoff, spec, compact)
    if name in JUDGED_ONLY and "judged_only" in args:
        judged = _bool(args.pop("judged_only"), spec, "judged_only")
        request = specs.ir_request(_spec_text(name, args, cutoff))
        return _with_kernel(request, _judged_only(request.measure.kernel) if judged else None, compact)
    return None


def _ndcg_request(args: dict, cutoff: str | None, spec: str, compact: str) -> specs.MeasureRequest:
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
    return specs.MeasureRequest(measure, params, (compact,))


for _name in NAMES:
    specs.IR_MEASURES.setdefault(_name, (None, None, False))
