"""evalgui-cli metaeval: how good is each measure? Stability, discriminative power, robustness, agreement
(the meta-evaluation workflow)."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem, add_output_options, output_format, warn

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

# What to write instead of the rates (not how to compute): (dest, flag, experiment, the outcome's table).
_WRITES = (("matrix", "--matrix", "stability", "matrix"), ("curves", "--curves", "power", "curves"),
           ("per_repetition", "--per-repetition", "robustness", "per_repetition"))


def _fractions(text: str) -> list[float]:
    import argparse

    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"numbers separated by commas (e.g. 0.1,0.5,0.9), not '{text}'") from None


def add_arguments(p) -> None:
    from evalgui.cli.declared import add_params
    from evalgui.core.workflows.metaeval import MetaevalRequest

    add_params(p, MetaevalRequest, positional=("qrels", "runs"), overrides={
        "qrels": {"help": "qrels (not with --scores)"},
        "runs": {"help": "runs (at least two)"},
        "measures": {"help": "measure to meta-evaluate, ranked (AP, nDCG@10...) or a preference (rpp, dcgrpp, "
                             "invrpp, lexirecall, lexiprecision, or as papers name them: RPP, DCGPP, INVPP, "
                             "Lexirecall, Lexiprecision, in any case); repeatable (e.g. -m AP -m nDCG@10 -m rpp; "
                             "with --scores, default: every measure in the file)"},
        "experiment": {"required": True},
        "set_sizes": {"help": "queries per set; repeatable: the error rate against the size (default 5, 10, ... "
                              "n/2)"},
        # one option holding the list, as before: --fractions 0.1,0.5
        "fractions": {"action": "store", "type": _fractions, "default": None},
    })
    p.add_argument("--matrix", metavar="MEASURE",
                   help="stability: write the better/worse/equal counts of every pair of runs for this measure (at "
                        "the largest set size) instead of the rates")
    p.add_argument("--curves", action="store_true", default=None,
                   help="power: write every pair's p-value (ASL), sorted, per measure (Sakai's curves) instead of "
                        "the shares")
    p.add_argument("--per-repetition", action="store_true", default=None,
                   help="robustness: write tau and flipped pairs of every repetition instead of their mean and "
                        "spread")
    add_output_options(p)
    from evalgui.cli.caveats import add_caveats_option

    add_caveats_option(p)


def _check_experiment_options(args) -> None:
    """An option of another experiment is an error rather than silently ignored."""
    from evalgui.core.workflows.metaeval import MetaevalRequest, own_params

    owned = [(name, MetaevalRequest.param(name).flag, experiments) for name, experiments in own_params().items()]
    owned += [(dest, flag, (experiment,)) for dest, flag, experiment, _ in _WRITES]
    for dest, flag, experiments in owned:
        value = getattr(args, dest, None)
        if value not in (None, [], False) and args.experiment not in experiments:
            raise UsageProblem(f"{flag} is an option of --experiment {' or '.join(experiments)}, not {args.experiment}")


def run(args) -> int:
    from evalgui.cli.common import write_table
    from evalgui.cli.declared import request_from_args
    from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval

    _check_experiment_options(args)
    if args.fractions is not None and not args.fractions:
        raise UsageProblem("--fractions: choose at least one fraction of judgments to remove")
    fmt = output_format(args)
    request = request_from_args(MetaevalRequest, args)
    outcome = run_metaeval(request)
    table = outcome.tables["table"]
    for dest, _, _, name in _WRITES:
        if getattr(args, dest):
            table = outcome.tables[name]
    if args.matrix is not None:
        from evalgui.core.ranked.preference import registered_names

        wanted = registered_names([args.matrix])[0]       # a preference by either name, as the table holds it
        if wanted not in outcome.measures:
            raise UsageProblem(f"--matrix {args.matrix}: not one of the measures ({', '.join(outcome.measures)})")
        table = table[table["measure"] == wanted].reset_index(drop=True)
    for note in outcome.notes_for_cli():        # after the checks: an error is said in its one line alone
        warn(note)
    write_table(table, fmt, args.output)
    from evalgui.cli.caveats import report_caveats

    report_caveats(outcome, args)
    return 0
