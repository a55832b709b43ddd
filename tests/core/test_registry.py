"""The registry records and the catalogue of families (evalgui.core.registry)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalgui.core import registry
from evalgui.core.ranked.measures import REGISTRY, Measure
from evalgui.core.registry import Parameter, Record, Registry
from tests import fake_family


def record(name="x", family="f", group="G", **kw):
    return Record(name=name, family=family, group=group, description="d", formula="x", **kw)


# ---------------------------------------------------------------- the ranked family's records

@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_ranked_measure_is_a_complete_record(name):
    m = REGISTRY[name]
    assert isinstance(m, Record) and m.family == "ranked" and m.name == name
    assert m.group.strip() and m.description.strip() and m.formula.strip()
    assert m.direction in ("higher", "lower", None)
    assert m.direction == m.best_direction == (m.better if m.value_type == "float" else None)
    assert m.value_type in ("float", "int", "text")
    assert m.help_text == f"{m.description}\n\nFormula: {m.formula}"
    assert all(isinstance(p, Parameter) and p.name and p.description for p in m.parameters)
    assert bool(m.parameters) == (m.kind.value != "none")
    assert m.aliases == ((("ir_measures", m.ir_name),) if m.ir_name else ())


def test_counts_and_diagnostics_have_no_better_direction():
    assert {n for n, m in REGISTRY.items() if m.direction is None} >= {"num_q", "num_ret", "num_rel", "runid",
                                                                        "unj", "judged", "rbp_resid"}
    assert REGISTRY["map"].direction == "higher"


def test_ranked_registry_is_the_family_and_a_mapping():
    assert registry.family("ranked") is REGISTRY
    assert REGISTRY.key == "ranked" and REGISTRY.title and REGISTRY.description
    assert list(REGISTRY)[:3] == ["runid", "num_q", "num_ret"]          # trec_eval's order
    assert "map" in REGISTRY and "nosuch" not in REGISTRY and REGISTRY.get("nosuch") is None
    assert len(REGISTRY) == len(list(REGISTRY.values())) == len(dict(REGISTRY.items()))
    assert REGISTRY.groups()[:3] == ["Counts", "Average precision", "Precision"]
    assert [m.name for m in REGISTRY.in_group("Recall")] == ["recall"]
    assert all(isinstance(m, Measure) for m in REGISTRY.values())


def test_derived_fields_follow_the_measure_fields():
    p = REGISTRY["P"]
    assert p.parameters[0].default == "5,10,15,20,30,100,200,500,1000"
    assert REGISTRY["utility"].parameters[0].default == "1,-1,0,0"
    assert REGISTRY["judged"].notes and not REGISTRY["map"].notes


# ---------------------------------------------------------------- Registry and Record

def test_registry_keeps_order_and_groups():
    reg = Registry("f", "F")
    for name, group in (("a", "G1"), ("b", "G2"), ("c", "G1")):
        reg.add(record(name, group=group))
    assert list(reg) == ["a", "b", "c"]
    assert reg.groups() == ["G1", "G2"]
    assert [r.name for r in reg.in_group("G1")] == ["a", "c"]


def test_registry_refuses_duplicates_and_strangers():
    reg = Registry("f", "F")
    reg.add(record("a"))
    with pytest.raises(ValueError, match="twice"):
        reg.add(record("a"))
    with pytest.raises(ValueError, match="belongs to family"):
        reg.add(record("b", family="other"))


@pytest.mark.parametrize("bad", [{"direction": "up"}, {"value_type": "complex"}])
def test_record_refuses_unknown_direction_or_type(bad):
    with pytest.raises(ValueError):
        record(**bad)


# ---------------------------------------------------------------- the catalogue

def test_families_lists_ranked_first():
    assert registry.family_keys()[0] == "ranked"
    assert [f.key for f in registry.families()] == registry.family_keys()


@pytest.mark.parametrize("where", ["tests.fake_family:FAKE", fake_family.FAKE])
def test_a_family_is_registered_and_removed(where):
    with fake_family.registered(where):
        assert registry.family_keys()[-1] == fake_family.KEY
        assert registry.families()[-1] is fake_family.FAKE
        with pytest.raises(ValueError, match="already"):
            registry.register_family(fake_family.FAKE)
    assert fake_family.KEY not in registry.family_keys()
    with pytest.raises(KeyError):
        registry.family(fake_family.KEY)


def test_a_location_must_name_the_family_registry():
    registry.register_family("tests.fake_family:FAKE", "other_key")
    try:
        with pytest.raises(TypeError):
            registry.family("other_key")
    finally:
        registry.unregister_family("other_key")


def test_the_catalogue_imports_no_family_until_asked():
    code = ("import sys, evalgui.core.registry as r; keys = r.family_keys(); "
            "assert 'evalgui.core.ranked.measures' not in sys.modules; "
            "r.families(); assert 'evalgui.core.ranked.measures' in sys.modules; print(keys)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "ranked" in proc.stdout
