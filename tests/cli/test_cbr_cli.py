"""evalgui-cli similarity and casebase: the tables, formats, exports, and every bad input as one line with exit 2."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
import pytest

from evalgui.cli import main
from evalgui.core.resources import sample_data
from tests.test_cli import no_temp_files, run_cli, write

CBR = sample_data("cbr")
GT, EVALUATED = CBR / "procake_ground_truth.csv", CBR / "procake_evaluated.csv"
CARS = ["--train", CBR / "cars.csv", "--test", CBR / "queries.csv", "--model", CBR / "model.json"]


def run_any(capsys, *argv):
    """(status, stdout, stderr lines), whether the error is argparse's (SystemExit) or the command's."""
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def table(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), dtype={"k": "Int64", "filter_size": "Int64"})


# ---------------------------------------------------------------- similarity

def test_similarity_gives_procakes_table(capsys):
    status, out, err = run_cli(capsys, "similarity", "--ground-truth", GT, "--predicted", f"evaluated={EVALUATED}",
                               "-k", "2", "-m", "hits", "-m", "quality_stromer", "-m", "spearman")
    assert status == 0 and err == []
    assert out.splitlines() == ["retriever,k,metric,value", "evaluated,2,hits,1.0",
                                "evaluated,2,quality_stromer,0.6", "evaluated,2,spearman,1.0"]
    status, out, _ = run_cli(capsys, "similarity", "--ground-truth", GT, "--predicted", EVALUATED)
    frame = table(out)
    assert frame["retriever"].unique().tolist() == ["procake_evaluated"]     # named after the file
    assert frame["k"].isna().all() and out.splitlines()[1].startswith("procake_evaluated,,hits,3.0")
    values = frame.set_index("metric")["value"]
    assert values["quality_stromer"] == 0.444444444444444 and values["distance"] == 0.666666666666667
    assert len(values) == 11                                                  # every metric by default


def test_similarity_per_query_several_retrievers_and_formats(capsys, tmp_path):
    other = write(tmp_path, "other.csv", "query_id,case_id,similarity\nG1,G4,0.9\nG1,G3,0.8\nG1,G2,0.1\n")
    args = ["similarity", "--ground-truth", GT, "--predicted", f"a={EVALUATED}", "--predicted", f"b={other}",
            "-m", "hits", "-m", "mae(align=case)", "-k", "1", "-k", "3", "--per-query"]
    status, out, _ = run_cli(capsys, *args)
    frame = table(out)
    assert status == 0 and list(frame.columns) == ["retriever", "k", "query", "metric", "value"]
    assert frame[["retriever", "k", "query"]].drop_duplicates().values.tolist() == [
        ["a", 1, "G1"], ["a", 1, "all"], ["a", 3, "G1"], ["a", 3, "all"],
        ["b", 1, "G1"], ["b", 1, "all"], ["b", 3, "G1"], ["b", 3, "all"]]
    status, out, _ = run_cli(capsys, *args[:-1], "--format", "json")
    rows = json.loads(out)
    assert rows[0] == {"retriever": "a", "k": 1, "metric": "hits", "value": 1.0}
    status, out, _ = run_cli(capsys, "similarity", "--ground-truth", GT, "--predicted", EVALUATED, "-m", "hits",
                             "--format", "markdown")
    assert out.splitlines()[2] == "| procake_evaluated |  | hits | 3.0000 |"
    target = tmp_path / "out.tsv"
    assert run_cli(capsys, *args, "-o", target)[:2] == (0, "")
    assert target.read_text().startswith("retriever\tk\tquery\tmetric\tvalue\n") and no_temp_files(tmp_path)


def test_similarity_ties_option_and_ranked_measures(capsys, tmp_path):
    truth = write(tmp_path, "gt.csv", "query_id,case_id,similarity\nq,a,0.9\nq,b,0.5\nq,c,0.5\nq,d,0.1\n")
    rl = write(tmp_path, "rl.csv", "query_id,case_id,similarity\nq,a,0.8\nq,c,0.7\n")
    base = ["similarity", "--ground-truth", truth, "--predicted", f"r={rl}", "-m", "hits", "-k", "2"]
    assert table(run_cli(capsys, *base)[1])["value"].tolist() == [1.0]
    assert table(run_cli(capsys, *base, "--ties", "interchangeable")[1])["value"].tolist() == [2.0]
    worse = write(tmp_path, "worse.csv", "query_id,case_id,similarity\nq,a,0.8\nq,d,0.7\n")
    status, out, err = run_cli(capsys, "similarity", "--ground-truth", truth, "--predicted", f"w={worse}",
                               "-m", "P@2", "-m", "nDCG@2", "--relevance-thresholds", "0.4,0.8")
    frame = table(out).set_index("metric")              # grades: a 2, b 1, c 1, d 0
    assert status == 0 and frame.loc["P@2", "value"] == 0.5 and pd.isna(frame.loc["P@2", "k"])
    assert frame.loc["nDCG@2", "value"] == pytest.approx(2 / (2 + 1 / math.log2(3)))   # trec_eval: gain = grade
    status, _, err = run_cli(capsys, *base, "-m", "P@2", "--relevance-thresholds", "0.95")
    assert status == 0 and err == ["evalgui-cli: warning: 1 of 1 queries have no case with a similarity of at "
                                   "least 0.95; the ranked measures leave them out"]


@pytest.mark.parametrize("gt_text, rl_text, extra, words", [
    (None, "query_id,case_id,similarity\nG1,G9,0.5\n", [], ["rl.csv, line 2", "case 'G9' of query 'G1' is not in the ground truth"]),
    (None, "query_id,case_id,similarity\nG1,G2,0.5\nG7,G2,0.5\n", [], ["mismatched query sets", "G7"]),
    ("query_id,case_id,similarity\nG1,G2,0.5\nG5,G2,0.5\n", "query_id,case_id,similarity\nG1,G2,0.5\n", [],
     ["mismatched query sets", "lacks queries of the ground truth (G5)"]),
    (None, "query_id,case_id,similarity\nG1,G2,1.5\n", [], ["rl.csv, line 2", "the similarity 1.5 is outside [0, 1]"]),
    (None, "query_id,case_id,similarity\nG1,G2,high\n", [], ["rl.csv, line 2", "'high' is not a number"]),
    (None, "query,doc,score\nG1,G2,0.5\n", [], ["rl.csv, line 1", "no case column"]),
    (None, None, ["-k", "0"], ["-k 0: must be at least 1"]),
    (None, None, ["-m", "hitz"], ["unknown measure 'hitz'", "case-based metrics are hits"]),
    (None, None, ["-m", "nDCG@5"], ["need relevance thresholds"]),
    (None, None, ["--relevance-thresholds", "0.5,x"], ["expected similarities separated by commas"]),
    (None, None, ["--relevance-thresholds", "1.5", "-m", "P@1"], ["thresholds are similarities in (0, 1]"]),
])
def test_similarity_bad_input_is_one_line_and_exit_2(capsys, tmp_path, gt_text, rl_text, extra, words):
    gt = write(tmp_path, "gt.csv", gt_text) if gt_text else GT
    rl = write(tmp_path, "rl.csv", rl_text) if rl_text else EVALUATED
    status, out, err = run_any(capsys, "similarity", "--ground-truth", gt, "--predicted", f"rl={rl}", *extra)
    assert status == 2 and out == "" and len(err) == 1, err
    assert all(w in err[0] for w in words), err[0]


def test_similarity_needs_results_and_distinct_names(capsys):
    assert run_cli(capsys, "similarity", "--ground-truth", GT)[2] == [
        "evalgui-cli: error: give the results to evaluate with --predicted NAME=FILE"]
    status, _, err = run_cli(capsys, "similarity", "--ground-truth", GT, "--predicted", f"x={GT}", "--predicted",
                             f"x={EVALUATED}")
    assert status == 2 and "two retrievers are named 'x'" in err[0]


def test_measures_describes_every_metric_and_local_similarity(capsys):
    from evalgui.core.cbr.catalogue import LOCAL_SIMILARITIES, METRICS

    for family, registry in (("cbr", METRICS), ("cbr-similarity", LOCAL_SIMILARITIES)):
        status, out, _ = run_cli(capsys, "measures", "--family", family)
        listed = [line.split()[0] for line in out.splitlines()[1:] if line.strip()]
        assert status == 0 and listed == list(registry), family
        for name in registry:
            status, out, _ = run_cli(capsys, "measures", "--family", family, name)
            assert status == 0 and registry[name].formula in out and registry[name].description in out, name


# ---------------------------------------------------------------- casebase

def test_casebase_sweep_table_timings_and_ground_truth_export(capsys, tmp_path):
    exported = tmp_path / "gt.csv"
    status, out, err = run_cli(capsys, "casebase", *CARS, "--mac-model", CBR / "mac_model.json",
                               "--filter-sizes", "3,6", "--ks", "3,3", "-m", "hits", "-m", "quality_mueller",
                               "--export-ground-truth", exported)
    assert status == 0 and err == []
    frame = table(out)
    assert list(frame.columns) == ["retriever", "filter_size", "k", "metric", "value"]
    assert frame[["retriever", "filter_size"]].drop_duplicates().astype(object).fillna("").values.tolist() == [
        ["linear", ""], ["macfac", 3], ["macfac", 6]]
    values = frame.set_index(["retriever", "filter_size", "metric"])["value"]
    assert values[("linear", pd.NA, "hits")] == 3.0 and values[("macfac", 6, "hits")] == 3.0
    assert values[("macfac", 3, "mac_recall")] == pytest.approx(7 / 9)
    assert values[("macfac", 3, "speedup")] > 0 and values[("linear", pd.NA, "speedup")] == 1.0
    # the exported ground truth is the similarity command's input: linear against it is perfect
    assert exported.read_text().splitlines()[0] == "query_id,case_id,similarity"
    assert len(exported.read_text().splitlines()) == 1 + 3 * 20 and no_temp_files(tmp_path)
    status, out, _ = run_cli(capsys, "similarity", "--ground-truth", exported, "--predicted", f"again={exported}",
                             "-k", "3", "-m", "quality_stromer")
    assert status == 0 and table(out)["value"].tolist() == [1.0]


def test_casebase_with_one_file_leaves_each_query_out_and_mac_attributes(capsys):
    args = ["casebase", "--train", CBR / "cars.csv", "--model", CBR / "model.json", "--ks", "5", "-m", "hits",
            "--mac-attributes", "price,body", "--filter-sizes", "19"]
    status, out, _ = run_cli(capsys, *args, "--per-query")
    frame = table(out)
    assert status == 0 and frame["query"].nunique() == 21                 # 20 cars and "all"
    summary = frame[frame["query"] == "all"].set_index(["retriever", "metric"])["value"]
    assert summary[("macfac", "hits")] == 5.0 and summary[("macfac", "mac_recall")] == 1.0   # 19 = every other car
    status, out, _ = run_cli(capsys, *args, "--include-self", "--format", "json")
    assert status == 0 and json.loads(out)[0]["filter_size"] is None


def test_casebase_per_query_rows_add_up_to_the_summary(capsys):
    """--per-query: one row per query and metric before each configuration's summary rows (query 'all'); the
    summary is the mean of the defined per-query values (retrieval_seconds: their sum)."""
    status, out, _ = run_cli(capsys, "casebase", *CARS, "--mac-model", CBR / "mac_model.json", "--filter-sizes",
                             "3,6", "--ks", "3,3", "-m", "hits", "-m", "kendall", "-m", "nDCG@3",
                             "--relevance-thresholds", "0.6,0.8", "--per-query")
    frame = table(out)
    assert status == 0 and list(frame.columns) == ["retriever", "filter_size", "k", "query", "metric", "value"]
    keys = ["retriever", "filter_size", "k", "metric"]
    rows, summary = frame[frame["query"] != "all"], frame[frame["query"] == "all"]
    assert sorted(rows["query"].unique()) == ["q1", "q2", "q3"]
    assert set(summary["metric"]) == {"hits", "kendall", "nDCG@3", "retrieval_seconds", "seconds_per_query",
                                      "speedup", "mac_recall"}
    assert "speedup" not in set(rows["metric"])                     # a ratio of totals: no per-query value
    for key, group in rows.groupby(keys, dropna=False):
        total = summary.set_index(keys).loc[key, "value"]
        if key[3] == "retrieval_seconds":
            assert group["value"].sum() == pytest.approx(total, rel=1e-9)
        else:
            assert group["value"].mean() == pytest.approx(total, abs=1e-12), key


@pytest.mark.parametrize("files, extra, words", [
    ({}, ["--filter-sizes", "3,6", "--ks", "3", "--mac-attributes", "price"], ["lists must be equally long"]),
    ({}, ["--filter-sizes", "3", "--ks", "3"], ["MAC/FAC needs MAC's model"]),
    ({}, ["--filter-sizes", "3", "--ks", "3", "--mac-attributes", "colour"], ["the model has no attribute 'colour'"]),
    ({"model": '{"attributes": [{"name": "colour", "type": "categorical"}]}'}, [],
     ["m.json", "the attribute 'colour' is not a column of", "cars.csv"]),
    ({"model": '{"attributes": [{"name": "make", "type": "numeric"}]}'}, [],
     ["cars.csv, line 2", "case '1', column 'make': 'VW' is not a number"]),
    ({"model": '{"attributes": [{"name": "price", "measure": "jaccard_index"}]}'}, [],
     ["m.json, line 1", "does not fit a numeric attribute"]),
    ({"train": "id,price\n1,5\n1,6\n"}, [], ["line 3", "the case id '1' appears twice"]),
    ({}, ["--ks", "3,x"], ["expected whole numbers separated by commas"]),
    ({}, ["--id-column", "key"], ["no id column 'key'"]),
])
def test_casebase_bad_input_is_one_line_and_exit_2(capsys, tmp_path, files, extra, words):
    model = write(tmp_path, "m.json", files["model"]) if "model" in files else CBR / "model.json"
    train = write(tmp_path, "cars.csv", files["train"]) if "train" in files else CBR / "cars.csv"
    argv = ["casebase", "--train", train, "--test", CBR / "queries.csv", "--model", model, *extra]
    status, out, err = run_any(capsys, *argv)
    assert status == 2 and out == "" and len(err) == 1, err
    assert all(w in err[0] for w in words), err[0]
