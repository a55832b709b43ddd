import os
from pathlib import Path

import pytest

from evalgui.core.resources import sample_data

# Qt tests run headless; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = sample_data()
CONFORMANCE = ROOT.parent / "shared" / "conformance"
# Cancel stops a job long before its end: within this many seconds in tests, on any machine. The 0.5 s target
# is a speed target, measured by benchmarks/bench_cancel.py, not asserted here (CI machines are slower).
CANCEL_PROMPTLY = 2.0


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true",
                     help="also run the tests marked slow (building the bundle); they run when CI is set too")


def pytest_collection_modifyitems(config, items):
    """Slow tests (minutes: tests/test_bundle.py builds the PyInstaller bundle) run in CI (CI set,
    as CI services set it), with --run-slow or EVALGUI_SLOW_TESTS=1; otherwise they are skipped."""
    if config.getoption("--run-slow") or os.environ.get("CI") or os.environ.get("EVALGUI_SLOW_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow (or EVALGUI_SLOW_TESTS=1; CI runs them)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


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
