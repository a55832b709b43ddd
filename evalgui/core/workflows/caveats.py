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
