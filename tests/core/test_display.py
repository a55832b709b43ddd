"""evalgui.core.display: measure names as papers write them, plain headers, numbers that read as numbers."""

import math

import numpy as np
import pytest

from evalgui.core import display as D

PAIRS = [("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"), ("recall_100", "R@100"),
         ("recip_rank", "RR"), ("ndcg", "nDCG"), ("map_cut_5", "AP@5"), ("success_1", "Success@1"),
         ("iprec_at_recall_0.10", "IPrec@0.1"), ("num_q", "NumQ"), ("bpref", "Bpref")]


@pytest.mark.parametrize("trec, paper", PAIRS)
def test_trec_eval_names_as_papers_write_them_and_back(trec, paper):
    assert D.paper_name(trec) == paper
    assert D.trec_name(paper) == trec
    assert D.measure_label(trec, D.TREC_EVAL) == trec
    assert D.measure_label(paper, D.TREC_EVAL) == trec
    assert D.measure_label(trec, D.PAPER) == paper


def test_other_names_are_left_as_they_are():
    for name in ("P(rel=2)@5", "bm25", "Average", "Median@100", "runid", "nDCG@Avg"):
        assert D.paper_name(name) == name
    assert D.trec_name("P(rel=2)@5") == "P(rel=2)@5"


@pytest.mark.parametrize("trec, paper", [p for p in PAIRS if p[0] not in ("num_q",)])
def test_both_spellings_are_measures_the_cli_accepts_with_the_same_values(trec, paper):
    from evalgui.core.formats import read_qrels, read_run
    from evalgui.core.ranked.evaluate import evaluate
    from evalgui.core.resources import sample_data

    folder = sample_data("synthetic")
    qrels, runs = read_qrels(folder / "qrels.txt"), [read_run(folder / "bm25.run")]
    spec = trec.replace("_cut_", "_cut.").replace("P_", "P.").replace("recall_", "recall.") \
        .replace("success_", "success.").replace("iprec_at_recall_0.10", "iprec_at_recall")
    as_trec = evaluate(qrels, runs, [spec])
    as_paper = evaluate(qrels, runs, [paper])
    a = as_trec[(as_trec["query"] == "all") & (as_trec["measure"] == trec)]["value"].to_numpy()
    b = as_paper[(as_paper["query"] == "all") & (as_paper["measure"] == paper)]["value"].to_numpy()
    assert len(a) == len(b) == 1
    assert np.allclose(a, b, rtol=0, atol=1e-12)


def test_headers_are_plain_words():
    assert D.column_label("ci_low") == "95 % CI (low)"
    assert D.column_label("splitCount") == "Queries (splits)"
    assert D.column_label("ndcg_cut_10") == "nDCG@10"
    assert D.column_label("ndcg_cut_10", D.TREC_EVAL) == "ndcg_cut_10"
    assert D.column_label("p_value", labels={"p_value": "p (one-sided)"}) == "p (one-sided)"
    assert D.column_label("bm25") == "bm25"


def test_numbers_read_as_numbers():
    assert D.format_number(3.0, kind="count") == "3"
    assert D.format_number(1200, kind="count") == "1200"
    assert D.format_number(0.125, kind="share") == "12.50 %"
    assert D.format_number(12.5, kind="percent") == "12.50 %"
    assert D.column_kind("systemCount") == "count" and D.column_kind("p_adjusted") == "p"
    assert D.format_number(0.123456) == "0.1235"
    assert D.format_number(float("nan")) == "–"
    assert D.format_number(None) == "–"
    assert D.format_number(np.float64("nan")) == "–"
    assert D.format_number(math.inf) == "∞"
    assert D.format_number(7) == "7"


def test_p_values():
    assert D.format_p(0.04) == "0.0400"
    assert D.format_p(0.00001) == "< 0.0001"
    assert D.format_p(0.0) == "< 0.0001"
    assert D.format_p(0.0, resamples=10_000) == "< 1/10,000"
    assert D.format_p(0.5, resamples=10_000) == "0.5000"
    assert D.format_p(float("nan")) == "–"


def test_undefined_values_say_why():
    assert "test" in D.why_missing("p_value")
    assert "two" in D.why_missing("error_rate_sd")
    assert D.why_missing("anything").startswith("Undefined")


def test_core_display_imports_no_qt():
    import sys
    import subprocess

    code = "import evalgui.core.display, sys; assert not [m for m in sys.modules if 'PySide' in m or 'Qt' in m]"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_snake_case_names_as_words():
    assert D.plain_words("token_jaccard_index") == "Token Jaccard index"
    assert D.plain_words("normalized_levenshtein") == "Normalized Levenshtein"
    assert D.plain_words("linear") == "Linear"
