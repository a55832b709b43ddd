"""Every kind of input file evalgui knows, in one registry: sniff, read, summarise.

A kind is one :class:`InputKind` record in a module of this package; the
module's name in :data:`KIND_MODULES` registers it. The session, the Data
dock, the Open dialog's filters, project files and the command line all loop
over :func:`kinds`, so adding a kind takes one module and one line here.

A kind without a reader (``read=None``) is known but not offered: it may
claim a file when sniffing (so that, say, a similarity table is not taken for
a run), and reading it then says plainly that evalgui cannot read it yet.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple

from evalgui.core.errors import EvalInputError
from evalgui.core.inputs.names import distinguishing_names  # noqa: F401  (part of this package's interface)
from evalgui.core.jobs import JobState

if TYPE_CHECKING:
    from evalgui.core.inputs.evidence import Lean

# The modules that define a kind (each has a module-level KIND), in the order the GUI lists them.
KIND_MODULES = ["qrels", "subtopic_qrels", "run", "scores", "rank_file", "case_base", "similarity", "prefs"]

# A kind must be at least this sure to be chosen without asking.
MIN_CONFIDENCE = 0.3
# Claims this close are a toss-up, which the files already loaded decide.
TOSS_UP = 0.1

_HEAD_BYTES = 1 << 16


class FileHead:
    """What sniffers look at, read once per file: the format guess, the first line's fields,
    and (for tables) the lower-cased column names."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.name = os.path.basename(self.path).lower()

    @cached_property
    def _format_and_tokens(self) -> tuple[str, list[bytes] | None]:
        from evalgui.core.formats import sniff_format_and_tokens

        return sniff_format_and_tokens(self.path)

    @property
    def format(self) -> str:
        """One of formats.FORMATS other than "auto"."""
        return self._format_and_tokens[0]

    @cached_property
    def tokens(self) -> list[bytes]:
        """The first content line's fields (text formats), comments left out."""
        tokens = self._format_and_tokens[1]
        if tokens is None:
            from evalgui.core.formats import first_content_tokens

            tokens = first_content_tokens(self.path)
        return tokens

    @cached_property
    def columns(self) -> list[str]:
        """Lower-cased column names of a CSV, TSV or Parquet table; [] for other formats."""
        from evalgui.core.formats import table_column_names

        if self.format not in ("csv", "tsv", "parquet"):
            return []
        return [c.strip().lower() for c in table_column_names(self.path, self.format)]

    @cached_property
    def header_names(self) -> list[str]:
        """Lower-cased fields of the first line read as a header (comma- or tab-separated), whatever
        the format guess: a table without a .csv extension still shows its column names here."""
        if self.format in ("csv", "tsv", "parquet"):
            return self.columns
        if self.format == "json":
            return []
        from evalgui.core.formats import _text

        line = _text.load_head(self.path, _HEAD_BYTES).split(b"\n", 1)[0].decode("utf-8", "replace")
        line = line.lstrip("\ufeff").rstrip("\r")
        return [t.strip().lower() for t in line.split("\t" if "\t" in line else ",")]

    def has_column(self, *names: str) -> bool:
        return any(n in self.columns for n in names)

    @cached_property
    def json_lean(self) -> Lean:
        """Whether the values of a JSON file look like a run's scores or relevance grades."""
        from evalgui.core.inputs import evidence

        return evidence.weigh(*evidence.json_values_by_query(self.path))


class Claim(NamedTuple):
    """A kind's answer to a file: how sure it is that the file is one of its own, and why."""

    confidence: float
    reason: str = ""


@dataclass(frozen=True)
class InputKind:
    """One kind of input file.

    ``sniff(head) -> confidence`` in [0, 1]: how sure the kind is that the file is one of
    its own (0: not mine), a float or a :class:`Claim` that also says why (the Data dock shows it).
    ``usually_one_per_session``: with one loaded, a file this kind and another claim about
    equally is taken for the other (a qrels comes first, then runs).
    ``read(path, **options)`` returns the data; None while evalgui
    has no reader. ``summary(data)`` gives an ordered dict of counts for the Data dock
    and its tooltip; ``headline`` names the entries shown in the dock's summary column.
    ``warnings(data, summary)`` lists things the user should look at (the file still loads).
    """

    name: str
    label: str
    patterns: tuple[str, ...]
    expected: str                                    # what such a file looks like, for messages
    sniff: Callable[[FileHead], float]
    read: Callable[..., Any] | None = None
    summary: Callable[[Any], dict] = field(default=lambda data: {})
    headline: tuple[str, ...] = ()
    warnings: Callable[[Any, dict], list[str]] = field(default=lambda data, summary: [])
    usually_one_per_session: bool = False
    # The kind a file read as this one turned out to be (a qrels file with subtopics), by its data.
    kind_of: Callable[[Any], str] | None = None
    acts_as: str | None = None                       # another kind's name whose place this one can take
    # read() takes the job's state (progress, Cancel) and too_large(path, state): the caller's reading of a file
    # too large to hold (an engine's, which this layer does not import), None when it is to be read whole.
    reads_large: bool = False

    @property
    def readable(self) -> bool:
        return self.read is not None

    def describe(self, summary: dict) -> str:
        """The dock's one-line summary, e.g. "50 queries, 2,994 judged, 1,604 relevant"."""
        return ", ".join(_count(summary[k], k) for k in self.headline if k in summary)


# Headline nouns whose singular differs ("1 query", not "1 queries"); adjectives such as
# "judged" read the same either way.
_SINGULAR = {"queries": "query", "entities": "entity"}


def _count(value, noun: str) -> str:
    if not isinstance(value, int):
        return f"{value} {noun}"
    if value == 1:
        noun = _SINGULAR.get(noun, noun[:-1] if noun.endswith("s") else noun)
    return f"{value:,} {noun}"


_KINDS: dict[str, InputKind] | None = None


def kinds() -> dict[str, InputKind]:
    """Every registered kind by name, in KIND_MODULES order."""
    global _KINDS
    if _KINDS is None:
        found = {}
        for module in KIND_MODULES:
            kind = importlib.import_module(module if "." in module else f"{__name__}.{module}").KIND
            found[kind.name] = kind
        _KINDS = found
    return _KINDS


def register(module: str) -> None:
    """Add a kind defined in ``module`` (a full dotted name, or a module of this package)."""
    global _KINDS
    if module not in KIND_MODULES:
        KIND_MODULES.append(module)
    _KINDS = None


def unregister(module: str) -> None:
    global _KINDS
    if module in KIND_MODULES:
        KIND_MODULES.remove(module)
    _KINDS = None


def kind(name: str) -> InputKind:
    try:
        return kinds()[name]
    except KeyError:
        raise EvalInputError(None, f"unknown kind of file '{name}' (known: {', '.join(kinds())})") from None


def readable_kinds() -> list[InputKind]:
    return [k for k in kinds().values() if k.readable]


def open_dialog_filters() -> str:
    """Qt file-dialog filters: every readable kind, then all files."""
    readable = readable_kinds()
    every = sorted({p for k in readable for p in k.patterns})
    parts = [f"Data files ({' '.join(every)})"]
    parts += [f"{k.label} ({' '.join(k.patterns)})" for k in readable]
    return ";;".join(parts + ["All files (*)"])


def matches_pattern(path: str, kind: InputKind) -> bool:
    name = os.path.basename(path).lower()
    return any(fnmatch.fnmatch(name, p.lower()) for p in kind.patterns)


def _claims(path: str | os.PathLike) -> list[tuple[InputKind, Claim]]:
    """Every kind's claim on ``path``, most confident first (zeros left out)."""
    head = FileHead(path)
    found = []
    for k in kinds().values():
        claim = k.sniff(head)
        claim = claim if isinstance(claim, Claim) else Claim(float(claim))
        if claim.confidence > 0:
            found.append((k, Claim(float(claim.confidence), claim.reason or f"it looks like {k.label.lower()}")))
    order = list(kinds())
    return sorted(found, key=lambda kc: (-kc[1].confidence, order.index(kc[0].name)))


def claims(path: str | os.PathLike) -> list[tuple[InputKind, float]]:
    """Every kind's confidence that ``path`` is one of its own, most confident first (zeros left out)."""
    return [(k, claim.confidence) for k, claim in _claims(path)]


def _confident_kinds(path: str | os.PathLike, loaded_kinds: Iterable[str] = ()) -> tuple[list[InputKind], str]:
    """The kinds sure enough of ``path``, the likeliest first, and why it is the likeliest. None is an
    input error naming what was expected. ``loaded_kinds``: the kinds of the files already loaded."""
    found = [(k, claim) for k, claim in _claims(path) if claim.confidence >= MIN_CONFIDENCE]
    if not found:
        expected = "; ".join(f"{k.label}: {k.expected}" for k in readable_kinds())
        raise EvalInputError(os.fspath(path), f"evalgui cannot tell what kind of file this is. Expected one of — "
                                              f"{expected}")
    (best, claim), *others = found
    reason = claim.reason
    toss_up = others and claim.confidence - others[0][1].confidence <= TOSS_UP
    if toss_up and best.usually_one_per_session:
        other = others[0][0]
        known = kinds()
        loaded = {known[k].acts_as or k for k in loaded_kinds if k in known} | set(loaded_kinds)
        if best.name in loaded:
            found[0], found[1] = found[1], found[0]
            reason += f"; a {best.label.lower()} file is loaded already, so read as {other.label.lower()}"
        else:
            reason += f"; no {best.label.lower()} file is loaded yet, so read as {best.label.lower()}"
    return [k for k, _ in found], reason


def detect_kind(path: str | os.PathLike, loaded_kinds: Iterable[str] = ()) -> InputKind:
    """The likeliest kind, given the kinds of the files already loaded. A file no kind claims is an
    input error naming what was expected."""
    return _confident_kinds(path, loaded_kinds)[0][0]


def qrels_or_run(path: str | os.PathLike) -> str:
    """"qrels", "run" or "unknown": this registry's guess when it is sure it is one of the two.

    JSON judgments and JSON runs share one layout, so JSON is "unknown" here (the registry
    reads it as judgments first)."""
    found = [(k.name, c) for k, c in claims(path) if c >= MIN_CONFIDENCE]
    if found and found[0][0] in ("qrels", "run") and found[0][1] >= 0.6:
        return found[0][0]
    return "unknown"


@dataclass
class LoadedInput:
    """One file read: its kind, the data, the summary the dock shows, and any warnings."""

    path: str
    kind: str
    data: Any
    summary: dict
    warnings: list[str] = field(default_factory=list)
    kind_reason: str = ""            # why this kind: what the content showed, or "kind chosen by you"
    kind_detected: bool = True       # False when the user chose the kind
    shown_name: str = ""             # set by the session when another file has the same name

    @property
    def name(self) -> str:
        """The file name, with the folders that tell it apart from the session's other files of its kind."""
        return self.shown_name or os.path.basename(self.path)

    @property
    def badge(self) -> str:
        return "warning" if self.warnings else "ok"

    @property
    def by_query(self) -> bool:
        """A run too large to hold: kept on disk and evaluated query by query."""
        return bool(getattr(self.data, "by_query", False))

    @property
    def record(self) -> InputKind:
        return kind(self.kind)


@dataclass
class LoadFailure:
    path: str
    message: str


def _read_as(record: InputKind, path: str, options: dict, state: JobState | None = None,
             too_large=None) -> LoadedInput:
    if not record.readable:
        raise EvalInputError(path, f"this looks like a {record.label.lower()} file, which evalgui cannot read yet "
                                   f"(choose another kind with Read as, if this is wrong)")
    data = record.read(path, **options, state=state, too_large=too_large) if record.reads_large else \
        record.read(path, **options)
    if record.kind_of is not None:
        record = kind(record.kind_of(data))
    summary = record.summary(data)
    from evalgui.core.formats._text import utf8_bom_note

    warnings = list(record.warnings(data, summary))
    if (bom := utf8_bom_note(path)) is not None:
        warnings.insert(0, bom)
    return LoadedInput(path, record.name, data, summary, warnings)


def read_input(path: str | os.PathLike, kind_name: str | None = None, loaded_kinds: Iterable[str] = (),
               state: JobState | None = None, too_large=None, **options) -> LoadedInput:
    """Read one file as ``kind_name``, or as the kind its content (and ``loaded_kinds``, the kinds of
    the files already loaded) says. Raises EvalInputError.

    When the kind was detected and another kind also claims the file (JSON judgments and
    JSON runs share one layout), a failed read falls back to the next most likely kind.
    """
    from evalgui.core.formats._text import check_regular

    path = os.path.abspath(os.fspath(path))
    if not os.path.exists(path):
        raise EvalInputError(path, "no such file")
    if os.path.isdir(path):
        raise EvalInputError(path, "this is a folder, not a file")
    check_regular(path)         # a FIFO or a device would block or never end (pipes are spooled by the CLI)
    if kind_name is not None:
        loaded = _read_as(kind(kind_name), path, options, state, too_large)
        loaded.kind_detected = False
        loaded.kind_reason = "kind chosen by you"
        return loaded
    (best, *others), reason = _confident_kinds(path, loaded_kinds)          # sniffed once
    fallbacks = [k for k in others if k.readable]
    try:
        loaded = _read_as(best, path, options, state, too_large)
        loaded.kind_reason = reason
        return loaded
    except EvalInputError as first_error:
        for other in fallbacks:
            try:
                loaded = _read_as(other, path, options, state, too_large)
            except EvalInputError:
                continue
            loaded.kind_reason = f"it cannot be read as {best.label.lower()} ({first_error.reason})"
            return loaded
        raise first_error


def load_files_job(requests: list[tuple[str, str | None]], loaded_kinds: Iterable[str] = (), too_large=None):
    """An engine job reading files; each arrives as a partial result (LoadedInput or LoadFailure).
    ``loaded_kinds``: the kinds of the files loaded before; each file read joins them. ``too_large(path,
    state)``: what a run too large to hold is read as instead (see InputKind.reads_large)."""
    loaded_kinds = list(loaded_kinds)

    def job(state: JobState) -> int:
        n = len(requests)
        for i, (path, kind_name) in enumerate(requests):
            state.check()
            reading = f"Reading {os.path.basename(path)} ({i + 1} of {n})"
            state.progress(i / max(n, 1), reading)
            try:
                # A run too large to hold is read by pieces: its progress is this file's share.
                loaded = read_input(path, kind_name, loaded_kinds, state.scaled(i / n, (i + 1) / n, reading + ": "),
                                    too_large)
                loaded_kinds.append(loaded.kind)
                state.partial(loaded)
            except EvalInputError as exc:
                state.partial(LoadFailure(path, str(exc)))
            except (OSError, MemoryError) as exc:
                state.partial(LoadFailure(path, f"{path}: {getattr(exc, 'strerror', None) or exc}"))
        state.progress(1.0, "Loaded")
        return n
    return job
