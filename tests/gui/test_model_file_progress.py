"""Issue 23 point 2: a case-base model file (the editor's model, MAC's model) is read on the worker with the
window's progress bar and Cancel, as data files are. A slow reader hands the file over a chunk at a time when
the test says so: no sleeps, every wait is on a signal."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from evalgui.core.formats import _text
from tests.gui.conftest import SAMPLE_DATA, load

CBR = SAMPLE_DATA / "cbr"


class _SlowFile:
    """A file whose every read waits for the test's go (``chunks.release()``)."""

    def __init__(self, fh, chunks: threading.Semaphore):
        self._fh, self._chunks = fh, chunks

    def read(self, size=-1):
        # Only the chunked reading waits: the look at the file's first block (is it text?) goes through.
        if size == _text.READ_CHUNK_BYTES:
            assert self._chunks.acquire(timeout=20), "the test never let the read go on"
        return self._fh.read(size)

    def fileno(self):
        return self._fh.fileno()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def _slow_model_reads(monkeypatch, path) -> threading.Semaphore:
    chunks = threading.Semaphore(0)
    real_open = open

    def slow_open(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        return _SlowFile(fh, chunks) if str(file) == str(path) else fh

    monkeypatch.setattr(_text, "open", slow_open, raising=False)
    monkeypatch.setattr(_text, "READ_CHUNK_BYTES", 64)       # several chunks, so progress between them
    return chunks


def _casebase(qtbot, window):
    load(qtbot, window, [CBR / "cars.csv", CBR / "queries.csv"])
    form = window.workspaces["casebase"].form
    qtbot.waitUntil(lambda: not form.reading_files(), timeout=10_000)
    return window.workspaces["casebase"], form


def test_mac_model_read_shows_progress_and_cancel_stops_it(qtbot, window, monkeypatch, tmp_path):
    casebase, form = _casebase(qtbot, window)
    path = tmp_path / "mac_model.json"
    path.write_bytes((CBR / "mac_model.json").read_bytes())
    assert path.stat().st_size > 2 * 64
    chunks = _slow_model_reads(monkeypatch, path)
    errors = []
    window.error_shown.connect(lambda title, message: errors.append(message))
    readers = []
    form.reading.connect(lambda worker, name: readers.append(worker))
    form.set_mac_file(str(path))
    reader = readers[0]
    assert form.reading_files() and reader in window._loaders
    assert window.load_progress.isVisibleTo(window) and window.cancel_action.isEnabled()
    with qtbot.waitSignal(reader.progress, timeout=10_000) as first:
        chunks.release()                                   # one chunk of the file
    assert 0 < first.args[0] < 1 and "mac_model.json" in first.args[1]
    casebase.run()                                         # Run waits for the model…
    assert casebase._run_waiting
    with qtbot.waitSignal(reader.done, timeout=10_000):
        window.cancel_action.trigger()                     # …and Cancel stops both
        chunks.release(100)                                # the read in progress returns; no chunk follows
    assert not casebase._run_waiting and not casebase.is_busy()
    assert not form.reading_files() and reader not in window._loaders
    assert not window.load_progress.isVisibleTo(window) and not window.cancel_action.isEnabled()
    assert form.mac_path is None and form.mac_model is None and errors == []
    assert "cancelled" in window.statusBar().currentMessage()


def test_model_read_reports_progress_to_the_end(qtbot, window, monkeypatch, tmp_path):
    casebase, form = _casebase(qtbot, window)
    path = tmp_path / "model.json"
    path.write_bytes((CBR / "model.json").read_bytes())
    chunks = _slow_model_reads(monkeypatch, path)
    readers, fractions = [], []
    form.reading.connect(lambda worker, name: readers.append(worker))
    form.load_model(str(path))
    readers[0].progress.connect(lambda fraction, message: fractions.append(fraction))
    with qtbot.waitSignal(readers[0].succeeded, timeout=10_000):
        chunks.release(10_000)
    qtbot.waitUntil(lambda: not window._loaders, timeout=10_000)
    assert fractions[-1] == 1.0 and not window.load_progress.isVisibleTo(window)
    assert form.editor.model().source == str(path)
    assert form.editor.table.item(0, 0).text() and not form.reading_files()
    assert window.workspaces["casebase"].form.editor.table.item(0, 0).flags() & Qt.ItemFlag.ItemIsEnabled
