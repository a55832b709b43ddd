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
