"""evalgui-cli run: re-run every job a project holds a request for, headless, and write its tables and plots."""

from __future__ import annotations

import sys

from evalgui.cli.common import PROG, UsageProblem, one_line, warn

NAME = "run"
HELP = "re-run a saved project's jobs and write every table and plot"
DESCRIPTION = ("Re-runs every job the project holds a request for (the window saves one per result), in the "
               "window's order, and writes into DIR each result table (CSV), each plot (PNG and SVG) and "
               "manifest.json, which names each file, its job and its request. Progress goes to stderr. A job that "
               "cannot run (a missing file, a bad setting) is reported in one line and the others still run. "
               "--check also compares the results with those saved in the project (to 15 significant digits) and "
               "prints one line per difference. Exit status: 0 when everything ran (and, with --check, agreed); 2 "
               "when a job could not run; 3 when --check found differences.")
DIGITS = 15
SHOWN = 20            # differing rows named per column; the rest are counted
# Tables a project keeps some rows of, by this column (the ranked curves: the interpolated ones only).
KEPT_ROWS = {("ranked", "curves"): "kind"}


def add_arguments(p) -> None:
    p.add_argument("project", metavar="PROJECT", help="an .evalgui project")
    p.add_argument("-o", "--output", dest="folder", metavar="DIR", required=True,
                   help="the folder to write the tables, plots and manifest.json into (made if needed)")
    p.add_argument("--check", action="store_true",
                   help="compare the results with those saved in the project; one line per difference, exit 3")
    p.add_argument("--no-plots", action="store_true", help="write the tables only (no Qt needed)")


class _Progress:
    """Progress on stderr: one line per job and a line per tenth done."""

    def __init__(self, key: str):
        self.key, self.shown = key, -1

    def __call__(self, fraction: float, message: str) -> None:
        tenth = int(fraction * 10)
        if tenth > self.shown:
            self.shown = tenth
            sys.stderr.write(f"{PROG}: {self.key}: {int(fraction * 100)}%{' ' + message if message else ''}\n")


def run(args) -> int:
    import json
    import os

    from evalgui.core.errors import EvalInputError, EvalUsageError
    from evalgui.core.export import columns_to_delimited, to_text, write_atomic
    from evalgui.core.jobs import JobState
    from evalgui.core.workflows import workflows
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.params import RequestError
    from evalgui.core.workflows.project import open_project

    if not args.folder:
        raise UsageProblem("-o needs a folder")
    project = open_project(args.project)
    flows = workflows()
    if not project.requests and not project.problems:
        raise UsageProblem(f"{args.project} holds no job to run (a project saved by evalgui before version 2 of "
                           "the format has none: open it in the window, press Run and save it)")
    outside = project.outside()
    if outside:
        from evalgui.core.trust import where_it_leads

        warn(f"{args.project} reads files outside its folder: {', '.join(map(where_it_leads, outside))}")
    for path in project.changed:
        warn(f"{path} changed since the project was saved")
    os.makedirs(args.folder, exist_ok=True)
    failed = differences = 0
    manifest = []
    inputs = Inputs()
    for key, problem in project.problems.items():
        if key not in project.requests:
            sys.stderr.write(f"{PROG}: error: {one_line(f'{key}: {problem}')}\n")
            failed += 1
    for key in [k for k in flows if k in project.requests]:
        flow, request = flows[key], project.requests[key]
        try:
            _regular_files(request)
            outcome = flow.run(request, JobState(_Progress(key)), inputs)
        except RequestError as exc:
            sys.stderr.write(f"{PROG}: error: {one_line(f'{key}: {exc.problems[0].for_cli()}')}\n")
            failed += 1
            continue
        except (EvalInputError, EvalUsageError) as exc:
            sys.stderr.write(f"{PROG}: error: {one_line(f'{key}: {exc}')}\n")
            failed += 1
            continue
        for note in outcome.notes_for_cli():
            warn(f"{key}: {note}")
        for name, frame in outcome.tables.items():
            file_name = f"{key}-{name}.csv"
            text = columns_to_delimited(frame, ",") if isinstance(frame, dict) else to_text(frame, "csv")
            write_atomic(os.path.join(args.folder, file_name), text)
            manifest.append({"file": file_name, "workflow": key, "workspace": flow.workspace, "table": name,
                             "request": request.to_json()})
        if not args.no_plots:
            from evalgui.gui.outcome_plots import write_plots

            for file_name, title in write_plots(key, outcome, args.folder):
                manifest.append({"file": file_name, "workflow": key, "workspace": flow.workspace, "plot": title,
                                 "request": request.to_json()})
        if args.check:
            saved = project.outcomes.get(key)
            if saved is None:
                print(f"{key}: the project holds no saved results to check against")
                differences += 1
            else:
                for line in compare_outcomes(key, saved, outcome):
                    print(line)
                    differences += 1
    write_atomic(os.path.join(args.folder, "manifest.json"),
                 json.dumps({"project": project.path, "files": manifest}, indent=1) + "\n")
    if failed:
        return 2
    return 3 if differences else 0


def _regular_files(request) -> None:
    """Files a project names must be regular files (pipes only when given on the command line)."""
    import os
    import stat

    from evalgui.core.errors import EvalInputError

    for path in request.files():
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise EvalInputError(path, "no such file") from None
        except OSError as exc:
            raise EvalInputError(path, exc.strerror or str(exc)) from None
        if not stat.S_ISREG(mode):
            raise EvalInputError(path, "not a regular file (a project may name only files)")


def compare_outcomes(key: str, saved, fresh) -> list[str]:
    """One line per difference between two outcomes' tables, numbers equal to DIGITS significant digits."""
    import numpy as np

    lines = []
    skip = {"info"}
    # What a workflow says varies from run to run (retrieval times): columns, and rows by their metric.
    varying = saved.provenance.get("varying") if isinstance(saved.provenance.get("varying"), dict) else {}
    varying_columns, varying_metrics = set(varying.get("columns", ())), set(varying.get("metrics", ()))
    for name, old in saved.tables.items():
        if name in skip:
            continue
        new = fresh.tables.get(name)
        if new is not None and (key, name) in KEPT_ROWS and KEPT_ROWS[key, name] in old.columns:
            column = KEPT_ROWS[key, name]
            new = new[new[column].isin(set(old[column]))].reset_index(drop=True)
        if new is not None and varying_metrics and "metric" in old.columns and "metric" in new.columns:
            old = old[~old["metric"].isin(varying_metrics)].reset_index(drop=True)
            new = new[~new["metric"].isin(varying_metrics)].reset_index(drop=True)
        if new is not None and varying_columns:
            old = old.drop(columns=[c for c in old.columns if c in varying_columns])
            new = new.drop(columns=[c for c in new.columns if c in varying_columns])
        if new is None:
            lines.append(f"{key}: table {name} is no longer computed")
            continue
        if list(old.columns) != list(new.columns) or len(old) != len(new):
            lines.append(f"{key}: table {name} has {len(new)} rows × {len(new.columns)} columns, saved "
                         f"{len(old)} × {len(old.columns)}")
            continue
        for column in old.columns:
            a, b = old[column], new[column]
            if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
                x = a.to_numpy(dtype=np.float64, na_value=np.nan)
                y = b.to_numpy(dtype=np.float64, na_value=np.nan)
                same = (np.isnan(x) & np.isnan(y)) | (x == y) | np.isclose(x, y, rtol=10.0 ** -DIGITS, atol=0.0)
            else:
                same = (a.astype(object).where(a.notna(), None).to_numpy() ==
                        b.astype(object).where(b.notna(), None).to_numpy())
            differing = np.flatnonzero(~np.asarray(same, dtype=bool))
            for row in differing[:SHOWN]:
                lines.append(f"{key}: {name}, row {row + 1}, {column}: saved {old[column].iloc[row]!r}, "
                             f"now {new[column].iloc[row]!r}")
            if len(differing) > SHOWN:          # a whole column off is one mistake, not thousands of lines
                lines.append(f"{key}: {name}, {column}: {len(differing) - SHOWN:,} more rows differ")
    return lines
