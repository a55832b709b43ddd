"""evalgui: a desktop workbench for evaluating retrieval systems."""

__version__ = "0.1.0"
