"""evalgui-cli report: one self-contained HTML page of a saved project's results."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, warn

NAME = "report"
HELP = "write a saved project's results as one self-contained HTML page"
DESCRIPTION = ("Writes the results saved in the project (nothing is computed again) as one HTML file that needs "
               "nothing beside it and no network: every result table (sortable by clicking a header), the "
               "plots as inline SVG, notes, and how each result was made (every input with its size and content "
               "hash, every parameter, the seed, the evalgui version). It prints on A4 and Letter.")


def add_arguments(p) -> None:
    p.add_argument("project", metavar="PROJECT", help="an .evalgui project with saved results")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write (atomically)")
    p.add_argument("--title", default=None, help="the page's title (default: the project's name)")
    p.add_argument("--no-plots", action="store_true", help="leave the plots out (no Qt needed)")


def run(args) -> int:
    import os
    import shlex

    from evalgui.core.export import write_atomic
    from evalgui.core.workflows.report import Section, build_report
    from evalgui.core.workflows.project import open_project

    if not args.output:
        raise UsageProblem("-o needs a file name")
    project = open_project(args.project)
    if not project.outcomes:
        raise UsageProblem(f"{args.project} holds no saved results (save it with File ▸ Save results in projects "
                           "ticked, or write them with evalgui-cli run)")
    for key, problem in project.problems.items():
        warn(f"{key}: {problem}")
    sections = []
    for key, outcome in project.outcomes.items():
        section = Section(key, outcome)
        if not args.no_plots:
            from evalgui.core.workflows.report import Plot
            from evalgui.gui.outcome_plots import svg_plots

            section.plots = [Plot(*plot) for plot in svg_plots(key, outcome)]
        sections.append(section)
    title = args.title or os.path.splitext(os.path.basename(project.path))[0]
    command = shlex.join(["evalgui-cli", "report", args.project, "-o", args.output])
    write_atomic(args.output, build_report(sections, title, command, project.path))
    return 0
