"""Compare systems: significance tests between runs (:class:`CompareRequest`), and preferences between
their rankings (:class:`PreferenceRequest`).

The comparison's source is qrels and runs (evaluated first) or a per-query scores table (a file,
or scores already in memory such as the Ranked retrieval tab's). The outcome's tables:

- ``comparison``: one row per tested pair and measure (what ``evalgui-cli compare`` writes);
- ``matrix``: every ordered pair (row run, column run) of every measure, seen from the row run:
  both means, the difference with its CI, p, adjusted p, W/T/L, significance (the Matrix tab's
  cells and ``compare --matrix``);
- ``per_query``: the aligned per-query values the tests were computed on (measure, query, run, value);
- ``query_sets``: per measure, the queries compared, and ``missing``: the queries a run lacks.

A preference outcome: ``pairs`` (mean preferences, tested when a test is chosen), ``ranking``,
``matrix`` (mean preference of the row run over the column run), ``pair_queries`` (every pair's
per-query preferences, what a matrix cell opens: see :data:`PAIR_QUERY_ROWS` for its bound) and, when
asked, the per-query rows in ``pairs``.
"""

from __future__ import annotations

from evalgui.core import tidy
from evalgui.core.errors import EvalUsageError
from evalgui.core.stats import catalogue
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.common import EVALUATION, JUDGED_BELOW, QRELS, TOPIC, eval_options
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import MeasureNote, Outcome
from evalgui.core.workflows.params import Param, Problem, Request

EVALUATION_SHARE = 0.4       # of the progress bar, when the runs are evaluated first
MAX_SAMPLES = catalogue.MAX_SAMPLES     # resamples: drawn in chunks, so a cap on time, not memory
TEST_LABELS, CORRECTION_LABELS = catalogue.TEST_LABELS, catalogue.CORRECTION_LABELS


def _choices(names) -> tuple:
    return tuple((name, TEST_LABELS.get(name) or CORRECTION_LABELS.get(name, name)) for name in names)


TESTS = _choices(catalogue.TESTS)
PREFERENCE_TESTS = _choices(catalogue.PREFERENCE_TESTS)
CORRECTIONS = _choices(catalogue.CORRECTIONS)

RUNS = Param(name="runs", type="files", default=(), metavar="RUN", label="Runs",
             help="The runs to compare (at least two), evaluated against the judgments first.")
SCORES = Param(name="scores", type="file", default=None, flag="--scores", metavar="FILE", label="Per-query scores",
               help="A per-query scores table (run, query, measure, value), e.g. a per-query table exported or "
                    "written by evalgui-cli evaluate, compared as it is instead of judgments and runs.")
SCORE_RUNS = Param(name="score_runs", type="texts", default=(), label="Runs of the scores table",
                   help="Which runs of the scores table to compare (empty: all of them).")
MEASURES = Param(name="measures", type="texts", default=(), flag="--measure", short="-m", metavar="MEASURE",
                 label="Measures",
                 help="The measures to compare on (e.g. AP, nDCG@10). With a scores table, empty means every "
                      "measure in it.")
BASELINES = Param(name="baselines", type="texts", default=(), flag="--baseline", metavar="RUN",
                  label="Baselines",
                  help="Compare every run against these runs only (a run's name or its file). Empty: every two "
                       "runs.")
ALPHA = Param(name="alpha", type="float", default=0.05, minimum=0.0001, maximum=0.9999, flag="--alpha",
              label="Significance level (α)",
              help="A difference is significant when its adjusted p-value is below α.")
SAMPLES = Param(name="samples", type="int", default=None, optional=True, minimum=1, maximum=MAX_SAMPLES,
                flag="--samples", metavar="B", label="Resamples (B)", unit="samples", why_maximum="the running time",
                help="How many resamples the randomization (default 10,000), bootstrap (1,000) or Tukey (5,000) "
                     "test draws. More gives steadier p-values and takes longer.")
SEED = Param(name="seed", type="int", default=42, minimum=0, maximum=2**63 - 1, flag="--seed", label="Random seed",
             help="The seed of the resampling tests: the same seed gives the same p-values.")
TIE_TOLERANCE = Param(name="tie_tolerance", type="float", default=0.0, minimum=0.0, flag="--tie-tolerance",
                      metavar="T", label="Tie tolerance",
                      help="A per-query difference within this counts as a tie in wins / ties / losses.")


class CompareRequest(Request):
    WORKSPACE = "compare"
    PARAMS = (
        QRELS, RUNS, SCORES, SCORE_RUNS, MEASURES,
        Param(name="test", type="choice", default="t", choices=TESTS, flag="--test", label="Test",
              help="The significance test applied to each pair's per-query differences."),
        Param(name="correction", type="choice", default="holm", choices=CORRECTIONS, flag="--correction",
              label="Correction for multiple comparisons",
              help="How the p-values of one measure's pairs are adjusted for testing many pairs at once."),
        BASELINES, ALPHA, SAMPLES, SEED, TIE_TOLERANCE, *EVALUATION, TOPIC, JUDGED_BELOW,
    )

    def cross_problems(self, inputs=None) -> list[Problem]:
        problems = []
        if self.scores:
            if self.qrels or self.runs:
                problems.append(Problem(None, "with {scores}, give no {qrels} or {runs} (the table has the runs)",
                                        mentions=self._mentions()))
        else:
            if not self.qrels or len(self.runs) < 2:
                problems.append(Problem(None, "give {qrels} and at least two {runs}, or {scores}",
                                        mentions=self._mentions()))
            elif not self.measures:
                problems.append(Problem(None, "choose the measures to compare with {measures} (e.g. AP, nDCG@10)",
                                        mentions=self._mentions()))
        return problems

    def _mentions(self):
        return tuple(self.param(name) for name in ("qrels", "runs", "scores", "measures"))


class PreferenceRequest(Request):
    WORKSPACE = "compare"
    PARAMS = (
        QRELS,
        RUNS,
        Param(name="measures", type="texts", default=(), flag="--measure", short="-m", metavar="MEASURE",
              label="Preferences",
              help="The preferences to compute, as papers name them: RPP, DCGPP, INVPP, Lexirecall, Lexiprecision; "
                   "ST-RPP and ST-RPP(rel) with subtopic qrels (empty: all). Any case; the names files and projects "
                   "keep are accepted too."),
        Param(name="binary_threshold", type="int", default=None, optional=True, minimum=0,
              flag="--binary-threshold", metavar="N", label="Relevant from grade (binary)",
              help="Grades from N up count as relevant and are not told apart. Empty: graded, every grade from 1 "
                   "up is relevant and RPP averages over the grade levels."),
        Param(name="test", type="choice", default=None, optional=True, choices=PREFERENCE_TESTS, flag="--test",
              label="Test",
              help="Test whether each pair's mean preference is 0, on its per-query preferences. Empty: no test."),
        Param(name="correction", type="choice", default="holm", choices=CORRECTIONS, flag="--correction",
              label="Correction for multiple comparisons",
              help="How the p-values of one preference's pairs are adjusted for testing many pairs at once."),
        BASELINES, ALPHA, SAMPLES, SEED, TOPIC, JUDGED_BELOW,
    )

    def __init__(self, **values):
        super().__init__(**values)
        # Either name of a preference, in any case where that is unambiguous (RPP, dcgpp, rpp): the request, and
        # so projects and outputs, hold the registered one. An unknown name stays, for cross_problems to report.
        if self._values["measures"]:
            from evalgui.core.ranked.preference import registered_names

            self._values["measures"] = registered_names(self._values["measures"])

    def cross_problems(self, inputs=None) -> list[Problem]:
        from evalgui.core.ranked.preference import REGISTRY, measure

        unknown = [name for name in self.measures if name not in REGISTRY]
        if unknown:          # before anything else: no file is read for a request that cannot run
            try:
                measure(unknown[0])
            except EvalUsageError as exc:
                return [Problem(self.param("measures"), str(exc), self.measures)]
        problems = []
        if not self.qrels:
            problems.append(Problem(self.param("qrels"), "the judgments are needed"))
        if len(self.runs) < 2:
            problems.append(Problem(self.param("runs"), f"a preference compares two runs or more; "
                                                        f"{len(self.runs)} given"))
        return problems


# --------------------------------------------------------------------------- compare

def options_of(request):
    from evalgui.core.stats.compare import CompareOptions

    try:
        return CompareOptions(test=request.test or "t", correction=request.correction, alpha=request.alpha,
                              samples=request.samples, seed=request.seed,
                              baselines=tuple(getattr(request, "baselines", ())),
                              fill_missing=getattr(request, "complete", False),
                              tie_tolerance=getattr(request, "tie_tolerance", 0.0))
    except ValueError as exc:
        raise EvalUsageError(str(exc)) from None


def run_names(runs: list, paths: list[str], inputs: Inputs) -> list[str]:
    """What results call the runs: the front end's names when it gave them, else unique file-based names."""
    from evalgui.core.ranked.evaluate import unique_run_names

    given = [inputs.name(p) for p in paths]
    return given if all(given) else unique_run_names(runs)


def run_compare(request: CompareRequest, state: JobState | None = None, inputs: Inputs | None = None) -> Outcome:
    """Evaluate (when the source is runs) and compare; the outcome's tables are listed in the module's doc."""
    from evalgui.core.stats.compare import compare

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    notes: list[str] = []
    files: dict[str, str] = {}
    checks = None
    if request.scores:
        scores, names, measures, universe = _from_scores(request, inputs)
    else:
        from evalgui.core.advisor import RunChecks

        evaluation = state.scaled(0.0, EVALUATION_SHARE)
        # judged shares and ties, while each ranking is at hand
        checks = RunChecks(eval_options(request), request.judged_below / 100)
        scores, names, files, measures, universe, notes = _from_runs(request, inputs, evaluation, checks)
        state = state.scaled(EVALUATION_SHARE, 1.0)
    options = options_of(request)
    options = type(options)(**{**options.__dict__, "baselines": tuple(files.get(b, b) for b in request.baselines)})
    try:
        comparison = compare(scores, names, measures, options, universe, state)
    except EvalUsageError:
        raise
    except ValueError as exc:            # e.g. a baseline that is not one of the runs
        raise EvalUsageError(str(exc)) from None
    for query_set in comparison.query_sets.values():
        if query_set.missing:
            notes.append(MeasureNote(query_set.measure, query_set.describe()[len(query_set.measure):]))
        if not query_set.queries:
            raise EvalUsageError(f"{query_set.measure}: no query is shared by every run, so there is nothing to "
                                 f"compare. {query_set.describe()} Score missing queries as 0 to compare over "
                                 "every query.")
    notes += comparison.warnings                 # e.g. one query: the p-values are undefined
    outcome = comparison_outcome(request, comparison, notes)
    from evalgui.core.advisor import compare_caveats, table

    outcome.tables["caveats"] = table(compare_caveats(comparison, checks, scores))
    return outcome.stamp()


def _from_runs(request: CompareRequest, inputs: Inputs, state: JobState, checks=None):
    import numpy as np
    import pandas as pd

    from evalgui.core.ranked.evaluate import evaluate_columns
    from evalgui.core.ranked.specs import parse_measures

    specs = parse_measures(list(request.measures))
    qrels = inputs.get(request.qrels, "qrels", topic=request.topic) if request.topic else \
        inputs.get(request.qrels, "qrels")
    from evalgui.core.ranked.by_query import run_file

    # Files are read one at a time as their turn comes, and let go (by query when too large to hold):
    # a hundred runs never sit in memory together; data given in memory is used as it is.
    runs = [inputs.get(path, "run") if inputs.has(path) or path.startswith("<") else run_file(path)
            for path in request.runs]
    names = run_names(runs, list(request.runs), inputs)
    from evalgui.core.workflows.common import absent_note

    absent_notes: list[Problem] = []

    def absent(run, topics):
        if topics:
            absent_notes.append(absent_note(run.source, topics, request.param("complete")))

    options = eval_options(request)
    from evalgui.core.ranked.evaluate import unique_run_names as _unique

    renamed_of = dict(zip(_unique(runs), names)).get
    columns = evaluate_columns(qrels, runs, specs, options, per_query=True, state=state,
                               on_absent=None if options.complete else absent,
                               on_evaluation=None if checks is None else
                               lambda name, evaluation: checks.add(renamed_of(name), evaluation, specs),
                               on_part=None if checks is None else
                               lambda name, part: checks.add_part(renamed_of(name), part, specs))
    from evalgui.core.ranked.evaluate import unique_run_names

    renamed = dict(zip(unique_run_names(runs), names))
    if any(k != v for k, v in renamed.items()):
        columns["run"] = np.array([renamed[name] for name in columns["run"]], dtype=object)
    scores = pd.DataFrame(columns)
    per_query = scores[scores[tidy.QUERY] != tidy.ALL_QUERIES]
    finite = np.isfinite(per_query[tidy.VALUE].to_numpy(dtype=np.float64, na_value=np.nan))
    measures = list(dict.fromkeys(per_query[tidy.MEASURE][finite].tolist()))
    left_out = [m for m in dict.fromkeys(scores[tidy.MEASURE].tolist()) if m not in measures]
    if not measures:
        raise EvalUsageError("none of the measures has per-query values to compare")
    notes = absent_notes + ([f"not compared (no per-query values): {', '.join(left_out)}"] if left_out else [])
    files = dict(zip(request.runs, names))
    return per_query, names, files, measures, [str(q) for q in qrels.query_ids], notes


def _from_scores(request: CompareRequest, inputs: Inputs):
    import numpy as np

    table = inputs.get(request.scores, "per-query scores")
    frame = table.frame if hasattr(table, "frame") else table
    if not len(frame):
        raise EvalUsageError(f"{request.scores}: only summary rows (query 'all'); comparing needs per-query values "
                             "(evaluate --per-query writes them)")
    runs = list(request.score_runs) or list(getattr(table, "runs", None) or dict.fromkeys(frame[tidy.RUN].tolist()))
    per_query = frame[frame[tidy.QUERY] != tidy.ALL_QUERIES]
    if request.score_runs:
        per_query = per_query[per_query[tidy.RUN].isin(runs)]
    values = per_query[tidy.VALUE]
    numeric = per_query[np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))] \
        if values.dtype.kind == "f" else per_query
    measures = list(dict.fromkeys(numeric[tidy.MEASURE].tolist()))
    if request.measures:
        unknown = [m for m in request.measures if m not in measures]
        if unknown:
            raise EvalUsageError(f"{request.scores} has no per-query values of '{unknown[0]}' "
                                 f"(it has {', '.join(measures)})")
        measures = list(dict.fromkeys(request.measures))
        per_query = per_query[per_query[tidy.MEASURE].isin(measures)]
    if not measures:
        raise EvalUsageError("none of the measures has per-query values to compare")
    return per_query, runs, measures, None


def comparison_outcome(request, comparison, notes: list[str]) -> Outcome:
    """A Comparison as the outcome's tables (see the module's doc)."""
    import numpy as np
    import pandas as pd

    per_query = []
    for measure, frame in comparison.per_query.items():
        long = frame.rename_axis(tidy.QUERY).reset_index().melt(id_vars=tidy.QUERY, var_name=tidy.RUN,
                                                                value_name=tidy.VALUE)
        long.insert(0, tidy.MEASURE, measure)
        per_query.append(long[[tidy.MEASURE, tidy.QUERY, tidy.RUN, tidy.VALUE]])
    query_sets = pd.DataFrame(
        [{"measure": q.measure, "policy": q.policy, "universe": q.universe, "n_queries": len(q.queries),
          "dropped": q.dropped, "difference_required": comparison.difference_required.get(q.measure, np.nan)}
         for q in comparison.query_sets.values()],
        columns=["measure", "policy", "universe", "n_queries", "dropped", "difference_required"])
    missing = pd.DataFrame([(q.measure, run, query) for q in comparison.query_sets.values()
                            for run, queries in q.missing.items() for query in queries],
                           columns=["measure", tidy.RUN, tidy.QUERY])
    tables = {"comparison": comparison.table, "matrix": matrix_table(comparison.table, comparison.runs),
              "per_query": pd.concat(per_query, ignore_index=True) if per_query else
              pd.DataFrame(columns=[tidy.MEASURE, tidy.QUERY, tidy.RUN, tidy.VALUE]),
              "query_sets": query_sets, "missing": missing}
    outcome = Outcome("compare", request, tables, list(notes))
    outcome.comparison = comparison          # the engine's object, for views that draw from it (not saved)
    return outcome


MATRIX_COLUMNS = ("measure", "row", "column", "mean_row", "mean_column", "diff", "ci_low", "ci_high", "effect_size",
                  "p_value", "p_adjusted", "significant", "wins", "ties", "losses", "n_queries")


def matrix_table(table, runs: list[str]):
    """Every tested pair in both orders, seen from the row run: the matrix views' cells (vectorised)."""
    import numpy as np
    import pandas as pd

    if not len(table):
        return pd.DataFrame(columns=list(MATRIX_COLUMNS))
    t = table
    forward = pd.DataFrame({
        "measure": t["measure"], "row": t["run_a"], "column": t["run_b"], "mean_row": t["mean_a"],
        "mean_column": t["mean_b"], "diff": t["diff"], "ci_low": t["ci_low"], "ci_high": t["ci_high"],
        "effect_size": t["effect_size"], "p_value": t["p_value"], "p_adjusted": t["p_adjusted"],
        "significant": t["significant"], "wins": t["wins"], "ties": t["ties"], "losses": t["losses"],
        "n_queries": t["n_queries"]})
    backward = forward.assign(row=t["run_b"].to_numpy(), column=t["run_a"].to_numpy(),
                              mean_row=t["mean_b"].to_numpy(), mean_column=t["mean_a"].to_numpy(),
                              diff=-t["diff"].to_numpy(), ci_low=-t["ci_high"].to_numpy(),
                              ci_high=-t["ci_low"].to_numpy(), effect_size=-t["effect_size"].to_numpy(),
                              wins=t["losses"].to_numpy(), losses=t["wins"].to_numpy())
    both = pd.concat([forward, backward], ignore_index=True)
    order = {run: i for i, run in enumerate(runs)}
    measure_order = {m: i for i, m in enumerate(dict.fromkeys(t["measure"].tolist()))}
    keys = np.lexsort((both["column"].map(order).to_numpy(), both["row"].map(order).to_numpy(),
                       both["measure"].map(measure_order).to_numpy()))
    out = both.iloc[keys].reset_index(drop=True)
    out["diff"] = out["diff"] + 0.0                   # no -0.0
    return out[list(MATRIX_COLUMNS)]


def comparison_from_outcome(outcome: Outcome):
    """The engine's Comparison rebuilt from a (saved) outcome's tables, for the views; None if they are not there."""
    import pandas as pd

    from evalgui.core.stats.compare import Comparison, QuerySet

    existing = getattr(outcome, "comparison", None)
    if existing is not None:
        return existing
    try:
        table = outcome.tables["comparison"]
        per_query_long = outcome.tables["per_query"]
        query_sets_table = outcome.tables["query_sets"]
        missing = outcome.tables["missing"]
    except KeyError:
        return None
    measures = list(dict.fromkeys(query_sets_table["measure"].tolist()))
    runs = list(dict.fromkeys(per_query_long[tidy.RUN].tolist()))
    per_query, query_sets, required = {}, {}, {}
    for measure in measures:
        part = per_query_long[per_query_long[tidy.MEASURE] == measure]
        wide = part.pivot(index=tidy.QUERY, columns=tidy.RUN, values=tidy.VALUE)
        queries = list(dict.fromkeys(part[tidy.QUERY].tolist()))
        per_query[measure] = wide.reindex(index=queries, columns=runs).rename_axis(None).rename_axis(None, axis=1)
        row = query_sets_table[query_sets_table["measure"] == measure].iloc[0]
        lacking = missing[missing["measure"] == measure]
        by_run = {run: list(group[tidy.QUERY]) for run, group in lacking.groupby(tidy.RUN, sort=False)}
        query_sets[measure] = QuerySet(measure, [str(q) for q in queries], str(row["policy"]), int(row["universe"]),
                                       by_run)
        if not pd.isna(row["difference_required"]):
            required[measure] = float(row["difference_required"])
    comparison = Comparison(table, runs, measures, options_of(outcome.request), query_sets, required, per_query)
    outcome.comparison = comparison
    return comparison


# --------------------------------------------------------------------------- preferences

PREFERENCE_TABLES = ("pairs", "ranking", "matrix", "pair_queries")
# The per-query preferences of every pair (``pair_queries``, what a matrix cell opens) are kept in the outcome,
# and so in projects, up to this many rows (measures × pairs × queries: 30 runs, 2 measures and 100 queries
# fit; a project grows by about 8 MB and takes under half a second more to save). Past it the outcome keeps
# none: while the session lasts, a pair is read on demand from the engine's result that the outcome holds
# anyway (:func:`pair_preferences`); results reopened from a project must be run again.
PAIR_QUERY_ROWS = 100_000


def run_preference(request: PreferenceRequest, state: JobState | None = None, inputs: Inputs | None = None,
                   per_query: bool = False, tables: tuple[str, ...] = PREFERENCE_TABLES) -> Outcome:
    """Every two runs' preferences, tested when a test is chosen; the ``tables`` asked for, of ``pairs``,
    ``ranking`` and ``matrix`` (the pairs table alone, untested, needs no pandas: a fresh process starts
    faster)."""
    import os
    from functools import partial

    from evalgui.core.ranked.preference import compare as prefer, default_measures, measure as preference_measure

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    measures = list(dict.fromkeys(request.measures))
    for name in measures:
        preference_measure(name)        # an unknown name stops here, before any file is read
    options = options_of(request) if request.test else None
    qrels = inputs.get(request.qrels, "qrels", topic=request.topic) if request.topic else \
        inputs.get(request.qrels, "qrels")
    measures = measures or default_measures(qrels)     # ST-RPP only with subtopic qrels
    notes: list[str] = []

    def lacking(run, absent: list[str]) -> None:
        if absent:
            shown = ", ".join(absent[:5]) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
            notes.append(f"{len(absent)} quer{'y' if len(absent) == 1 else 'ies'} with relevant documents "
                         f"{'has' if len(absent) == 1 else 'have'} no results in {run.source}: counted as "
                         f"retrieving nothing ({shown})")

    from evalgui.core.advisor import judged_data

    check = partial(judged_data, measures=measures)        # each run's judged shares, while its ranking is at hand
    in_memory = all(inputs.has(p) for p in request.runs)
    if in_memory:
        loaders = [inputs.get(p, "run") for p in request.runs]
        result = prefer(qrels, loaders, measures, binary_threshold=request.binary_threshold,
                        state=state.scaled(0.0, 0.5), on_run=lacking, check=check)
        names = [inputs.name(p) for p in request.runs]
        if all(names):
            result.run_names = names
    else:
        # Runs are read, reduced to their relevance vectors and dropped, a few at a time on every core.
        loaders = [partial(inputs.get, path, "run") for path in request.runs]
        result = prefer(qrels, loaders, measures, binary_threshold=request.binary_threshold, n_runs=len(loaders),
                        workers=min(os.cpu_count() or 1, 4), on_run=lacking, state=state.scaled(0.0, 0.5),
                        check=check)
    return preference_outcome(request, result, options, notes, state.scaled(0.5, 1.0), per_query, tables).stamp()


def preference_outcome(request, result, options, notes, state: JobState, per_query: bool = False,
                       wanted: tuple[str, ...] = PREFERENCE_TABLES) -> Outcome:
    if wanted == ("pairs",) and options is None:
        outcome = Outcome("compare", request, {"pairs": result.tidy_columns(per_query=per_query)}, list(notes))
        outcome.preferences, outcome.result = None, result
        from evalgui.core.advisor import preference_caveats

        outcome.caveat_list = preference_caveats(result, None, request)
        return outcome
    import pandas as pd

    from evalgui.core.stats.compare import compare_preferences, preference_ranking

    try:
        tested = compare_preferences(result, options, state) if options is not None else None
    except ValueError as exc:
        raise EvalUsageError(str(exc)) from None
    notes = [*notes, *(tested.warnings if tested is not None else ())]
    matrices = []
    for name in result.measures:
        frame = (tested.matrices[name] if tested is not None else result.matrix_frame(name)).reset_index()
        frame.columns = [str(c) for c in frame.columns]
        frame.insert(0, tidy.MEASURE, name)
        matrices.append(frame)
    tables = {
        "pairs": result.tidy_columns(per_query=per_query) if tested is None else
        with_tests(result.to_frame(per_query=per_query), tested.table),
        "ranking": tested.ranking if tested is not None else preference_ranking(result),
        "matrix": pd.concat(matrices, ignore_index=True) if matrices else pd.DataFrame(),
    }
    if tested is not None:
        tables["tests"] = tested.table
    tables["info"] = pd.DataFrame({"n_queries": [len(result.query_ids)],
                                   "runs": [len(result.run_names)]})
    if "pair_queries" in wanted and pair_query_rows(result) <= PAIR_QUERY_ROWS:
        tables["pair_queries"] = pd.DataFrame(result.pair_query_columns())
    from evalgui.core.advisor import preference_caveats, table

    tables["caveats"] = table(preference_caveats(result, tested, request))
    outcome = Outcome("compare", request, tables, list(notes))
    outcome.preferences = tested
    outcome.result = result
    return outcome


def pair_query_rows(result) -> int:
    """How many rows ``pair_queries`` has for an engine result: measures × pairs × queries."""
    return len(result.measures) * len(result.pair_a) * len(result.query_ids)


def pair_preferences(outcome: Outcome, measure: str, row_run: str, column_run: str):
    """One pair's per-query preferences, for the cell (``row_run``, ``column_run``) of the matrix: a DataFrame
    (query, preference of the row run over the column run, in the outcome's query order), or a plain sentence
    saying why there are none. Read from the outcome's ``pair_queries`` table, else from the engine's result it
    still holds (a big comparison, in the session that ran it); never recomputed from the runs."""
    import numpy as np
    import pandas as pd

    from evalgui.core.ranked.preference import RUN_A, RUN_B

    if row_run == column_run:
        return "A run compared with itself has no preferences."
    table = outcome.tables.get("pair_queries")
    if table is not None:
        part = table[table[tidy.MEASURE].to_numpy() == measure]
        a, b = part[RUN_A].to_numpy(), part[RUN_B].to_numpy()
        forward = (a == row_run) & (b == column_run)
        if forward.any():
            return pd.DataFrame({tidy.QUERY: part[tidy.QUERY].to_numpy()[forward].astype(object),
                                 "preference": part["preference"].to_numpy(dtype=np.float64)[forward] + 0.0})
        backward = (a == column_run) & (b == row_run)
        if backward.any():
            return pd.DataFrame({tidy.QUERY: part[tidy.QUERY].to_numpy()[backward].astype(object),
                                 "preference": 0.0 - part["preference"].to_numpy(dtype=np.float64)[backward]})
        return f"The results hold no {measure} preferences between {row_run} and {column_run}."
    result = getattr(outcome, "result", None)
    if result is not None and measure in result.per_query and {row_run, column_run} <= set(result.run_names):
        queries, values = result.pair_preferences(measure, row_run, column_run)
        return pd.DataFrame({tidy.QUERY: queries, "preference": values})
    info = outcome.tables.get("info")
    matrix = outcome.tables.get("matrix")
    if info is not None and len(info) and matrix is not None:
        runs = int(info["runs"].iloc[0])
        measures = len(dict.fromkeys(matrix[tidy.MEASURE].tolist()))
        rows = measures * runs * (runs - 1) // 2 * int(info["n_queries"].iloc[0])
        if rows > PAIR_QUERY_ROWS:
            return (f"With {runs} runs the per-query preferences ({rows:,} values) are too many to keep in a "
                    "project, so these results, read from one, have none. Press Run to compute them "
                    "again, then click the cell.")
    return ("These results were saved by an older version of evalgui, which kept only each pair's mean "
            "preference, not its preference on each query. Press Run to compute them again, then "
            "click the cell.")


def preferences_from_outcome(outcome: Outcome, untested: bool = False):
    """The engine's tested PreferenceComparison rebuilt from a (saved) outcome's tables; None without a test,
    unless ``untested``: then one without verdicts (no tested pair, ``tested`` False) from the means."""
    import numpy as np
    import pandas as pd

    from evalgui.core.ranked.preference import RUN_A, RUN_B
    from evalgui.core.stats.compare import PREFERENCE_COLUMNS, PreferenceComparison

    existing = getattr(outcome, "preferences", None)
    if existing is not None and (existing.tested or untested):
        return existing
    tables = outcome.tables
    if "matrix" not in tables or "ranking" not in tables:
        return None
    tested = "tests" in tables
    if not tested and not untested:
        return None
    matrix = tables["matrix"]
    measures = list(dict.fromkeys(matrix[tidy.MEASURE].tolist()))
    runs = [c for c in matrix.columns if c not in (tidy.MEASURE, RUN_A)]
    matrices = {}
    for measure in measures:
        part = matrix[matrix[tidy.MEASURE] == measure]
        matrices[measure] = pd.DataFrame(part[runs].to_numpy(dtype=np.float64), index=pd.Index(runs, name=RUN_A),
                                         columns=pd.Index(runs, name=RUN_B))
    n_queries = int(tables["info"]["n_queries"].iloc[0]) if "info" in tables and len(tables["info"]) else 0
    request = outcome.request
    table = tables["tests"] if tested else pd.DataFrame({c: [] for c in PREFERENCE_COLUMNS})
    comparison = PreferenceComparison(table, tables["ranking"], matrices, runs, measures, options_of(request),
                                      n_queries, request.binary_threshold, tested=tested)
    outcome.preferences = comparison
    return comparison


# --------------------------------------------------------------------------- version-1 projects

def outcomes_from_v1(state) -> tuple[Outcome | None, Outcome | None]:
    """The comparison and preference outcomes a version-1 project saved (its own layout); (None, None) when
    ``state`` is not that."""
    import numpy as np
    import pandas as pd

    from evalgui.core.ranked.preference import RUN_A
    from evalgui.core.stats.compare import Comparison, QuerySet

    if not isinstance(state, dict):
        return None, None
    comparison_outcome_ = preference_outcome_ = None
    try:
        runs = [str(r) for r in state["runs"]]
        measures = [str(m) for m in state["measures"]]
        saved = dict(state["options"])
        request = CompareRequest(test=saved.get("test", "t"), correction=saved.get("correction", "holm"),
                                 alpha=saved.get("alpha", 0.05), samples=saved.get("samples"),
                                 seed=saved.get("seed", 42), baselines=list(saved.get("baselines", ())),
                                 complete=bool(saved.get("fill_missing", False)),
                                 tie_tolerance=saved.get("tie_tolerance", 0.0), measures=measures)
        table = pd.DataFrame(state["table"])
        query_sets = {q["measure"]: QuerySet(q["measure"], list(q["queries"]), q["policy"], int(q["universe"]),
                                             {str(k): list(v) for k, v in q["missing"].items()})
                      for q in state["query_sets"]}
        per_query = {m: pd.DataFrame(np.asarray(p["values"], dtype=np.float64).reshape(len(p["queries"]), len(runs)),
                                     index=p["queries"], columns=runs) for m, p in state["per_query"].items()}
        required = {str(k): float(v) for k, v in state.get("difference_required", {}).items()}
        if set(measures) <= set(per_query) and set(measures) <= set(query_sets):
            comparison = Comparison(table, runs, measures, options_of(request), query_sets, required, per_query)
            comparison_outcome_ = comparison_outcome(request, comparison, [])
    except (KeyError, TypeError, ValueError, AttributeError):
        comparison_outcome_ = None
    saved_preferences = state.get("preferences")
    if isinstance(saved_preferences, dict):
        try:
            p = saved_preferences
            runs = [str(r) for r in p["runs"]]
            measures = [str(m) for m in p["measures"]]
            saved = dict(p["options"])
            threshold = p.get("binary_threshold")
            request = PreferenceRequest(test=saved.get("test", "t"), correction=saved.get("correction", "holm"),
                                        alpha=saved.get("alpha", 0.05), samples=saved.get("samples"),
                                        seed=saved.get("seed", 42), baselines=list(saved.get("baselines", ())),
                                        measures=measures, binary_threshold=threshold)
            matrices = []
            for measure in measures:
                values = np.asarray(p["matrices"][measure], dtype=np.float64).reshape(len(runs), len(runs))
                frame = pd.DataFrame(values, columns=runs)
                frame.insert(0, RUN_A, runs)
                frame.insert(0, tidy.MEASURE, measure)
                matrices.append(frame)
            tables = {"tests": pd.DataFrame(p["table"]), "ranking": pd.DataFrame(p["ranking"]),
                      "matrix": pd.concat(matrices, ignore_index=True),
                      "info": pd.DataFrame({"n_queries": [int(p["n_queries"])], "runs": [len(runs)]})}
            preference_outcome_ = Outcome("compare", request, tables, [])
            if preferences_from_outcome(preference_outcome_) is None:
                preference_outcome_ = None
        except (KeyError, TypeError, ValueError, AttributeError):
            preference_outcome_ = None
    return comparison_outcome_, preference_outcome_


# What a test adds to each pair's mean (query 'all'), in this order.
TEST_COLUMNS = ("ci_low", "ci_high", "effect_size", "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                "n_queries", "test", "samples", "seed", "correction", "alpha", "queries", "binary_threshold")


def with_tests(pairs, tests):
    """The tidy pairs table, each pair's mean (query 'all') followed by its test's columns (empty on the
    per-query rows)."""
    import pandas as pd

    if isinstance(pairs, dict):
        pairs = pd.DataFrame(pairs)
    tests = tests.drop(columns="preference").assign(**{tidy.QUERY: tidy.ALL_QUERIES})
    table = pairs.merge(tests, on=[tidy.MEASURE, "run_a", "run_b", tidy.QUERY], how="left", sort=False)
    for column in ("wins", "ties", "losses", "n_queries", "samples", "seed"):
        table[column] = pd.array(table[column], dtype="Int64")      # whole numbers stay whole beside the gaps
    return table[[*pairs.columns, *TEST_COLUMNS]]


WORKFLOWS = (
    Workflow("compare", "compare", "Compare systems: significance tests", CompareRequest, run_compare),
    Workflow("preference", "compare", "Compare systems: preferences", PreferenceRequest, run_preference),
)
