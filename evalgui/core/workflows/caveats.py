"""An outcome's caveats (:mod:`evalgui.core.advisor`) for the views and the report, including outcomes saved
before outcomes kept them."""

from __future__ import annotations

from evalgui.core import advisor


def caveats_of(outcome):
    """An outcome's caveats table: the one it holds, else what can be said again from its saved tables (a
    comparison's power and corrections, a meta-evaluation's best measure), else None."""
    tables = getattr(outcome, "tables", {}) or {}
    if "caveats" in tables:
        return tables["caveats"]
    listed = getattr(outcome, "caveat_list", None)
    if listed is not None:
        return advisor.table(listed)
    if "comparison" in tables:
        from evalgui.core.workflows.compare import comparison_from_outcome

        try:
            comparison = comparison_from_outcome(outcome)
        except (KeyError, TypeError, ValueError, AttributeError):
            comparison = None
        return None if comparison is None else advisor.table(advisor.compare_caveats(comparison))
    if getattr(outcome, "workspace", "") == "metaeval" and "table" in tables:
        return advisor.table(advisor.best_measure(None, tables["table"]))
    return None


def caveats_state(frame) -> dict | None:
    """A caveats table as a project keeps it beside a tab's own results (None: nothing to keep)."""
    from evalgui.core.workflows.outcome import frame_to_json

    return frame_to_json(frame) if frame is not None and len(frame) else None


def saved_caveats(state):
    """The caveats table a project kept: the tab's own (:func:`caveats_state` under ``caveats``) or a saved
    outcome's (``{workspace: outcome JSON}``, as ``eg.save_project`` writes); None without a readable one."""
    import pandas as pd

    from evalgui.core.workflows.outcome import frame_from_json

    if not isinstance(state, dict):
        return None
    saved = state.get("caveats")
    if saved is None:
        outcomes = [v for v in state.values() if isinstance(v, dict) and isinstance(v.get("tables"), dict)]
        saved = outcomes[0]["tables"].get("caveats") if len(outcomes) == 1 else None
    if saved is None:
        return None
    try:
        frame = frame_from_json(saved)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if not isinstance(frame, pd.DataFrame) or list(frame.columns) != list(advisor.COLUMNS):
        return None
    return frame
