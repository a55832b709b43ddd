"""evalgui-cli measures: every family's records (measures, later tests and corrections), or one in full."""

from __future__ import annotations

from evalgui.cli.common import UsageProblem

NAME = "measures"
HELP = "list the measures with their descriptions"
DESCRIPTION = ("Lists every family of measures, one heading per family and one line per measure "
               "(its ir_measures name in brackets). With NAME, shows that measure's description and formula.")


def add_arguments(p) -> None:
    p.add_argument("--family", metavar="F", help="only this family (e.g. ranked)")
    p.add_argument("name", nargs="?", help="show one measure in full")


def _chosen(key: str | None) -> list:
    from evalgui.core import registry

    if key is None:
        return registry.families()
    if key not in registry.family_keys():
        raise UsageProblem(f"unknown family '{key}'; choose from {', '.join(registry.family_keys())}")
    return [registry.family(key)]


def _heading(family) -> str:
    return f"# {family.title} (--family {family.key})"


def _show(record) -> None:
    aliases = ", ".join(f"{where}: {name}" for where, name in record.aliases)
    print(record.name + (f"  ({aliases})" if aliases else ""))
    print(record.help_text)


def run(args) -> int:
    families = _chosen(args.family)
    if args.name:
        found = [(family, family[args.name]) for family in families if args.name in family]
        if not found:
            raise UsageProblem(f"unknown measure '{args.name}'")
        for i, (family, record) in enumerate(found):
            if len(found) > 1:       # the same name in several families: say which is which
                print(("\n" if i else "") + _heading(family))
            _show(record)
        return 0
    for i, family in enumerate(families):
        print(("\n" if i else "") + _heading(family))
        for record in family.values():
            first = record.description.split(". ")[0].rstrip(".")
            aliases = " [" + ", ".join(name for _, name in record.aliases) + "]" if record.aliases else ""
            print(f"{record.name:<24}{first}{aliases}")
    return 0
