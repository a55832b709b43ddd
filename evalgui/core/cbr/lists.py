"""Result lists of case-based retrieval: per query, cases best first, stored flat (CSR layout).

Every list is ordered by similarity, descending, ties broken by case id, so that results
are reproducible. Case ids are compared as numbers when every id of the case base is an
integer ("2" before "10"), else as text. A :class:`RankedLists` codes its cases by their
position in that order, so "ties by case id" is "ties by code".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from evalgui.core.errors import EvalInputError

_INTEGER = re.compile(r"^[+-]?\d+$")


def id_order(ids) -> np.ndarray:
    """The permutation that sorts ``ids`` as ties are broken: numerically when all are integers, else as text."""
    ids = list(ids)
    if ids and all(_INTEGER.match(i) for i in ids):
        return np.array(sorted(range(len(ids)), key=lambda j: (int(ids[j]), ids[j])), dtype=np.int64)
    return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)


@dataclass(eq=False)
class RankedLists:
    """One ordered list of cases per query. ``cases`` are codes into ``case_ids`` (which is in id
    order); query i's list is ``cases[offsets[i]:offsets[i + 1]]`` with ``sims`` alongside."""

    query_ids: np.ndarray          # str
    case_ids: np.ndarray           # str, in id order
    offsets: np.ndarray            # int64, len(query_ids) + 1
    cases: np.ndarray              # int32 codes
    sims: np.ndarray               # float64, descending within each list

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def list(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.offsets[i], self.offsets[i + 1]
        return self.cases[a:b], self.sims[a:b]

    def truncated(self, k: int | None) -> "RankedLists":
        """The first k cases of every list (all of them when k is None)."""
        if k is None:
            return self
        lengths = np.minimum(self.lengths(), k)
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        rows = np.repeat(self.offsets[:-1], lengths) + (np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths))
        return RankedLists(self.query_ids, self.case_ids, offsets, self.cases[rows], self.sims[rows])

    def to_columns(self) -> dict[str, np.ndarray]:
        """query_id, case_id, similarity: the similarity-results file (what the readers read back)."""
        return {"query_id": np.repeat(self.query_ids.astype(object), self.lengths()),
                "case_id": self.case_ids.astype(object)[self.cases], "similarity": self.sims}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.to_columns())

    def write(self, path: str) -> None:
        """Write the lists as a similarity-results file, atomically; the format from the extension.

        CSV, TSV and Parquet go through Arrow's writers (a 25-million-pair ground truth in seconds);
        similarities keep 15 decimals (at most 15 significant digits, as every evalgui table)."""
        import pyarrow as pa

        from evalgui.core import export
        from evalgui.core.formats import extension_of

        fmt = extension_of(path) or export.format_from_path(path)
        if fmt not in ("csv", "tsv", "parquet"):
            frame = self.to_frame()
            export.write_atomic(path, export.to_text(frame, fmt))
            return
        table = pa.table({"query_id": pa.array(self.query_ids.astype(object).tolist(), pa.string()).take(
                              pa.array(np.repeat(np.arange(self.n_queries), self.lengths()))),
                          "case_id": pa.array(self.case_ids.astype(object).tolist(), pa.string()).take(
                              pa.array(self.cases)),
                          "similarity": np.round(self.sims, 15)})
        with export.atomic_path(path, suffix=os.path.splitext(path)[1]) as tmp:
            if fmt == "parquet":
                import pyarrow.parquet as pq

                pq.write_table(table, tmp)
            else:
                import pyarrow.csv as pacsv

                sep = "\t" if fmt == "tsv" else ","
                plain = not any(ch in i for ids in (self.query_ids, self.case_ids) for i in ids.tolist()
                                for ch in (sep, '"', "\n", "\r"))
                with open(tmp, "wb") as out:          # Arrow quotes its header: write a plain one
                    out.write(sep.join(table.column_names).encode() + b"\n")
                    pacsv.write_csv(table, out, pacsv.WriteOptions(include_header=False, delimiter=sep,
                                                                   quoting_style="none" if plain else "needed"))


def sort_rows(query_pos: np.ndarray, case_codes: np.ndarray, sims: np.ndarray, n_queries: int,
              query_ids: np.ndarray, case_ids: np.ndarray) -> RankedLists:
    """Lists from unordered rows: by query, then similarity descending, then case code."""
    order = np.lexsort((case_codes, -sims, query_pos))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(query_pos, minlength=n_queries)))).astype(np.int64)
    return RankedLists(query_ids, case_ids, offsets, case_codes[order].astype(np.int32), sims[order])


def order_rows(sims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's columns by similarity (in [0, 1]) descending, ties by column, NaN last (int32);
    and the similarities in that order.

    A stable argsort of doubles is slow (3 s of CPU for 500 x 50,000). Instead one plain sort of
    64-bit keys: the column in the low bits, above it the similarity's bit pattern (which orders
    non-negative doubles) less as many low mantissa bits as the column needs. Similarities that
    only the dropped bits tell apart (sums that differ in the last bit) land in one group ordered
    by column; the few groups where that is wrong are ordered again exactly."""
    n_rows, n_cols = sims.shape
    code_bits = max(int(n_cols - 1).bit_length(), 2)
    if code_bits > 31:
        order = np.argsort(-sims, axis=1, kind="stable")
        return order.astype(np.int64), np.take_along_axis(sims, order, axis=1)
    shift, low = np.uint64(code_bits), np.uint64((1 << code_bits) - 1)
    keys = (sims + 0.0).view(np.uint64)                          # + 0.0: -0.0 becomes 0.0
    np.subtract(np.uint64(0x3FF0000000000000), keys, out=keys)   # 1.0 first
    keys >>= np.uint64(code_bits - 2)
    keys[np.isnan(sims)] = (1 << (64 - code_bits)) - 1           # missing pairs last
    keys <<= shift
    keys |= np.arange(n_cols, dtype=np.uint64)[None, :]
    keys.sort(axis=1)
    order = (keys & low).astype(np.int32)
    ordered = np.take_along_axis(sims, order, axis=1)
    wrong = ordered[:, 1:] > ordered[:, :-1]
    for row in np.flatnonzero(wrong.any(axis=1)).tolist():
        truncated = keys[row] >> shift
        group = np.cumsum(np.r_[True, truncated[1:] != truncated[:-1]])
        bad = np.zeros(group[-1] + 1, dtype=bool)
        bad[group[np.flatnonzero(wrong[row])]] = True
        at = np.flatnonzero(bad[group])                          # the groups out of order, in place
        exact = at[np.argsort(-ordered[row, at], kind="stable")] # stable: equal values keep column order
        order[row, at], ordered[row, at] = order[row, exact], ordered[row, exact]
    return order, ordered


def from_matrix(sims: np.ndarray, query_ids: np.ndarray, case_ids: np.ndarray) -> RankedLists:
    """Lists from a (queries x cases) matrix whose columns are in id order; NaN cells are left out."""
    n_q, n_c = sims.shape
    order, ordered = order_rows(sims)
    present = np.count_nonzero(~np.isnan(sims), axis=1)
    offsets = np.concatenate(([0], np.cumsum(present))).astype(np.int64)
    if (present == n_c).all():
        return RankedLists(query_ids, case_ids, offsets, order.astype(np.int32, copy=False).ravel(), ordered.ravel())
    keep = np.arange(n_c)[None, :] < present[:, None]
    return RankedLists(query_ids, case_ids, offsets, order[keep].astype(np.int32, copy=False), ordered[keep])


def ground_truth_lists(results) -> RankedLists:
    """A similarity-results file as lists; queries and cases in id order."""
    query_rank = np.empty(len(results.query_ids), dtype=np.int64)
    query_order = id_order(results.query_ids)
    query_rank[query_order] = np.arange(len(query_order))
    case_order = id_order(results.case_ids)
    case_rank = np.empty(len(case_order), dtype=np.int64)
    case_rank[case_order] = np.arange(len(case_order))
    query_ids, case_ids = results.query_ids[query_order], results.case_ids[case_order]
    rows_q, rows_c = query_rank[results.query_codes], case_rank[results.case_codes]
    n_q, n_c = len(query_ids), len(case_ids)
    if n_q * n_c > 4 * len(rows_q) + (1 << 20):          # few pairs of many: sort the rows
        return sort_rows(rows_q, rows_c.astype(np.int32), results.similarity, n_q, query_ids, case_ids)
    # Nearly every pair given (a ground truth): a (queries x cases) matrix, ordered block by block.
    matrix = np.full((n_q, n_c), np.nan)
    matrix[rows_q, rows_c] = results.similarity
    step = max(1, (1 << 21) // max(n_c, 1))
    parts = [from_matrix(matrix[a:a + step], query_ids[a:a + step], case_ids) for a in range(0, n_q, step)]
    lengths = np.concatenate([p.lengths() for p in parts])
    return RankedLists(query_ids, case_ids, np.concatenate(([0], np.cumsum(lengths))),
                       np.concatenate([p.cases for p in parts]), np.concatenate([p.sims for p in parts]))


def _shown(ids, limit: int = 5) -> str:
    ids = [str(i) for i in ids]
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit:,} more" if len(ids) > limit else "")


def aligned_lists(results, ground_truth: RankedLists, name: str) -> RankedLists:
    """A retriever's results as lists over the ground truth's queries and cases.

    Its query set must be the ground truth's, and each case must be in the ground truth of
    its query; otherwise an EvalInputError names the file, the line and the ids."""
    import pandas as pd

    query_pos = pd.Index(ground_truth.query_ids).get_indexer(results.query_ids)
    unknown = results.query_ids[query_pos < 0]
    absent = np.setdiff1d(np.arange(ground_truth.n_queries), query_pos[query_pos >= 0])
    if len(unknown) or len(absent):
        parts = []
        if len(unknown):
            parts.append(f"has queries the ground truth lacks ({_shown(unknown)})")
        if len(absent):
            parts.append(f"lacks queries of the ground truth ({_shown(ground_truth.query_ids[absent])})")
        raise EvalInputError(results.source, f"mismatched query sets: the results of {name} {' and '.join(parts)}")
    case_pos = pd.Index(ground_truth.case_ids).get_indexer(results.case_ids)
    rows_q = query_pos[results.query_codes]
    rows_c = case_pos[results.case_codes]
    # Each (query, case) must be a pair of the ground truth: look the pairs up as sorted keys.
    width = max(len(ground_truth.case_ids), 1)
    truth = np.repeat(np.arange(ground_truth.n_queries, dtype=np.int64), ground_truth.lengths()) * width \
        + ground_truth.cases
    truth.sort()
    keys = rows_q.astype(np.int64) * width + rows_c
    found = np.searchsorted(truth, keys)
    bad = (rows_c < 0) | (found >= len(truth)) | (truth[np.minimum(found, len(truth) - 1)] != keys)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        q, c = results.query_ids[results.query_codes[row]], results.case_ids[results.case_codes[row]]
        more = int(bad.sum()) - 1
        raise EvalInputError(results.source, f"case '{c}' of query '{q}' is not in the ground truth"
                                             + (f" ({more:,} more such rows)" if more else ""), results.line_of(row))
    return sort_rows(rows_q, rows_c.astype(np.int32), results.similarity, ground_truth.n_queries,
                     ground_truth.query_ids, ground_truth.case_ids)
