"""Meta-evaluation: how good is each measure? (:class:`MetaevalRequest`, :func:`run_metaeval`).

One experiment, chosen by ``experiment``, on the per-query scores of every measure: from judgments
and runs (ranked once; robustness evaluates them again with judgments removed), or from a per-query
scores table. The outcome's tables:

- ``table``: the experiment's rates, one row per measure (and set size, or fraction): what
  ``evalgui-cli metaeval`` writes;
- stability: ``matrix``, the better/worse/equal counts of every ordered pair of runs, per measure,
  at the largest set size (``--matrix``);
- power: ``curves``, every pair's p-value sorted, per measure (Sakai's curves, ``--curves``);
- robustness: ``per_repetition``, Kendall's tau and the flipped pairs of every repetition
  (``--per-repetition``).

The outcome also keeps the engine's result (``outcome.result``), the runs and the measures
compared and the query report for the window's plots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.common import EVALUATION, JUDGED_BELOW, QRELS
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.metaeval.catalogue import MAX_REPETITIONS, MAX_SET_SIZE, MAX_SETS
from evalgui.core.stats.catalogue import MAX_SAMPLES
from evalgui.core.workflows.params import Param, Problem, Request

PREPARING_SHARE, EVALUATING_SHARE = 0.2, 0.3      # of the progress bar: ranking, then full judgments

# The caps are the engine's (evalgui.core.metaeval.catalogue, stats.catalogue): beyond them an experiment
# would run for hours, or its arrays would not fit in memory. Caps on products (sets x repetitions,
# fractions x repetitions) and robustness's own repetitions are checked by the engine's settings.
TIME = "the running time"


EXPERIMENT_LABELS = {"stability": "Stability (error rate)", "power": "Discriminative power",
                     "robustness": "Robustness to incomplete judgments", "agreement": "Agreement between measures"}


def _choices(names, labels) -> tuple:
    return tuple((name, labels.get(name, name)) for name in names)


def _experiments() -> tuple:
    from evalgui.core.metaeval.catalogue import EXPERIMENTS

    return _choices(EXPERIMENTS, EXPERIMENT_LABELS)


def _tests() -> tuple:
    from evalgui.core.stats.catalogue import TESTS
    from evalgui.core.workflows.compare import TEST_LABELS

    return _choices(TESTS, TEST_LABELS)


def _corrections() -> tuple:
    from evalgui.core.stats.catalogue import CORRECTIONS
    from evalgui.core.workflows.compare import CORRECTION_LABELS

    return _choices(CORRECTIONS, CORRECTION_LABELS)


class MetaevalRequest(Request):
    WORKSPACE = "metaeval"
    PARAMS = (
        QRELS,
        Param(name="runs", type="files", default=(), metavar="RUN", label="Runs",
              help="The runs whose rankings the measures are judged by (at least two)."),
        Param(name="scores", type="file", default=None, flag="--scores", metavar="FILE", label="Per-query scores",
              help="A per-query scores table (run, query, measure, value), e.g. a per-query table exported or "
                   "written by evalgui-cli evaluate, instead of judgments and runs; not for robustness, which "
                   "evaluates the runs again."),
        Param(name="measures", type="texts", default=(), flag="--measure", short="-m", metavar="MEASURE",
              label="Measures",
              help="The measures to meta-evaluate, ranked (AP, nDCG@10...) or preferences (RPP, DCGPP, INVPP, "
                   "Lexirecall, Lexiprecision). With a scores table, empty means every measure in it."),
        Param(name="experiment", type="choice", default="stability", choices=_experiments(), flag="--experiment",
              label="Experiment", help="The experiment to run on the measures."),
        Param(name="fuzziness", type="float", default=0.05, minimum=0.0, flag="--fuzziness", label="Fuzziness",
              group="stability",
              help="The relative difference under which two means count as equal (Buckley & Voorhees: 0.05)."),
        Param(name="set_sizes", type="ints", default=(), minimum=1, maximum=MAX_SET_SIZE, why_maximum=TIME,
              flag="--set-size", metavar="N", label="Set sizes", unit="queries", group="stability",
              help="Queries per set; several give the error rate against the set size. Empty: 5, 10, ... up to "
                   "half the queries."),
        Param(name="sets", type="int", default=1000, minimum=1, maximum=MAX_SETS, why_maximum=TIME,
              flag="--sets", label="Query sets", unit="sets", group="stability",
              help="Random query sets drawn per set size and repetition."),
        Param(name="replacement", type="bool", default=False, flag="--replacement", label="With replacement",
              group="stability", help="Draw a set's queries with replacement."),
        Param(name="test", type="choice", default="bootstrap", choices=_tests(), flag="--test",
              label="Test", group="power", help="The significance test applied to every pair of runs."),
        Param(name="correction", type="choice", default="none", choices=_corrections(), flag="--correction",
              label="Correction for multiple comparisons", group="power",
              help="How the p-values of the run pairs are adjusted (Sakai: none)."),
        Param(name="alpha", type="float", default=0.05, flag="--alpha", label="Significance level (α)",
              group="power", help="A pair is significant when its (adjusted) p-value is below α."),
        Param(name="samples", type="int", default=None, optional=True, minimum=1, maximum=MAX_SAMPLES,
              why_maximum=TIME, flag="--samples", metavar="B", label="Resamples (B)", unit="samples",
              group="power",
              help="Resamples of the bootstrap (default 1,000), randomization (10,000) or Tukey (5,000) test."),
        Param(name="fractions", type="floats", default=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9), minimum=0.0,
              flag="--fractions", metavar="F,F,...", label="Fractions removed", group="robustness",
              help="Shares of the judged documents to remove, each below 1."),
        Param(name="repetitions", type="int", default=None, optional=True, minimum=1, maximum=MAX_REPETITIONS,
              why_maximum=TIME, flag="--repetitions", metavar="R", label="Repetitions",
              group="stability robustness",
              help="Independent repetitions (default: stability 5, robustness 10; robustness takes at most "
                   "1,000: each keeps every measure's scores)."),
        Param(name="seed", type="int", default=42, minimum=0, maximum=2**63 - 1, flag="--seed", label="Random seed",
              help="The seed of everything drawn at random: the same seed gives the same results."),
        *EVALUATION,
        JUDGED_BELOW,
    )

    def __init__(self, **values):
        super().__init__(**values)
        # A preference by either name (RPP or rpp, any case): held, and so saved, as registered.
        if self._values["measures"]:
            from evalgui.core.ranked.preference import registered_names

            self._values["measures"] = registered_names(self._values["measures"])

    def cross_problems(self, inputs=None) -> list[Problem]:
        mentions = tuple(self.param(name) for name in ("qrels", "runs", "scores", "measures"))
        problems = []
        if self.scores:
            if self.experiment == "robustness":
                problems.append(Problem(None, "robustness evaluates the runs again with fewer judgments: give "
                                              "{qrels} and {runs}, not {scores}", mentions=mentions))
            elif self.qrels or self.runs:
                problems.append(Problem(None, "with {scores}, give no {qrels} or {runs} (the file has the runs)",
                                        mentions=mentions))
        elif not self.qrels or len(self.runs) < 2:
            problems.append(Problem(None, "meta-evaluation compares runs: give {qrels} and at least two {runs}, "
                                          "or {scores}", mentions=mentions))
        elif not self.measures:
            problems.append(Problem(None, "choose the measures with {measures} (e.g. AP, nDCG@10)",
                                    mentions=mentions))
        if self.fuzziness >= 1.0:
            problems.append(Problem(self.param("fuzziness"), "must be below 1 (a relative difference)",
                                    self.fuzziness))
        if not 0.0 < self.alpha < 1.0:
            problems.append(Problem(self.param("alpha"), "alpha must be between 0 and 1 (e.g. 0.05)", self.alpha))
        if not self.fractions:
            problems.append(Problem(self.param("fractions"), "choose at least one fraction of judgments to remove"))
        elif any(f >= 1.0 for f in self.fractions):
            problems.append(Problem(self.param("fractions"), "a fraction of judgments to remove is between 0 and 1 "
                                                             "(1 excluded)", self.fractions))
        return problems


# Which experiments each experiment's own parameter belongs to (from the declarations' groups).
def own_params() -> dict[str, tuple[str, ...]]:
    return {p.name: tuple(p.group.split()) for p in MetaevalRequest.PARAMS
            if p.group and p.group.split()[0] in EXPERIMENT_LABELS}


def settings_of(request: MetaevalRequest):
    """The engine's settings of the request's experiment; ValueError says what the engine refuses."""
    from evalgui.core.metaeval import experiments as ex

    r = request
    if r.experiment == "stability":
        return ex.StabilitySettings(set_sizes=r.set_sizes, sets=r.sets, fuzziness=r.fuzziness,
                                    replacement=r.replacement, repetitions=r.repetitions or 5, seed=r.seed)
    if r.experiment == "power":
        return ex.PowerSettings(test=r.test, correction=r.correction, alpha=r.alpha, samples=r.samples, seed=r.seed)
    if r.experiment == "robustness":
        return ex.RobustnessSettings(fractions=r.fractions, repetitions=r.repetitions or 10, seed=r.seed)
    return ex.AgreementSettings()


def request_of_settings(settings, **values) -> MetaevalRequest:
    """The request of engine settings (a project's saved settings, the window's form), with ``values``
    (files, measures, evaluation options) added."""
    fields = {k: v for k, v in getattr(settings, "__dict__", {}).items()
              if k in MetaevalRequest.params() and k != "keep_relevant"}
    return MetaevalRequest(experiment=settings.experiment, **fields, **values)


@dataclass
class MetaevalOutcome(Outcome):
    """The workflow's outcome, with what the window's plots read beside the tables."""

    result: Any = None                                     # StabilityResult, PowerResult, ...
    runs: list = field(default_factory=list)
    measures: list = field(default_factory=list)
    query_report: list = field(default_factory=list)       # one line per measure whose runs lack queries

    @property
    def experiment(self) -> str:
        return self.result.settings.experiment


def metaeval_outcome(result, runs: list[str], measures: list[str], query_report=(), notes=(),
                     request: MetaevalRequest | None = None) -> MetaevalOutcome:
    """An outcome holding every table of an experiment's result (see the module's doc)."""
    import pandas as pd

    from evalgui.core.metaeval import experiments as ex

    tables = {"table": result.table}
    if isinstance(result, ex.StabilityResult):
        frames = [result.matrix_frame(m) for m in result.counts]
        tables["matrix"] = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    elif isinstance(result, ex.PowerResult):
        tables["curves"] = result.pairs
    elif isinstance(result, ex.RobustnessResult):
        tables["per_repetition"] = result.repetitions
    if request is None:
        request = request_of_settings(result.settings)
    return MetaevalOutcome("metaeval", request, tables, list(notes), result=result, runs=list(runs),
                           measures=list(measures), query_report=list(query_report))


def outcome_from_saved(state, request: MetaevalRequest | None = None) -> MetaevalOutcome | None:
    """The outcome the window keeps in a project (its own layout: the settings, the table and what the plots
    read, see ``gui/workspaces/metaeval/results.py``), with ``request`` when there is one; None when ``state``
    is not one (another version's)."""
    import numpy as np
    import pandas as pd

    from evalgui.core.metaeval import experiments as ex
    from evalgui.core.workflows.params import RequestError

    try:
        settings = ex.settings_from_dict(state["settings"])
        runs = [str(r) for r in state["runs"]]
        measures = [str(m) for m in state["measures"]]
        table = pd.DataFrame(state["table"])
        if isinstance(settings, ex.StabilitySettings):
            counts = {str(m): np.asarray(c, dtype=np.int64).reshape(len(runs), len(runs), 3)
                      for m, c in state["counts"].items()}
            result = ex.StabilityResult(table, settings, runs, int(state["matrix_set_size"]), counts)
        elif isinstance(settings, ex.PowerSettings):
            result = ex.PowerResult(table, settings, pd.DataFrame(state["pairs"]))
        elif isinstance(settings, ex.RobustnessSettings):
            result = ex.RobustnessResult(table, settings, pd.DataFrame(state["repetitions"]))
        else:
            result = ex.AgreementResult(table, settings, measures)
        report = [str(line) for line in state.get("query_report", [])]
        outcome = metaeval_outcome(result, runs, measures, report, request=request)
    except (KeyError, TypeError, ValueError, AttributeError, RequestError):
        return None
    from evalgui.core.workflows.caveats import saved_caveats

    caveats = saved_caveats(state)
    if caveats is not None:
        outcome.tables["caveats"] = caveats
    return outcome


def outcome_with_result(outcome: Outcome) -> MetaevalOutcome | None:
    """A saved outcome's tables (``Outcome.from_json``: the tables alone) as the engine's result again, for the
    window's plots; None when the tables are not a whole experiment's."""
    import numpy as np

    from evalgui.core.metaeval import experiments as ex
    from evalgui.core.stats.stability import BETTER, EQUAL, WORSE

    tables, request = outcome.tables, outcome.request
    try:
        settings = settings_of(request)
        table = tables["table"]
        if isinstance(settings, ex.StabilitySettings):
            matrix = tables["matrix"]
            systems = list(dict.fromkeys(matrix["system_a"].astype(str)))
            where = {name: i for i, name in enumerate(systems)}
            counts = {}
            for measure, rows in matrix.groupby("measure", sort=False):
                cells = np.zeros((len(systems), len(systems), 3), dtype=np.int64)
                a = rows["system_a"].astype(str).map(where).to_numpy()
                b = rows["system_b"].astype(str).map(where).to_numpy()
                for column, at in (("better", BETTER), ("worse", WORSE), ("equal", EQUAL)):
                    cells[a, b, at] = rows[column].to_numpy(dtype=np.int64)
                counts[str(measure)] = cells
            size = int(matrix["set_size"].iloc[0]) if len(matrix) else 0
            result, runs = ex.StabilityResult(table, settings, systems, size, counts), systems
        elif isinstance(settings, ex.PowerSettings):
            pairs = tables["curves"]
            result = ex.PowerResult(table, settings, pairs)
            runs = list(dict.fromkeys([*pairs["system_a"].astype(str), *pairs["system_b"].astype(str)]))
        elif isinstance(settings, ex.RobustnessSettings):
            result, runs = ex.RobustnessResult(table, settings, tables["per_repetition"]), []
        else:
            measures = [str(m) for m in dict.fromkeys(table["measure_a"])]
            result, runs = ex.AgreementResult(table, settings, measures), []
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    column = "measure_a" if isinstance(result, ex.AgreementResult) else "measure"
    measures = [str(m) for m in dict.fromkeys(table[column])]
    return MetaevalOutcome(outcome.workspace, request, dict(tables), list(outcome.notes), dict(outcome.provenance),
                           result=result, runs=runs, measures=measures)


def run_metaeval(request: MetaevalRequest, state: JobState | None = None,
                 inputs: Inputs | None = None) -> MetaevalOutcome:
    """Score the measures (ranking the runs once, or from the scores table), then run the experiment."""
    from evalgui.core.metaeval import experiments as ex

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    try:
        settings = settings_of(request)
    except ValueError as exc:
        raise EvalUsageError(str(exc)) from None
    notes: list[str] = []
    try:
        if request.scores:
            source, full = None, _scores_from_file(request, inputs)
        else:
            source, full = _scores_from_runs(request, inputs, state, notes)
        report = [m.query_set.describe() for m in full.values() if m.query_set is not None and m.query_set.missing]
        notes.extend(report)
        rest = state.scaled(EVALUATING_SHARE, 1.0) if source is not None else state
        result = ex.run_experiment(source, settings, rest, full=full) if source is not None else \
            ex.EXPERIMENTS[request.experiment](full, settings, rest)
    except (EvalInputError, EvalUsageError):
        raise
    except ValueError as exc:            # settings the data cannot meet (a set size above the queries...)
        raise EvalUsageError(str(exc)) from None
    runs = list(source.systems) if source is not None else list(next(iter(full.values())).systems)
    outcome = metaeval_outcome(result, runs, list(full), report, notes, request)
    from evalgui.core.advisor import metaeval_caveats, source_caveats, table

    outcome.tables["caveats"] = table(metaeval_caveats(outcome) + source_caveats(source, request.judged_below / 100))
    return outcome.stamp()


def _scores_from_runs(request, inputs: Inputs, state: JobState, notes: list[str]):
    """The runs ranked once against the qrels, and every measure with the full judgments."""
    from evalgui.core.metaeval.scores import RankedSource
    from evalgui.core.workflows.common import eval_options
    from evalgui.core.workflows.common import absent_note

    options = eval_options(request)
    qrels = inputs.get(request.qrels, "qrels")
    runs = [inputs.get(path, "run") for path in request.runs]
    names = [inputs.name(p) for p in request.runs]
    source = RankedSource(qrels, runs, list(request.measures), options, names if all(names) else None,
                          state.scaled(0.0, PREPARING_SHARE, "Preparing: "))
    if not options.complete:
        for run, name in zip(runs, source.systems):
            if source.absent.get(name):
                notes.append(absent_note(run.source, source.absent[name], request.param("complete")))
    full = source.measure_scores(state.scaled(PREPARING_SHARE, EVALUATING_SHARE, "Full judgments: "))
    return source, full


def _scores_from_file(request, inputs: Inputs):
    """Measures from a per-query scores table, over the queries every run has (-c: all, 0 where missing)."""
    from evalgui.core import tidy
    from evalgui.core.metaeval.scores import scores_from_tidy

    table = inputs.get(request.scores, "per-query scores")
    frame, runs = table.frame, table.runs
    if not len(frame):
        raise EvalUsageError(f"{request.scores}: only summary rows (query 'all'); comparing needs per-query values "
                             "(evaluate --per-query writes them)")
    if len(runs) < 2:
        raise EvalUsageError(f"{request.scores}: meta-evaluation compares runs; the file has {len(runs)}")
    present = list(dict.fromkeys(frame[tidy.MEASURE].tolist()))
    unknown = [m for m in request.measures if m not in present]
    if unknown:
        raise EvalUsageError(f"{request.scores} has no per-query values of '{unknown[0]}' (it has "
                             f"{', '.join(present)})")
    return scores_from_tidy(frame, runs, list(dict.fromkeys(request.measures)) or present, None, request.complete)


WORKFLOWS = (
    Workflow("metaeval", "metaeval", "Meta-evaluation: how good is each measure?", MetaevalRequest, run_metaeval),
)
