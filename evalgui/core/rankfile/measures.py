"""Measures on the ranks of test entities (Dunaiski et al. 2018), vectorised over queries and systems.

A *query* here is a set of test entities; a system's result for it is the sorted ranks
r_1 <= ... <= r_n it gives them. Every kernel takes a :class:`SortedRanks` (any number of
leading axes: iterations x queries x systems, say; ranks along the last axis, padded with
+inf) and returns ``(score, count)``: the value and the number of entities it used (which
relRate averages). cap(x) = min(x, 1).

Names follow the original tool: a base (``AP``, ``nDCG``, ``Average``, ``P``...), an optional
cut-off after ``@`` (a number; ``Avg``: k = floor(mean rank); ``testsize``: k = n; ``Xrecall``:
k = the X-th percentile of the ranks, so ``50recall`` is the median rank; ``k``/``N``: each value
of the experiment's cut-off range), and ``_per`` for the per-mille form, which needs the total
number of ranked entities T: the ranks fall into 1,000 buckets of width w = T/1000 (a rank counts
in bucket i when rank <= i*w) and cut-offs interpolate linearly inside the boundary bucket.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable

import numpy as np

from evalgui.core.errors import EvalUsageError
from evalgui.core.registry import Parameter, Record, Registry

BUCKETS = 1000
BUCKET_BLOCK_NUMBERS = 500_000     # Buckets counts this many (row, bucket) cells between two cancel checks


# ---------------------------------------------------------------------------
# Sorted ranks, padded
# ---------------------------------------------------------------------------

class SortedRanks:
    """Ranks sorted ascending along the last axis, +inf where a row has fewer entities."""

    def __init__(self, ranks: np.ndarray):
        self.r = np.sort(np.asarray(ranks, dtype=np.float64), axis=-1)
        self.valid = np.isfinite(self.r)
        self.n = self.valid.sum(axis=-1)

    @classmethod
    def of_groups(cls, ranks: np.ndarray, members: np.ndarray) -> "SortedRanks":
        """``ranks``: entities x systems; ``members``: (..., M) entity indices, -1 for padding.
        The result has shape (..., systems, M)."""
        picked = ranks[np.maximum(members, 0)]                       # (..., M, systems)
        picked = np.where((members >= 0)[..., None], picked, np.inf)
        return cls(np.moveaxis(picked, -1, -2))

    @property
    def shape(self) -> tuple[int, ...]:
        return self.n.shape

    @cached_property
    def position(self) -> np.ndarray:
        """i = 1, 2, ... along the last axis."""
        return np.arange(1, self.r.shape[-1] + 1, dtype=np.float64)

    @cached_property
    def zeroed(self) -> np.ndarray:
        """The ranks with the padding as 0 (for sums)."""
        return np.where(self.valid, self.r, 0.0)

    @cached_property
    def precision(self) -> np.ndarray:
        """cap(i / r_i) at each entity, 0 in the padding."""
        return np.where(self.valid, np.minimum(1.0, self.position / self.r), 0.0)

    def at(self, index: np.ndarray) -> np.ndarray:
        """The rank at a 0-based index per row."""
        index = np.clip(np.asarray(index, dtype=np.int64), 0, max(self.r.shape[-1] - 1, 0))
        return np.take_along_axis(self.r, index[..., None], axis=-1)[..., 0]

    def within(self, k: np.ndarray) -> np.ndarray:
        """The entities ranked at k or better (mask)."""
        return self.valid & (self.r <= np.asarray(k, dtype=np.float64)[..., None])

    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.zeroed.sum(axis=-1) / self.n

    def percentile(self, level: float) -> np.ndarray:
        """The ``level``-th percentile of each row's ranks (linear interpolation, as numpy's default)."""
        place = (level / 100.0) * np.maximum(self.n - 1, 0)
        low = np.floor(place)
        below, above = self.at(low), self.at(np.ceil(place))
        return below + (above - below) * (place - low)


def _divide(a, b) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, np.asarray(a, dtype=np.float64) / np.where(b > 0, b, 1), np.nan)


def _tail_max(values: np.ndarray) -> np.ndarray:
    """Running maximum from the end of the last axis (interpolated precision)."""
    return np.maximum.accumulate(values[..., ::-1], axis=-1)[..., ::-1]


# ---------------------------------------------------------------------------
# Kernels on ranks: (ranks, k, total) -> (score, count)
# ---------------------------------------------------------------------------

def ap(sr: SortedRanks, k, total):
    if k is None:
        return _divide(sr.precision.sum(axis=-1), sr.n), sr.n
    # i <= N as well as r_i <= N (tied, fractional ranks can be below i): AP@N never exceeds 1.
    used = sr.within(k) & (sr.position - 1 < k[..., None])
    denominator = np.minimum(sr.n, k)
    score = np.where(denominator > 0, _divide(np.where(used, sr.precision, 0.0).sum(axis=-1), denominator), 0.0)
    return score, used.sum(axis=-1)


def ap_interpolated(sr: SortedRanks, k, total):
    return _divide(np.where(sr.valid, _tail_max(sr.precision), 0.0).sum(axis=-1), sr.n), sr.n


_IDEAL_EXACT = 1 << 22          # ideal DCG summed exactly up to here, by Euler-Maclaurin beyond
_ideal_table = np.zeros(1)


def ideal_dcg(count) -> np.ndarray:
    """Σ_{j=1..count} 1/log2(j + 1) for each (integer) count."""
    global _ideal_table
    count = np.asarray(count, dtype=np.float64)
    top = int(min(np.nanmax(count, initial=0.0), _IDEAL_EXACT))
    if top >= len(_ideal_table):
        size = min(max(top + 1, 2 * len(_ideal_table)), _IDEAL_EXACT + 1)
        _ideal_table = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2.0, size + 1)))))
    exact = _ideal_table[np.clip(np.nan_to_num(count), 0, _IDEAL_EXACT).astype(np.int64)]
    far = count > _IDEAL_EXACT
    if not far.any():
        return exact
    from scipy.special import expi

    def f(x):
        return 1.0 / np.log2(x + 1.0)

    def df(x):
        return -math.log(2.0) / ((x + 1.0) * np.log(x + 1.0) ** 2)

    start, end = float(_IDEAL_EXACT), count[far]
    integral = math.log(2.0) * (expi(np.log(end + 1.0)) - expi(math.log(start + 1.0)))
    tail = integral + (f(end) - f(start)) / 2.0 + (df(end) - df(start)) / 12.0
    out = exact.copy()
    out[far] = _ideal_table[_IDEAL_EXACT] + tail
    return out


def ndcg(sr: SortedRanks, k, total):
    gains = np.where(sr.valid, 1.0 / np.log2(np.where(sr.valid, sr.r, 1.0) + 1.0), 0.0)
    if k is None:
        return _divide(gains.sum(axis=-1), ideal_dcg(sr.n)), sr.n
    used = sr.within(k)
    ideal = ideal_dcg(np.floor(k))
    return _divide(np.where(used, gains, 0.0).sum(axis=-1), ideal), used.sum(axis=-1)


def average(sr: SortedRanks, k, total):
    if k is None:
        return sr.mean(), sr.n
    used = sr.within(k)
    count = used.sum(axis=-1)
    return _divide(np.where(used, sr.r, 0.0).sum(axis=-1), count), count


def median(sr: SortedRanks, k, total):
    count = sr.n if k is None else sr.within(k).sum(axis=-1)
    value = (sr.at((count - 1) // 2) + sr.at(count // 2)) / 2.0
    return np.where(count > 0, value, np.nan), count


def minimum(sr: SortedRanks, k, total):
    return np.where(sr.n > 0, sr.r[..., 0], np.nan), np.minimum(sr.n, 1)


def maximum(sr: SortedRanks, k, total):
    return np.where(sr.n > 0, sr.at(sr.n - 1), np.nan), np.minimum(sr.n, 1)


def precision_at(sr: SortedRanks, k, total):
    count = sr.within(k).sum(axis=-1)
    return np.minimum(1.0, _divide(count, k)), count


def recall_at(sr: SortedRanks, k, total):
    count = sr.within(k).sum(axis=-1)
    return _divide(count, sr.n), count


def r_precision(sr: SortedRanks, k, total):
    return recall_at(sr, sr.n, total)


def _trapezoids(precision: np.ndarray, steps: np.ndarray, n) -> np.ndarray:
    """Σ over consecutive points of the mean precision times the recall step (steps / n)."""
    heights = (precision[..., :-1] + precision[..., 1:]) / 2.0
    return _divide((heights * steps[..., 1:]).sum(axis=-1), n)


def pr_auc(sr: SortedRanks, k, total):
    return _trapezoids(sr.precision, sr.valid.astype(np.float64), sr.n), sr.n


def pr_auc_interpolated(sr: SortedRanks, k, total):
    return _trapezoids(np.where(sr.valid, _tail_max(sr.precision), 0.0), sr.valid.astype(np.float64), sr.n), sr.n


def roc_auc(sr: SortedRanks, k, total):
    # Mann-Whitney: the chance that a test entity is ranked above one of the T - n others
    # (fractional ranks of ties count half). Σ (r_i - i) is how many others rank above each one.
    n = sr.n.astype(np.float64)
    above = sr.zeroed.sum(axis=-1) - n * (n + 1) / 2.0
    return np.where(total > n, 1.0 - _divide(above, n * (total - n)), np.nan), sr.n


# ---------------------------------------------------------------------------
# Per-mille kernels: (buckets, k) -> (score, count)
# ---------------------------------------------------------------------------

class Buckets:
    """c_i = how many of a row's ranks fall in the first i per-mille buckets (i = 1..1000), with the
    bucket bounds b_i = i * T/1000. ``index_counting`` counts rank <= i instead, and counts nothing up
    to a cut-off at or beyond T, as the original does (bug 1 of docs/rankfile-compat.md)."""

    def __init__(self, sr: SortedRanks, total: float, index_counting: bool = False,
                 check: Callable[[], None] | None = None):
        self.sr = sr
        self.index_counting = index_counting
        self.total = float(total)
        self.width = self.total / BUCKETS
        self.bound = np.arange(1, BUCKETS + 1) * self.width
        limits = np.arange(1, BUCKETS + 1, dtype=np.float64) if index_counting else self.bound
        rows = int(np.prod(sr.shape, dtype=np.int64))
        flat = sr.r.reshape(rows, -1)
        c = np.empty((rows, BUCKETS))
        # In blocks of rows (each row is counted on its own), with ``check`` (a job's cancel check) between them.
        step = max(1, BUCKET_BLOCK_NUMBERS // (BUCKETS + 1))
        for start in range(0, rows, step):
            if check is not None:
                check()
            block = flat[start:start + step]
            row, column = np.nonzero(np.isfinite(block))
            bucket = np.searchsorted(limits, block[row, column], side="left")    # first i with r <= limit_i
            counts = np.bincount(row * (BUCKETS + 1) + bucket, minlength=len(block) * (BUCKETS + 1))
            c[start:start + step] = np.cumsum(counts.reshape(len(block), BUCKETS + 1), axis=1)[:, :BUCKETS]
        self.c = c.reshape(*sr.shape, BUCKETS)

    def at(self, k) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For cut-off k (per row): the entities counted up to k (linear inside the boundary bucket),
        the boundary bucket's 0-based index (BUCKETS when k >= T), and the share of it below k."""
        k = np.broadcast_to(np.asarray(k, dtype=np.float64), self.sr.shape)
        full = np.searchsorted(self.bound, k, side="right")                 # buckets with b_i <= k
        index = np.minimum(full, BUCKETS - 1)
        before = np.where(full > 0, np.take_along_axis(self.c, np.maximum(full - 1, 0)[..., None], -1)[..., 0], 0.0)
        current = np.take_along_axis(self.c, index[..., None], -1)[..., 0]
        below = k - full * self.width
        above = (full + 1) * self.width - k
        share = np.where(full < BUCKETS, below / (above + below), 0.0)
        beyond = 0.0 if self.index_counting else self.c[..., -1]
        counted = np.where(full < BUCKETS, before + (current - before) * share, beyond)
        return counted, full, share

    @cached_property
    def precision(self) -> np.ndarray:
        return np.minimum(1.0, self.c / self.bound)

    def gains(self) -> tuple[np.ndarray, np.ndarray]:
        """Per bucket: the entities entering it and the ideal's (all n in the first buckets), each
        discounted by 1/log2(i + 1)."""
        discount = 1.0 / np.log2(np.arange(2.0, BUCKETS + 2))
        entering = np.diff(self.c, axis=-1, prepend=0.0)
        n = self.sr.n[..., None].astype(np.float64)
        ideal = np.diff(np.minimum(n, self.bound), axis=-1, prepend=0.0)
        return entering * discount, ideal * discount


def _cut_mask(full: np.ndarray) -> np.ndarray:
    """Buckets lying wholly at or below the cut-off (b_i <= k)."""
    return np.arange(BUCKETS) < full[..., None]


def p_at_per(b: Buckets, k):
    counted, _, _ = b.at(k)
    return np.minimum(1.0, _divide(counted, k)), counted


def recall_at_per(b: Buckets, k):
    counted, _, _ = b.at(k)
    return np.minimum(1.0, _divide(counted, b.sr.n)), counted


def r_precision_per(b: Buckets, k):
    return p_at_per(b, b.sr.n.astype(np.float64))


def ap_per(b: Buckets, k):
    if k is None:
        return b.precision.mean(axis=-1), b.sr.n
    # The original's AP@N over buckets: the whole buckets up to N, plus the boundary bucket's
    # precision at N, which counts fully in the sum but by its share in the denominator.
    counted, full, share = b.at(k)
    whole = _cut_mask(full)
    boundary = full < BUCKETS
    total = np.where(whole, b.precision, 0.0).sum(axis=-1) + \
        np.where(boundary, np.minimum(1.0, _divide(counted, k)), 0.0)
    denominator = np.maximum(whole.sum(axis=-1) + np.where(boundary, share, 0.0), 1.0)
    return total / denominator, counted


def ap_interpolated_per(b: Buckets, k):
    return _tail_max(b.precision).mean(axis=-1), b.sr.n


def ndcg_per(b: Buckets, k):
    gain, ideal = b.gains()
    if k is None:
        return _divide(gain.sum(axis=-1), ideal.sum(axis=-1)), b.c[..., -1]
    _, full, share = b.at(k)
    weight = np.where(_cut_mask(full), 1.0, 0.0)
    boundary = full < BUCKETS
    index = np.minimum(full, BUCKETS - 1)[..., None]
    np.put_along_axis(weight, index, np.where(boundary, share, 1.0)[..., None], axis=-1)
    counted = np.take_along_axis(b.c, index, -1)[..., 0]
    return _divide((gain * weight).sum(axis=-1), (ideal * weight).sum(axis=-1)), counted


def _pr_points(b: Buckets, precision: np.ndarray):
    steps = np.diff(b.c, axis=-1, prepend=0.0)
    return _trapezoids(precision, steps, b.sr.n), b.c[..., -1]


def pr_auc_per(b: Buckets, k):
    return _pr_points(b, b.precision)


def pr_auc_interpolated_per(b: Buckets, k):
    return _pr_points(b, _tail_max(b.precision))


def roc_auc_per(b: Buckets, k):
    n = b.sr.n[..., None].astype(np.float64)
    tpr = _divide(b.c, n)
    false_positive = b.bound - np.minimum(b.c, b.bound)
    true_negative = b.total - b.bound - (n - b.c)
    negatives = false_positive + true_negative
    fpr = np.where(negatives > 0, _divide(false_positive, negatives), 0.0)
    area = ((tpr[..., :-1] + tpr[..., 1:]) / 2.0 * np.diff(fpr, axis=-1)).sum(axis=-1)
    return area, b.sr.n


# ---------------------------------------------------------------------------
# The measures: one registry record per form (AP, AP@N...), carrying its kernels
# ---------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class RankMeasure(Record):
    """One form of a measure: the record, and the kernels that compute it. A base name (``AP``) may
    have a form without a cut-off (the record ``AP``) and one with it (``AP@N``); both share kernels."""
    base: str                                    # as written before "@"
    kernel: Callable = field(repr=False)         # (SortedRanks, k, total) -> (score, count)
    per_mille: Callable | None = field(default=None, repr=False)   # (Buckets, k) -> (score, count)
    with_cutoff: bool = False                    # this form takes a cut-off after "@"
    needs_total: bool = False                    # T even without _per (ROC_AUC)


REGISTRY: Registry[RankMeasure] = Registry(
    "rankfile", "Measures on ranks of test entities",
    "Measures of how well a system ranks a set of test entities (papers that won a prize, say, among "
    "100,000 ranked ones), from the sorted ranks r_1 <= ... <= r_n it gives them (Dunaiski et al. 2018). "
    "Used by `evalgui-cli stability`.")

RANGE_PLACEHOLDERS = ("k", "n")          # "@k" / "@N": each value of the experiment's cut-off range


@dataclass(frozen=True)
class Cutoff:
    kind: str                  # "number", "avg", "testsize", "recall", "range"
    value: float | None = None # the number, or the recall percentage

    @property
    def label(self) -> str:
        if self.kind == "number":
            return number_text(self.value)
        if self.kind == "recall":
            return f"{number_text(self.value)}recall"
        return {"avg": "Avg", "testsize": "testsize", "range": "k"}[self.kind]


def number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class MeasureSpec:
    """One measure as asked for: a base, perhaps a cut-off, perhaps per-mille."""

    base: str
    cutoff: Cutoff | None = None
    per_mille: bool = False
    written: str = ""          # how the user wrote the cut-off placeholder ("k" or "N"), for the name

    @property
    def name(self) -> str:
        short = "AP_inter" if self.per_mille and self.base == "AP_interpolated" else self.base
        cut = "" if self.cutoff is None else "@" + (self.written or self.cutoff.label)
        return f"{short}{cut}{'_per' if self.per_mille else ''}"

    @property
    def lower_better(self) -> bool:
        return self.record.direction == "lower"

    @property
    def needs_total(self) -> bool:
        return self.per_mille or self.record.needs_total

    @property
    def has_range(self) -> bool:
        return self.cutoff is not None and self.cutoff.kind == "range"

    @property
    def fixed_cutoff(self) -> float | None:
        """The numeric cut-off when it is a number (the eval table's cutoff column), else None."""
        return self.cutoff.value if self.cutoff is not None and self.cutoff.kind == "number" else None

    def at(self, value: float) -> "MeasureSpec":
        """A range measure at one cut-off of the range."""
        return replace(self, cutoff=Cutoff("number", float(value)), written="")

    @property
    def record(self) -> RankMeasure:
        return _FORMS[self.base][self.cutoff is not None]


_NAME = re.compile(r"^(?P<base>[A-Za-z_\-]+?)(?:@(?P<cut>[^@]+?))?(?P<per>_per)?$")


def parse_measure(text: str) -> MeasureSpec:
    """``AP``, ``nDCG@Avg``, ``P@2000_per``, ``Average@k``... EvalUsageError for anything else."""
    written = text.strip()
    match = _NAME.match(written)
    base = _BY_LOWER.get(match.group("base").lower()) if match else None
    if base is None:
        known = ", ".join(forms.get(False, forms.get(True)).name for forms in _FORMS.values())
        raise EvalUsageError(f"unknown rank measure '{written}' (known: {known}; cut-offs @10, @Avg, @testsize, "
                             f"@50recall, @k for the --cutoffs range; _per for per-mille)")
    cut, per_mille = match.group("cut"), bool(match.group("per"))
    cutoff, placeholder = (None, "") if cut is None else _parse_cutoff(cut, written)
    record = _FORMS[base].get(cutoff is not None)
    if record is None and cutoff is not None:
        raise EvalUsageError(f"'{written}': {base} takes no cut-off")
    if record is None:
        raise EvalUsageError(f"'{written}': {base} needs a cut-off, e.g. {base}@10 (or {base}@k with --cutoffs)")
    if per_mille and record.per_mille is None:
        raise EvalUsageError(f"'{written}': {base} has no per-mille form (_per)")
    return MeasureSpec(base, cutoff, per_mille, placeholder)


def _parse_cutoff(cut: str, written: str) -> tuple[Cutoff, str]:
    lower = cut.strip().lower()
    if lower in RANGE_PLACEHOLDERS:
        return Cutoff("range"), cut.strip()
    if lower == "avg":
        return Cutoff("avg"), ""
    if lower == "testsize":
        return Cutoff("testsize"), ""
    if lower.endswith("recall"):
        level = _positive(lower[:-len("recall")], written)
        if level > 100:
            raise EvalUsageError(f"'{written}': a recall level is a percentage from 0 to 100")
        return Cutoff("recall", level), ""
    return Cutoff("number", _positive(lower, written)), ""


def _positive(text: str, written: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise EvalUsageError(f"'{written}': the cut-off must be a positive number, Avg, testsize, Xrecall or k")
    return value


def cutoff_values(spec: MeasureSpec, sr: SortedRanks, scale: float = 1.0) -> np.ndarray | None:
    """k for every row (None without a cut-off). ``scale`` multiplies the cut-offs taken from the
    ranks themselves (@Avg, @Xrecall): the original does so for per-mille measures (bug 1)."""
    cutoff = spec.cutoff
    if cutoff is None:
        return None
    if cutoff.kind == "number":
        return np.full(sr.shape, cutoff.value)
    if cutoff.kind == "testsize":
        return sr.n.astype(np.float64)
    if cutoff.kind == "avg":
        return np.floor(sr.mean()) * scale
    if cutoff.kind == "recall":
        return sr.percentile(cutoff.value) * scale
    raise ValueError(f"{spec.name}: a range cut-off must be resolved with at() first")


def score(spec: MeasureSpec, sr: SortedRanks, total: float | None = None, index_counting: bool = False,
          buckets: Buckets | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(score, count) of one measure for every row of ``sr``. ``total``: T, for per-mille measures
    and ROC_AUC. ``buckets``: the per-mille counts of ``sr`` when already made (shared by measures)."""
    if spec.needs_total and total is None:
        raise EvalUsageError(f"{spec.name} needs the total number of ranked entities (--totalranks)")
    measure = spec.record
    if not spec.per_mille:
        return measure.kernel(sr, cutoff_values(spec, sr), total)
    if buckets is None:
        buckets = Buckets(sr, total, index_counting)
    scale = buckets.width if index_counting else 1.0
    return measure.per_mille(buckets, cutoff_values(spec, sr, scale))


# ---------------------------------------------------------------------------
# Registry records (the "rankfile" family)
# ---------------------------------------------------------------------------

_CUTOFF = Parameter("cut-off", "after @: a rank k (P@10), Avg (k = floor of the mean rank), testsize (k = n), "
                               "Xrecall (k = the X-th percentile rank; 50recall = the median rank) or k/N "
                               "(each value of --cutoffs)")
_PER_MILLE = ("Per-mille form: add _per (needs the total ranks T). The ranks fall into 1,000 buckets of width "
              "w = T/1000 (a rank counts in bucket i when rank <= i*w); c_i = entities in buckets 1..i; a cut-off "
              "inside a bucket interpolates linearly.")


def _add(name: str, group: str, description: str, formula: str, *, kernel: Callable,
         per_mille_kernel: Callable | None = None, per_mille: str = "", lower: bool = False,
         needs_total: bool = False, notes: tuple[str, ...] = ()) -> None:
    """One form: a base name, with "@..." when it takes a cut-off. ``per_mille``: the help on its _per form."""
    base, at, _ = name.partition("@")
    extra = ((f"{_PER_MILLE} {per_mille}",) if per_mille else ()) + notes
    REGISTRY.add(RankMeasure(
        name=name, family="rankfile", group=group, description=description, formula=formula,
        direction="lower" if lower else "higher", parameters=(_CUTOFF,) if at else (), notes=extra,
        base=base, kernel=kernel, per_mille=per_mille_kernel, with_cutoff=bool(at),
        needs_total=needs_total))


_COUNT = "Count (for relRate): "
_add("AP", "Precision", "Average precision of the test entities' ranks: the mean, over the entities in rank "
     "order, of the precision at each one's rank.",
     "AP = (1/n) Σ_i cap(i / r_i), cap(x) = min(x, 1)",
     per_mille="AP_per = (1/1000) Σ_i cap(c_i / (i*w)).", kernel=ap, per_mille_kernel=ap_per,
     notes=(_COUNT + "n.",))
_add("AP@N", "Precision", "Average precision over the entities ranked within the first N: AP cut off at rank N.",
     "AP@N = Σ_{i <= N, r_i <= N} cap(i / r_i) / min(n, N) (0 when min(n, N) = 0)",
     per_mille="AP@N_per: the mean of cap(c_i / (i*w)) over the whole buckets up to N, plus the boundary "
               "bucket's cap(c(N) / N) weighted by its share below N in the denominator (as the original).",
     kernel=ap, per_mille_kernel=ap_per,
     notes=(_COUNT + "the entities ranked within N.",))
_add("AP_interpolated", "Precision", "Interpolated average precision: each entity's precision replaced by the "
     "best precision at it or any later entity, then averaged.",
     "AP_interpolated = (1/n) Σ_i max_{j >= i} cap(j / r_j)",
     per_mille="AP_inter_per = (1/1000) Σ_i max_{j >= i} cap(c_j / (j*w)).",
     kernel=ap_interpolated, per_mille_kernel=ap_interpolated_per,
     notes=(_COUNT + "n.",))
_add("P@k", "Precision", "Precision at rank k: the share of the first k ranks taken by test entities.",
     "P@k = cap(#{i : r_i <= k} / k)", per_mille="P@k_per = cap(c(k) / k).",
     kernel=precision_at, per_mille_kernel=p_at_per,
     notes=(_COUNT + "#{i : r_i <= k}.",))
_add("R-precision", "Precision", "Precision at rank n (the number of test entities): the share of them "
     "ranked within n.", "R-precision = #{i : r_i <= n} / n", per_mille="R-precision_per = cap(c(n) / n).",
     kernel=r_precision, per_mille_kernel=r_precision_per,
     notes=(_COUNT + "#{i : r_i <= n}.",))
_add("Recall@k", "Recall", "The share of the test entities ranked within the first k.",
     "Recall@k = #{i : r_i <= k} / n", per_mille="Recall@k_per = cap(c(k) / n).",
     kernel=recall_at, per_mille_kernel=recall_at_per,
     notes=(_COUNT + "#{i : r_i <= k}.",))
_add("nDCG", "Gain", "Normalised discounted cumulative gain with binary gains: each entity gains "
     "1/log2(rank + 1), against the best possible ranking (the entities at ranks 1..n).",
     "nDCG = Σ_i 1/log2(r_i + 1) / Σ_{i=1..n} 1/log2(i + 1)",
     per_mille="nDCG_per: the entities entering bucket i gain 1/log2(i + 1), against all n in the first "
               "buckets.", kernel=ndcg, per_mille_kernel=ndcg_per,
     notes=(_COUNT + "n.",))
_add("nDCG@N", "Gain", "nDCG cut off at rank N: the gains of the entities ranked within N, against the "
     "ideal gain of N entities at ranks 1..N.",
     "nDCG@N = Σ_{r_i <= N} 1/log2(r_i + 1) / Σ_{j=1..floor(N)} 1/log2(j + 1)",
     per_mille="nDCG@N_per: as nDCG_per over the buckets up to N, the boundary bucket weighted by its share "
               "below N.", kernel=ndcg, per_mille_kernel=ndcg_per,
     notes=(_COUNT + "#{i : r_i <= N}.",))
_add("Average", "Rank statistics", "The average rank of the test entities (lower is better).",
     "Average = (1/n) Σ_i r_i", lower=True, kernel=average,
     notes=(_COUNT + "n.",))
_add("Average@k", "Rank statistics", "The average rank of the test entities ranked within k (lower is better); "
     "missing (empty, never 0) when none is.", "Average@k = mean{r_i : r_i <= k}", lower=True,
     kernel=average,
     notes=(_COUNT + "#{i : r_i <= k}.",))
_add("Median", "Rank statistics", "The median rank of the test entities (lower is better).",
     "Median = r_{(n+1)/2} for odd n, (r_{n/2} + r_{n/2+1}) / 2 for even n", lower=True, kernel=median,
     notes=(_COUNT + "n.",))
_add("Median@k", "Rank statistics", "The median rank of the test entities ranked within k (lower is better); "
     "missing when none is.", "Median@k = median{r_i : r_i <= k}", lower=True,
     kernel=median,
     notes=(_COUNT + "#{i : r_i <= k}.",))
_add("Min", "Rank statistics", "The best rank any test entity gets (lower is better).", "Min = r_1", lower=True,
     kernel=minimum,
     notes=(_COUNT + "1.",))
_add("Max", "Rank statistics", "The worst rank any test entity gets (lower is better).", "Max = r_n", lower=True,
     kernel=maximum,
     notes=(_COUNT + "1.",))
_add("PR_AUC", "Areas", "Area under the precision-recall curve through the points (cap(i / rᵢ), i / n), "
     "by trapezoids between consecutive entities.",
     "PR_AUC = Σ_{i=2..n} (cap((i-1)/r_{i-1}) + cap(i/r_i)) / 2 · 1/n",
     per_mille="PR_AUC_per: the points (cap(c_i / (i*w)), c_i / n) of the 1,000 buckets.",
     kernel=pr_auc, per_mille_kernel=pr_auc_per,
     notes=(_COUNT + "n.",))
_add("PR_AUC_interpolated", "Areas", "PR AUC with interpolated precision (the best precision at or after each "
     "point).", "PR_AUC_interpolated = Σ_{i=2..n} (p̂_{i-1} + p̂_i) / 2 · 1/n, p̂_i = max_{j >= i} cap(j / r_j)",
     per_mille="PR_AUC_interpolated_per: the same over the buckets' points.",
     kernel=pr_auc_interpolated, per_mille_kernel=pr_auc_interpolated_per,
     notes=(_COUNT + "n.",))
_add("ROC_AUC", "Areas", "Area under the ROC curve given the total number T of ranked entities (Total ranks T): "
     "the chance that a test entity is ranked above one of the others.",
     "ROC_AUC = 1 - (Σ_i r_i - n(n+1)/2) / (n (T - n))",
     per_mille="ROC_AUC_per: trapezoids through the buckets' (false positive rate, c_i / n).",
     kernel=roc_auc, per_mille_kernel=roc_auc_per, needs_total=True,
     notes=(_COUNT + "n.",))


# How names are parsed, derived from the records: base -> {takes a cut-off: its form}, and spellings.
_FORMS: dict[str, dict[bool, RankMeasure]] = {}
for _measure in REGISTRY.values():
    _FORMS.setdefault(_measure.base, {})[_measure.with_cutoff] = _measure
_SHORT = {"ap_inter": "AP_interpolated", "pr_auc_inter": "PR_AUC_interpolated", "rprec": "R-precision"}
_BY_LOWER = {**{base.lower(): base for base in _FORMS}, **_SHORT}
