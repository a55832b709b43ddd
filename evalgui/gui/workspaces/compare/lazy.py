"""Result views that catch up with a new comparison only while in sight.

A comparison of 30 runs has 435 pairs per measure: drawing every view at once when it
arrives would stall the window (the issue's limit is 100 ms), so only the view on
screen is drawn then; the others are drawn when their tab is shown (the workspace
calls :meth:`LazyView.shown`) or before they are exported.
"""

from __future__ import annotations


class LazyView:
    """Subclasses set ``page`` and implement ``update_choices()`` (cheap: refill the combo boxes) and
    ``draw()`` (the expensive part)."""

    def __init__(self):
        self.comparison = None
        self._stale = False

    def refresh(self, comparison) -> None:
        self.comparison = comparison
        self.update_choices()
        self._stale = True
        if self.page.isVisible():
            self.shown()

    def shown(self) -> None:
        """The tab came into sight (or is about to be exported): catch up with the comparison."""
        if self._stale:
            self.draw()

    def draw(self) -> None:
        self._stale = False

    def update_choices(self) -> None:
        pass
