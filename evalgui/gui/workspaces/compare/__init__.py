"""Compare systems: significance tests between runs, with corrections, effect sizes and matrices.

The form (:mod:`.form`) picks the source (runs + qrels, a per-query scores file, or
the Ranked retrieval tab's results), the runs, the measures, the preferences (with runs
and qrels) and the test. Run starts one job on the worker (:func:`comparison_job`: the
compare workflow, then the preference workflow, :mod:`evalgui.core.workflows.compare`); its
outcomes replace the shown ones only when it succeeds, so a failed or cancelled run keeps the
previous ones. Each result tab is one module with the ranked workspace's small
interface: ``page``, ``title``, ``refresh(results)``, ``choices()`` and
``export_targets()``; the Preferences tab gets the preferences (tested, or from a project
without a test), the others the comparison.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from evalgui.core.errors import EvalUsageError
from evalgui.gui.naming import label as shown_name
from evalgui.gui.workspaces.base import ViewsWorkspace
from evalgui.gui.workspaces.compare.form import CompareForm
from evalgui.gui.workspaces.compare.matrices import MatrixTab
from evalgui.gui.workspaces.compare.preferences import PreferencesTab, significant_pairs
from evalgui.gui.workspaces.compare.scatter import ScatterTab
from evalgui.gui.workspaces.compare.table import TableView


PREFERENCE_SHARE = 0.4       # of the progress bar, when preferences follow the comparison


def comparison_job(compare_request, preference_request, inputs):
    """The comparison and then the preferences, on the worker: (outcome or None, outcome or None)."""
    from evalgui.core.workflows.compare import run_compare, run_preference

    def job(state):
        share = PREFERENCE_SHARE if compare_request is not None and preference_request is not None else \
            (1.0 if preference_request is not None else 0.0)
        compared = preferred = None
        if compare_request is not None:
            compared = run_compare(compare_request, state.scaled(0.0, 1.0 - share), inputs)
        if preference_request is not None:
            preferred = run_preference(preference_request, state.scaled(1.0 - share, 1.0), inputs)
        return compared, preferred
    return job


class CompareWorkspace(ViewsWorkspace):
    key = "compare"
    title = "Compare systems"
    idle_message = "Choose the runs (or a scores table), the measures and a test, then press Run."

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.comparison = None          # evalgui.core.stats.compare.Comparison shown in the views
        self.preferences = None         # evalgui.core.stats.compare.PreferenceComparison (Preferences tab)
        # The workflows' outcomes they come from (what projects keep).
        self.comparison_outcome = self.preference_outcome = None
        self._notes: list[str] = []
        self._finished_text = ""        # the line saying what the last comparison found (measures by name)
        from evalgui.gui import naming

        naming.NAMING.changed.connect(self._naming_changed)

        self.form = CompareForm(session, self.ranked_results)

        self.table = TableView()
        self.matrix = MatrixTab()
        self.scatter = ScatterTab()
        self.preference_view = PreferencesTab()
        self.preference_view.pair_source = self._preference_pair
        for view in (self.matrix, self.preference_view):      # a pair's queries selected in Ranked retrieval too
            view.links, view.on_queries_selected = self._ranked_links, self._select_in_ranked
        self.views = [self.table, self.matrix, self.scatter, self.preference_view]
        self.results_tabs = QTabWidget()
        self.results_tabs.setObjectName("compareResultsTabs")
        for view in self.views:
            self.results_tabs.addTab(view.page, view.title)
        # Views that only keep up while in sight (the matrix) catch up when shown.
        self.results_tabs.currentChanged.connect(lambda index: getattr(self.views[index], "shown", lambda: None)())

        from evalgui.gui.caveats import CaveatStrip
        from evalgui.gui.workspaces.base import note_above

        self.caveat_strip = CaveatStrip()            # things to watch in the results, their cells marked
        self.caveat_strip.mark(self.table.view)
        self.lay_out(self.form, note_above(self.caveat_strip, self.results_tabs), form_min_width=300)
        session.changed.connect(self.refresh_inputs)
        self.form.edited.connect(self.modified)
        self.refresh_inputs()
        self.update_export_buttons()

    # ------------------------------------------------------------ the form
    def ranked_results(self):
        """The Ranked retrieval tab's results (its ResultSet), or None.

        The one place this workspace reaches into another: through the main window's
        ``workspaces`` by key, read-only, when the form needs it (refresh, Run)."""
        ranked = getattr(self.window(), "workspaces", {}).get("ranked")
        return getattr(ranked, "results_set", None)

    def _ranked(self):
        return getattr(self.window(), "workspaces", {}).get("ranked")

    def _ranked_links(self, row_run: str, column_run: str) -> str:
        """Where a pair's selected queries are selected too: Ranked retrieval's views, when its results have
        both runs (as Ranked ▸ Run × run selects them)."""
        ranked = self._ranked()
        results = getattr(ranked, "results_set", None)
        if results is None or not all(run in results for run in (row_run, column_run)):
            return ""
        return "Ranked retrieval's per-query table and drill-down"

    def _select_in_ranked(self, queries: list, measure: str, row_run: str, column_run: str) -> None:
        self._ranked().select_queries(queries, row_run, column_run, measure)

    def showEvent(self, event) -> None:
        # The Ranked retrieval tab may have new results since this tab was last in sight.
        self.form.refresh_inputs()
        super().showEvent(event)

    def _preference_pair(self, measure: str, row_run: str, column_run: str):
        """A preference matrix cell's pair, query by query, from the workflow (or why it has none)."""
        from evalgui.core.workflows.compare import pair_preferences

        if self.preference_outcome is None:
            return "No preferences have been computed yet: press Run."
        return pair_preferences(self.preference_outcome, measure, row_run, column_run)

    # ------------------------------------------------------------ running
    def run(self) -> None:
        if self.is_busy():
            return
        try:
            compare_request, preference_request, inputs = self.form.request()
        except EvalUsageError as exc:
            self.error.emit("Nothing to compare", str(exc))
            return
        self.remember_view_choices()
        self.start_job(comparison_job(compare_request, preference_request, inputs), "Comparing…",
                       on_success=self._show_finished, on_cancelled=self._show_cancelled,
                       failure_title="The comparison failed")

    def _show(self, compared, preferred) -> None:
        from evalgui.core.workflows.compare import comparison_from_outcome, preferences_from_outcome

        self.comparison_outcome, self.preference_outcome = compared, preferred
        self.comparison = comparison_from_outcome(compared) if compared is not None else None
        self.preferences = preferences_from_outcome(preferred, untested=True) if preferred is not None else None
        self.caveat_strip.show_outcomes(compared, preferred)
        self._refresh_views()

    def _show_finished(self, outcomes) -> None:
        compared, preferred = outcomes
        self._show(compared, preferred)
        self.modified.emit()
        self._notes = [n for o in outcomes if o is not None for n in o.notes_for_window()]
        p = self.preferences
        if p is not None and self.comparison is None:
            self.results_tabs.setCurrentWidget(self.preference_view.page)
        self._finished_text = self._finished_message()
        self.progress_label.setText(self._finished_text)       # the status bar repeats it when the job is done

    def _finished_message(self) -> str:
        """What the finished comparison found, its measures named as the window names them now."""
        parts = []
        c = self.comparison
        if c is not None:
            significant = int(c.table["significant"].sum())
            parts.append(f"Compared {len(c.runs)} runs on {len(c.measures)} measure(s): {significant} of "
                         f"{len(c.table)} comparisons significant at α = {c.options.alpha}.")
            if any(q.missing for q in c.query_sets.values()):
                parts.append("Some runs lack queries: see the report above the table.")
        p = self.preferences
        if p is not None:
            significant, tested = significant_pairs(p)
            parts.append(f"Preferences ({', '.join(map(shown_name, p.measures))}) between {len(p.runs)} runs: {significant} of "
                         f"{tested} significant at α = {p.options.alpha} (Preferences tab).")
        return " ".join(parts + self._notes)

    def _naming_changed(self, _naming: str) -> None:
        # View ▸ Measure names: the finished comparison's line names the measures the new way too
        if self._finished_text and self.progress_label.text() == self._finished_text:
            self._finished_text = self._finished_message()
            self.progress_label.setText(self._finished_text)

    def _refresh_views(self) -> None:
        for view in self.views:
            view.refresh(self.preferences if view is self.preference_view else self.comparison)
        self.update_export_buttons()

    def clear_results(self) -> None:
        """Forget the results (another project is opened); a running comparison is stopped and ignored."""
        self.abandon_job()
        self.comparison = self.preferences = self.comparison_outcome = self.preference_outcome = None
        self.caveat_strip.show_caveats(None)
        self._refresh_views()

    # ------------------------------------------------------------ projects
    def has_results(self) -> bool:
        return self.comparison is not None or self.preferences is not None

    def results_state(self) -> dict | None:
        if not self.has_results():
            return None
        return {key: outcome.to_json() for key, outcome in (("compare", self.comparison_outcome),
                                                            ("preference", self.preference_outcome))
                if outcome is not None}

    def results_state_job(self):
        outcomes = self.workflow_outcomes() if self.has_results() else {}
        return lambda: {key: outcome.to_json() for key, outcome in outcomes.items()} if outcomes else None

    def workflow_outcomes(self) -> dict:
        return {key: outcome for key, outcome in (("compare", self.comparison_outcome),
                                                  ("preference", self.preference_outcome)) if outcome is not None}

    # Two outcomes (the comparison, the preferences) rather than one: these are its own.
    def restore_results_state(self, state: dict) -> bool:
        from evalgui.core.workflows.compare import (CompareRequest, PreferenceRequest, comparison_from_outcome,
                                                    outcomes_from_v1, preferences_from_outcome)
        from evalgui.core.workflows.outcome import Outcome
        from evalgui.core.workflows.params import RequestError

        if not isinstance(state, dict):
            return False
        if "compare" in state or "preference" in state:
            compared = preferred = None
            try:
                if "compare" in state:
                    compared = Outcome.from_json(state["compare"], CompareRequest)
                    if comparison_from_outcome(compared) is None:
                        compared = None
                if "preference" in state:
                    preferred = Outcome.from_json(state["preference"], PreferenceRequest)
                    if preferences_from_outcome(preferred, untested=True) is None:
                        preferred = None
            except (RequestError, ValueError, KeyError, TypeError, IndexError):
                return False
        else:                                  # a version-1 project's own layout
            compared, preferred = outcomes_from_v1(state)
        if compared is None and preferred is None:
            return False
        self._show(compared, preferred)
        # Preferences saved without a test (eg.preference without test=) are shown without verdicts.
        untested = "" if self.preferences is None or self.preferences.tested else \
            " Its preferences were computed without a test: the Preferences tab shows their means, not tested."
        self.progress_label.setText("Results restored from the project." + untested)
        return True
