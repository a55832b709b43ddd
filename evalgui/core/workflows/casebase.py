"""Case-based retrieval: retrieval runs on case bases (:class:`CasebaseRequest`), and retrievers' similarity
files against a ground truth (:class:`SimilarityRequest`).

Both outcomes hold:

- ``results``: the engine's tidy table, one row per retriever configuration and metric (retriever,
  [filter_size,] k, [query,] metric, value); with ``per_query`` also one row per query, the summary's
  query being "all" (what ``evalgui-cli casebase`` / ``similarity`` write);
- ``wide``: the summary as a grid, one row per retriever configuration (retriever, [filter_size,] k), one
  column per metric (timings included), for people comparing configurations.

They also carry the engine's objects (``result``: the CaseBaseResult of a retrieval run;
``ground_truth`` and, when asked, ``lists``: every retriever's ranked lists; not saved).

The similarity model is a compound value: a list of attribute records (name, type, measure, weight,
parameters, delimiter), the JSON of a model file's ``attributes``; a model file may be named instead.
"""

from __future__ import annotations

import os

from evalgui.core.errors import EvalInputError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.workflows.params import Param, Problem, Request

RETRIEVER, FILTER_SIZE, K, QUERY, METRIC, VALUE = "retriever", "filter_size", "k", "query", "metric", "value"
MAX_K = 10**12                    # more cases than any list holds; larger values would overflow the arrays
MAX_FILTER_SIZE = 10**12
WHY_COUNT = "the arrays' whole numbers"
TIES = (("case_id", "Broken by case id"), ("interchangeable", "Interchangeable for hits"))
# Measured times differ from run to run: a re-run (evalgui-cli run --check) leaves them out of the comparison.
TIMINGS = ("retrieval_seconds", "seconds_per_query", "speedup")

# ------------------------------------------------------------------ shared by both requests
PREDICTED = Param(name="predicted", type="files", default=(), flag="--predicted", metavar="NAME=FILE",
                  label="Imported retrievers' results",
                  help="A retriever's similarity results (query_id, case_id, similarity), named NAME (default: the "
                       "file's name); repeatable.")
PREDICTED_NAMES = Param(name="predicted_names", type="texts", default=(), label="Names of the imported retrievers",
                        help="What the results call each imported retriever, in the order of its file (empty, or "
                             "an empty name: the file's name).")
METRICS = Param(name="metrics", type="texts", default=(), flag="--metric", short="-m", metavar="METRIC",
                label="Metrics",
                help="The metrics to compute (empty: every case-based metric); ranked measures (nDCG@10, P@5, AP…) "
                     "need relevance thresholds.")
TIES_PARAM = Param(name="ties", type="choice", default="case_id", choices=TIES, flag="--ties",
                   label="Ties in the ground truth",
                   help="Cases of equal true similarity: broken by case id (default), or interchangeable for hits.")
THRESHOLDS = Param(name="relevance_thresholds", type="floats", default=(), flag="--relevance-thresholds",
                   metavar="T1,T2", label="Relevance thresholds",
                   help="For ranked measures: a case is relevant with grade g when its true similarity reaches the "
                        "g-th threshold.")
PER_QUERY = Param(name="per_query", type="bool", default=False, flag="--per-query", label="Per-query rows",
                  help="Also one row per query (the summary's query is 'all').")


def _model_param(name: str, flag: str | None, label: str, help: str) -> Param:
    return Param(name=name, type="json", default=None, optional=True, flag=flag, label=label, help=help)


class CasebaseRequest(Request):
    WORKSPACE = "casebase"
    PARAMS = (
        Param(name="train", type="file", default=None, flag="--train", metavar="FILE",
              label="Case base (retrieve from)", help="The case base to retrieve from."),
        Param(name="test", type="file", default=None, flag="--test", metavar="FILE", label="Queries",
              help="The queries, a case base (empty: the train case base)."),
        Param(name="model_file", type="file", default=None, flag="--model", metavar="M.json",
              label="Similarity model file", help="The similarity model, a JSON file."),
        _model_param("model", None, "Similarity model",
                     "The similarity model: one record per attribute (name, type, measure, weight, parameters), "
                     "as a model file's \"attributes\"."),
        Param(name="mac_model_file", type="file", default=None, flag="--mac-model", metavar="M2.json",
              label="MAC model file", help="MAC's cheaper model, a JSON file."),
        _model_param("mac_model", None, "MAC model", "MAC's cheaper model, as attribute records."),
        Param(name="mac_attributes", type="texts", default=(), flag="--mac-attributes", metavar="A,B",
              label="MAC's attributes", help="MAC's model: these attributes of the similarity model."),
        Param(name="filter_sizes", type="ints", default=(), minimum=1, maximum=MAX_FILTER_SIZE,
              flag="--filter-sizes", metavar="F1,F2", label="Filter sizes", unit="cases",
              why_maximum=WHY_COUNT,
              help="MAC/FAC: the candidates MAC keeps, paired position by position with the values of k."),
        Param(name="ks", type="ints", default=(), minimum=1, maximum=MAX_K, flag="--ks", metavar="K1,K2",
              label="Values of k", unit="cases", why_maximum=WHY_COUNT,
              help="The number of cases returned (MAC/FAC's, and the linear retriever's)."),
        PREDICTED, PREDICTED_NAMES, METRICS, TIES_PARAM, THRESHOLDS, PER_QUERY,
        Param(name="id_column", type="text", default=None, optional=True, flag="--id-column", metavar="NAME",
              label="Case id column", advanced=True, help="The case id column (default: 'id', else the first)."),
        Param(name="delimiter", type="text", default=";", flag="--delimiter", label="Separator of set values",
              advanced=True, help="The separator of set values."),
        Param(name="include_self", type="bool", default=False, flag="--include-self",
              label="A query may retrieve itself",
              help="Let a query retrieve the train case with its own id (when test and train are the same file)."),
    )

    def cross_problems(self, inputs=None) -> list[Problem]:
        p = self.param
        problems = []
        if not self.train:
            problems.append(Problem(p("train"), "the case base to retrieve from is needed"))
        if bool(self.model_file) == (self.model is not None):
            problems.append(Problem(None, "give the similarity model: {model_file} or the attribute records",
                                    mentions=(p("model_file"),)))
        macs = [n for n in ("mac_model_file", "mac_model", "mac_attributes") if getattr(self, n)]
        if len(macs) > 1:
            problems.append(Problem(None, "give MAC's model one way: {mac_model_file} or {mac_attributes}",
                                    mentions=(p("mac_model_file"), p("mac_attributes"))))
        if self.filter_sizes and not macs:
            problems.append(Problem(None, "MAC/FAC needs MAC's model: {mac_model_file} or {mac_attributes}",
                                    mentions=(p("mac_model_file"), p("mac_attributes"))))
        if self.filter_sizes and len(self.filter_sizes) != len(self.ks):
            problems.append(Problem(p("filter_sizes"), f"the filter sizes and values of k pair up position by "
                                                       f"position, so the lists must be equally long "
                                                       f"({len(self.filter_sizes)} filter sizes, {len(self.ks)} ks)"))
        else:
            for f, k in zip(self.filter_sizes, self.ks):
                if f < k:
                    problems.append(Problem(p("filter_sizes"), f"a filter size ({f}) smaller than its k ({k}) "
                                                               "cannot return k cases", self.filter_sizes))
                    break
        train = self._train(inputs)
        for name in ("model", "mac_model"):
            problems += model_problems(p(name), getattr(self, name), train)
        problems += _predicted_problems(self)
        return problems

    def _train(self, inputs):
        if inputs is None or not self.train:
            return None
        return read_case_base(self, self.train, inputs)


class SimilarityRequest(Request):
    WORKSPACE = "casebase"
    PARAMS = (
        Param(name="ground_truth", type="file", default=None, flag="--ground-truth", metavar="FILE",
              label="Ground truth",
              help="The ground-truth similarities (query_id, case_id, similarity): what an exhaustive retriever "
                   "found."),
        PREDICTED, PREDICTED_NAMES, METRICS,
        Param(name="ks", type="ints", default=(), minimum=1, maximum=MAX_K, flag="-k", metavar="K",
              label="Values of k", unit="cases", why_maximum=WHY_COUNT,
              help="Cut both lists to their top K; repeatable (empty: the whole lists)."),
        TIES_PARAM, THRESHOLDS, PER_QUERY,
    )

    def cross_problems(self, inputs=None) -> list[Problem]:
        problems = []
        if not self.ground_truth:
            problems.append(Problem(self.param("ground_truth"), "the ground truth is needed"))
        if not self.predicted:
            problems.append(Problem(None, "give the results to evaluate with {predicted}",
                                    mentions=(self.param("predicted"),)))
        return problems + _predicted_problems(self)


# ------------------------------------------------------------------ checks

def model_problems(param: Param, value, case_base=None) -> list[Problem]:
    """What is wrong with a model's attribute records, naming the attribute ([] when nothing is)."""
    if value is None:
        return []
    records = value.get("attributes") if isinstance(value, dict) else value
    if not isinstance(records, list):
        return [Problem(param, "expected a list of attribute records (name, type, measure, weight, parameters)")]
    for i, record in enumerate(records, 1):
        if not isinstance(record, dict) or not isinstance(record.get("name"), str) or not record["name"]:
            return [Problem(param, f"attribute {i} needs a name (the case base's column)")]
    if case_base is None and any("type" not in r for r in records):
        return []                       # the case base gives the types left out: checked when it is read
    from evalgui.core.cbr.model import SimilarityModel

    try:
        SimilarityModel.from_dict({"attributes": records}, param.label, case_base=case_base)
    except EvalInputError as exc:
        return [Problem(param, exc.reason)]
    return []


def name_and_file(text: str) -> tuple[str, str]:
    """NAME=FILE, or FILE (named after the file)."""
    name, sep, path = text.partition("=")
    if sep and name and os.sep not in name and not os.path.exists(text):
        return name, path
    from evalgui.core.formats._text import file_stem

    return file_stem(text), text


def predicted_names(request) -> list[str]:
    """Each imported retriever's name: the one given, else its file's."""
    from evalgui.core.formats._text import file_stem

    given = list(request.predicted_names) + [""] * (len(request.predicted) - len(request.predicted_names))
    return [name or file_stem(path) for name, path in zip(given, request.predicted)]


def split_predicted(specs) -> dict:
    """NAME=FILE (or FILE) texts as the request's ``predicted`` and ``predicted_names``."""
    named = [name_and_file(s) for s in specs]
    return {"predicted": tuple(path for _, path in named), "predicted_names": tuple(name for name, _ in named)}


def _predicted_problems(request) -> list[Problem]:
    if len(request.predicted_names) > len(request.predicted):
        return [Problem(request.param("predicted_names"), f"{len(request.predicted_names)} names for "
                                                          f"{len(request.predicted)} imported results")]
    names = predicted_names(request)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        return [Problem(request.param("predicted"), f"two retrievers are named '{repeated[0]}': name them NAME=FILE")]
    return []


# ------------------------------------------------------------------ inputs

def read_case_base(request: CasebaseRequest, path: str, inputs: Inputs):
    options = {"delimiter": request.delimiter}
    if request.id_column is not None:
        options["id_column"] = request.id_column
    return inputs.get(path, "case base", **options)


def _same_path(a: str, b: str) -> bool:
    return a == b or os.path.abspath(a) == os.path.abspath(b)


def models_of(request: CasebaseRequest, train):
    """(the similarity model, MAC's model or None) of a request, checked against the train case base."""
    from evalgui.core.cbr.model import SimilarityModel, load_model

    def built(file, records, label):
        if file:
            return load_model(file, train)
        records = records.get("attributes") if isinstance(records, dict) else records
        return SimilarityModel.from_dict({"attributes": records}, label, case_base=train)

    model = built(request.model_file, request.model, request.param("model").label)
    if request.mac_model_file or request.mac_model is not None:
        mac = built(request.mac_model_file, request.mac_model, request.param("mac_model").label)
    elif request.mac_attributes:
        mac = model.subset(list(request.mac_attributes))
    else:
        mac = None
    return model, mac


def _predicted(request, inputs: Inputs) -> list[tuple[str, object]]:
    return [(name, inputs.get(path, "similarity results"))
            for name, path in zip(predicted_names(request), request.predicted)]


# ------------------------------------------------------------------ running

def run_casebase(request: CasebaseRequest, state: JobState | None = None, inputs: Inputs | None = None) -> Outcome:
    """The linear retriever (the ground truth), MAC/FAC for each (filter size, k) pair, imported results; all
    timed and evaluated. The tables are listed in the module's doc."""
    from evalgui.core.cbr.evaluate import CaseBaseRun
    from evalgui.core.cbr.evaluate import run_casebase as retrieve

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    train = read_case_base(request, request.train, inputs)
    same = request.test is None or _same_path(request.test, request.train)
    test = train if same else read_case_base(request, request.test, inputs)
    model, mac = models_of(request, train)
    predicted = dict(_predicted(request, inputs))
    run = CaseBaseRun(train, test, model, mac, tuple(request.filter_sizes), tuple(request.ks), list(request.metrics),
                      predicted, exclude_self=same and not request.include_self, ties=request.ties,
                      per_query=request.per_query, relevance_thresholds=tuple(request.relevance_thresholds))
    result = retrieve(run, state)
    outcome = Outcome("casebase", request, {"results": result.table, "wide": wide_table(result.table)},
                      list(result.warnings))
    outcome.result, outcome.ground_truth = result, result.ground_truth
    outcome.stamp()
    outcome.provenance["varying"] = {"metrics": list(TIMINGS), "columns": list(TIMINGS)}
    return outcome


def run_similarity(request: SimilarityRequest, state: JobState | None = None, inputs: Inputs | None = None,
                   lists: bool = False) -> Outcome:
    """Each retriever's results against the ground truth; with ``lists``, the outcome also carries the ground
    truth's and every retriever's ranked lists (for the drill-down)."""
    from evalgui.core.cbr.evaluate import evaluate_results

    state = state_or_default(state)
    inputs = inputs or Inputs()
    request.check()
    truth = inputs.get(request.ground_truth, "similarity results")
    predicted = _predicted(request, inputs)
    table, warnings = evaluate_results(truth, predicted, list(request.metrics), list(request.ks) or [None],
                                       ties=request.ties, per_query=request.per_query,
                                       relevance_thresholds=tuple(request.relevance_thresholds), state=state)
    outcome = Outcome("casebase", request, {"results": table, "wide": wide_table(table)}, list(warnings))
    outcome.ground_truth, outcome.lists = None, {}
    if lists:
        from evalgui.core.cbr.lists import aligned_lists, ground_truth_lists

        outcome.ground_truth = ground_truth_lists(truth)
        outcome.lists = {name: aligned_lists(results, outcome.ground_truth, name) for name, results in predicted}
    return outcome.stamp()


def wide_table(table):
    """The summary rows as a grid: one row per retriever configuration (retriever, [filter_size,] k), in the
    table's order, one column per metric in its order."""
    import numpy as np
    import pandas as pd

    summary = table[table[QUERY] == "all"].drop(columns=QUERY) if QUERY in table.columns else table
    keys = [c for c in (RETRIEVER, FILTER_SIZE, K) if c in summary.columns]
    metrics = list(dict.fromkeys(summary[METRIC].tolist()))
    # Each row's configuration, in order of first appearance (a missing filter size or k matches another).
    row = summary.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()
    first = np.unique(row, return_index=True)[1]
    configurations = summary[keys].iloc[first].reset_index(drop=True)
    column = pd.Index(metrics).get_indexer(summary[METRIC])
    grid = np.full((len(configurations), len(metrics)), np.nan)
    grid[row, column] = summary[VALUE].to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.concat([configurations, pd.DataFrame(grid, columns=metrics)], axis=1)


WORKFLOWS = (
    Workflow("casebase", "casebase", "Case-based retrieval", CasebaseRequest, run_casebase),
    Workflow("similarity", "casebase", "Case-based retrieval: similarity files", SimilarityRequest, run_similarity),
)
