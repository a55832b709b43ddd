"""evalgui-cli trec_eval: print exactly what trec_eval 10.0 prints.

It keeps trec_eval's option syntax and its fast path (one run evaluated by the engine the ranked
workflow calls, printed from the evaluation's own sums); its evaluation options are the ranked
workflow's declarations and are checked as the workflow checks them."""

from __future__ import annotations

import sys

from evalgui.cli.common import fail, warn, warn_absent, for_one_pass

NAME = "trec_eval"
HELP = "print exactly what trec_eval 10.0 prints"
DESCRIPTION = "Behaves like trec_eval 10.0: same measures, parameters and output."


def add_arguments(p) -> None:
    p.add_argument("-q", "--query_eval_wanted", dest="per_query", action="store_true",
                   help="also print the value of each query")
    p.add_argument("-n", "--nosummary", dest="no_summary", action="store_true", help="do not print the summary")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE[.params]",
                   help="measure or nickname (official, all_trec, set); repeatable")
    # -l -c -M -J -N: the ranked workflow's declarations, under trec_eval's own spelling.
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.common import EVALUATION
    from evalgui.core.workflows.ranked import EvaluateRequest

    add_params(p, EvaluateRequest, skip=tuple(q.name for q in EvaluateRequest.PARAMS if q not in EVALUATION))
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("run", metavar="RUN")


def run(args) -> int:
    for_one_pass()
    from evalgui.core.inputs import kind
    from evalgui.core.ranked.evaluate import evaluate_run
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.common import eval_options
    from evalgui.core.workflows.ranked import EvaluateRequest

    # The options are checked as the ranked workflow checks them; the measures keep trec_eval's own reading.
    options = eval_options(request_from_args(EvaluateRequest, args, qrels=args.qrels, runs=(args.run,),
                                             measures=("official",)))
    requests = requests_for(args.measures, warn=warn)   # what trec_eval silently ignores: one line each
    qrels = kind("qrels").read(args.qrels)
    run = kind("run").read(args.run)
    result = evaluate_run(qrels, run, requests, options)
    warn_absent(args.run, result.absent_topics)
    if not len(result.query_ids):
        return fail(f"no queries with both results and relevance information ({args.qrels}, {args.run})")
    lines = format_lines(result, per_query=args.per_query, summary=not args.no_summary)
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0
