"""evalgui-cli stability: the Ranking Evaluation Tool (Dunaiski et al. 2018) on a rank file.

The original's flags; evalgui's output formats. ``--printing eval`` evaluates the measures
(error/tie rate, tRate, relRate, ASL, swap method, decisions), ``actual`` gives each measure's
value per system on all the entities, ``sign`` the significance matrices, ``all`` the three.
"""

from __future__ import annotations

import sys

from evalgui.cli.common import UsageProblem, add_output_options, check_seed, output_format, warn
from evalgui.core.rankfile import COMPAT_MODES, DEFAULT_MEASURES, DEFAULT_SIGS, OPTION_HELP

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
    p.add_argument("files", metavar="FILE", nargs="*", help="the rank file (with --qrels: the runs)")
    p.add_argument("-f", "--file", dest="file", metavar="FILE", help="the rank file, as the original's -f")
    p.add_argument("-p", "--printing", choices=list(SECTIONS), default="all",
                   help="what to compute and print: the measures' evaluation, their values per system, the "
                        "significance matrices, or all (default all)")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE[@cutoff]",
                   help=f"{OPTION_HELP['measures']} (repeatable; default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("-i", "--iter", dest="iterations", type=int, default=50, metavar="N",
                   help=OPTION_HELP["iterations"])
    p.add_argument("-b", "--boot", dest="bootstrap", type=int, default=1000, metavar="B",
                   help=OPTION_HELP["bootstrap"])
    p.add_argument("-e", "--err", dest="error_rates", action="store_true",
                   help=OPTION_HELP["error_rates"])
    p.add_argument("-w", "--swap", action="store_true",
                   help=OPTION_HELP["swap"])
    p.add_argument("-n", "--totalranks", dest="total_ranks", type=float, metavar="T",
                   help=OPTION_HELP["total_ranks"])
    p.add_argument("--cutoffs", nargs="+", type=float, default=[], metavar="K",
                   help=OPTION_HELP["cutoffs"])
    p.add_argument("--sigs", nargs="+", type=float, default=list(DEFAULT_SIGS), metavar="F",
                   help=OPTION_HELP["sigs"])
    p.add_argument("--splits", nargs="+", type=int, default=[10], metavar="Q",
                   help=OPTION_HELP["splits"])
    p.add_argument("--systems", nargs="+", type=int, default=[], metavar="S",
                   help=OPTION_HELP["systems"])
    p.add_argument("--entities", nargs="+", type=int, default=[], metavar="E",
                   help=OPTION_HELP["entities"])
    p.add_argument("-s", "--seed", type=int, default=42,
                   help=OPTION_HELP["seed"])
    p.add_argument("-t", "--threads", type=int, default=1, metavar="N",
                   help=OPTION_HELP["threads"])
    p.add_argument("--compat", choices=COMPAT_MODES, default=None,
                   help=OPTION_HELP["compat"])
    p.add_argument("-v", "--verbose", action="store_true", help="report progress on standard error")
    trec = p.add_argument_group("ranks from TREC data")
    trec.add_argument("--qrels", metavar="QRELS", help="derive the ranks from these qrels and the runs given as FILE")
    trec.add_argument("-l", "--level_for_rel", dest="level", type=int, default=1, metavar="N",
                      help=OPTION_HELP["level"])
    trec.add_argument("--missing-rank", type=float, default=None, metavar="R",
                      help=OPTION_HELP["missing_rank"])
    trec.add_argument("--save-ranks", metavar="FILE", help="also write the ranks as a rank file")
    add_output_options(p)


def _ranks(args):
    from evalgui.core.inputs import kind

    if args.qrels:
        if args.file or len(args.files) < 2:
            raise UsageProblem("with --qrels, give at least two runs as FILE")
        if args.missing_rank is not None and not 1 <= args.missing_rank < float("inf"):
            raise UsageProblem("--missing-rank must be a finite number of at least 1")
        from evalgui.core.rankfile.ranks import ranks_from_trec

        from evalgui.core.ranked.evaluate import runs_sharing_no_query

        qrels = kind("qrels").read(args.qrels)
        runs = [kind("run").read(path) for path in args.files]
        # A run sharing no query with the qrels ranks every relevant document "not retrieved": as evaluate.
        lonely = runs_sharing_no_query(qrels, runs)
        if len(lonely) == len(runs):
            raise UsageProblem(f"no query has both results and relevance information ({args.qrels}; "
                               f"{', '.join(args.files)})")
        notes = [f"{run.source} has no query in {args.qrels}; it ranks no relevant document" for run in lonely]
        ranks = ranks_from_trec(qrels, runs, relevance_level=args.level, missing_rank=args.missing_rank)
        if not ranks.entities:
            raise UsageProblem(f"{args.qrels}: no document is judged relevant at level {args.level}")
        return ranks, notes
    given = args.files + ([args.file] if args.file else [])
    if len(given) != 1:
        raise UsageProblem("give one rank file (or --qrels QRELS and the runs)")
    return kind("rank file").read(given[0]), []


def run(args) -> int:
    from evalgui.core.rankfile import use_one_blas_thread

    use_one_blas_thread()         # before numpy is imported
    from evalgui.core.export import write_atomic
    from evalgui.core.jobs import JobState
    from evalgui.core.rankfile.compat import preset
    from evalgui.core.rankfile.experiment import Settings, plan
    from evalgui.core.rankfile.experiment import run as run_experiments

    fmt = output_format(args)
    check_seed("-s", args.seed)
    from evalgui.core.inputs.rank_file import _RANK_LIMIT_TEXT, MAX_RANK

    if args.total_ranks is not None and args.total_ranks > MAX_RANK:    # NaN and 0 are the engine's to refuse
        raise UsageProblem(f"--totalranks must be at most {_RANK_LIMIT_TEXT} entities, not {args.total_ranks:g}")
    ranks, notes = _ranks(args)       # notes: said once the settings are checked, so an error stays one line
    sections = SECTIONS[args.printing]
    settings = Settings(measures=tuple(args.measures) or DEFAULT_MEASURES, iterations=args.iterations,
                        bootstrap=args.bootstrap, splits=tuple(args.splits), systems=tuple(args.systems),
                        entities=tuple(args.entities), sigs=tuple(args.sigs), cutoffs=tuple(args.cutoffs),
                        total_ranks=args.total_ranks, error_rates=args.error_rates, swap=args.swap,
                        experiments=sections != ("actual",), seed=args.seed, threads=args.threads,
                        compat=preset(args.compat))
    checked = plan(ranks, settings)          # checks the settings: nothing is written before
    if args.save_ranks:
        write_atomic(args.save_ranks, ranks.to_text())
    for message in notes + checked.warnings:
        warn(message)
    told = len(checked.warnings)
    state = JobState(on_progress=_report) if args.verbose else None
    results = run_experiments(checked, state)
    for message in results.warnings[told:]:        # what only the values on all entities show
        warn(message)
    text = render(results, sections, fmt)
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
            lines.append(comment + results.legend_text())
        if fmt == "markdown" and lines:
            lines.append("")
        parts.append("".join(line + "\n" for line in lines) + export.to_text(tables[name], fmt))
    return "\n".join(parts)
