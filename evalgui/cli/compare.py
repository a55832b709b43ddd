"""evalgui-cli compare: significance tests between runs, one row per pair and measure."""

from __future__ import annotations

from evalgui.cli.common import (UsageProblem, add_output_options, add_trec_options, eval_options, output_format,
                                warn, write_table)

NAME = "compare"
HELP = "significance tests between runs (all pairs or against baselines)"
DESCRIPTION = ("Evaluates the runs against the qrels (or reads per-query scores with --scores) and tests every "
               "pair of runs, or every run against each --baseline, on each measure. One row per pair and "
               "measure: means, difference with a bootstrap CI, Cohen's d_z, p-value, corrected p-value, "
               "wins/ties/losses, and how it was computed (test, samples, seed, correction, alpha, queries). "
               "Tests are paired over the qrels queries every run has (with -c: every qrels query, 0 where a "
               "run has none).")


def add_arguments(p) -> None:
    from evalgui.core.stats.catalogue import CORRECTIONS, TESTS

    p.add_argument("qrels", metavar="QRELS", nargs="?", help="qrels (not with --scores)")
    p.add_argument("runs", metavar="RUN", nargs="*", help="runs to compare (at least two)")
    p.add_argument("--scores", metavar="FILE", help="per-query scores (run,query,measure,value) instead of "
                                                    "QRELS RUN...; e.g. what evaluate --per-query writes")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                   help="measure to compare; repeatable (with --scores, default: every measure in the file)")
    p.add_argument("--test", choices=list(TESTS), default="t", help="significance test (default t)")
    p.add_argument("--correction", choices=list(CORRECTIONS), default="holm",
                   help="multiple-comparison correction per measure (default holm)")
    p.add_argument("--baseline", dest="baselines", action="append", default=[], metavar="RUN",
                   help="compare every run against this one (a run name or its file); repeatable")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--samples", type=int, default=None, metavar="B",
                   help="resamples of randomization (default 10000), bootstrap (1000) or tukey (5000)")
    p.add_argument("--seed", type=int, default=42, help="random seed of the resampling tests (default 42)")
    p.add_argument("--tie-tolerance", type=float, default=0.0, metavar="T",
                   help="a per-query difference within T is a tie in wins/ties/losses (default 0)")
    p.add_argument("--paper", action="store_true",
                   help="write the compact runs x measures table (means with superscript letters of the runs "
                        "each beats significantly) in LaTeX or Markdown instead of the tidy table")
    add_output_options(p)
    add_trec_options(p)


def _scores_from_runs(args):
    """Tidy per-query scores of the runs, their names, and the qrels' queries."""
    import pandas as pd

    from evalgui.cli.common import warn_absent
    from evalgui.core.inputs import kind
    from evalgui.core.ranked.evaluate import evaluate_columns, unique_run_names
    from evalgui.core.ranked.specs import parse_measures

    if args.qrels is None or len(args.runs) < 2:
        raise UsageProblem("give QRELS and at least two RUNs, or --scores FILE")
    if not args.measures:
        raise UsageProblem("choose the measures to compare with -m (e.g. -m AP -m nDCG@10)")
    requests = parse_measures(args.measures)
    options = eval_options(args)
    qrels = kind("qrels").read(args.qrels)
    runs = [kind("run").read(path) for path in args.runs]
    names = unique_run_names(runs)
    columns = evaluate_columns(qrels, runs, requests, options, per_query=True,
                               on_absent=None if options.complete else
                               lambda run, topics: warn_absent(run.source, topics))
    scores = pd.DataFrame(columns)
    files = dict(zip(args.runs, names))
    return scores, names, files, [str(q) for q in qrels.query_ids]


def _scores_from_file(args):
    from evalgui.core.inputs import kind

    if args.qrels is not None or args.runs:
        raise UsageProblem("with --scores, give no QRELS or RUN (the file has the runs)")
    table = kind("per-query scores").read(args.scores)
    if not len(table.frame):
        raise UsageProblem(f"{args.scores}: only summary rows (query 'all'); comparing needs per-query values "
                           "(evaluate --per-query writes them)")
    return table.frame, table.runs, {}, None


def run(args) -> int:
    import numpy as np

    from evalgui.core import tidy
    from evalgui.core.stats.compare import CompareOptions, compare, paper_table

    fmt = output_format(args)
    if args.paper and fmt not in ("latex", "markdown"):
        raise UsageProblem("--paper writes LaTeX or Markdown: add --format latex (or markdown), or -o FILE.tex")
    scores, names, files, universe = _scores_from_file(args) if args.scores else _scores_from_runs(args)
    baselines = tuple(files.get(b, b) for b in args.baselines)
    per_query = scores[scores[tidy.QUERY] != tidy.ALL_QUERIES]
    numeric = per_query[np.isfinite(per_query[tidy.VALUE].to_numpy(dtype=np.float64, na_value=np.nan))] \
        if per_query[tidy.VALUE].dtype.kind == "f" else per_query
    measures = list(dict.fromkeys(numeric[tidy.MEASURE].tolist()))
    if args.scores and args.measures:
        unknown = [m for m in args.measures if m not in measures]
        if unknown:
            raise UsageProblem(f"{args.scores} has no per-query values of '{unknown[0]}' "
                               f"(it has {', '.join(measures)})")
        measures = list(dict.fromkeys(args.measures))
    if not measures:
        raise UsageProblem("none of the measures has per-query values to compare")
    summary_only = [m for m in dict.fromkeys(scores[tidy.MEASURE].tolist()) if m not in measures]
    if summary_only and not args.scores:
        warn(f"not compared (no per-query values): {', '.join(summary_only)}")
    try:
        options = CompareOptions(test=args.test, correction=args.correction, alpha=args.alpha, samples=args.samples,
                                 seed=args.seed, baselines=baselines, fill_missing=args.complete,
                                 tie_tolerance=args.tie_tolerance)
        if args.test == "tukey" and args.correction not in ("none", "holm"):
            warn("Tukey's HSD controls the family-wise error itself; --correction is not applied")
        result = compare(per_query, names, measures, options, universe)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    for query_set in result.query_sets.values():
        if query_set.missing:
            warn(query_set.describe())
        if not query_set.queries:
            raise UsageProblem(f"{query_set.measure}: no query is shared by every run; nothing to compare "
                               "(use -c to score missing queries 0)")
    for message in result.warnings:
        warn(message)
    if args.paper:
        from evalgui.core.export import write_atomic

        text = paper_table(result, fmt)
        if args.output:
            write_atomic(args.output, text)
        else:
            import sys

            sys.stdout.write(text)
        return 0
    write_table(result.table, fmt, args.output)
    return 0
