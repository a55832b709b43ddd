"""Reading a file inside a job: a chunk at a time, with progress and Cancel between chunks (issue 23 point 2:
the case-base model file gets the progress bar and Cancel of other reads)."""

import pytest

from evalgui.core.cbr.model import load_model
from evalgui.core.formats import _text
from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.resources import sample_data


def test_chunked_read_gives_the_same_bytes_with_progress(tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    path.write_bytes((sample_data() / "cbr" / "model.json").read_bytes())
    size = path.stat().st_size
    monkeypatch.setattr(_text, "READ_CHUNK_BYTES", 100)
    reports = []
    state = JobState(lambda fraction, message: reports.append((fraction, message)), min_interval=0.0)
    assert _text.load_bytes(path, state) == _text.load_bytes(path)
    chunks = -(-size // 100)
    assert [f for f, _ in reports[:chunks]] == [min(100 * (i + 1) / size, 1.0) for i in range(chunks)]
    assert reports[0][1] == f"Reading model.json: 0.0 of {size / 1e6:,.1f} MB"
    model = load_model(path, state=state)
    assert model.source == str(path) and reports[-1] == (1.0, "Read model.json")


def test_cancel_stops_between_chunks(tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    path.write_bytes((sample_data() / "cbr" / "model.json").read_bytes())
    monkeypatch.setattr(_text, "READ_CHUNK_BYTES", 100)
    reports = []
    stop = []
    # Cancel is asked after the first chunk: the read stops before the second.
    state = JobState(lambda fraction, message: (reports.append(fraction), stop.append(True)), None,
                     lambda: bool(stop), min_interval=0.0)
    with pytest.raises(Cancelled):
        load_model(path, state=state)
    assert len(reports) == 1
