"""Ranks of test entities per system (the Ranking Evaluation Tool's input). No reader yet."""

from __future__ import annotations

from evalgui.core.inputs import InputKind

KIND = InputKind(
    name="rank file", label="Rank file", patterns=("*.txt", "*.tsv"),
    expected="tab-separated: experiment name and system ids, then one row per entity with its rank per system",
    sniff=lambda head: 0.0)
