"""What the measure-stability views show, without Qt: the workflow's outcome as the views read it.

Run starts :func:`stability_job`, which runs :func:`evalgui.core.workflows.stability.run_stability` on
the worker and hands the views a :class:`Results`; :func:`outcome_state` and
:func:`outcome_from_state` keep it in a project file. The choices of the views (combinations,
levels) are listed here too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState
from evalgui.core.rankfile.compat import Compat

if TYPE_CHECKING:
    from evalgui.core.rankfile.experiment import Settings

EXPERIMENT = "rankfile"    # what the shared result views (metaeval.views.ResultView) are told they show
COMBINATION = ["splitCount", "systemCount", "entityCount"]


@dataclass
class Results:
    """A finished run, as the views show it."""

    source: str
    systems: list[str]
    entities: int
    settings: Settings
    methods: list[tuple[str, str]]         # (id, measure as asked for): "Average@k_10", "Average@k"
    actual: pd.DataFrame                   # measure, then one column per system
    evaluation: pd.DataFrame | None        # experiment.EVAL_COLUMNS (None: only the values on all entities)
    significance: pd.DataFrame             # measure, the combination, Systems, one column per system
    warnings: list[str] = field(default_factory=list)
    request: object = None                 # the workflow's StabilityRequest (None: an older project's results)
    outcome: object = None                 # the workflow's Outcome (None: an older project's results)

    experiment = EXPERIMENT

    @property
    def measures(self) -> list[str]:
        return [m for m, _ in self.methods]

    @property
    def levels(self) -> list[float]:
        return sorted(set(float(f) for f in self.settings.sigs))

    @property
    def legend(self) -> list[tuple[str, float]]:
        from evalgui.core.rankfile.experiment import star      # (the experiment's code: imported when needed)

        return [(star(i), level) for i, level in enumerate(self.levels)]

    @property
    def has_error_rates(self) -> bool:
        return self.evaluation is not None and self.evaluation["errRate"].notna().any()

    def lower_better(self, method: str) -> bool:
        from evalgui.core.rankfile.measures import parse_measure

        return parse_measure(dict(self.methods)[method]).lower_better

    def combinations(self) -> list[tuple[int, int, int]]:
        """(splits, systems, entities) of every experiment, in the order they ran."""
        if self.evaluation is None:
            return []
        return [tuple(int(v) for v in row) for row in self.evaluation[COMBINATION].drop_duplicates().to_numpy()]

    def rows(self, combination: tuple[int, int, int] | None = None, level: float | None = None,
             method: str | None = None) -> pd.DataFrame:
        """The eval table's rows of one combination, level and method (None: all of them)."""
        table = self.evaluation
        keep = pd.Series(True, index=table.index)
        if combination is not None:
            for column, value in zip(COMBINATION, combination):
                keep &= table[column] == value
        if level is not None:
            keep &= table["fuzziness"] == level
        if method is not None:
            keep &= table["method"] == method
        return table[keep]

    def matrix(self, method: str, combination: tuple[int, int, int]) -> pd.DataFrame:
        """systems x systems: the star label of the lowest level at which the row system beats the column one."""
        table = self.significance
        keep = table["measure"] == method
        for column, value in zip(COMBINATION, combination):
            keep &= table[column] == value
        labels = table[keep].set_index("Systems")[self.systems]
        labels.index.name = None
        return labels.fillna("").astype(str)

    def significance_estimate(self) -> str:
        """The eval table's column the matrices compare the differences with."""
        swap = self.settings.swap != self.settings.compat.significance_estimators    # bug 4 swaps them
        return "swapDiffMin" if swap else "estDiff"

    def describe(self) -> str:
        """How the results were made, in a line or two."""
        s = self.settings
        parts = [f"{self.source}: {len(self.systems)} systems, {self.entities:,} entities, "
                 f"{len(self.methods)} measure(s)"]
        if self.evaluation is not None:
            parts.append(f"{s.iterations} iterations, B = {s.bootstrap:,}, {len(self.combinations())} "
                         f"combination(s), seed {s.seed}" + ("" if s.error_rates else ", no error and tie rates"))
        if s.total_ranks is not None:
            parts.append(f"T = {s.total_ranks:,g}")
        if s.compat.active:
            parts.append("as the published tool computed it")
        return "; ".join(parts) + "."


    @classmethod
    def from_outcome(cls, outcome) -> "Results":
        """The workflow's outcome (fresh, or read back from a project) as the views read it."""
        from evalgui.core.workflows.stability import settings_of

        tables = outcome.tables
        ranks = tables["ranks"].iloc[0]
        actual = tables["actual"]
        methods = [(str(i), str(n)) for i, n in zip(tables["methods"]["method"], tables["methods"]["measure"])]
        return cls(str(ranks["source"]), [str(c) for c in actual.columns[1:]], int(ranks["entities"]),
                   settings_of(outcome.request), methods, actual, tables.get("evaluation"), tables["significance"],
                   outcome.notes_for_window(), outcome.request, outcome)


def stability_job(request, inputs):
    """``job(state) -> Results``: the stability workflow on the worker; a request that does not fit the ranks
    fails it with the form's words."""
    def job(state: JobState) -> Results:
        from evalgui.core.workflows.params import RequestError
        from evalgui.core.workflows.stability import run_stability

        try:
            return Results.from_outcome(run_stability(request, state, inputs))
        except RequestError as exc:
            raise EvalUsageError(exc.problems[0].for_window()) from None
    return job


# ---------------------------------------------------------------------------- projects
def _frame_state(frame: pd.DataFrame) -> dict:
    return {"columns": [str(c) for c in frame.columns], "rows": frame.astype(object).to_numpy().tolist()}


def _frame(state: dict) -> pd.DataFrame:
    return pd.DataFrame(state["rows"], columns=state["columns"]).infer_objects()


def settings_state(settings: Settings) -> dict:
    state = dataclasses.asdict(settings)
    state["compat"] = settings.compat.active
    return state


def settings_from_state(state: dict) -> Settings:
    from evalgui.core.rankfile.experiment import Settings

    values = {f.name: state[f.name] for f in dataclasses.fields(Settings) if f.name in state}
    for name, value in values.items():
        if isinstance(value, list):
            values[name] = tuple(value)
    values["compat"] = Compat(**{name: True for name in state.get("compat", [])})
    return Settings(**values)


def outcome_state(outcome: Results) -> dict:
    """An outcome for a project: the workflow's outcome under its key (what ``evalgui-cli run --check`` reads), or
    for results of an older project, their plain JSON-able values (NaN and infinite limits as JSON's NaN and
    Infinity)."""
    if outcome.outcome is not None:
        return {"stability": outcome.outcome.to_json()}
    return {"source": outcome.source, "systems": list(outcome.systems), "entities": outcome.entities,
            "settings": settings_state(outcome.settings), "methods": [list(m) for m in outcome.methods],
            "actual": _frame_state(outcome.actual),
            "evaluation": None if outcome.evaluation is None else _frame_state(outcome.evaluation),
            "significance": _frame_state(outcome.significance), "warnings": list(outcome.warnings),
            **({"request": outcome.request.to_json()} if outcome.request is not None else {})}


def outcome_from_state(state) -> Results | None:
    """The outcome :func:`outcome_state` saved; None when ``state`` is not one (another version's)."""
    if isinstance(state, dict) and "stability" in state:
        from evalgui.core.workflows.outcome import Outcome
        from evalgui.core.workflows.params import RequestError
        from evalgui.core.workflows.stability import StabilityRequest

        try:
            return Results.from_outcome(Outcome.from_json(state["stability"], StabilityRequest))
        except (RequestError, KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None
    try:
        actual = _frame(state["actual"])
        evaluation = None if state["evaluation"] is None else _frame(state["evaluation"])
        if evaluation is not None:
            # Missing values came back as None: the numeric columns are floats again.
            numeric = [c for c in evaluation.columns if c not in ("method", "norm")]
            evaluation[numeric] = evaluation[numeric].astype(float)
            for column in COMBINATION:
                evaluation[column] = evaluation[column].astype(int)
        systems = [str(s) for s in state["systems"]]
        actual[systems] = actual[systems].astype(float)
        return Results(str(state["source"]), systems, int(state["entities"]), settings_from_state(state["settings"]),
                       [(str(i), str(n)) for i, n in state["methods"]], actual, evaluation,
                       _frame(state["significance"]), [str(w) for w in state.get("warnings", [])],
                       _request(state.get("request")))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _request(state):
    """The saved request (None when there is none, or it no longer reads)."""
    from evalgui.core.workflows.params import RequestError
    from evalgui.core.workflows.stability import StabilityRequest

    if state is None:
        return None
    try:
        return StabilityRequest.from_json(state)
    except (RequestError, TypeError):
        return None


# ---------------------------------------------------------------------------- choices in the views
def combination_text(combination: tuple[int, int, int]) -> str:
    splits, systems, entities = combination
    return f"{splits} queries · {systems} systems · {entities:,} entities"


def combination_items(outcome: Results | None) -> list[tuple[str, str]]:
    """(text, key) of every combination, for a ChoiceBox; the key is :func:`combination_of`'s."""
    if outcome is None:
        return []
    return [(combination_text(c), ",".join(map(str, c))) for c in outcome.combinations()]


def combination_of(key: str | None) -> tuple[int, int, int] | None:
    return None if not key else tuple(int(v) for v in key.split(","))


def level_items(outcome: Results | None) -> list[tuple[str, float]]:
    return [] if outcome is None else [(f"{level:g}", level) for level in outcome.levels]
