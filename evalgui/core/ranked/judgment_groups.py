"""trec_eval 10.0's judgment-group measures (``*_avgjg``), read from qrels with a judgment group
per line (``-R qrels_jg``): map, P and Rprec_mult computed against each group's qrels as if it
were the only one, then averaged over the query's groups (users).

Each (query, group) becomes one query of an ordinary evaluation (the run's results for the query
repeated once per group), so the ranked kernels of :mod:`evalgui.core.ranked.measures` do the work.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from evalgui.core.formats.trec_judgments import GroupQrels
from evalgui.core.ranked import measures as M
from evalgui.core.ranked.measures import Measure
from evalgui.core.registry import Registry

REGISTRY: Registry[Measure] = Registry(
    "trec-jg", "trec_eval judgment-group measures",
    "map, P and Rprec_mult averaged over a query's judgment groups (one set of qrels per user), "
    "as trec_eval 10.0 computes them with -R qrels_jg.")

_AVG = (" With several judgment groups (users) for a query, the value is computed against each group's "
        "judgments and averaged over the groups.")


def _register(name, base, description, formula):
    plain = M.REGISTRY[base]
    REGISTRY.add(Measure(name=name, family=REGISTRY.key, group="Judgment groups", kind=plain.kind,
                         defaults=plain.defaults, kernel=plain.kernel, description=description + _AVG,
                         formula=formula))


_register("map_avgjg", "map", "Mean average precision, averaged over judgment groups.",
          "map_avgjg = (1/|JG|) sum_jg AP_jg")
_register("P_avgjg", "P", "Precision at each cutoff k (retrieved documents beyond the end count as "
          "nonrelevant), averaged over judgment groups.", "P_avgjg@k = (1/|JG|) sum_jg relret_jg(k) / k")
_register("Rprec_mult_avgjg", "Rprec_mult", "Precision at multiples of R (the group's number of relevant "
          "documents), averaged over judgment groups.",
          "Rprec_mult_avgjg@x = (1/|JG|) sum_jg P_jg@(int(x R_jg + 0.9))")

NICKNAMES = {"qrels_jg": ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]}

_SEP = "\x01"      # between query and group in the inner query ids: sorts below every printable character


def _sums_in_group_order(inner: np.ndarray, starts: np.ndarray, n_groups: np.ndarray) -> np.ndarray:
    """Each query's values over its groups, added one group after another to 0.0 as trec_eval adds them
    (np.add.reduceat adds in another order: 34 + 39 + 47 + 35 thousandths came out 0.155 less a last bit,
    whose mean over the 4 groups then printed 0.0387 where trec_eval prints 0.0388)."""
    summed = np.zeros((len(starts), inner.shape[1]))
    for g in range(int(n_groups.max(initial=0))):
        has = n_groups > g
        summed[has] += inner[starts[has] + g]
    return summed


def evaluate_jg(qrels: GroupQrels, run, requests: list, options=None):
    """Evaluate ``run`` against judgment-group qrels: a RunEvaluation of the requested measures."""
    from evalgui.core.data import Qrels, Run
    from evalgui.core.ranked.evaluate import Column, EvalOptions, RunEvaluation, _aggregate, request_values
    from evalgui.core.ranked.prefs import _strings
    from evalgui.core.ranked.ranking import prepare
    from evalgui.core.ranked.specs import MeasureRequest

    options = options or EvalOptions()
    inner_q = qrels.query.astype(object) + _SEP + qrels.group.astype(object)
    inner_qrels = Qrels(pa.array(inner_q.tolist(), pa.string()), pa.array(qrels.doc.tolist(), pa.string()),
                        qrels.rel, source=qrels.source)
    # The run, each query's rows repeated once per judgment group of that query.
    inner_ids = np.unique(inner_q)
    owner = np.array([s.split(_SEP, 1)[0] for s in inner_ids.tolist()], dtype=object)
    run_query = _strings(run.query)
    outer_ids, first = np.unique(owner, return_index=True)
    per_query = np.diff(np.r_[first, len(owner)])
    pos = np.searchsorted(outer_ids, run_query)
    pos = np.minimum(pos, max(len(outer_ids) - 1, 0))
    known = (outer_ids[pos] == run_query) if len(outer_ids) else np.zeros(len(run_query), bool)
    rows = np.flatnonzero(known)
    times = per_query[pos[rows]]
    rep = np.repeat(rows, times)
    k = np.arange(len(rep)) - np.repeat(np.cumsum(times) - times, times)
    inner_run_q = inner_ids[first[pos[rep]] + k]
    inner_run = Run(pa.array(inner_run_q.tolist(), pa.string()), run.doc.take(pa.array(rep)), run.score[rep],
                    runid=run.runid, name=run.name, source=run.source)
    ranking, absent_inner = prepare(
        inner_qrels, inner_run, relevance_level=options.relevance_level, complete=options.complete,
        max_docs=options.max_docs, judged_only=options.judged_only, num_docs_in_coll=options.num_docs_in_coll)
    evaluated_inner = ranking.query_ids
    outer_of = np.array([s.split(_SEP, 1)[0] for s in evaluated_inner.tolist()], dtype=object)
    starts = np.flatnonzero(np.r_[True, outer_of[1:] != outer_of[:-1]]) if len(outer_of) else np.zeros(0, int)
    n_groups = np.diff(np.r_[starts, len(outer_of)])
    n_q = len(starts)
    columns, blocks = [], []
    for req in requests:
        columns.extend(Column(name, req.measure, req) for name in req.names)
        if req.measure.name in REGISTRY:
            inner = request_values(ranking, MeasureRequest(req.measure, req.params, req.names), options)
            summed = _sums_in_group_order(inner, starts, n_groups)
            blocks.append(np.where(n_groups[:, None] > 1, summed / n_groups[:, None], summed))
        else:                                   # runid, num_q
            blocks.append(np.zeros((n_q, 1)) if req.measure.name == "runid" else np.ones((n_q, 1)))
    per = np.hstack(blocks) if blocks else np.zeros((n_q, 0))
    summary = np.array([_aggregate(per[:, [i]], c.measure.aggregate, n_q)[0] for i, c in enumerate(columns)])
    absent = sorted({s.split(_SEP, 1)[0] for s in absent_inner}, key=lambda s: s.encode())
    return RunEvaluation(run.name, run.runid, outer_of[starts], columns, per, summary, absent_topics=absent)
