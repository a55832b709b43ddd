"""Ranked retrieval: evaluate runs against judgments (:class:`EvaluateRequest`, :func:`run_evaluate`).

The runs are evaluated one at a time; each run's :class:`~evalgui.core.ranked.jobs.RunResult`
(rows, per-query arrays, precision-recall curves, ranking) is handed over through
``state.partial`` as soon as it is done, so the window shows each run without waiting for the
others. The outcome's tables:

- ``summary``: tidy rows over all queries (run, query='all', measure, value);
- ``per_query``: tidy rows of each query (when the request asks for them);
- ``curves``: the precision-recall curves the window draws (run, kind, query, recall, precision);
- ``run_matrix``: every ordered pair of runs per measure (the Run × run tab's cells): the mean over the
  queries both runs have of the row run's value, of the column run's, and of row minus column, and how
  many queries that is (:class:`RunPairs`). Each run's rows reach the window with its RunResult
  (``RunResult.pairs``), so the Run × run tab fills in as the runs finish and never computes them;
- ``results`` (asked for by name, see :func:`run_evaluate`): what ``evalgui-cli evaluate`` writes,
  run by run (its per-query rows, then its summary), as numpy columns: no pandas is imported.
"""

from __future__ import annotations

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.common import EVALUATION, JUDGED_BELOW, QRELS, TOPIC, absent_note, eval_options
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.workflows.params import Param, Problem, Request

RUNS = Param(name="runs", type="files", default=(), metavar="RUN", label="Runs",
             help="The runs to evaluate: TREC run files (query Q0 document rank score tag) or tables.")
MEASURES = Param(name="measures", type="texts", default=("official",), flag="--measure", short="-m",
                 metavar="MEASURE", label="Measures",
                 help="The measures to compute, in trec_eval syntax (P.10, ndcg_cut.10, official, all_trec) or "
                      "ir_measures syntax (P@10, nDCG@10, P(rel=2)@5, AP(norm=retrieved)).")
RANK_ORDER = Param(name="ndeval_rank_order", type="bool", default=False, flag="--ndeval-rank-order",
                   label="Diversity: rank by the run's ranks", group="Evaluation", advanced=True,
                   help="Diversity measures (alpha_nDCG...): rank each query's documents by the run's rank column, "
                        "as ndeval does by default. Otherwise by score, then document id descending (ndeval "
                        "-traditional).")
PER_QUERY = Param(name="per_query", type="bool", default=False, flag="--per-query", label="Per query",
                  help="Keep one row per query, not only the summary over all queries ('all').")


class EvaluateRequest(Request):
    WORKSPACE = "ranked"
    PARAMS = (QRELS, RUNS, MEASURES, PER_QUERY, *EVALUATION, RANK_ORDER, TOPIC, JUDGED_BELOW)

    def cross_problems(self, inputs=None) -> list[Problem]:
        problems = []
        if not self.qrels:
            problems.append(Problem(self.param("qrels"), "the judgments are needed"))
        if not self.runs:
            problems.append(Problem(self.param("runs"), "give at least one run"))
        if not self.measures:
            problems.append(Problem(self.param("measures"), "no measure is chosen: choose at least one"))
        return problems


FULL_TABLES = ("summary", "per_query", "curves", "run_matrix")


def run_evaluate(request: EvaluateRequest, state: JobState | None = None, inputs: Inputs | None = None,
                 tables: tuple[str, ...] = FULL_TABLES, for_window: bool = False) -> Outcome:
    """Evaluate every run of the request; the ``tables`` asked for (see the module's doc).

    With ``curves`` asked for (the default, the window's path), each run's RunResult goes to
    ``state.partial`` and the outcome keeps them as ``outcome.results``. ``tables=("results",)``
    is the command line's lean path: no curves, no RunResults, no pandas. ``for_window=True``: the
    RunResults only (each with its curves, the rows a project keeps of them and its run × run rows, all
    built here), without joining them into the tables or stamping the provenance (hashing the files): the
    window keeps the RunResults, and a project or a report does both when it is written."""
    import numpy as np

    from evalgui.core.ranked.evaluate import evaluate_run, runs_sharing_no_query
    from evalgui.core.ranked.specs import parse_measures

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    full = any(name in tables for name in FULL_TABLES)
    specs = parse_measures(list(request.measures))          # an unknown measure stops here, before any file is read
    qrels = inputs.get(request.qrels, "qrels", topic=request.topic) if request.topic else \
        inputs.get(request.qrels, "qrels")
    from evalgui.core.ranked.by_query import RunFile, evaluate_run_by_query, streamed

    # A run file too large to hold is evaluated by query (bounded memory), never read whole.
    runs = [(not inputs.has(path) and streamed(path)) or inputs.get(path, "run") for path in request.runs]
    from evalgui.core.workflows.compare import run_names

    names = run_names(runs, list(request.runs), inputs)
    options = options_of(request)
    notes: list[str] = []
    from evalgui.core.ranked.diversity import subtopic_warning

    mismatch = subtopic_warning(qrels, specs)       # measures that do not fit the judgments: said once
    if mismatch is not None:
        notes.append(mismatch)
    # Without -c a run sharing no query with the qrels scores 0 everywhere: say so once, not per query.
    held = [run for run in runs if not isinstance(run, RunFile)]
    lonely = set() if options.complete else {id(run) for run in runs_sharing_no_query(qrels, held)}
    if lonely and len(lonely) == len(runs):
        raise EvalUsageError(f"no query has both results and relevance information ({request.qrels}; "
                             f"{', '.join(request.runs)})")
    for run in runs:
        if id(run) in lonely:
            notes.append(f"{run.source} has no query in {request.qrels}; its values are 0")

    results, parts, curves = [], [], []
    from evalgui.core.advisor import RunChecks

    checks = RunChecks(options, request.judged_below / 100)    # the caveats: judged shares, ties, coverage
    pairs = RunPairs()
    n = len(runs)
    for i, (run, name, path) in enumerate(zip(runs, names, request.runs)):
        state.check()
        label = f"Evaluating {name} ({i + 1} of {n}): "
        step = state.scaled(i / n, (i + 0.9) / n, label)
        if isinstance(run, RunFile):
            evaluation = evaluate_run_by_query(qrels, run.source, specs, options, step, name=run.name,
                                               on_part=lambda part, name=name: checks.add_part(name, part, specs))
            if not len(evaluation.query_ids):
                notes.append(f"{run.source} has no query in {request.qrels}; its values are 0")
            elif full and "curves" in tables:
                notes.append(f"{run.source} is too large to hold in memory: it was evaluated query by query, "
                             f"without precision-recall curves")
        else:
            evaluation = evaluate_run(qrels, run, specs, options, step)
        if evaluation.absent_topics and id(run) not in lonely:
            notes.append(absent_note(run.source, evaluation.absent_topics, request.param("complete")))
        evaluation.run_name = name
        checks.add(name, evaluation, specs)
        if "results" in tables:
            parts.append(evaluation.tidy_columns(per_query=request.per_query))
        if full:
            from evalgui.core.ranked.curves import pr_curves
            from evalgui.core.ranked.jobs import curve_index, run_result, saved_curve_rows

            state.check()
            state.progress((i + 0.9) / n, f"{label}precision-recall curves")
            result = run_result(name, path, evaluation)
            result.by_query = isinstance(run, RunFile)
            if "curves" in tables and evaluation.ranking is not None:
                frame = pr_curves(evaluation.ranking, state=state)
                result.curves = curve_index(frame)
                result.saved_curve_rows = saved_curve_rows(name, result.curves, frame)   # what a project keeps
                if not for_window:
                    curves.append(frame[["kind", "query", "recall", "precision"]].assign(run=name))
            result.ranking, result.run = evaluation.ranking, (None if isinstance(run, RunFile) else run)
            if "run_matrix" in tables:
                result.pairs = pairs.add(name, result.query_ids, result.per_query)
            results.append(result)
            state.check()
            state.partial(result)
    state.progress(1.0, "Done")

    out: dict = {}
    if "results" in tables:
        out["results"] = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    if full and not for_window:
        import pandas as pd

        from evalgui.core import tidy

        rows = pd.concat([r.frame for r in results], ignore_index=True)
        is_summary = (rows[tidy.QUERY] == tidy.ALL_QUERIES).to_numpy()
        if "summary" in tables:
            out["summary"] = rows[is_summary].reset_index(drop=True)
        if "per_query" in tables:
            out["per_query"] = rows[~is_summary].reset_index(drop=True) if request.per_query else \
                rows.iloc[:0].reset_index(drop=True)
        if "curves" in tables:
            columns = ["run", "kind", "query", "recall", "precision"]
            out["curves"] = pd.concat(curves, ignore_index=True)[columns] if curves else pd.DataFrame(columns=columns)
        if "run_matrix" in tables:
            out["run_matrix"] = run_matrix_table(results)
    outcome = Outcome("ranked", request, out, notes)
    outcome.caveat_list = checks.finish()
    if full:
        from evalgui.core.advisor import table

        out["caveats"] = table(outcome.caveat_list)
    outcome.results = results
    if for_window:          # no provenance either (its version look-up imports and reads pyproject.toml)
        return outcome
    # The lean path names its inputs without hashing them: hashing a large run costs as much as
    # evaluating it (0.15 s of 0.35 s on 2M lines).
    return outcome.stamp() if full else outcome.stamp([{"path": path} for path in request.files()])


class RunPairs:
    """The run × run table, built as the runs arrive: :meth:`add` gives a new run's rows with every run
    added before it (both orders, and itself), so the window shows each run's cells without recomputing
    the earlier ones, and a cancelled evaluation keeps the pairs of the runs that finished.

    A pair's numbers are over the queries both runs have a value for (NaN: no value): mean of the row
    run, of the column run, and of row minus column (exactly minus the reverse pair's); NaN when they
    share no query. Per measure the runs so far are one queries × runs array (columns grown by
    doubling), so a new run's pairs are a few column reductions over it."""

    def __init__(self):
        self.names: list[str] = []
        self.queries = None                         # pandas Index: row of each query in the arrays
        self.values: dict = {}                      # measure -> queries × capacity (NaN: no value)

    def add(self, name: str, query_ids, per_query: dict):
        """The tidy rows (RUN_MATRIX_COLUMNS) of run ``name`` with the runs added before it, and with itself."""
        import numpy as np
        import pandas as pd

        from evalgui.core.ranked.jobs import RUN_MATRIX_COLUMNS

        ids = pd.Index(list(query_ids), dtype=object)
        if self.queries is None:
            self.queries = ids.unique()
        else:
            fresh = ids[~ids.isin(self.queries)].unique()
            if len(fresh):
                self.queries = self.queries.append(fresh)
        where = self.queries.get_indexer(ids)
        n_queries, k = len(self.queries), len(self.names)
        measures = list(dict.fromkeys([*self.values, *per_query]))
        numbers = []
        for measure in measures:
            grid = self._grid(measure, n_queries, k + 1)
            new = grid[:, k]
            if measure in per_query:
                new[where] = np.asarray(per_query[measure], dtype=np.float64)
            numbers.append(_pair_numbers(new, grid[:, :k]))
        earlier = np.array(self.names, dtype=object)
        self.names.append(name)
        size = 2 * k + 1
        mine = np.full(k, name, dtype=object)
        rows = np.tile(np.concatenate([mine, earlier, [name]]), len(measures))
        columns = np.tile(np.concatenate([earlier, mine, [name]]), len(measures))
        stacked = [np.concatenate([part[i] for part in numbers]) if numbers else np.empty(0) for i in range(4)]
        return pd.DataFrame({"measure": np.repeat(np.array(measures, dtype=object), size), "row": rows,
                             "column": columns, "mean_row": stacked[0], "mean_column": stacked[1],
                             "diff": stacked[2], "n_queries": stacked[3].astype(np.int64)})[list(RUN_MATRIX_COLUMNS)]

    def _grid(self, measure: str, n_queries: int, n_runs: int):
        """The measure's array with room for ``n_runs`` columns and every query (new cells NaN)."""
        import numpy as np

        grid = self.values.get(measure)
        if grid is None or grid.shape[0] < n_queries or grid.shape[1] < n_runs:
            rows, capacity = (0, 0) if grid is None else grid.shape
            bigger = np.full((n_queries, max(n_runs, 2 * capacity, 4)), np.nan)
            if grid is not None:
                bigger[:rows, :capacity] = grid
            self.values[measure] = grid = bigger
        return grid


def _pair_numbers(new, earlier):
    """A new run against each earlier run (``earlier``: queries × runs) over their shared queries: the
    means of both, of new minus earlier, and the counts; then against itself (NaN: no shared query)."""
    import numpy as np

    present = ~np.isnan(new)
    if present.all():
        theirs, mine = earlier, new                    # the usual case: no copy
    else:
        rows = np.flatnonzero(present)                 # only the new run's queries can be shared
        theirs, mine = earlier[rows], new[rows]
    shared = ~np.isnan(theirs)
    counts = shared.sum(axis=0)
    new_sums = np.where(shared, mine[:, None], 0.0).sum(axis=0)
    old_sums = np.where(shared, theirs, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.where(counts > 0, counts, np.nan)
        mean_new, mean_old, diff = new_sums / n, old_sums / n, (new_sums - old_sums) / n
    n_self = len(mine)
    mean_self = mine.sum() / n_self if n_self else np.nan
    return (np.concatenate([mean_new, mean_old, [mean_self]]), np.concatenate([mean_old, mean_new, [mean_self]]),
            np.concatenate([diff, -diff, [0.0 if n_self else np.nan]]) + 0.0,       # + 0.0: no -0.0
            np.concatenate([counts, counts, [n_self]]).astype(np.int64))


def run_matrix_table(results) -> "pd.DataFrame":
    """The ``run_matrix`` table of RunResults whose ``pairs`` are set (see
    :func:`evalgui.core.ranked.jobs.run_matrix_rows`)."""
    from evalgui.core.ranked.jobs import run_matrix_rows

    return run_matrix_rows(results)


def with_pairs(results: list) -> list:
    """RunResults restored from a project (which keeps only their rows) given their run × run rows,
    computed as an evaluation computes them (same order, so the same numbers)."""
    pairs = RunPairs()
    for result in results:
        result.pairs = pairs.add(result.name, result.query_ids, result.per_query)
    return results


def restored_results(state) -> list | None:
    """A project's saved Ranked retrieval results as RunResults with their run × run rows (derived: projects
    do not keep them); None if the state holds none. The state is the tab's own layout (``rows``), or a
    saved outcome (``{"ranked": outcome JSON}``, as ``eg.save_project`` writes)."""
    from evalgui.core.ranked.jobs import saved_results

    results = saved_results(state)
    if results is None and isinstance(state, dict) and isinstance(state.get("ranked"), dict):
        results = saved_results({"rows": _outcome_rows(state["ranked"])})
    return None if results is None else with_pairs(results)


def _outcome_rows(saved: dict) -> dict | None:
    """A saved ranked outcome's summary and per-query rows, as the tab's own layout keeps them (None: unreadable)."""
    import pandas as pd

    from evalgui.core import tidy
    from evalgui.core.workflows.params import RequestError

    try:
        tables = Outcome.from_json(saved, EvaluateRequest).tables
        frames = [tables[name][list(tidy.COLUMNS)] for name in ("summary", "per_query") if name in tables]
    except (RequestError, ValueError, TypeError, KeyError):
        return None
    return pd.concat(frames, ignore_index=True).to_dict(orient="list") if frames else None


def with_run_matrix(outcome: Outcome, measure_order: list[str] = ()) -> Outcome:
    """A saved ranked outcome (an older project's, or the tab's own layout) with its ``run_matrix`` table
    derived from its per-query rows when it has none (unchanged without per-query rows)."""
    import pandas as pd

    from evalgui.core import tidy
    from evalgui.core.ranked.jobs import results_from_tidy

    tables = outcome.tables
    per_query = tables.get("per_query")
    if "run_matrix" in tables or per_query is None or not len(per_query):
        return outcome
    rows = pd.concat([frame[list(tidy.COLUMNS)] for frame in (tables.get("summary"), per_query)
                      if frame is not None], ignore_index=True)
    rows = rows.astype({tidy.RUN: str, tidy.QUERY: str, tidy.MEASURE: str})
    rows[tidy.VALUE] = pd.to_numeric(rows[tidy.VALUE], errors="coerce")
    tables["run_matrix"] = run_matrix_table(with_pairs(results_from_tidy(rows, list(measure_order))))
    return outcome


def curves_state(results) -> dict:
    """The interpolated precision-recall curves of RunResults as a project keeps them beside the rows: the
    ``curves`` table in the outcomes' encoding (what the report's precision-recall plot needs)."""
    from evalgui.core.ranked.jobs import curve_table
    from evalgui.core.workflows.outcome import frame_to_json

    return frame_to_json(curve_table(results))


def saved_curves(state) -> "pd.DataFrame | None":
    """The ``curves`` table a project keeps beside the ranked rows (:func:`curves_state`); None in projects saved
    before they kept it, or when it does not read."""
    from evalgui.core.ranked.jobs import CURVE_COLUMNS
    from evalgui.core.workflows.outcome import frame_from_json

    if not isinstance(state, dict) or "curves" not in state:
        return None
    try:
        table = frame_from_json(state["curves"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return table[CURVE_COLUMNS] if set(CURVE_COLUMNS) <= set(table.columns) else None


def options_of(request: EvaluateRequest):
    """The engine's EvalOptions of a request: trec_eval's options, and ndeval's order for diversity."""
    options = eval_options(request)
    if request.ndeval_rank_order:
        from dataclasses import replace

        options = replace(options, diversity_order="rank")
    return options


WORKFLOWS = (
    Workflow("ranked", "ranked", "Ranked retrieval: evaluate runs", EvaluateRequest, run_evaluate),
)
