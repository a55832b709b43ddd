"""Help ▸ Measures reference and the measure picker read the registries (any family, any registry)."""

from __future__ import annotations

from evalgui.core.ranked.measures import REGISTRY, Measure
from evalgui.core.registry import Registry, families
from tests import fake_family


def _visible_names(dialog):
    return [dialog.record_of(i).name for i in dialog.record_items() if not i.isHidden()]


def test_reference_shows_family_group_record(qtbot):
    from evalgui.gui.help import MeasuresReference

    dialog = MeasuresReference()
    qtbot.addWidget(dialog)
    ranked = dialog.tree.topLevelItem(0)
    assert ranked.text(0) == REGISTRY.title
    assert [ranked.child(i).text(0) for i in range(ranked.childCount())] == REGISTRY.groups()
    assert [dialog.record_of(i).name for i in dialog.record_items()] == \
        [m.name for f in families() for g in f.groups() for m in f.in_group(g)]
    assert dialog.record_of(dialog.tree.currentItem()) is not None      # something to read at once
    dialog.tree.setCurrentItem(ranked)
    assert REGISTRY.description[:40] in dialog.text.toPlainText()


def test_a_registered_family_appears_in_the_reference_then_goes(qtbot):
    from evalgui.gui.help import MeasuresReference

    with fake_family.registered():
        dialog = MeasuresReference()
        qtbot.addWidget(dialog)
        titles = [dialog.tree.topLevelItem(i).text(0) for i in range(dialog.tree.topLevelItemCount())]
        assert titles == [f.title for f in families()] and titles[-1] == fake_family.FAKE.title
        fake = dialog.tree.topLevelItem(len(titles) - 1)
        assert [fake.child(i).text(0) for i in range(fake.childCount())] == ["Paired tests", "Counts"]
        assert _visible_names(dialog)[-2:] == ["coin_flip", "tally"]

        dialog.search.setText("zyzzyva")                   # the filter reads descriptions of every family
        assert _visible_names(dialog) == ["coin_flip"]
        assert dialog.tree.topLevelItem(0).isHidden() and not fake.isHidden()
        assert fake.child(1).isHidden()                    # the group without a match hides too
        item = next(i for i in dialog.record_items() if not i.isHidden())
        dialog.tree.setCurrentItem(item)
        text = dialog.text.toPlainText()
        assert "Zyzzyva" in text and "p = 0.5" in text and "seed" in text
        dialog.search.setText("tally_fn")                  # other spellings are searched
        assert _visible_names(dialog) == ["tally"]
        dialog.search.clear()
        assert len(_visible_names(dialog)) == sum(len(f) for f in families())
    dialog = MeasuresReference()
    qtbot.addWidget(dialog)
    assert dialog.tree.topLevelItemCount() == len(families())


def test_picker_offers_the_registry_it_is_given(qtbot):
    from PySide6.QtCore import Qt

    from evalgui.gui.measurepicker import MeasurePicker

    small: Registry[Measure] = Registry("ranked", "Two ranked measures")
    for name in ("map", "ndcg_cut", "num_q"):
        small.add(REGISTRY[name])
    picker = MeasurePicker(registry=small)
    qtbot.addWidget(picker)
    assert picker.registry is small
    assert sorted(i.data(0, Qt.ItemDataRole.UserRole) for i in picker._items()) == ["map", "ndcg_cut", "num_q"]
    assert sorted(i.text(0) for i in picker._items()) == ["AP", "NumQ", "nDCG@k"]     # as papers write them
    assert set(picker.specs()) == {"map", "ndcg_cut.10"}        # the defaults it knows
    picker.set_checked({"num_q": "", "P": "5"})                   # P is not in this registry
    assert picker.specs() == ["num_q"]
    assert MeasurePicker().registry is REGISTRY


def test_picker_offers_gdeval_cwl_and_ir_measures_extras_with_help(qtbot):
    from PySide6.QtCore import Qt

    from evalgui.core.ranked.specs import parse_measures
    from evalgui.gui.measurepicker import MeasurePicker

    picker = MeasurePicker()
    qtbot.addWidget(picker)
    items = {i.data(0, Qt.ItemDataRole.UserRole): i for i in picker._items()}
    for name, group in (("err_cut", "Web track (gdeval)"), ("ndcg_exp_cut", "Web track (gdeval)"),
                        ("bpm", "C/W/L user models"), ("inst", "C/W/L user models"), ("nerr11", "C/W/L user models"),
                        ("rbp_cwl", "C/W/L user models"), ("compat", "Gain"), ("accuracy", "Precision")):
        item = items[name]
        assert item.parent().text(0) == group
        assert item.toolTip(0) == REGISTRY[name].help_text and "Formula: " in item.toolTip(0)
    items["bpm"].setText(1, "5,20")                               # a cutoff list, as for P
    items["bpm"].setCheckState(0, Qt.CheckState.Checked)
    items["inst"].setCheckState(0, Qt.CheckState.Checked)
    specs = picker.specs()
    assert "bpm.5,20" in specs and "inst" in specs
    names = [n for r in parse_measures(specs) for n in r.names]
    assert {"bpm_5", "bpm_20", "inst"} <= set(names)
