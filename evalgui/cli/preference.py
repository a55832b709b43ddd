"""evalgui-cli preference: Recall-Paired Preference and lexicographic preferences for every pair of runs."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, listed, output_format, warn, write_table

NAME = "preference"
HELP = "Recall-Paired Preference for every two runs"
DESCRIPTION = ("Compares every two runs query by query, from where each ranks the relevant documents: "
               "Recall-Paired Preference (rpp, dcgrpp, invrpp; Diaz & Ferraro 2022) and lexicographic recall "
               "and precision (lexirecall, lexiprecision). One row per pair of runs, in the order given; a "
               "positive value prefers run_a. --test adds whether each pair's mean preference differs from 0 "
               "(one-sample tests on the per-query preferences, corrected per measure over the pairs); "
               "--matrix writes the run x run matrix of mean preferences instead, --ranking the runs ranked by "
               "mean preference and win rate. 'evalgui-cli measures --family preference' explains each measure.")
# What --test adds to each pair's mean (query 'all'), in this order.
TEST_COLUMNS = ("ci_low", "ci_high", "effect_size", "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                "n_queries", "test", "samples", "seed", "correction", "alpha", "queries", "binary_threshold")
# The family's records, named here so that --help does not import the engine (a test keeps them equal).
MEASURES = ("rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision")


def add_arguments(p) -> None:
    from evalgui.core.stats.catalogue import CORRECTIONS, PREFERENCE_TESTS

    p.add_argument("qrels", metavar="QRELS")
    p.add_argument("runs", metavar="RUN", nargs="+")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                   help=f"preference to compute, repeatable: {', '.join(MEASURES)} (default: all)")
    p.add_argument("--binary-threshold", type=int, default=None, metavar="N",
                   help="grade >= N is relevant, grades not told apart (default: every grade >= 1 is "
                        "relevant and RPP averages over the grade levels)")
    p.add_argument("--per-query", action="store_true", help="include one row per query, not only 'all'")
    table = p.add_mutually_exclusive_group()
    table.add_argument("--matrix", action="store_true",
                       help="write, per measure, the run x run matrix of mean preferences (the row run over the "
                            "column run; antisymmetric) instead of one row per pair")
    table.add_argument("--ranking", action="store_true",
                       help="write, per measure, the runs ranked by mean preference against the others, then win "
                            "rate (the share of the others a run is preferred to); with --test, also the pairs "
                            "each run wins and loses significantly")
    p.add_argument("--test", choices=list(PREFERENCE_TESTS), default=None,
                   help="test whether each pair's mean preference is 0, on its per-query preferences (one-sample: "
                        "t, wilcoxon and sign as scipy computes them; randomization flips their signs; bootstrap "
                        "is Sakai's); adds the columns " + ", ".join(TEST_COLUMNS) + " to the rows of query 'all'")
    p.add_argument("--correction", choices=list(CORRECTIONS), default=None,
                   help="multiple-comparison correction per measure over the pairs (default holm; with --test)")
    p.add_argument("--alpha", type=float, default=None, help="significance level (default 0.05; with --test)")
    p.add_argument("--samples", type=int, default=None, metavar="B",
                   help="resamples of randomization (default 10000) or bootstrap (1000) (with --test)")
    p.add_argument("--seed", type=int, default=None, help="random seed of the resampling tests (default 42)")
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
    options = _test_options(args)           # bad settings stop here too
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
    if args.matrix:
        table = _matrices(result)
    elif args.ranking or options is not None:
        from evalgui.core.stats.compare import compare_preferences, preference_ranking

        tested = compare_preferences(result, options) if options is not None else None
        for message in tested.warnings if tested is not None else ():
            warn(message)
        if args.ranking:
            table = tested.ranking if tested is not None else preference_ranking(result)
        else:
            table = _with_tests(result.to_frame(per_query=args.per_query), tested.table)
    else:
        table = result.tidy_columns(per_query=args.per_query)
    write_table(table, fmt, args.output)
    return 0


def _test_options(args):
    """The CompareOptions of --test and its settings (None without --test); bad combinations are refused."""
    settings = {"--correction": args.correction, "--alpha": args.alpha, "--samples": args.samples,
                "--seed": args.seed}
    if (args.matrix or args.ranking) and args.per_query:
        raise UsageProblem(f"--per-query adds rows to the pairs table, not to {'--matrix' if args.matrix else '--ranking'}")
    if args.test is None:
        given = [name for name, value in settings.items() if value is not None]
        if given:
            raise UsageProblem(f"{given[0]} sets the significance test: add --test (e.g. --test randomization)")
        return None
    if args.matrix:
        raise UsageProblem("--matrix writes mean preferences only: the tests' p-values are in the pairs table "
                           "(without --matrix) and in --ranking")
    from evalgui.core.stats.compare import CompareOptions

    try:
        return CompareOptions(test=args.test, correction=args.correction or "holm",
                              alpha=0.05 if args.alpha is None else args.alpha, samples=args.samples,
                              seed=42 if args.seed is None else args.seed)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None


def _with_tests(pairs, tests):
    """The tidy pairs table, each pair's mean (query 'all') followed by its test's columns (empty on the
    per-query rows)."""
    import pandas as pd

    from evalgui.core import tidy

    tests = tests.drop(columns="preference").assign(**{tidy.QUERY: tidy.ALL_QUERIES})
    table = pairs.merge(tests, on=[tidy.MEASURE, "run_a", "run_b", tidy.QUERY], how="left", sort=False)
    for column in ("wins", "ties", "losses", "n_queries", "samples", "seed"):
        table[column] = pd.array(table[column], dtype="Int64")      # whole numbers stay whole beside the gaps
    return table[[*pairs.columns, *TEST_COLUMNS]]


def _matrices(result):
    """Per measure, the runs x runs mean preferences: columns measure, run_a, then one per run (run_b)."""
    import pandas as pd

    from evalgui.core import tidy

    parts = []
    for name in result.measures:
        frame = result.matrix_frame(name).reset_index()
        frame.columns = [str(c) for c in frame.columns]
        frame.insert(0, tidy.MEASURE, name)
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)
