"""The workflow layer: one module per workspace, which the window, the command line, projects
and ``import evalgui as eg`` all call.

Each module declares its requests' parameters once (:mod:`.params`), checks them, and runs the
one job of each request, ``run(request, state, inputs) -> Outcome`` (:mod:`.outcome`), with the
:class:`~evalgui.core.jobs.JobState` protocol. A :class:`Workflow` record is the dispatch: its
key is what projects and ``evalgui-cli run`` call the request, and it carries the run function.

Engines (the rest of ``evalgui.core``) never import this package; it imports them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

# The workspaces, in the window's order; each is a module of this package with WORKFLOWS.
WORKSPACES = ("ranked", "compare", "metaeval", "stability", "casebase")


@dataclass(frozen=True)
class Workflow:
    key: str                 # the request's name in projects and manifests ("compare", "preference")
    workspace: str           # the window's workspace that shows it
    title: str               # plain words
    request: type            # its Request class
    run: Callable            # run(request, state=None, inputs=None) -> Outcome


def workflows() -> dict[str, Workflow]:
    """Every workflow by key, in the window's order (modules not written yet are skipped)."""
    out: dict[str, Workflow] = {}
    for name in WORKSPACES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        for flow in module.WORKFLOWS:
            out[flow.key] = flow
    return out


def workflow(key: str) -> Workflow:
    found = workflows().get(key)
    if found is None:
        raise KeyError(f"no workflow {key!r}")
    return found
