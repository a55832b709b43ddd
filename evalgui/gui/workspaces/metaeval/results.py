"""The meta-evaluation outcome in a project file, and back (no Qt here).

The job itself is the meta-evaluation workflow (:func:`evalgui.core.workflows.metaeval.run_metaeval`);
:func:`outcome_state` keeps its outcome as plain JSON-able values and :func:`outcome_from_state`
brings it back for the views.
"""

from __future__ import annotations

import pandas as pd

from evalgui.core.metaeval import experiments as ex
from evalgui.core.workflows.metaeval import MetaevalOutcome, outcome_from_saved


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
    from evalgui.core.workflows.caveats import caveats_state

    caveats = caveats_state(outcome.tables.get("caveats"))     # reopened, the strip shows them again
    if caveats is not None:
        state["caveats"] = caveats
    return state


def outcome_from_state(state) -> MetaevalOutcome | None:
    """The outcome :func:`outcome_state` saved, or the workflow's outcome under its key (as ``eg.save_project``
    writes it); None when ``state`` is neither (another version's)."""
    if isinstance(state, dict) and isinstance(state.get("metaeval"), dict) and "settings" not in state:
        from evalgui.core.workflows.metaeval import MetaevalRequest, outcome_with_result
        from evalgui.core.workflows.outcome import Outcome
        from evalgui.core.workflows.params import RequestError

        try:
            return outcome_with_result(Outcome.from_json(state["metaeval"], MetaevalRequest))
        except (RequestError, ValueError, TypeError, KeyError):
            return None
    return outcome_from_saved(state)
