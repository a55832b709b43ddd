"""Help ▸ Measures reference shows the preference family: its groups, each record's description,
formula, parameter and notes, and finds them by search."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from evalgui.core.ranked.preference import REGISTRY


def _open_reference(qtbot, window):
    from evalgui.gui.help import MeasuresReference

    action = next(a for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    entry = next(a for a in action.menu().actions() if a.text() == "Measures reference")
    entry.trigger()
    qtbot.waitUntil(lambda: any(isinstance(w, MeasuresReference) and w.isVisible()
                                for w in QApplication.topLevelWidgets()))
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MeasuresReference) and w.isVisible())
    qtbot.addWidget(dialog)
    return dialog


def test_the_reference_lists_the_preference_family(qtbot, window):
    dialog = _open_reference(qtbot, window)
    tops = {dialog.tree.topLevelItem(i).text(0): dialog.tree.topLevelItem(i)
            for i in range(dialog.tree.topLevelItemCount())}
    family = tops[REGISTRY.title]
    groups = [family.child(i) for i in range(family.childCount())]
    assert [g.text(0) for g in groups] == ["Recall-paired preference", "Lexicographic"]
    assert [groups[0].child(i).text(0) for i in range(groups[0].childCount())][:3] == \
        ["rpp  (RPP)", "dcgrpp  (DCGPP)", "invrpp  (INVPP)"]
    # then the subtopic variants (ST-RPP)
    assert [groups[0].child(i).text(0).split()[0] for i in range(3, groups[0].childCount())] == ["st_rpp", "st_rpp_rel"]

    dialog.tree.setCurrentItem(groups[0].child(1))
    text = dialog.text.toPlainText()
    assert "Recall-Paired Preference with DCG weights" in text
    assert "w_i = (1/log2(i+1)) / sum_j 1/log2(j+1)" in text and "Graded: RPP = sum_g m_g RPP_g" in text
    assert "binary threshold" in text and "pref_eval" in text
    dialog.tree.setCurrentItem(family)
    assert "positive when the first run (the row of a preference matrix)" in dialog.text.toPlainText()

    dialog.search.setText("worst-case")                 # the filter reads the family's descriptions
    visible = [dialog.record_of(i).name for i in dialog.record_items() if not i.isHidden()]
    assert visible == ["lexirecall"]
