"""A report to share: one self-contained HTML page of a project's results, tables, plots and provenance.

The page reads the workflows' saved Outcomes and never recomputes anything. It needs nothing beside
it and nothing from the network: plots are inline SVG (drawn by the window's views, handed in by
the caller), the few lines of script that sort tables are inline, and the page is complete without
them. Every number shows at the window's precision and carries its full value in ``data-value``.

Qt-free: the caller (the window, ``evalgui-cli report``) passes the plots as SVG text.
"""

from __future__ import annotations

import datetime
import html
import math
import os
import re
from dataclasses import dataclass, field

# Per workflow: the tables the report shows (name, heading, shown open), in this order; other
# tables are left out (they hold what the views need, e.g. per-query values, which stay collapsed).
SECTIONS = {
    "ranked": ("Ranked retrieval", [("summary", "Mean of each measure", True),
                                    ("per_query", "Per query", False)]),
    "compare": ("Compare systems: significance tests", [("comparison", "Every tested pair", False),
                                                        ("query_sets", "Queries compared", True)]),
    "preference": ("Compare systems: preferences", [("ranking", "Runs ranked by mean preference", True),
                                                   ("pairs", "Every pair", False)]),
    "metaeval": ("Meta-evaluation", [("table", "How good each measure is", True),
                                      ("pairs", "Every pair of runs", False),
                                      ("curves", "Every pair of runs, by p-value", False)]),
    "stability": ("Measure stability", [("actual", "Each system's score on each measure", True),
                                        ("evaluation", "How stable each measure is", False),
                                        ("significance", "Significant differences between systems", False)]),
    "casebase": ("Case-based retrieval", [("wide", "Each retriever's quality", True),
                                          ("results", "Every value", False)]),
    "similarity": ("Case-based retrieval: similarity files", [("wide", "Each result's quality", True),
                                                            ("results", "Every value", False)]),
}
CHECK_ROWS = 2000        # a cancel check every this many table rows (about 50 ms of work)
WORKSPACE_ORDER = ("ranked", "compare", "preference", "metaeval", "stability", "casebase", "similarity")


@dataclass
class Plot:
    title: str
    svg: str                     # an <svg> element's text
    guide: str = ""              # how to read it (the caption the window shows under the plot)


@dataclass
class Section:
    key: str                     # workflow key
    outcome: object
    plots: list = field(default_factory=list)
    guide: str = ""              # a reading guide (the in-app help's words)


def number_text(value, column: str = "", samples=None) -> str:
    """A number as the window shows it (:mod:`evalgui.core.display`): counts whole, percentages with %,
    p-values below 0.0001 as "< 0.0001" (a resampling p of 0 as "< 1/B"), others with 4 decimals; "–" when
    undefined."""
    from evalgui.core import display

    kind = display.column_kind(column)
    if kind == "p":
        return display.format_p(value, int(samples) if isinstance(samples, (int, float)) and samples == samples
                                and samples else None)
    if isinstance(value, int) and not isinstance(value, bool) and kind == "real":
        return f"{value:,}"
    return display.format_number(value, kind=kind)


def _cell(value, column: str, samples=None, best: bool = False) -> str:
    try:
        import pandas as pd

        if value is pd.NA:
            value = None
    except ImportError:                     # pragma: no cover
        pass
    if hasattr(value, "item"):              # numpy scalars
        value = value.item()
    text = html.escape(number_text(value, column, samples))
    if isinstance(value, float) and math.isnan(value):
        from evalgui.core.display import why_missing

        return f'<td class="num" title="{html.escape(why_missing(column))}">–</td>'
    if isinstance(value, str) and column in ("measure", "method", "norm", "metric", "measure_a", "measure_b"):
        from evalgui.core.display import label

        return f"<td>{html.escape(label(value))}</td>"
    if isinstance(value, str):                  # a setting's machine value (holm) as its form names it
        from evalgui.core.display import cell_word

        return f"<td>{html.escape(cell_word(column, value))}</td>"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value is not None:
        full = repr(float(value)) if isinstance(value, float) else str(value)
        if best:
            return f'<td class="num best" data-value="{html.escape(full)}"><strong>{text}</strong></td>'
        return f'<td class="num" data-value="{html.escape(full)}">{text}</td>'
    return f"<td>{text}</td>"


def table_html(frame, caption: str = "", best: set | None = None, check=None) -> str:
    """``best``: (row position, column name) of the cells to mark as the best; ``check()``: a job's cancel
    check, called every few thousand rows."""
    from evalgui.core.display import column_label

    columns = [str(c) for c in frame.columns]
    # Headers in the window's words; the machine name (as in exported files) in the title.
    head = "".join(f'<th scope="col" title="{html.escape(c)}">{html.escape(column_label(c))}</th>' for c in columns)
    rows = []
    at_samples = columns.index("samples") if "samples" in columns else None
    best = best or set()
    for i, values in enumerate(frame.itertuples(index=False, name=None)):
        if check is not None and not i % CHECK_ROWS:
            check()
        samples = values[at_samples] if at_samples is not None else None
        if hasattr(samples, "item"):
            samples = samples.item()
        rows.append("<tr>" + "".join(_cell(v, c, samples, (i, c) in best) for v, c in zip(values, columns))
                    + "</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (f'<div class="table-wrap"><table class="sortable">{cap}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _provenance(section: Section) -> str:
    """How the section's results were made: the evalgui version and time, each parameter in its form's words,
    and every input with its size and content hash (read now when the saved outcome did not record them)."""
    from evalgui.core.workflows.outcome import describe_inputs, version

    prov = getattr(section.outcome, "provenance", {}) or {}
    request = prov.get("request") or section.outcome.request.to_json()
    params = "".join(f"<tr><th scope=\"row\" title=\"{html.escape(str(k))}\">{html.escape(_param_label(section, k))}"
                     f"</th>{_param_cell(section, k, v)}</tr>" for k, v in request.items() if v not in (None, [], ""))
    described = prov.get("inputs") or []
    if not any("hash" in i for i in described):         # an outcome saved without them: the files as they are now
        described = describe_inputs(_input_paths(section, request))
    inputs = "".join(f"<tr><td>{html.escape(str(i.get('path', '')))}</td>"
                     f"<td class=\"num\">{html.escape(number_text(i.get('size')))}</td>"
                     f"<td><code>{html.escape(str(i.get('hash') or '–'))}</code></td></tr>"
                     for i in described)
    made = f"evalgui {prov.get('version') or version()}" + (f", {_when(prov['created'])}" if prov.get("created") else "")
    return (f'<details class="provenance"><summary>How these results were made</summary>'
            f'<p>{html.escape(made)}</p>'
            f'<table class="plain"><tbody>{params}</tbody></table>'
            f'<table class="plain"><thead><tr><th>Input</th><th>Bytes</th><th>Content hash</th></tr></thead>'
            f'<tbody>{inputs}</tbody></table></details>')


def _when(created: str) -> str:
    """A recorded ISO time (2026-11-26T00:02:38+00:00) as people write it: 2026-11-26 00:02 UTC."""
    try:
        moment = datetime.datetime.fromisoformat(str(created)).astimezone(datetime.timezone.utc)
    except ValueError:
        return str(created)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _input_paths(section: Section, request: dict) -> list[str]:
    """The files a request read: its declared file parameters."""
    try:
        return list(section.outcome.request.files())
    except (AttributeError, TypeError, ValueError):
        params = getattr(getattr(section.outcome, "request", None), "params", lambda: {})()
        paths = []
        for name, value in request.items():
            if name in params and params[name].type in ("file", "files") and value:
                paths += list(value) if isinstance(value, (list, tuple)) else [value]
        return [str(p) for p in paths]


def _param_label(section: Section, name: str) -> str:
    """A request parameter as the window's form labels it (its declaration), the machine name in the title."""
    from evalgui.core.display import plain_words

    try:
        return section.outcome.request.param(str(name)).label
    except (AttributeError, KeyError, LookupError, StopIteration):
        return plain_words(str(name))


def _param_cell(section: Section, name: str, value) -> str:
    """A request value in its form's words (a choice's label, yes/no, measures as papers write them, a model's
    attributes), the request's own spelling in the title."""
    text = _plain(value)
    try:
        param = section.outcome.request.param(str(name))
    except (AttributeError, KeyError, LookupError, StopIteration):
        param = None
    shown = param_words(param, name, value)
    if shown != text:
        return f'<td title="{html.escape(text)}">{html.escape(shown)}</td>'
    return f"<td>{html.escape(text)}</td>"


def param_words(param, name: str, value) -> str:
    """A parameter's value as its form says it (``param``: its declaration, or None)."""
    from evalgui.core import display

    if isinstance(value, bool):
        return display.yes_no(value)
    if param is not None and param.type == "choice":
        return param.choice_label(value)
    if name == "measures" and isinstance(value, (list, tuple)):
        return ", ".join(measure_words(str(v)) for v in value)
    if param is not None and param.type == "json" or isinstance(value, dict) or \
            (isinstance(value, list) and value and isinstance(value[0], dict)):
        return _json_words(value)
    if isinstance(value, float):
        return f"{int(value):,}" if value.is_integer() and abs(value) >= 10_000 else display.full_number(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(param_words(None, "", v) for v in value)
    return display.cell_word(name, display.label(str(value)))


def measure_words(spec: str) -> str:
    """A measure as the request spells it (AP, P.10, ndcg_cut.10, P.5,10) as papers write it (AP, P@10, nDCG@10,
    P@5, P@10)."""
    from evalgui.core.display import paper_name

    name, dot, params = spec.partition(".")
    if dot and params and all(p.replace(".", "", 1).isdigit() for p in params.split(",")):
        return ", ".join(paper_name(f"{name}_{p}") for p in params.split(","))
    return paper_name(spec)


def _json_words(value) -> str:
    """A compound value (a similarity model: one record per attribute) as words: "price: linear, weight 3"."""
    from evalgui.core.display import plain_words

    if isinstance(value, dict) and not isinstance(value.get("attributes", value.get("records")), list):
        # a record's table of values: {"estate": {"saloon": 0.4}} -> "estate–saloon 0.4"
        return ", ".join(f"{k}–{_json_words(v)}" if isinstance(v, dict) else f"{k} {param_words(None, '', v)}"
                         for k, v in value.items())
    if isinstance(value, dict):
        records = value.get("attributes", value.get("records")) if isinstance(value.get("attributes",
                                                                                       value.get("records")), list) else None
        if records is None:
            return "; ".join(f"{k}: {_json_words(v)}" for k, v in value.items())
        value = records
    if isinstance(value, list):
        parts = []
        for record in value:
            if not isinstance(record, dict):
                parts.append(_json_words(record))
                continue
            head = str(record.get("name", ""))
            what = [plain_words(str(record[k])) for k in ("measure", "type") if k in record][:1]
            if "weight" in record:
                what.append(f"weight {param_words(None, '', record['weight'])}")
            extra = record.get("parameters") or {}
            if isinstance(extra, dict) and extra:
                what.append(", ".join(f"{plain_words(str(k)).lower()} "
                                      f"{_json_words(v) if isinstance(v, dict) else param_words(None, '', v)}"
                                      for k, v in extra.items()))
            parts.append(f"{head}: {', '.join(what)}" if head else ", ".join(what))
        return "; ".join(parts)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _plain(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


# Sections that share a workspace's page: the page's definition of their results tab, not its introduction
# (which the workspace's own section already says).
GUIDE_TERMS = {"preference": "Preferences"}


def reading_guide(workspace: str, term: str | None = None) -> str:
    """The first paragraph of the workspace's Getting started page (the in-app help's words), as text; with
    ``term``, the page's definition of that term (a results tab) instead."""
    import re

    from evalgui.core.resources import resource

    try:
        page = resource("help", f"{workspace}.html").read_text(encoding="utf-8")
    except (OSError, ValueError):
        return ""
    found = re.search(r"<dt><b>" + re.escape(term) + r"</b></dt><dd>(.*?)</dd>", page, re.S) if term else \
        re.search(r"<p>(.*?)</p>", page, re.S)
    if not found:
        return ""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1)))).strip()


def _runs_by_measures(rows):
    """Tidy summary rows as runs × measures, and the best value of each measure (higher is better, unless
    the measure's record says lower) to mark."""
    import numpy as np

    from evalgui.core import tidy

    values = rows[tidy.VALUE]
    if values.dtype.kind not in "fiu":
        return rows, None
    wide = rows.pivot_table(index=tidy.RUN, columns=tidy.MEASURE, values=tidy.VALUE, sort=False, aggfunc="first")
    wide = wide.reindex(index=list(dict.fromkeys(rows[tidy.RUN])), columns=list(dict.fromkeys(rows[tidy.MEASURE])))
    wide = wide.rename_axis(None, axis=1).reset_index()
    best = set()
    for measure in wide.columns[1:]:
        column = wide[measure].to_numpy(dtype=np.float64)
        if np.isfinite(column).any():
            top = np.nanmax(column)
            best.update((int(i), measure) for i in np.flatnonzero(column == top))
    return wide, best


NO_CURVES = ("The precision-recall curves are not saved in this project (older projects did not keep them): to "
             "include the plot, open the project, press Run in Ranked retrieval and save it again "
             "(evalgui-cli run PROJECT -o DIR also draws the plot into DIR).")


def section_html(section: Section, check=None) -> str:
    title, wanted = SECTIONS.get(section.key, (section.key, []))
    tables = section.outcome.tables
    parts = [f'<section id="{html.escape(section.key)}"><h2>{html.escape(title)}</h2>']
    guide = section.guide or reading_guide(getattr(section.outcome, "workspace", "") or section.key,
                                           GUIDE_TERMS.get(section.key))
    if guide:
        parts.append(f'<p class="guide">{html.escape(guide)}</p>')
    notes = section.outcome.notes_for_window() if hasattr(section.outcome, "notes_for_window") else []
    if notes:
        parts.append("<ul class=\"notes\">" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    parts.append(things_to_watch(section.outcome))
    if section.key == "compare":
        from evalgui.core.stats.compare import paper_table
        from evalgui.core.workflows.compare import comparison_from_outcome

        comparison = comparison_from_outcome(section.outcome)
        if comparison is not None:
            parts.append("<h3>Mean of each measure, with the runs each beats significantly</h3>"
                         + paper_table(comparison, "html"))
    shown = [(name, heading, open_) for name, heading, open_ in wanted if name in tables] or \
        [(name, name.replace("_", " ").capitalize(), True) for name in tables]
    for name, heading, open_ in shown:
        frame = tables[name]
        if isinstance(frame, dict):
            import pandas as pd

            frame = pd.DataFrame(frame)
        best = None
        if (section.key, name) == ("ranked", "summary"):
            frame, best = _runs_by_measures(frame)
        body = table_html(frame, best=best, check=check)
        parts.append(f"<h3>{html.escape(heading)}</h3>{body}" if open_ else
                     f"<details><summary>{html.escape(heading)} ({len(frame):,} rows)</summary>{body}</details>")
    if section.key == "ranked" and "curves" not in tables:
        parts.append(f'<p class="missing">{html.escape(NO_CURVES)}</p>')
    said = ""
    for index, plot in enumerate(section.plots, 1):
        # A guide shared by a row of plots (one per measure) is said under the first of them only.
        guide = f'<span class="plot-guide">{html.escape(plot.guide)}</span>' if plot.guide != said else ""
        said = plot.guide
        svg = scoped_ids(plot.svg, f"{section.key}-plot{index}-")
        parts.append(f'<figure>{svg}<figcaption><strong>{html.escape(plot.title)}.</strong> {guide}'
                     '</figcaption></figure>')
    parts.append(_provenance(section))
    parts.append("</section>")
    return "".join(parts)


_ID = re.compile(r'\bid="([^"]+)"')


def scoped_ids(svg: str, prefix: str) -> str:
    """The SVG with every id it defines prefixed, and its references (url(#…), href="#…") with them. In one
    page an id is global: plots drawn alike all define "clipPath1", … and each would clip itself with the
    first plot's clip paths."""
    ids = set(_ID.findall(svg))
    if not ids:
        return svg
    names = "|".join(re.escape(name) for name in sorted(ids, key=len, reverse=True))
    svg = re.sub(r'\bid="(' + names + ')"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'url\(\s*#(' + names + r')\s*\)', lambda m: f"url(#{prefix}{m.group(1)})", svg)
    return re.sub(r'(href=")#(' + names + ')"', lambda m: f'{m.group(1)}#{prefix}{m.group(2)}"', svg)


def things_to_watch(outcome) -> str:
    """The outcome's caveats (:mod:`evalgui.core.advisor`) as the section's "Things to watch" part ("" without any)."""
    from evalgui.core.advisor import WARNING
    from evalgui.core.workflows.caveats import caveats_of

    frame = caveats_of(outcome)
    if frame is None or not len(frame):
        return ""
    items = "".join(f'<li class="{html.escape(severity)}"><strong>{"Warning" if severity == WARNING else "Note"}:'
                    f'</strong> {html.escape(message)}</li>'
                    for severity, message in zip(frame["severity"].tolist(), frame["message"].tolist()))
    count = len(frame)
    return (f'<div class="watch"><h3>Things to watch ({count} thing{"" if count == 1 else "s"})</h3>'
            f"<ul>{items}</ul></div>")


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff;margin:2em auto;
max-width:70em;padding:0 1em;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{padding:.25em .6em;border-bottom:1px solid #ddd;
text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th{cursor:pointer;background:#f3f3f3}table.paper th{background:#f3f3f3}
.footnote{font-size:.85em;color:#444}table.sortable th:hover{background:#e6e6e6}
.table-wrap{overflow-x:auto}figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444}.missing{color:#6b4b00;font-style:italic}.guide{color:#333}.notes{color:#6b4b00}details{margin:.5em 0}
.watch{border-left:4px solid #c98a00;background:#fff8e6;padding:.2em 1em;margin:1em 0}
.watch li.warning strong{color:#8a3b00}
code{font-size:.85em}footer{margin-top:3em;font-size:.85em;color:#555}
@media print{body{max-width:none;margin:0}details{display:block}details>summary{display:none}
details:not([open])>*{display:block}.table-wrap{overflow:visible}table{page-break-inside:auto}
tr{page-break-inside:avoid}thead{display:table-header-group}figure,svg{page-break-inside:avoid}
table.sortable th{background:none}a{color:inherit}}
@page{size:auto;margin:15mm}
"""

# Click a header to sort by it (numbers by their full value); the page is whole without this.
SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
  var b=t.tBodies[0],r=Array.prototype.slice.call(b.rows),d=th.dataset.dir==='asc'?-1:1;th.dataset.dir=d>0?'asc':'desc';
  r.sort(function(x,y){var a=x.cells[i],c=y.cells[i],p=a.dataset.value,q=c.dataset.value;
   if(p!==undefined&&q!==undefined)return d*(parseFloat(p)-parseFloat(q));
   return d*a.textContent.localeCompare(c.textContent);});
  r.forEach(function(x){b.appendChild(x);});});});});
"""


def build_report(sections: list[Section], title: str = "Evaluation report", command: str = "",
                 project: str = "", check=None) -> str:
    """The whole page for these sections (in the window's order); ``check()``: a job's cancel check."""
    from evalgui.core.distribution import version

    ordered = sorted(sections, key=lambda s: WORKSPACE_ORDER.index(s.key) if s.key in WORKSPACE_ORDER else 99)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    toc = "".join(f'<li><a href="#{html.escape(s.key)}">{html.escape(SECTIONS.get(s.key, (s.key,))[0])}</a></li>'
                  for s in ordered)
    body = "".join(section_html(s, check) for s in ordered) or "<p>The project holds no results yet.</p>"
    regenerate = f"<p>Made again with: <code>{html.escape(command)}</code></p>" if command else ""
    source = f"<p>Project: <code>{html.escape(os.path.basename(project))}</code></p>" if project else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<header><h1>{html.escape(title)}</h1>{source}<nav><ul>{toc}</ul></nav></header>"
            f"<main>{body}</main><footer><p>Made by evalgui {html.escape(version())} on {now}.</p>{regenerate}"
            f"</footer><script>{SCRIPT}</script></body></html>\n")


def writing_job(path: str, sections: list[Section], title: str, project: str = "", hashes=None):
    """An engine job writing the report ``path`` atomically from ``sections`` (their plots already drawn: that
    needs the window's thread): an outcome without provenance yet (the window's ranked results) gets it here,
    its inputs hashed (``hashes``: a :class:`evalgui.core.hashing.HashCache`, or None), then the page is built
    and written. A cancel or an error leaves no file, or the old one as it was."""
    def job(state) -> str:
        from evalgui.core.errors import EvalInputError
        from evalgui.core.export import write_atomic
        from evalgui.core.workflows.outcome import describe_inputs

        name = os.path.basename(path)
        for section in sections:
            outcome = section.outcome
            if not getattr(outcome, "provenance", True):
                state.check()
                state.progress(0.0, f"Writing {name}: hashing the inputs")
                outcome.stamp(describe_inputs(outcome.request.files(), hashes, state.check))
        state.progress(0.3, f"Writing {name}")
        text = build_report(sections, title, project=project, check=state.check)
        state.check()
        try:
            write_atomic(path, text, check=state.check)
        except OSError as exc:          # a full disk, a folder gone: one line naming the file
            raise EvalInputError(path, exc.strerror or str(exc)) from None
        state.progress(1.0, f"Report written to {path}")
        return path
    return job
