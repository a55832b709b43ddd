"""One record per measure, test or correction, grouped in families; the catalogue of families.

A *family* is one :class:`Registry` (ranked retrieval measures today; later
significance tests, corrections, preference, rank-file and case-based measures).
Each holds :class:`Record` entries in the order people should see them, under
sub-headings (``group``). The measure picker, Help ▸ Measures reference and
``evalgui-cli measures`` read only what a :class:`Record` has, so a new family
shows up in all three once its registry is listed in :data:`_FAMILIES`.

Never imports Qt, and imports no family until asked (the CLI must start fast).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

DIRECTIONS = ("higher", "lower", None)
VALUE_TYPES = ("float", "int", "text")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a record, described for people (the engine parses its own syntax)."""
    name: str
    description: str
    default: str = ""            # as typed on the command line; "" when there is none


@dataclass(frozen=True, kw_only=True)
class Record:
    name: str
    family: str                  # key of the Registry holding it, e.g. "ranked"
    group: str                   # sub-heading inside the family, e.g. "Precision"
    description: str             # plain language
    formula: str
    direction: str | None = "higher"   # which value is better: "higher", "lower", None (counts, diagnostics)
    value_type: str = "float"          # float | int | text
    parameters: tuple[Parameter, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()  # (where, name) spellings elsewhere, e.g. ("ir_measures", "AP")
    notes: tuple[str, ...] = ()                # extra remarks for the help

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"{self.name}: direction must be one of {DIRECTIONS}, not {self.direction!r}")
        if self.value_type not in VALUE_TYPES:
            raise ValueError(f"{self.name}: value_type must be one of {VALUE_TYPES}, not {self.value_type!r}")

    @property
    def help_text(self) -> str:
        return f"{self.description}\n\nFormula: {self.formula}"


R = TypeVar("R", bound=Record)


class Registry(Mapping[str, R], Generic[R]):
    """One family: an ordered mapping name -> record, with a title and a description for headings."""

    def __init__(self, key: str, title: str, description: str = ""):
        self.key = key
        self.title = title
        self.description = description
        self._records: dict[str, R] = {}

    def add(self, record: R) -> R:
        if record.family != self.key:
            raise ValueError(f"{record.name} belongs to family '{record.family}', not '{self.key}'")
        if record.name in self._records:
            raise ValueError(f"'{record.name}' is registered twice in family '{self.key}'")
        self._records[record.name] = record
        return record

    def groups(self) -> list[str]:
        """The sub-headings, in the order their first record was registered."""
        return list(dict.fromkeys(r.group for r in self._records.values()))

    def in_group(self, group: str) -> list[R]:
        return [r for r in self._records.values() if r.group == group]

    def __getitem__(self, name: str) -> R:
        return self._records[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, name: object) -> bool:
        return name in self._records

    def __repr__(self) -> str:
        return f"Registry({self.key!r}, {len(self)} records)"


# ---------------------------------------------------------------------------
# The catalogue: every family, in the order pickers, help and the CLI show them.
# A new family is one line: key -> "module:attribute" of its Registry.
# ---------------------------------------------------------------------------

_FAMILIES: dict[str, str | Registry] = {
    "ranked": "evalgui.core.ranked.measures:REGISTRY",
    "tests": "evalgui.core.stats.catalogue:TESTS",
    "corrections": "evalgui.core.stats.catalogue:CORRECTIONS",
    "preference": "evalgui.core.ranked.preference:REGISTRY",
    "metaeval": "evalgui.core.metaeval.catalogue:EXPERIMENTS",
    "rankfile": "evalgui.core.rankfile.measures:REGISTRY",
    "cbr": "evalgui.core.cbr.catalogue:METRICS",
    "cbr-similarity": "evalgui.core.cbr.catalogue:LOCAL_SIMILARITIES",
}


def family_keys() -> list[str]:
    """The families' keys, without importing any of them."""
    return list(_FAMILIES)


def family(key: str) -> Registry:
    """The family's Registry (its module is imported now). KeyError for an unknown key."""
    where = _FAMILIES[key]
    if isinstance(where, Registry):
        return where
    module, _, attribute = where.partition(":")
    registry = getattr(importlib.import_module(module), attribute)
    if not isinstance(registry, Registry) or registry.key != key:
        raise TypeError(f"{where} is not the Registry of family '{key}'")
    return registry


def families() -> list[Registry]:
    return [family(key) for key in _FAMILIES]


def register_family(where: str | Registry, key: str | None = None) -> None:
    """Add a family at run time (tests, plug-ins): a Registry, or "module:attribute" with its key."""
    if isinstance(where, Registry):
        key = where.key
    elif key is None:
        raise ValueError("a family given as 'module:attribute' needs its key")
    if key in _FAMILIES:
        raise ValueError(f"family '{key}' is registered already")
    _FAMILIES[key] = where


def unregister_family(key: str) -> None:
    del _FAMILIES[key]
