"""evalgui-cli similarity: retrievers' similarity results against a ground truth, ProCAKE's metrics (the
similarity workflow)."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn, write_table

NAME = "similarity"
HELP = "case-based retrieval metrics of similarity results"
DESCRIPTION = ("Compares each retriever's result lists (query_id, case_id, similarity) with the ground truth "
               "(the similarities of an exhaustive retriever, e.g. what evalgui-cli casebase --export-ground-truth "
               "writes) by ProCAKE's metrics, averaged over queries: one row per retriever, k and metric. Lists "
               "are ordered by similarity, ties by case id. No case base is needed, so results of ProCAKE, "
               "CBRkit or a neural model can be evaluated as they are.")


def _numbers(kind, what: str):
    def parse(text: str):
        try:
            return tuple(kind(t) for t in text.split(",") if t.strip())
        except ValueError:
            import argparse

            raise argparse.ArgumentTypeError(f"expected {what} separated by commas, e.g. "
                                             f"{'10,50' if kind is int else '0.7,0.9'}; got '{text}'") from None
    return parse


def add_metric_options(p, request_type) -> None:
    """--predicted, -m, (-k), --ties, --relevance-thresholds, --per-query and the output options."""
    from evalgui.cli.declared import add_params
    from evalgui.core.cbr.catalogue import QUALITY_METRICS

    predicted = request_type.param("predicted")
    p.add_argument(predicted.flag, dest="predicted_specs", action="append", default=[], metavar=predicted.metavar,
                   help=predicted.help)
    add_params(p, request_type, skip=tuple(n for n in request_type.params()
                                           if n not in ("metrics", "ks", "ties", "per_query")
                                           or (n == "ks" and request_type.param(n).flag != "-k")), overrides={
        "metrics": {"help": f"repeatable (default: all): {', '.join(QUALITY_METRICS)}; mae(align=case) and "
                            "mse(align=case) compare each case's two similarities; ranked measures (nDCG@10, P@5, "
                            "AP...) with --relevance-thresholds"},
        "ks": {"help": "cut both lists to their top K; repeatable (default: the whole lists)"},
    })
    thresholds = request_type.param("relevance_thresholds")
    p.add_argument(thresholds.flag, dest=thresholds.name, type=_numbers(float, "similarities"), default=None,
                   metavar=thresholds.metavar, help=thresholds.help)
    add_output_options(p)


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.casebase import SimilarityRequest

    add_params(p, SimilarityRequest, skip=tuple(n for n in SimilarityRequest.params() if n != "ground_truth"),
               overrides={"ground_truth": {"required": True}})
    add_metric_options(p, SimilarityRequest)


def write_result(table, args) -> None:
    """The tidy table in the chosen format (LaTeX and Markdown show an unset k as an empty cell)."""
    fmt = output_format(args)
    if fmt in ("latex", "markdown"):
        table = table.astype({c: object for c in ("k", "filter_size") if c in table.columns})
        table = table.where(table.notna(), "")
    write_table(table, fmt, args.output)


def run(args) -> int:
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.casebase import SimilarityRequest, run_similarity, split_predicted

    if not args.predicted_specs:
        raise UsageProblem("give the results to evaluate with --predicted NAME=FILE")
    output_format(args)
    request = request_from_args(SimilarityRequest, args, **split_predicted(args.predicted_specs))
    outcome = run_similarity(request)
    for message in outcome.notes_for_cli():
        warn(message)
    write_result(outcome.tables["results"], args)
    return 0
