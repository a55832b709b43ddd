"""What the meta-evaluation workspace asks of the engine, without Qt.

:func:`metaeval_job` is the one job Run starts: the runs are ranked once against the
qrels, every measure is evaluated with the full judgments, then the experiment runs
(as ``evalgui-cli metaeval`` does it), with progress and Cancel through the
:class:`~evalgui.core.jobs.JobState`. :func:`outcome_state` and :func:`outcome_from_state`
keep an outcome in a project file and bring it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalgui.core.errors import EvalInputError, EvalUsageError
from evalgui.core.jobs import JobState
from evalgui.core.metaeval import experiments as ex

PREPARING_SHARE, EVALUATING_SHARE = 0.2, 0.3      # of the progress bar: ranking, then full judgments


@dataclass(frozen=True)
class Request:
    qrels: object                 # evalgui.core.data.Qrels
    runs: list                    # evalgui.core.data.Run, in the order chosen
    names: list[str]              # what the results call them (as the session names the files)
    specs: list[str]              # measures as the picker writes them (P.10, map...)
    settings: ex.Settings
    options: object               # evalgui.core.ranked.evaluate.EvalOptions


@dataclass
class Outcome:
    result: object                # the experiment's result (StabilityResult, PowerResult, ...)
    runs: list[str]
    measures: list[str]
    query_report: list[str] = field(default_factory=list)    # one line per measure whose runs lack queries

    @property
    def experiment(self) -> str:
        return self.result.settings.experiment


def metaeval_job(request: Request):
    def job(state: JobState) -> Outcome:
        from evalgui.core.metaeval.scores import RankedSource

        try:
            source = RankedSource(request.qrels, request.runs, request.specs, request.options, request.names,
                                  state.scaled(0.0, PREPARING_SHARE, "Preparing: "))
            full = source.measure_scores(state.scaled(PREPARING_SHARE, EVALUATING_SHARE, "Full judgments: "))
            result = ex.run_experiment(source, request.settings, state.scaled(EVALUATING_SHARE, 1.0), full=full)
        except (EvalInputError, EvalUsageError):
            raise
        except ValueError as exc:            # settings the data cannot meet (a set size above the queries...)
            raise EvalUsageError(str(exc)) from None
        report = [m.query_set.describe() for m in full.values() if m.query_set is not None and m.query_set.missing]
        return Outcome(result, list(source.systems), list(full), report)
    return job


# ---------------------------------------------------------------------------- projects
def _frame_state(frame: pd.DataFrame) -> dict:
    return {str(c): frame[c].tolist() for c in frame.columns}


def outcome_state(outcome: Outcome) -> dict:
    """An outcome as plain JSON-able values: the settings, the table and what the plots read."""
    result = outcome.result
    state = {"settings": ex.settings_dict(result.settings), "runs": list(outcome.runs),
             "measures": list(outcome.measures), "query_report": list(outcome.query_report),
             "table": _frame_state(result.table)}
    if isinstance(result, ex.StabilityResult):
        state["matrix_set_size"] = result.matrix_set_size
        state["counts"] = {m: c.tolist() for m, c in result.counts.items()}
    elif isinstance(result, ex.PowerResult):
        state["pairs"] = _frame_state(result.pairs)
    elif isinstance(result, ex.RobustnessResult):
        state["repetitions"] = _frame_state(result.repetitions)
    return state


def outcome_from_state(state) -> Outcome | None:
    """The outcome :func:`outcome_state` saved; None when ``state`` is not one (another version's)."""
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
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return Outcome(result, runs, measures, report)
