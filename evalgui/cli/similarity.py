"""evalgui-cli similarity: retrievers' similarity results against a ground truth, ProCAKE's metrics."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn, write_table

NAME = "similarity"
HELP = "case-based retrieval metrics of similarity results"
DESCRIPTION = ("Compares each retriever's result lists (query_id, case_id, similarity) with the ground truth "
               "(the similarities of an exhaustive retriever, e.g. what evalgui-cli casebase --export-ground-truth "
               "writes) by ProCAKE's metrics, averaged over queries: one row per retriever, k and metric. Lists "
               "are ordered by similarity, ties by case id. No case base is needed, so results of ProCAKE, "
               "CBRkit or a neural model can be evaluated as they are.")


def _name_and_file(text: str) -> tuple[str, str]:
    """NAME=FILE, or FILE (named after the file)."""
    import os

    name, sep, path = text.partition("=")
    if sep and name and os.sep not in name and not os.path.exists(text):
        return name, path
    from evalgui.core.formats._text import file_stem

    return file_stem(text), text


# The most cases a list can be cut to (more than any list holds); larger values would overflow the arrays.
MAX_COUNT = 10**12


def check_counts(option: str, values) -> None:
    """-k, --ks and --filter-sizes: below 1 is refused by the engine, with its message; here the top."""
    for value in values:
        if value is not None and value > MAX_COUNT:
            raise UsageProblem(f"{option} {value} is more than any list holds (at most {MAX_COUNT:,})")


def _numbers(kind, what: str):
    def parse(text: str):
        try:
            return tuple(kind(t) for t in text.split(",") if t.strip())
        except ValueError:
            import argparse

            raise argparse.ArgumentTypeError(f"expected {what} separated by commas, e.g. "
                                             f"{'10,50' if kind is int else '0.7,0.9'}; got '{text}'") from None
    return parse


def add_metric_options(p, *, k_option: bool) -> None:
    """-m, (-k), --ties, --relevance-thresholds, --per-query, --predicted and the output options."""
    from evalgui.core.cbr.catalogue import QUALITY_METRICS, TIES

    p.add_argument("--predicted", action="append", default=[], metavar="NAME=FILE",
                   help="a retriever's similarity results (query_id, case_id, similarity); repeatable")
    p.add_argument("-m", "--metric", dest="metrics", action="append", default=[], metavar="METRIC",
                   help=f"repeatable (default: all): {', '.join(QUALITY_METRICS)}; mae(align=case) and "
                        "mse(align=case) compare each case's two similarities; ranked measures (nDCG@10, P@5, "
                        "AP...) with --relevance-thresholds")
    if k_option:
        p.add_argument("-k", dest="ks", action="append", type=int, default=[], metavar="K",
                       help="cut both lists to their top K; repeatable (default: the whole lists)")
    p.add_argument("--ties", choices=TIES, default="case_id",
                   help="ties in the ground truth: broken by case id (default), or interchangeable for hits")
    p.add_argument("--relevance-thresholds", type=_numbers(float, "similarities"), default=(), metavar="T1,T2",
                   help="for ranked measures: a case is relevant with grade g when its true similarity reaches "
                        "the g-th threshold")
    p.add_argument("--per-query", action="store_true", help="also one row per query (the summary's query is 'all')")
    add_output_options(p)


def add_arguments(p) -> None:
    p.add_argument("--ground-truth", required=True, metavar="FILE",
                   help="the ground-truth similarities (query_id, case_id, similarity)")
    add_metric_options(p, k_option=True)


def read_predicted(specs: list[str]) -> list[tuple[str, object]]:
    from evalgui.core.inputs import kind

    named = [_name_and_file(s) for s in specs]
    names = [n for n, _ in named]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageProblem(f"two retrievers are named '{repeated[0]}': name them with --predicted NAME=FILE")
    return [(name, kind("similarity results").read(path)) for name, path in named]


def write_result(table, args) -> None:
    """The tidy table in the chosen format (LaTeX and Markdown show an unset k as an empty cell)."""
    fmt = output_format(args)
    if fmt in ("latex", "markdown"):
        table = table.astype({c: object for c in ("k", "filter_size") if c in table.columns})
        table = table.where(table.notna(), "")
    write_table(table, fmt, args.output)


def run(args) -> int:
    from evalgui.core.cbr.evaluate import evaluate_results
    from evalgui.core.inputs import kind

    if not args.predicted:
        raise UsageProblem("give the results to evaluate with --predicted NAME=FILE")
    output_format(args)
    check_counts("-k", args.ks)
    ground_truth = kind("similarity results").read(args.ground_truth)
    predicted = read_predicted(args.predicted)
    table, warnings = evaluate_results(ground_truth, predicted, args.metrics, args.ks or [None], ties=args.ties,
                                       per_query=args.per_query, relevance_thresholds=args.relevance_thresholds)
    for message in warnings:
        warn(message)
    write_result(table, args)
    return 0
