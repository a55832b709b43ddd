"""evalgui-cli's outputs on the sample data stay what they were when recorded.

Each command below runs in a fresh process, from the sample-data folder (so paths and run names
are relative), and its standard output must equal ``tests/data/cli_outputs/<name>.out`` byte for
byte. A change that alters an output on purpose re-records it (``EVALGUI_RECORD=1 python -m pytest
tests/cli/test_recorded_outputs.py``) and says why in its commit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLE_DATA

RECORDED = Path(__file__).resolve().parents[1] / "data" / "cli_outputs"

SYN = "synthetic/"
RUNS = [f"{SYN}{name}.run" for name in ("bm25", "dense", "rerank", "random")]
CBR = "cbr/"

COMMANDS: dict[str, list[str]] = {
    "trec_eval_q": ["trec_eval", "-q", f"{SYN}qrels.txt", f"{SYN}bm25.run"],
    "trec_eval_all": ["trec_eval", "-m", "all_trec", "-l", "2", f"{SYN}qrels.txt", f"{SYN}rerank.run"],
    "trec_eval_meic": ["trec_eval", "-q", "-c", "meic/information_systems.qrels", "meic/enhanced.run"],
    "evaluate_per_query": ["evaluate", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "nDCG@10", "-m", "P@10",
                           "-m", "P(rel=2)@5", "-m", "RBP(p=0.8)", "--per-query"],
    "evaluate_latex": ["evaluate", "meic/information_systems.qrels", "meic/base.run", "meic/enhanced.run",
                       "-m", "AP", "-m", "AP(norm=retrieved)", "-m", "P@10", "--format", "latex"],
    "compare_t": ["compare", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "nDCG@10"],
    "compare_randomization": ["compare", f"{SYN}qrels.txt", *RUNS[:3], "-m", "AP", "--test", "randomization",
                              "--samples", "2000", "--seed", "7", "--correction", "holm"],
    "compare_bootstrap_baseline": ["compare", f"{SYN}qrels.txt", *RUNS, "-m", "P@10", "--test", "bootstrap",
                                   "--samples", "1000", "--seed", "3", "--baseline", "bm25"],
    "compare_paper": ["compare", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "P@10", "--paper", "--format",
                      "latex"],
    "preference": ["preference", f"{SYN}qrels.txt", *RUNS],
    "preference_matrix": ["preference", f"{SYN}qrels.txt", *RUNS, "-m", "rpp", "-m", "lexirecall", "--matrix"],
    "metaeval_stability": ["metaeval", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "P@10", "--experiment",
                           "stability", "--set-size", "10", "--sets", "200", "--seed", "5"],
    "metaeval_power": ["metaeval", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "RR", "--experiment", "power",
                       "--test", "bootstrap", "--samples", "500", "--seed", "5"],
    "metaeval_robustness": ["metaeval", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "bpref", "--experiment",
                            "robustness", "--fractions", "0.3,0.6", "--repetitions", "5", "--seed", "5"],
    "metaeval_agreement": ["metaeval", f"{SYN}qrels.txt", *RUNS, "-m", "AP", "-m", "nDCG", "-m", "RR",
                           "--experiment", "agreement"],
    "stability_eval": ["stability", "rankfile/citations.tsv", "-n", "5000", "-s", "1", "-i", "200"],
    "stability_all": ["stability", "rankfile/citations.tsv", "-n", "5000", "-s", "2", "-i", "100", "-p", "all",
                      "--splits", "2", "-e"],
    "similarity": ["similarity", "--ground-truth", f"{CBR}procake_ground_truth.csv", "--predicted",
                   f"evaluated={CBR}procake_evaluated.csv", "-k", "2"],
    "casebase": ["casebase", "--train", f"{CBR}cars.csv", "--test", f"{CBR}queries.csv", "--model",
                 f"{CBR}model.json", "--mac-model", f"{CBR}mac_model.json", "--filter-sizes", "10,20",
                 "--ks", "5,10"],
}


# Rows that measure time, not results: left out of the comparison.
TIMING_ROWS = (b",retrieval_seconds,", b",seconds_per_query,", b",speedup,")


def _without_timings(output: bytes) -> bytes:
    return b"".join(line for line in output.splitlines(keepends=True)
                    if not any(marker in line for marker in TIMING_ROWS))


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "evalgui.cli", *argv], cwd=SAMPLE_DATA, env=env,
                          capture_output=True, timeout=300)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_output_is_as_recorded(name):
    proc = _run(COMMANDS[name])
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    recorded = RECORDED / f"{name}.out"
    if os.environ.get("EVALGUI_RECORD") == "1":
        recorded.parent.mkdir(parents=True, exist_ok=True)
        recorded.write_bytes(_without_timings(proc.stdout))
    if not recorded.exists():
        pytest.fail(f"no recorded output {recorded}: record it with EVALGUI_RECORD=1")
    assert _without_timings(proc.stdout) == recorded.read_bytes(), f"evalgui-cli {' '.join(COMMANDS[name])} changed its output"
