"""First steps: each workspace's sample data, the hint an empty workspace shows, and the demo.

:data:`SAMPLES` says, per workspace key, what to load (in words, for the hint), which sample files
show it, and how to set the workspace's form once they are loaded. The empty-state hint
(:class:`EmptyHint`, placed by ``Workspace.lay_out``) and its "Open the sample …" button, and the
demo (:class:`DemoTour`: every workspace's sample loaded, then each Run pressed in turn) all read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QTimer, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

HINT_STYLE = ("QFrame#emptyHint { background: palette(alternate-base); border: 1px solid palette(mid); "
              "border-radius: 4px; }")


def _sample(*parts: str) -> str:
    from evalgui.core.resources import sample_data

    return os.path.abspath(str(sample_data(*parts)))


def synthetic_files() -> list[tuple[str, str]]:
    """The synthetic collection: graded qrels (50 queries) and four runs of different quality."""
    return [(_sample("synthetic", "qrels.txt"), "qrels")] + \
        [(_sample("synthetic", f"{name}.run"), "run") for name in ("bm25", "dense", "rerank", "random")]


def tutorial_files() -> list[tuple[str, str]]:
    """The tutorial's worked example (MEIC): its own qrels and two runs."""
    return [(_sample("meic", "information_systems.qrels"), "qrels"),
            (_sample("meic", "base.run"), "run"), (_sample("meic", "enhanced.run"), "run")]


RANK_FILE_TOTAL = 5000     # make_ranks.py: the systems ranked a list of 5,000 items (the per-mille measures' T)


def rank_files() -> list[tuple[str, str]]:
    return [(_sample("rankfile", "citations.tsv"), "rank file")]


def case_base_files() -> list[tuple[str, str]]:
    return [(_sample("cbr", "cars.csv"), "case base"), (_sample("cbr", "queries.csv"), "case base")]


# ---------------------------------------------------------------------------- setting each form
def _prepare_ranked(ws) -> None:
    ws.set_qrels(synthetic_files()[0][0])


def _prepare_compare(ws) -> None:
    """The synthetic qrels and its four runs, with Recall-Paired Preference: the demo fills the Preferences tab
    (and the demo project's report its preference matrix) too."""
    ws.restore_form_state({"source": "runs", "qrels": synthetic_files()[0][0], "preferences": {"rpp": True}})


def _prepare_metaeval(ws) -> None:
    # Discriminative power: quick, and it reads like the compare tab's tests it rests on.
    ws.restore_form_state({"qrels": synthetic_files()[0][0], "experiment": "power"})


def _prepare_stability(ws) -> None:
    ws.form.set_rank_file(rank_files()[0][0])
    ws.restore_form_state({"total_ranks": RANK_FILE_TOTAL})


def _prepare_casebase(ws) -> None:
    cars, queries = (path for path, _ in case_base_files())
    ws.restore_form_state({"source": "case_bases", "train": cars, "test": queries,
                           "filter_sizes": "3, 6", "ks": "3, 3"})
    ws.form.load_model(_sample("cbr", "model.json"))
    ws.form.set_mac_file(_sample("cbr", "mac_model.json"))


@dataclass(frozen=True)
class Sample:
    hint: str                                      # what to load, in one or two sentences
    button: str                                    # the button that opens the sample
    files: Callable[[], list[tuple[str, str]]]     # (path, kind) to load
    prepare: Callable[[object], None]              # set the workspace's form once the files are loaded


SAMPLES: dict[str, Sample] = {
    "ranked": Sample(
        "Load relevance judgments (qrels) and one or more runs in TREC format with File ▸ Open data… or by "
        "dropping them on the window, tick the measures, then press Run.",
        "Open the sample qrels and runs", lambda: synthetic_files() + tutorial_files(), _prepare_ranked),
    "compare": Sample(
        "Compare needs at least two runs and the qrels they were judged against (or a per-query scores table). "
        "Tick the runs and measures, choose a test, then press Run.",
        "Open the sample runs", synthetic_files, _prepare_compare),
    "metaeval": Sample(
        "Meta-evaluation asks how far you can trust a measure: load qrels and at least two runs, choose an "
        "experiment, then press Run.",
        "Open the sample runs", synthetic_files, _prepare_metaeval),
    "stability": Sample(
        "Load a rank file: one row per test entity, the rank each system gave it (or qrels and runs), tick "
        "the measures, then press Run.",
        "Open the sample rank file", rank_files, _prepare_stability),
    "casebase": Sample(
        "Load a case base to retrieve from and the queries (CSV, one case per row), choose or build the "
        "similarity model, then press Run.",
        "Open the sample case bases", case_base_files, _prepare_casebase),
}


def missing_sample_files() -> list[str]:
    return [path for sample in SAMPLES.values() for path, _ in sample.files() if not os.path.exists(path)]


def all_sample_files(keys=None) -> list[tuple[str, str]]:
    """The samples' files of these workspaces (all: None), once each, in workspace order (the demo loads them
    in one batch)."""
    seen, files = set(), []
    for key, sample in SAMPLES.items():
        if keys is not None and key not in keys:
            continue
        for path, kind in sample.files():
            if path not in seen:
                seen.add(path)
                files.append((path, kind))
    return files


# ---------------------------------------------------------------------------- the empty-state hint
class EmptyHint(QFrame):
    """Above an empty workspace's results: what to load, and a button that opens the sample."""

    open_sample = Signal()

    def __init__(self, sample: Sample, parent=None):
        super().__init__(parent)
        self.sample = sample
        self.setObjectName("emptyHint")
        self.setStyleSheet(HINT_STYLE)
        self.label = QLabel(sample.hint)
        self.label.setObjectName("emptyHintText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton(sample.button)
        self.button.setObjectName("openSampleButton")
        self.button.clicked.connect(self.open_sample)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)

    def show_for(self, has_results: bool, sample_loaded: bool) -> None:
        """Hidden once there are results; "press Run" once the sample is loaded and chosen."""
        self.setVisible(not has_results)
        if sample_loaded:
            self.label.setText("The sample is loaded and chosen in the form: press Run to evaluate it.")
        else:
            self.label.setText(self.sample.hint)
        self.button.setVisible(not sample_loaded)


# ---------------------------------------------------------------------------- the demo
class DemoTour(QObject):
    """Load every workspace's sample, then press each workspace's Run in turn, one job after another.

    Each step waits for the previous workspace's job to end (its ``busy_changed(False)``), so the GUI
    thread never blocks. ``finished(failed)`` names the workspaces that ended without results."""

    finished = Signal(list)

    def __init__(self, window, parent=None):
        super().__init__(parent or window)
        self.window = window
        self.pending: list[str] = []
        self.failed: list[str] = []
        self.running = False

    def start(self, keys=None) -> None:
        """Load the samples, then evaluate them in these workspaces (None: all), in tab order."""
        self.running = True
        self.pending = [key for key in SAMPLES if key in self.window.workspaces and (keys is None or key in keys)]
        self.failed = []
        for key in self.pending:        # the demo as it is meant: its forms say what the samples need, the rest
            self.window.workspaces[key].reset_form()       # at the defaults, never a value from earlier
        self.window.load_files(all_sample_files(self.pending), then=self._next, remember=False)

    def _next(self) -> None:
        if not self.running:
            return
        if not self.pending:
            self._end()
            return
        key = self.pending.pop(0)
        ws = self.window.workspaces[key]
        SAMPLES[key].prepare(ws)
        ws.update_empty_hint()
        self._run_when_read(ws)

    def _run_when_read(self, ws) -> None:
        """Press Run once the files the form reads on the worker (a model file) have arrived: a Run before
        would evaluate the form's earlier settings."""
        if not self.running:
            return
        reading = getattr(ws.form, "reading_files", None)
        if reading is not None and reading():
            QTimer.singleShot(20, lambda: self._run_when_read(ws))
            return
        ws.run()
        if not ws.is_busy():          # refused (the dialog says why): on to the next
            self._step_over(ws)
            return

        def ended(busy: bool) -> None:
            if busy:
                return
            ws.busy_changed.disconnect(ended)
            self._step_over(ws)
        ws.busy_changed.connect(ended)

    def _step_over(self, ws) -> None:
        if not ws.has_results():
            self.failed.append(ws.title)
        self._next()

    def stop(self) -> None:
        """Another session replaces the demo's (a project was opened): run no further step."""
        if self.running:
            self.pending = []
            self._end()

    def _end(self) -> None:
        self.running = False
        self.finished.emit(list(self.failed))
