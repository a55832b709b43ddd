"""The two error types the engines raise for things a user can fix."""

from __future__ import annotations


class EvalInputError(ValueError):
    """Bad input data: names the file, the line (when there is one) and the reason.

    ``str(err)`` is a single line, fit for a dialog or for stderr.
    """

    def __init__(self, source: str | None, reason: str, line: int | None = None):
        self.source = source
        self.reason = reason
        self.line = line
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where = f"{where}, line {self.line}"
        return f"{where}: {self.reason}"


class EvalUsageError(ValueError):
    """A request the engine cannot honour: an unknown measure, a bad parameter."""
