"""Per-query scores: the tidy table ``evalgui-cli evaluate --per-query`` writes.

Columns ``run, query, measure, value`` (CSV, TSV or Parquet; names matched
case-insensitively). Rows whose query is "all" are summaries and kept apart.
Comparisons read these instead of evaluating runs again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from evalgui.core import tidy
from evalgui.core.errors import EvalInputError
from evalgui.core.formats import patterns
from evalgui.core.inputs import FileHead, InputKind


# The largest per-query score read: squares and sums over millions of queries stay finite.
MAX_SCORE = 1e100


@dataclass
class PerQueryScores:
    """Per-query values of several runs and measures, and the summary rows that came with them."""

    source: str
    frame: object              # pandas DataFrame: run, query, measure, value (per-query rows only)
    summaries: object          # pandas DataFrame: the rows whose query is "all"

    @property
    def runs(self) -> list[str]:
        return list(dict.fromkeys(self.frame[tidy.RUN].tolist() + self.summaries[tidy.RUN].tolist()))

    @property
    def measures(self) -> list[str]:
        return list(dict.fromkeys(self.frame[tidy.MEASURE].tolist() + self.summaries[tidy.MEASURE].tolist()))

    @property
    def query_ids(self) -> list[str]:
        from evalgui.core.data import byte_sorted

        return byte_sorted(set(self.frame[tidy.QUERY].tolist()))

    def matrix(self, measure: str):
        """Queries x runs of one measure (NaN where a run has no value for a query)."""
        rows = self.frame[self.frame[tidy.MEASURE] == measure]
        wide = rows.pivot(index=tidy.QUERY, columns=tidy.RUN, values=tidy.VALUE)
        return wide.reindex(index=[q for q in self.query_ids if q in wide.index],
                            columns=[r for r in self.runs if r in wide.columns])

    def summary(self) -> dict:
        return {"runs": len(self.runs), "measures": len(self.measures), "queries": len(self.query_ids),
                "rows": int(len(self.frame) + len(self.summaries))}


def read_per_query_scores(path: str | os.PathLike) -> PerQueryScores:
    import pandas as pd

    from evalgui.core.formats.other import _load_frame, _pick_column

    source, frame, lines = _load_frame(path)
    columns = list(frame.columns)
    picked = {name: _pick_column(columns, (name,), name, source) for name in tidy.COLUMNS}
    if not len(frame):
        raise EvalInputError(source, "no rows under the header")
    out = pd.DataFrame({name: frame[column].astype(str).str.strip() for name, column in picked.items()
                        if name != tidy.VALUE})
    raw = frame[picked[tidy.VALUE]]
    values = pd.to_numeric(raw, errors="coerce")
    text = raw.astype(str).str.strip()
    bad = values.isna().to_numpy() & ~text.isin(["", "nan", "NaN", "None"]).to_numpy() & raw.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise EvalInputError(source, f"the value {raw.iloc[row]!r} is not a number", int(lines[row]))
    out[tidy.VALUE] = values.to_numpy(dtype=np.float64)
    infinite = np.isinf(out[tidy.VALUE].to_numpy())     # a mean or a test over it would be meaningless
    if infinite.any():
        row = int(np.flatnonzero(infinite)[0])
        raise EvalInputError(source, f"the value {raw.iloc[row]!r} is not a finite number", int(lines[row]))
    with np.errstate(invalid="ignore"):
        huge = np.abs(out[tidy.VALUE].to_numpy()) > MAX_SCORE
    if huge.any():
        row = int(np.flatnonzero(huge)[0])
        raise EvalInputError(source, f"the value {raw.iloc[row]!r} is too large: per-query scores are read up to "
                                     "±1e100, beyond which the statistics would overflow", int(lines[row]))
    empty_id = (out[[tidy.RUN, tidy.QUERY, tidy.MEASURE]] == "").any(axis=1).to_numpy()
    if empty_id.any():
        row = int(np.flatnonzero(empty_id)[0])
        raise EvalInputError(source, "the run, query or measure is empty", int(lines[row]))
    repeated = out.duplicated([tidy.RUN, tidy.QUERY, tidy.MEASURE], keep=False).to_numpy()
    if repeated.any():
        rows = np.flatnonzero(repeated)
        first = out.iloc[rows[0]]
        same = rows[(out.iloc[rows][[tidy.RUN, tidy.QUERY, tidy.MEASURE]] == first[[tidy.RUN, tidy.QUERY,
                                                                                    tidy.MEASURE]]).all(axis=1)]
        raise EvalInputError(source, f"run '{first[tidy.RUN]}', query '{first[tidy.QUERY]}', measure "
                                     f"'{first[tidy.MEASURE]}' appears twice (lines {lines[same[0]]} and "
                                     f"{lines[same[1]]})", int(lines[same[1]]))
    is_summary = (out[tidy.QUERY] == tidy.ALL_QUERIES).to_numpy()
    return PerQueryScores(source, out[~is_summary].reset_index(drop=True), out[is_summary].reset_index(drop=True))


def sniff(head: FileHead) -> float:
    return 0.95 if set(tidy.COLUMNS) <= {str(n).strip().lower() for n in head.header_names} else 0.0   # the window exports Run, Query...


def read(path, **_) -> PerQueryScores:
    return read_per_query_scores(path)


def summary(scores: PerQueryScores) -> dict:
    return scores.summary()


def warnings(scores: PerQueryScores, counts: dict) -> list[str]:
    found = []
    if counts["queries"] == 0:
        found.append("only summary rows (query 'all'): comparing systems needs per-query values "
                     "(evalgui-cli evaluate --per-query writes them)")
    else:
        per_run = scores.frame.groupby(tidy.RUN, sort=False)[tidy.QUERY].nunique()
        if per_run.nunique() > 1:
            found.append(f"the runs cover different numbers of queries ({per_run.min()} to {per_run.max()}); "
                         "comparisons use the queries they share")
    return found


KIND = InputKind(
    name="per-query scores", label="Per-query scores", patterns=patterns("csv", "tsv", "parquet"),
    expected="a table with run, query, measure and value columns (what evalgui-cli evaluate --per-query writes)",
    sniff=sniff, read=read, summary=summary, headline=("runs", "measures", "queries"), warnings=warnings)
