"""Evaluate a run too large to hold: by query, in bounded memory.

The run file is read once, a piece of whole lines at a time, and each row is sent to one of P
partitions by a hash of its query id (an external partition, as an external sort does), written
as Arrow streams in one temporary folder. Each partition then holds whole queries: it is read
back, evaluated with the same kernels as a run read whole, and only its per-query values are kept.
The qrels are split by the same hash, so each partition sees exactly its queries' judgments
(and, with ``complete``, the judged queries the run lacks). The per-query values of all partitions,
in trec_eval's query order, give the same summaries, summed in the same order, as one evaluation
of the whole run: the outputs are byte-identical.

Peak memory is bounded by the largest partition, not by the run; a partition larger than its
share is split again, and a single query too large to evaluate is refused by name.
"""

from __future__ import annotations

import gzip
import math
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from evalgui.core import memory, scratch
from evalgui.core.data import Qrels, Run
from evalgui.core.errors import EvalInputError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.ranked.evaluate import EvalOptions, RunEvaluation, evaluate_run, merge_evaluations

# Run text per partition: read back and evaluated, one takes about memory.READ_FACTOR times this.
PARTITION_BYTES = 96 << 20
# Each partition's file stays open while the run is read: well under the usual limit of 1,024 open files.
MAX_PARTITIONS = 256
# A run whose whole reading would need more than this is evaluated by query even when memory is there: a
# run of 2 million lines (about 400 MiB to hold) stays whole; 20 million lines stream in under 1 GiB.
# EVALGUI_HOLD_AT_MOST (bytes) changes it: the benchmarks time both paths on one run.
HOLD_AT_MOST = 1 << 30
_PIECE = 16 << 20
_SCHEMA = pa.schema([("query", pa.string()), ("doc", pa.string()), ("score", pa.float64()), ("line", pa.int64())])


def _available() -> int | None:
    """The memory this process may take: its limit's room, else what the system has available."""
    limit = memory.room()
    if limit is not None:
        return limit.free
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def in_memory_need(source: str) -> int:
    """What reading and evaluating the run whole takes, by the readers' own estimate."""
    return memory.READ_BASE + memory.READ_FACTOR * memory.data_size(source)


def should_stream(source: str) -> bool:
    """Whether ``source`` is too large to evaluate whole: its in-memory need is more than the memory this
    process may take, or more than :data:`HOLD_AT_MOST` (beyond which by query is as fast and far lighter)."""
    try:
        need = in_memory_need(source)
    except OSError:
        return False                      # the reader says what is wrong with the file
    free = _available()
    hold = int(os.environ.get("EVALGUI_HOLD_AT_MOST") or HOLD_AT_MOST)
    return need > min(hold, free if free is not None else hold)


# The smallest piece worth reading: below it, the reader's fixed costs dominate.
_SMALLEST_PIECE = 1 << 20


def _piece_size(source: str, free: int | None) -> int:
    """How much of the file to parse at once in the memory left; refused, before anything is read, when even
    the smallest piece and a partition of that size would not fit (Arrow's parser aborts the process when
    an allocation fails, so the check comes first)."""
    if free is None:
        return _PIECE
    fitting = (free - memory.READ_BASE) // (2 * memory.READ_FACTOR)
    if fitting < _SMALLEST_PIECE:
        need = memory.READ_BASE + 2 * memory.READ_FACTOR * _SMALLEST_PIECE
        raise EvalInputError(source, f"not enough memory to read it, even query by query: that needs about "
                                     f"{memory._mib(need)}, and {memory._mib(free)} remain{_under_limit()}")
    return int(min(_PIECE, fitting))


def _under_limit() -> str:
    """Which limit the memory left is under, in words ("" when it is the system's free memory)."""
    limit = memory.room()
    return f" under {limit.what} of {memory._mib(limit.limit)}" if limit is not None else " on this computer"


def partitions_for(size: int, free: int | None) -> int:
    """How many partitions a run of ``size`` bytes of text needs: each small enough to evaluate in a share of
    the memory left (after what the reading pass itself holds)."""
    share = PARTITION_BYTES
    if free is not None:
        share = max(1 << 20, min(share, (free - memory.READ_BASE - 4 * _PIECE) // (2 * memory.READ_FACTOR)))
    return int(min(MAX_PARTITIONS, max(2, math.ceil(size / share))))


# ---------------------------------------------------------------- reading pieces

@dataclass
class _Piece:
    table: pa.Table            # query, doc, score, line
    tag: str                   # the run tag of its last content line ("" when none)


def _open(source: str):
    from evalgui.core.formats._text import reading_errors

    with reading_errors(source):
        fh = open(source, "rb")
        if fh.read(2) == b"\x1f\x8b":
            fh.close()
            return gzip.open(source, "rb")
        fh.seek(0)
        return fh


def _read(fh, size: int, source: str) -> bytes:
    import zlib

    from evalgui.core.formats._text import reading_errors

    try:
        with reading_errors(source):
            return fh.read(size)
    except (EOFError, zlib.error, gzip.BadGzipFile):
        raise EvalInputError(source, "not a valid gzip file (truncated or corrupt)") from None


def _piece_table(piece: bytes, source: str, first_line: int) -> pa.Table:
    """A piece of whole lines as rows (query, doc, score, line), read as the whole-file reader reads them."""
    from evalgui.core.formats import trec

    lines_in_piece = piece.count(b"\n") + (not piece.endswith(b"\n"))
    # A byte-order mark kept as text (trec_eval's reading) goes to the line parser: pyarrow would drop it.
    sep = None if piece.startswith(b"\xef\xbb\xbf") else trec._plain_separator(piece)
    table = trec._read_delimited(piece, sep, 6, {0: pa.string(), 2: pa.string(), 4: pa.float64()}) if sep else None
    if table is not None and table.num_rows == lines_in_piece:
        scores = table.column("c4").to_numpy()
        nan = np.isnan(scores)
        if nan.any():
            raise EvalInputError(source, "the score is NaN (not a number)", first_line + int(np.argmax(nan)))
        lines = np.arange(first_line, first_line + table.num_rows, dtype=np.int64)
        return pa.table([table.column("c0"), table.column("c2"), table.column("c4"), pa.array(lines)],
                        schema=_SCHEMA)
    # Comments, blank lines, uneven spacing, a bad line: line by line, which names the bad line.
    queries, docs, scores, lines, _ = trec._parse_run_slow(piece, source, first_line)
    return pa.table([pa.array(queries, pa.string()), pa.array(docs, pa.string()), pa.array(scores, pa.float64()),
                     pa.array(np.asarray(lines, dtype=np.int64), pa.int64())], schema=_SCHEMA)


def run_pieces(source: str, state: JobState | None = None, piece_size: int = _PIECE):
    """The run's rows, a piece of whole lines at a time, each row with its line number."""
    from evalgui.core.formats import trec

    from evalgui.core.formats import _text

    state = state_or_default(state)
    _text.check_head(source)             # binary data refused from its first block, as every reader does
    total = max(memory.data_size(source), 1)
    done = 0
    first_line, rest, first = 1, b"", True
    with _open(source) as fh:
        while True:
            state.check()
            chunk = _read(fh, piece_size, source)
            piece = rest + chunk
            if first:
                piece = _text.skip_utf8_bom(piece)     # kept under keeping_utf8_bom(), as trec_eval reads it
                first = False
            if chunk:
                cut = piece.rfind(b"\n") + 1
                if cut == 0 and len(piece) > 64 * piece_size:
                    raise EvalInputError(source, "a line longer than a reasonable run line (no line break)",
                                         first_line)
                piece, rest = piece[:cut], piece[cut:]
            if piece and not piece.isspace():
                table = _piece_table(piece, source, first_line)
                if table.num_rows:
                    yield _Piece(table, trec._last_run_tag(piece))
            first_line += piece.count(b"\n")
            done += len(chunk)
            state.progress(min(done / total, 1.0), "Reading the run")
            if not chunk:
                break


# ---------------------------------------------------------------- partitions

def _partition_of(ids: pa.Array, n: int, salt: int = 0) -> np.ndarray:
    """Each id's partition: a stable hash of its text (the same id, the same partition, in qrels and run)."""
    import pandas as pd

    encoded = ids.dictionary_encode() if not pa.types.is_dictionary(ids.type) else ids
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    names = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    hashed = pd.util.hash_array(names, categorize=False)
    if salt:
        hashed = hashed * np.uint64(0x9E3779B97F4A7C15) + np.uint64(salt)
    of_name = (hashed % np.uint64(n)).astype(np.int64)
    return of_name[encoded.indices.to_numpy(zero_copy_only=False)]


class _Partitions:
    """P Arrow stream files in a scratch folder, written a slice at a time."""

    def __init__(self, folder: str, n: int, label: str):
        self.folder, self.n, self.label = folder, n, label
        self.paths = [os.path.join(folder, f"{label}-{i:04d}.arrows") for i in range(n)]
        self.rows = np.zeros(n, dtype=np.int64)
        self._writers: dict[int, tuple] = {}

    def add(self, table: pa.Table, part: np.ndarray) -> None:
        order = np.argsort(part, kind="stable")
        counts = np.bincount(part, minlength=self.n)
        ends = np.cumsum(counts)
        sorted_table = table.take(pa.array(order))
        for p in np.flatnonzero(counts):
            start = int(ends[p] - counts[p])
            writer = self._writers.get(p)
            if writer is None:
                sink = pa.OSFile(self.paths[p], "wb")
                writer = self._writers[p] = (sink, pa.ipc.new_stream(sink, _SCHEMA))
            writer[1].write_table(sorted_table.slice(start, int(counts[p])))
        self.rows += counts

    def close(self) -> None:
        for sink, writer in self._writers.values():
            writer.close()
            sink.close()
        self._writers.clear()

    def read(self, p: int) -> pa.Table:
        if not self.rows[p]:
            return _SCHEMA.empty_table()
        with pa.OSFile(self.paths[p], "rb") as source:
            table = pa.ipc.open_stream(source).read_all()
        os.unlink(self.paths[p])
        return table


def _qrels_part(qrels: Qrels, rows: np.ndarray) -> Qrels:
    taken = pa.array(rows)
    return Qrels(qrels.query.take(taken), qrels.doc.take(taken), qrels.rel[rows], source=qrels.source)


def _run_of(table: pa.Table, name: str, runid: str, source: str) -> Run:
    from evalgui.core.arrow import duplicate_pair_rows
    from evalgui.core.formats import _text

    run = Run(table.column("query"), table.column("doc"), table.column("score").to_numpy(), runid=runid, name=name,
              source=source)
    dups = duplicate_pair_rows(run.query, run.doc_codes)
    if len(dups):
        lines = table.column("line").to_numpy()
        order = np.argsort(lines[dups], kind="stable")        # the first repeat in the file, as the reader says
        dups = dups[order]
        raise _text.duplicates_error(source, run.query.take(pa.array(dups)), run.doc_codes.docnos(dups),
                                     lines[dups], np.arange(len(dups)), "run")
    return run


def evaluate_run_by_query(qrels: Qrels, source: str, requests, options: EvalOptions = EvalOptions(),
                          state: JobState | None = None, name: str | None = None,
                          partitions: int | None = None, on_part=None) -> RunEvaluation:
    """Evaluate the run file ``source`` partition by partition (see the module's doc): the same
    :class:`RunEvaluation` as reading it whole, without ``ranking``. ``on_part(evaluation)``: each part's
    evaluation, its ranking still at hand (the advisor's checks), before the ranking is dropped."""
    from evalgui.core.formats import _text

    state = state_or_default(state)
    source = os.fspath(source)
    name = name or _text.file_stem(source)
    size = memory.data_size(source)
    free = _available()
    piece_size = _piece_size(source, free)
    n = partitions or partitions_for(size, free)
    folder = scratch.folder("by-query")
    try:
        # The partitions hold the run's text again, with a line number per row: about 1.5 times its size.
        scratch.check_space(folder, int(size * 1.5), f"evaluating {os.path.basename(source)} by query")
        parts = _Partitions(folder, n, "run")
        runid = ""
        try:
            reading = state.scaled(0.0, 0.5)
            for piece in run_pieces(source, reading, piece_size):
                parts.add(piece.table, _partition_of(piece.table.column("query").combine_chunks(), n))
                runid = piece.tag or runid
        finally:
            parts.close()
        if not parts.rows.sum():
            raise EvalInputError(source, "no run lines (only comments or blank lines)")
        qrels_part = _partition_of(qrels.query, n)
        qrels_order = np.argsort(qrels_part, kind="stable")
        qrels_ends = np.cumsum(np.bincount(qrels_part, minlength=n))
        pieces = []
        evaluating = state.scaled(0.5, 1.0)
        for p in range(n):
            evaluating.check()
            evaluating.progress(p / n, f"Evaluating by query: part {p + 1} of {n}")
            judged = qrels_order[(qrels_ends[p - 1] if p else 0):qrels_ends[p]]
            table = parts.read(p)
            if not table.num_rows and not (options.complete and len(judged)):
                continue
            # A partition that came out larger than its share (a few queries with most of the lines) is split
            # again in memory, by another hash; a single query too large for what is left is refused by name.
            splits = _splits_needed(table, source, free)
            if splits == 1:
                groups = [(table, judged)]
            else:
                run_sub = _partition_of(table.column("query").combine_chunks(), splits, salt=p + 1)
                qrels_sub = _partition_of(qrels.query.take(pa.array(judged)), splits, salt=p + 1)
                groups = [(table.filter(pa.array(run_sub == k)), judged[qrels_sub == k]) for k in range(splits)]
            del table
            for rows, judged_rows in groups:
                if not rows.num_rows and not (options.complete and len(judged_rows)):
                    continue
                run = _run_of(rows, name, runid, source)
                result = evaluate_run(_qrels_part(qrels, np.sort(judged_rows)), run, requests, options)
                if on_part is not None:
                    on_part(result)
                result.ranking = None
                pieces.append(result)
            del groups
        return merge_evaluations(pieces, name, runid, requests, options, qrels)
    finally:
        scratch.remove(folder)


def _splits_needed(table: pa.Table, source: str, free: int | None) -> int:
    """Into how many parts a partition must be split for each to be evaluated in the memory left; a query
    that alone is more than that is refused, naming it (nothing smaller can hold it)."""
    if free is None:
        return 1
    need = memory.READ_BASE + memory.READ_FACTOR * table.nbytes
    if need <= free:
        return 1
    import pyarrow.compute as pc

    counts = pc.value_counts(table.column("query").combine_chunks())
    biggest = int(np.argmax(counts.field("counts").to_numpy()))
    query = counts.field("values")[biggest].as_py()
    rows = int(counts.field("counts")[biggest].as_py())
    alone = int(memory.READ_FACTOR * table.nbytes * rows / max(table.num_rows, 1))
    if memory.READ_BASE + alone > free:
        raise EvalInputError(source, f"the query '{query}' alone has {rows:,} results, which need about "
                                     f"{memory._mib(memory.READ_BASE + alone)} to evaluate; {memory._mib(free)} "
                                     f"remain{_under_limit()}")
    return int(min(len(counts), math.ceil(need / max(free - memory.READ_BASE, 1)) * 2))


@dataclass
class RunFile:
    """A run named by its file, read when its turn comes and let go after: whole, or by query when it is
    too large to hold (:func:`should_stream`). What the workflows need of it before then is its name."""

    source: str
    name: str
    by_query: bool = False
    runid: str = ""
    # Filled by one streaming pass (:func:`summarised`) when the window loads it: its distinct query ids (byte
    # order, as ``Run.query_ids``) and the Data panel's counts.
    query_ids: np.ndarray | None = None
    counts: dict | None = None

    def summary(self) -> dict:
        return dict(self.counts or {})

    def evaluate(self, qrels: Qrels, requests, options: EvalOptions = EvalOptions(),
                 state: JobState | None = None, on_part=None) -> RunEvaluation:
        return evaluate_any(qrels, self, requests, options, state, on_part=on_part)


BY_QUERY_NOTE = ("too large to hold in memory: it is evaluated query by query, so it has no precision-recall "
                 "curves and no rankings to show")


def summarised(file: RunFile, state: JobState | None = None) -> RunFile:
    """``file`` with the counts a run read whole has (queries, documents, results of its largest query, run
    tag), from one pass over the file a piece at a time: memory bounded by its number of queries."""
    import pandas as pd

    from evalgui.core.data import byte_sorted

    counts = pd.Series(dtype=np.int64)
    rows, runid = 0, ""
    for piece in run_pieces(file.source, state, _piece_size(file.source, _available())):
        per_query = piece.table.column("query").value_counts()
        counts = counts.add(pd.Series(per_query.field("counts").to_numpy(),
                                      index=per_query.field("values").to_pylist()), fill_value=0)
        rows += piece.table.num_rows
        runid = piece.tag or runid
    if not rows:
        raise EvalInputError(file.source, "no run lines (only comments or blank lines)")
    query_ids = np.array(byte_sorted(counts.index.tolist()), dtype=object)
    return RunFile(file.source, file.name, file.by_query, runid, query_ids,
                   {"queries": len(query_ids), "documents": rows, "max_per_query": int(counts.max()),
                    "runid": runid})


def run_file(source: str) -> RunFile:
    from evalgui.core.formats._text import file_stem

    return RunFile(source, file_stem(source), _streams(source))


def _streams(source: str) -> bool:
    from evalgui.core.formats import sniff_format

    from evalgui.core.formats._text import is_wide_file

    try:
        # UTF-16 and UTF-32 files are read whole (their reader converts them to UTF-8 first).
        return (os.path.isfile(source) and should_stream(source) and not is_wide_file(source)
                and sniff_format(source) == "trec")
    except (OSError, EvalInputError):
        return False                      # the reader says what is wrong with the file


def streamed(source: str) -> RunFile | None:
    """A TREC run file too large to hold (see :func:`should_stream`), else None (read it whole)."""
    file = run_file(source)
    return file if file.by_query else None


def summarised_if_too_large(source: str, state: JobState | None = None) -> RunFile | None:
    """The window's reading of a run: a TREC run too large to hold as a :func:`summarised` RunFile, else None
    (read it whole)."""
    file = streamed(source)
    return None if file is None else summarised(file, state)


def evaluate_any(qrels: Qrels, run, requests, options: EvalOptions = EvalOptions(),
                 state: JobState | None = None, on_part=None) -> RunEvaluation:
    """Evaluate a run in memory, or a :class:`RunFile` (read whole, or by query), which is then let go;
    ``on_part``: see :func:`evaluate_run_by_query`."""
    if not isinstance(run, RunFile):
        return evaluate_run(qrels, run, requests, options, state)
    if run.by_query:
        return evaluate_run_by_query(qrels, run.source, requests, options, state, name=run.name, on_part=on_part)
    from evalgui.core.inputs import kind

    state = state_or_default(state)
    held = kind("run").read(run.source)
    held.name = run.name
    return evaluate_run(qrels, held, requests, options, state)
