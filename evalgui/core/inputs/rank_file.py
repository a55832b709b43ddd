"""Ranks of test entities per system (the Ranking Evaluation Tool's input).

Tab-separated: the first row is the experiment name, then one id per system; every further row
is an entity id, then the rank each system gives it (1-based, fractional allowed, e.g. 10.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalgui.core.errors import EvalInputError
from evalgui.core.inputs import Claim, FileHead, InputKind

if TYPE_CHECKING:
    import numpy as np

_SNIFF_BYTES = 1 << 16
# The largest rank read: more entities than any ranking holds, and small enough that sums and
# products of ranks stay finite (1e308 would overflow them, and give NaN and inf).
MAX_RANK = 1e15
_RANK_LIMIT_TEXT = "1e15"


@dataclass(eq=False)
class RankFile:
    """Ranks of test entities: ``ranks[e, s]`` is the (1-based, possibly fractional) rank that
    system ``s`` gives entity ``e``. What :func:`read` returns and the stability engine
    (:mod:`evalgui.core.rankfile`) reads; kept here, below both."""

    name: str                  # the experiment name (first field of the header)
    systems: list[str]
    entities: list[str]
    ranks: np.ndarray          # entities x systems, float64, every value >= 1
    source: str = "<memory>"

    def __post_init__(self):
        import numpy as np     # lazily: sniffing a file must stay light

        self.ranks = np.asarray(self.ranks, dtype=np.float64).reshape(len(self.entities), len(self.systems))

    def summary(self) -> dict:
        return {"systems": len(self.systems), "entities": len(self.entities),
                "largest rank": _number(float(self.ranks.max())) if self.ranks.size else 0}

    def to_text(self) -> str:
        """The rank file's tab-separated text (what :func:`read` reads)."""
        lines = ["\t".join([self.name, *self.systems])]
        cells = [[_plain(v) for v in row] for row in self.ranks.tolist()]
        lines += ["\t".join([entity, *row]) for entity, row in zip(self.entities, cells)]
        return "\n".join(lines) + "\n"


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def _plain(value: float) -> str:
    """5.0 -> "5", 10.5 -> "10.5": ranks as people write them."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _is_rank(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return value >= 1 and value != float("inf")


def sniff(head: FileHead) -> Claim:
    """Sure when every line in the head has the header's number of tab-separated fields and every
    field after the first of the data rows is a rank; less sure when the header is numbers too, or
    when some rows are not like that (most are: reading then names the line that is not)."""
    from evalgui.core.formats import _text

    try:
        data = _text.load_head(head.path, _SNIFF_BYTES)
    except EvalInputError:
        return Claim(0.0)
    lines = data.decode("utf-8", "replace").split("\n")
    if len(data) >= _SNIFF_BYTES:
        lines = lines[:-1]                          # the last line may be cut off
    rows = [line.rstrip("\r").split("\t") for line in lines if line.strip()]
    if len(rows) < 2 or len(rows[0]) < 2:
        return Claim(0.0)
    width = len(rows[0])
    proper = [len(row) == width and all(_is_rank(field.strip()) for field in row[1:]) for row in rows[1:]]
    if not (proper[0] or 2 * sum(proper) >= len(proper)):
        return Claim(0.0)
    if not all(proper):
        bad = proper.index(False) + 2
        return Claim(0.6, f"a header of {width - 1} system ids, then entities with a rank in each (but line {bad} "
                          "is not like that)")
    if all(_is_rank(field.strip()) for field in rows[0][1:]):
        return Claim(0.4, "tab-separated ranks (1 or more) under a header of numbers")
    return Claim(0.95, f"a header of {width - 1} system ids, then one entity per line with its rank in each")


def read(path, **_):
    """The rank file at ``path``; EvalInputError naming the line for anything malformed."""
    import numpy as np

    from evalgui.core.formats import _text

    source = str(path)
    data = _text.load_bytes(source)
    lines = [(number, _text.decode_line(raw, source, number).rstrip("\r"))
             for number, raw in enumerate(data.split(b"\n"), 1)]
    lines = [(number, line) for number, line in lines if line.strip()]
    header_line, header = lines[0][0], [f.strip() for f in lines[0][1].split("\t")]
    if len(header) < 2:
        raise EvalInputError(source, "the first line must be the experiment name and one id per system, "
                                     "separated by tabs" + _tab_hint(lines[0][1]), header_line)
    name, systems = header[0], header[1:]
    _check_ids(source, systems, "system", header_line)
    if len(lines) < 2:
        raise EvalInputError(source, "no entities: the file has only its header line")
    width = len(header)
    entities, cells, seen = [], [], {}
    for number, line in lines[1:]:
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != width:
            raise EvalInputError(source, f"expected {width} tab-separated fields (an entity id and one rank for each "
                                         f"of the {width - 1} systems), found {len(fields)}" + _tab_hint(line), number)
        entity = fields[0]
        if not entity:
            raise EvalInputError(source, "the entity id (first field) is empty", number)
        if entity in seen:
            raise EvalInputError(source, f"the entity '{entity}' is listed twice (first on line {seen[entity]})",
                                 number)
        seen[entity] = number
        entities.append(entity)
        cells.append(fields[1:])
    try:
        ranks = np.array(cells, dtype=np.float64)
    except ValueError:
        ranks = None
    if ranks is not None:               # numpy, as Python, reads "1_0" and non-ASCII digits ("١٢") as numbers
        joined = "".join(field for row in cells for field in row)
        if not joined.isascii() or "_" in joined:
            ranks = None
    if ranks is None or not ((ranks >= 1) & (ranks <= MAX_RANK)).all():
        _raise_bad_rank(source, cells, systems, [number for number, _ in lines[1:]])
    return RankFile(name, systems, entities, ranks, source=source)


def _tab_hint(line: str) -> str:
    return " (is the file tab-separated?)" if "\t" not in line and len(line.split()) > 1 else ""


def _check_ids(source: str, ids: list[str], what: str, line: int) -> None:
    seen = set()
    for column, value in enumerate(ids, 2):
        if not value:
            raise EvalInputError(source, f"the {what} id in column {column} is empty", line)
        if value in seen:
            raise EvalInputError(source, f"the {what} '{value}' is listed twice", line)
        seen.add(value)


def _raise_bad_rank(source: str, cells: list[list[str]], systems: list[str], numbers: list[int]) -> None:
    import math

    for row, number in zip(cells, numbers):
        for text, system in zip(row, systems):
            try:
                if not text.isascii() or "_" in text:
                    raise ValueError(text)
                value = float(text)
            except ValueError:
                raise EvalInputError(source, f"the rank '{text}' of system {system} is not a number", number) from None
            if not math.isfinite(value):
                raise EvalInputError(source, f"the rank '{text}' of system {system} is not a finite number", number)
            if value < 1:
                raise EvalInputError(source, f"the rank {text} of system {system} is below 1 (ranks start at 1)",
                                     number)
            if value > MAX_RANK:
                raise EvalInputError(source, f"the rank {text} of system {system} is above {_RANK_LIMIT_TEXT} (more "
                                             "entities than any ranking holds)", number)


def summary(ranks) -> dict:
    return ranks.summary()


def warnings(ranks, counts: dict) -> list[str]:
    if counts["systems"] < 2:
        return ["only one system: the stability experiments and significance matrices need at least two"]
    return []


KIND = InputKind(
    name="rank file", label="Rank file", patterns=("*.txt", "*.tsv"),
    expected="tab-separated: experiment name and system ids, then one row per entity with its rank per system",
    sniff=sniff, read=read, summary=summary, headline=("systems", "entities"), warnings=warnings)
