"""A tiny family of records for tests: shows that a new family reaches the CLI and the help with one line."""

from __future__ import annotations

import contextlib

from evalgui.core.registry import Parameter, Record, Registry, register_family, unregister_family

KEY = "fake_tests"
FAKE: Registry[Record] = Registry(KEY, "Fake significance tests", "Only for evalgui's own tests.")
FAKE.add(Record(name="coin_flip", family=KEY, group="Paired tests",
                description="Zyzzyva statistic: flips a coin per query. Never use it.",
                formula="p = 0.5", direction="lower", parameters=(Parameter("seed", "random seed", "42"),)))
FAKE.add(Record(name="tally", family=KEY, group="Counts", description="How many queries were flipped.",
                formula="|Q|", direction=None, value_type="int", aliases=(("scipy", "tally_fn"),)))


@contextlib.contextmanager
def registered(where="tests.fake_family:FAKE"):
    """The fake family in the catalogue for the duration (by location, imported lazily, or as a Registry)."""
    register_family(where, KEY)
    try:
        yield FAKE
    finally:
        unregister_family(KEY)
