"""Evaluating ranking systems from the ranks they give to test entities, and evaluating the measures
themselves (Dunaiski, Geldenhuys & Visser 2018, "the Ranking Evaluation Tool").

- ``ranks.py``: the rank file (entities x systems), and ranks derived from TREC qrels + runs.
- ``measures.py``: every measure on sorted ranks (AP, nDCG, average rank, P@k...), vectorised over
  queries and systems, with cut-off and per-mille forms; the "rankfile" registry family.
- ``experiment.py``: the stability experiments (error/tie rate, tRate, relRate, correlation, ASL,
  swap method, decisions, significance matrices) over every combination of the range parameters,
  as one job; the arithmetic they share with the meta-evaluation is ``core/stats/stability.py``.
- ``compat.py``: the switches that reproduce the original tool's bugs (``--compat dunaiski2018``).
"""

import contextlib
import os

# Light on purpose (no numpy): the command line reads these to build its options.
# The original's example measure set (its getEvaluationMethods() as published), in its order.
DEFAULT_MEASURES = ("AP_inter_per", "nDCG@Avg", "Average", "Median", "Average@20", "AP", "Average@Avg",
                    "Average@10", "P@2000_per")
DEFAULT_SIGS = (0.005, 0.01, 0.05, 0.1, 0.15)
COMPAT_MODES = ("dunaiski2018",)
# Ceilings on the numbers that size the work (each refusal says what it protects).
MAX_ITERATIONS = 100_000           # iterations over every combination of splits, systems, entities
MAX_THREADS = 64
MAX_SWAP_TRIALS = 25_000_000      # system pairs x bootstrap samples: the swap method's trials, 2 numbers each
                                  # (400 MB)

# What each setting means: the command line's --help and the window's tooltips (one text for both).
OPTION_HELP = {
    "measures": "a measure, e.g. AP, nDCG@Avg, P@2000_per, Average@k (each cut-off of the range); "
                "`evalgui-cli measures --family rankfile` lists them",
    "iterations": "iterations to average over: each shuffles the entities and splits them into queries (default 50)",
    "bootstrap": "bootstrap samples, for the ASL rate, estDiff and the swap method (default 1000)",
    "error_rates": "also compute the error and tie rates, tRate and relRate",
    "swap": "decide significance (decisions, matrices) with the swap method's swapDiffMin instead of the "
            "bootstrap's estDiff",
    "total_ranks": "how many entities the systems ranked, T (needed only by per-mille measures and ROC_AUC)",
    "cutoffs": "cut-offs for the measures written with @k (or @N): one measure per value",
    "sigs": "significance levels, also the fuzziness of the error and tie rates "
            f"(default {' '.join(map(str, DEFAULT_SIGS))})",
    "splits": "numbers of queries to split the entities into: one experiment each (default 10)",
    "systems": "numbers of systems to draw at random: one experiment each (default: all)",
    "entities": "numbers of entities to draw at random: one experiment each (default: all)",
    "seed": "random seed; the same seed gives the same output, whatever -t (default 42)",
    "threads": "processes to run the experiments in (default 1); the numbers do not depend on it",
    "compat": "reproduce the original tool's numbers, bugs included (docs/rankfile-compat.md)",
    "level": "minimum grade that counts as relevant (default 1)",
    "missing_rank": "rank of a relevant document a run did not retrieve (default: the documents it retrieved for "
                    "the query + 1)",
}

# The experiments multiply many small matrices: a BLAS thread pool only gets in the way there (on a
# loaded two-core machine a threaded 190 x 10 x 1000 product took 70 times the CPU of a plain one),
# and worker processes would each start one. Numpy reads these when it is first imported.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def use_one_blas_thread() -> None:
    """Before numpy is imported (the command line): one BLAS thread, unless the user chose otherwise."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


@contextlib.contextmanager
def one_blas_thread_for_children():
    """Processes started inside this block get one BLAS thread (unless the user chose otherwise)."""
    saved = {name: os.environ.get(name) for name in BLAS_THREAD_VARIABLES}
    use_one_blas_thread()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
