"""evalgui-cli preference: Recall-Paired Preference and lexicographic preferences for every pair of runs."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, listed, output_format, warn, write_table

NAME = "preference"
HELP = "Recall-Paired Preference for every two runs"
DESCRIPTION = ("Compares every two runs query by query, from where each ranks the relevant documents: "
               "Recall-Paired Preference (rpp, dcgrpp, invrpp; Diaz & Ferraro 2022) and lexicographic recall "
               "and precision (lexirecall, lexiprecision). One row per pair of runs, in the order given; a "
               "positive value prefers run_a. 'evalgui-cli measures --family preference' explains each.")
# The family's records, named here so that --help does not import the engine (a test keeps them equal).
MEASURES = ("rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision")


def add_arguments(p) -> None:
    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("runs", metavar="RUN", nargs="+")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                   help=f"preference to compute, repeatable: {', '.join(MEASURES)} (default: all)")
    p.add_argument("--binary-threshold", type=int, default=None, metavar="N",
                   help="grade >= N is relevant, grades not told apart (default: every grade >= 1 is "
                        "relevant and RPP averages over the grade levels)")
    p.add_argument("--per-query", action="store_true", help="include one row per query, not only 'all'")
    add_output_options(p)
    p.add_argument("--topic", metavar="ID", help="query id for a qrels file that is a plain list of relevant documents")


def run(args) -> int:
    import os
    from functools import partial

    from evalgui.core.inputs import kind
    from evalgui.core.ranked.preference import REGISTRY, compare, measure

    fmt = output_format(args)
    measures = list(dict.fromkeys(args.measures)) or list(REGISTRY)
    for name in measures:
        measure(name)        # an unknown name stops here, before any file is read
    if len(args.runs) < 2:
        raise UsageProblem(f"a preference compares two runs or more; {len(args.runs)} given")
    qrels = kind("qrels").read(args.qrels, topic=args.topic)

    def lacking(run, absent: list[str]) -> None:
        # By definition such a query counts as retrieving nothing; say so, as evaluate does for its skips.
        if absent:
            warn(f"{len(absent)} quer{'y' if len(absent) == 1 else 'ies'} with relevant documents "
                 f"{'has' if len(absent) == 1 else 'have'} no results in {run.source}: counted as retrieving "
                 f"nothing ({listed(absent)})")

    # Runs are read, reduced to their relevance vectors and dropped, a few at a time on every core.
    loaders = [partial(kind("run").read, path) for path in args.runs]
    result = compare(qrels, loaders, measures, binary_threshold=args.binary_threshold, n_runs=len(loaders),
                     workers=min(os.cpu_count() or 1, 4), on_run=lacking)
    write_table(result.tidy_columns(per_query=args.per_query), fmt, args.output)
    return 0
