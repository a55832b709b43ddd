"""``evalgui --bundle-check``: run every engine of the bundle on the sample data, headless.

The self-test (``--demo --self-test``) evaluates the ranked demo and imports every module; this
runs what it does not: each workspace's engine through its ``evalgui-cli`` subcommand (compare,
preference, meta-evaluation, rank-file stability with worker processes, similarity, case base),
Parquet input, and the Qt calls that read ICU's data (collation, time-zone names, case mapping). It proves that what the spec leaves out is not needed. With a file name as argument,
it writes there the shared libraries the process mapped (what the spec must keep).
Exit status 0 when every check passes, 1 with the failures on stderr otherwise.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import traceback
from pathlib import Path


def _cli(*argv) -> str:
    from evalgui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    if status not in (0, None):
        raise AssertionError(f"evalgui-cli {' '.join(map(str, argv))}: status {status}: {err.getvalue()[-500:]}")
    return out.getvalue()


def _engines(tmp: Path) -> None:
    from evalgui.core.resources import sample_data

    synthetic, cbr = sample_data("synthetic"), sample_data("cbr")
    qrels = synthetic / "qrels.txt"
    runs = [synthetic / f"{name}.run" for name in ("bm25", "dense", "rerank", "random")]
    measures = ("-m", "AP", "-m", "P@10")
    assert "rerank" in _cli("evaluate", qrels, *runs, *measures)
    for test in ("t", "wilcoxon", "sign", "randomization", "bootstrap"):
        assert "p_value" in _cli("compare", qrels, *runs, *measures, "--test", test, "--samples", "200")
    _cli("preference", qrels, *runs[:3], "--matrix")
    for experiment in ("stability", "power", "robustness", "agreement"):
        _cli("metaeval", qrels, *runs, *measures, "--experiment", experiment)
    # two threads: the experiments' "spawn" worker processes start this program again
    _cli("stability", "--qrels", qrels, *runs[:3], "-n", "1000", "-i", "4", "-b", "50", "-t", "2",
         "-p", "all")
    evaluated, truth = cbr / "procake_evaluated.csv", cbr / "procake_ground_truth.csv"
    _cli("similarity", "--ground-truth", truth, "--predicted", evaluated)
    _cli("casebase", "--train", cbr / "cars.csv", "--test", cbr / "queries.csv", "--model", cbr / "model.json",
         "--mac-model", cbr / "mac_model.json", "--filter-sizes", "3,6", "--ks", "3,3", "-m", "hits",
         "-m", "kendall", "-m", "nDCG@3", "--relevance-thresholds", "0.6,0.8")


def _parquet(tmp: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalgui.core import formats

    path = tmp / "qrels.parquet"
    pq.write_table(pa.table({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]}), path)
    assert formats.read_qrels(path).rel.tolist() == [1, 0, 2]


def _qt_icu() -> None:
    from PySide6.QtCore import QByteArray, QCollator, QLocale, QTimeZone

    collator = QCollator(QLocale("sv_SE"))
    assert sorted(["b", "a", "ä"], key=collator.sortKey) == ["a", "b", "ä"], "collation"   # Swedish: ä after z
    berlin = QTimeZone(QByteArray(b"Europe/Berlin"))
    name = berlin.displayName(QTimeZone.TimeType.StandardTime, QTimeZone.NameType.LongName, QLocale("de_DE"))
    assert name == "Mitteleuropäische Normalzeit", f"time-zone name: {name}"
    assert QLocale("tr_TR").toUpper("i") == "İ", "Turkish upper case"


def mapped_libraries() -> list[str]:
    """The shared libraries this process has mapped, as paths."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return sorted({line.split()[5] for line in maps if len(line.split()) >= 6 and ".so" in line.split()[5]})


def main(argv: list[str]) -> int:
    checks = {"engines": _engines, "parquet": _parquet, "qt_icu": lambda tmp: _qt_icu()}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, check in checks.items():
            try:
                check(Path(tmp))
            except Exception:          # noqa: BLE001 - every failure is reported, then the next check runs
                failures.append(f"bundle check {name}: {traceback.format_exc()}")
    if argv and sys.platform.startswith("linux"):
        Path(argv[0]).write_text("\n".join(mapped_libraries()) + "\n", encoding="utf-8")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"bundle check: {len(checks) - len(failures)} of {len(checks)} passed")
    return 1 if failures else 0
