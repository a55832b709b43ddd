"""Parameters several workflows share, declared once: trec_eval's evaluation options, the measures,
the significance test's settings."""

from __future__ import annotations

from evalgui.core.workflows.params import Param, Problem

# trec_eval's -l -c -M -J -N: how runs are evaluated wherever qrels and runs are the source.
LEVEL = Param(name="level", type="int", default=1, minimum=0, flag="--level_for_rel", short="-l", metavar="N",
              label="Relevant from grade",
              help="The lowest grade that counts as relevant for binary measures (trec_eval's -l). Grades below "
                   "it count as not relevant.",
              group="Evaluation")
COMPLETE = Param(name="complete", type="bool", default=False, flag="--complete_rel_info_wanted", short="-c",
                 label="Score queries missing from a run as 0",
                 help="Average over every judged query: a query a run has no results for scores 0 (trec_eval's "
                      "-c). Otherwise such queries are left out of that run's averages.",
                 group="Evaluation")
MAX_DOCS = Param(name="max_docs", type="int", default=None, optional=True, minimum=0,
                 flag="--Max_retrieved_per_topic", short="-M", metavar="N", label="Documents per query",
                 help="Evaluate only the first N ranked documents of each query (trec_eval's -M). Empty: all of them.",
                 unit="documents", group="Evaluation", advanced=True)
JUDGED_ONLY = Param(name="judged_only", type="bool", default=False, flag="--Judged_docs_only", short="-J",
                    label="Judged documents only",
                    help="Drop unjudged documents from the runs before evaluating (trec_eval's -J; use with care: "
                         "it rewards runs for what nobody judged).",
                    group="Evaluation", advanced=True)
NUM_DOCS = Param(name="num_docs", type="int", default=0, minimum=0, flag="--Number_docs_in_coll", short="-N",
                 metavar="N", label="Documents in the collection",
                 help="The number of documents in the collection, which the utility measure needs (trec_eval's -N).",
                 unit="documents", group="Evaluation", advanced=True)
EVALUATION = (LEVEL, COMPLETE, MAX_DOCS, JUDGED_ONLY, NUM_DOCS)
# The advisor's judged-share check (evalgui.core.advisor): a run's judged share below this is a caveat.
JUDGED_BELOW = Param(name="judged_below", type="float", default=90.0, minimum=0.0, maximum=100.0,
                     flag="--judged-below", metavar="PERCENT", label="Watch runs judged below", unit="%",
                     help="Say so (a caveat) when less than this share of the documents a run ranks, at a "
                          "measure's depth, is judged; under 70 % it is a warning. 0 says nothing.",
                     group="Evaluation", advanced=True)

QRELS = Param(name="qrels", type="file", default=None, metavar="QRELS", label="Judgments (qrels)",
              help="The relevance judgments: TREC qrels, or a table of query, document and grade.")
RUNS = Param(name="runs", type="files", default=(), metavar="RUN", label="Runs",
             help="The runs to evaluate: TREC run files (query Q0 document rank score tag) or tables.")
TOPIC = Param(name="topic", type="text", default=None, optional=True, flag="--topic", metavar="ID",
              label="Query of a plain list", advanced=True,
              help="The query id to give a qrels file that is a plain list of relevant documents.")


def eval_options(request):
    """The engine's EvalOptions of a request holding :data:`EVALUATION`."""
    from evalgui.core.ranked.evaluate import EvalOptions

    return EvalOptions(relevance_level=request.level, complete=request.complete, max_docs=request.max_docs,
                       judged_only=request.judged_only, num_docs_in_coll=request.num_docs)


def absent_note(source: str, absent: list[str], complete: Param) -> Problem:
    """Judged queries a run has no results for, skipped (trec_eval's behaviour without -c); ``complete``: the
    request's parameter that scores them 0, which each front end names its own way."""
    shown = ", ".join(absent[:5]) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
    return Problem(None, f"{len(absent)} judged quer{'y has' if len(absent) == 1 else 'ies have'} no results in "
                         f"{source} and {'was' if len(absent) == 1 else 'were'} skipped ({shown}); use {{complete}} "
                         "to score them 0", mentions=(complete,))
