"""evalgui-cli compare: significance tests between runs, one row per pair and measure (the compare workflow)."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn, write_table

NAME = "compare"
HELP = "significance tests between runs (all pairs or against baselines)"
DESCRIPTION = ("Evaluates the runs against the qrels (or reads per-query scores with --scores) and tests every "
               "pair of runs, or every run against each --baseline, on each measure. One row per pair and "
               "measure: means, difference with a bootstrap CI, Cohen's d_z, p-value, corrected p-value, "
               "wins/ties/losses, and how it was computed (test, samples, seed, correction, alpha, queries). "
               "Tests are paired over the qrels queries every run has (with -c: every qrels query, 0 where a "
               "run has none).")


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.compare import CompareRequest

    add_params(p, CompareRequest, positional=("qrels", "runs"), skip=("score_runs",), overrides={
        "qrels": {"help": "qrels (not with --scores)"},
        "runs": {"help": "runs to compare (at least two)"},
        "measures": {"help": "measure to compare; repeatable (with --scores, default: every measure in the file)"},
        "baselines": {"help": "compare every run against this one (a run name or its file); repeatable"},
    })
    table = p.add_mutually_exclusive_group()
    table.add_argument("--paper", action="store_true",
                       help="write the compact runs x measures table (means with superscript letters of the runs "
                            "each beats significantly) in LaTeX or Markdown instead of the tidy table")
    table.add_argument("--matrix", action="store_true",
                       help="write every tested pair in both orders, seen from the row run (measure, row, column, "
                            "both means, difference and CI, p, adjusted p, wins/ties/losses): the window's matrix")
    add_output_options(p)
    from evalgui.cli.caveats import add_caveats_option

    add_caveats_option(p)


def run(args) -> int:
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.compare import CompareRequest, run_compare

    fmt = output_format(args)
    if args.paper and fmt not in ("latex", "markdown"):
        raise UsageProblem("--paper writes LaTeX or Markdown: add --format latex (or markdown), or -o FILE.tex")
    request = request_from_args(CompareRequest, args)
    if request.test == "tukey" and request.correction not in ("none", "holm"):
        warn("Tukey's HSD controls the family-wise error itself; --correction is not applied")
    outcome = run_compare(request)
    for note in outcome.notes_for_cli():
        warn(note)
    from evalgui.cli.caveats import report_caveats

    if args.paper:
        from evalgui.core.export import write_atomic
        from evalgui.core.stats.compare import paper_table

        text = paper_table(outcome.comparison, fmt)
        if args.output:
            write_atomic(args.output, text)
        else:
            import sys

            sys.stdout.write(text)
        report_caveats(outcome, args)
        return 0
    write_table(outcome.tables["matrix" if args.matrix else "comparison"], fmt, args.output)
    report_caveats(outcome, args)
    return 0
