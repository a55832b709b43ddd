import os
from pathlib import Path

import pytest

# Qt tests run headless; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = ROOT / "resources" / "sample_data"
CONFORMANCE = ROOT.parent / "shared" / "conformance"


@pytest.fixture(autouse=True)
def _private_settings(tmp_path, monkeypatch):
    """The GUI's QSettings go to a temporary INI file: tests never read or touch a user's settings."""
    monkeypatch.setenv("EVALGUI_SETTINGS", str(tmp_path / "evalgui-settings.ini"))


@pytest.fixture
def trec_eval_dir() -> Path:
    """trec_eval 10.0's test suite, kept outside the repo (never copied in)."""
    folder = Path(os.environ.get("EVALGUI_CONFORMANCE", CONFORMANCE)) / "trec_eval"
    if not (folder / "out.test").exists():
        pytest.skip(f"trec_eval conformance data not found at {folder} (set EVALGUI_CONFORMANCE)")
    return folder
