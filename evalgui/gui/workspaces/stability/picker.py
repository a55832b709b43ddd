"""The measure picker over the ``rankfile`` family: the records, and the forms typed in.

Each record (AP, Average@k, P@k...) is a measure the experiments accept as it is (``@k``:
one measure per cut-off of the form's range). Forms with a cut-off or per mille
(``Average@20``, ``nDCG@Avg``, ``P@2000_per``) are added in the box below the list and
kept, ticked, in a group of their own. The original tool's example set is ticked at the start, except
its per-mille measures, which need the total number of ranks T: they are listed unticked.
"""

from __future__ import annotations

import html

from evalgui.core.errors import EvalUsageError
from evalgui.core.rankfile import DEFAULT_MEASURES
from evalgui.core.rankfile.measures import REGISTRY, parse_measure
from evalgui.gui.measurepicker import MeasurePicker, help_html

FORMS = "Forms (cut-offs, per mille)"


class RankMeasurePicker(MeasurePicker):
    custom_family = FORMS
    custom_placeholder = "Add a form, e.g. Average@20, nDCG@Avg, AP@50recall, P@2000_per"
    custom_about = "A measure you added."

    def __init__(self, parent=None):
        super().__init__(parent, registry=REGISTRY)
        self.tree.setHeaderLabels(["Measure"])
        self.search.setPlaceholderText("Search measures (name, description)…")
        self.help.setHtml("<p style='color:gray'>Select a measure to read what it means and how it is computed. "
                          "Tick it to evaluate it; add a form with a cut-off or per mille (Average@20, nDCG@Avg, "
                          "P@2000_per) in the box above.</p>")
        self.set_defaults()

    def set_defaults(self) -> None:
        """The original's example set ticked, but for the measures that need T (not given at the start, and
        unknown for ranks from qrels and runs): those are listed unticked, for :meth:`set_original`."""
        for name in DEFAULT_MEASURES:
            if name not in self.registry:
                self.add_custom(name, False)      # in the original's order, ticked or not below
        self.tick_only([name for name in DEFAULT_MEASURES if not parse_measure(name).needs_total])

    def set_original(self) -> None:
        """The original tool's example set, the per-mille measures included."""
        self.tick_only(DEFAULT_MEASURES)

    def is_original(self) -> bool:
        return sorted(self.specs()) == sorted(parse_measure(name).name for name in DEFAULT_MEASURES)

    def tick_only(self, names) -> None:
        """Tick exactly these measures: the records among them as they are, the others as forms (added)."""
        forms = [parse_measure(name).name for name in names if name not in self.registry]
        self.set_checked({name: "" for name in names if name in self.registry})
        for spec, _ in self.custom_specs():
            self.add_custom(spec, spec in forms)
        for name in forms:
            self.add_custom(name)

    def spec_problem(self, spec: str) -> str | None:
        try:
            parse_measure(spec)
        except EvalUsageError as exc:
            return str(exc)
        return None

    def add_custom(self, spec: str, checked: bool = True) -> None:
        # As the engine names it ("ndcg@avg" is nDCG@Avg), so that a form is listed once.
        super().add_custom(spec if self.spec_problem(spec) else parse_measure(spec).name, checked)

    def specs(self) -> list[str]:
        """The ticked measures, each once (a record may also be typed in as a form)."""
        names = {}
        for spec in super().specs():
            names.setdefault(spec if self.spec_problem(spec) else parse_measure(spec).name, spec)
        return list(names)

    def custom_help(self, spec: str) -> str:
        if self.spec_problem(spec):
            return super().custom_help(spec)
        measure = parse_measure(spec)
        how = [f"<p><b>{html.escape(measure.name)}</b> is {html.escape(measure.record.name)}"]
        if measure.cutoff is not None:
            how.append(f" cut off at {html.escape(measure.cutoff.label)}")
        if measure.per_mille:
            how.append(", per mille (needs the total number of ranked entities)")
        return "".join(how) + ".</p>" + help_html(measure.record)

    def needs_total(self) -> list[str]:
        """The ticked measures that need the total number of ranked entities (-n)."""
        return [spec for spec in self.specs() if not self.spec_problem(spec) and parse_measure(spec).needs_total]
