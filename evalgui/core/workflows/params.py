"""Parameters declared once: what a request holds, how people see it, how the command line spells it.

A :class:`Param` is the one place a parameter is named, typed, bounded and explained. The
window builds its form controls from it (label, help, unit, bounds, choices), the command line
its options (flag, metavar, help), projects their JSON (name, type), and every front end checks
a request with :meth:`Request.problems`, which returns :class:`Problem` records naming the
parameter, each front end wording it its own way: the window by label, the CLI by flag.

Bounds that depend on the loaded data (splits ≤ entities) are a ``limits`` function of the
request and its inputs, returning (low, high, why) so that a form can offer only what fits and
say why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator

# What a parameter holds. "file"/"files" are paths (inputs); "texts"/"ints"/"floats" are lists;
# "json" is a compound value (a similarity model: records with their own parameters).
TYPES = ("int", "float", "bool", "choice", "text", "file", "files", "texts", "ints", "floats", "json")
LIST_TYPES = {"files": str, "texts": str, "ints": int, "floats": float}


@dataclass(frozen=True, kw_only=True)
class Param:
    name: str                            # the request's attribute and the project's JSON key
    type: str
    label: str                           # what the window calls it: plain words
    help: str                            # one paragraph, for tooltips, --help and the manual
    default: Any = None
    flag: str | None = None              # the command line's option ("--samples"); None: not on the command line
    short: str | None = None             # its one-letter form ("-c")
    metavar: str | None = None
    unit: str = ""                       # shown after the value ("queries", "%")
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[tuple[Any, str], ...] = ()      # (value, label people see)
    optional: bool = False               # None is allowed and means "the engine's default"
    # Bounds computed from the loaded inputs: f(request, inputs) -> (low, high, why) or None.
    limits: Callable[[Any, Any], tuple[float | None, float | None, str] | None] | None = None
    why_maximum: str = ""                # what the fixed maximum protects ("memory", "the running time")
    group: str = ""                      # a heading the form may put it under
    advanced: bool = False               # the form may fold it away

    def __post_init__(self):
        if self.type not in TYPES:
            raise ValueError(f"{self.name}: type must be one of {TYPES}, not {self.type!r}")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"{self.name}: a choice needs its choices")

    @property
    def choice_values(self) -> list:
        return [value for value, _ in self.choices]

    def choice_label(self, value) -> str:
        return dict(self.choices).get(value, str(value))

    def coerce(self, value):
        """``value`` (from JSON, a form or the command line) as this parameter's type; ValueError says why."""
        if value is None:
            if self.optional or self.type in ("file",):
                return None
            raise ValueError("a value is needed")
        kind = self.type
        if kind == "bool":
            if isinstance(value, bool):
                return value
            raise ValueError(f"expected true or false, not {value!r}")
        if kind == "int":
            return _whole(value)
        if kind == "float":
            return _real(value)
        if kind == "choice":
            if value not in self.choice_values:
                raise ValueError(f"'{value}' is not one of {', '.join(map(str, self.choice_values))}")
            return value
        if kind in ("text", "file"):
            if not isinstance(value, str):
                raise ValueError(f"expected text, not {type(value).__name__}")
            return value
        if kind in LIST_TYPES:
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise ValueError(f"expected a list, not {type(value).__name__}")
            item = LIST_TYPES[kind]
            return tuple(_whole(v) if item is int else _real(v) if item is float else _text(v) for v in value)
        return value                                   # json: the workflow checks its shape

    def check(self, value) -> str | None:
        """Why ``value`` is outside this parameter's fixed bounds (None: it is within)."""
        values = value if self.type in ("ints", "floats") else (value,) if self.type in ("int", "float") else ()
        for v in values:
            if v is None:
                continue
            if self.minimum is not None and v < self.minimum:
                return f"must be at least {_number(self.minimum)}"
            if self.maximum is not None and v > self.maximum:
                why = f" (a limit that protects {self.why_maximum})" if self.why_maximum else ""
                return f"must be at most {_number(self.maximum)}{why}"
        return None


def _whole(value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"expected a whole number, not {value!r}")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"expected a whole number, not {value}")
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("+-").isascii() or not text.lstrip("+-").isdigit() or len(text) > 30:
            raise ValueError(f"'{value}' is not a whole number")
        return int(text)
    return value


def _real(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"expected a number, not {value!r}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"'{value}' is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"'{value}' is not a finite number")
    return number


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, not {value!r}")
    return value


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True, repr=False)
class Problem:
    """Something wrong with a request, named by its parameter (None: the request as a whole).

    A message may mention other parameters as ``{name}``: the window shows their labels, the
    command line their flags (or the argument's name)."""

    param: Param | None
    message: str
    value: Any = None
    mentions: tuple[Param, ...] = ()

    def _text(self, name_of) -> str:
        return self.message.format(**{p.name: name_of(p) for p in self.mentions}) if self.mentions else self.message

    def for_window(self) -> str:
        text = self._text(lambda p: f"‘{p.label}’")
        return f"{self.param.label}: {text}" if self.param is not None else text[:1].upper() + text[1:]

    def for_cli(self) -> str:
        text = self._text(cli_name)
        if self.param is None:
            return text
        if self.param.flag is None:
            return f"{cli_name(self.param)}: {text}"
        shown = "" if self.value is None or self.param.type == "bool" else f" {_cli_value(self.value)}"
        return f"{self.param.short or self.param.flag}{shown}: {text}"

    def for_python(self) -> str:
        """As the Python API's caller writes it: the keyword (``complete=True``, ``samples=``)."""
        text = self._text(python_name)
        if self.param is None:
            return text[:1].upper() + text[1:]
        shown = "" if self.value is None else f"={self.value!r}"
        return f"{self.param.name}{shown}: {text}"

    def __str__(self) -> str:
        return self.for_python()

    def __repr__(self) -> str:          # a Python caller printing ``outcome.notes`` reads the note
        return repr(self.for_python())


def cli_name(param: Param) -> str:
    """How the command line names a parameter: its flag (with its metavar), or the argument's name."""
    if param.flag is not None:
        flag = param.short or param.flag
        return flag if param.type == "bool" else f"{flag} {param.metavar or param.name.upper()}"
    name = param.metavar or param.name.upper()
    return f"{name}s" if param.type in LIST_TYPES else name


def python_name(param: Param) -> str:
    """How a Python caller names a parameter: its keyword; a switch with the value that turns it on."""
    if param.type == "bool":
        return f"{param.name}={not param.default}"
    return f"{param.name}="


def _cli_value(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


class RequestError(ValueError):
    """A request that cannot run: its problems, for each front end to word."""

    def __init__(self, problems: list[Problem], *, python: bool = False):
        self.problems = list(problems)
        # The window and the CLI word each problem themselves; the Python API raises it again with ``python``.
        super().__init__("; ".join(p.for_python() if python else p.for_window() for p in self.problems))


class Request:
    """The parameters of one job, declared once in :attr:`PARAMS`.

    A request is immutable: ``request.replace(samples=500)`` makes another. Values are checked
    for their type when set; :meth:`problems` checks bounds, the bounds that depend on the
    inputs, and what the workflow checks across parameters (:meth:`cross_problems`).
    """

    PARAMS: ClassVar[tuple[Param, ...]] = ()
    WORKSPACE: ClassVar[str] = ""

    def __init__(self, **values):
        declared = self.params()
        unknown = [k for k in values if k not in declared]
        if unknown:
            raise TypeError(f"{type(self).__name__} has no parameter {unknown[0]!r}")
        problems = []
        store = {}
        for name, param in declared.items():
            value = values.get(name, param.default)
            try:
                store[name] = param.coerce(value)
            except ValueError as exc:
                problems.append(Problem(param, str(exc), value))
        if problems:
            raise RequestError(problems)
        object.__setattr__(self, "_values", store)

    @classmethod
    def params(cls) -> dict[str, Param]:
        return {p.name: p for p in cls.PARAMS}

    @classmethod
    def param(cls, name: str) -> Param:
        return cls.params()[name]

    def __getattr__(self, name):
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no parameter {name!r}")

    def __setattr__(self, name, value):
        raise AttributeError("a request is immutable: use replace()")

    def __eq__(self, other):
        return type(other) is type(self) and other._values == self._values

    def __hash__(self):
        return hash((type(self), tuple(sorted((k, repr(v)) for k, v in self._values.items()))))

    def __repr__(self):
        changed = ", ".join(f"{k}={v!r}" for k, v in self._values.items() if v != self.param(k).default)
        return f"{type(self).__name__}({changed})"

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self._values.items())

    def replace(self, **changes) -> "Request":
        return type(self)(**{**self._values, **changes})

    def problems(self, inputs=None) -> list[Problem]:
        """Everything that keeps this request from running, parameter by parameter."""
        problems = []
        for name, param in self.params().items():
            value = self._values[name]
            reason = param.check(value)
            if reason:
                problems.append(Problem(param, reason, value))
                continue
            if param.limits is not None and inputs is not None and value is not None:
                bounds = param.limits(self, inputs)
                if bounds is not None:
                    low, high, why = bounds
                    values = value if isinstance(value, tuple) else (value,)
                    for v in values:
                        if (low is not None and v < low) or (high is not None and v > high):
                            problems.append(Problem(param, why, value))
                            break
        return problems + list(self.cross_problems(inputs))

    def cross_problems(self, inputs=None) -> list[Problem]:
        """Problems that involve several parameters (a workflow overrides this)."""
        return []

    def check(self, inputs=None) -> None:
        problems = self.problems(inputs)
        if problems:
            raise RequestError(problems)

    def files(self) -> list[str]:
        """Every input file the request names, in declaration order."""
        out = []
        for name, param in self.params().items():
            value = self._values[name]
            if param.type == "file" and value:
                out.append(value)
            elif param.type == "files":
                out.extend(value)
        return out

    def to_json(self) -> dict:
        return {name: (list(value) if isinstance(value, tuple) else value) for name, value in self._values.items()}

    @classmethod
    def from_json(cls, data) -> "Request":
        """The request a project saved; RequestError names each bad value. Unknown keys (a newer
        evalgui's parameters) are left out; missing ones take their defaults."""
        if not isinstance(data, dict):
            raise RequestError([Problem(None, f"the {cls.WORKSPACE} settings are not a JSON object")])
        declared = cls.params()
        return cls(**{k: v for k, v in data.items() if k in declared})
