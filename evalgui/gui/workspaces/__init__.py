"""The workspaces: one module each, registered here (the only place to add one).

A workspace is a QWidget subclass of :class:`evalgui.gui.workspaces.base.Workspace`
and appears as a tab of the main window, in this order.
"""

from __future__ import annotations


def workspace_classes() -> list[type]:
    from evalgui.gui.workspaces.ranked import RankedWorkspace

    return [RankedWorkspace]
