"""evalgui-cli: the engines, headless.

    evalgui-cli trec_eval [-q] [-c] [-n] [-l N] [-M N] [-m MEASURE[.params]]... QRELS RUN
    evalgui-cli evaluate QRELS RUN [RUN ...] -m MEASURE [-m ...] [--per-query] [--format F] [-o FILE]
    evalgui-cli measures

Bad usage or bad input: exit status 2 and one line on stderr, never a traceback.
Heavy modules are imported inside the commands so that start-up stays small.
"""

from __future__ import annotations

import argparse
import os
import sys

PROG = "evalgui-cli"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return status


def _warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {message}\n")


def _warn_absent(run_source: str, absent: list[str]) -> None:
    if absent:
        shown = ", ".join(absent[:5]) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
        _warn(f"{len(absent)} judged quer{'y has' if len(absent) == 1 else 'ies have'} no results in "
              f"{run_source} and {'was' if len(absent) == 1 else 'were'} skipped ({shown}); use -c to score them 0")


def _add_trec_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-l", "--level_for_rel", dest="level", type=int, default=1, metavar="N",
                   help="minimum grade that counts as relevant (default 1)")
    p.add_argument("-c", "--complete_rel_info_wanted", dest="complete", action="store_true",
                   help="average over every qrels query; queries without results score 0")
    p.add_argument("-M", "--Max_retrieved_per_topic", dest="max_docs", type=int, default=None, metavar="N",
                   help="evaluate only the first N ranked documents per query")
    p.add_argument("-J", "--Judged_docs_only", dest="judged_only", action="store_true",
                   help="drop unjudged documents before evaluating (use with care)")
    p.add_argument("-N", "--Number_docs_in_coll", dest="num_docs", type=int, default=0, metavar="N",
                   help="number of documents in the collection (for utility)")


def _options(args):
    from evalgui.core.ranked.evaluate import EvalOptions

    if args.max_docs is not None and args.max_docs < 0:
        raise _UsageProblem("-M must be a non-negative number of documents")
    return EvalOptions(relevance_level=args.level, complete=args.complete, max_docs=args.max_docs,
                       judged_only=args.judged_only, num_docs_in_coll=args.num_docs)


class _UsageProblem(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Evaluate retrieval runs (trec_eval-exact measures) from the command line.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('evalgui').__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    te = sub.add_parser("trec_eval", help="print exactly what trec_eval 10.0 prints",
                        description="Behaves like trec_eval 10.0: same measures, parameters and output.")
    te.add_argument("-q", "--query_eval_wanted", dest="per_query", action="store_true",
                    help="also print the value of each query")
    te.add_argument("-n", "--nosummary", dest="no_summary", action="store_true", help="do not print the summary")
    te.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE[.params]",
                    help="measure or nickname (official, all_trec, set); repeatable")
    _add_trec_options(te)
    te.add_argument("qrels", metavar="QRELS")
    te.add_argument("run", metavar="RUN")

    ev = sub.add_parser("evaluate", help="tidy table (run, query, measure, value) for one or more runs",
                        description="Measures in trec_eval syntax (P.10, ndcg_cut.10) or ir_measures syntax "
                                    "(P@10, nDCG@10, P(rel=2)@5, AP(norm=retrieved)).")
    ev.add_argument("qrels", metavar="QRELS")
    ev.add_argument("runs", metavar="RUN", nargs="+")
    ev.add_argument("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
                    help="measure to compute; repeatable (default: official)")
    ev.add_argument("--per-query", action="store_true", help="include one row per query, not only 'all'")
    ev.add_argument("--format", choices=("csv", "tsv", "json", "latex", "markdown"), default=None,
                    help="output format (default: from -o's extension, else csv)")
    ev.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of standard output")
    ev.add_argument("--topic", metavar="ID", help="query id for a qrels file that is a plain list of relevant documents")
    _add_trec_options(ev)

    ms = sub.add_parser("measures", help="list the measures with their descriptions")
    ms.add_argument("name", nargs="?", help="show one measure in full")
    return parser


def _cmd_trec_eval(args) -> int:
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import evaluate_run
    from evalgui.core.ranked.trec_eval import format_lines, requests_for

    requests = requests_for(args.measures)
    options = _options(args)
    qrels = read_qrels(args.qrels)
    run = read_run(args.run)
    result = evaluate_run(qrels, run, requests, options)
    _warn_absent(args.run, result.absent_topics)
    if not len(result.query_ids):
        return _fail(f"no queries with both results and relevance information ({args.qrels}, {args.run})")
    lines = format_lines(result, per_query=args.per_query, summary=not args.no_summary)
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


def _cmd_evaluate(args) -> int:
    from evalgui.core import export
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import evaluate_columns
    from evalgui.core.ranked.specs import parse_measures

    fmt = args.format or (export.format_from_path(args.output) if args.output else "csv")
    requests = parse_measures(args.measures or ["official"])
    options = _options(args)
    qrels = read_qrels(args.qrels, topic=args.topic)
    runs = [read_run(path) for path in args.runs]
    lonely = []
    if not options.complete:
        judged = set(qrels.query_ids)
        lonely = [run for run in runs if judged.isdisjoint(run.query_ids)]
        if len(lonely) == len(runs):
            return _fail(f"no query has both results and relevance information ({args.qrels}; "
                         f"{', '.join(args.runs)})")
        for run in lonely:
            print(f"evalgui-cli: warning: {run.source} has no query in {args.qrels}; its values are 0",
                  file=sys.stderr)
    columns = evaluate_columns(qrels, runs, requests, options, per_query=args.per_query,
                               on_absent=lambda run, topics: None if run in lonely else _warn_absent(run.source, topics))
    if fmt in ("csv", "tsv"):  # without pandas: its import alone is 0.2 s
        text = export.columns_to_delimited(columns, "," if fmt == "csv" else "\t")
    else:
        import pandas as pd

        text = export.to_text(pd.DataFrame(columns), fmt)
    if args.output:
        export.write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _cmd_measures(args) -> int:
    from evalgui.core.ranked.measures import REGISTRY

    if args.name:
        m = REGISTRY.get(args.name)
        if m is None:
            return _fail(f"unknown measure '{args.name}'")
        print(f"{m.name}" + (f"  (ir_measures: {m.ir_name})" if m.ir_name else ""))
        print(m.help_text)
        return 0
    for m in REGISTRY.values():
        first = m.description.split(". ")[0].rstrip(".")
        ir = f" [{m.ir_name}]" if m.ir_name else ""
        print(f"{m.name:<24}{first}{ir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    from evalgui.core.errors import EvalInputError, EvalUsageError

    try:
        return {"trec_eval": _cmd_trec_eval, "evaluate": _cmd_evaluate, "measures": _cmd_measures}[args.command](args)
    except (EvalInputError, EvalUsageError, _UsageProblem) as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); that is not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    except Exception as exc:  # a bug, not bad input: still one line, with a way to see more
        if os.environ.get("EVALGUI_DEBUG"):
            raise
        return _fail(f"internal error: {type(exc).__name__}: {exc} (set EVALGUI_DEBUG=1 for details)", 1)


if __name__ == "__main__":
    sys.exit(main())
