"""Ranked retrieval: evaluate runs against judgments (:class:`EvaluateRequest`, :func:`run_evaluate`).

The runs are evaluated one at a time; each run's :class:`~evalgui.core.ranked.jobs.RunResult`
(rows, per-query arrays, precision-recall curves, ranking) is handed over through
``state.partial`` as soon as it is done, so the window shows each run without waiting for the
others. The outcome's tables:

- ``summary``: tidy rows over all queries (run, query='all', measure, value);
- ``per_query``: tidy rows of each query (when the request asks for them);
- ``curves``: the precision-recall curves the window draws (run, kind, query, recall, precision);
- ``results`` (asked for by name, see :func:`run_evaluate`): what ``evalgui-cli evaluate`` writes,
  run by run (its per-query rows, then its summary), as numpy columns: no pandas is imported.
"""

from __future__ import annotations

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.common import EVALUATION, QRELS, TOPIC, eval_options
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
    PARAMS = (QRELS, RUNS, MEASURES, PER_QUERY, *EVALUATION, RANK_ORDER, TOPIC)

    def cross_problems(self, inputs=None) -> list[Problem]:
        problems = []
        if not self.qrels:
            problems.append(Problem(self.param("qrels"), "the judgments are needed"))
        if not self.runs:
            problems.append(Problem(self.param("runs"), "give at least one run"))
        if not self.measures:
            problems.append(Problem(self.param("measures"), "no measure is chosen: choose at least one"))
        return problems


FULL_TABLES = ("summary", "per_query", "curves")


def run_evaluate(request: EvaluateRequest, state: JobState | None = None, inputs: Inputs | None = None,
                 tables: tuple[str, ...] = FULL_TABLES) -> Outcome:
    """Evaluate every run of the request; the ``tables`` asked for (see the module's doc).

    With ``curves`` asked for (the default, the window's path), each run's RunResult goes to
    ``state.partial`` and the outcome keeps them as ``outcome.results``. ``tables=("results",)``
    is the command line's lean path: no curves, no RunResults, no pandas."""
    import numpy as np

    from evalgui.core.ranked.evaluate import evaluate_run, runs_sharing_no_query
    from evalgui.core.ranked.specs import parse_measures

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    full = "curves" in tables or "summary" in tables or "per_query" in tables
    specs = parse_measures(list(request.measures))          # an unknown measure stops here, before any file is read
    qrels = inputs.get(request.qrels, "qrels", topic=request.topic) if request.topic else \
        inputs.get(request.qrels, "qrels")
    runs = [inputs.get(path, "run") for path in request.runs]
    from evalgui.core.workflows.compare import run_names

    names = run_names(runs, list(request.runs), inputs)
    options = options_of(request)
    notes: list[str] = []
    from evalgui.core.ranked.diversity import subtopic_warning

    mismatch = subtopic_warning(qrels, specs)       # measures that do not fit the judgments: said once
    if mismatch is not None:
        notes.append(mismatch)
    # Without -c a run sharing no query with the qrels scores 0 everywhere: say so once, not per query.
    lonely = set() if options.complete else {id(run) for run in runs_sharing_no_query(qrels, runs)}
    if lonely and len(lonely) == len(runs):
        raise EvalUsageError(f"no query has both results and relevance information ({request.qrels}; "
                             f"{', '.join(request.runs)})")
    for run in runs:
        if id(run) in lonely:
            notes.append(f"{run.source} has no query in {request.qrels}; its values are 0")

    results, parts, curves = [], [], []
    n = len(runs)
    for i, (run, name, path) in enumerate(zip(runs, names, request.runs)):
        state.check()
        label = f"Evaluating {name} ({i + 1} of {n}): "
        evaluation = evaluate_run(qrels, run, specs, options, state.scaled(i / n, (i + 0.9) / n, label))
        if evaluation.absent_topics and id(run) not in lonely:
            notes.append(absent_note(run.source, evaluation.absent_topics))
        evaluation.run_name = name
        if "results" in tables:
            parts.append(evaluation.tidy_columns(per_query=request.per_query))
        if full:
            from evalgui.core.ranked.curves import pr_curves
            from evalgui.core.ranked.jobs import curve_index, run_result

            state.check()
            state.progress((i + 0.9) / n, f"{label}precision-recall curves")
            result = run_result(name, path, evaluation)
            if "curves" in tables:
                frame = pr_curves(evaluation.ranking, state=state)
                result.curves = curve_index(frame)
                curves.append(frame[["kind", "query", "recall", "precision"]].assign(run=name))
            result.ranking, result.run = evaluation.ranking, run
            results.append(result)
            state.check()
            state.partial(result)
    state.progress(1.0, "Done")

    out: dict = {}
    if "results" in tables:
        out["results"] = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    if full:
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
            out["curves"] = pd.concat(curves, ignore_index=True)[["run", "kind", "query", "recall", "precision"]]
    outcome = Outcome("ranked", request, out, notes)
    outcome.results = results
    # The lean path names its inputs without hashing them: hashing a large run would cost the command
    # line a good share of its time.
    return outcome.stamp() if full else outcome.stamp([{"path": path} for path in request.files()])


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


def absent_note(source: str, absent: list[str]) -> str:
    """Judged queries a run has no results for, skipped (trec_eval's behaviour without -c)."""
    shown = ", ".join(absent[:5]) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
    return (f"{len(absent)} judged quer{'y has' if len(absent) == 1 else 'ies have'} no results in {source} and "
            f"{'was' if len(absent) == 1 else 'were'} skipped ({shown}); use -c to score them 0")


WORKFLOWS = (
    Workflow("ranked", "ranked", "Ranked retrieval: evaluate runs", EvaluateRequest, run_evaluate),
)
