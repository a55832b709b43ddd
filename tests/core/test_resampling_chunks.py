"""Resampling in chunks: the chunk size, the same samples whatever the chunks, Cancel between chunks,
bounded memory at large B; the samples cap; the registry records as the dispatch; p undefined on one query."""

import tracemalloc

import numpy as np
import pytest

from evalgui.core.jobs import Cancelled, JobState
from evalgui.core.stats import significance as sig
from evalgui.core.stats import stability
from evalgui.core.stats.catalogue import MAX_SAMPLES, TESTS, TestRecord
from evalgui.core.stats.compare import CompareOptions, compare, pair_tests


@pytest.fixture
def diffs():
    d = np.random.default_rng(3).random((7, 13)) - 0.4
    d[3] = 0.0                               # identical systems
    d[4, :5] = d[4, 5:10]                    # repeated values
    return d


def test_chunk_size_bounds_the_random_numbers_of_a_chunk():
    assert sig.chunk_size(50) == sig.CHUNK_NUMBERS // 50 == 20_000
    assert sig.chunk_size(10 ** 9) == 1
    for n in (1, 13, 50):
        chunks = list(sig.resample_count_chunks(n, 100_000, 1))
        assert max(len(c) for _, c in chunks) * n <= sig.CHUNK_NUMBERS
        assert sum(len(c) for _, c in chunks) == 100_000


@pytest.mark.parametrize("size", [1, 7, 100, 1000])
def test_chunks_are_the_rows_of_one_draw(size):
    signs, exact = sig.sign_matrix(13, 1000, 5)
    assert not exact
    assert np.array_equal(np.concatenate([c for _, c in sig.sign_chunks(13, 1000, 5, size)]), signs)
    # all 2^n flips, enumerated in chunks
    enumerated = np.concatenate([c for _, c in sig.sign_chunks(4, 1000, 5, size)])
    assert np.array_equal(enumerated, sig.sign_matrix(4, 1000, 5)[0])
    counts = sig.resample_counts(13, 1000, 5)
    assert np.array_equal(np.concatenate([c for _, c in sig.resample_count_chunks(13, 1000, 5, size)]), counts)
    # the unchunked draw of before (np.add.at over the draws of one generator)
    draws = np.random.default_rng(5).integers(0, 13, size=(1000, 13))
    before = np.zeros((1000, 13))
    np.add.at(before, (np.repeat(np.arange(1000), 13), draws.ravel()), 1.0)
    assert np.array_equal(counts, before)


@pytest.mark.parametrize("samples", [37, 999, 2001])
@pytest.mark.parametrize("numbers", [13, 13 * 7, 13 * 100])
def test_p_values_do_not_depend_on_the_chunks(monkeypatch, diffs, samples, numbers):
    whole = (sig.randomization_test(diffs, samples, 5), sig.bootstrap_test(diffs, samples, 5, [0.01, 0.05, 0.2]),
             sig.mean_ci(diffs, samples, 5), stability.swap_trials(diffs, samples, 5))
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", numbers)
    assert sig.chunk_size(13) < samples or numbers == 1300
    randomization, boot = sig.randomization_test(diffs, samples, 5), sig.bootstrap_test(diffs, samples, 5,
                                                                                         [0.01, 0.05, 0.2])
    assert np.array_equal(randomization, whole[0])
    assert np.array_equal(boot.asl, whole[1].asl)
    # Order statistics of sample means: the same sample, its mean computed by a matrix product of another
    # shape (the BLAS may round the last bit otherwise).
    for level, required in boot.required.items():
        np.testing.assert_allclose(required, whole[1].required[level], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sig.mean_ci(diffs, samples, 5), whole[2], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(stability.swap_trials(diffs, samples, 5), whole[3], rtol=1e-12, atol=1e-15)


def test_one_chunk_is_the_unchunked_arithmetic(diffs):
    """With B within one chunk (every default B) the CI is np.quantile over all B sample means, as before."""
    counts = sig.resample_counts(13, 1000, 5)
    means = diffs @ counts.T / 13
    low, high = sig.mean_ci(diffs, 1000, 5)
    tail = (1 - 0.95) / 2
    assert np.array_equal(low, np.quantile(means, tail, axis=1))
    assert np.array_equal(high, np.quantile(means, 1 - tail, axis=1))
    first, second = stability.swap_trials(diffs, 1000, 5)
    assert np.array_equal(first, diffs @ counts.T / 13)
    assert np.array_equal(second, diffs @ sig.resample_counts(13, 1000, 6).T / 13)


class _Counting:
    """Wraps a chunk generator of the module, counting the chunks drawn."""

    def __init__(self, monkeypatch, module, name):
        self.drawn = 0
        original = getattr(module, name)

        def counted(*args, **kwargs):
            for item in original(*args, **kwargs):
                self.drawn += 1
                yield item

        monkeypatch.setattr(module, name, counted)


@pytest.mark.parametrize("run", [
    lambda d, state: sig.randomization_test(d, 100_000, 1, state=state),
    lambda d, state: sig.bootstrap_test(d, 100_000, 1, 0.05, state=state),
    lambda d, state: sig.mean_ci(d, 100_000, 1, state=state),
    lambda d, state: stability.swap_trials(d, 100_000, 1, state=state),
])
def test_cancel_is_checked_between_chunks(monkeypatch, diffs, run):
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 13 * 1000)              # 100 chunks of 1,000 samples
    signs = _Counting(monkeypatch, sig, "sign_chunks")
    counts = _Counting(monkeypatch, sig, "resample_count_chunks")
    monkeypatch.setattr(stability, "resample_count_chunks", sig.resample_count_chunks)
    reports = []
    # Cancel is asked once the first chunk has been drawn.
    state = JobState(on_progress=lambda f, m: reports.append((f, m)),
                     is_cancelled=lambda: signs.drawn + counts.drawn > 0, min_interval=0.0)
    with pytest.raises(Cancelled):
        run(diffs, state)
    assert 1 <= signs.drawn + counts.drawn <= 2                      # (the swap method draws two streams)


def test_tukey_checks_cancel_between_chunks(monkeypatch):
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 13 * 4 * 100)           # 100 trials of 13 queries x 4 systems
    scores = np.random.default_rng(2).random((13, 4))
    pairs = [(0, 1), (2, 3)]
    whole = sig.tukey_hsd(scores, pairs, 1000, 3)
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 1_000_000)
    assert np.array_equal(sig.tukey_hsd(scores, pairs, 1000, 3), whole)          # the same trials in one chunk
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 13 * 4 * 100)
    checks = []
    state = JobState(is_cancelled=lambda: checks.append(1) or len(checks) > 1)   # stop after the first chunk
    with pytest.raises(Cancelled):
        sig.tukey_hsd(scores, pairs, 1000, 3, state=state)
    assert len(checks) == 2


def test_progress_between_chunks(monkeypatch, diffs):
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 13 * 1000)
    reports = []
    sig.randomization_test(diffs, 5_000, 1, state=JobState(on_progress=lambda f, m: reports.append(f),
                                                            min_interval=0.0))
    assert len(reports) == 4 and reports == sorted(reports) and 0 < reports[0] and reports[-1] < 1   # 5 chunks


@pytest.mark.parametrize("run", [
    lambda d: sig.randomization_test(d, 200_000, 1),
    lambda d: sig.bootstrap_test(d, 200_000, 1, [0.05, 0.1]),
    lambda d: sig.mean_ci(d, 200_000, 1),
])
def test_memory_stays_bounded_at_large_b(monkeypatch, run):
    """200,000 samples of 50 queries are 80 MB at once; a chunk of 100,000 numbers and the order
    statistics kept are a few MB."""
    monkeypatch.setattr(sig, "CHUNK_NUMBERS", 100_000)
    monkeypatch.setattr(sig, "BLOCK_CELLS", 50_000)
    d = np.random.default_rng(1).random((3, 50)) - 0.45
    tracemalloc.start()
    try:
        run(d)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    kept = 2 * 3 * 200_000 * 0.1 * 8 * 3        # the bootstrap's kept |t| and means: B·α per row, and scratch
    assert peak < 8 * 100_000 * 6 + kept, peak / 2 ** 20


def test_samples_are_capped():
    CompareOptions(test="randomization", samples=MAX_SAMPLES)
    with pytest.raises(ValueError, match="at most 10,000,000"):
        CompareOptions(test="randomization", samples=MAX_SAMPLES + 1)


def test_nan_tie_tolerance_is_refused():
    with pytest.raises(ValueError, match="tie tolerance"):
        CompareOptions(tie_tolerance=float("nan"))
    with pytest.raises(ValueError, match="tie tolerance"):
        CompareOptions(tie_tolerance=float("inf"))


@pytest.mark.parametrize("test", list(TESTS))
def test_one_query_gives_an_undefined_p(test):
    scores = np.array([[0.5, 0.2, 0.1]])                # one query x three systems
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    diffs = (scores[:, first] - scores[:, second]).T
    tests = pair_tests(diffs, CompareOptions(test=test, correction="none"), None, scores, first, second)
    assert np.isnan(tests.p_value).all() and np.isnan(tests.p_adjusted).all() and not tests.significant.any()
    assert np.isnan(sig.t_test(diffs)).all()


def test_one_query_warns_in_the_comparison():
    import pandas as pd

    scores = pd.DataFrame({"run": ["a", "b"], "query": ["q1", "q1"], "measure": ["AP", "AP"], "value": [0.5, 0.2]})
    result = compare(scores, ["a", "b"], ["AP"])
    assert np.isnan(result.table["p_value"]).all()
    assert any("one query" in w for w in result.warnings)


def test_the_record_is_the_dispatch(monkeypatch):
    """A test registered with its kernel is run by the comparison: no list of names anywhere else."""
    def halves(job):
        return sig.TestOutput(np.full(len(job.diffs), 0.5))

    monkeypatch.setattr(sig, "halves_kernel", halves, raising=False)
    record = TestRecord(name="halves", family="tests", group="Other", description="p = 0.5", formula="p = 1/2",
                        where="evalgui.core.stats.significance:halves_kernel")
    monkeypatch.setitem(TESTS._records, "halves", record)
    diffs = np.random.default_rng(0).random((3, 5))
    tests = pair_tests(diffs, CompareOptions(test="halves", correction="bonferroni"))
    assert np.array_equal(tests.p_value, [0.5] * 3) and np.array_equal(tests.p_adjusted, [1.0] * 3)
    for name, record in TESTS.items():
        assert callable(record.kernel), name


@pytest.mark.parametrize("keep, spare, width", [(5, 1, 7), (5, 3, 50), (40, 10, 13), (1, 1, 1), (30, 100, 29)])
def test_the_kept_largest_are_the_largest(keep, spare, width):
    """Offered chunk by chunk, with little room (compactions, chunks offered in halves), the kept values are
    the keep largest of all, each with its own companion."""
    rng = np.random.default_rng(keep)
    values = np.round(rng.random((4, 300)), 2)              # with ties
    companions = values * 10
    store = sig._Largest(4, keep, spare, companions=True)
    for start in range(0, 300, width):
        store.add(slice(1, 3), values[1:3, start:start + width], companions[1:3, start:start + width])
        store.add(slice(0, 1), values[:1, start:start + width], companions[:1, start:start + width])
        store.add(slice(3, 4), values[3:, start:start + width], companions[3:, start:start + width])
    kept, kept_companions = store.largest()
    assert np.array_equal(np.sort(kept, axis=1), np.sort(values, axis=1)[:, -keep:])
    assert np.array_equal(kept_companions, kept * 10)
    for place in (1, keep):
        value, companion = store.rank(place)
        assert np.array_equal(value, np.sort(values, axis=1)[:, -place]) and np.array_equal(companion, value * 10)
