"""evalgui-cli stability: the Ranking Evaluation Tool (Dunaiski et al. 2018) on a rank file.

The original's flags; evalgui's output formats. ``--printing eval`` evaluates the measures
(error/tie rate, tRate, relRate, ASL, swap method, decisions), ``actual`` gives each measure's
value per system on all the entities, ``sign`` the significance matrices, ``all`` the three.
"""

from __future__ import annotations

import sys

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn
from evalgui.core.rankfile import DEFAULT_MEASURES, OPTION_HELP

NAME = "stability"
HELP = "measure stability and significance on ranks of test entities"
DESCRIPTION = ("Evaluates ranking systems from the ranks they give a set of test entities, and first evaluates "
               "the measures themselves (error and tie rates, t-test and ASL rates, the swap method) over random "
               "splits of the entities into queries, for every combination of --splits, --systems and --entities. "
               "FILE is a rank file (tab-separated: experiment name and system ids, then one row per entity with "
               "its rank per system), or, with --qrels, TREC runs whose ranks of the relevant documents are used. "
               "The flags are the original tool's; --compat dunaiski2018 reproduces its published numbers "
               "(bugs included, see docs/rankfile-compat.md).")

SECTIONS = {"eval": ("eval",), "actual": ("actual",), "sign": ("sign",), "all": ("eval", "actual", "sign")}


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.stability import StabilityRequest

    p.add_argument("files", metavar="FILE", nargs="*", help="the rank file (with --qrels: the runs)")
    p.add_argument("-p", "--printing", choices=list(SECTIONS), default="all",
                   help="what to compute and print: the measures' evaluation, their values per system, the "
                        "significance matrices, or all (default all)")
    several = {"nargs": "+"}
    add_params(p, StabilityRequest, skip=("runs", "qrels", "level", "missing_rank", "experiments"), overrides={
        "rank_file": {"help": "the rank file, as the original's -f"},
        "measures": {"help": f"{OPTION_HELP['measures']} (repeatable; default: {' '.join(DEFAULT_MEASURES)})"},
        "seed": {"help": OPTION_HELP["seed"]}, "threads": {"help": OPTION_HELP["threads"]},
        "cutoffs": several, "splits": several, "systems": several, "entities": several,
        "sigs": several,
    })
    p.add_argument("-v", "--verbose", action="store_true", help="report progress on standard error")
    trec = p.add_argument_group("ranks from TREC data")
    add_params(trec, StabilityRequest, skip=tuple(n for n in StabilityRequest.params()
                                                  if n not in ("qrels", "level", "missing_rank")), overrides={
        "qrels": {"help": "derive the ranks from these qrels and the runs given as FILE"},
    })
    trec.add_argument("--save-ranks", metavar="FILE", help="also write the ranks as a rank file")
    add_output_options(p)


def request_of(args):
    """The workflow's request of the command line (FILE is the rank file, or with --qrels the runs)."""
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.stability import StabilityRequest

    if args.qrels:
        if args.rank_file or len(args.files) < 2:
            raise UsageProblem("with --qrels, give at least two runs as FILE")
        fixed = {"runs": tuple(args.files)}
    else:
        given = args.files + ([args.rank_file] if args.rank_file else [])
        if len(given) != 1:
            raise UsageProblem("give one rank file (or --qrels QRELS and the runs)")
        fixed = {"rank_file": given[0]}
    return request_from_args(StabilityRequest, args, experiments=SECTIONS[args.printing] != ("actual",), **fixed)


def run(args) -> int:
    from evalgui.core.rankfile import use_one_blas_thread

    use_one_blas_thread()         # before numpy is imported
    from evalgui.core.export import write_atomic
    from evalgui.core.jobs import JobState
    from evalgui.core.workflows.inputs import Inputs
    from evalgui.core.workflows.params import RequestError
    from evalgui.core.workflows.stability import plan_of, run_stability

    fmt = output_format(args)
    request = request_of(args)
    inputs = Inputs()
    try:
        checked = plan_of(request, inputs)          # checks the settings: nothing is written before
    except RequestError as exc:
        raise UsageProblem(exc.problems[0].for_cli()) from None
    if args.save_ranks:
        write_atomic(args.save_ranks, checked.ranks.to_text())
    for message in checked.warnings:
        warn(message)
    told = len(checked.warnings)
    state = JobState(on_progress=_report) if args.verbose else None
    outcome = run_stability(request, state, inputs)
    for message in outcome.notes_for_cli()[told:]:        # what only the values on all entities show
        warn(message)
    text = render(outcome.results, SECTIONS[args.printing], fmt)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _report(fraction: float, message: str) -> None:
    sys.stderr.write(f"{fraction:6.1%} {message}\n")


def render(results, sections: tuple[str, ...], fmt: str) -> str:
    """The sections asked for, in one of export.FORMATS. JSON: one table is a list of rows; several
    sections (or the significance matrices, which come with their legend) make an object."""
    from evalgui.core import export

    tables = {"eval": results.evaluation, "actual": results.actual, "sign": results.significance_table()}
    if fmt == "json":
        import json

        def rows(frame):
            return json.loads(export.to_text(frame, "json"))

        legend = {label: level for label, level in results.legend}
        out = {name: {"legend": legend, "rows": rows(tables[name])} if name == "sign" else rows(tables[name])
               for name in sections}
        return json.dumps(out[sections[0]] if len(sections) == 1 else out, indent=1) + "\n"
    comment = {"csv": "# ", "tsv": "# ", "latex": "% ", "markdown": ""}[fmt]
    parts = []
    for name in sections:
        lines = []
        if len(sections) > 1:
            lines.append(f"## {name}" if fmt == "markdown" else f"{comment}{name}")
        if name == "sign":
            legend = results.legend_text()
            lines.append(export.markdown_escape(legend) if fmt == "markdown" else comment + legend)
        if fmt == "markdown" and lines:
            lines.append("")
        parts.append("".join(line + "\n" for line in lines) + export.to_text(tables[name], fmt))
    return "\n".join(parts)
