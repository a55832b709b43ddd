"""evalgui-cli run: a saved project's jobs re-run headless, tables and plots written, --check, bad projects."""

from __future__ import annotations

import json
import shutil

import pytest

from evalgui.core.workflows.compare import CompareRequest, PreferenceRequest, run_compare, run_preference
from evalgui.core.workflows.project import open_project, save_project
from tests.conftest import ROOT, SAMPLE_DATA
from tests.test_cli import run_cli

V1 = ROOT / "tests" / "data" / "projects" / "v1"


@pytest.fixture
def project(tmp_path):
    """A project folder holding its data, its two requests and their saved outcomes."""
    return make_project(tmp_path)


def make_project(folder) -> str:
    """Copy the synthetic qrels and three runs into ``folder`` and save p.evalgui there: a comparison (AP, P@10)
    and a preference (rpp) of the runs, requests and outcomes."""
    for name in ("qrels.txt", "bm25.run", "dense.run", "rerank.run"):
        shutil.copy(SAMPLE_DATA / "synthetic" / name, folder / name)
    runs = [str(folder / f"{r}.run") for r in ("bm25", "dense", "rerank")]
    compared = run_compare(CompareRequest(qrels=str(folder / "qrels.txt"), runs=runs, measures=["AP", "P@10"],
                                          test="randomization", samples=500, seed=9))
    preferred = run_preference(PreferenceRequest(qrels=str(folder / "qrels.txt"), runs=runs, measures=["rpp"],
                                                 test="t"))
    return save_project(str(folder / "p.evalgui"), outcomes={"compare": compared, "preference": preferred})


def test_every_table_plot_and_a_manifest_and_check_agrees(capsys, project, tmp_path):
    out_dir = tmp_path / "out"
    status, out, err = run_cli(capsys, "run", project, "-o", out_dir, "--check")
    assert status == 0 and out == "", (out, err)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    files = {entry["file"]: entry for entry in manifest["files"]}
    for name in ("compare-comparison.csv", "compare-matrix.csv", "compare-per_query.csv", "preference-pairs.csv",
                 "compare-heatmap-AP.png", "compare-heatmap-AP.svg", "preference-heatmap-rpp.svg"):
        assert (out_dir / name).stat().st_size > 0 and name in files, name
    assert files["compare-comparison.csv"]["request"]["samples"] == 500
    assert any(line.startswith("evalgui-cli: compare: 100%") for line in err)


def test_check_names_each_difference_and_exits_3(capsys, project, tmp_path):
    data = json.loads(open(project).read())
    table = data["results"]["compare"]["compare"]["tables"]["comparison"]
    column = table["columns"].index("p_value")
    table["data"][column][0] += 0.25
    open(project, "w").write(json.dumps(data))
    status, out, err = run_cli(capsys, "run", project, "-o", tmp_path / "out", "--check", "--no-plots")
    assert status == 3
    assert out.splitlines() and all(line.startswith("compare: comparison, row 1, p_value: saved")
                                    for line in out.splitlines()), out


def test_a_job_that_cannot_run_is_one_line_and_the_others_still_run(capsys, project, tmp_path):
    data = json.loads(open(project).read())
    data["requests"]["compare"]["samples"] = 0
    open(project, "w").write(json.dumps(data))
    status, _, err = run_cli(capsys, "run", project, "-o", tmp_path / "out", "--no-plots")
    errors = [line for line in err if ": error: " in line]
    assert status == 2 and errors == ["evalgui-cli: error: compare: --samples 0: must be at least 1"]
    assert (tmp_path / "out" / "preference-pairs.csv").exists()
    assert not (tmp_path / "out" / "compare-comparison.csv").exists()


def test_a_missing_input_is_named(capsys, project, tmp_path):
    (tmp_path / "dense.run").unlink()
    status, _, err = run_cli(capsys, "run", project, "-o", tmp_path / "out", "--no-plots")
    errors = [line for line in err if ": error: " in line]
    assert status == 2 and len(errors) == 2
    assert all(str(tmp_path / "dense.run") in line and "no such file" in line for line in errors)


def test_a_changed_input_is_named(capsys, project, tmp_path):
    with open(tmp_path / "bm25.run", "a") as fh:
        fh.write("\n")
    assert open_project(project).changed == [str(tmp_path / "bm25.run")]
    status, _, err = run_cli(capsys, "run", project, "-o", tmp_path / "out", "--no-plots")
    assert status == 0 and f"evalgui-cli: warning: {tmp_path / 'bm25.run'} changed since the project was saved" in err


def test_a_version_1_project_opens_with_its_compare_results_migrated(capsys, tmp_path):
    shutil.copytree(V1, tmp_path / "v1")
    project = open_project(str(tmp_path / "v1" / "meic-v1.evalgui"))
    assert project.version == 1 and not project.requests
    assert set(project.outcomes) == {"ranked", "compare", "preference"}
    comparison = project.outcomes["compare"].tables["comparison"]
    assert set(comparison["measure"]) == {"map", "P_5"} and (comparison["test"] == "randomization").all()
    # its ranked results name their inputs and settings: the request behind them, for the report
    ranked = project.outcomes["ranked"]
    assert ranked.request.runs == (str(tmp_path / "v1" / "base.run"), str(tmp_path / "v1" / "enhanced.run"))
    assert ranked.request.measures == ("map", "P.5,10", "ndcg_cut.10") and ranked.request.level == 1
    assert set(ranked.tables["summary"]["run"]) == {"base", "enhanced"}
    status, _, err = run_cli(capsys, "run", tmp_path / "v1" / "meic-v1.evalgui", "-o", tmp_path / "out")
    assert status == 2 and len(err) == 1 and "holds no job to run" in err[0]       # it re-runs requests only
    status, _, err = run_cli(capsys, "report", tmp_path / "v1" / "meic-v1.evalgui", "-o", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert status == 0 and 'id="ranked"' in page and "enhanced" in page, err


@pytest.mark.parametrize("content, reason", [
    ('{"format": "evalgui-project", "version": 2, "files": 3}', '"files" must be a JSON list, not a number'),
    ('{"format": "evalgui-project", "version": 2, "files": null}', '"files" must be a JSON list, not null'),
    ('{"format": "evalgui-project", "version": 2, "forms": []}', '"forms" must be a JSON object'),
    ('{"format": "evalgui-project", "version": ' + "9" * 5000 + '}', "not a valid project"),
    ('{"format": "evalgui-project", "version": 3}', "project version 3 is newer than this evalgui reads"),
    ('{"forms": ' + '[' * 200_000 + ']' * 200_000 + '}', "nested too deeply"),
    ('[' * 200_000 + ']' * 200_000, "not an evalgui project (its JSON is not an object)"),
])
def test_a_malformed_project_is_one_line_exit_2(capsys, tmp_path, content, reason):
    path = tmp_path / "bad.evalgui"
    path.write_text(content)
    status, out, err = run_cli(capsys, "run", path, "-o", tmp_path / "out")
    assert status == 2 and out == "" and len(err) == 1 and reason in err[0], err


def test_stability_and_casebase_projects_run_and_check(capsys, tmp_path):
    """The rank-file and case-based workflows re-run from a project; --check leaves retrieval times out."""
    from evalgui.core.workflows.casebase import CasebaseRequest, SimilarityRequest, run_casebase, run_similarity
    from evalgui.core.workflows.stability import StabilityRequest, run_stability

    for name in ("cars.csv", "queries.csv", "model.json", "procake_ground_truth.csv", "procake_evaluated.csv"):
        shutil.copy(SAMPLE_DATA / "cbr" / name, tmp_path / name)
    shutil.copy(SAMPLE_DATA / "rankfile" / "citations.tsv", tmp_path / "citations.tsv")
    stability = run_stability(StabilityRequest(rank_file=str(tmp_path / "citations.tsv"), total_ranks=5000,
                                               iterations=5, bootstrap=100, seed=3))
    casebase = run_casebase(CasebaseRequest(train=str(tmp_path / "cars.csv"), test=str(tmp_path / "queries.csv"),
                                            model_file=str(tmp_path / "model.json"), mac_attributes=("price",),
                                            filter_sizes=(10,), ks=(5,)))
    similarity = run_similarity(SimilarityRequest(ground_truth=str(tmp_path / "procake_ground_truth.csv"),
                                                  predicted=(str(tmp_path / "procake_evaluated.csv"),)))
    project = save_project(str(tmp_path / "p.evalgui"),
                           outcomes={"stability": stability, "casebase": casebase, "similarity": similarity})
    out_dir = tmp_path / "out"
    status, out, err = run_cli(capsys, "run", project, "-o", out_dir, "--check", "--no-plots")
    assert status == 0 and out == "", (out, err)
    for name in ("stability-actual.csv", "stability-evaluation.csv", "casebase-results.csv", "casebase-wide.csv",
                 "similarity-wide.csv"):
        assert (out_dir / name).stat().st_size > 0, name


def test_report_writes_one_page_of_the_saved_results(capsys, project, tmp_path):
    status, out, err = run_cli(capsys, "report", project, "-o", tmp_path / "r.html", "--no-plots")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert status == 0 and out == "" and err == []
    assert "Compare systems: significance tests" in page and "Compare systems: preferences" in page
    assert "sha256:" in page and "evalgui-cli report" in page


def test_report_of_a_project_without_results_is_one_line(capsys, tmp_path):
    path = tmp_path / "empty.evalgui"
    path.write_text('{"format": "evalgui-project", "version": 2}')
    status, _, err = run_cli(capsys, "report", path, "-o", tmp_path / "r.html")
    assert status == 2 and len(err) == 1 and "holds no saved results" in err[0]
    assert not (tmp_path / "r.html").exists()


def test_a_ranked_request_writes_its_tables_and_the_precision_recall_plot(capsys, tmp_path):
    import evalgui as eg

    for name in ("qrels.txt", "bm25.run", "dense.run"):
        shutil.copy(SAMPLE_DATA / "synthetic" / name, tmp_path / name)
    outcome = eg.evaluate(str(tmp_path / "qrels.txt"), [str(tmp_path / "bm25.run"), str(tmp_path / "dense.run")],
                          ["AP", "P@10"])
    project = eg.save_project(str(tmp_path / "p.evalgui"), outcome)
    status, out, err = run_cli(capsys, "run", project, "-o", tmp_path / "out")
    assert status == 0, err
    manifest = {entry["file"]: entry for entry in json.loads((tmp_path / "out" / "manifest.json").read_text())["files"]}
    for name in ("ranked-summary.csv", "ranked-per_query.csv", "ranked-run_matrix.csv", "ranked-precision-recall.png",
                 "ranked-precision-recall.svg"):
        assert (tmp_path / "out" / name).stat().st_size > 0 and name in manifest, name
    assert manifest["ranked-run_matrix.csv"]["table"] == "run_matrix"
    import pandas as pd

    written = pd.read_csv(tmp_path / "out" / "ranked-run_matrix.csv")
    assert list(written.columns) == ["measure", "row", "column", "mean_row", "mean_column", "diff", "n_queries"]
    assert len(written) == 2 * 2 * 2 and (written["n_queries"] == 50).all()


def test_check_names_at_most_twenty_rows_of_a_column_and_counts_the_rest(capsys, tmp_path, monkeypatch):
    import evalgui.cli.run as run_module

    monkeypatch.setattr(run_module, "SHOWN", 2)
    for name in ("qrels.txt", "bm25.run", "dense.run"):
        shutil.copy(SAMPLE_DATA / "synthetic" / name, tmp_path / name)
    outcome = run_compare(CompareRequest(qrels=str(tmp_path / "qrels.txt"), measures=["AP", "P@10", "RR"],
                                         runs=[str(tmp_path / "bm25.run"), str(tmp_path / "dense.run")]))
    project = save_project(str(tmp_path / "p.evalgui"), outcomes={"compare": outcome})
    data = json.loads(open(project).read())
    table = data["results"]["compare"]["compare"]["tables"]["comparison"]
    column = table["columns"].index("mean_a")
    table["data"][column] = [v + 1 for v in table["data"][column]]
    open(project, "w").write(json.dumps(data))
    status, out, _ = run_cli(capsys, "run", project, "-o", tmp_path / "out", "--check", "--no-plots")
    lines = [line for line in out.splitlines() if ", mean_a" in line or "mean_a:" in line]
    assert status == 3 and len(lines) == 3 and lines[-1] == "compare: comparison, mean_a: 1 more rows differ"


def test_metaeval_stability_and_casebase_plots_are_written_and_listed(capsys, tmp_path):
    """Each key plot of the Meta-evaluation, Measure stability and Case-based retrieval tabs, as PNG and SVG,
    named in manifest.json with its workspace and request."""
    from evalgui.core.workflows.casebase import CasebaseRequest, run_casebase
    from evalgui.core.workflows.metaeval import MetaevalRequest, run_metaeval
    from evalgui.core.workflows.stability import StabilityRequest, run_stability

    for name in ("qrels.txt", "bm25.run", "dense.run", "rerank.run"):
        shutil.copy(SAMPLE_DATA / "synthetic" / name, tmp_path / name)
    for name in ("cars.csv", "queries.csv", "model.json"):
        shutil.copy(SAMPLE_DATA / "cbr" / name, tmp_path / name)
    shutil.copy(SAMPLE_DATA / "rankfile" / "citations.tsv", tmp_path / "citations.tsv")
    runs = tuple(str(tmp_path / f"{r}.run") for r in ("bm25", "dense", "rerank"))
    metaeval = run_metaeval(MetaevalRequest(qrels=str(tmp_path / "qrels.txt"), runs=runs, measures=("AP", "P@10"),
                                            experiment="power", samples=200))
    stability = run_stability(StabilityRequest(rank_file=str(tmp_path / "citations.tsv"), total_ranks=5000,
                                               iterations=5, bootstrap=100, seed=3, error_rates=True))
    casebase = run_casebase(CasebaseRequest(train=str(tmp_path / "cars.csv"), test=str(tmp_path / "queries.csv"),
                                            model_file=str(tmp_path / "model.json"), mac_attributes=("price",),
                                            filter_sizes=(10,), ks=(5,)))
    project = save_project(str(tmp_path / "p.evalgui"),
                           outcomes={"metaeval": metaeval, "stability": stability, "casebase": casebase})
    out_dir = tmp_path / "out"
    status, out, err = run_cli(capsys, "run", project, "-o", out_dir, "--check")
    assert status == 0 and out == "", (out, err)
    plots = {e["file"]: e for e in json.loads((out_dir / "manifest.json").read_text())["files"] if "plot" in e}
    for name, workspace, what in [("metaeval-power-curves", "metaeval", "Discriminative power"),
                                  ("stability-error-vs-ties", "stability", "Error rate against tie rate"),
                                  ("stability-rate-by-queries", "stability", "Error rate against the number"),
                                  ("stability-significance-AP", "stability", "Significant differences: AP"),
                                  ("casebase-quality-vs-time-hits", "casebase", "Hits against retrieval time")]:
        for ext in ("png", "svg"):
            entry = plots[f"{name}.{ext}"]
            assert (out_dir / entry["file"]).stat().st_size > 0
            assert entry["workspace"] == workspace and entry["plot"].startswith(what), entry
    assert plots["metaeval-power-curves.svg"]["request"]["experiment"] == "power"
    assert plots["stability-error-vs-ties.png"]["request"]["iterations"] == 5


def test_a_written_heatmap_is_titled_and_names_measures_as_papers_whatever_the_window_was_set_to(project, tmp_path):
    """`run` writes the heatmap as the window's Export plot does (measure, test, "row minus column"), and the
    same command writes the same words on every machine: View ▸ Measure names is the window's, not the CLI's."""
    import os
    import subprocess
    import sys

    settings = tmp_path / "settings.ini"
    settings.write_text("[General]\nmeasure_names=trec_eval\n", encoding="utf-8")
    env = {**os.environ, "EVALGUI_SETTINGS": str(settings), "QT_QPA_PLATFORM": "offscreen"}
    out_dir = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "evalgui.cli", "run", str(project), "-o", str(out_dir)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    svg = (out_dir / "compare-heatmap-P@10.svg").read_text(encoding="utf-8")
    for text in ("P@10: mean difference", "Randomization (permutation), B = 500", "correction: Holm",
                 "row minus column"):
        assert text in svg, text
    assert "P_10" not in svg
