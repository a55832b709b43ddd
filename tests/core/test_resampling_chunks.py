"""The resampling tests work in chunks of samples: the same p-values as drawing all B samples at once
(same seed), memory bounded whatever B, Cancel between chunks, progress reported between chunks."""

import numpy as np
import pandas as pd
import pytest

from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.stats import significance as sig
from evalgui.core.stats import stability
from evalgui.core.stats.compare import CompareOptions, compare

# ---------------------------------------------------------------------------
# The unchunked procedures: all B samples drawn at once as one B x n matrix (as evalgui did before chunking)
# ---------------------------------------------------------------------------


def all_signs(n, samples, seed):
    if n < 63 and 2 ** n <= samples:
        bits = (np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
        return (1 - 2 * bits).astype(np.float64)
    return np.random.default_rng(seed).choice(np.array([-1.0, 1.0]), size=(samples, n))


def all_counts(n, samples, seed):
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    counts = np.zeros((samples, n))
    np.add.at(counts, (np.repeat(np.arange(samples), n), draws.ravel()), 1.0)
    return counts


def unchunked_randomization(d, samples, seed):
    signs = all_signs(d.shape[1], samples, seed)
    observed = np.abs(d.sum(axis=1))[:, None] - 1e-9 * np.abs(d).sum(axis=1)[:, None]
    return (np.abs(d @ signs.T) >= observed).sum(axis=1) / len(signs)


def unchunked_bootstrap(d, samples, seed, alpha):
    n = d.shape[1]
    counts = all_counts(n, samples, seed)
    mean = d.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = d.std(axis=1, ddof=1)
        observed = np.abs(np.where(sd > 0, mean / (sd / np.sqrt(n)),
                                   np.where(np.abs(mean) > sig.NOISE, np.inf, 0.0)))
    w_means, w_t = sig._resampled_t(d - mean[:, None], counts)
    magnitude = np.abs(w_t)
    asl = (magnitude >= observed[:, None] * (1.0 - 1e-9)).mean(axis=1)
    asl[~(np.abs(d) > sig.NOISE).any(axis=1)] = 1.0
    # the sample with the Bα-th largest |t|; equal |t|: the earlier sample first
    rank = min(max(int(np.floor(samples * alpha)), 1), samples)
    at = np.argsort(-magnitude, axis=1, kind="stable")[:, rank - 1]
    return asl, np.abs(w_means[np.arange(len(d)), at])


def unchunked_mean_ci(d, samples, seed, confidence=0.95):
    means = d @ all_counts(d.shape[1], samples, seed).T / d.shape[1]
    tail = (1.0 - confidence) / 2.0
    return tuple(np.quantile(means, [tail, 1.0 - tail], axis=1))


def unchunked_tukey(scores, pairs, samples, seed):
    n, systems = scores.shape
    means = scores.mean(axis=0)
    index = np.asarray(pairs)
    observed = np.abs(means[index[:, 0]] - means[index[:, 1]])
    order = np.argsort(np.random.default_rng(seed).random((samples, n, systems), dtype=np.float32), axis=2)
    trial_means = scores.ravel()[(np.arange(n) * systems)[:, None] + order].mean(axis=1)
    ranges = trial_means.max(axis=1) - trial_means.min(axis=1)
    tolerance = 1e-12 * max(float(np.abs(scores).max()), 1.0)
    return np.where(observed > tolerance, (ranges[None] >= (observed - tolerance)[:, None]).mean(axis=1), 1.0)


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Chunks of a few samples, products of a row or two, and the kept order statistics of a row or two at a
    time (several passes over the samples): every boundary the chunking has, many times over."""
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 120)
    monkeypatch.setattr(sig, "CHUNK_WORK", 2_000)
    monkeypatch.setattr(sig, "KEEP_NUMBERS", 300)


def differences(rows, n, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "discrete":                       # P@1-like: many equal samples, many ties in |t|
        return rng.integers(-1, 2, (rows, n)).astype(np.float64)
    d = np.round(rng.normal(0.03, 0.1, (rows, n)), 2)
    d[0] = 0.0                                   # identical systems
    return d


CASES = [(4, 6, "normal", 500, 3), (5, 9, "normal", 512, 1), (6, 25, "normal", 1_000, 42),
         (3, 40, "discrete", 777, 7), (7, 12, "discrete", 2_000, 5)]


@pytest.mark.parametrize("rows, n, kind, samples, seed", CASES)
def test_chunked_p_values_equal_the_unchunked_ones(tiny_chunks, rows, n, kind, samples, seed):
    d = differences(rows, n, kind, seed)
    np.testing.assert_array_equal(sig.randomization_test(d, samples, seed),
                                  unchunked_randomization(d, samples, seed))
    result = sig.bootstrap_test(d, samples, seed, alpha=0.05)
    asl, required = unchunked_bootstrap(d, samples, seed, 0.05)
    np.testing.assert_array_equal(result.asl, asl)
    # Sakai's estimate and the CI are sample means: the same samples, summed by BLAS in other block shapes
    # (the last bits may differ, as they did with another number of rows)
    np.testing.assert_allclose(result.difference_required, required, rtol=1e-12, atol=1e-15)
    for chunked, whole in zip(sig.mean_ci(d, samples, seed), unchunked_mean_ci(d, samples, seed)):
        np.testing.assert_allclose(chunked, whole, rtol=1e-12, atol=1e-15)


def test_chunk_size_does_not_change_the_p_values(monkeypatch):
    d = differences(6, 30, "normal", 11)
    default = sig.randomization_test(d, 20_000, 9), sig.bootstrap_test(d, 3_000, 9, alpha=[0.01, 0.05])
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 1_000)
    monkeypatch.setattr(sig, "KEEP_NUMBERS", 500)
    chunked = sig.randomization_test(d, 20_000, 9), sig.bootstrap_test(d, 3_000, 9, alpha=[0.01, 0.05])
    np.testing.assert_array_equal(chunked[0], default[0])
    np.testing.assert_array_equal(chunked[1].asl, default[1].asl)
    for alpha in (0.01, 0.05):
        np.testing.assert_allclose(chunked[1].required[alpha], default[1].required[alpha], rtol=1e-12, atol=1e-15)


def test_the_percentile_ci_is_np_quantile_of_all_sample_means(tiny_chunks):
    d = differences(3, 15, "normal", 4)
    for samples, confidence in ((1, 0.95), (2, 0.95), (40, 0.9), (999, 0.95), (1_000, 0.5)):
        whole = unchunked_mean_ci(d, samples, 8, confidence)
        for chunked, expected in zip(sig.mean_ci(d, samples, 8, confidence), whole):
            np.testing.assert_allclose(chunked, expected, rtol=1e-12, atol=1e-15)


def test_chunked_tukey_hsd_and_swap_trials_equal_the_unchunked_ones(tiny_chunks):
    scores = np.round(np.random.default_rng(2).random((10, 4)), 2)
    pairs = [(0, 1), (0, 3), (2, 3)]
    np.testing.assert_array_equal(sig.tukey_hsd(scores, pairs, 700, 3), unchunked_tukey(scores, pairs, 700, 3))
    d = differences(3, 8, "normal", 6)
    first, second = stability.swap_trials(d, 300, 5)
    np.testing.assert_allclose(first, d @ all_counts(8, 300, 5).T / 8, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(second, d @ all_counts(8, 300, 6).T / 8, rtol=1e-12, atol=1e-15)


def test_the_kept_largest_values_are_the_largest_of_all_and_ties_rank_by_arrival():
    rng = np.random.default_rng(1)
    values = np.round(rng.normal(size=(3, 5_000)), 1)          # many equal values
    plain, ranked = sig._Largest(3, 40, 7), sig._Largest(3, 40, 7, companions=True)
    sample = np.broadcast_to(np.arange(5_000, dtype=np.float64), values.shape)
    for start in range(0, 5_000, 123):
        piece = slice(start, start + 123)
        plain.add(slice(0, 3), values[:, piece])
        ranked.add(slice(0, 1), values[:1, piece], sample[:1, piece], start)     # rows offered apart, too
        ranked.add(slice(1, 3), values[1:, piece], sample[1:, piece], start)
    np.testing.assert_array_equal(np.sort(plain.largest(), axis=1), np.sort(values, axis=1)[:, -40:])
    order = np.argsort(-values, axis=1, kind="stable")                          # equal values: the earlier first
    for rank in (1, 2, 17, 40):
        np.testing.assert_array_equal(ranked.companion_of(rank), order[:, rank - 1])


# ---------------------------------------------------------------------------
# Cancel and progress
# ---------------------------------------------------------------------------

def cancel_after_first_report():
    """A state whose Cancel is pressed by the first progress report (which comes after the first chunk)."""
    reports = []
    state = JobState(lambda fraction, message: reports.append((fraction, message)), None, lambda: bool(reports),
                     min_interval=0.0)
    return state, reports


LARGE = 10_000_000       # drawn at once, 10 million x 50 samples would be 4 to 8 GB


@pytest.mark.parametrize("run", [
    lambda d, state: sig.randomization_test(d, LARGE, 1, state=state),
    lambda d, state: sig.bootstrap_test(d, LARGE, 1, state=state),
    lambda d, state: sig.mean_ci(d, LARGE, 1, state=state),
    lambda d, state: sig.tukey_hsd(np.random.default_rng(0).random((50, 4)), [(0, 1)], LARGE, 1, state=state),
    lambda d, state: stability.swap_trials(d, 1_000_000, 1, state=state),
], ids=["randomization", "bootstrap", "mean_ci", "tukey", "swap"])
def test_cancel_lands_after_the_first_chunk_of_a_large_b(run):
    d = differences(6, 50, "normal", 3)
    state, reports = cancel_after_first_report()
    with pytest.raises(Cancelled):
        run(d, state)
    assert len(reports) == 1 and 0.0 < reports[0][0] < 0.05


def test_cancel_during_a_large_b_compare():
    rng = np.random.default_rng(0)
    runs = ["a", "b", "c", "d"]
    scores = pd.DataFrame([(r, f"q{q}", "map", v) for r in runs for q, v in enumerate(rng.random(50))],
                          columns=["run", "query", "measure", "value"])
    for test in ("randomization", "bootstrap"):
        reports = []
        state = JobState(lambda f, m: reports.append((f, m)), None,
                         lambda: any("samples" in m for _, m in reports), min_interval=0.0)
        with pytest.raises(Cancelled):
            compare(scores, runs, ["map"], CompareOptions(test=test, samples=LARGE), state=state)
        assert reports[-1][1].startswith(f"map: {test} test, ") and reports[-1][0] < 0.05


def test_progress_is_reported_between_chunks(monkeypatch):
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 20 * 1_000)      # 1,000 samples a chunk for 20 queries
    d = differences(3, 20, "normal", 5)
    seen = []
    state = JobState(lambda f, m: seen.append((f, m)), min_interval=0.0)
    sig.randomization_test(d, 10_000, 2, state=state)
    expected = [f"randomization test, {k:,} of 10,000 samples" for k in range(1_000, 10_000, 1_000)]
    assert [m for _, m in seen] == expected
    assert [f for f, _ in seen] == pytest.approx([k / 10 for k in range(1, 10)])
    seen.clear()
    monkeypatch.setattr(sig, "KEEP_NUMBERS", 1)                  # one row a pass: three passes
    sig.bootstrap_test(d, 4_000, 2, state=state)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0 < fractions[0] and fractions[-1] < 1
    assert seen[0][1] == "bootstrap test, pairs 1–1 of 3: 1,000 of 4,000 samples"
    assert seen[-1][1] == "bootstrap test, pairs 3–3 of 3: 3,000 of 4,000 samples"


def test_a_compare_job_reports_its_resampling_in_order(monkeypatch):
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 30 * 1_000)
    rng = np.random.default_rng(4)
    runs = ["a", "b", "c"]
    scores = pd.DataFrame([(r, f"q{q}", m, v) for m in ("map", "ndcg") for r in runs
                           for q, v in enumerate(rng.random(30))], columns=["run", "query", "measure", "value"])
    for test in ("randomization", "bootstrap", "tukey"):
        seen = []
        compare(scores, runs, ["map", "ndcg"], CompareOptions(test=test, samples=5_000),
                state=JobState(lambda f, m: seen.append((f, m)), min_interval=0.0))
        fractions = [f for f, _ in seen]
        assert fractions == sorted(fractions), test           # the test, then its CI: the bar never goes back
        what = {"randomization": "randomization test", "bootstrap": "bootstrap test", "tukey": "randomized Tukey HSD"}
        assert any(m.startswith(f"ndcg: {what[test]}, ") for _, m in seen), test
