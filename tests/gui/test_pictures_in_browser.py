"""Every picture the report and ``evalgui-cli run`` write, as a reader sees it: drawn by headless Chromium, each
drawing stays inside the size its SVG declares (nothing cut off by a browser or an editor that honours it) and a
page holding several pictures repeats no id (an id is global in one page: every plot used to clip itself with
the first plot's clip paths)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

from tests.conftest import SAMPLE_DATA

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium (Debian: apt install chromium)")

# Run in the page after its own scripts: for each outermost <svg>, its declared box (viewBox, else width and
# height) and the union of what it draws, each shape's box in the SVG's units cut by its clip paths (resolved
# the way the browser resolves them, by id in the whole page); and the ids the page holds more than once.
MEASURE = r"""
(function () {
  function union(a, b) { var x = Math.min(a[0], b[0]), y = Math.min(a[1], b[1]);
    return [x, y, Math.max(a[0] + a[2], b[0] + b[2]) - x, Math.max(a[1] + a[3], b[1] + b[3]) - y]; }
  function cut(a, b) { var x = Math.max(a[0], b[0]), y = Math.max(a[1], b[1]);
    return [x, y, Math.min(a[0] + a[2], b[0] + b[2]) - x, Math.min(a[1] + a[3], b[1] + b[3]) - y]; }
  function box(el, svg, space) {
    // (a clip path's shapes lie in the user space of the element it clips: ``space``)
    var b = el.getBBox(), m = svg.getScreenCTM().inverse().multiply((space || el).getScreenCTM());
    var xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(function (p) {
      var q = svg.createSVGPoint(); q.x = p[0]; q.y = p[1]; q = q.matrixTransform(m); xs.push(q.x); ys.push(q.y); });
    var x = Math.min.apply(null, xs), y = Math.min.apply(null, ys);
    return [x, y, Math.max.apply(null, xs) - x, Math.max.apply(null, ys) - y];
  }
  function clipped(el, svg, b) {
    for (var node = el; node && node !== svg.parentNode; node = node.parentNode) {
      var ref = node.getAttribute && node.getAttribute('clip-path');
      var found = ref && /url\(\s*#([^)\s]+)\s*\)/.exec(ref);
      var clip = found && document.getElementById(found[1]);
      if (!clip) continue;
      var area = null;
      Array.prototype.forEach.call(clip.children, function (c) { var r = box(c, svg, node); area = area ? union(area, r) : r; });
      if (area) b = cut(b, area);
    }
    return b;
  }
  var svgs = Array.prototype.filter.call(document.querySelectorAll('svg'), function (s) {
    return !(s.parentNode && s.parentNode.closest && s.parentNode.closest('svg')); });
  var pictures = svgs.map(function (svg) {
    var v = svg.viewBox.baseVal;
    var declared = v && v.width ? [v.x, v.y, v.width, v.height] : [0, 0, svg.width.baseVal.value, svg.height.baseVal.value];
    var drawn = null;
    svg.querySelectorAll('path,rect,line,polyline,polygon,ellipse,circle,text,image,use').forEach(function (el) {
      if (el.closest('clipPath,defs,mask,symbol,marker,pattern')) return;
      var b = clipped(el, svg, box(el, svg));
      if (b[2] < 0 || b[3] < 0 || (b[2] === 0 && b[3] === 0)) return;
      drawn = drawn ? union(drawn, b) : b;
    });
    var title = svg.closest('figure') && svg.closest('figure').querySelector('figcaption strong');
    return {title: title ? title.textContent : '', declared: declared, drawn: drawn};
  });
  var count = {};
  document.querySelectorAll('[id]').forEach(function (e) { count[e.id] = (count[e.id] || 0) + 1; });
  var pre = document.createElement('pre');
  pre.id = 'measured-pictures';
  pre.textContent = JSON.stringify({pictures: pictures,
                                    repeated: Object.keys(count).filter(function (k) { return count[k] > 1; })});
  document.body.appendChild(pre);
})();
"""


def measured(page: str, tmp_path, name: str = "page.html") -> dict:
    """``page`` (an HTML page or an SVG file's text) drawn by headless Chromium and measured by MEASURE."""
    if "</body>" not in page:
        page = "<!DOCTYPE html><html><body>" + re.sub(r"^<\?xml[^>]*\?>", "", page) + "</body></html>"
    probe = tmp_path / name
    probe.write_text(page.replace("</body>", f"<script>{MEASURE}</script></body>"), encoding="utf-8")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1000,2000", "--dump-dom", probe.as_uri()],
                          capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="measured-pictures">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


def overflowing(pictures: list[dict], slack: float = 1.0) -> list:
    """The pictures whose drawing runs past their declared box (by more than ``slack`` units)."""
    out = []
    for p in pictures:
        (x, y, w, h), d = p["declared"], p["drawn"]
        if d is None:
            out.append((p["title"], "draws nothing"))
        elif d[0] < x - slack or d[1] < y - slack or d[0] + d[2] > x + w + slack or d[1] + d[3] > y + h + slack:
            out.append((p["title"], [round(v) for v in p["declared"]], [round(v) for v in d]))
    return out


def test_every_plot_of_the_demo_projects_report_stays_in_its_frame_and_no_id_repeats(tmp_path):
    from evalgui.cli import main

    target = tmp_path / "demo.html"
    assert main(["report", str(SAMPLE_DATA / "demo.evalgui"), "-o", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    result = measured(page, tmp_path)
    assert len(result["pictures"]) == page.count("<svg") >= 20
    assert result["repeated"] == []
    assert overflowing(result["pictures"]) == []


def test_every_svg_evalgui_cli_run_writes_stays_in_its_declared_size(tmp_path, capsys):
    from evalgui.cli import main

    folder = tmp_path / "out"
    assert main(["run", str(SAMPLE_DATA / "demo.evalgui"), "-o", str(folder)]) == 0
    files = sorted(folder.glob("*.svg"))
    assert len(files) >= 20 and any("heatmap" in f.name for f in files)
    # All of them in one page, as a document quoting them would: each measured against its own size.
    texts = [re.sub(r"^<\?xml[^>]*\?>", "", f.read_text(encoding="utf-8")).strip() for f in files]
    pages = "".join(f"<figure><figcaption><strong>{f.name}</strong></figcaption>{t}</figure>" for f, t in zip(files, texts))
    result = measured(f"<!DOCTYPE html><html><body>{pages}</body></html>", tmp_path)
    assert len(result["pictures"]) == len(files)
    assert overflowing(result["pictures"]) == []
    assert result["repeated"] == []              # each file's ids are its own: quoted together, none clash


def test_the_measure_sees_a_drawing_past_its_size_and_repeated_ids(tmp_path):
    """The checks above can fail: a shape past the declared width, and two pictures defining one id."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">'
           '<defs><clipPath id="clipPath1"><rect x="0" y="0" width="{w}" height="50"/></clipPath></defs>'
           '<rect x="0" y="0" width="150" height="50" clip-path="url(#clipPath1)"/></svg>')
    result = measured("<!DOCTYPE html><html><body>" + svg.format(w=140) + svg.format(w=90) + "</body></html>",
                      tmp_path)
    assert result["repeated"] == ["clipPath1"]
    assert [p["drawn"][2] for p in result["pictures"]] == [140, 140]     # the first clip path clips both
    assert len(overflowing(result["pictures"])) == 2
