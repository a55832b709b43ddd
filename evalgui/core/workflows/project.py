"""Projects as requests and outcomes: what ``evalgui-cli run`` and ``eg.open_project`` read, and what
``eg.save_project`` writes (a project the window opens).

The file format itself (paths, hashes, checks) is :mod:`evalgui.core.project`. Here its
``requests`` become :class:`~evalgui.core.workflows.params.Request` objects and its results the
:class:`~evalgui.core.workflows.outcome.Outcome` objects saved with them. A workspace's results are
``{workflow key: outcome JSON}``; a version-1 project's compare results (their own layout) are
migrated.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from evalgui.core.errors import EvalInputError
from evalgui.core.workflows import workflows
from evalgui.core.workflows.inputs import in_memory
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.workflows.params import RequestError


@dataclass
class Project:
    path: str
    requests: dict = field(default_factory=dict)         # workflow key -> Request
    outcomes: dict = field(default_factory=dict)         # workflow key -> saved Outcome
    problems: dict = field(default_factory=dict)         # workflow key -> why its request cannot be read
    changed: list = field(default_factory=list)          # input files changed since the project was saved
    files: list = field(default_factory=list)            # [{path, kind, hash?}]
    version: int = 2

    def outside(self) -> list[str]:
        """The files the project names outside its own folder (after resolving links)."""
        folder = os.path.realpath(os.path.dirname(self.path))
        names = [f["path"] for f in self.files]
        for request in self.requests.values():
            names += [p for p in request.files() if not in_memory(p)]
        return [p for p in dict.fromkeys(names)
                if os.path.commonpath([folder, os.path.realpath(p)]) != folder]


def open_project(path: str) -> Project:
    """The project's requests and saved outcomes; EvalInputError for a bad project file. A request that
    cannot be read is in ``problems``, not raised: the others are still usable."""
    from evalgui.core.project import read_project

    raw = read_project(path)
    flows = workflows()
    project = Project(os.path.abspath(path), changed=raw["changed"], files=raw["files"], version=raw["version"])
    for key, data in raw["requests"].items():
        flow = flows.get(key)
        if flow is None:
            project.problems[key] = f"'{key}' is not a kind of job this evalgui knows"
            continue
        try:
            project.requests[key] = flow.request.from_json(data)
        except RequestError as exc:
            project.problems[key] = exc.problems[0].for_cli()
    for workspace, state in raw["results"].items():
        if not isinstance(state, dict):
            continue
        for key, saved in state.items():
            flow = flows.get(key)
            if flow is None or not isinstance(saved, dict) or "tables" not in saved:
                continue
            try:
                outcome = Outcome.from_json(saved, flow.request)
            except (RequestError, ValueError, TypeError, KeyError):
                project.problems.setdefault(key, "its saved results cannot be read")
                continue
            _check_tables(project.path, key, outcome.tables)
            project.outcomes[key] = _completed(outcome)
            if key == "metaeval":           # the engine's result again, which the plots read
                from evalgui.core.workflows.metaeval import outcome_with_result

                project.outcomes[key] = outcome_with_result(project.outcomes[key]) or project.outcomes[key]
        if workspace in _OWN_LAYOUTS and workspace not in project.outcomes:
            try:
                request = project.requests.get(workspace) or _request_of_saved(workspace, state)
                outcome = _OWN_LAYOUTS[workspace](state, request) if request is not None else None
            except (KeyError, TypeError, ValueError, RequestError):
                outcome = None
            if outcome is not None:
                _check_tables(project.path, workspace, outcome.tables)
                project.outcomes[workspace] = outcome
        if workspace == "compare" and raw["version"] == 1:
            from evalgui.core.workflows.compare import outcomes_from_v1

            compared, preferred = outcomes_from_v1(state)
            for key, outcome in (("compare", compared), ("preference", preferred)):
                if outcome is not None:
                    project.outcomes[key] = outcome
    return project


def _saved_columns() -> dict:
    """(workflow, table) -> {column: whether it holds numbers}: what reports and the window read of saved tables."""
    from evalgui.core import tidy
    from evalgui.core.ranked.jobs import CURVE_COLUMNS, RUN_MATRIX_COLUMNS
    from evalgui.core.workflows.compare import MATRIX_COLUMNS

    tidy_columns = {name: name == tidy.VALUE for name in tidy.COLUMNS}
    return {("ranked", "summary"): tidy_columns, ("ranked", "per_query"): tidy_columns,
            ("ranked", "curves"): {name: name in ("recall", "precision") for name in CURVE_COLUMNS},
            ("ranked", "run_matrix"): {name: name in ("mean_row", "mean_column", "diff", "n_queries")
                                       for name in RUN_MATRIX_COLUMNS},
            ("compare", "matrix"): {name: name in ("mean_row", "mean_column", "diff") for name in MATRIX_COLUMNS}}


def _check_tables(path: str, key: str, tables: dict) -> None:
    """A saved table lacking a column its readers need, or holding other than numbers where they need
    numbers, is one EvalInputError naming the project and the table."""
    import pandas as pd

    for (workflow, name), columns in _saved_columns().items():
        table = tables.get(name) if workflow == key else None
        if not isinstance(table, pd.DataFrame):
            continue
        where = f"the saved results of \"{key}\", table \"{name}\""
        missing = [column for column in columns if column not in table.columns]
        if missing:
            raise EvalInputError(path, f"{where} has no column {', '.join(map(repr, missing))}")
        for column, numeric in columns.items():
            if numeric and len(table) and not pd.api.types.is_numeric_dtype(table[column]):
                raise EvalInputError(path, f"{where}: column '{column}' holds other than numbers")


def _request_of_saved(workspace: str, state: dict):
    """A version-1 project has no requests, but its ranked results name their inputs and settings: the request
    behind them (for the outcome a report reads; ``evalgui-cli run`` still re-runs requests only). None: not known."""
    inputs = state.get("inputs")
    if workspace != "ranked" or not isinstance(inputs, dict):
        return None
    from evalgui.core.workflows.ranked import EvaluateRequest

    options = inputs.get("options") or {}
    return EvaluateRequest(qrels=inputs["qrels"], runs=tuple(path for _, path in inputs["runs"]),
                           measures=tuple(inputs["measures"]), per_query=True,
                           level=options.get("relevance_level", 1), complete=bool(options.get("complete", False)),
                           max_docs=options.get("max_docs") or None, judged_only=bool(options.get("judged_only", False)),
                           num_docs=options.get("num_docs_in_coll", 0),
                           ndeval_rank_order=options.get("diversity_order") == "rank")


def _ranked_saved(state: dict, request) -> Outcome | None:
    """The Ranked retrieval tab's own layout (its tidy rows) as the ranked workflow's tables, with the run × run
    table (that layout does not keep it) derived from them."""
    import pandas as pd

    from evalgui.core import tidy
    from evalgui.core.workflows.ranked import saved_curves, with_run_matrix

    rows = pd.DataFrame(state["rows"])
    if not len(rows):
        return None
    summary = rows[rows[tidy.QUERY] == tidy.ALL_QUERIES].reset_index(drop=True)
    per_query = rows[rows[tidy.QUERY] != tidy.ALL_QUERIES].reset_index(drop=True)
    tables = {"summary": summary, "per_query": per_query}
    curves = saved_curves(state)            # projects saved before they kept the curves have none
    if curves is not None:
        tables["curves"] = curves
    return with_run_matrix(Outcome("ranked", request, tables), [str(m) for m in state.get("measure_order", [])])


def _metaeval_saved(state: dict, request) -> Outcome | None:
    """The Meta-evaluation tab's own layout (its result, with what the plots read) as the workflow's outcome."""
    from evalgui.core.workflows.metaeval import outcome_from_saved

    return outcome_from_saved(state, request)


def _completed(outcome: Outcome) -> Outcome:
    """A saved outcome with the tables an older evalgui did not save derived from those it did."""
    if outcome.workspace == "ranked":
        from evalgui.core.workflows.ranked import with_run_matrix

        return with_run_matrix(outcome)
    return outcome


# A request's similarity model files: a project lists them with MODEL_KIND (the window does not load them as data).
MODEL_PARAMS = ("model_file", "mac_model_file")

# Workspaces whose project results keep their own layout: how to read them as outcomes (reports need them).
_OWN_LAYOUTS = {"ranked": _ranked_saved, "metaeval": _metaeval_saved}


def save_project(path: str, requests: dict | None = None, outcomes: dict | None = None) -> str:
    """Write a project the window opens: the files the requests name, each request, and the outcomes
    (workflow key -> Outcome) as results of their workspaces. Returns the absolute path."""
    from evalgui.core.export import write_atomic
    from evalgui.core.inputs import detect_kind
    from evalgui.core.project import MODEL_KIND, make_project

    path = os.path.abspath(path)
    flows = workflows()
    requests = dict(requests or {})
    outcomes = dict(outcomes or {})
    for key, outcome in outcomes.items():
        requests.setdefault(key, outcome.request)
    unknown = [key for key in [*requests, *outcomes] if key not in flows]
    if unknown:
        raise ValueError(f"no workflow '{unknown[0]}' (known: {', '.join(flows)})")
    files: dict[str, str] = {}
    for request in requests.values():
        values = request.to_json()
        models = {os.path.abspath(values[name]) for name in MODEL_PARAMS if isinstance(values.get(name), str)}
        for file_path in request.files():
            if in_memory(file_path):
                raise ValueError(f"{file_path} is data in memory, which a project cannot name: save it to a "
                                 "file first")
            absolute = os.path.abspath(file_path)
            if absolute in models:             # read by the case-based form, not a data file of the session
                files.setdefault(absolute, MODEL_KIND)
            elif absolute not in files:
                try:
                    files[absolute] = detect_kind(absolute).name
                except EvalInputError:
                    files[absolute] = None
    results: dict[str, dict] = {}
    for key, outcome in outcomes.items():
        results.setdefault(flows[key].workspace, {})[key] = outcome.to_json()
    absolute_requests = {key: _absolute(request.to_json()) for key, request in requests.items()}
    state = make_project(path, list(files.items()), {}, results, absolute_requests)
    write_atomic(path, json.dumps(state, indent=1, allow_nan=True) + "\n")
    from evalgui.core.trust import record_saved

    record_saved(path)          # saved by this user here: it may read its files without asking
    return path


def _absolute(request_json: dict) -> dict:
    def fix(value):
        if isinstance(value, str) and value and not in_memory(value) and os.path.exists(value):
            return os.path.abspath(value)
        return value
    return {k: [fix(v) for v in value] if isinstance(value, list) else fix(value) for k, value in request_json.items()}
