"""evalgui-cli evaluate: a tidy table (run, query, measure, value) for one or more runs."""

from __future__ import annotations

from evalgui.cli.common import (add_output_options, add_trec_options, eval_options, fail, output_format, warn,
                                warn_absent, for_one_pass, write_table)

NAME = "evaluate"
HELP = "tidy table (run, query, measure, value) for one or more runs"
DESCRIPTION = ("Measures in trec_eval syntax (P.10, ndcg_cut.10) or ir_measures syntax "
               "(P@10, nDCG@10, P(rel=2)@5, AP(norm=retrieved)).")


def add_arguments(p) -> None:
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("runs", metavar="RUN", nargs="+")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                   help="measure to compute; repeatable (default: official)")
    p.add_argument("--per-query", action="store_true", help="include one row per query, not only 'all'")
    add_output_options(p)
    p.add_argument("--topic", metavar="ID", help="query id for a qrels file that is a plain list of relevant documents; "
                        "with other qrels, evaluate this query only")
    add_trec_options(p)
    p.add_argument("--ndeval-rank-order", action="store_true",
                   help="diversity measures (alpha_nDCG...): rank each query's documents by the run's rank column, "
                        "as ndeval does by default (default: by score, then docno descending: ndeval -traditional)")


def run(args) -> int:
    for_one_pass()
    from evalgui.core.inputs import kind
    from evalgui.core.ranked.diversity import subtopic_warning
    from evalgui.core.ranked.evaluate import evaluate_columns, runs_sharing_no_query
    from evalgui.core.ranked.specs import parse_measures

    fmt = output_format(args)
    requests = parse_measures(args.measures or ["official"])
    options = eval_options(args)
    if args.ndeval_rank_order:
        from dataclasses import replace

        options = replace(options, diversity_order="rank")
    qrels = kind("qrels").read(args.qrels, topic=args.topic)
    runs = [kind("run").read(path) for path in args.runs]
    if (mismatch := subtopic_warning(qrels, requests)) is not None:
        warn(mismatch)
    # Without -c a run sharing no query with the qrels scores 0 everywhere: say so once, not per query.
    lonely = set() if options.complete else {id(run) for run in runs_sharing_no_query(qrels, runs)}
    if lonely and len(lonely) == len(runs):
        return fail(f"no query has both results and relevance information ({args.qrels}; {', '.join(args.runs)})")
    for run in runs:
        if id(run) in lonely:
            warn(f"{run.source} has no query in {args.qrels}; its values are 0")
    columns = evaluate_columns(
        qrels, runs, requests, options, per_query=args.per_query,
        on_absent=lambda run, topics: None if id(run) in lonely else warn_absent(run.source, topics))
    write_table(columns, fmt, args.output)
    return 0
