"""evalgui-cli trec_eval: print exactly what trec_eval 10.0 prints."""

from __future__ import annotations

import sys

from evalgui.cli.common import add_trec_options, eval_options, fail, warn, warn_absent, for_one_pass

NAME = "trec_eval"
HELP = "print exactly what trec_eval 10.0 prints"
DESCRIPTION = "Behaves like trec_eval 10.0: same measures, parameters and output."


def add_arguments(p) -> None:
    p.add_argument("-q", "--query_eval_wanted", dest="per_query", action="store_true",
                   help="also print the value of each query")
    p.add_argument("-n", "--nosummary", dest="no_summary", action="store_true", help="do not print the summary")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE[.params]",
                   help="measure or nickname (official, all_trec, set); repeatable")
    add_trec_options(p)
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("run", metavar="RUN")


def run(args) -> int:
    for_one_pass()
    from evalgui.core.inputs import kind
    from evalgui.core.ranked.evaluate import evaluate_run
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    requests = requests_for(args.measures, warn=warn)   # what trec_eval silently ignores: one line each
    options = eval_options(args)
    qrels = kind("qrels").read(args.qrels)
    run = kind("run").read(args.run)
    from evalgui.core.ranked.diversity import subtopic_warning
    if (mismatch := subtopic_warning(qrels, requests)) is not None:
        warn(mismatch)
    result = evaluate_run(qrels, run, requests, options)
    warn_absent(args.run, result.absent_topics)
    if not len(result.query_ids):
        return fail(f"no queries with both results and relevance information ({args.qrels}, {args.run})")
    lines = format_lines(result, per_query=args.per_query, summary=not args.no_summary)
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0
