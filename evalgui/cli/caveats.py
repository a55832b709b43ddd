"""The caveats of a result on the command line: one ``caveat:`` line each on stderr, always; ``--caveats FILE``
writes the table (:mod:`evalgui.core.advisor`)."""

from __future__ import annotations

import sys

from evalgui.cli.common import one_line


def add_caveats_option(p) -> None:
    p.add_argument("--caveats", metavar="FILE", default=None,
                   help="also write the caveats (what to watch in these results: unjudged documents, too few "
                        "queries, uncorrected tests, ties, missing queries) as a table to FILE; its extension "
                        "chooses the format. They are always listed on standard error as 'caveat:' lines")


def report_caveats(outcome, args) -> None:
    """The outcome's caveats on stderr, and in ``args.caveats`` when given (atomically)."""
    from evalgui.core import advisor

    listed = getattr(outcome, "caveat_list", None)
    frame = outcome.tables.get("caveats")
    if frame is not None:
        rows = list(zip(frame["severity"].tolist(), frame["message"].tolist()))
        columns = {name: frame[name].to_numpy() for name in advisor.COLUMNS}
    else:
        ordered = advisor.ordered(listed or [])
        rows = [(c.severity, c.message) for c in ordered]
        columns = advisor.columns(ordered)
    for severity, message in rows:
        sys.stderr.write(f"caveat: {severity}: {one_line(message)}\n")
    path = getattr(args, "caveats", None)
    if path:
        from evalgui.cli.common import write_table
        from evalgui.core.export import format_from_path

        write_table(columns, format_from_path(path), path)
