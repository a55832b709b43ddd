"""Case-based retrieval described for people: the quality metrics and the local similarity measures.

Light on purpose (no numpy): the command line lists and checks names with it before
loading an engine. Each quality metric's record names its kernel in :mod:`evalgui.core.cbr.metrics`
(imported when first computed); the local similarities' are in :mod:`evalgui.core.cbr.local`, and a
test checks that both sides name the same things.

Notation of the formulas, for one query: GT is the ground-truth list (every case, by
similarity descending, ties by case id), RL the evaluated list in its own order. With k,
RL_k is RL's first k cases and K = min(k, |GT|); without k, RL_k = RL and K = |RL|.
n = |RL_k|; sim_GT(c) and sim_RL(c) are a case's two similarities, GT_i and RL_i the
cases at position i. Pairs of RL_k are concordant (C) when both similarities order
them the same way, discordant (D) when opposite, neither when tied in either.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Callable

from evalgui.core.errors import EvalUsageError
from evalgui.core.registry import Parameter, Record, Registry

_KERNELS = "evalgui.core.cbr.metrics"


@dataclass(frozen=True, kw_only=True)
class Metric(Record):
    """A quality metric: the record and its kernel, ``f(QueryView, parameters) -> float``.

    The record names its kernel (a function of :mod:`evalgui.core.cbr.metrics`) and :attr:`kernel`
    imports it when first used, so that listing the metrics stays numpy-free."""
    kernel_name: str = field(repr=False)               # the kernel's function name in that module

    @property
    def kernel(self) -> Callable:
        return _kernel(self.kernel_name)


@cache
def _kernel(name: str) -> Callable:
    return getattr(importlib.import_module(_KERNELS), name)


METRICS: Registry[Record] = Registry(
    "cbr", "Case-based retrieval metrics",
    "How close a retriever's result lists come to the ground truth of an exhaustive (linear) retriever, "
    "as ProCAKE's retriever evaluation defines them; averaged over queries. k, when set, truncates both "
    "lists to their top k.")

LOCAL_SIMILARITIES: Registry[Record] = Registry(
    "cbr-similarity", "Local similarity measures (case-based retrieval models)",
    "The similarity of one attribute's values, in [0, 1]. A model's global similarity is the weighted "
    "mean of its attributes' local similarities over the attributes both cases have.")

_ALIGN = Parameter("align", "position: compare the similarities at the same positions of GT and RL (ProCAKE); "
                            "case: compare each case's two similarities", "position")
_UNDEFINED_PAIRS = "Undefined (left out of the mean over queries) when RL_k has fewer than two cases."

for _record in (
    Metric(name="hits", family="cbr", group="Overlap", kernel_name="hits", value_type="float",
           description="Cases of the true top K that the retriever's list contains. The only metric "
                       "that is not normalised.",
           formula="hits = |top-K(GT) ∩ RL_k|",
           notes=("With ties=interchangeable, a case of RL_k counts when its true similarity is at least "
                  "the K-th of GT (a case tied with the last of the true top K is as good as it).",)),
    Metric(name="hits_normalized", family="cbr", group="Overlap", kernel_name="hits_normalized",
           description="Hits divided by K, the most hits the list can have: with k, K = min(k, |GT|) (k, "
                       "unless the ground truth has fewer cases); without k, K = |RL|, the evaluated "
                       "list's length.",
           formula="hits_normalized = hits / K, K = min(k, |GT|) with k, K = |RL| without",
           notes=("ProCAKE's example (ground truth G2 0.5, G3 0.3, G4 0.2; evaluated G2 0.5, G4 0.3, "
                  "G3 0.2): without k, hits = 3 and K = |RL| = 3, so 1.0; with k = 2, hits = 1 (G2) "
                  "and K = min(2, 3) = 2, so 0.5.",
                  "Undefined (left out of the mean over queries) when K = 0.")),
    Metric(name="quality_mueller", family="cbr", group="Overlap", kernel_name="quality_mueller",
           description="One minus the mean true similarity of the true top-n cases the list misses "
                       "(Müller & Bergmann): missing a very similar case costs more.",
           formula="quality_mueller = 1 − (1/n) · Σ_{c ∈ top-n(GT) \\ RL_k} sim_GT(c)"),
    Metric(name="quality_stromer", family="cbr", group="Order", kernel_name="quality_stromer",
           description="Position-weighted share of positions where the list has the true case (Stromer "
                       "et al.'s MAC/FAC quality); early positions weigh more. A position beyond the "
                       "list's end is an error.",
           formula="quality_stromer = 1 − Σ_{i=1..K} err(i)·(2 + K − i) / Σ_{i=1..K} (2 + K − i), "
                   "err(i) = [GT_i ≠ RL_i]"),
    Metric(name="correctness", family="cbr", group="Order", kernel_name="correctness",
           description="Agreement of the two orders over the pairs of listed cases: 1 when every pair "
                       "is ordered as in the ground truth, −1 when every pair is reversed.",
           formula="correctness = (C − D) / (C + D)",
           notes=("Undefined (left out of the mean over queries) when no pair is ordered by both "
                  "(C + D = 0).",)),
    Metric(name="completeness", family="cbr", group="Order", kernel_name="completeness",
           description="Share of the pairs of listed cases that both orders decide (ties in either "
                       "similarity leave a pair undecided).",
           formula="completeness = (C + D) / (n(n − 1)/2)", notes=(_UNDEFINED_PAIRS,)),
    Metric(name="kendall", family="cbr", group="Order", kernel_name="kendall",
           description="Kendall's τ of the two orders over the pairs of listed cases (tied pairs count 0).",
           formula="kendall = (C − D) / (n(n − 1)/2)", notes=(_UNDEFINED_PAIRS,)),
    Metric(name="spearman", family="cbr", group="Order", kernel_name="spearman",
           description="Spearman's ρ: the Pearson correlation of the positions of the k cases the retriever lists "
                       "and their order in the ground truth.",
           formula="spearman = 1 − 6 Σ d_c² / (n(n² − 1)), d_c = rank_RL(c) − rank of c among RL_k's cases in GT",
           notes=(_UNDEFINED_PAIRS,)),
    Metric(name="distance", family="cbr", group="Order", kernel_name="distance", direction="lower",
           description="Mean number of positions a listed case is away from its place in the ground truth.",
           formula="distance = (1/n) · Σ_{c ∈ RL_k} |rank_RL(c) − rank_GT(c)|"),
    Metric(name="mae", family="cbr", group="Similarity error", kernel_name="mae", direction="lower",
           description="Mean absolute difference of the similarities: at the same positions of GT and RL "
                       "(ProCAKE's definition), or of each case's two similarities with mae(align=case).",
           formula="mae = (1/n) · Σ_{i=1..n} |sim_GT(GT_i) − sim_RL(RL_i)|; "
                   "mae(align=case) = (1/n) · Σ_{c ∈ RL_k} |sim_GT(c) − sim_RL(c)|",
           parameters=(_ALIGN,)),
    Metric(name="mse", family="cbr", group="Similarity error", kernel_name="mse", direction="lower",
           description="Mean squared difference of the similarities, aligned as mae.",
           formula="mse = (1/n) · Σ_{i=1..n} (sim_GT(GT_i) − sim_RL(RL_i))²; "
                   "mse(align=case) = (1/n) · Σ_{c ∈ RL_k} (sim_GT(c) − sim_RL(c))²",
           parameters=(_ALIGN,)),
    # Reported by every retrieval run (evalgui-cli casebase), not chosen with -m.
    Record(name="retrieval_seconds", family="cbr", group="Retrieval", direction="lower",
           description="Wall time of the retrieval over all queries, in seconds (linear: every similarity, "
                       "then the top k, or the whole ordering without k; MAC/FAC: both phases).",
           formula="Σ_q t_q"),
    Record(name="seconds_per_query", family="cbr", group="Retrieval", direction="lower",
           description="Mean wall time per query, in seconds.", formula="(1/|Q|) · Σ_q t_q"),
    Record(name="speedup", family="cbr", group="Retrieval",
           description="How many times faster than the linear retriever on the same queries.",
           formula="speedup = retrieval_seconds(linear) / retrieval_seconds"),
    Record(name="mac_recall", family="cbr", group="Retrieval",
           description="MAC/FAC's first phase: the share of the true top K among the filter_size candidates "
                       "MAC keeps (FAC can only return what MAC kept).",
           formula="mac_recall = |top-K(GT) ∩ MAC candidates| / K"),
):
    METRICS.add(_record)

# The metrics one chooses (-m): those with a kernel. The Retrieval group is always reported by retrieval runs.
QUALITY_METRICS = tuple(name for name, record in METRICS.items() if isinstance(record, Metric))
RETRIEVAL_METRICS = tuple(r.name for r in METRICS.in_group("Retrieval"))

_SPEC = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\(\s*([^)]*?)\s*\))?\s*$")
ALIGNMENTS = ("position", "case")
TIES = ("case_id", "interchangeable")


def parse_metric(text: str) -> tuple[str, str, dict]:
    """``"mae(align=case)"`` -> (output name, metric name, parameters). EvalUsageError for unknown names."""
    match = _SPEC.match(text)
    name = match.group(1) if match else text
    if not match or name not in QUALITY_METRICS:
        raise EvalUsageError(f"unknown metric '{text}' (choose from {', '.join(QUALITY_METRICS)}; "
                             "mae and mse also as mae(align=case))")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in (match.group(2) or "").split(","))):
        key, _, value = (s.strip() for s in item.partition("="))
        allowed = {p.name for p in METRICS[name].parameters}
        if key not in allowed:
            raise EvalUsageError(f"'{text}': {name} takes no parameter '{key}'"
                                 + (f" (it takes {', '.join(sorted(allowed))})" if allowed else ""))
        if key == "align" and value not in ALIGNMENTS:
            raise EvalUsageError(f"'{text}': align must be one of {', '.join(ALIGNMENTS)}")
        params[key] = value
    if params.get("align") == "position":
        del params["align"]                          # the default: one spelling per metric
    label = name + (f"(align={params['align']})" if params else "")
    return label, name, params


def is_metric(text: str) -> bool:
    match = _SPEC.match(text)
    return bool(match) and match.group(1) in QUALITY_METRICS


# ---------------------------------------------------------------- local similarity measures

_RANGE = Parameter("range", "the distance at which the similarity reaches 0 (default: the largest minus the "
                            "smallest value of the attribute over both case bases)")
for _record in (
    Record(name="linear", family="cbr-similarity", group="numeric",
           description="Falls linearly with the distance, to 0 at the range.",
           formula="sim(q, c) = max(0, 1 − |q − c| / range)", parameters=(_RANGE,)),
    Record(name="exponential", family="cbr-similarity", group="numeric",
           description="Decays exponentially with the distance; alpha sets how fast.",
           formula="sim(q, c) = exp(−alpha · |q − c|)",
           parameters=(Parameter("alpha", "decay rate (> 0)", "1"),)),
    Record(name="threshold", family="cbr-similarity", group="numeric",
           description="A step: 1 while the distance is within the threshold, else 0.",
           formula="sim(q, c) = 1 if |q − c| ≤ threshold else 0",
           parameters=(Parameter("threshold", "largest distance still similar (≥ 0)", "0"),)),
    Record(name="asymmetric", family="cbr-similarity", group="numeric",
           description="More (or less) is better: a case on the better side of the query is fully similar, "
                       "one on the other side falls linearly, to 0 at the range.",
           formula="sim(q, c) = 1 if c is on the better side of q, else max(0, 1 − |q − c| / range)",
           parameters=(Parameter("better", "more or less", "more"), _RANGE)),
    Record(name="equality", family="cbr-similarity", group="categorical",
           description="1 for equal values, else 0 (categorical and text attributes).",
           formula="sim(q, c) = [q = c]"),
    Record(name="table", family="cbr-similarity", group="categorical",
           description="A table of similarities between values set by the user; equal values not in the "
                       "table are 1, other pairs not in it are the default.",
           formula="sim(q, c) = table[q][c]",
           parameters=(Parameter("table", "{query value: {case value: similarity}}, similarities in [0, 1]"),
                       Parameter("symmetric", "a pair given one way holds both ways", "true"),
                       Parameter("default", "the similarity of unequal pairs not in the table", "0"))),
    Record(name="token_jaccard_index", family="cbr-similarity", group="text",
           description="The Jaccard index |A ∩ B| / |A ∪ B| of the two texts' sets of words (lower-cased). "
                       "Not CBRkit's jaccard, which is 1/(1 + Jaccard distance).",
           formula="sim(q, c) = |W(q) ∩ W(c)| / |W(q) ∪ W(c)| (1 when both have no words)"),
    Record(name="normalized_levenshtein", family="cbr-similarity", group="text",
           description="One minus the Levenshtein edit distance over the longer text's length "
                       "(rapidfuzz's Levenshtein.normalized_similarity).",
           formula="sim(q, c) = 1 − lev(q, c) / max(|q|, |c|) (1 for two empty texts)",
           parameters=(Parameter("case_sensitive", "false: compare lower-cased texts", "true"),)),
    Record(name="jaccard_index", family="cbr-similarity", group="set",
           description="The standard Jaccard index of two sets (not CBRkit's jaccard, which is "
                       "1/(1 + Jaccard distance)).",
           formula="sim(q, c) = |q ∩ c| / |q ∪ c| (1 for two empty sets)"),
    Record(name="cosine", family="cbr-similarity", group="vector",
           description="The cosine of the angle between two vectors; negative cosines count as 0.",
           formula="sim(q, c) = max(0, q·c / (‖q‖ ‖c‖)) (0 when either vector is zero)"),
):
    LOCAL_SIMILARITIES.add(_record)

# Which local measures fit which attribute type; the first is the default.
MEASURES_BY_TYPE = {
    "numeric": ("linear", "exponential", "threshold", "asymmetric"),
    "categorical": ("equality", "table"),
    "text": ("normalized_levenshtein", "token_jaccard_index", "equality"),
    "set": ("jaccard_index",),
    "vector": ("cosine",),
}
