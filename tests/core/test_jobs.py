"""The job state every long engine job takes: throttled progress, partial results, cancel."""

import pytest

from evalgui.core.jobs import NO_STATE, Cancelled, JobState


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_is_throttled_but_the_first_and_last_reports_pass():
    clock, seen = Clock(), []
    state = JobState(lambda f, m: seen.append((f, m)), clock=clock)
    for i in range(100):                       # 100 reports within 10 ms
        clock.now = i * 0.0001
        state.progress(i / 100, f"step {i}")
    state.progress(1.0, "done")
    assert seen == [(0.0, "step 0"), (1.0, "done")]


def test_at_most_twenty_reports_a_second():
    clock, seen = Clock(), []
    state = JobState(lambda f, m: seen.append(f), clock=clock)
    for i in range(1000):                      # one report a millisecond for a second
        clock.now = i / 1000
        state.progress(i / 1000)
    assert 19 <= len(seen) <= 21


def test_fractions_are_clamped():
    seen = []
    state = JobState(lambda f, m: seen.append(f), min_interval=0)
    state.progress(-0.5)
    state.progress(3)
    assert seen == [0.0, 1.0]


def test_partial_results_and_cancel():
    got, stop = [], [False]
    state = JobState(on_partial=got.append, is_cancelled=lambda: stop[0])
    state.partial("a")
    state.check()
    stop[0] = True
    assert state.cancelled()
    with pytest.raises(Cancelled):
        state.check()
    assert got == ["a"]


def test_a_scaled_state_maps_a_step_onto_its_share_and_prefixes_messages():
    seen = []
    state = JobState(lambda f, m: seen.append((round(f, 3), m)), min_interval=0)
    step = state.scaled(0.5, 0.75, "Run 2 of 4: ")
    step.progress(0.0, "Ranking")
    step.progress(1.0, "Done")
    assert seen == [(0.5, "Run 2 of 4: ranking"), (0.75, "Run 2 of 4: done")]


def test_a_scaled_state_shares_cancel_and_partials():
    got = []
    state = JobState(on_partial=got.append, is_cancelled=lambda: True)
    step = state.scaled(0, 1)
    step.partial(1)
    with pytest.raises(Cancelled):
        step.check()
    assert got == [1]


def test_the_default_state_ignores_everything():
    NO_STATE.progress(0.5, "x")
    NO_STATE.partial(1)
    NO_STATE.check()
    assert not NO_STATE.cancelled()
