"""The report: one self-contained page, every number at the window's precision with its full value, in a browser."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import pytest

from evalgui.core.workflows.report import Section, build_report, number_text
from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest, run_compare, run_preference
from tests.conftest import SAMPLE_DATA

SYN = SAMPLE_DATA / "synthetic"
RUNS = [str(SYN / f"{r}.run") for r in ("bm25", "dense", "rerank")]


@pytest.fixture(scope="module")
def outcomes():
    compared = run_compare(CompareRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=["AP", "P@10"],
                                          test="randomization", samples=1000, seed=4))
    preferred = run_preference(PreferenceRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS, measures=["rpp"], test="t"))
    return {"compare": compared, "preference": preferred}


class _Cells(HTMLParser):
    """Every cell with a data-value, its text; every src/href; every external-looking reference."""

    def __init__(self):
        super().__init__()
        self.cells, self.refs, self._value, self._text = [], [], None, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href"):
            if name in attrs:
                self.refs.append(attrs[name])
        if tag == "td" and "data-value" in attrs:
            self._value, self._text = attrs["data-value"], []

    def handle_data(self, data):
        if self._value is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self._value is not None:
            self.cells.append((self._value, "".join(self._text)))
            self._value = None


def test_the_page_needs_nothing_beside_it(outcomes):
    page = build_report([Section(k, o) for k, o in outcomes.items()], "t", "evalgui-cli report p -o r.html")
    parser = _Cells()
    parser.feed(page)
    assert all(ref.startswith("#") for ref in parser.refs), parser.refs
    assert not re.search(r"(https?|file):", page.replace("evalgui-cli report", ""))
    assert len(page.encode()) < 5_000_000


def test_every_number_shows_the_windows_precision_and_keeps_its_full_value(outcomes):
    page = build_report([Section(k, o) for k, o in outcomes.items()])
    parser = _Cells()
    parser.feed(page)
    assert len(parser.cells) > 50
    for value, text in parser.cells:
        number = float(value)
        text = re.sub(r"[a-z]+$", "", text)         # the paper table's superscripts: the runs a mean beats
        assert text in (number_text(number), number_text(number, "p_value"), number_text(number, "wins"),
                        f"{int(number):,}", "< 1/1,000"), (value, text)
    shown = {float(v) for v, _ in parser.cells}
    table = outcomes["compare"].tables["comparison"]
    for column in ("diff", "p_value", "mean_a"):
        assert all(v in shown for v in table[column].tolist() if not math.isnan(v)), column


def test_numbers_read_as_the_window_shows_them():
    assert number_text(0.123456) == "0.1235" and number_text(3) == "3" and number_text(12345) == "12,345"
    assert number_text(0.00001, "p_value") == "< 0.0001" and number_text(float("nan")) == "–"
    assert number_text(17.0, "wins") == "17" and number_text(0.0, "p_value", 10_000) == "< 1/10,000"


def test_each_plot_has_its_reading_guide_said_once_for_a_row_of_plots(outcomes):
    from evalgui.core.workflows.report import Plot

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'
    plots = [Plot("Heatmap: AP", svg, "Red: the row run is better."), Plot("Heatmap: P@10", svg, "Red: the row run is better."),
             Plot("Curves", svg, "One curve per measure.")]
    page = build_report([Section("compare", outcomes["compare"], plots)])
    assert page.count("Red: the row run is better.") == 1 and page.count("One curve per measure.") == 1
    assert "<strong>Heatmap: P@10.</strong>" in page


def _ranked_outcome(with_curves: bool):
    from evalgui.core.workflows.ranked import EvaluateRequest, run_evaluate

    outcome = run_evaluate(EvaluateRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS[:2], measures=["AP"]))
    if not with_curves:
        del outcome.tables["curves"]           # as a project saved before projects kept them reads
    return outcome


def test_a_ranked_result_without_its_curves_says_how_to_get_them():
    from evalgui.core.workflows.report import NO_CURVES

    assert NO_CURVES in build_report([Section("ranked", _ranked_outcome(False))])
    assert NO_CURVES not in build_report([Section("ranked", _ranked_outcome(True))])


def test_the_preference_section_names_the_measures_as_papers_do():
    # Issue 24, point 2: RPP, Lexiprecision in the tables' cells and the provenance, not the registered rpp,
    # lexiprecision (which the provenance's title, the request as saved, keeps).
    preferred = run_preference(PreferenceRequest(qrels=str(SYN / "qrels.txt"), runs=RUNS,
                                                 measures=["rpp", "lexiprecision"], test="t"))
    page = build_report([Section("preference", preferred)])
    section = page[page.index('<section id="preference">'):]
    shown = section[:section.index("</section>")]
    assert "<td>RPP</td>" in shown and "<td>Lexiprecision</td>" in shown
    assert not re.search(r">\s*(?:rpp|lexiprecision)\s*<", shown), shown
    assert "<th" in shown and ">Mean preference</th>" in shown
    assert '<td title="rpp, lexiprecision">RPP, Lexiprecision</td>' in shown


def test_each_plot_of_a_page_has_its_own_ids_and_its_references_follow(outcomes):
    """Qt names every plot's clip paths clipPath1, clipPath2, …: in one page an id is global, so every plot
    clipped itself with the first plot's. Each plot's ids get its own prefix, and so do its references."""
    from evalgui.core.workflows.report import Plot, scoped_ids

    svg = ('<svg><defs><clipPath id="clipPath1"><path d="M0,0"/></clipPath><clipPath id="clipPath10">'
           '<path d="M0,0"/></clipPath><linearGradient id="g"/></defs><g clip-path="url(#clipPath1)"><use href="#g"/>'
           '<g clip-path="url(#clipPath10)" fill="url(#g)"/></g><a href="#elsewhere">x</a></svg>')
    one = scoped_ids(svg, "a-")
    assert re.findall(r'id="([^"]+)"', one) == ["a-clipPath1", "a-clipPath10", "a-g"]
    assert re.findall(r"url\(#([^)]+)\)", one) == ["a-clipPath1", "a-clipPath10", "a-g"]
    assert 'href="#a-g"' in one and 'href="#elsewhere"' in one          # only the ids it defines
    sections = [Section(key, outcome, [Plot("one", svg), Plot("two", svg)]) for key, outcome in outcomes.items()]
    page = build_report(sections)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)) and ids.count("clipPath1") == 0 and len(ids) >= 3 * 2 * len(sections)
    assert set(re.findall(r"url\(#([^)]+)\)", page)) <= set(ids)
