"""evalgui-cli preference: Recall-Paired Preference and lexicographic preferences for every pair of runs."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn, write_table

NAME = "preference"
HELP = "Recall-Paired Preference for every two runs"
DESCRIPTION = ("Compares every two runs query by query, from where each ranks the relevant documents: "
               "Recall-Paired Preference (RPP, DCGPP, INVPP; Diaz & Ferraro 2022) and lexicographic recall "
               "and precision (Lexirecall, Lexiprecision); with subtopic qrels, RPP per subtopic (ST-RPP, "
               "ST-RPP(rel)). -m takes the name papers write or the registered one (rpp, dcgrpp, invrpp, "
               "lexirecall, lexiprecision, st_rpp, st_rpp_rel), in any case; the output's measure column keeps "
               "the registered names. One row per pair of runs, in the order given; a "
               "positive value prefers run_a. --test adds whether each pair's mean preference differs from 0 "
               "(one-sample tests on the per-query preferences, corrected per measure over the pairs); "
               "--matrix writes the run x run matrix of mean preferences instead, --ranking the runs ranked by "
               "mean preference and win rate. 'evalgui-cli measures --family preference' explains each measure.")
# What --test adds to each pair's mean (query 'all'), in this order (the workflow's, named here so that
# --help does not import it).
TEST_COLUMNS = ("ci_low", "ci_high", "effect_size", "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                "n_queries", "test", "samples", "seed", "correction", "alpha", "queries", "binary_threshold")
# The family's records and the names papers write, named here so that --help does not import the engine
# (a test keeps them equal to the registry's).
MEASURES = ("rpp", "dcgrpp", "invrpp", "lexirecall", "lexiprecision", "st_rpp", "st_rpp_rel")
PAPER_NAMES = ("RPP", "DCGPP", "INVPP", "Lexirecall", "Lexiprecision", "ST-RPP", "ST-RPP(rel)")


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.compare import PreferenceRequest

    add_params(p, PreferenceRequest, positional=("qrels", "runs"), skip=("baselines",), overrides={
        "runs": {"nargs": "+"},
        "measures": {"help": "preference to compute, repeatable, as papers name it or as registered: "
                             + ", ".join(f"{paper} or {name}" for paper, name in zip(PAPER_NAMES, MEASURES))
                             + " (any case; default: all; ST-RPP and ST-RPP(rel), subtopic RPP, only with "
                             "subtopic qrels)"},
        "binary_threshold": {"help": "grade >= N is relevant, grades not told apart (default: every grade >= 1 "
                                     "is relevant and RPP averages over the grade levels)"},
        "test": {"help": "test whether each pair's mean preference is 0, on its per-query preferences (one-sample: "
                         "t, wilcoxon and sign as scipy computes them; randomization flips their signs; bootstrap "
                         "is Sakai's); adds the columns " + ", ".join(TEST_COLUMNS) + " to the rows of query 'all'"},
        "correction": {"help": "multiple-comparison correction per measure over the pairs (default holm; with "
                               "--test)"},
        "alpha": {"help": "significance level (default 0.05; with --test)"},
        "samples": {"help": "resamples of randomization (default 10000) or bootstrap (1000) (with --test)"},
        "seed": {"help": "random seed of the resampling tests (default 42)"},
    })
    p.add_argument("--per-query", action="store_true", help="include one row per query, not only 'all'")
    table = p.add_mutually_exclusive_group()
    table.add_argument("--matrix", action="store_true",
                       help="write, per measure, the run x run matrix of mean preferences (the row run over the "
                            "column run; antisymmetric) instead of one row per pair")
    table.add_argument("--ranking", action="store_true",
                       help="write, per measure, the runs ranked by mean preference against the others, then win "
                            "rate (the share of the others a run is preferred to); with --test, also the pairs "
                            "each run wins and loses significantly")
    add_output_options(p)
    from evalgui.cli.caveats import add_caveats_option

    add_caveats_option(p)


def run(args) -> int:
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.compare import PreferenceRequest, run_preference

    fmt = output_format(args)
    _check_settings(args)
    request = request_from_args(PreferenceRequest, args)
    table = "matrix" if args.matrix else "ranking" if args.ranking else "pairs"
    outcome = run_preference(request, per_query=args.per_query, tables=(table,))
    for note in outcome.notes_for_cli():
        warn(note)
    write_table(outcome.tables[table], fmt, args.output)
    from evalgui.cli.caveats import report_caveats

    report_caveats(outcome, args)
    return 0


def _check_settings(args) -> None:
    """Settings that need --test, and tables that a setting does not apply to, are refused."""
    settings = {"--correction": args.correction, "--alpha": args.alpha, "--samples": args.samples,
                "--seed": args.seed}
    if (args.matrix or args.ranking) and args.per_query:
        raise UsageProblem(f"--per-query adds rows to the pairs table, not to {'--matrix' if args.matrix else '--ranking'}")
    if args.test is None:
        given = [name for name, value in settings.items() if value is not None]
        if given:
            raise UsageProblem(f"{given[0]} sets the significance test: add --test (e.g. --test randomization)")
    elif args.matrix:
        raise UsageProblem("--matrix writes mean preferences only: the tests' p-values are in the pairs table "
                           "(without --matrix) and in --ranking")
