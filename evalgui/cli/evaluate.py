"""evalgui-cli evaluate: a tidy table (run, query, measure, value) for one or more runs (the ranked workflow)."""

from __future__ import annotations

from evalgui.cli.common import add_output_options, for_one_pass, output_format, warn, write_table

NAME = "evaluate"
HELP = "tidy table (run, query, measure, value) for one or more runs"
DESCRIPTION = ("Measures in trec_eval syntax (P.10, ndcg_cut.10) or ir_measures syntax "
               "(P@10, nDCG@10, P(rel=2)@5, AP(norm=retrieved)).")


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.ranked import EvaluateRequest

    add_params(p, EvaluateRequest, positional=("qrels", "runs"), overrides={
        "qrels": {"nargs": None},
        "runs": {"nargs": "+"},
        "measures": {"help": "measure to compute; repeatable (default: official)"},
        "topic": {"help": "query id for a qrels file that is a plain list of relevant documents; with other qrels, "
                          "evaluate this query only"},
    })
    add_output_options(p)
    from evalgui.cli.caveats import add_caveats_option

    add_caveats_option(p)


def run(args) -> int:
    for_one_pass()
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

    fmt = output_format(args)
    request = request_from_args(EvaluateRequest, args)
    outcome = run_evaluate(request, tables=("results",))
    for note in outcome.notes_for_cli():
        warn(note)
    write_table(outcome.tables["results"], fmt, args.output)
    from evalgui.cli.caveats import report_caveats

    report_caveats(outcome, args)
    return 0
