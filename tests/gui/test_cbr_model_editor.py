"""The similarity model editor's measure forms, driven through their widgets: no JSON is typed anywhere; each
measure's form reads and writes the model file's parameters, invalid fields are red with a reason and block the
model, a new train case base keeps what it can and marks the rest, and a model file survives the editor."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES
from evalgui.core.cbr.model import SimilarityModel, load_model
from evalgui.core.errors import EvalInputError
from evalgui.core.inputs.case_base import read_case_base
from evalgui.gui.workspaces.casebase.measure_forms import FORMS, NoSettings
from evalgui.gui.workspaces.casebase.model_editor import DELIMITER, MEASURE, SETTINGS, TYPE, WEIGHT, ModelEditor
from tests.gui.conftest import SAMPLE_DATA

CBR = SAMPLE_DATA / "cbr"


@pytest.fixture
def cars():
    return read_case_base(CBR / "cars.csv")


@pytest.fixture
def editor(qtbot, cars):
    editor = ModelEditor()
    qtbot.addWidget(editor)
    editor.set_case_base(cars)
    editor.set_model(load_model(CBR / "model.json", cars))
    editor.resize(1000, 700)
    return editor


def _shown(qtbot, editor, attribute):
    """The attribute's settings, shown as when its row is clicked (a plot is drawn when first shown)."""
    editor.show()
    qtbot.waitExposed(editor)
    editor.table.setCurrentCell(editor.row_of(attribute), 0)
    form = editor.form(attribute)
    assert form.isVisible()
    return form


def _model(editor) -> dict:
    return {a.name: a for a in editor.model().attributes}


def _choose_measure(editor, attribute, measure):
    combo = editor.widget(editor.row_of(attribute), MEASURE)
    combo.setCurrentIndex(combo.findData(measure))


# ---------------------------------------------------------------------------- no JSON, one form per measure
def test_every_parameterised_measure_has_its_own_form_and_no_text_box_takes_json(editor):
    with_parameters = {name for name, record in LOCAL_SIMILARITIES.items() if record.parameters}
    assert with_parameters <= set(FORMS)
    # the table's settings column is a plain-words summary, not a text box
    for row in range(editor.table.rowCount()):
        assert editor.widget(row, SETTINGS) is None
        assert "{" not in editor.table.item(row, SETTINGS).text()
    for line in editor.findChildren(QLineEdit):
        assert "{" not in line.text() and "{" not in line.placeholderText()
    assert editor.table.item(editor.row_of("year"), SETTINGS).text() == "higher is better, range 6"
    assert editor.table.item(editor.row_of("power"), SETTINGS).text() == "α = 0.02"
    assert editor.table.item(editor.row_of("price"), SETTINGS).text() == "range from the data"


def test_choosing_a_row_shows_its_form(editor):
    editor.table.setCurrentCell(editor.row_of("power"), 0)
    assert editor.stack.currentWidget() is editor.form("power")
    assert "power" in editor.settings_box.title()
    editor.table.setCurrentCell(editor.row_of("features"), 0)
    assert isinstance(editor.stack.currentWidget(), NoSettings)


def test_linear_range_spin_box_and_from_the_data(qtbot, editor):
    form = editor.form("mileage")
    assert not form.range.automatic.isChecked() and form.range.box.value() == 100000
    form.range.box.setValue(50000)
    assert _model(editor)["mileage"].parameters == {"range": 50000}
    form.range.automatic.setChecked(True)
    assert not form.range.box.isEnabled()
    assert _model(editor)["mileage"].parameters == {}
    price = editor.form("price")            # no range in the file: from the data, the span shown in the tip
    assert price.range.automatic.isChecked() and "train case base" in price.range.automatic.toolTip()


def test_asymmetric_higher_or_lower_is_better(editor):
    form = editor.form("year")
    assert form.more.isChecked() and form.range.box.value() == 6
    form.less.setChecked(True)
    assert _model(editor)["year"].parameters == {"better": "less", "range": 6}
    assert editor.table.item(editor.row_of("year"), SETTINGS).text() == "lower is better, range 6"


def test_exponential_alpha_redraws_its_curve(qtbot, editor):
    assert editor.form("power").plot is None           # not drawn until shown: loading a model stays quick
    form = _shown(qtbot, editor, "power")
    x, y = form.curve.getData()
    assert y[0] == 1.0 and y[-1] == pytest.approx(np.exp(-0.02 * x[-1]))
    assert x[-1] == pytest.approx(editor.context("power").span)       # over the attribute's span
    form.alpha.setValue(0.1)
    x, y = form.curve.getData()
    assert y[-1] == pytest.approx(np.exp(-0.1 * x[-1]))
    assert _model(editor)["power"].parameters == {"alpha": 0.1}


def test_threshold_form(editor):
    _choose_measure(editor, "power", "threshold")
    form = editor.form("power")
    assert type(form).__name__ == "ThresholdForm" and _model(editor)["power"].parameters == {}
    form.threshold.setValue(15)
    assert _model(editor)["power"].parameters == {"threshold": 15}
    assert editor.table.item(editor.row_of("power"), SETTINGS).text() == "similar within 15"


def test_another_measure_and_back_keeps_the_settings(editor):
    editor.form("power").alpha.setValue(0.3)
    _choose_measure(editor, "power", "linear")
    assert _model(editor)["power"].parameters == {}
    _choose_measure(editor, "power", "exponential")
    assert editor.form("power").alpha.value() == 0.3 and _model(editor)["power"].parameters == {"alpha": 0.3}


def test_levenshtein_case_checkbox(editor):
    form = editor.form("model")
    assert not form.case_sensitive.isChecked()
    form.case_sensitive.setChecked(True)
    assert _model(editor)["model"].parameters == {"case_sensitive": True}     # given by the file: kept


def test_equality_lists_the_values_of_the_case_base(editor, cars):
    form = editor.form("make")
    values = [form.values.item(i).text() for i in range(form.values.count())]
    assert values == sorted({str(v).strip() for v in cars.cells["make"] if v})
    assert "VW" in values


def test_table_grid_reads_and_writes_the_similarity_table(qtbot, editor):
    form = editor.form("body")
    # rows and columns: the case base's values; the file's pairs in their cells, the rest empty
    assert {"hatchback", "saloon", "estate", "suv"} <= set(form.names)
    assert form.cell("hatchback", "saloon").text() == "0.5" and form.cell("estate", "suv").text() == "0.6"
    assert form.cell("saloon", "hatchback").text() == ""
    form.cell("suv", "hatchback").setText("0.3")
    form.symmetric.setChecked(False)
    form.default.setValue(0.1)
    assert _model(editor)["body"].parameters == {
        "table": {"hatchback": {"saloon": 0.5}, "estate": {"suv": 0.6, "saloon": 0.4}, "suv": {"hatchback": 0.3}},
        "symmetric": False, "default": 0.1}
    # a value the case base does not hold yet
    form.new_value.setText("pickup")
    qtbot.mouseClick(form.add_button, Qt.MouseButton.LeftButton)
    assert form.grid.rowCount() == form.grid.columnCount() == len(form.names) and form.names[-1] == "pickup"
    form.cell("pickup", "suv").setText("0.7")
    assert _model(editor)["body"].parameters["table"]["pickup"] == {"suv": 0.7}


# ---------------------------------------------------------------------------- inline validation
def test_a_table_cell_out_of_range_is_red_with_a_reason_and_blocks_the_model(editor):
    form = editor.form("body")
    cell = form.cell("hatchback", "saloon")
    cell.setText("1.5")
    assert cell.toolTip() == "1.5 is not between 0 and 1" and cell.background().color().name() == "#fdecea"
    summary = editor.table.item(editor.row_of("body"), SETTINGS)
    assert "hatchback → saloon" in summary.text() and summary.foreground().color().name() == "#c62828"
    assert "'body'" in editor.problem_label.text() and editor.problem_label.isVisibleTo(editor)
    with pytest.raises(EvalInputError, match="not between 0 and 1"):
        editor.model()
    cell.setText("abc")
    assert cell.toolTip() == "'abc' is not a number" and editor.problem() is not None
    cell.setText("0.25")
    assert cell.toolTip() == "" and editor.problem() is None and not editor.problem_label.isVisibleTo(editor)
    assert _model(editor)["body"].parameters["table"]["hatchback"] == {"saloon": 0.25}


def test_a_zero_range_or_alpha_is_red_and_blocks_the_model(editor):
    saves = []
    editor.save_failed.connect(lambda title, message: saves.append(message))
    alpha = editor.form("power").alpha
    alpha.setValue(0)
    assert alpha.property("invalid") and alpha.toolTip() == "α must be above 0"
    assert "#c62828" in alpha.styleSheet()
    editor.save_dialog()
    assert saves and "power" in saves[0]
    alpha.setValue(0.5)
    assert not alpha.property("invalid") and alpha.styleSheet() == ""
    box = editor.form("mileage").range.box
    box.setValue(0)
    assert box.property("invalid") and "above 0" in editor.problem()
    box.setValue(10)
    assert editor.problem() is None


# ---------------------------------------------------------------------------- the train case base changes
def test_a_new_train_case_base_keeps_what_it_has_and_marks_the_rest(qtbot, editor, cars, tmp_path):
    editor.form("year").less.setChecked(True)
    editor.widget(editor.row_of("make"), WEIGHT).setValue(4)
    # another case base: no 'power' nor 'features', a new 'colour'
    other = tmp_path / "other.csv"
    other.write_text("id,make,body,fuel,price,year,mileage,model,colour\n"
                     "1,VW,suv,petrol,10000,2018,50000,Golf,red\n2,Audi,saloon,diesel,20000,2020,30000,A4,blue\n")
    editor.set_case_base(read_case_base(other))
    assert editor.missing == {"power", "features"}
    assert editor.form("year").better() == "less" and editor.widget(editor.row_of("make"), WEIGHT).value() == 4
    assert editor.form("power").alpha.value() == 0.02                   # still there, marked
    power = editor.table.item(editor.row_of("power"), 0)
    assert power.font().strikeOut() and "Not a column of" in power.toolTip()
    assert power.foreground().color().name() == "#c62828"
    assert editor.remove_missing_button.isVisibleTo(editor)
    assert "'features', 'power' are not columns of the train case base" in editor.problem()
    colour = editor.table.item(editor.row_of("colour"), 0)
    assert "New with this train case base" in colour.toolTip()
    assert editor.widget(editor.row_of("colour"), TYPE).currentText() == "categorical"
    qtbot.mouseClick(editor.remove_missing_button, Qt.MouseButton.LeftButton)
    assert editor.problem() is None and "power" not in editor.model().names
    assert not editor.remove_missing_button.isVisibleTo(editor)
    assert editor.model().names[-1] == "colour" and _model(editor)["year"].parameters["better"] == "less"
    # back to the cars: the colour it brought is the one marked now
    editor.set_case_base(cars)
    assert editor.missing == {"colour"}


# ---------------------------------------------------------------------------- the file format
@pytest.mark.parametrize("name", ["model.json", "mac_model.json"])
def test_a_model_file_goes_through_the_editor_unchanged(qtbot, cars, tmp_path, name):
    original = load_model(CBR / name, cars)
    editor = ModelEditor()
    qtbot.addWidget(editor)
    editor.set_case_base(cars)
    editor.set_model(original)
    for row in range(editor.table.rowCount()):        # every form built and shown once
        editor.table.setCurrentCell(row, 0)
    assert editor.model().attributes == original.attributes
    # saved, it is JSON again, and loads to the same model
    editor.model().save(tmp_path / "saved.json")
    json.loads((tmp_path / "saved.json").read_text())
    assert load_model(tmp_path / "saved.json").attributes == original.attributes
    # the project's state (to_dict) reads back to the same model too
    assert SimilarityModel.from_dict(editor.to_dict()).attributes == original.attributes


def test_a_model_without_a_case_base_loads_and_shows_its_settings(qtbot):
    editor = ModelEditor()
    qtbot.addWidget(editor)
    editor.set_model(load_model(CBR / "model.json"))
    assert editor.problem() is None
    assert editor.form("body").cell("estate", "suv").text() == "0.6"
    assert _shown(qtbot, editor, "power").curve.getData()[0][-1] == pytest.approx(150)      # 3 / alpha


def test_the_measure_menus_show_plain_names_and_the_model_file_keeps_the_code_names(qtbot, editor, tmp_path):
    from evalgui.core.cbr.catalogue import MEASURES_BY_TYPE
    from tests.gui.test_plain_words import offending_words

    for row in range(editor.table.rowCount()):
        kind, combo = editor.widget(row, TYPE).currentText(), editor.widget(row, MEASURE)
        shown = [combo.itemText(i) for i in range(combo.count())]
        assert [combo.itemData(i) for i in range(combo.count())] == list(MEASURES_BY_TYPE[kind])
        assert not any(offending_words(text) for text in shown), shown
    features = editor.widget(editor.row_of("features"), MEASURE)
    assert features.currentText() == "Jaccard index" and features.currentData() == "jaccard_index"
    model = editor.widget(editor.row_of("model"), MEASURE)
    assert [model.itemText(i) for i in range(model.count())] == ["Normalized Levenshtein", "Token Jaccard index",
                                                                 "Equality"]
    _choose_measure(editor, "model", "token_jaccard_index")
    path = tmp_path / "model.json"
    editor.model().save(str(path))
    saved = {a["name"]: a["measure"] for a in json.loads(path.read_text())["attributes"]}
    assert saved["features"] == "jaccard_index" and saved["model"] == "token_jaccard_index"
    # a measure the menu does not offer for the type (kept from the file) is shown in plain words too
    ModelEditor._fill_measures(model, "text", "jaccard_index")
    assert model.currentText() == "Jaccard index" and model.currentData() == "jaccard_index"


# ---------------------------------------------------------------------------- a laptop's narrow form column
def _sideways(view) -> bool:
    return view.horizontalScrollBar().maximum() > 0 or view.horizontalHeader().length() > view.viewport().width()


def test_the_table_fits_a_narrow_column_and_the_details_are_under_it(qtbot, editor):
    """Issue 25 point 2, issue 24 point 4: in a laptop's form column the table keeps Attribute, Measure and
    Weight; the type and a set's separator are in the panel under the table, for the chosen row."""
    editor.show()
    editor.resize(290, 700)
    qtbot.waitUntil(lambda: editor.table.isColumnHidden(SETTINGS))
    assert not _sideways(editor.table)
    shown = [editor.table.horizontalHeaderItem(c).text() for c in range(editor.table.columnCount())
             if not editor.table.isColumnHidden(c)]
    assert shown == ["Attribute", "Measure", "Weight"]
    for row in range(editor.table.rowCount()):
        for column in (MEASURE, WEIGHT):          # the cells' boxes within the table's width
            rect = editor.table.visualRect(editor.table.model().index(row, column))
            assert rect.right() <= editor.table.viewport().width()
    # the chosen row's type (and, for a set, where its values split) above its measure's settings
    editor.table.setCurrentCell(editor.row_of("features"), 0)
    kind, delimiter = editor.widget(editor.row_of("features"), TYPE), editor.widget(editor.row_of("features"),
                                                                                     DELIMITER)
    assert kind.isVisible() and kind.currentText() == "set" and delimiter.isVisible() and delimiter.isEnabled()
    assert editor.settings_box.isAncestorOf(kind) and not editor.table.isAncestorOf(kind)
    editor.table.setCurrentCell(editor.row_of("price"), 0)
    assert editor.widget(editor.row_of("price"), TYPE).isVisible()
    assert not editor.widget(editor.row_of("price"), DELIMITER).isVisible()     # a number has no separator
    assert not editor.widget(editor.row_of("features"), TYPE).isVisible()
    # wide enough: the settings' summary is a column again
    editor.resize(1000, 700)
    qtbot.waitUntil(lambda: not editor.table.isColumnHidden(SETTINGS))
    assert not _sideways(editor.table)


def test_every_setting_keeps_its_name_and_tooltip(editor):
    from evalgui.gui.workspaces.casebase.model_editor import DELIMITER_TIP, TYPE_TIP

    row = editor.row_of("features")
    assert editor.widget(row, TYPE).accessibleName() == "Type of features"
    assert editor.widget(row, TYPE).toolTip() == TYPE_TIP
    assert editor.widget(row, DELIMITER).accessibleName() == "Split at (features)"
    assert editor.widget(row, DELIMITER).toolTip() == DELIMITER_TIP
    assert editor.widget(row, MEASURE).accessibleName() == "Measure of features"
    assert editor.widget(row, MEASURE).toolTip() == LOCAL_SIMILARITIES["jaccard_index"].help_text
    assert editor.widget(row, WEIGHT).accessibleName() == "Weight of features"
    assert "weighted mean" in editor.widget(row, WEIGHT).toolTip()


def test_the_type_and_the_separator_edited_in_the_panel_reach_the_model_file(qtbot, editor, tmp_path):
    row = editor.row_of("model")
    editor.table.setCurrentCell(row, 0)
    editor.widget(row, TYPE).setCurrentText("set")
    assert editor.widget(row, DELIMITER).isEnabled()
    editor.widget(row, DELIMITER).setText("|")
    assert editor.settings_box.title() == "Settings of model: Jaccard index"
    path = tmp_path / "model.json"
    editor.model().save(str(path))
    saved = {a["name"]: a for a in json.loads(path.read_text())["attributes"]}
    assert saved["model"]["type"] == "set" and saved["model"]["delimiter"] == "|"
    assert saved["model"]["measure"] == "jaccard_index"


def test_with_the_summary_hidden_an_invalid_setting_marks_the_measure(qtbot, editor):
    editor.show()
    editor.resize(290, 700)
    qtbot.waitUntil(lambda: editor.table.isColumnHidden(SETTINGS))
    measure = editor.widget(editor.row_of("power"), MEASURE)
    editor.form("power").alpha.setValue(0)
    assert "#c62828" in measure.styleSheet() and measure.toolTip().startswith("α must be above 0")
    editor.form("power").alpha.setValue(0.1)
    assert measure.styleSheet() == "" and measure.toolTip() == LOCAL_SIMILARITIES["exponential"].help_text


def _editor_of(qtbot, name: str) -> ModelEditor:
    """An editor of a model of two numeric attributes: ``name`` and price."""
    from evalgui.core.cbr.model import AttributeModel

    editor = ModelEditor()
    qtbot.addWidget(editor)
    editor.set_model(SimilarityModel([AttributeModel(name, "numeric", "linear"),
                                      AttributeModel("price", "numeric", "linear")], "<test>"))
    editor.show()
    return editor


def test_a_long_attribute_name_is_elided_with_its_tooltip(qtbot, cars):
    long_name = "engine_displacement_in_litres_as_measured_by_the_manufacturer"
    editor = _editor_of(qtbot, long_name)
    editor.resize(290, 500)
    qtbot.waitUntil(lambda: editor.table.viewport().width() < 290)
    assert not _sideways(editor.table)
    assert editor.table.columnWidth(0) <= 2 * editor.table.viewport().width() // 5 + 1
    assert editor.table.item(0, 0).toolTip() == long_name
    editor.table.setCurrentCell(0, 0)
    assert editor.settings_box.title() == f"Settings of {long_name}: Linear"       # whole, as its tooltip
    assert editor.settings_box.toolTip() == editor.settings_box.title()
    assert editor.settings_box.minimumSizeHint().width() < 290


def test_the_preview_wraps_in_a_narrow_column_and_shows_every_row(qtbot):
    from evalgui.gui.workspaces.casebase.model_editor import PreviewBox

    box = PreviewBox()
    qtbot.addWidget(box)
    box.show()
    box.resize(280, 600)
    long_value = ";".join(f"feature number {i}" for i in range(8))
    frame = pd.DataFrame({"attribute": ["price", "features", "global"], "query": ["20000", long_value, ""],
                          "case": ["14500", "gps", ""], "weight": [2.0, 1.0, np.nan],
                          "similarity": [0.8226, 0.125, 0.59]})
    box.show_frame(frame)
    view = box.view
    qtbot.waitUntil(lambda: view.height() >= view.verticalHeader().length() + view.horizontalHeader().height())
    assert not _sideways(view) and view.verticalScrollBar().maximum() == 0       # every row, whole
    assert [view.model().headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == [
        "Attribute", "Query · case", "Similarity"]
    assert view.rowHeight(1) >= 3 * view.rowHeight(0)            # the long value wraps
    index = view.model().index(1, 1)
    assert index.data(Qt.ItemDataRole.ToolTipRole) == f"query: {long_value}\ncase: gps"
    assert view.model().index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "price: weight 2"
    # the whole preview (with the weights) is what Export writes; the similarities are read from it
    pd.testing.assert_frame_equal(view.exported("csv"), frame)
    assert box.global_similarity() == 0.59 and box.local_similarity("features") == 0.125


def test_an_attribute_name_full_of_markup_is_shown_literally(qtbot):
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QGroupBox

    def shown(tip: str) -> str:           # a tooltip that looks like markup is read as rich text
        document = QTextDocument()
        document.setHtml(tip)
        return document.toPlainText()

    name = "<b>A&B</b> <img src=x>"
    editor = _editor_of(qtbot, name)
    editor.table.setCurrentCell(0, 0)
    assert shown(editor.table.item(0, 0).toolTip()) == name
    assert editor.settings_box.title() == f"Settings of {name}: Linear"
    assert shown(editor.settings_box.toolTip()) == editor.settings_box.title()
    # the box draws its title with & doubled: Qt would take a single & for a shortcut mark and hide it
    assert "A&&B" in QGroupBox.title(editor.settings_box)
