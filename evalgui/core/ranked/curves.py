"""Data for the ranked-retrieval workspace: precision-recall curves, per-query differences, drill-down.

Pure numpy / pandas / pyarrow functions, meant to run in the GUI's background
worker. They read the :class:`~evalgui.core.ranked.ranking.Ranking` an
evaluation already built (``RunEvaluation.ranking``), so nothing is ranked twice.

* :func:`pr_curves` -- interpolated (trec_eval's 11 points) and uninterpolated
  precision-recall curves per query, and their means over queries.
* :func:`per_query_differences` -- every run minus a baseline, query by query.
* :func:`drill_down` / :func:`drill_down_rankings` -- two runs' rankings of one
  query side by side, with judgments and each document's rank in the other run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from evalgui.core import tidy
from evalgui.core.arrow import codes_of
from evalgui.core.data import Qrels, Run, byte_sorted
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.sums import query_mean
from evalgui.core.ranked.measures import RECALL_POINTS, interpolated_precision
from evalgui.core.ranked.ranking import Ranking, prepare, tie_order

ALL = tidy.ALL_QUERIES              # the query id of rows averaged over queries (as in evaluate())
INTERPOLATED = "interpolated"
UNINTERPOLATED = "uninterpolated"
RELEVANT, NON_RELEVANT, UNJUDGED_TEXT = "relevant", "non-relevant", "unjudged"
HELPED, HURT, TIED = "helped", "hurt", "tied"

PR_COLUMNS = ["query", "kind", "recall", "precision", "rank"]
DIFF_COLUMNS = ["run", "query", "baseline_value", "value", "difference", "outcome"]
SIDE_COLUMNS = ["rank", "doc", "score", "relevance", "judgment", "rank_in_other"]


# ---------------------------------------------------------------------------
# Precision-recall curves
# ---------------------------------------------------------------------------

def pr_curves(ranking: Ranking, *, grid_points: int = 101, state: JobState | None = None) -> pd.DataFrame:
    """Precision-recall curves of every query of one evaluated run, and their means.

    Returns one tidy DataFrame with columns ``query, kind, recall, precision, rank``
    (``query == "all"`` for the means; ``kind`` is ``"interpolated"`` or
    ``"uninterpolated"``; ``rank`` is float, NaN except on per-query
    uninterpolated points). Rows come query by query in ``ranking.query_ids``
    order, then ``"all"``, first all interpolated rows, then all uninterpolated
    ones; within a curve, by recall ascending.

    Notation for one query: R = number of relevant documents (``num_rel``, from
    the whole qrels at ``ranking.relevance_level``), rank_k = 1-based rank of the
    k-th relevant document retrieved, p_k = k / rank_k (precision there),
    n = relevant documents retrieved.

    *interpolated* -- trec_eval's ``iprec_at_recall``, at the 11 recall levels
    r = 0.0, 0.1, ..., 1.0: ``IPrec(r) = max_{k >= c} p_k`` with
    ``c = max(1, lround(r * R))``, and 0 when ``c > n``. Per query: 11 rows;
    ``"all"``: the mean over all queries of the ranking, which is exactly the
    ``iprec_at_recall_0.00 ... _1.00`` summary of :func:`evaluate` (same kernel,
    same summation order).

    *uninterpolated*, per query -- the points reached after each relevant
    document retrieved, ``(k / R, p_k)`` for k = 1..n (``rank`` = rank_k),
    preceded by a starting point ``(0, p_1)`` (``rank`` NaN). A query with no
    relevant document retrieved (n = 0, including R = 0) has the single point
    ``(0, 0)``. The curve ends at recall n / R; no point is invented beyond it.

    *uninterpolated*, ``"all"`` -- the mean over all queries of each query's
    step function on a grid of ``grid_points`` recall levels
    r_i = i / (grid_points - 1) (0, 0.01, ..., 1 by default):
    ``U(r) = p_k`` with ``k = max(1, ceil(r * R))``, the precision at the first
    rank where recall reaches r; 0 when ``k > n``. So ``U(0) = p_1`` and
    ``U(k/R) = p_k`` (the per-query points), constant in between. As the cut
    ``ceil`` is never below trec_eval's ``lround``, ``U(r) <= IPrec(r)`` at the
    same r: the mean uninterpolated curve never rises above the interpolated one.

    Queries with R = 0 have precision 0 everywhere (trec_eval's convention), and
    count in the means, as do queries kept with no results under ``complete``.
    """
    if grid_points < 2:
        raise ValueError("grid_points must be at least 2")
    n_q = ranking.n_queries
    qids = np.asarray(ranking.query_ids, dtype=object)
    levels = np.asarray(RECALL_POINTS, dtype=np.float64)

    # Interpolated: reuse the measure's kernel so the numbers are trec_eval's.
    iprec = interpolated_precision(ranking, RECALL_POINTS)          # (n_q, 11)
    state_or_default(state).check()
    interp = pd.DataFrame({
        "query": np.concatenate([np.repeat(qids, len(levels)), np.full(len(levels), ALL, dtype=object)]),
        "kind": INTERPOLATED,
        "recall": np.tile(levels, n_q + 1),
        "precision": np.concatenate([iprec.ravel(), query_mean(iprec, n_q)]),
        "rank": np.nan,
    })

    # Uninterpolated points: one per relevant retrieved document, flat across queries (CSR order).
    rp = ranking.relevant
    k = rp.running_count()                                           # k-th relevant of its query
    prec = k / (rp.pos + 1.0)
    R = ranking.num_rel.astype(np.int64)
    n = rp.counts
    first = rp.starts[:-1]
    has = n > 0
    # Each query's starting point goes just before its own points: query q's k-th point lands at
    # flat index j + q + 1 (j its index among all points, q start rows before it, plus its own).
    total = n_q + len(k)
    out_query = np.empty(total, dtype=np.int64)
    out_recall = np.zeros(total)
    out_prec = np.zeros(total)
    out_rank = np.full(total, np.nan)
    start_at = first + np.arange(n_q)
    point_at = np.arange(len(k)) + rp.seg + 1
    out_query[start_at] = np.arange(n_q)
    out_prec[start_at[has]] = prec[first[has]]
    out_query[point_at] = rp.seg
    out_recall[point_at] = k / R[rp.seg]                              # R >= k > 0 for a retrieved relevant
    out_prec[point_at] = prec
    out_rank[point_at] = rp.pos + 1.0
    state_or_default(state).check()

    # Mean step function on the grid; the cut ceil(i * R / (G - 1)) in integers, so 0.3 * 10 is exactly 3.
    g = grid_points - 1
    i = np.arange(grid_points, dtype=np.int64)
    cut = np.maximum((i[None, :] * R[:, None] + g - 1) // g, 1)      # (n_q, G)
    ok = cut <= n[:, None]                                            # also false when n = 0
    flat = np.where(ok, first[:, None] + cut - 1, 0)
    step = np.where(ok, prec[flat] if len(prec) else 0.0, 0.0)
    mean_step = query_mean(step, n_q)

    uninterp = pd.DataFrame({
        "query": np.concatenate([qids[out_query], np.full(grid_points, ALL, dtype=object)]),
        "kind": UNINTERPOLATED,
        "recall": np.concatenate([out_recall, i / g]),
        "precision": np.concatenate([out_prec, mean_step]),
        "rank": np.concatenate([out_rank, np.full(grid_points, np.nan)]),
    })
    return pd.concat([interp, uninterp], ignore_index=True)[PR_COLUMNS]


# ---------------------------------------------------------------------------
# Per-query differences against a baseline run
# ---------------------------------------------------------------------------

def per_query_differences(per_query: pd.DataFrame, measure: str, baseline: str) -> pd.DataFrame:
    """Each other run's value minus the baseline's, for every query both have, best gains first.

    ``per_query`` is the tidy table of :func:`evaluate` (columns ``run, query,
    measure, value``). Rows with ``query == "all"`` (summaries) and NaN values
    are ignored; a query only one of the two runs has is skipped.

    Returns columns ``run, query, baseline_value, value, difference, outcome``
    with ``difference = value - baseline_value`` and ``outcome`` ``"helped"``
    (difference > 0), ``"hurt"`` (< 0) or ``"tied"`` (== 0, exactly). Sorted by
    difference descending, then run, then query (byte order), so the order is
    stable. Empty (with those columns) when there is nothing to compare.
    Raises ``ValueError`` when no row has that baseline run and measure.
    """
    rows = per_query[(per_query["measure"] == measure) & (per_query["query"] != ALL)]
    rows = rows[["run", "query", "value"]].dropna(subset=["value"])
    base = rows[rows["run"] == baseline]
    if base.empty:
        raise ValueError(f"no per-query values of {measure!r} for the baseline run {baseline!r}")
    # One baseline value per query (evaluate() gives one anyway); inner join keeps the shared queries.
    base = base.drop_duplicates("query").rename(columns={"value": "baseline_value"})[["query", "baseline_value"]]
    others = rows[rows["run"] != baseline]
    out = others.merge(base, on="query", how="inner")
    out["difference"] = out["value"] - out["baseline_value"]
    d = out["difference"].to_numpy(dtype=np.float64)
    out["outcome"] = np.where(d > 0, HELPED, np.where(d < 0, HURT, TIED))
    # Stable order: difference desc, then run and query as trec_eval sorts ids (byte order).
    order = np.lexsort((
        _byte_order_codes(out["query"]),
        _byte_order_codes(out["run"]),
        -d,
    ))
    return out.iloc[order].reset_index(drop=True)[DIFF_COLUMNS]


def _byte_order_codes(values: pd.Series) -> np.ndarray:
    """Each string's position among the distinct strings sorted by their UTF-8 bytes."""
    strings = values.astype(str).to_numpy(dtype=object)
    distinct = byte_sorted(set(strings))
    code = {s: c for c, s in enumerate(distinct)}
    return np.fromiter((code[s] for s in strings), dtype=np.int64, count=len(strings))


# ---------------------------------------------------------------------------
# Drill-down: one query, two runs side by side
# ---------------------------------------------------------------------------

@dataclass
class DrillDown:
    """Two runs' rankings of one query.

    ``a`` and ``b`` have columns ``rank, doc, score, relevance, judgment,
    rank_in_other`` (see :func:`drill_down_rankings`); :meth:`side_by_side`
    lays them out in one table for display.
    """

    query: str
    a: pd.DataFrame
    b: pd.DataFrame
    name_a: str = "a"
    name_b: str = "b"

    def side_by_side(self, prefixes: tuple[str, str] = ("a_", "b_")) -> pd.DataFrame:
        """One row per rank: ``rank`` then each side's ``doc, score, relevance, judgment, rank_in_other``.

        Columns are prefixed (``a_doc``, ..., ``b_rank_in_other``). The shorter
        ranking is padded: doc and judgment None, numbers NaN.
        """
        length = max(len(self.a), len(self.b))
        out = pd.DataFrame({"rank": np.arange(1, length + 1, dtype=np.int64)})
        for side, prefix in zip((self.a, self.b), prefixes):
            padded = side.drop(columns="rank").reindex(range(length))
            for column in padded.columns:
                values = padded[column].to_numpy()
                if values.dtype == object:  # text: None below the end (object dtype, or pandas makes it NaN)
                    values = pd.Series(np.where(pd.isna(values), None, values), dtype=object)
                out[prefix + column] = values
        return out


def _docs_as_strings(docs, rows: np.ndarray) -> np.ndarray:
    """The doc ids at ``rows`` as a Python-str object array, whether ``docs`` is dictionary-encoded or not."""
    taken = pc.take(docs, pa.array(rows, type=pa.int64()))
    if isinstance(taken, pa.ChunkedArray):
        taken = taken.combine_chunks()
    if pa.types.is_dictionary(taken.type):
        taken = taken.dictionary_decode()
    return np.asarray(taken.cast(pa.string()).to_pylist(), dtype=object)


def _query_slice(ranking: Ranking | None, query: str) -> slice | None:
    if ranking is None:
        return None
    where = np.flatnonzero(np.asarray(ranking.query_ids, dtype=object) == query)
    if not len(where):
        return None
    q = int(where[0])
    return slice(int(ranking.offsets[q]), int(ranking.offsets[q + 1]))


def _side(ranking: Ranking | None, run: Run, query: str):
    """(doc ids, scores, judgment codes) of one query in evaluation order; empty when not ranked."""
    span = _query_slice(ranking, query)
    if span is None or span.stop == span.start:
        return np.empty(0, dtype=object), np.empty(0), np.empty(0, dtype=np.int64)
    if ranking.run_rows is None:
        raise ValueError("the ranking has no run_rows: build it with prepare()")
    rows = ranking.run_rows[span]
    real = rows >= 0   # -1: trec_eval -c's placeholder for a query without results, not a run document
    rows, codes = rows[real], ranking.rel[span][real]
    docs, scores = _docs_as_strings(run.doc, rows), np.asarray(run.score)[rows].astype(np.float64)
    # Tied documents judged alike may be in any order in the ranking: show trec_eval's.
    exact = tie_order(scores, pa.array(docs.tolist(), pa.string()))
    return docs[exact], scores[exact], codes[exact]


def _side_frame(docs, scores, codes, other_docs, level: int, depth: int | None) -> pd.DataFrame:
    # rank_in_other over the *whole* other ranking, even when only ``depth`` rows are shown.
    pos = pc.index_in(pa.array(docs, pa.string()), value_set=pa.array(other_docs, pa.string()))
    in_other = pc.fill_null(pos, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    if depth is not None:
        docs, scores, codes, in_other = docs[:depth], scores[:depth], codes[:depth], in_other[:depth]
    judged = codes >= 0  # NONPOOL (-1) and UNJUDGED (-2, a negative grade in the qrels) are not judgments
    return pd.DataFrame({
        "rank": np.arange(1, len(docs) + 1, dtype=np.int64),
        "doc": docs,
        "score": scores,
        "relevance": np.where(judged, codes, np.nan).astype(np.float64),
        "judgment": np.where(~judged, UNJUDGED_TEXT, np.where(codes >= level, RELEVANT, NON_RELEVANT)).astype(object),
        "rank_in_other": np.where(in_other >= 0, in_other + 1.0, np.nan),
    })[SIDE_COLUMNS]


def drill_down_rankings(ranking_a: Ranking | None, run_a: Run, ranking_b: Ranking | None, run_b: Run, query: str,
                        *, depth: int | None = None) -> DrillDown:
    """One query of two already-evaluated runs, side by side (the fast path: nothing is re-ranked).

    ``ranking_a``/``ranking_b`` are the runs' ``RunEvaluation.ranking`` (from
    :func:`~evalgui.core.ranked.ranking.prepare`), so the order, the ``-M``
    cut and the ``-J`` filter are exactly the evaluation's: score descending,
    then docno descending (byte order). A side whose ranking lacks the query
    (not judged, or no results) is empty. Cost: proportional to the query's
    documents, plus a scan of the ranking's query ids.

    Each side (``DrillDown.a``, ``.b``) has columns:

    * ``rank`` -- int, 1-based position in that run;
    * ``doc``, ``score`` -- from the run row (``ranking.run_rows``);
    * ``relevance`` -- float: the qrels grade, NaN for a document not in the
      qrels or listed with a negative grade (unjudged);
    * ``judgment`` -- ``"relevant"`` (grade >= the ranking's relevance level),
      ``"non-relevant"`` (0 <= grade < level) or ``"unjudged"``;
    * ``rank_in_other`` -- float: 1-based rank of the same doc in the other
      run's ranking of the query (all of it, not only the first ``depth``),
      NaN if it is not there.

    ``depth`` keeps the first ``depth`` rows of each side (display only).
    """
    docs_a, scores_a, codes_a = _side(ranking_a, run_a, query)
    docs_b, scores_b, codes_b = _side(ranking_b, run_b, query)
    level_a = ranking_a.relevance_level if ranking_a is not None else 1
    level_b = ranking_b.relevance_level if ranking_b is not None else 1
    return DrillDown(
        query=query,
        a=_side_frame(docs_a, scores_a, codes_a, docs_b, level_a, depth),
        b=_side_frame(docs_b, scores_b, codes_b, docs_a, level_b, depth),
        name_a=run_a.name,
        name_b=run_b.name,
    )


def _rows_of_query(run: Run, query: str) -> np.ndarray:
    """Run rows of one query, without touching the other queries' doc ids (Run.query is dictionary-encoded)."""
    code = pc.index(run.query.dictionary, query).as_py()
    if code < 0:
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(codes_of(run.query) == code)


def _one_query_run(run: Run, query: str) -> Run:
    rows = _rows_of_query(run, query)
    # Plain strings for the doc ids: the small run gets its own small dictionary, so prepare() does
    # not sort or search the whole run's docno dictionary.
    return Run(pa.array([query] * len(rows), pa.string()), pa.array(_docs_as_strings(run.doc, rows), pa.string()),
               np.asarray(run.score)[rows], runid=run.runid, name=run.name, source=run.source)


def drill_down(qrels: Qrels, run_a: Run, run_b: Run, query: str, *, relevance_level: int = 1,
               max_docs: int | None = None, depth: int | None = None, judged_only: bool = False) -> DrillDown:
    """Convenience wrapper of :func:`drill_down_rankings` that needs no prior evaluation.

    Ranks only ``query``'s rows of each run with the evaluation's own
    :func:`prepare` (so the order is the same), against that query's
    judgments. ``relevance_level``, ``max_docs`` (trec_eval ``-M``, applied
    before ranks are compared) and ``judged_only`` (``-J``) mean what they mean
    in :class:`~evalgui.core.ranked.evaluate.EvalOptions`; ``depth`` only limits
    the rows returned. A query without judgments still shows both rankings,
    every document ``"unjudged"``. Cost: one pass over each run's query codes,
    then work proportional to the query's documents.
    """
    mask = pc.equal(qrels.query, query)
    sub_qrels = Qrels(qrels.query.filter(mask), qrels.doc.filter(mask), qrels.rel[mask.to_numpy(zero_copy_only=False)],
                      source=qrels.source)
    rankings = []
    for run in (run_a, run_b):
        small = _one_query_run(run, query)
        ranking = prepare(sub_qrels, small, relevance_level=relevance_level, max_docs=max_docs,
                          judged_only=judged_only, topics=[query])[0] if len(small) else None
        rankings.append((ranking, small))
    (ra, sa), (rb, sb) = rankings
    result = drill_down_rankings(ra, sa, rb, sb, query, depth=depth)
    result.name_a, result.name_b = run_a.name, run_b.name
    return result
