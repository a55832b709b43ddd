"""evalgui-cli casebase: ground truth by the linear retriever, MAC/FAC sweeps, timings and quality (the
case-based workflow)."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, output_format, warn
from evalgui.cli.similarity import _numbers, add_metric_options, write_result

NAME = "casebase"
HELP = "case-based retrieval: ground truth, MAC/FAC, timings"
DESCRIPTION = ("Reads the train (retrieve-from) and test (query) case bases and a similarity model (JSON), "
               "computes the ground truth with the linear retriever, runs MAC/FAC for each (filter size, k) "
               "pair, times every retrieval and evaluates it against the ground truth with ProCAKE's metrics. "
               "One row per retriever, filter size, k and metric, with retrieval_seconds, seconds_per_query "
               "and the speedup against the linear retriever at the same k. When test and train are the same "
               "file, a query never retrieves itself (unless --include-self).")


def _names(text: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in text.split(",") if a.strip())


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.casebase import CasebaseRequest

    def only(*names):
        return tuple(n for n in CasebaseRequest.params() if n not in names)

    add_params(p, CasebaseRequest, skip=only("train", "test", "model_file"),
               overrides={"train": {"required": True}, "model_file": {"required": True}})
    mac = p.add_mutually_exclusive_group()
    add_params(mac, CasebaseRequest, skip=only("mac_model_file"))
    for name, parse in (("mac_attributes", _names), ("filter_sizes", _numbers(int, "whole numbers")),
                        ("ks", _numbers(int, "whole numbers"))):
        param = CasebaseRequest.param(name)
        (mac if name == "mac_attributes" else p).add_argument(param.flag, dest=name, type=parse, default=None,
                                                                metavar=param.metavar, help=param.help)
    p.add_argument("--export-ground-truth", metavar="GT.csv",
                   help="write the ground truth (query_id, case_id, similarity; CSV, TSV, Parquet or JSON)")
    add_params(p, CasebaseRequest, skip=only("id_column", "delimiter", "include_self"))
    add_metric_options(p, CasebaseRequest)


def run(args) -> int:
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.casebase import CasebaseRequest, run_casebase, split_predicted

    output_format(args)
    if args.export_ground_truth:               # refused before the work, in a format similarity reads back
        from evalgui.core.export import format_from_path
        from evalgui.core.formats import extension_of

        path = args.export_ground_truth
        if (extension_of(path) or format_from_path(path)) not in ("csv", "tsv", "parquet", "json"):
            raise UsageProblem(f"--export-ground-truth {path}: write CSV, TSV, Parquet or JSON (.csv, .tsv, .txt, "
                               ".parquet, .json), which similarity --ground-truth reads")
    request = request_from_args(CasebaseRequest, args, **split_predicted(args.predicted_specs))
    outcome = run_casebase(request)
    for message in outcome.notes_for_cli():
        warn(message)
    if args.export_ground_truth:
        outcome.ground_truth.write(args.export_ground_truth)
    write_result(outcome.tables["results"], args)
    return 0
