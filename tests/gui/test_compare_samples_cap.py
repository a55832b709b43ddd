"""The Compare form's Samples B stops where the engine does."""

from evalgui.core.stats.catalogue import MAX_SAMPLES


def test_the_samples_spin_box_stops_at_the_engines_maximum(window):
    spin = window.workspaces["compare"].form.samples_spin
    assert spin.maximum() == MAX_SAMPLES
    spin.setValue(MAX_SAMPLES + 1)
    assert spin.value() == MAX_SAMPLES
