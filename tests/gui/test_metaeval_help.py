"""Help ▸ Measures reference shows the meta-evaluation experiments: each one's description, formula
and parameters, found by search."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from evalgui.core.metaeval.catalogue import EXPERIMENTS


def _open_reference(qtbot, window):
    from evalgui.gui.help import MeasuresReference

    menu = next(a for a in window.menuBar().actions() if a.text().replace("&", "") == "Help").menu()
    next(a for a in menu.actions() if a.text() == "Measures reference").trigger()
    qtbot.waitUntil(lambda: any(isinstance(w, MeasuresReference) and w.isVisible()
                                for w in QApplication.topLevelWidgets()))
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MeasuresReference) and w.isVisible())
    qtbot.addWidget(dialog)
    return dialog


def test_the_reference_lists_the_experiments(qtbot, window, tmp_path):
    dialog = _open_reference(qtbot, window)
    tops = {dialog.tree.topLevelItem(i).text(0): dialog.tree.topLevelItem(i)
            for i in range(dialog.tree.topLevelItemCount())}
    family = tops[EXPERIMENTS.title]
    group = family.child(0)
    assert [group.child(i).text(0) for i in range(group.childCount())] == \
        ["stability", "power", "robustness", "agreement"]

    dialog.tree.setCurrentItem(group.child(0))
    text = dialog.text.toPlainText()
    assert "Buckley & Voorhees, SIGIR 2000" in text and "error rate = Σ min(b, w) / Σ (b + w + e)" in text
    assert "fuzziness" in text and "0.05" in text
    dialog.tree.setCurrentItem(family)
    assert "robust to missing judgments" in dialog.text.toPlainText()

    dialog.search.setText("Buckley")                     # the filter reads the experiments' descriptions
    visible = [dialog.record_of(i).name for i in dialog.record_items() if not i.isHidden()]
    assert visible == ["stability", "robustness"]
    dialog.search.clear()
    dialog.tree.setCurrentItem(group.child(2))
    dialog.grab().save(str(tmp_path / "reference.png"))
