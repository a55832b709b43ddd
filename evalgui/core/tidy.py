"""The tidy result table every engine returns: one row per (run, query, measure).

Rows whose query is :data:`ALL_QUERIES` hold the summary over queries.
"""

from __future__ import annotations

RUN, QUERY, MEASURE, VALUE = "run", "query", "measure", "value"
COLUMNS = (RUN, QUERY, MEASURE, VALUE)
ALL_QUERIES = "all"
RUN_A, RUN_B = "run_a", "run_b"      # the two runs of a pair, in tables that compare runs
