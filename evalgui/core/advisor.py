"""The evaluation advisor: the caveats of a result, computed from the same data as the result.

Every outcome of Ranked retrieval, Compare (significance tests and preferences) and Meta-evaluation
gets a ``caveats`` table (:data:`COLUMNS`): what a careful reviewer would ask of its numbers, with
the numbers. ``run``, ``other_run``, ``measure`` and ``query`` say what a caveat is about (empty
where they do not apply: a view marks that cell or row); ``value`` is the number the message is
about. The kinds:

- ``judged``: the share of a run's top k that is judged, at each measure's depth (P@10: 10; AP,
  nDCG and other measures without a depth: 10 and everything the run retrieved), when below
  :data:`JUDGED_BELOW`; a warning under :data:`JUDGED_WARNING`;
- ``queries``: a compared pair whose difference is smaller than the minimum detectable difference
  (MDD) of a paired t test on these queries (power 0.8, at the test's α and, with a correction, at
  α/m), with the queries a test would need to detect it (Sakai's topic-set-size design); a warning
  when the test called that difference significant;
- ``multiple_comparisons``: three or more pairs of one measure tested with no correction (warning);
- ``ties``: runs whose tied scores leave a measure's value to the tie order: the range between the
  worst and the best order of the tied documents, computed by evaluating both orders;
- ``coverage``: queries a run lacks or that have no relevant document, and the mean under the other
  query policy; for ndeval's and gdeval's measures, the value over every judged query those tools report;
- ``measure``: in Meta-evaluation, which chosen measure did best on these data.

Everything here is vectorised over queries, pairs and documents; the tie passes run only for runs
with ties that matter.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

COLUMNS = ("run", "other_run", "measure", "query", "kind", "severity", "message", "value")
KINDS = ("judged", "queries", "multiple_comparisons", "ties", "coverage", "measure")
NOTE, WARNING = "note", "warning"
ZERO = 'the option "Score queries missing from a run as 0", -c on the command line'
JUDGED_BELOW = 0.9        # a judged share below this is said (configurable: ``judged_below=``)
JUDGED_WARNING = 0.7      # and below this it can change a conclusion
POWER = 0.8               # the power the minimum detectable difference is computed for
MAX_RUN_NOTES = 5         # more runs with one judged-share caveat at the same depth are said in one note
MAX_PAIR_NOTES = 5        # more pairs of one measure below the detectable difference are said in one note
TIE_NEGLIGIBLE = 0.00005  # a tie range under half the last decimal the window shows is not said
SHALLOW_DEPTH = 10        # where measures without a depth of their own are checked first
MAX_LISTED = 5            # queries named in a message before "and N more"
# Measures an unjudged document does not count against: counts, the ones built for incomplete judgments.
_NOT_JUDGED_SENSITIVE = re.compile(r"^(num_|runid|relstring|bpref|infAP|Judged|judged)", re.IGNORECASE)
# Groups whose reference tool averages over every judged query (ndeval, gdeval), whatever -c says.
_EVERY_QUERY_GROUPS = ("Web track (gdeval)",)


class EvalguiWarning(UserWarning):
    """A caveat of an evalgui result (``warnings.filterwarnings("ignore", category=eg.EvalguiWarning)``)."""


@dataclass
class Caveat:
    kind: str
    severity: str
    message: str
    value: float = float("nan")
    run: str = ""
    other_run: str = ""
    measure: str = ""
    query: str = ""
    group: tuple = ()           # what caveats of several runs share, to say them once when they are many


@functools.lru_cache(maxsize=4096)
def label(measure: str) -> str:
    from evalgui.core.display import measure_label

    return measure_label(str(measure))


def num(value: float) -> str:
    return "–" if value != value else f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:.3g}"


def percent(share: float) -> str:
    return f"{100 * share:.0f} %"


def listed(queries) -> str:
    queries = [str(q) for q in queries]
    shown = ", ".join(queries[:MAX_LISTED])
    return shown + (f" and {len(queries) - MAX_LISTED} more" if len(queries) > MAX_LISTED else "")


def ordered(caveats) -> list[Caveat]:
    """Warnings first, then notes, each in the order found."""
    caveats = list(caveats)
    return [c for c in caveats if c.severity == WARNING] + [c for c in caveats if c.severity != WARNING]


def columns(caveats) -> dict[str, np.ndarray]:
    """The caveats as the table's columns (numpy, no pandas: the command line's lean path writes them)."""
    out = {name: np.array([str(getattr(c, name)) for c in caveats], dtype=object) for name in COLUMNS[:-1]}
    out["value"] = np.array([float(c.value) for c in caveats], dtype=np.float64)
    return out


def table(caveats) -> "pd.DataFrame":
    """The caveats as the declared table (:data:`COLUMNS`): warnings first, then in the order found."""
    import pandas as pd

    return pd.DataFrame(columns(ordered(caveats)), columns=list(COLUMNS))


def empty_table() -> "pd.DataFrame":
    return table([])


def raise_warnings(frame, stacklevel: int = 3) -> None:
    """Each caveat as an :class:`EvalguiWarning` (Python's users see them; a filter silences them)."""
    if frame is None:
        return
    for severity, message in zip(frame["severity"].tolist(), frame["message"].tolist()):
        warnings.warn(f"{severity}: {message}" if severity == WARNING else message, EvalguiWarning,
                      stacklevel=stacklevel)


# --------------------------------------------------------------------------- measures' depths

_DEPTH = re.compile(r"(?:@|_cut_|^P_|^recall_|^success_|^Rndcg_|^ndcg_cut_|_)(\d+)$")


@functools.lru_cache(maxsize=4096)
def depth_of(measure: str) -> int | None:
    """The depth a measure looks at (P@10, P_10, ndcg_cut_10: 10); None for AP, nDCG, Rprec..."""
    found = _DEPTH.search(str(measure))
    return int(found.group(1)) if found else None


@functools.lru_cache(maxsize=4096)
def judged_sensitive(measure: str) -> bool:
    """Whether an unjudged document counts as not relevant in the measure (most measures)."""
    return not _NOT_JUDGED_SENSITIVE.match(str(measure)) and not str(measure).startswith("iprec_at_recall_0.00")


# --------------------------------------------------------------------------- judged shares

def judged_share(ranking, depth: int | None, listed_before=None) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the share of the first ``depth`` ranked documents that the qrels list (all retrieved when
    ``depth`` is None), as ir_measures' Judged@k computes it (divided by min(k, retrieved)); and which queries
    count (those with results). ``listed_before``: :func:`listed_counts` of the ranking, when already made."""
    retrieved = ranking.num_ret
    has = (retrieved > 0) & ~ranking.missing
    if listed_before is None:
        listed_before = listed_counts(ranking)
    shown = retrieved if depth is None else np.minimum(retrieved, depth)
    starts = ranking.offsets[:-1]
    listed_ = listed_before[starts + shown] - listed_before[starts]
    share = np.divide(listed_, shown, out=np.full(len(shown), np.nan), where=shown > 0)
    return share, has


def listed_counts(ranking) -> np.ndarray:
    """How many of the ranked documents before each position the qrels list (one pass; then any depth's count
    of any query is a difference of two of these)."""
    from evalgui.core.ranked.ranking import NONPOOL

    return np.concatenate(([0], np.cumsum(ranking.rel != NONPOOL)))


def judged_caveats(run: str, ranking, measures: list[str], judged_below: float = JUDGED_BELOW,
                   judged_only: bool = False, lazy: bool = False) -> list[Caveat]:
    """Where less than ``judged_below`` of ``run``'s documents are judged, at the depths of the ``measures``
    (see the module's doc): at most two caveats per run, the shallowest depth that falls short and the
    deepest (which names the depths between). ``lazy``: each message is a function making it (for
    :func:`judged_summaries`, which makes only those it keeps)."""
    if judged_only or ranking is None or not len(ranking.rel):
        return []
    has = (ranking.num_ret > 0) & ~ranking.missing
    if not has.any():
        return []
    counts = listed_counts(ranking)
    return judged_from(run, measures, has, ranking.query_ids, int(ranking.num_ret[has].max()),
                       lambda depth: judged_share(ranking, depth, counts)[0], judged_below, lazy)


def judged_data(ranking, measures: list[str]):
    """What :func:`judged_from` needs of a ranking, small enough to keep after it is dropped (the preferences'
    runs): (has results, query ids, deepest, {depth: per-query share}); None when no measure is judged-sensitive
    or no query has results."""
    if ranking is None or not len(ranking.rel) or not any(judged_sensitive(m) for m in measures):
        return None
    has = (ranking.num_ret > 0) & ~ranking.missing
    if not has.any():
        return None
    counts = listed_counts(ranking)
    return has, ranking.query_ids, int(ranking.num_ret[has].max()), \
        {depth: judged_share(ranking, depth, counts)[0] for depth in judged_depths(measures)}


def judged_depths(measures: list[str]) -> list:
    """Every depth the judged-share check may look at for these measures (None: all retrieved)."""
    return sorted({d for m in measures if judged_sensitive(m)
                   for d in ((SHALLOW_DEPTH,) if depth_of(m) is None else (depth_of(m),))}) + [None]


def judged_from(run: str, measures: list[str], has: np.ndarray, query_ids: np.ndarray, deepest: int, share_at,
                judged_below: float = JUDGED_BELOW, lazy: bool = False) -> list[Caveat]:
    """:func:`judged_caveats` from each query's judged share at a depth (``share_at(depth)``, depth one of
    :func:`judged_depths` or None), whether it has results (``has``) and the run's deepest ranking."""
    sensitive = [m for m in measures if judged_sensitive(m)]
    if not sensitive or not has.any():
        return []
    by_depth: dict = {}
    for measure in sorted(sensitive, key=lambda m: depth_of(m) is None):
        depth = depth_of(measure)
        for d in ((SHALLOW_DEPTH, None) if depth is None else (depth,)):
            # depths past everything the run retrieved all see the same documents: one check
            d = None if d is None or d >= deepest else d
            by_depth.setdefault(d, []).append(measure)
    failing = []
    for depth, names in sorted(by_depth.items(), key=lambda item: (item[0] is None, item[0] or 0)):
        share = share_at(depth)
        mean = float(np.mean(share[has]))
        if mean < judged_below:
            failing.append((depth, list(dict.fromkeys(names)), mean, share))
    if not failing:
        return []
    chosen = [failing[0]] + ([failing[-1]] if len(failing) > 1 else [])
    n = int(has.sum())
    # The messages are made later: they keep these small arrays, never the ranking (a run's whole arrays).
    ids_with_results = query_ids[has]

    def message_of(k: int, depth, names, mean, share):
        def message() -> str:
            where = f"top {depth}" if depth is not None else f"{deepest:,} retrieved documents"
            labels = list(dict.fromkeys(label(m) for m in names))
            shown = ", ".join(labels[:4]) + (" and others" if len(labels) > 4 else "")
            worst = np.argsort(share[has], kind="stable")[:3]
            lowest = ", ".join(f"query {q} at {percent(v)}" for q, v in zip(ids_with_results[worst], share[has][worst]))
            where_text = f"in its {where}" if depth is not None else f"among all its {where}"
            text = (f"Only {percent(mean)} of the documents {run} ranks {where_text} are judged"
                    + (f" (average over {n} queries; lowest: {lowest})" if n > 1 else "")
                    + f". An unjudged document counts as not relevant, so {shown} may understate {run}.")
            between = failing[1:-1] if k == 1 else []
            if between:
                text += " Also: " + "; ".join(f"top {d} {percent(v)}" for d, _, v, _ in between) + "."
            return text + (" Check with a measure made for missing judgments (bpref, infAP) or evaluate judged "
                           "documents only (the option \"Judged documents only\", -J on the command line).")
        return message

    out = []
    for k, (depth, names, mean, share) in enumerate(chosen):
        # The words are put together only for a caveat that is said on its own (see judged_summaries).
        message = message_of(k, depth, names, mean, share)
        labels = list(dict.fromkeys(label(m) for m in names))
        shown = ", ".join(labels[:4]) + (" and others" if len(labels) > 4 else "")
        out.append(Caveat("judged", WARNING if mean < JUDGED_WARNING else NOTE, message if lazy else message(), mean,
                          run=run, measure=names[0] if len(names) == 1 else "",
                          group=("judged", f"rank in their top {depth}" if depth is not None else "retrieved", shown)))
    return out


def judged_summaries(caveats: list[Caveat], judged_below: float = JUDGED_BELOW) -> list[Caveat]:
    """The judged caveats, those of more than MAX_RUN_NOTES runs at one depth said once (the runs with the
    lowest shares named), so that thirty runs judged alike make one line, not thirty."""
    groups: dict = {}
    for caveat in caveats:
        if caveat.kind == "judged" and caveat.group:
            groups.setdefault(caveat.group, []).append(caveat)
    out = []
    for caveat in caveats:
        same = groups.get(caveat.group) if caveat.kind == "judged" and caveat.group else None
        if same is None or len(same) <= MAX_RUN_NOTES:
            if callable(caveat.message):
                caveat.message = caveat.message()
            out.append(caveat)
        elif caveat is same[0]:
            _, where, shown = caveat.group
            shares = sorted(same, key=lambda c: c.value)
            lowest = ", ".join(f"{c.run} {percent(c.value)}" for c in shares[:3])
            severity = WARNING if any(c.severity == WARNING for c in same) else NOTE
            out.append(Caveat("judged", severity,
                              f"{len(same)} runs have less than {percent(judged_below)} of the documents they "
                              f"{where} judged: from {percent(shares[0].value)} to "
                              f"{percent(shares[-1].value)} (lowest: {lowest}). An unjudged document counts as not "
                              f"relevant, so {shown} may understate these runs, the more the fewer are judged. Check "
                              "with a measure made for missing judgments (bpref, infAP) or evaluate judged documents "
                              "only (the option \"Judged documents only\", -J on the command line).",
                              shares[0].value, measure=caveat.measure))
    return out


# --------------------------------------------------------------------------- ties

def tie_groups(ranking) -> np.ndarray | None:
    """The queries (indices, ascending) holding tied documents (same score) judged differently; None when no
    tie can change a value (the tie passes are skipped). Only the tied positions are looked at past the first
    comparison of neighbouring scores."""
    rows = ranking.run_rows
    run = ranking.run
    if rows is None or run is None or len(rows) < 2:
        return None
    placeholders = bool(ranking.missing.any())
    scores = np.asarray(run.score)[np.maximum(rows, 0) if placeholders else rows]
    tied = np.flatnonzero(scores[1:] == scores[:-1])           # position i ties with i + 1
    if not len(tied):                                          # no tie at all (the usual case)
        return None
    query = np.searchsorted(ranking.offsets, tied, side="right") - 1
    # a tie within one query, between documents judged differently (a group is mixed iff two neighbours differ)
    keep = (query == np.searchsorted(ranking.offsets, tied + 1, side="right") - 1) & \
        (ranking.rel[tied] != ranking.rel[tied + 1])
    if placeholders:
        keep &= (rows[tied] >= 0) & (rows[tied + 1] >= 0)
    return np.unique(query[keep]) if keep.any() else None


def score_groups(ranking) -> np.ndarray:
    """Each ranked document's tie group: same query, same score."""
    rows = ranking.run_rows
    scores = np.asarray(ranking.run.score)[np.maximum(rows, 0)]
    query = np.repeat(np.arange(ranking.n_queries), ranking.num_ret)
    new_group = np.ones(len(rows), dtype=bool)
    new_group[1:] = (scores[1:] != scores[:-1]) | (query[1:] != query[:-1]) | (rows[1:] < 0) | (rows[:-1] < 0)
    return np.cumsum(new_group) - 1


def some_queries(ranking, queries: np.ndarray):
    """The ranking of only these queries (indices, ascending): the tie passes evaluate no other."""
    from dataclasses import replace

    counts = ranking.num_ret[queries]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    at = np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts) + np.repeat(ranking.offsets[queries], counts)
    return replace(ranking, query_ids=ranking.query_ids[queries], offsets=offsets, rel=ranking.rel[at],
                   rel_levels=ranking.rel_levels[queries], missing=ranking.missing[queries],
                   run_rows=ranking.run_rows[at]), at


def reordered(ranking, group: np.ndarray, best: bool):
    """The ranking with every tie group's documents in the best (highest grade first) or the worst order."""
    from dataclasses import replace

    key = -ranking.rel if best else ranking.rel
    order = np.lexsort((key, group))
    return replace(ranking, rel=ranking.rel[order], run_rows=ranking.run_rows[order])


def tie_ranges(ranking, requests, options) -> tuple[np.ndarray, dict] | None:
    """The queries whose ties change a value (indices into the ranking's), and per output column their values
    in the worst and in the best order of the tied documents; None when no tie changes anything. Only those
    queries are evaluated again, twice."""
    from evalgui.core.ranked.diversity import GROUP as DIVERSITY

    queries = tie_groups(ranking)
    if queries is None:
        return None
    tied, _ = some_queries(ranking, queries)
    group = score_groups(tied)
    # Diversity measures' best order depends on subtopics, not on grades alone: not ranged here.
    requests = [r for r in requests if r.measure.group != DIVERSITY and r.measure.aggregate == "mean"
                and r.measure.name not in ("relstring", "runid")]
    passes = [request_passes(reordered(tied, group, best), requests, options) for best in (False, True)]
    return queries, {name: (passes[0][name], passes[1][name]) for name in passes[0]}


def request_passes(ranking, requests, options) -> dict[str, np.ndarray]:
    from evalgui.core.ranked.evaluate import request_values

    by_level: dict = {}
    out = {}
    for request in requests:
        values = request_values(ranking, request, options, by_level)
        for j, name in enumerate(request.names):
            out[name] = values[:, j]
    return out


def tie_caveats(run: str, ranking, requests, options, per_query: dict[str, np.ndarray]) -> list[Caveat]:
    """One caveat per measure whose mean over the queries changes with the order of ``run``'s tied documents:
    value = best − worst; ``per_query``: each measure's values as evaluated (trec_eval's order)."""
    found = tie_ranges(ranking, requests, options)
    if not found:
        return []
    queries, ranges = found
    return ties_from(run, ranking.query_ids, queries, ranges, per_query)


def ties_from(run: str, query_ids: np.ndarray, queries: np.ndarray, ranges: dict, per_query: dict) -> list[Caveat]:
    """:func:`tie_caveats` from :func:`tie_ranges`' queries (ascending indices into ``query_ids``) and ranges."""
    out = []
    for name, (worst, best) in ranges.items():
        if name not in per_query:
            continue
        actual = np.asarray(per_query[name], dtype=np.float64)
        low, high = (float((actual.sum() - actual[queries].sum() + ends.sum()) / len(actual)) for ends in (worst, best))
        if not (np.isfinite(low) and np.isfinite(high)) or abs(high - low) < TIE_NEGLIGIBLE:
            continue
        changed = queries[np.abs(best - worst) > 1e-12]
        low, high = min(low, high), max(low, high)
        message = (f"{run} gives some documents the same score, and {label(name)} depends on their order: "
                   f"{num(float(actual.mean()))} as evaluated (ties broken by document id, as trec_eval does), "
                   f"between {num(low)} and {num(high)} over every order of the tied documents ({len(changed)} "
                   f"quer{'y' if len(changed) == 1 else 'ies'}: {listed(query_ids[changed])}). "
                   "Break the ties in the run itself (distinct scores) before comparing.")
        out.append(Caveat("ties", NOTE, message, high - low, run=run, measure=name))
    return out


# --------------------------------------------------------------------------- a run's checks, as it passes

@dataclass
class RunChecks:
    """Judged shares, tie ranges and coverage of each run, computed while its ranking is at hand (the
    rankings are not kept): :meth:`add` per evaluated run, :attr:`caveats` at the end."""

    options: object = None
    judged_below: float = JUDGED_BELOW
    caveats: list = field(default_factory=list)
    no_relevant: list = field(default_factory=list)
    universe: int = 0
    parts: dict = field(default_factory=dict)     # a run evaluated by query: what its parts' rankings said

    def add_part(self, name: str, evaluation, requests=None) -> None:
        """One part of a run evaluated by query (``evaluate_run_by_query``'s ``on_part``), its ranking at hand:
        its queries' judged shares, tie ranges, missing queries and queries without relevant documents, which
        :meth:`add` says as it would for the run evaluated whole."""
        ranking = evaluation.ranking
        if ranking is None:
            return
        names = [c.name for c in evaluation.columns]
        got = self.parts.setdefault(name, {"ids": [], "has": [], "shares": {}, "deepest": 0, "ties": [],
                                           "missing": [], "empty": [], "level": ranking.relevance_level})
        has = (ranking.num_ret > 0) & ~ranking.missing
        got["ids"].append(ranking.query_ids)
        got["has"].append(has)
        got["missing"].append(ranking.missing)
        got["empty"].append(ranking.num_rel == 0)
        if has.any():
            got["deepest"] = max(got["deepest"], int(ranking.num_ret[has].max()))
        counts = listed_counts(ranking)
        for depth in judged_depths(names):
            got["shares"].setdefault(depth, []).append(judged_share(ranking, depth, counts)[0])
        if self.options is not None:
            if requests is None:
                requests = list(dict.fromkeys(c.request for c in evaluation.columns))
            found = tie_ranges(ranking, requests, self.options)
            if found:
                got["ties"].append((ranking.query_ids[found[0]], found[1]))

    def _add_parts(self, name: str, evaluation) -> None:
        """:meth:`add` for a run evaluated by query, from what :meth:`add_part` kept, in the whole run's query
        order (so every sum and mean is the one of the run evaluated whole)."""
        import pandas as pd

        got = self.parts.pop(name)
        names = [c.name for c in evaluation.columns]
        where = pd.Index(evaluation.query_ids)
        ids = np.concatenate(got["ids"]) if got["ids"] else np.array([], dtype=object)
        order = np.argsort(where.get_indexer(ids), kind="stable")
        ids = ids[order]

        def whole(arrays):
            return np.concatenate(arrays)[order]

        options = self.options
        if len(ids) and not bool(getattr(options, "judged_only", False)):
            shares = {depth: whole(arrays) for depth, arrays in got["shares"].items()}
            self.caveats += judged_from(name, names, whole(got["has"]), ids, got["deepest"], shares.__getitem__,
                                        self.judged_below, lazy=True)
        if got["ties"] and evaluation.per_query.shape[0]:
            positions = where.get_indexer(np.concatenate([t for t, _ in got["ties"]]))
            tied = np.argsort(positions, kind="stable")
            ranges = {column: tuple(np.concatenate([r[column][k] for _, r in got["ties"]])[tied] for k in (0, 1))
                      for column in got["ties"][0][1]}
            per_query = {column: evaluation.per_query[:, j] for j, column in enumerate(names)}
            self.caveats += ties_from(name, evaluation.query_ids, positions[tied], ranges, per_query)
        missing = whole(got["missing"]) if len(ids) else None
        self.caveats += coverage_of_run(name, evaluation, options, missing) + \
            diversity_reference(name, evaluation, options)
        if not self.no_relevant and len(ids):
            self.no_relevant = [ids[whole(got["empty"])].tolist(), got["level"], len(ids)]

    def add(self, name: str, evaluation, requests=None) -> None:
        ranking = evaluation.ranking
        if ranking is None:
            if name in self.parts:
                self._add_parts(name, evaluation)
            return
        names = [c.name for c in evaluation.columns]
        options = self.options
        self.caveats += judged_caveats(name, ranking, names, self.judged_below,
                                       bool(getattr(options, "judged_only", False)), lazy=True)
        if requests is None:
            requests = list(dict.fromkeys(c.request for c in evaluation.columns))
        if options is not None and evaluation.per_query.shape[0]:
            per_query = {column: evaluation.per_query[:, j] for j, column in enumerate(names)}
            self.caveats += tie_caveats(name, ranking, requests, options, per_query)
        self.caveats += coverage_of_run(name, evaluation, options) + diversity_reference(name, evaluation, options)
        if not self.no_relevant and ranking.n_queries:
            empty = ranking.num_rel == 0
            self.no_relevant = [ranking.query_ids[empty].tolist(), ranking.relevance_level, ranking.n_queries]

    def finish(self) -> list[Caveat]:
        out = judged_summaries(self.caveats, self.judged_below)
        if self.no_relevant and self.no_relevant[0]:
            queries, level, n = self.no_relevant
            out.append(Caveat("coverage", NOTE,
                              f"{len(queries)} of {n} judged queries have no document judged relevant (grade "
                              f"{level} or more): {listed(queries)}. Most measures score 0 on them for every run, "
                              "which pulls every mean down and cannot tell runs apart; papers usually leave such "
                              "queries out.", float(len(queries))))
        return out


def coverage_of_run(name: str, evaluation, options, missing=None) -> list[Caveat]:
    """Judged queries the run has no results for, and its means under the other query policy (a mean over the
    queries it has, or over every judged query with 0 for the missing ones). ``missing``: with -c, which of
    the evaluation's queries the run lacks (default: its ranking's)."""
    complete = bool(getattr(options, "complete", False))
    if complete:
        missing = evaluation.ranking.missing if missing is None else missing
        n_missing = int(missing.sum())
        absent = np.asarray(evaluation.query_ids)[missing].tolist()
    else:
        absent = list(evaluation.absent_topics)
        n_missing = len(absent)
    if not n_missing:
        return []
    n = evaluation.per_query.shape[0]
    out = []
    mean_columns = [(j, c) for j, c in enumerate(evaluation.columns) if c.measure.aggregate == "mean"]
    values = evaluation.per_query
    changes = []
    every_query = []
    for j, column in mean_columns[:60]:
        column_values = values[:, j]
        if complete:
            here = float(np.mean(column_values))
            other = float(np.mean(column_values[~missing])) if (~missing).any() else float("nan")
        else:
            here = float(np.mean(column_values)) if n else float("nan")
            other = float(np.sum(column_values) / (n + n_missing))
        changes.append((column.name, here, other))
        if not complete and column.measure.group in _EVERY_QUERY_GROUPS:
            every_query.append((column.name, other))
    shown = "; ".join(f"{label(m)} {num(a)} → {num(b)}" for m, a, b in changes[:3])
    if complete:
        message = (f"{name} has no results for {n_missing} judged quer{'y' if n_missing == 1 else 'ies'} "
                   f"({listed(absent)}), scored 0 ({ZERO}). Averaged over only the queries it answered, its means "
                   f"would be: {shown}.")
    else:
        message = (f"{name} has no results for {n_missing} judged quer{'y' if n_missing == 1 else 'ies'} "
                   f"({listed(absent)}), left out of its means, so they are over {n} queries and not comparable "
                   f"with a run that has all of them. Scored as 0 over every judged query ({ZERO}), they would be: "
                   f"{shown}.")
    out.append(Caveat("coverage", NOTE, message, float(n_missing), run=name))
    for measure, reference in every_query:
        out.append(Caveat("coverage", NOTE,
                          f"gdeval averages {label(measure)} over every judged query, so for {name} it reports "
                          f"{num(reference)}, not the mean over the {n} queries {name} answered.", reference,
                          run=name, measure=measure))
    return out


def diversity_reference(name: str, evaluation, options) -> list[Caveat]:
    """ndeval averages its measures over every judged query (as -c does)."""
    from evalgui.core.ranked.diversity import GROUP as DIVERSITY

    if bool(getattr(options, "complete", False)) or not evaluation.absent_topics:
        return []
    n = evaluation.per_query.shape[0]
    total = n + len(evaluation.absent_topics)
    out = []
    for j, column in enumerate(evaluation.columns):
        if column.measure.group == DIVERSITY and column.measure.aggregate == "mean":
            reference = float(np.sum(evaluation.per_query[:, j]) / total)
            out.append(Caveat("coverage", NOTE,
                              f"ndeval averages {label(column.name)} over every judged query, so for {name} it "
                              f"reports {num(reference)}, not the mean over the {n} queries {name} answered.",
                              reference, run=name, measure=column.name))
    return out


# --------------------------------------------------------------------------- how many queries

def mdd_unit(queries, alpha) -> np.ndarray:
    """The minimum detectable difference for sd = 1 (it scales with the sd) for each number of queries and α
    (``alpha``: one, or one per element): one exact solve per distinct pair of them."""
    from evalgui.core.stats.power import minimum_detectable_difference

    queries = np.asarray(queries, dtype=np.int64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), queries.shape)
    out = np.full(len(queries), np.nan)
    valid = queries >= 2
    if valid.any():
        keys, inverse = np.unique(np.stack([queries[valid], alpha[valid]]), axis=1, return_inverse=True)
        solved = np.array([minimum_detectable_difference(1.0, int(n), alpha=float(a), power=POWER) for n, a in keys.T])
        out[valid] = solved[np.ravel(inverse)]
    return out


def queries_needed(effect, alpha, power: float = POWER, cap: int = 10**7) -> np.ndarray:
    """Vectorised topic-set size: for each effect (|difference| / sd) the fewest queries whose two-sided paired
    t test at ``alpha`` (one, or one per effect) has ``power``, as
    :func:`evalgui.core.stats.power.topic_set_size` finds it, all at once; ``cap`` + 1 where more than ``cap``
    would be needed. The search starts from the normal approximation's size, so few exact steps are needed."""
    from scipy import stats

    from evalgui.core.stats.power import paired_t_power

    effect = np.asarray(effect, dtype=np.float64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), effect.shape)
    if not len(effect):
        return np.zeros(0, dtype=np.int64)

    def reaches(n):
        with np.errstate(all="ignore"):
            return np.where(n >= 2, paired_t_power(np.maximum(n, 2), effect, 1.0, alpha) >= power, False)

    z = stats.norm.isf(alpha / 2)
    with np.errstate(all="ignore"):
        guess = ((z + stats.norm.isf(1 - power)) / effect) ** 2 + z ** 2 / 2
    guess = np.nan_to_num(guess, nan=cap, posinf=cap)
    # The exact size lies within two of the approximation (checked from 2 to 10^7 queries, α down to 10^-4): a
    # bracket of ±3 is widened below where it is not one, and halved in two or three exact steps.
    low = np.clip(np.floor(guess) - 3, 1, cap).astype(np.int64)            # a size that falls short (or 1)
    high = np.clip(np.ceil(guess) + 3, 2, cap + 1).astype(np.int64)        # one that reaches the power
    for _ in range(64):
        short = ~reaches(high) & (high <= cap)
        if not short.any():
            break
        low, high = np.where(short, high, low), np.where(short, np.minimum(high * 2, cap + 1), high)
    for _ in range(64):
        early = (low > 1) & reaches(low)
        if not early.any():
            break
        high, low = np.where(early, low, high), np.where(early, np.maximum(low // 2, 1), low)
    over = ~reaches(high)
    for _ in range(64):
        gap = (high - low > 1) & ~over
        if not gap.any():
            break
        middle = (low + high) // 2
        hit = reaches(middle)
        high, low = np.where(gap & hit, middle, high), np.where(gap & ~hit, middle, low)
    return np.where(over, cap + 1, high)


def queries_caveats(pairs, diffs, sds, counts, alpha: float, correction: str, m, significant, measure,
                    what: str = "difference") -> list[Caveat]:
    """For each pair (``pairs``: (run a, run b)), a caveat when its observed ``diffs`` is smaller than the minimum
    detectable difference at ``alpha`` (also said at alpha/m with a correction). ``m`` and ``measure``: one,
    or one per pair (all of a comparison's measures are solved together)."""
    diffs, sds, counts = (np.asarray(x, dtype=np.float64) for x in (diffs, sds, counts))
    n_pairs = len(diffs)
    m = np.broadcast_to(np.asarray(m, dtype=np.int64), (n_pairs,))
    measures = [measure] * n_pairs if isinstance(measure, str) else list(measure)
    significant = np.zeros(n_pairs, bool) if significant is None else np.asarray(significant, dtype=bool)
    corrected = correction not in ("none", "", None)
    mdd = sds * mdd_unit(counts, alpha)
    small = np.isfinite(mdd) & (sds > 0) & (np.abs(diffs) < mdd)
    # Many untested-looking small differences of one measure are said once, not pair by pair.
    names = np.array(measures, dtype=object)
    quiet = small & ~significant
    summarised = np.zeros(n_pairs, dtype=bool)
    summaries = []
    for name in dict.fromkeys(names[quiet].tolist()):
        these = quiet & (names == name)
        if int(these.sum()) > MAX_PAIR_NOTES:
            summarised |= these
            summaries.append(summary_caveat(name, these, diffs, sds, mdd, counts, alpha, corrected, m, what))
    at = np.flatnonzero(small & ~summarised)
    if not len(at):
        return summaries
    with_m = corrected & (m[at] > 1)
    alpha_m = alpha / np.maximum(m[at], 1)
    mdd_m = np.where(with_m, sds[at] * mdd_unit(counts[at], alpha_m), np.nan)
    effects = np.abs(diffs[at]) / sds[at]
    both = queries_needed(np.concatenate([effects, effects[with_m]]), np.concatenate([np.full(len(at), alpha),
                                                                                     alpha_m[with_m]]))
    needed = both[:len(at)]
    needed_m = np.full(len(at), -1, dtype=np.int64)
    needed_m[with_m] = both[len(at):]

    def many(n) -> str:
        return "more than 10 million" if n > 10**7 else f"about {int(n):,}"

    out = []
    for k, i in enumerate(at):
        a, b = pairs[i]
        called = bool(significant[i])
        text = (f"On {label(measures[i])}, the {what} between {a} and {b} ({num(diffs[i])}) is smaller than the "
                f"smallest difference a paired t test on these {int(counts[i])} queries reliably detects (power "
                f"{percent(POWER)}): {num(mdd[i])} at α = {alpha:g}")
        if with_m[k]:
            text += (f", {num(mdd_m[k])} at α/{m[i]} = {alpha_m[k]:.4g} for the correction over {m[i]} pairs")
        text += f". Detecting a true {what} this small would take {many(needed[k])} queries"
        if with_m[k]:
            text += f" ({many(needed_m[k])} with the correction)"
        text += "."
        if called:
            text += (" The test called it significant anyway: with this little power, a significant result "
                     "often overstates the true difference, or is a fluke. Treat it as tentative.")
        out.append(Caveat("queries", WARNING if called else NOTE, text, float(mdd[i]), run=str(a), other_run=str(b),
                          measure=measures[i]))
    return out + summaries


def summary_caveat(measure: str, these: np.ndarray, diffs, sds, mdd, counts, alpha: float, corrected: bool, m,
                   what: str) -> Caveat:
    """One note for the many pairs of a measure whose difference is below the detectable one (none called
    significant): how many, the detectable differences' range, and the queries the typical one would need."""
    n = int(these.sum())
    tested = int(np.asarray(m)[these][0])
    low, high = float(np.min(mdd[these])), float(np.max(mdd[these]))
    effects = np.abs(diffs[these]) / sds[these]
    typical = float(np.median(effects))
    needed = int(queries_needed(np.array([typical]), alpha)[0]) if typical > 0 else 0
    queries = int(np.median(counts[these]))
    span = num(low) if num(low) == num(high) else f"{num(low)} to {num(high)}"
    text = (f"On {label(measure)}, {n} of the {tested} pairs of runs differ by less than a paired t test on these "
            f"{queries} queries reliably detects (power {percent(POWER)}): the smallest detectable {what} is {span} "
            f"at α = {alpha:g}"
            + (", larger still with the correction" if corrected else "")
            + ". None of them was called significant, and none should be read as 'no difference': these queries "
              "cannot tell. ")
    text += (f"Detecting the typical one would take about {needed:,} queries." if needed and needed <= 10**7 else
             "Detecting most of them would take more than 10 million queries.")
    return Caveat("queries", NOTE, text, float(np.median(mdd[these])), measure=measure)


@dataclass
class PairBatch:
    """Tested pairs of every measure, gathered so that their power is solved in one vectorised pass."""

    parts: list = field(default_factory=list)

    def add(self, pairs, diffs, sds, counts, m: int, significant, measure: str) -> None:
        self.parts.append((list(pairs), diffs, sds, counts, np.full(len(pairs), m), significant,
                           [measure] * len(pairs)))

    def caveats(self, alpha: float, correction: str, what: str = "difference") -> list[Caveat]:
        if not self.parts:
            return []
        pairs, diffs, sds, counts, ms, significant, measures = zip(*self.parts)
        return queries_caveats(sum(pairs, []), np.concatenate(diffs), np.concatenate(sds), np.concatenate(counts),
                               alpha, correction, np.concatenate(ms), np.concatenate(significant),
                               sum(measures, []), what)


def multiple_caveat(measure: str, n_pairs: int, alpha: float) -> list[Caveat]:
    if n_pairs < 3:
        return []
    chance = 1 - (1 - alpha) ** n_pairs
    return [Caveat("multiple_comparisons", WARNING,
                   f"{n_pairs} pairs of runs were tested on {label(measure)} with no correction for multiple "
                   f"comparisons. At α = {alpha:g}, if no run truly differed, about {n_pairs * alpha:.1f} of them "
                   f"would still look significant by chance (a {percent(chance)} chance of at least one). Choose a "
                   "correction (Holm keeps the family-wise error at α) or compare against a baseline only.",
                   float(n_pairs), measure=measure)]


# --------------------------------------------------------------------------- per workflow

def compare_caveats(comparison, checks: RunChecks | None = None, scores=None) -> list[Caveat]:
    """Caveats of a significance comparison (the engine's Comparison), with the runs' checks when it evaluated
    runs, and the unaligned per-query ``scores`` (tidy) for the other query policy's means."""
    options = comparison.options
    alpha = options.alpha
    correction = options.effective_correction
    table = comparison.table
    out: list[Caveat] = []
    batch = PairBatch()
    for measure in comparison.measures:
        rows = table[table["measure"] == measure]
        if not len(rows):
            continue
        wide = comparison.per_query.get(measure)
        m = len(rows)
        if correction == "none":
            out += multiple_caveat(measure, m, alpha)
        if wide is None or not len(wide):
            continue
        values = wide.to_numpy(dtype=np.float64)
        where = {run: j for j, run in enumerate(wide.columns)}
        ia = rows["run_a"].map(where).to_numpy()
        ib = rows["run_b"].map(where).to_numpy()
        known = ~(np.isnan(ia.astype(float)) | np.isnan(ib.astype(float)))
        ia, ib = ia[known].astype(np.int64), ib[known].astype(np.int64)
        rows = rows[known]
        differences = values[:, ia] - values[:, ib]
        finite = np.isfinite(differences)
        counts = finite.sum(axis=0)
        with np.errstate(all="ignore"):
            sds = np.nanstd(differences, axis=0, ddof=1) if len(differences) > 1 else np.full(len(ia), np.nan)
        batch.add(list(zip(rows["run_a"], rows["run_b"])), rows["diff"].to_numpy(dtype=np.float64), sds, counts, m,
                  rows["significant"].to_numpy(dtype=bool), measure)
    out += batch.caveats(alpha, correction)
    out += compare_coverage(comparison, scores)
    if checks is not None:
        out += [c for c in checks.finish() if c.kind != "coverage" or c.run == ""]
    return out


def compare_coverage(comparison, scores) -> list[Caveat]:
    """Runs lacking queries of a comparison: the run's mean over the queries compared, and under the other
    policy (over every query it has with the shared policy; with 0 for the missing ones with -c)."""
    from evalgui.core import tidy

    out = []
    for measure, query_set in comparison.query_sets.items():
        if not query_set.missing:
            continue
        wide = comparison.per_query.get(measure)
        for run, lacking in query_set.missing.items():
            if wide is None or run not in wide.columns:
                continue
            compared = float(np.nanmean(wide[run].to_numpy(dtype=np.float64))) if len(wide) else float("nan")
            other = float("nan")
            if scores is not None and len(scores):
                mine = scores[(scores[tidy.RUN] == run).to_numpy() & (scores[tidy.MEASURE] == measure).to_numpy()]
                own = mine[tidy.VALUE].to_numpy(dtype=np.float64)
                if query_set.policy == "shared" and len(own):
                    other = float(np.nanmean(own))
                elif len(own):
                    other = float(np.nansum(own) / max(query_set.universe, 1))
            if query_set.policy == "shared":
                text = (f"{run} has no {label(measure)} value for {len(lacking)} quer"
                        f"{'y' if len(lacking) == 1 else 'ies'} ({listed(lacking)}), so every run is compared on "
                        f"the {len(query_set.queries)} queries they all have, where {run}'s mean is {num(compared)}")
                text += (f" (over all the queries it has, {num(other)})." if other == other else ".")
                text += f" Scoring missing queries as 0 ({ZERO}) compares over every judged query instead."
            else:
                text = (f"{run} has no {label(measure)} value for {len(lacking)} quer"
                        f"{'y' if len(lacking) == 1 else 'ies'} ({listed(lacking)}), scored 0 here ({ZERO}): its "
                        f"mean is {num(compared)}")
                text += (f"; over only the queries it has, it would be {num(other)}." if other == other else ".")
            out.append(Caveat("coverage", NOTE, text, float(len(lacking)), run=str(run), measure=measure))
    return out


def preference_caveats(result, tested, request) -> list[Caveat]:
    """Caveats of a preference outcome: the runs' judged shares (kept by the workflow's check as each run was
    ranked); tested, uncorrected pairs and preferences below the detectable difference."""
    # Runs lacking queries are the outcome's notes already (no other query policy to compare with).
    out: list[Caveat] = []
    names = list(result.run_names)
    judged_below = getattr(request, "judged_below", 100 * JUDGED_BELOW) / 100
    judged = []
    for name, data in zip(names, getattr(result, "checks", None) or []):
        if data is not None:
            has, query_ids, deepest, shares = data
            judged += judged_from(name, list(result.measures), has, query_ids, deepest, shares.__getitem__,
                                  judged_below, lazy=True)
    out += judged_summaries(judged, judged_below)
    if tested is None:
        return out
    options = tested.options
    alpha, correction = options.alpha, options.effective_correction
    stored = {(names[a], names[b]): k for k, (a, b) in enumerate(zip(result.pair_a.tolist(), result.pair_b.tolist()))}
    batch = PairBatch()
    for measure in tested.measures:
        rows = tested.table[tested.table["measure"] == measure]
        m = len(rows)
        if not m:
            continue
        if correction == "none":
            out += multiple_caveat(measure, m, alpha)
        pairs = list(zip(rows["run_a"], rows["run_b"]))
        index = np.array([stored.get((a, b), stored.get((b, a), -1)) for a, b in pairs], dtype=np.int64)
        sign = np.array([1.0 if (a, b) in stored else -1.0 for a, b in pairs])
        keep = index >= 0
        values = result.per_query[measure][index[keep]] * sign[keep, None]
        with np.errstate(all="ignore"):
            sds = np.std(values, axis=1, ddof=1) if values.shape[1] > 1 else np.full(int(keep.sum()), np.nan)
        batch.add([p for p, k in zip(pairs, keep) if k], rows["preference"].to_numpy(np.float64)[keep], sds,
                  np.full(int(keep.sum()), values.shape[1]), m, rows["significant"].to_numpy(dtype=bool)[keep], measure)
    return out + batch.caveats(alpha, correction, what="mean preference")


def metaeval_caveats(outcome, checks: RunChecks | None = None) -> list[Caveat]:
    """Which measure did best in the experiment (the ``measure`` kind), plus the runs' checks."""
    out = best_measure(getattr(outcome, "result", None), outcome.tables.get("table"))
    if checks is not None:
        out += checks.finish()
    return out


def best_measure(result, frame) -> list[Caveat]:
    import pandas as pd

    if frame is not None and len(frame) and {"measure_a", "measure_b", "pearson"} <= set(frame.columns):
        return most_agreeing(pd.DataFrame(frame))
    if frame is None or not len(frame) or "measure" not in frame.columns:
        return []
    frame = pd.DataFrame(frame)
    if frame["measure"].nunique() < 2:
        return []
    columns = set(frame.columns)
    if "discriminative_power" in columns:
        score = frame.groupby("measure", sort=False)["discriminative_power"].mean()
        best = score.idxmax()
        others = "; ".join(f"{label(m)} {v:.0f} %" for m, v in score.items() if m != best)
        text = (f"Of the measures compared, {label(best)} was the most discriminative on these runs: "
                f"{score[best]:.0f} % of the pairs of runs differ significantly with it ({others}). A more "
                "discriminative measure needs fewer queries to tell runs apart.")
        return [Caveat("measure", NOTE, text, float(score[best]), measure=str(best))]
    if "error_rate" in columns:
        largest = frame[frame["set_size"] == frame["set_size"].max()] if "set_size" in columns else frame
        score = largest.groupby("measure", sort=False)["error_rate"].mean()
        best = score.idxmin()
        others = "; ".join(f"{label(m)} {v:.1f} %" for m, v in score.items() if m != best)
        size = f" with {int(largest['set_size'].iloc[0])} queries" if "set_size" in columns else ""
        text = (f"Of the measures compared, {label(best)} was the most stable on these runs: its error rate"
                f"{size} is {score[best]:.1f} % ({others}); a lower error rate means two query sets less often "
                "disagree about which run is better.")
        return [Caveat("measure", NOTE, text, float(score[best]), measure=str(best))]
    if "kendall_tau" in columns and "fraction" in columns:
        hardest = frame[frame["fraction"] == frame["fraction"].max()]
        score = hardest.groupby("measure", sort=False)["kendall_tau"].mean()
        best = score.idxmax()
        others = "; ".join(f"{label(m)} {v:.2f}" for m, v in score.items() if m != best)
        text = (f"Of the measures compared, {label(best)} kept the ranking of the runs best when "
                f"{hardest['fraction'].iloc[0]:.0%} of the judgments were removed: Kendall's τ {score[best]:.2f} "
                f"({others}). It is the safest choice when judgments are incomplete.")
        return [Caveat("measure", NOTE, text, float(score[best]), measure=str(best))]
    return []


def most_agreeing(frame) -> list[Caveat]:
    """The agreement experiment's measure that agrees most with the others (three measures or more): the mean
    Pearson correlation of its per-query differences between runs with each other measure's."""
    others = frame[frame["measure_a"] != frame["measure_b"]]
    score = others.groupby("measure_a", sort=False)["pearson"].mean().dropna()
    if len(score) < 3:
        return []
    best, least = score.idxmax(), score.idxmin()
    shown = "; ".join(f"{label(m)} {v:.2f}" for m, v in score.items() if m != best)
    text = (f"Of the measures compared, {label(best)} agreed most with the others on these runs: the correlation "
            f"of its per-query differences between runs with theirs is {score[best]:.2f} on average ({shown}). "
            f"Measures that agree tell the same story about the runs; the one that agrees least ({label(least)}) "
            "sees something the others miss, or is noisier.")
    return [Caveat("measure", NOTE, text, float(score[best]), measure=str(best))]


def source_caveats(source, judged_below: float = JUDGED_BELOW) -> list[Caveat]:
    """The judged shares and tie ranges of a Meta-evaluation's ranked runs (None: it read a scores table)."""
    if source is None:
        return []
    options = source.options
    judged_only = bool(getattr(options, "judged_only", False))
    measures = [c.name for c in source.columns]
    requests = list(dict.fromkeys(c.request for c in source.columns))
    out, ties = [], []
    for name, prepared in zip(source.systems, source._prepared):
        ranking = prepared.ranking
        out += judged_caveats(name, ranking, measures, judged_below, judged_only=judged_only, lazy=True)
        if requests and tie_groups(ranking) is not None:       # only a run whose ties change a value: evaluated
            ties += tie_caveats(name, ranking, requests, options, request_passes(ranking, requests, options))
    return judged_summaries(out, judged_below) + ties

