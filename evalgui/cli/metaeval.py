"""evalgui-cli metaeval: how good is each measure? Stability, discriminative power, robustness, agreement."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, add_trec_options, eval_options, output_format, warn

NAME = "metaeval"
HELP = "meta-evaluate measures: stability, power, robustness, agreement"
DESCRIPTION = ("Evaluates the runs against the qrels on each measure and runs one experiment on the per-query "
               "scores. stability (Buckley & Voorhees 2000): error and tie rates over random query sets, per "
               "set size; power (Sakai 2006): the share of run pairs significant at alpha; robustness: Kendall's "
               "tau and flipped pairs when a fraction of the judged documents is removed (re-evaluating the "
               "ranked runs, never re-reading them); agreement: Pearson and sign agreement of the per-query "
               "differences and Kendall's tau between the run rankings, for every two measures. Rates are in "
               "percent; every experiment is seeded. Measures are compared over the qrels queries every run has "
               "(with -c: every qrels query, 0 where a run has none). Preference measures (rpp, dcgrpp, invrpp, "
               "lexirecall, lexiprecision) go where any measure goes: a pair of runs is decided by the sign of its "
               "mean preference (stability: a tie within the fuzziness, absolute), tested as a one-sample test of "
               "its per-query preferences (power), and runs are ranked by mean preference, then win rate "
               "(robustness, agreement); they compare runs on the queries with a relevant document, graded at the "
               "default -l 1 and binary at grade >= N with -l N. 'evalgui-cli measures --family metaeval' says "
               "more.")


def _fractions(text: str) -> list[float]:
    import argparse

    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"numbers separated by commas (e.g. 0.1,0.5,0.9), not '{text}'") from None


def add_arguments(p) -> None:
    from evalgui.core.metaeval.catalogue import EXPERIMENTS
    from evalgui.core.stats.catalogue import CORRECTIONS, TESTS

    p.add_argument("qrels", metavar="QRELS", nargs="?", help="qrels (not with --scores)")
    p.add_argument("runs", metavar="RUN", nargs="*", help="runs (at least two)")
    p.add_argument("--scores", metavar="FILE", help="per-query scores (run,query,measure,value) instead of "
                                                    "QRELS RUN..., e.g. what evaluate --per-query writes; not "
                                                    "for robustness, which evaluates the runs again")
    p.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                   help="measure to meta-evaluate, ranked (AP, nDCG@10...) or a preference (rpp, dcgrpp, invrpp, "
                        "lexirecall, lexiprecision); repeatable (e.g. -m AP -m nDCG@10 -m rpp; with --scores, "
                        "default: every measure in the file)")
    p.add_argument("--experiment", required=True, choices=list(EXPERIMENTS), help="the experiment to run")
    g = p.add_argument_group("stability")
    g.add_argument("--fuzziness", type=float, default=None,
                   help="relative difference under which two means are equal (default 0.05)")
    g.add_argument("--set-size", dest="set_sizes", type=int, action="append", default=None, metavar="N",
                   help="queries per set; repeatable: the error rate against the size (default 5, 10, ... n/2)")
    g.add_argument("--sets", type=int, default=None, help="query sets per repetition (default 1000)")
    g.add_argument("--replacement", action="store_true", default=None, help="draw a set's queries with replacement")
    g.add_argument("--matrix", metavar="MEASURE",
                   help="write the better/worse/equal counts of every pair of runs for this measure (at the "
                        "largest set size) instead of the rates")
    g = p.add_argument_group("power")
    g.add_argument("--test", choices=list(TESTS), default=None, help="significance test (default bootstrap)")
    g.add_argument("--correction", choices=list(CORRECTIONS), default=None,
                   help="multiple-comparison correction over the run pairs (default none, as Sakai)")
    g.add_argument("--alpha", type=float, default=None, help="significance level (default 0.05)")
    g.add_argument("--samples", type=int, default=None, metavar="B",
                   help="resamples of bootstrap (default 1000), randomization (10000) or tukey (5000)")
    g.add_argument("--curves", action="store_true", default=None,
                   help="write every pair's p-value (ASL), sorted, per measure (Sakai's curves) instead of the shares")
    g = p.add_argument_group("robustness")
    g.add_argument("--fractions", type=_fractions, default=None, metavar="F,F,...",
                   help="shares of the judged documents to remove (default 0.1,0.2,...,0.9)")
    g.add_argument("--per-repetition", action="store_true", default=None,
                   help="write tau and flipped pairs of every repetition instead of their mean and spread")
    g = p.add_argument_group("stability and robustness")
    g.add_argument("--repetitions", type=int, default=None, metavar="R",
                   help="independent repetitions (default: stability 5, robustness 10)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    add_output_options(p)
    add_trec_options(p)


# The options of one experiment (or two): (dest, flag, experiments). Their defaults are None, so
# that giving one to another experiment is an error rather than silently ignored.
_OWN_OPTIONS = (("fuzziness", "--fuzziness", ("stability",)), ("set_sizes", "--set-size", ("stability",)),
                ("sets", "--sets", ("stability",)), ("replacement", "--replacement", ("stability",)),
                ("matrix", "--matrix", ("stability",)), ("test", "--test", ("power",)),
                ("correction", "--correction", ("power",)), ("alpha", "--alpha", ("power",)),
                ("samples", "--samples", ("power",)), ("curves", "--curves", ("power",)),
                ("fractions", "--fractions", ("robustness",)), ("per_repetition", "--per-repetition", ("robustness",)),
                ("repetitions", "--repetitions", ("stability", "robustness")))


def _settings(args):
    """The experiment's settings from the options given (the others keep the engine's defaults)."""
    from evalgui.core.metaeval import experiments as ex

    for dest, flag, experiments in _OWN_OPTIONS:
        if getattr(args, dest) is not None and args.experiment not in experiments:
            raise UsageProblem(f"{flag} is an option of --experiment {' or '.join(experiments)}, not {args.experiment}")
    given = {dest: getattr(args, dest) for dest, _, experiments in _OWN_OPTIONS
             if args.experiment in experiments and getattr(args, dest) is not None}
    for flag in ("matrix", "curves", "per_repetition"):     # what to write, not how to compute
        given.pop(flag, None)
    if "set_sizes" in given:
        given["set_sizes"] = tuple(given["set_sizes"])
    if "fractions" in given:
        given["fractions"] = tuple(given["fractions"])
    try:
        return ex.SETTINGS[args.experiment](seed=args.seed, **given) if args.experiment != "agreement" else \
            ex.AgreementSettings()
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None


def run(args) -> int:
    from evalgui.cli.common import write_table
    from evalgui.core.metaeval.experiments import EXPERIMENTS, run_experiment

    settings = _settings(args)
    fmt = output_format(args)
    if args.scores:
        if args.experiment == "robustness":
            raise UsageProblem("robustness evaluates the runs again with fewer judgments: give QRELS and RUNs, "
                               "not --scores")
        source, full = None, _scores_from_file(args)
    else:
        source, full = _scores_from_runs(args)
    if args.matrix is not None and args.matrix not in full:
        raise UsageProblem(f"--matrix {args.matrix}: not one of the measures ({', '.join(full)})")
    for scores in full.values():
        if scores.query_set.missing:
            warn(scores.query_set.describe())
    try:
        result = run_experiment(source, settings, full=full) if source is not None else \
            EXPERIMENTS[args.experiment](full, settings)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    if args.matrix is not None:
        table = result.matrix_frame(args.matrix)
    elif args.curves:
        table = result.pairs
    elif args.per_repetition:
        table = result.repetitions
    else:
        table = result.table
    write_table(table, fmt, args.output)
    return 0


def _scores_from_runs(args):
    """The runs ranked once against the qrels, and every measure with the full judgments."""
    from evalgui.cli.common import warn_absent
    from evalgui.core.inputs import kind
    from evalgui.core.metaeval.scores import RankedSource

    if args.qrels is None or len(args.runs) < 2:
        raise UsageProblem("meta-evaluation compares runs: give QRELS and at least two RUNs, or --scores FILE")
    if not args.measures:
        raise UsageProblem("choose the measures with -m (e.g. -m AP -m nDCG@10)")
    options = eval_options(args)
    qrels = kind("qrels").read(args.qrels)
    runs = [kind("run").read(path) for path in args.runs]
    source = RankedSource(qrels, runs, args.measures, options)
    if not options.complete:
        for run, name in zip(runs, source.systems):
            warn_absent(run.source, source.absent.get(name, []))
    return source, source.measure_scores()


def _scores_from_file(args):
    """Measures from a per-query scores file, over the queries every run has (-c: all, 0 where missing)."""
    from evalgui.core import tidy
    from evalgui.core.inputs import kind
    from evalgui.core.metaeval.scores import scores_from_tidy

    if args.qrels is not None or args.runs:
        raise UsageProblem("with --scores, give no QRELS or RUN (the file has the runs)")
    table = kind("per-query scores").read(args.scores)
    if not len(table.frame):
        raise UsageProblem(f"{args.scores}: only summary rows (query 'all'); comparing needs per-query values "
                           "(evaluate --per-query writes them)")
    frame, runs = table.frame, table.runs
    if len(runs) < 2:
        raise UsageProblem(f"{args.scores}: meta-evaluation compares runs; the file has {len(runs)}")
    present = list(dict.fromkeys(frame[tidy.MEASURE].tolist()))
    unknown = [m for m in args.measures if m not in present]
    if unknown:
        raise UsageProblem(f"{args.scores} has no per-query values of '{unknown[0]}' (it has {', '.join(present)})")
    return scores_from_tidy(frame, runs, list(dict.fromkeys(args.measures)) or present, None, args.complete)
