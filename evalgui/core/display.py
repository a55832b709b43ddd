"""What the window shows for a machine name or a number: plain words, measures as papers write them,
numbers that read as numbers. Qt-free, so the CLI and tests can use it too.

- :func:`measure_label`: a trec_eval output name (``map``, ``ndcg_cut_10``, ``P_10``,
  ``recip_rank``) as papers write it (AP, nDCG@10, P@10, RR), or as trec_eval does; a preference
  measure's registered name (``rpp``, ``lexiprecision``) as papers write it (RPP, Lexiprecision), or as
  registered. Both spellings are what ``evalgui-cli`` accepts, so a table exported with either naming
  stays machine-readable.
- :func:`column_label`: a table's machine column name (``ci_low``, ``systemCount``) as a header
  ("95 % CI (low)", "Systems"); exports keep the machine names.
- :func:`format_number`, :func:`format_p`: counts as integers, shares with %, small p-values as
  "< 0.0001", a resampling p of 0 as "< 1/B", undefined values as "–" (with :func:`why_missing`).
"""

from __future__ import annotations

import math
import re

from evalgui.core.measure_names import CUT_OWN, PLAIN_OWN, PLAIN_RANKFILE

PAPER = "paper"
TREC_EVAL = "trec_eval"
NAMINGS = (PAPER, TREC_EVAL)
MISSING = "–"                # an en dash: what the window shows for an undefined value
SMALLEST_P = 1e-4            # p-values below it read "< 0.0001"

# trec_eval measure without a cutoff -> ir_measures' (papers') name. rbp's p is written: its default
# (0.9) is not ir_measures' (0.8), and a bare "RBP" would read back as another measure.
_PLAIN = {"map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "bpref": "Bpref", "set_P": "SetP",
          "set_recall": "SetR", "set_F": "SetF", "rbp": "RBP(p=0.9)", "num_ret": "NumRet", "num_rel": "NumRel",
          "num_rel_ret": "NumRelRet", "num_q": "NumQ", "Rprec": "Rprec", "infAP": "infAP", "gm_map": "GMAP"}
# the names papers give the measures ir_measures lacks (:mod:`evalgui.core.measure_names`)
_PLAIN.update(PLAIN_OWN)
_PLAIN.update(PLAIN_RANKFILE)
# The Ranking Evaluation Tool's per-mille measures end in "_per" (P@2000_per): papers write ‰.
PER_MILLE = "_per"
# trec_eval measure with a cutoff (name_<cutoff>) -> papers' name before "@"
_CUT = {"ndcg_cut": "nDCG", "map_cut": "AP", "P": "P", "recall": "R", "recip_rank_cut": "RR",
        "success": "Success", "iprec_at_recall": "IPrec", "judged": "Judged"}
_CUT.update(CUT_OWN)
_CUT_PATTERN = re.compile(r"^(?P<name>" + "|".join(sorted(map(re.escape, _CUT), key=len, reverse=True))
                          + r")_(?P<cutoff>\d+(?:\.\d+)?)$")
_TO_TREC = {paper: trec for trec, paper in _PLAIN.items()}
_TO_TREC_CUT = {paper: trec for trec, paper in _CUT.items()}
_PAPER_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+)@(?P<cutoff>\d+(?:\.\d+)?)$")


_PREFERENCE: dict[str, str] = {}           # preference's registered name -> papers' (rpp -> RPP)
_PREFERENCE_CODE: dict[str, str] = {}      # and back


def _preferences() -> dict[str, str]:
    """The preference measures' names as papers write them, from their registry records (read once, when
    first needed: the registry's module imports numpy)."""
    if not _PREFERENCE:
        from evalgui.core.ranked.preference import REGISTRY

        _PREFERENCE_CODE.update({r.paper_name: name for name, r in REGISTRY.items()})
        _PREFERENCE.update({name: r.paper_name for name, r in REGISTRY.items()})
    return _PREFERENCE


def paper_name(name: str) -> str:
    """``map`` -> AP, ``ndcg_cut_10`` -> nDCG@10, ``P_10`` -> P@10, ``recall_100`` -> R@100,
    ``iprec_at_recall_0.10`` -> IPrec@0.1, the preference ``dcgrpp`` -> DCGPP; any other name (already a
    paper's, or unknown) unchanged."""
    if name in _PLAIN:
        return _PLAIN[name]
    if name.endswith(PER_MILLE) and len(name) > len(PER_MILLE):
        return paper_name(name[:-len(PER_MILLE)]) + " ‰"
    match = _CUT_PATTERN.match(name)
    if match is None:
        return _preferences().get(name, name)
    cutoff = match["cutoff"]
    if "." in cutoff:
        cutoff = f"{float(cutoff):g}"
    return f"{_CUT[match['name']]}@{cutoff}"


def trec_name(name: str) -> str:
    """The inverse of :func:`paper_name`: AP -> ``map``, nDCG@10 -> ``ndcg_cut_10``, DCGPP -> ``dcgrpp``
    (a preference's registered name); others unchanged."""
    if name in _TO_TREC:
        return _TO_TREC[name]
    if name.endswith(" ‰"):                    # the Ranking Evaluation Tool's name: P@2000_per, AP_inter_per
        base = name[:-2]
        return ("AP_inter" if base == "AP (interpolated)" else base) + PER_MILLE
    match = _PAPER_PATTERN.match(name)
    if match is None or match["name"] not in _TO_TREC_CUT:
        _preferences()
        return _PREFERENCE_CODE.get(name, name)
    trec = _TO_TREC_CUT[match["name"]]
    cutoff = match["cutoff"]
    if trec in ("iprec_at_recall", "Rprec_mult"):
        cutoff = f"{float(cutoff):.2f}"
    return f"{trec}_{cutoff}"


def measure_label(name: str, naming: str = PAPER) -> str:
    """``name`` as the chosen naming writes it (PAPER or TREC_EVAL)."""
    if naming == TREC_EVAL:
        return trec_name(name)
    return paper_name(name)


def is_measure_name(name: str) -> bool:
    return paper_name(name) != name or trec_name(name) != name


# Machine column names of the result tables -> headers. Columns absent here are shown as they are
# (run names, measure names, words already plain).
COLUMN_LABELS = {
    # compare
    "run_a": "Run A", "run_b": "Run B", "mean_a": "Mean A", "mean_b": "Mean B", "diff": "Difference",
    "ci_low": "95 % CI (low)", "ci_high": "95 % CI (high)", "effect_size": "Effect size",
    "n_queries": "Queries", "p_value": "p", "p_adjusted": "p (adjusted)", "significant": "Significant",
    "measure": "Measure", "test": "Test", "correction": "Correction", "baseline": "Baseline", "run": "Run",
    "query": "Query", "value": "Value", "statistic": "Statistic", "wins": "Wins", "losses": "Losses",
    "doc": "Document", "score": "Score", "grade": "Grade", "judgment": "Judgment",
    "ties": "Ties", "significant_wins": "Significant wins", "significant_losses": "Significant losses",
    "mean_preference": "Mean preference", "win_rate": "Win rate", "preference": "Preference",
    "policy": "Query set", "universe": "Queries available", "dropped": "Queries left out",
    "difference_required": "Difference required", "samples": "Resamples (B)", "seed": "Seed",
    "binary_threshold": "Binary threshold",
    # meta-evaluation
    "set_size": "Topic set size", "error_rate": "Error rate", "error_rate_sd": "Error rate (SD)",
    "tie_rate": "Tie rate", "tie_rate_sd": "Tie rate (SD)", "discriminative_power": "Discriminative power",
    "pairs": "Pairs", "significant_pairs": "Significant pairs", "fuzziness": "Fuzziness", "sets": "Sets",
    "kendall_tau": "Kendall's τ", "ap_correlation": "AP correlation", "min_difference": "Smallest difference",
    "kendall_tau_sd": "Kendall's τ (SD)", "kendall_tau_min": "Kendall's τ (min)",
    "kendall_tau_max": "Kendall's τ (max)", "flipped_pairs": "Flipped pairs", "flipped_pairs_sd": "Flipped pairs (SD)",
    "judgments_kept": "Judgments kept", "fraction": "Judgments removed", "repetition": "Repetition",
    "pearson": "Pearson's r", "sign_agreement": "Sign agreement", "measure_a": "Measure A", "measure_b": "Measure B",
    "cells": "Cells", "better": "Better", "worse": "Worse", "equal": "Equal", "repetitions": "Repetitions", "replacement": "With replacement",
    "power": "Power", "alpha": "α", "spread": "Spread", "rank": "Rank",
    # measure stability (the Ranking Evaluation Tool's names)
    "systemCount": "Systems", "entityCount": "Entities", "splitCount": "Queries (splits)",
    "method": "Measure", "norm": "As asked for", "correlation": "Correlation", "stddev corr": "Correlation (SD)",
    "cutoff": "Cut-off", "asl": "Significant pairs (bootstrap)", "decisions": "Decided pairs",
    "errRate": "Error rate", "stddev errRate": "Error rate (SD)", "tieRate": "Tie rate",
    "stddev tieRate": "Tie rate (SD)", "relRate": "Entities used", "tRate": "Significant pairs (t-test)",
    "estDiff": "Difference required", "swapDiffMin": "Swap difference (min)",
    "swapDiffMax": "Swap difference (max)", "iterations": "Iterations", "total": "Total",
    # case-based retrieval
    "retriever": "Retriever", "filter_size": "Filter size", "k": "k", "metric": "Metric",
    "case_id": "Case", "true_similarity": "True similarity", "similarity": "Similarity",
    "rank_in_retriever": "Rank by the retriever", "rank_in_ground_truth": "Rank in the ground truth",
    "retrieval_seconds": "Retrieval time (s)", "seconds_per_query": "Seconds per query", "speedup": "Speed-up",
    "hits": "Hits", "hits_normalized": "Hits (normalised)", "quality_mueller": "Quality (Müller)",
    "quality_stromer": "Quality (Stromer)", "correctness": "Correctness", "completeness": "Completeness",
    "kendall": "Kendall's τ", "spearman": "Spearman's ρ", "distance": "Distance", "mae": "Mean absolute error",
    "rmse": "Root mean squared error", "mse": "Mean squared error", "queries": "Queries", "position": "Position",
    "mac_recall": "MAC recall", "system_a": "System A", "system_b": "System B",
}


# Columns that count things (shown without decimals), p-values, and values in percent.
COUNT_COLUMNS = frozenset({
    "n_queries", "wins", "losses", "ties", "systemCount", "entityCount", "splitCount", "iterations", "set_size",
    "hits", "k", "filter_size", "pairs", "significant_pairs", "sets", "num_q", "num_ret", "num_rel", "num_rel_ret",
    "NumQ", "NumRet", "NumRel", "NumRelRet", "rank_in_retriever", "rank_in_ground_truth", "rank", "queries",
    "position", "repetitions", "repetition", "samples", "seed", "cells", "better", "worse", "equal",
    "significant_wins", "significant_losses"})
P_COLUMNS = frozenset({"p_value", "p_adjusted", "p"})
PERCENT_COLUMNS = frozenset({"error_rate", "tie_rate", "error_rate_sd", "tie_rate_sd", "discriminative_power",
                             "flipped_pairs", "judgments_kept", "sign_agreement",
                             # measure stability's (the Ranking Evaluation Tool's) percentages
                             "errRate", "stddev errRate", "tieRate", "stddev tieRate", "tRate", "relRate", "asl",
                             "decisions"})


def column_kind(name: str) -> str:
    """How a column's numbers read: "count", "p", "percent" or "real"."""
    if name in COUNT_COLUMNS:
        return "count"
    if name in P_COLUMNS:
        return "p"
    if name in PERCENT_COLUMNS:
        return "percent"
    return "real"


def column_label(name: str, naming: str = PAPER, labels: dict[str, str] | None = None) -> str:
    """A table header for machine column ``name``: ``labels`` (the table's own map) first, then
    :data:`COLUMN_LABELS`, then the measure's name in the chosen naming."""
    if labels and name in labels:
        return labels[name]
    if name in COLUMN_LABELS:
        return COLUMN_LABELS[name]
    return measure_label(name, naming)


_PROPER = {"jaccard": "Jaccard", "levenshtein": "Levenshtein", "mueller": "Müller", "stromer": "Stromer",
           "euclidean": "Euclidean", "manhattan": "Manhattan", "hamming": "Hamming", "cosine": "cosine"}


def plain_words(name: str) -> str:
    """A snake_case name as words: ``token_jaccard_index`` -> "Token Jaccard index"."""
    words = [_PROPER.get(w, w) for w in name.split("_") if w]
    if not words:
        return name
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def label(text: str, naming: str = PAPER) -> str:
    """A single machine word shown alone (a combo item, a legend entry, a cell): its header label or
    its measure name; anything else unchanged."""
    return column_label(text, naming) if isinstance(text, str) else text


# ------------------------------------------------------------------ numbers

def is_missing(value) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)              # NaN, pd.NA raise or compare unequal
    except (TypeError, ValueError):
        return True


def yes_no(value: bool) -> str:
    """A true/false cell as people write it."""
    return "yes" if value else "no"


# The compared queries (core.stats.compare's SHARED and ZERO_FILLED) as the compare form says them.
QUERY_SET_LABELS = {"shared": "Shared", "zero-filled": "All (0 where missing)",
                    "with-relevant": "With a relevant document"}      # core.stats.compare's WITH_RELEVANT
_CELL_WORDS: dict[str, dict[str, str]] = {}


def cell_word(column: str, value: str) -> str:
    """A cell holding a setting's machine value (a test, a correction, the compared queries) as the form's
    label says it: ``holm`` -> Holm, ``t`` -> Paired t-test, ``shared`` -> Shared; any other value unchanged."""
    if not _CELL_WORDS:
        from evalgui.core.stats.catalogue import CORRECTION_LABELS, TEST_LABELS

        _CELL_WORDS.update({"test": TEST_LABELS, "correction": CORRECTION_LABELS, "queries": QUERY_SET_LABELS})
    return _CELL_WORDS.get(column, {}).get(value, value)


def full_number(value) -> str:
    """A number at full precision, as exports and tooltips write it: the shortest digits that read back
    exactly, without e-notation unless the number is tiny or huge (2.97951978425911e-05 -> 0.0000297951978425911)."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, float):
        return str(value)
    if not math.isfinite(value):
        return format_number(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if 1e-12 <= abs(value) < 1e16:
        import numpy as np

        return np.format_float_positional(value, unique=True, trim="-")
    return repr(value)


def format_number(value, *, precision: int = 4, kind: str = "real") -> str:
    """``kind``: "real" (fixed ``precision`` decimals), "count" (an integer: 3, 1200), "share"
    (a share in [0, 1] shown as 12.50 %), "percent" (a value already in percent: 12.5 -> 12.50 %),
    "p" (see :func:`format_p`). Undefined: "–"."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_missing(value):
        return MISSING
    if not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if kind == "count":
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.{precision}f}"
    if kind == "share":
        return f"{100 * value:.{max(precision - 2, 1)}f} %"
    if kind == "percent":
        return f"{value:.{max(precision - 2, 1)}f} %"
    if kind == "p":
        return format_p(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.{precision}f}"


def format_p(p, resamples: int | None = None, *, precision: int = 4) -> str:
    """A p-value: "< 0.0001" below the smallest shown value; a resampling test's p of 0 as "< 1/B"
    (``resamples`` B: 10,000 -> "< 1/10,000"), since B resamples cannot show a smaller one."""
    if is_missing(p):
        return MISSING
    p = float(p)
    if p == 0 and resamples:
        return f"< 1/{resamples:,}"
    smallest = 10.0 ** -precision
    if p < smallest:
        return f"< {smallest:.{precision}f}"
    return f"{p:.{precision}f}"


def why_missing(column: str) -> str:
    """The tooltip of a "–" cell: why the value is undefined."""
    if column in ("p_value", "p_adjusted", "statistic", "effect_size", "ci_low", "ci_high"):
        return ("Undefined: the test cannot be computed here (for example every query has the same "
                "difference, or there are too few queries).")
    if column.endswith("_sd") or column.startswith("stddev"):
        return "Undefined: a standard deviation needs at least two repetitions."
    return "Undefined: the value cannot be computed from these inputs (for example a division by zero)."
