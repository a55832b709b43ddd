"""Where the bundled resources (sample data, help) are: the checkout's resources/ or the installed copy."""

from __future__ import annotations

from pathlib import Path


def resources_dir() -> Path:
    checkout = Path(__file__).resolve().parents[2] / "resources"
    if (checkout / "sample_data").is_dir():
        return checkout
    installed = Path(__file__).resolve().parents[1] / "_resources"  # pyproject maps resources/ here
    return installed


def sample_data(*parts: str) -> Path:
    return resources_dir().joinpath("sample_data", *parts)
