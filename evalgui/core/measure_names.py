"""The names papers give the trec_eval measures that ir_measures lacks, and the Ranking Evaluation Tool's, in one
place that imports nothing: :mod:`evalgui.core.display` shows them, the measure parser reads them back."""

from __future__ import annotations

import re

# trec_eval's measures that ir_measures lacks, named as their papers (or trec_eval's documentation) do.
PLAIN_OWN = {"num_nonrel_judged_ret": "NumNonRelJudgedRet", "yaap": "YAAP", "gm_bpref": "GMBpref",
             "rbp_resid": "RBP residual", "set_relative_P": "SetRelP", "set_map": "SetAP",
             "11pt_avg": "11-point AP", "dcg": "DCG", "ideal_dcg": "IDCG", "ndcg_rel": "nDCG (relevant)",
             "Rndcg": "RnDCG", "utility": "Utility", "rbp_cwl": "RBP (C/W/L)"}
# ... and those with a cut-off (relative_P_10 -> RelP@10)
CUT_OWN = {"relative_P": "RelP", "Rprec_mult": "RprecMult", "unj": "Unjudged"}
# the Ranking Evaluation Tool's (measure stability's) areas and interpolated AP
PLAIN_RANKFILE = {"AP_inter": "AP (interpolated)", "AP_interpolated": "AP (interpolated)", "PR_AUC": "PR AUC",
                  "PR_AUC_interpolated": "PR AUC (interpolated)", "ROC_AUC": "ROC AUC"}

_FROM_PAPER = {paper: trec for trec, paper in PLAIN_OWN.items()}
_FROM_PAPER_CUT = {paper: trec for trec, paper in CUT_OWN.items()}
_CUT_SPEC = re.compile(r"^(?P<name>[A-Za-z]+)@(?P<cutoff>\d+(?:\.\d+)?)$")


def paper_alias(spec: str) -> str:
    """One of these names as trec_eval writes it (YAAP -> ``yaap``, RelP@10 -> ``relative_P_10``, RprecMult@0.2
    -> ``Rprec_mult_0.20``); any other spec unchanged."""
    if spec in _FROM_PAPER:
        return _FROM_PAPER[spec]
    match = _CUT_SPEC.match(spec)
    if match is None or match["name"] not in _FROM_PAPER_CUT:
        return spec
    trec = _FROM_PAPER_CUT[match["name"]]
    cutoff = f"{float(match['cutoff']):.2f}" if trec == "Rprec_mult" else match["cutoff"]
    return f"{trec}_{cutoff}"
