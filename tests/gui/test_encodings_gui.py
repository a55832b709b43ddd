"""Issue 32, point 7, in the window: a UTF-8 byte-order mark is named in the file's load warnings (the Data
panel's badge and tooltip), UTF-16 files load as their kind, and a file of NUL bytes is refused by name."""

from __future__ import annotations

from tests.gui.conftest import load


def test_encodings_in_the_data_panel(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt

    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf" + "1 0 d1 1\n1 0 d2 0\n".encode())
    (tmp_path / "r.run").write_bytes("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n".encode("utf-16"))
    with open(tmp_path / "zeros.run", "wb") as fh:
        fh.truncate(256 << 20)                   # 256 MiB of NUL bytes, refused from its first block
    failures = []
    window.load_failed.connect(failures.extend)
    load(qtbot, window, [tmp_path / "q.txt", tmp_path / "r.run", tmp_path / "zeros.run"])
    qrels = window.session.find(str(tmp_path / "q.txt"))
    assert qrels.kind == "qrels" and qrels.data.query_ids.tolist() == ["1"]
    assert [w for w in qrels.warnings if w.startswith("starts with a UTF-8 byte-order mark")]
    run = window.session.find(str(tmp_path / "r.run"))
    assert run.kind == "run" and run.warnings == [] and run.summary["documents"] == 2
    model = window.data_panel.tree.model()
    rows = {model.index(r, 0).data(Qt.ItemDataRole.UserRole): r for r in range(model.rowCount())}
    row = rows[str(tmp_path / "q.txt")]
    assert model.index(row, 0).data() == "⚠"
    assert "⚠ starts with a UTF-8 byte-order mark" in model.index(row, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(rows[str(tmp_path / "r.run")], 0).data() == "✔"
    assert [f.message for f in failures if "zeros.run" in f.path or "zeros.run" in f.message] == [
        f"{tmp_path / 'zeros.run'}, line 1: binary data, not a text file"]
