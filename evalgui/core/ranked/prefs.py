"""trec_eval 10.0's preference measures (``prefs_*``), read from preference judgments
(``-R prefs``, or a qrels file read as preferences with ``-R qrels_prefs``).

A judgment group (JG) is one user's consistent set of preferences for a query; inside it, each
judgment subgroup (JSG) ranks documents by rel_level: a document is preferred to every document
of the same JSG with a lower rel_level. With one JSG the JG is a set of equivalence classes
(every level above every lower one); with several JSGs the preferences are closed transitively
(A > B in one JSG and B > C in another give A > C), and a cycle is an error.

For a preference A > B and a run: *fulfilled* if A is ranked above B, with "retrieved" (both
retrieved), "implied" (only one of them retrieved: fulfilled iff it is A) and "not occurring"
(neither retrieved: never fulfilled) counted apart. Judged documents the run does not retrieve
follow the retrieved ones, in docno order. Ties in score are broken by docno *ascending* here
(trec_eval's preference code does so; its other measures break them descending).

Counting is quadratic in the judged documents of one query (it compares pairs), as in trec_eval;
the work is done per (query, judgment group) with numpy over the pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgui.core.errors import EvalInputError
from evalgui.core.formats.trec_judgments import PrefsJudgments
from evalgui.core.ranked.measures import ParamKind, Measure
from evalgui.core.registry import Registry

REGISTRY: Registry[Measure] = Registry(
    "trec-prefs", "trec_eval preference measures",
    "How well a ranking agrees with preference judgments (document A is better than document B), "
    "as trec_eval 10.0 computes them with -R prefs or -R qrels_prefs.")

# The per-JG counts every measure reads (columns of JGStats.counts).
FUL_RET, POSS_RET, FUL_IMP, POSS_IMP, NOT_OCCUR, NUM_REL, NUM_REL_RET, NUM_NONREL, NUM_NONREL_RET = range(9)
RNONREL_FUL, RNONREL_POSS, RNONREL_RET_FUL, RNONREL_RET_POSS = range(9, 13)

_COMMON = ("A preference A > B is fulfilled when the run ranks A above B. Judged documents the run does not "
           "retrieve count as ranked after every retrieved one, in docno order.")
_WITH_IMP = " Pairs with one document retrieved count (implied); pairs with neither retrieved count as failures."
_IMP = " Pairs with one document retrieved count (implied); pairs with neither retrieved are ignored."
_RET = " Only pairs with both documents retrieved count (for dynamic collections)."
_RNONREL = (" In each judgment group the number of nonrelevant documents (rel_level 0) is set to R, the number of "
            "relevant ones: with fewer, R x (R - N) fulfilled preferences are added; with more, only the first R "
            "nonrelevant documents (in rank order) are kept. Akin to bpref.")


def _register(name, description, formula, *, value_type="float", aggregate="mean", better="higher"):
    def wrap(kernel):
        REGISTRY.add(Measure(name=name, family=REGISTRY.key, group="Preference judgments", kind=ParamKind.NONE,
                             defaults=(), kernel=kernel, description=description, formula=formula,
                             value_type=value_type, aggregate=aggregate, better=better))
        return kernel
    return wrap


@dataclass
class QueryPrefs:
    """One query's preference counts: per JG (rows of ``counts``), and over document pairs."""
    counts: np.ndarray          # (n_jgs, 13) int64, columns as the constants above
    pairs: np.ndarray           # (2,) sums of C[a,b]/(C[a,b]+C[b,a]): over pairs both retrieved; and one or both
    n_pairs: np.ndarray         # (3,) number of document pairs with a preference, same regions


def _seq_sum(x: np.ndarray) -> float:
    """Sum in order, one addition after another, as trec_eval's loops do."""
    return float(np.cumsum(x)[-1]) if len(x) else 0.0


def _ratio(num, den) -> float:
    return float(num) / float(den) if den else 0.0


def _avg_over_jgs(ful: np.ndarray, poss: np.ndarray, skip_empty: bool = True) -> float:
    """sum over JGs of ful/poss, / number of JGs; 0 unless the sum is > 0. A JG with nothing possible is
    skipped, or (the Rnonrel measures, which divide regardless) makes the sum 0/0 = NaN and so the value 0."""
    total = 0.0
    for f, p in zip(ful.tolist(), poss.tolist()):
        if p:
            total += f / p
        elif not skip_empty:
            total = float("nan")
    return total / len(ful) if total > 0.0 else 0.0


@_register("prefs_num_prefs_poss", "Number of preferences possible (judged), whether the documents are "
           "retrieved or not. The summary is the total over queries.", "sum over JGs of |{A > B}|",
           value_type="int", aggregate="sum", better=None)
def _num_poss(q: QueryPrefs) -> float:
    c = q.counts
    return float(c[:, POSS_RET].sum() + c[:, POSS_IMP].sum() + c[:, NOT_OCCUR].sum())


@_register("prefs_num_prefs_ful", "Number of preferences fulfilled, implied ones (one document retrieved) "
           "included. The summary is the total over queries.", "sum over JGs of |{A > B fulfilled}|",
           value_type="int", aggregate="sum", better=None)
def _num_ful(q: QueryPrefs) -> float:
    return float(q.counts[:, FUL_RET].sum() + q.counts[:, FUL_IMP].sum())


@_register("prefs_num_prefs_ful_ret", "Number of preferences fulfilled with both documents retrieved. "
           "The summary is the total over queries.", "sum over JGs of |{A > B fulfilled, A and B retrieved}|",
           value_type="int", aggregate="sum", better=None)
def _num_ful_ret(q: QueryPrefs) -> float:
    return float(q.counts[:, FUL_RET].sum())


@_register("prefs_simp", "Preferences fulfilled / preferences possible, over all judgment groups (a pair "
           "preferred by two users counts twice; conflicting ones all count)." + _WITH_IMP + " " + _COMMON,
           "prefs_simp = fulfilled / possible")
def _simp(q: QueryPrefs) -> float:
    c = q.counts
    return _ratio(c[:, FUL_RET].sum() + c[:, FUL_IMP].sum(),
                  c[:, POSS_RET].sum() + c[:, POSS_IMP].sum() + c[:, NOT_OCCUR].sum())


def _pair(q: QueryPrefs, regions: int) -> float:
    """regions 1: both retrieved; 2: and one retrieved; 3: and neither (adds pairs, never a success)."""
    n = int(q.n_pairs[:regions].sum())
    return (q.pairs[0] if regions == 1 else q.pairs[1]) / n if n else 0.0


@_register("prefs_pair", "Mean over document pairs of the share of preferences on that pair that are fulfilled "
           "(3 users agreeing and 2 not give 3/5). Same as prefs_simp when no pair is judged by two groups."
           + _WITH_IMP, "prefs_pair = mean over pairs {a,b} of C(a>b) / (C(a>b) + C(b>a))")
def _pair_all(q: QueryPrefs) -> float:
    return _pair(q, 3)


@_register("prefs_avgjg", "Fulfilled / possible within each judgment group, averaged over the groups: every "
           "user counts the same, however many preferences they gave." + _WITH_IMP,
           "prefs_avgjg = (1/|JG|) sum_jg fulfilled_jg / possible_jg")
def _avgjg(q: QueryPrefs) -> float:
    c = q.counts
    return _avg_over_jgs(c[:, FUL_RET] + c[:, FUL_IMP], c[:, POSS_RET] + c[:, POSS_IMP] + c[:, NOT_OCCUR])


@_register("prefs_avgjg_Rnonrel", "prefs_avgjg with the nonrelevant documents of each group cut or padded to R."
           + _RNONREL + _WITH_IMP, "prefs_avgjg_Rnonrel = (1/|JG|) sum_jg fulfilled'_jg / possible'_jg")
def _avgjg_rnonrel(q: QueryPrefs) -> float:
    return _avg_over_jgs(q.counts[:, RNONREL_FUL], q.counts[:, RNONREL_POSS], skip_empty=False)


@_register("prefs_simp_ret", "prefs_simp over pairs with both documents retrieved." + _RET,
           "prefs_simp_ret = fulfilled_ret / possible_ret")
def _simp_ret(q: QueryPrefs) -> float:
    return _ratio(q.counts[:, FUL_RET].sum(), q.counts[:, POSS_RET].sum())


@_register("prefs_pair_ret", "prefs_pair over pairs with both documents retrieved." + _RET,
           "prefs_pair_ret = mean over retrieved pairs of C(a>b) / (C(a>b) + C(b>a))")
def _pair_ret(q: QueryPrefs) -> float:
    return _pair(q, 1)


@_register("prefs_avgjg_ret", "prefs_avgjg over pairs with both documents retrieved." + _RET,
           "prefs_avgjg_ret = (1/|JG|) sum_jg fulfilled_ret_jg / possible_ret_jg")
def _avgjg_ret(q: QueryPrefs) -> float:
    return _avg_over_jgs(q.counts[:, FUL_RET], q.counts[:, POSS_RET])


@_register("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel over pairs with both documents retrieved, R and N "
           "counting retrieved documents." + _RET,
           "prefs_avgjg_Rnonrel_ret = (1/|JG|) sum_jg fulfilled'_ret_jg / possible'_ret_jg")
def _avgjg_rnonrel_ret(q: QueryPrefs) -> float:
    return _avg_over_jgs(q.counts[:, RNONREL_RET_FUL], q.counts[:, RNONREL_RET_POSS], skip_empty=False)


@_register("prefs_simp_imp", "prefs_simp ignoring pairs with neither document retrieved." + _IMP,
           "prefs_simp_imp = (fulfilled_ret + fulfilled_imp) / (possible_ret + possible_imp)")
def _simp_imp(q: QueryPrefs) -> float:
    c = q.counts
    return _ratio(c[:, FUL_RET].sum() + c[:, FUL_IMP].sum(), c[:, POSS_RET].sum() + c[:, POSS_IMP].sum())


@_register("prefs_pair_imp", "prefs_pair ignoring pairs with neither document retrieved." + _IMP,
           "prefs_pair_imp = mean over pairs with a retrieved document of C(a>b) / (C(a>b) + C(b>a))")
def _pair_imp(q: QueryPrefs) -> float:
    return _pair(q, 2)


@_register("prefs_avgjg_imp", "prefs_avgjg ignoring pairs with neither document retrieved." + _IMP,
           "prefs_avgjg_imp = (1/|JG|) sum_jg (fulfilled_ret + fulfilled_imp) / (possible_ret + possible_imp)")
def _avgjg_imp(q: QueryPrefs) -> float:
    c = q.counts
    return _avg_over_jgs(c[:, FUL_RET] + c[:, FUL_IMP], c[:, POSS_RET] + c[:, POSS_IMP])


NICKNAMES = {
    "all_prefs": ["runid", "num_q"] + list(REGISTRY),
    "prefs": ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"],
}


# ---------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------

def _classify(a: np.ndarray, b: np.ndarray, njr: int) -> np.ndarray:
    """Counts of preferences a > b (internal ranks) by kind: FUL_RET, unfulfilled-ret, FUL_IMP,
    unfulfilled-imp, NOT_OCCUR."""
    above = a < b
    ful_ret = above & (b < njr)
    ful_imp = above & (b >= njr) & (a < njr)
    bad_ret = ~above & (a < njr)
    bad_imp = ~above & (a >= njr) & (b < njr)
    not_occur = ~(ful_ret | ful_imp | bad_ret | bad_imp)
    return np.array([ful_ret.sum(), bad_ret.sum(), ful_imp.sum(), bad_imp.sum(), not_occur.sum()], dtype=np.int64)


def _jg_row(kinds: np.ndarray, is_rel: np.ndarray, is_nonrel: np.ndarray, retrieved: np.ndarray) -> np.ndarray:
    row = np.zeros(13, dtype=np.int64)
    row[FUL_RET], row[POSS_RET] = kinds[0], kinds[0] + kinds[1]
    row[FUL_IMP], row[POSS_IMP] = kinds[2], kinds[2] + kinds[3]
    row[NOT_OCCUR] = kinds[4]
    row[NUM_REL], row[NUM_REL_RET] = is_rel.sum(), (is_rel & retrieved).sum()
    row[NUM_NONREL], row[NUM_NONREL_RET] = is_nonrel.sum(), (is_nonrel & retrieved).sum()
    return row


def _ec_group(ranks: np.ndarray, levels: np.ndarray, njr: int, counts: np.ndarray, where: str) -> np.ndarray:
    """One JG with a single subgroup: equivalence classes by level. ``ranks``/``levels`` sorted by
    level descending, then rank."""
    _, ec = np.unique(-levels, return_inverse=True)
    ec = ec.ravel()
    m = int(ec.max()) + 1
    ii, jj = np.nonzero(ec[:, None] < ec[None, :])
    a, b = ranks[ii], ranks[jj]
    if (a == b).any():
        raise EvalInputError(where, "a document has two different relevance levels in one judgment subgroup")
    np.add.at(counts, (a, b), 1)
    retrieved = ranks < njr
    row = _jg_row(_classify(a, b, njr), levels > 0.0, levels <= 0.0, retrieved)
    R, N = row[NUM_REL], row[NUM_NONREL]
    Rr, Nr = row[NUM_REL_RET], row[NUM_NONREL_RET]
    if R >= N:
        row[RNONREL_FUL] = row[FUL_RET] + row[FUL_IMP] + row[NUM_REL_RET] * (R - N)
        row[RNONREL_POSS] = row[POSS_RET] + row[POSS_IMP] + row[NOT_OCCUR] + R * (R - N)
    else:
        row[RNONREL_FUL], row[RNONREL_POSS] = _ec_recount(ranks, ec, m, njr, R, only_retrieved=False)
    if Rr >= Nr:
        row[RNONREL_RET_FUL] = row[FUL_RET] + Rr * (Rr - Nr)
        row[RNONREL_RET_POSS] = row[POSS_RET] + R * (Rr - Nr)     # R, not Rr: as trec_eval 10.0
    else:
        row[RNONREL_RET_FUL], row[RNONREL_RET_POSS] = _ec_recount(ranks, ec, m, njr, Rr, only_retrieved=True)
    return row


def _ec_recount(ranks, ec, m, njr, keep, only_retrieved):
    """trec_eval's recount with the last class cut to its first ``keep`` documents: pairs between
    classes other than the last, then every document (the last class's own included, as trec_eval
    does) against the kept ones. Fulfilled: the first is retrieved and ranked above the second."""
    last = np.flatnonzero(ec == m - 1)[:keep]        # ranks ascending within a class
    ii, jj = np.nonzero((ec[:, None] < ec[None, :]) & (ec[None, :] <= m - 2))
    a = np.concatenate((ranks[ii], np.repeat(ranks, len(last))))
    b = np.concatenate((ranks[jj], np.tile(ranks[last], len(ranks))))
    if only_retrieved:
        ok = (a < njr) & (b < njr)
        a, b = a[ok], b[ok]
    ful = int(((a < b) & (a < njr)).sum())
    return ful, len(a)


def _closure(pa: np.ndarray) -> np.ndarray:
    """Reflexive transitive closure of a boolean matrix, by repeated squaring (BLAS)."""
    r = pa.astype(np.float32)
    np.fill_diagonal(r, 1.0)
    while True:
        nxt = ((r @ r) > 0).astype(np.float32)
        if np.array_equal(nxt, r):
            return r > 0
        r = nxt


def _pa_group(ranks, levels, subgroup, njr, nj, counts, where) -> np.ndarray:
    """One JG with several subgroups: a preference matrix closed transitively. Rows sorted by
    subgroup, level descending, rank."""
    pa = np.zeros((nj, nj), dtype=bool)
    for s in np.unique(subgroup):
        sel = np.flatnonzero(subgroup == s)
        ii, jj = np.nonzero(levels[sel][:, None] > levels[sel][None, :])
        pa[ranks[sel][ii], ranks[sel][jj]] = True
    # Each document's level, as the last line (in sorted order) sets it; 0 next to >0 is an error.
    order = np.lexsort((np.arange(len(ranks)), ranks))
    r_sorted, l_sorted = ranks[order], levels[order]
    same = r_sorted[1:] == r_sorted[:-1]
    prev, cur = l_sorted[:-1], l_sorted[1:]
    if (same & (((prev > 0) & (cur == 0)) | ((prev == 0) & (cur > 0)))).any():
        raise EvalInputError(where, "a document has both level 0 and a level above 0 in one judgment group")
    rel_array = np.full(nj, -1.0)
    rel_array[r_sorted] = l_sorted      # later assignments win
    pa = _closure(pa)
    np.fill_diagonal(pa, False)
    if (pa & pa.T).any():
        raise EvalInputError(where, "the preferences of a judgment group contradict each other (a cycle)")
    a, b = np.nonzero(pa)
    counts[a, b] += 1
    idx = np.arange(nj)
    is_rel, is_nonrel = rel_array > 0.0, rel_array == 0.0
    row = _jg_row(_classify(a, b, njr), is_rel, is_nonrel, idx < njr)
    R, N = row[NUM_REL], row[NUM_NONREL]
    Rr, Nr = row[NUM_REL_RET], row[NUM_NONREL_RET]
    if R >= N:
        row[RNONREL_FUL] = row[FUL_RET] + row[FUL_IMP] + row[NUM_REL_RET] * (R - N)
        row[RNONREL_POSS] = row[POSS_RET] + row[POSS_IMP] + row[NOT_OCCUR] + R * (R - N)
    else:
        keep = _kept(is_nonrel, R, nj)
        ok = keep[a] & keep[b]
        row[RNONREL_FUL] = int((ok & (a < njr) & (b > a)).sum())
        row[RNONREL_POSS] = int(ok.sum())
    if Rr >= Nr:
        row[RNONREL_RET_FUL] = row[FUL_RET] + Rr * (Rr - Nr)
        row[RNONREL_RET_POSS] = row[POSS_RET] + R * (Rr - Nr)
    else:
        keep = _kept(is_nonrel, R, njr)     # R, not Rr: as trec_eval 10.0
        ok = keep[a] & keep[b] & (a < njr) & (b < njr)
        row[RNONREL_RET_FUL] = int((ok & (b > a)).sum())
        row[RNONREL_RET_POSS] = int(ok.sum())
    return row


def _kept(is_nonrel: np.ndarray, R: int, scan: int) -> np.ndarray:
    """Documents kept: all but the nonrelevant ones from the (R+1)-th nonrelevant one (among the first
    ``scan`` internal ranks) on."""
    seen = np.cumsum(is_nonrel[:scan])
    hit = np.flatnonzero(seen == R + 1)
    first_dropped = int(hit[0]) if len(hit) else scan
    return ~((np.arange(len(is_nonrel)) >= first_dropped) & is_nonrel)


def _pairs(counts: np.ndarray, njr: int) -> tuple[np.ndarray, np.ndarray]:
    nj = len(counts)
    iu, ju = np.triu_indices(nj, 1)
    fwd, back = counts[iu, ju].astype(np.float64), counts[ju, iu].astype(np.float64)
    has = (fwd + back) > 0
    region = np.where(ju < njr, 0, np.where(iu < njr, 1, 2))
    frac = np.divide(fwd, fwd + back, out=np.zeros_like(fwd), where=has)
    # trec_eval visits region 0 then region 1, each row by row (triu_indices is row-major too).
    first = _seq_sum(frac[has & (region == 0)])
    both = _seq_sum(np.concatenate(([first], frac[has & (region == 1)])))
    n = np.array([(has & (region == r)).sum() for r in range(3)], dtype=np.int64)
    return np.array([first, both]), n


def query_prefs(docs: np.ndarray, levels: np.ndarray, groups: np.ndarray, subgroups: np.ndarray,
                ranked_docs: np.ndarray, where: str) -> QueryPrefs:
    """Counts for one query. ``docs``..``subgroups``: its judgment lines (doc codes, levels, JG and JSG
    codes, codes in strcmp order); ``ranked_docs``: the run's doc codes in rank order."""
    judged = np.unique(docs)
    retrieved = ranked_docs[np.isin(ranked_docs, judged)]
    njr = len(retrieved)
    # Internal ranks: retrieved judged documents in rank order, then the others in docno order.
    others = np.setdiff1d(judged, retrieved, assume_unique=True)
    internal = np.concatenate((retrieved, others))
    rank_of = np.empty(len(internal), dtype=np.int64)
    rank_of[np.searchsorted(judged, internal)] = np.arange(len(internal))
    ranks = rank_of[np.searchsorted(judged, docs)]
    nj = len(judged)
    counts = np.zeros((nj, nj), dtype=np.int64)
    order = np.lexsort((ranks, -levels, subgroups, groups))
    ranks, levels, groups, subgroups = ranks[order], levels[order], groups[order], subgroups[order]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], len(groups)]
    rows = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        if len(np.unique(subgroups[s:e])) > 1:
            rows.append(_pa_group(ranks[s:e], levels[s:e], subgroups[s:e], njr, nj, counts, where))
        else:
            rows.append(_ec_group(ranks[s:e], levels[s:e], njr, counts, where))
    pairs, n_pairs = _pairs(counts, njr)
    return QueryPrefs(np.vstack(rows), pairs, n_pairs)


# ---------------------------------------------------------------------------
# One run against preference judgments
# ---------------------------------------------------------------------------

def _strings(column) -> np.ndarray:
    import pyarrow as pa

    return np.asarray(column.cast(pa.string()).to_numpy(zero_copy_only=False), dtype=object)


def evaluate_prefs(prefs: PrefsJudgments, run, requests: list, options=None):
    """Evaluate ``run`` against preference judgments: a RunEvaluation (as evaluate_run's) of the
    requested ``prefs_*`` measures (and runid, num_q), one row per judged query with results."""
    from evalgui.core.ranked.evaluate import Column, EvalOptions, RunEvaluation, _aggregate

    options = options or EvalOptions()
    query_ids = prefs.query_ids
    run_query, run_doc = _strings(run.query), _strings(run.doc)
    keep = np.isin(run_query, np.array(query_ids, dtype=object))
    run_query, run_doc, score = run_query[keep], run_doc[keep], run.score[keep]
    all_docs = np.unique(np.concatenate((run_doc, prefs.doc)))
    run_code = np.searchsorted(all_docs, run_doc)
    pref_code = np.searchsorted(all_docs, prefs.doc)
    q_ids = np.array(query_ids, dtype=object)
    run_q = np.searchsorted(q_ids, run_query) if len(run_query) else np.zeros(0, np.int64)
    # Rank per query: score descending, docno ascending (trec_eval's preference code), then -M.
    order = np.lexsort((run_code, -score, run_q))
    run_q, run_code = run_q[order], run_code[order]
    q_start = np.searchsorted(run_q, np.arange(len(q_ids) + 1))
    if options.max_docs is not None:
        pos = np.arange(len(run_q)) - q_start[run_q]
        kept = pos < options.max_docs
    else:
        kept = np.ones(len(run_q), dtype=bool)
    pref_q = np.searchsorted(q_ids, prefs.query)
    p_order = np.argsort(pref_q, kind="stable")
    p_start = np.searchsorted(pref_q[p_order], np.arange(len(q_ids) + 1))
    _, group_code = np.unique(prefs.group, return_inverse=True)
    _, sub_code = np.unique(prefs.subgroup, return_inverse=True)
    evaluated, absent, per_query = [], [], []
    names = [r.measure.name for r in requests if r.measure.name in REGISTRY]
    for qi, qid in enumerate(query_ids):
        has_results = q_start[qi + 1] > q_start[qi]
        if not has_results and not options.complete:
            absent.append(qid)
            continue
        rows = p_order[p_start[qi]:p_start[qi + 1]]
        ranked = run_code[q_start[qi]:q_start[qi + 1]][kept[q_start[qi]:q_start[qi + 1]]]
        try:
            counts = query_prefs(pref_code[rows], prefs.level[rows], group_code.ravel()[rows],
                                 sub_code.ravel()[rows], ranked, prefs.source)
        except EvalInputError as err:
            raise EvalInputError(err.source, f"query '{qid}': {err.reason}") from None
        evaluated.append(qid)
        per_query.append([REGISTRY[n].kernel(counts) for n in names])
    n_q = len(evaluated)
    columns, blocks = [], []
    values = np.array(per_query, dtype=np.float64).reshape(n_q, len(names))
    for req in requests:
        columns.append(Column(req.names[0], req.measure, req))
        if req.measure.name in REGISTRY:
            blocks.append(values[:, names.index(req.measure.name)])
        else:                                   # runid, num_q
            blocks.append(np.zeros(n_q) if req.measure.name == "runid" else np.ones(n_q))
    per = np.column_stack(blocks) if blocks else np.zeros((n_q, 0))
    summary = np.array([_aggregate(per[:, [i]], c.measure.aggregate, n_q)[0] for i, c in enumerate(columns)])
    return RunEvaluation(run.name, run.runid, np.array(evaluated, dtype=object), columns, per, summary,
                         absent_topics=absent)
