"""How much more memory this process may take: a reader refuses a file it has no room for before
reading it, because a C++ allocation that fails there (Arrow's std::bad_alloc, a failed check in its
CSV parser) aborts the process instead of raising MemoryError.

The limits are the address-space limit (RLIMIT_AS: ``ulimit -v``, ``prlimit --as``) and the cgroup's
``memory.max`` (a container, a systemd unit). Without either, nothing is checked.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from evalgui.core.errors import EvalInputError

# Reading a file takes about this many times its (uncompressed) size, plus a fixed part for the
# reader's threads and buffers: measured on TREC runs and qrels with Arrow's system memory pool.
READ_FACTOR = 4
READ_BASE = 64 << 20


class Room(NamedTuple):
    free: int            # bytes the process may still take
    limit: int           # the limit itself
    what: str            # which limit, in words


def _address_space() -> Room | None:
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft <= 0:
            return None
        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return None
    return Room(soft - used, soft, "the process's address-space limit (ulimit -v)")


def _cgroup(root: str = "/sys/fs/cgroup", membership: str = "/proc/self/cgroup") -> Room | None:
    """The tightest memory limit of this process's cgroup and its parents, less what each uses: v2's
    memory.max, or v1's memory.limit_in_bytes."""
    try:
        with open(membership) as fh:
            lines = [line.rstrip("\n").split(":", 2) for line in fh]
    except OSError:
        return None
    places = []
    for fields in lines:
        if len(fields) != 3:
            continue
        if fields[0] == "0" and fields[1] == "":
            places.append((root, fields[2], "memory.max", "memory.current"))
        elif "memory" in fields[1].split(","):
            places.append((os.path.join(root, "memory"), fields[2], "memory.limit_in_bytes", "memory.usage_in_bytes"))
    best = None
    for mount, path, limit_file, usage_file in places:
        folder = path
        while True:
            base = os.path.join(mount, folder.lstrip("/"))
            try:
                with open(os.path.join(base, limit_file)) as fh:
                    text = fh.read().strip()
                limit = None if text == "max" else int(text)
                if limit is not None and limit < 1 << 60:        # v1 writes "no limit" as a huge number
                    with open(os.path.join(base, usage_file)) as fh:
                        room = Room(limit - int(fh.read().strip()), limit,
                                    "the memory limit of its control group")
                    if best is None or room.free < best.free:
                        best = room
            except (OSError, ValueError):
                pass
            if folder in ("", "/"):
                break
            folder = os.path.dirname(folder.rstrip("/"))
    return best


def room() -> Room | None:
    """The tightest of the limits on this process's memory, or None when there is none."""
    found = [r for r in (_address_space(), _cgroup()) if r is not None]
    return min(found, key=lambda r: r.free) if found else None


def limited() -> bool:
    return room() is not None


def _mib(n: int) -> str:
    return f"{max(n, 0) / 2**20:,.0f} MiB"


def data_size(source: str) -> int:
    """The bytes a reader will hold: the file's size, or for gzip the size it says it unpacks to."""
    size = os.path.getsize(source)
    try:
        with open(source, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b" and size >= 18:
                fh.seek(-4, os.SEEK_END)
                unpacked = int.from_bytes(fh.read(4), "little")      # modulo 4 GiB: at least the packed size
                return max(unpacked, size * 4)
    except OSError:
        pass
    return size


# What a Parquet column costs once read, per value: Arrow's offsets for text, and as a pandas object column
# (the table readers convert to pandas) a pointer plus a Python str (49 bytes of header for ASCII text).
_ARROW_OFFSET = 4
_PY_POINTER = 8
_PY_STR = 49
_FIXED_WIDTH = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}


class ParquetNeed(NamedTuple):
    rows: int
    table: int           # bytes of the table in Arrow's memory
    need: int            # bytes reading it takes at its peak


def parquet_need(source: str) -> ParquetNeed | None:
    """What reading a Parquet file takes, from its footer (row count, column types, sizes), before reading
    it: its size on disk says little, as text that repeats packs into a dictionary of a few bytes.

    Per column, the values as Arrow holds them: fixed-width types at their width; text at its length
    (the larger of the plain-encoded size less the lengths, and the longest of the min/max statistics)
    plus an offset. The readers then hold the Arrow table and a pandas frame of it at once, and build
    the columns again from the frame: twice the table, plus one Python object per distinct text value
    (a dictionary-encoded column of under a byte a row repeats a few values: those are counted once).
    None when ``source`` is not a readable Parquet file (the reader says why)."""
    try:
        with open(source, "rb") as fh:
            if fh.read(4) != b"PAR1":
                return None
        import pyarrow.parquet as pq

        meta = pq.read_metadata(source)
    except Exception:               # not Parquet, or a footer Arrow cannot read: the reader's error
        return None
    rows, table, objects = meta.num_rows, 0, 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        n = group.num_rows
        for c in range(group.num_columns):
            column = group.column(c)
            kind = column.physical_type
            packed = column.total_uncompressed_size
            if kind in _FIXED_WIDTH:
                table += n * _FIXED_WIDTH[kind] + n // 8
                objects += n * _PY_POINTER
                continue
            longest = 0
            stats = column.statistics
            if stats is not None and stats.has_min_max:
                longest = max(len(str(stats.min)), len(str(stats.max)))
            if kind == "FIXED_LEN_BYTE_ARRAY":
                longest = max(longest, packed // max(n, 1))
            values = max(packed - _ARROW_OFFSET * n, n * longest)
            table += values + _ARROW_OFFSET * (n + 1) + n // 8
            distinct = n if packed >= n else max(1, packed // (_ARROW_OFFSET + max(longest, 1)))
            objects += n * _PY_POINTER + distinct * (_PY_STR + max(longest, 1))
    return ParquetNeed(rows, table, READ_BASE + 2 * table + objects)


def check_room(source: str) -> None:
    """Refuse to read ``source`` when its reading would not fit under the process's memory limit."""
    limit = room()
    if limit is None:
        return
    parquet = parquet_need(source)
    if parquet is not None:
        what, need = f"its {parquet.rows:,} rows ({_mib(parquet.table)} as a table)", parquet.need
    else:
        try:
            size = data_size(source)
        except OSError:
            return                                  # the reader says what is wrong with the file
        what, need = _mib(size), READ_BASE + READ_FACTOR * size
    if need > limit.free:
        raise EvalInputError(source, f"not enough memory to read it: reading {what} needs about {_mib(need)}, "
                                     f"and {_mib(limit.free)} remain under {limit.what} of {_mib(limit.limit)}")


def out_of_memory(source: str | None) -> str:
    """Why a MemoryError happened, in words: the limit that was reached, when there is one."""
    limit = room()
    size = ""
    if source:
        try:
            size = f" ({_mib(os.path.getsize(source))})"
        except OSError:
            pass
    if limit is None:
        return f"the file is too big to read into this computer's memory{size}"
    return f"ran out of memory reading the file{size} under {limit.what} of {_mib(limit.limit)}"


def ran_out() -> str:
    """A MemoryError outside the readers, in words: which limit was reached, when there is one."""
    limit = room()
    if limit is None:
        return "out of memory: this computer has too little free memory for the job"
    return f"out of memory under {limit.what} of {_mib(limit.limit)}"


def too_little_to_start() -> str:
    """The libraries (numpy, Arrow, Qt) could not be loaded under the memory limit, in words."""
    limit = _address_space() or room()
    if limit is None:
        return "not enough memory to load the libraries evalgui uses"
    return f"not enough memory to start: the libraries evalgui uses do not fit under {limit.what} of {_mib(limit.limit)}"
