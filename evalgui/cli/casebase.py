"""evalgui-cli casebase: ground truth by the linear retriever, MAC/FAC sweeps, timings and quality."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, output_format, warn
from evalgui.cli.similarity import _numbers, add_metric_options, check_counts, read_predicted, write_result

NAME = "casebase"
HELP = "case-based retrieval: ground truth, MAC/FAC, timings"
DESCRIPTION = ("Reads the train (retrieve-from) and test (query) case bases and a similarity model (JSON), "
               "computes the ground truth with the linear retriever, runs MAC/FAC for each (filter size, k) "
               "pair, times every retrieval and evaluates it against the ground truth with ProCAKE's metrics. "
               "One row per retriever, filter size, k and metric, with retrieval_seconds, seconds_per_query "
               "and the speedup against the linear retriever at the same k. When test and train are the same "
               "file, a query never retrieves itself (unless --include-self).")


def add_arguments(p) -> None:
    p.add_argument("--train", required=True, metavar="FILE", help="the case base to retrieve from")
    p.add_argument("--test", metavar="FILE", help="the queries (a case base; default: the train case base)")
    p.add_argument("--model", required=True, metavar="M.json", help="the similarity model")
    mac = p.add_mutually_exclusive_group()
    mac.add_argument("--mac-model", metavar="M2.json", help="MAC's cheaper model")
    mac.add_argument("--mac-attributes", metavar="A,B", help="MAC's model: these attributes of --model")
    p.add_argument("--filter-sizes", type=_numbers(int, "whole numbers"), default=(), metavar="F1,F2",
                   help="MAC/FAC: the candidates MAC keeps, paired position by position with --ks")
    p.add_argument("--ks", type=_numbers(int, "whole numbers"), default=(), metavar="K1,K2",
                   help="the number of cases returned (MAC/FAC's, and the linear retriever's)")
    p.add_argument("--export-ground-truth", metavar="GT.csv",
                   help="write the ground truth (query_id, case_id, similarity; CSV, TSV, Parquet or JSON)")
    p.add_argument("--id-column", metavar="NAME", help="the case id column (default: 'id', else the first)")
    p.add_argument("--delimiter", default=";", help="the separator of set values (default ';')")
    p.add_argument("--include-self", action="store_true",
                   help="let a query retrieve the train case with its own id (same file for test and train)")
    add_metric_options(p, k_option=False)


def run(args) -> int:
    import os

    from evalgui.core.cbr.evaluate import CaseBaseRun, run_casebase
    from evalgui.core.cbr.model import load_model
    from evalgui.core.inputs.case_base import read_case_base

    output_format(args)
    if args.export_ground_truth:
        from evalgui.core.export import format_from_path
        from evalgui.core.formats import extension_of

        path = args.export_ground_truth
        if (extension_of(path) or format_from_path(path)) not in ("csv", "tsv", "parquet", "json"):
            raise UsageProblem(f"--export-ground-truth {path}: write CSV, TSV, Parquet or JSON (.csv, .tsv, .txt, "
                               ".parquet, .json), which similarity --ground-truth reads")
    check_counts("--ks", args.ks)
    check_counts("--filter-sizes", args.filter_sizes)
    if args.filter_sizes and not (args.mac_model or args.mac_attributes):
        raise UsageProblem("MAC/FAC needs MAC's model: --mac-model M2.json or --mac-attributes A,B")
    options = {"id_column": args.id_column, "delimiter": args.delimiter}
    train = read_case_base(args.train, **options)
    same = args.test is None or os.path.abspath(args.test) == os.path.abspath(args.train)
    test = train if same else read_case_base(args.test, **options)
    model = load_model(args.model, train)
    if args.mac_model:
        mac = load_model(args.mac_model, train)
    elif args.mac_attributes:
        mac = model.subset([a.strip() for a in args.mac_attributes.split(",") if a.strip()])
    else:
        mac = None
    predicted = dict(read_predicted(args.predicted))
    request = CaseBaseRun(train, test, model, mac, tuple(args.filter_sizes), tuple(args.ks), args.metrics,
                          predicted, exclude_self=same and not args.include_self, ties=args.ties,
                          per_query=args.per_query, relevance_thresholds=args.relevance_thresholds)
    result = run_casebase(request)
    for message in result.warnings:
        warn(message)
    if args.export_ground_truth:
        result.ground_truth.write(args.export_ground_truth)
    write_result(result.table, args)
    return 0
