"""What the compare workspace asks of the engines, without Qt.

:func:`comparison_job` is the one job Run starts: it evaluates the runs first when
the source is runs + qrels (as ``evalgui-cli compare`` does), then compares, and
with preferences ticked compares every two runs' rankings directly and tests those
preferences (as ``evalgui-cli preference --test``), with progress and Cancel through
the :class:`~evalgui.core.jobs.JobState`. :func:`comparison_state`,
:func:`comparison_from_state`, :func:`preferences_state` and
:func:`preferences_from_state` keep the results in a project file and bring them back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalgui.core import tidy
from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState
from evalgui.core.stats.compare import Comparison, CompareOptions, PreferenceComparison, QuerySet, compare

EVALUATION_SHARE = 0.4       # of the progress bar, when the runs are evaluated first
PREFERENCE_SHARE = 0.4       # of the progress bar, when preferences follow the comparison


@dataclass(frozen=True)
class RunsSource:
    """Runs and qrels, evaluated on the worker before comparing."""

    qrels: object                        # evalgui.core.data.Qrels
    runs: list                           # evalgui.core.data.Run, in the order chosen
    names: list[str]                     # what the results call them (as the session names the files)
    specs: list[str]                     # measures as the picker writes them (P.10, map...)
    eval_options: object                 # evalgui.core.ranked.evaluate.EvalOptions
    preferences: list[str] = field(default_factory=list)    # rpp, lexirecall...: compared and tested too
    binary_threshold: int | None = None  # of the preferences (None: graded)


@dataclass(frozen=True)
class ScoresSource:
    """Per-query scores (a loaded table, or the Ranked retrieval tab's results): compared as they are."""

    frames: list[pd.DataFrame]           # tidy pieces (run, query, measure, value); summary rows are skipped
    runs: list[str]
    measures: list[str]


@dataclass
class Outcome:
    comparison: Comparison | None                      # None: preferences only
    notes: list[str] = field(default_factory=list)     # what the user should know (measures left out)
    preferences: PreferenceComparison | None = None


def comparison_job(source: RunsSource | ScoresSource, options: CompareOptions):
    def job(state: JobState) -> Outcome:
        notes: list[str] = []
        comparison = preferences = None
        wanted = source.preferences if isinstance(source, RunsSource) else []
        if isinstance(source, RunsSource) and not source.specs:          # preferences only
            return Outcome(None, notes, _preferred(source, options, notes, state))
        rest = state.scaled(0.0, 1.0 - PREFERENCE_SHARE) if wanted else state
        if isinstance(source, RunsSource):
            scores, runs, measures, universe, notes = _evaluated(source, rest.scaled(0.0, EVALUATION_SHARE))
            rest = rest.scaled(EVALUATION_SHARE, 1.0)
        else:
            scores, runs, measures, universe = _selected(source), list(source.runs), list(source.measures), None
        comparison = _compared(scores, runs, measures, options, universe, rest)
        notes += comparison.warnings                   # e.g. one query: the p-values are undefined
        if wanted:
            preferences = _preferred(source, options, notes, state.scaled(1.0 - PREFERENCE_SHARE, 1.0))
        return Outcome(comparison, notes, preferences)
    return job


def _compared(scores, runs, measures, options, universe, state: JobState) -> Comparison:
    try:
        comparison = compare(scores, runs, measures, options, universe, state)
    except EvalUsageError:
        raise
    except ValueError as exc:            # e.g. a baseline that is not one of the runs: the user's to fix
        raise EvalUsageError(str(exc)) from None
    for query_set in comparison.query_sets.values():
        if not query_set.queries:
            raise EvalUsageError(
                f"{query_set.measure}: no query is shared by every run, so there is nothing to compare. "
                f"{query_set.describe()} Tick 'Score missing queries as 0' to compare over every query.")
    return comparison


def _preferred(source: RunsSource, options: CompareOptions, notes: list[str], state: JobState) -> PreferenceComparison:
    """Every two runs' preferences (the runs are in memory already), then their tests."""
    from evalgui.core.ranked.preference import compare as prefer
    from evalgui.core.stats.compare import compare_preferences

    lacking: list[list[str]] = []          # per run, in order: queries with relevant documents it has no results for
    result = prefer(source.qrels, source.runs, source.preferences, binary_threshold=source.binary_threshold,
                    state=state.scaled(0.0, 0.5), on_run=lambda run, absent: lacking.append(absent))
    result.run_names = list(source.names)          # as the window names them (the engine names them among themselves)
    short = [f"{name} ({len(absent)})" for name, absent in zip(source.names, lacking) if absent]
    if short:
        notes.append("Preferences: runs without results for some queries with relevant documents count as "
                     f"retrieving nothing there: {', '.join(short)}.")
    try:
        tested = compare_preferences(result, options, state.scaled(0.5, 1.0))
    except ValueError as exc:
        raise EvalUsageError(str(exc)) from None
    notes += tested.warnings
    return tested


def _evaluated(source: RunsSource, state: JobState):
    from evalgui.core.ranked.evaluate import evaluate_columns, unique_run_names
    from evalgui.core.ranked.specs import parse_measures

    if not source.specs:
        raise EvalUsageError("no measure is ticked: choose at least one")
    requests = parse_measures(source.specs)
    columns = evaluate_columns(source.qrels, source.runs, requests, source.eval_options, per_query=True,
                               state=state)
    # The engine names the runs among themselves; the window names them among the session's files.
    renamed = dict(zip(unique_run_names(source.runs), source.names))
    columns["run"] = np.array([renamed[name] for name in columns["run"]], dtype=object)
    scores = pd.DataFrame(columns)
    names = list(source.names)
    per_query = scores[scores[tidy.QUERY] != tidy.ALL_QUERIES]
    finite = np.isfinite(per_query[tidy.VALUE].to_numpy(dtype=np.float64, na_value=np.nan))
    measures = list(dict.fromkeys(per_query[tidy.MEASURE][finite].tolist()))
    left_out = [m for m in dict.fromkeys(scores[tidy.MEASURE].tolist()) if m not in measures]
    if not measures:
        raise EvalUsageError("none of the ticked measures has per-query values to compare "
                             f"({', '.join(left_out)} are totals over all queries)")
    notes = [f"Not compared (no per-query values): {', '.join(left_out)}."] if left_out else []
    return per_query, names, measures, [str(q) for q in source.qrels.query_ids], notes


def _selected(source: ScoresSource) -> pd.DataFrame:
    """The chosen runs' and measures' per-query rows (other runs' queries must not count as dropped)."""
    frame = pd.concat(source.frames, ignore_index=True) if source.frames else \
        pd.DataFrame(columns=list(tidy.COLUMNS))
    keep = (frame[tidy.RUN].isin(source.runs) & frame[tidy.MEASURE].isin(source.measures)
            & (frame[tidy.QUERY] != tidy.ALL_QUERIES))
    return frame[keep]


# ---------------------------------------------------------------------------- projects
def comparison_state(comparison: Comparison) -> dict:
    """A comparison as plain JSON-able values: the tidy table, the query sets and the per-query scores."""
    options = dataclasses.asdict(comparison.options)
    options["baselines"] = list(comparison.options.baselines)
    return {
        "table": {c: comparison.table[c].tolist() for c in comparison.table.columns},
        "runs": list(comparison.runs),
        "measures": list(comparison.measures),
        "options": options,
        "query_sets": [{"measure": q.measure, "queries": list(q.queries), "policy": q.policy,
                        "universe": q.universe, "missing": q.missing} for q in comparison.query_sets.values()],
        "difference_required": dict(comparison.difference_required),
        "per_query": {m: {"queries": [str(q) for q in f.index], "values": f.to_numpy().tolist()}
                      for m, f in comparison.per_query.items()},
    }


def comparison_from_state(state) -> Comparison | None:
    """The comparison :func:`comparison_state` saved; None when ``state`` is not one (another version's)."""
    try:
        runs = [str(r) for r in state["runs"]]
        measures = [str(m) for m in state["measures"]]
        options = dict(state["options"])
        options["baselines"] = tuple(options.get("baselines", ()))
        options = CompareOptions(**options)
        table = pd.DataFrame(state["table"])
        query_sets = {q["measure"]: QuerySet(q["measure"], list(q["queries"]), q["policy"], int(q["universe"]),
                                             {str(k): list(v) for k, v in q["missing"].items()})
                      for q in state["query_sets"]}
        per_query = {m: pd.DataFrame(np.asarray(p["values"], dtype=np.float64).reshape(len(p["queries"]), len(runs)),
                                     index=p["queries"], columns=runs) for m, p in state["per_query"].items()}
        required = {str(k): float(v) for k, v in state.get("difference_required", {}).items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if not set(measures) <= set(per_query) or not set(measures) <= set(query_sets):
        return None
    return Comparison(table, runs, measures, options, query_sets, required, per_query)


def preferences_state(preferences: PreferenceComparison) -> dict:
    """Tested preferences as plain JSON-able values: the tables and every measure's matrix (not the per-query
    preferences: the views need only these)."""
    options = dataclasses.asdict(preferences.options)
    options["baselines"] = list(preferences.options.baselines)
    return {
        "table": _columns(preferences.table),
        "ranking": _columns(preferences.ranking),
        "matrices": {m: f.to_numpy().tolist() for m, f in preferences.matrices.items()},
        "runs": list(preferences.runs),
        "measures": list(preferences.measures),
        "options": options,
        "n_queries": preferences.n_queries,
        "binary_threshold": preferences.binary_threshold,
    }


def _columns(frame: pd.DataFrame) -> dict:
    return {c: [None if v is pd.NA else v for v in frame[c].tolist()] for c in frame.columns}


def preferences_from_state(state) -> PreferenceComparison | None:
    """What :func:`preferences_state` saved; None when ``state`` is not that."""
    from evalgui.core.ranked.preference import RUN_A, RUN_B

    try:
        runs = [str(r) for r in state["runs"]]
        measures = [str(m) for m in state["measures"]]
        options = dict(state["options"])
        options["baselines"] = tuple(options.get("baselines", ()))
        options = CompareOptions(**options)
        matrices = {str(m): pd.DataFrame(np.asarray(v, dtype=np.float64).reshape(len(runs), len(runs)),
                                         index=pd.Index(runs, name=RUN_A), columns=pd.Index(runs, name=RUN_B))
                    for m, v in state["matrices"].items()}
        threshold = state.get("binary_threshold")
        restored = PreferenceComparison(pd.DataFrame(state["table"]), pd.DataFrame(state["ranking"]), matrices, runs,
                                        measures, options, int(state["n_queries"]),
                                        None if threshold is None else int(threshold))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return restored if set(measures) <= set(matrices) else None
