"""The engines: pure functions over numpy, pandas and pyarrow.

Nothing under ``evalgui.core`` may import Qt or pyqtgraph; a test enforces it.
Submodules are imported on demand so that ``import evalgui.core`` stays cheap.
"""

from evalgui.core.errors import EvalInputError, EvalUsageError

__all__ = ["EvalInputError", "EvalUsageError"]
