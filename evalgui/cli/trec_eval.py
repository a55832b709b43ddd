"""evalgui-cli trec_eval: print exactly what trec_eval 10.0 prints.

It keeps trec_eval's option syntax and its fast path (one run evaluated by the engine the ranked
workflow calls, printed from the evaluation's own sums); its evaluation options -l -c -M -J -N are
the ranked workflow's declarations and are checked as the workflow checks them."""

from __future__ import annotations

import sys

from evalgui.cli.common import fail, for_one_pass, listed, warn, warn_absent

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
    p.add_argument("-R", "--Rel_info_format", dest="rel_format", default="qrels",
                   choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
                   help="what QRELS holds: qrels (default); prefs: preference judgments (query, judgment group, "
                        "subgroup, document, level); qrels_prefs: qrels read as preferences; qrels_jg: qrels with "
                        "a judgment group (user) in column 2")
    p.add_argument("-Z", "--Zscore", dest="zscores", metavar="FILE",
                   help="print z-scores: (value - mean) / stddev, with the mean and stddev of each query and "
                        "measure read from FILE (lines: query measure mean stddev)")
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("run", metavar="RUN")


def run(args) -> int:
    for_one_pass()                  # before numpy is imported
    from evalgui.core.formats._text import keeping_utf8_bom

    with keeping_utf8_bom():        # the binary reads a UTF-8 byte-order mark into the first query id
        return _run(args)


def _run(args) -> int:
    from evalgui.core.inputs import kind
    from evalgui.core.ranked.trec_eval import apply_zscores, format_lines, requests_for

    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.common import eval_options
    from evalgui.core.workflows.ranked import EvaluateRequest

    requests = requests_for(args.measures, warn=warn, rel_format=args.rel_format)   # what trec_eval ignores: warned
    # The options are checked as the ranked workflow checks them; the measures keep trec_eval's own reading.
    options = eval_options(request_from_args(EvaluateRequest, args, qrels=args.qrels, runs=(args.run,),
                                             measures=("official",)))
    zscores = None
    if args.zscores:
        from evalgui.core.formats.trec_judgments import read_zscores
        zscores = read_zscores(args.zscores)
    from evalgui.core.ranked.by_query import evaluate_run_by_query, streamed

    # A run too large to hold is evaluated query by query, in bounded memory (the same output).
    large = streamed(args.run) if args.rel_format == "qrels" else None
    run = None if large else kind("run").read(args.run)
    if args.rel_format == "qrels":
        from evalgui.core.ranked.evaluate import evaluate_run
        from evalgui.core.ranked.diversity import subtopic_warning
        qrels = kind("qrels").read(args.qrels)
        if (mismatch := subtopic_warning(qrels, requests)) is not None:
            warn(mismatch)
        result = evaluate_run_by_query(qrels, args.run, requests, options) if large else \
            evaluate_run(qrels, run, requests, options)
        _warn_all_negative(qrels, result)
    elif args.rel_format == "qrels_jg":
        from evalgui.core.formats.trec_judgments import read_trec_qrels_jg
        from evalgui.core.ranked.judgment_groups import evaluate_jg
        result = evaluate_jg(read_trec_qrels_jg(args.qrels), run, requests, options)
    else:
        from evalgui.core.formats import trec_judgments as tj
        from evalgui.core.ranked.prefs import evaluate_prefs
        read = tj.read_trec_prefs if args.rel_format == "prefs" else tj.read_trec_qrels_prefs
        result = evaluate_prefs(read(args.qrels), run, requests, options)
    warn_absent(args.run, result.absent_topics)
    if not len(result.query_ids):
        return fail(f"no queries with both results and relevance information ({args.qrels}, {args.run})")
    if zscores is not None:
        result = apply_zscores(result, zscores, complete=options.complete)
    lines = format_lines(result, per_query=args.per_query, summary=not args.no_summary, zscores=zscores is not None)
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


def _warn_all_negative(qrels, result) -> None:
    """trec_eval 10.0 cannot evaluate a query whose judgments are all negative: on the first query it
    evaluates it stops (exit 4, "Can't calculate measure 'num_ret'"), and later it crashes when the
    highest grade is below -1 (its buffer for grades 0..max is sized max + 1). evalgui prints the
    values and says so in one line."""
    import numpy as np

    top = np.full(len(qrels.query_ids), np.iinfo(np.int64).min)
    np.maximum.at(top, qrels.query_codes, qrels.rel)
    top_of = dict(zip(qrels.query_ids.tolist(), top.tolist()))
    evaluated = result.query_ids.tolist()
    hit = [q for i, q in enumerate(evaluated) if top_of.get(q, 0) < (0 if i == 0 else -1)]
    if hit:
        warn(f"trec_eval 10.0 cannot evaluate {'a query' if len(hit) == 1 else f'{len(hit)} queries'} with only "
             f"negative judgments ({listed(hit)}): it stops (\"Can't calculate measure 'num_ret'\", exit 4) or "
             f"crashes there; evalgui prints the values")
