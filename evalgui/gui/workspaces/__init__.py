"""The workspaces: one package or module each, registered here (the only place to add one).

A workspace is a subclass of :class:`evalgui.gui.workspaces.base.Workspace` (a form
plus result views; the base class runs its jobs) and appears as a tab of the main
window, in the order of :data:`WORKSPACES`.
"""

from __future__ import annotations

import importlib

# "module:Class" of every workspace, in tab order.
WORKSPACES = ["evalgui.gui.workspaces.ranked:RankedWorkspace",
              "evalgui.gui.workspaces.compare:CompareWorkspace",
              "evalgui.gui.workspaces.metaeval:MetaevalWorkspace",
              "evalgui.gui.workspaces.stability:StabilityWorkspace",
              "evalgui.gui.workspaces.casebase:CaseBaseWorkspace"]


def workspace_classes() -> list[type]:
    classes = []
    for entry in WORKSPACES:
        module, _, name = entry.partition(":")
        classes.append(getattr(importlib.import_module(module), name))
    return classes


def register(entry: str) -> None:
    """Add a workspace ("module:Class") after the others."""
    if entry not in WORKSPACES:
        WORKSPACES.append(entry)


def unregister(entry: str) -> None:
    if entry in WORKSPACES:
        WORKSPACES.remove(entry)
