"""Command-line options from a workflow's parameter declarations, and the request back from them.

A subcommand names the request it builds; each declared parameter with a flag becomes an option
(its help is the declaration's), ``positional`` ones become arguments. Values are checked by the
request itself, so a bad one is reported by its flag: ``--samples 0: must be at least 1``.
Light: importing this imports no engine.
"""

from __future__ import annotations

import argparse

from evalgui.cli.common import UsageProblem


def _help(param) -> str:
    text = param.help
    if param.type not in ("bool", "files", "texts") and param.default not in (None, (), ""):
        shown = " ".join(map(str, param.default)) if isinstance(param.default, tuple) else param.default
        text += f" (default {shown})"
    return text.replace("%", "%%")


def add_params(parser: argparse.ArgumentParser, request_type, positional: tuple[str, ...] = (),
               skip: tuple[str, ...] = (), overrides: dict[str, dict] | None = None) -> None:
    """One option per declared parameter of ``request_type`` that has a flag (or is ``positional``)."""
    overrides = overrides or {}
    for param in request_type.PARAMS:
        if param.name in skip:
            continue
        extra = dict(overrides.get(param.name, {}))
        if param.name in positional:
            multiple = param.type in ("files", "texts", "ints", "floats")
            parser.add_argument(param.name, metavar=param.metavar or param.name.upper(),
                                nargs=extra.pop("nargs", "*" if multiple else "?"),
                                help=extra.pop("help", param.help.replace("%", "%%")), **extra)
            continue
        if param.flag is None:
            continue
        flags = [f for f in (param.short, param.flag) if f]
        common = {"dest": param.name, "help": extra.pop("help", _help(param))}
        if param.type == "bool":
            parser.add_argument(*flags, action="store_true", **common, **extra)
        elif param.type in ("files", "texts", "ints", "floats") and "nargs" in extra:
            # several values after one flag (--splits 2 5 10), as older subcommands spell them
            parser.add_argument(*flags, default=None, metavar=param.metavar or "VALUE", **common, **extra)
        elif param.type in ("files", "texts", "ints", "floats"):
            # repeatable by default; an override may take the list in one option (type=, action="store")
            parser.add_argument(*flags, **{"action": "append", "default": [], "metavar": param.metavar or "VALUE",
                                           **common, **extra})
        elif param.type == "choice":
            parser.add_argument(*flags, choices=param.choice_values, default=None, **common, **extra)
        else:
            parser.add_argument(*flags, default=None, metavar=param.metavar or param.name.upper(), **common,
                                **extra)


def request_from_args(request_type, args, **fixed):
    """The request of parsed ``args`` (options not given take the declared defaults); a value of the
    wrong type or out of bounds is a UsageProblem naming its flag."""
    from evalgui.core.workflows.params import RequestError

    values = {}
    for param in request_type.PARAMS:
        if param.name in fixed or not hasattr(args, param.name):
            continue
        value = getattr(args, param.name)
        if value is None or (param.type == "bool" and value is False) or value == []:
            continue
        values[param.name] = value
    try:
        request = request_type(**values, **fixed)
    except RequestError as exc:
        raise UsageProblem(exc.problems[0].for_cli()) from None
    problems = request.problems()
    if problems:
        raise UsageProblem(problems[0].for_cli())
    return request
