"""The demo's synthetic collection is exactly what its seeded script makes, and tells the runs apart."""

import importlib.util

from evalgui.core.formats import read_qrels, read_run
from evalgui.core.ranked.evaluate import evaluate
from tests.conftest import SAMPLE_DATA


def test_the_generator_reproduces_the_committed_files(tmp_path):
    spec = importlib.util.spec_from_file_location("make_synthetic", SAMPLE_DATA / "make_synthetic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make(tmp_path)
    committed = sorted(p.name for p in (SAMPLE_DATA / "synthetic").iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (SAMPLE_DATA / "synthetic" / name).read_bytes(), name


def test_the_four_runs_differ_in_quality():
    folder = SAMPLE_DATA / "synthetic"
    qrels = read_qrels(folder / "qrels.txt")
    assert len(qrels.query_ids) == 50 and set(qrels.rel.tolist()) == {0, 1, 2, 3}
    runs = [read_run(folder / f"{name}.run") for name in ("random", "bm25", "dense", "rerank")]
    table = evaluate(qrels, runs, ["map"], per_query=False)
    ap = table.set_index("run")["value"]
    assert ap["random"] < 0.15 < ap["bm25"] < ap["dense"] < ap["rerank"]
