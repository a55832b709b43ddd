"""Drive evalgui offscreen and save the README's screenshots to docs/screenshots/.

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py

At a laptop's 1366×768 (the README's). To check other screens without touching the README's
pictures: SCREENSHOT_SIZE=2732x1536 QT_SCALE_FACTOR=2 SCREENSHOT_OUT=/tmp/shots, and SCREENSHOT_DARK=1
for a dark palette.

It opens the demo, waits for the evaluation, then grabs the window on each
results tab. The fonts are whatever the machine has (offscreen Qt uses
fontconfig), so run it where a normal sans-serif font is installed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

OUT = Path(os.environ.get("SCREENSHOT_OUT") or Path(__file__).resolve().parent / "screenshots")
SIZE = tuple(int(v) for v in os.environ.get("SCREENSHOT_SIZE", "1366x768").split("x"))


def dark_palette():
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#2f2f2f"),
                         (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#353535"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#2a82da"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#353535"),
                         (QPalette.ColorRole.ToolTipText, "#e6e6e6"), (QPalette.ColorRole.PlaceholderText, "#9a9a9a")):
        palette.setColor(role, QColor(colour))
    # As a desktop's dark theme does: disabled text greyed, and the shades Fusion draws frames and boxes with.
    disabled = QPalette.ColorGroup.Disabled
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(disabled, role, QColor("#7a7a7a"))
    for role, colour in ((QPalette.ColorRole.Light, "#5a5a5a"), (QPalette.ColorRole.Midlight, "#484848"),
                         (QPalette.ColorRole.Mid, "#3a3a3a"), (QPalette.ColorRole.Dark, "#202020"),
                         (QPalette.ColorRole.Shadow, "#141414")):
        palette.setColor(role, QColor(colour))
    return palette


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("EVALGUI_SETTINGS", os.path.join(tempfile.mkdtemp(), "settings.ini"))
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from evalgui.core.resources import sample_data
    from evalgui.gui.mainwindow import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    if os.environ.get("SCREENSHOT_DARK"):
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    from evalgui.gui.style import install

    install(app)                # as evalgui's own start does
    window = MainWindow()
    # (a screenshot script answers the closing questions itself: nobody is there to click)
    from PySide6.QtWidgets import QMessageBox

    window.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    window.ask_stop_job = lambda then: True
    window.resize(*SIZE)
    window.show()
    OUT.mkdir(parents=True, exist_ok=True)

    def settle(ms: int = 300) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def shoot(name: str) -> None:
        settle()
        window.grab().save(str(OUT / f"{name}.png"))
        print("wrote", OUT / f"{name}.png")

    def finished(workspace, start) -> None:
        """Call ``start()`` and wait until ``workspace``'s job is over."""
        loop = QEventLoop()
        workspace.busy_changed.connect(lambda busy: None if busy else loop.quit())
        QTimer.singleShot(60_000, loop.quit)
        start()
        loop.exec()
        settle(500)

    shoot("welcome")
    ranked = window.workspaces["ranked"]
    finished(ranked, lambda: window.open_demo(only=["ranked"]))
    tabs = ranked.results_tabs
    views = {"summary": ranked.summary, "per_query": ranked.per_query, "precision_recall": ranked.curves,
             "differences": ranked.differences, "run_matrix": ranked.run_matrix, "drill_down": ranked.drill_down}
    for name, view in views.items():
        tabs.setCurrentWidget(view.page)
        if name == "per_query":
            ranked.per_query.view.sortByColumn(1, ranked.per_query.view.horizontalHeader().sortIndicatorOrder())
        if name == "run_matrix":
            view.measure.setCurrentIndex(max(view.measure.findData("map"), 0))
        shoot(name)

    # Compare systems: the demo's four runs, randomization test, the matrix of P@10 differences.
    compare = window.workspaces["compare"]
    window.tabs.setCurrentWidget(compare)
    settle()
    compare.form.test_combo.setCurrentIndex(compare.form.test_combo.findData("randomization"))
    finished(compare, compare.run)
    compare.results_tabs.setCurrentWidget(compare.matrix.page)
    compare.matrix.measure.setCurrentIndex(max(compare.matrix.measure.findData("P_10"), 0))
    shoot("compare")

    # Preferences between the demo's runs (Recall-Paired Preference, lexicographic precision), the ranking below.
    for name in ("rpp", "lexiprecision"):
        compare.form.preference_list.set_checked(name, True)
    finished(compare, compare.run)
    compare.results_tabs.setCurrentWidget(compare.preference_view.page)
    shoot("compare_preferences")

    # Meta-evaluation: stability of the demo's measures, error rate against the query-set size.
    metaeval = window.workspaces["metaeval"]
    window.tabs.setCurrentWidget(metaeval)
    settle()
    finished(metaeval, metaeval.run)
    metaeval.results_tabs.setCurrentWidget(metaeval.set_size.page)
    shoot("metaeval")

    # Measure stability: the demo's runs as ranks of their relevant documents (rank statistics: pooled from
    # 50 queries, precision measures are 1 for every run), error rate against tie rate.
    stability = window.workspaces["stability"]
    window.tabs.setCurrentWidget(stability)
    form = stability.form
    form.source_combo.setCurrentIndex(form.source_combo.findData("trec"))
    form.picker.tick_only(["Average", "Median", "Average@10", "Average@20", "Average@50", "Average@Avg",
                           "Median@50", "nDCG@Avg", "nDCG@10"])
    form.splits_edit.setText("5, 10, 20")
    form.iterations_spin.setValue(20)
    form.bootstrap_spin.setValue(500)
    settle()
    finished(stability, stability.run)
    stability.results_tabs.setCurrentWidget(stability.tradeoff.page)
    shoot("stability")

    # Case-based retrieval: the used cars, ProCAKE-style MAC/FAC sweep, the quality-versus-time chart.
    cbr = sample_data("cbr")
    loaded = QEventLoop()
    window.files_loaded.connect(loaded.quit)
    window.load_files([(str(cbr / "cars.csv"), None), (str(cbr / "queries.csv"), None)])
    loaded.exec()
    casebase = window.workspaces["casebase"]
    window.tabs.setCurrentWidget(casebase)
    form = casebase.form
    form.test_combo.setCurrentIndex(form.test_combo.findData(str(cbr / "queries.csv")))
    form.load_model(str(cbr / "model.json"))
    form.set_mac_file(str(cbr / "mac_model.json"))
    form.filter_sizes.setText("3,6,10")
    form.ks.setText("3,3,5")
    finished(casebase, casebase.run)
    casebase.results_tabs.setCurrentWidget(casebase.chart.page)
    casebase.chart.metric.setCurrentIndex(max(casebase.chart.metric.findData("quality_mueller"), 0))
    shoot("casebase")
    window.ask_before_discarding = False      # closing would otherwise ask, offscreen, whether to save the project
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
