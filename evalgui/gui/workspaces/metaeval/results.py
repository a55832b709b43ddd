"""The meta-evaluation outcome in a project file, and back (no Qt here).

The job itself is the meta-evaluation workflow (:func:`evalgui.core.workflows.metaeval.run_metaeval`);
:func:`outcome_state` keeps its outcome as plain JSON-able values and :func:`outcome_from_state`
brings it back for the views.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalgui.core.metaeval import experiments as ex
from evalgui.core.workflows.metaeval import MetaevalOutcome, metaeval_outcome


def _frame_state(frame: pd.DataFrame) -> dict:
    return {str(c): frame[c].tolist() for c in frame.columns}


def outcome_state(outcome: MetaevalOutcome) -> dict:
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


def outcome_from_state(state) -> MetaevalOutcome | None:
    """The outcome :func:`outcome_state` saved; None when ``state`` is not one (another version's)."""
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
        return metaeval_outcome(result, runs, measures, report)
    except (KeyError, TypeError, ValueError, AttributeError, RequestError):
        return None
