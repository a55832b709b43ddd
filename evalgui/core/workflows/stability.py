"""Measure stability on ranks of test entities (the Ranking Evaluation Tool, Dunaiski et al. 2018).

The ranks are a rank file, or the ranks of the relevant documents of qrels in TREC runs. The
outcome's tables:

- ``actual``: each measure's value per system on all the entities (measure, one column per system);
- ``evaluation``: the measures' evaluation, one row per method, combination and fuzziness level
  (``experiment.EVAL_COLUMNS``; absent when only the values on all entities were asked for);
- ``significance``: the significance matrices as one table (measure, the combination, the row
  system, one column per system holding the star label);
- ``methods``: each method's id, the measure as asked for, and whether lower is better;
- ``legend``: the star label of each significance level;
- ``ranks``: where the ranks came from, and how many systems and entities they hold.

The outcome also carries the engine's objects (``plan``, ``results``, ``ranks``; not saved).
"""

from __future__ import annotations

from evalgui.core.errors import EvalUsageError
from evalgui.core.jobs import JobState, state_or_default
from evalgui.core.rankfile import (COMPAT_MODES, DEFAULT_MEASURES, DEFAULT_SIGS, MAX_ITERATIONS, MAX_SWAP_TRIALS,
                                   MAX_THREADS)
from evalgui.core.stats.catalogue import MAX_SAMPLES
from evalgui.core.workflows import Workflow
from evalgui.core.workflows.inputs import Inputs
from evalgui.core.workflows.outcome import Outcome
from evalgui.core.workflows.params import Param, Problem, Request

TREC_SHARE = 0.05            # of the progress bar: finding the relevant documents' ranks in the runs
MAX_RANKS = 1e15             # T: more entities than any ranking holds (the rank file's own limit)


# What each setting means, in words (no flag: the window shows them too; the command line adds its defaults).
HELP = {
    'level': 'The lowest grade that counts as relevant.',
    'missing_rank': 'The rank of a relevant document a run did not retrieve. Empty: the number of documents the run '
                    'retrieved for the query, plus 1.',
    'measures': 'The measures to evaluate, e.g. AP, nDCG@Avg, P@2000_per, or Average@k (one measure per cut-off). The'
                ' list of rank measures explains each.',
    'total_ranks': 'How many entities the systems ranked, T: needed only by the per-mille measures (_per) and '
                   'ROC_AUC.',
    'cutoffs': 'The cut-offs of the measures written with @k: one measure per value.',
    'splits': 'How many queries to split the entities into: each number is one experiment.',
    'sigs': 'The significance levels, which are also the fuzziness of the error and tie rates.',
    'systems': 'How many systems to draw at random: each number is one experiment. Empty: all of them.',
    'entities': 'How many entities to draw at random: each number is one experiment. Empty: all of them.',
    'iterations': 'How many times the entities are shuffled and split into queries; the results are averaged over '
                  'them.',
    'bootstrap': 'Bootstrap samples, for the significant pairs (bootstrap), the difference required and the swap '
                 'method.',
    'error_rates': 'Also compute the error and tie rates, the significant pairs (t-test) and the entities used.',
    'swap': "Decide significance (decisions, matrices) with the swap method's smallest swap difference instead of "
            "the bootstrap's difference required.",
    'seed': 'The random seed: the same seed gives the same results, however many processes run them.',
    'threads': 'How many processes run the experiments; the numbers do not depend on it.',
    'compat': "Reproduce the original tool's numbers, bugs included (docs/rankfile-compat.md).",
}


def _shape(request, inputs) -> tuple[int, int] | None:
    """(entities, systems) of the request's ranks, when they can be known without deriving them."""
    ranks = known_ranks(request, inputs)
    return None if ranks is None else ranks.ranks.shape


def _axis_limit(axis: int, least: int, noun: str):
    """Bounds from the ranks' size along ``axis`` (0: entities, 1: systems)."""
    def limit(request, inputs):
        shape = _shape(request, inputs) if request.experiments else None
        if shape is None:
            return None
        n = shape[axis]
        return least, n, f"the ranks hold {n:,} {noun}: choose from {least} to {n:,}"
    return limit


_entity_limit = _axis_limit(0, 1, "entities")
_system_limit = _axis_limit(1, 2, "systems")


def _bootstrap_limit(request, inputs):
    """The swap method keeps every trial of every pair of systems (with the original's bug 2, one per query)."""
    shape = _shape(request, inputs) if request.experiments else None
    if shape is None:
        return None
    systems = max(request.systems or (shape[1],))
    single = request.compat is not None and bool(request.splits)      # the published tool's bug 2
    trials = max(systems * (systems - 1) // 2 * (max(request.splits) if single else 1), 1)
    most = max(MAX_SWAP_TRIALS // trials, 1)
    return 1, most, (f"at most {most:,} with {systems} systems (a limit that protects memory: the swap method keeps "
                     "every trial of every pair of systems)")


def _split_limit(request, inputs):
    shape = _shape(request, inputs) if request.experiments else None
    if shape is None:
        return None
    fewest = min(request.entities or (shape[0],))
    asked = max(request.splits) if request.splits else 0
    return 2, fewest, (f"{fewest:,} entities cannot be split into {asked:,} queries; choose {fewest:,} or fewer")


RANK_FILE = Param(name="rank_file", type="file", default=None, flag="--file", short="-f", metavar="FILE",
                  label="Rank file",
                  help="The rank file: the experiment's name and one id per system, then one line per test entity "
                       "with its rank in each system (tab-separated).")
QRELS = Param(name="qrels", type="file", default=None, flag="--qrels", metavar="QRELS", label="Judgments (qrels)",
              group="Ranks from qrels and runs",
              help="Derive the ranks from these qrels and the runs: the entities are the (query, document) pairs "
                   "judged relevant, ranked where each run retrieves them.")
RUNS = Param(name="runs", type="files", default=(), metavar="RUN", label="Runs", group="Ranks from qrels and runs",
             help="The runs whose ranks of the relevant documents are compared (at least two), with the qrels.")
LEVEL = Param(name="level", type="int", default=1, flag="--level_for_rel", short="-l", metavar="N",
              label="Relevant from grade", group="Ranks from qrels and runs", help=HELP["level"])
MISSING_RANK = Param(name="missing_rank", type="float", default=None, optional=True, minimum=1,
                     flag="--missing-rank", metavar="R", label="Not retrieved: rank",
                     group="Ranks from qrels and runs", help=HELP["missing_rank"])
MEASURES = Param(name="measures", type="texts", default=DEFAULT_MEASURES, flag="--measure", short="-m",
                 metavar="MEASURE[@cutoff]", label="Measures", group="Measures", help=HELP["measures"])
TOTAL_RANKS = Param(name="total_ranks", type="float", default=None, optional=True, flag="--totalranks", short="-n",
                    metavar="T", maximum=MAX_RANKS, why_maximum="the range of ranks a rank file holds",
                    label="Total ranks T", group="Measures", help=HELP["total_ranks"])
CUTOFFS = Param(name="cutoffs", type="floats", default=(), flag="--cutoffs", metavar="K", label="Cut-offs k",
                group="Measures", help=HELP["cutoffs"])
EXPERIMENTS = Param(name="experiments", type="bool", default=True, label="Evaluate the measures", group="Experiments",
                    help="Split the entities into queries again and again to see how stable and sensitive each "
                         "measure is, and which systems differ significantly. Off: only each measure's value per "
                         "system on all the entities.")
SPLITS = Param(name="splits", type="ints", default=(10,), minimum=2, flag="--splits", metavar="Q",
               label="Queries (splits)", unit="queries", group="Experiments", limits=_split_limit,
               help=HELP["splits"])
SIGS = Param(name="sigs", type="floats", default=DEFAULT_SIGS, flag="--sigs", metavar="F", label="Fuzziness levels",
             group="Experiments", help=HELP["sigs"])
SYSTEMS = Param(name="systems", type="ints", default=(), minimum=2, flag="--systems", metavar="S",
                label="Systems drawn", unit="systems", group="Experiments", limits=_system_limit,
                help=HELP["systems"])
ENTITIES = Param(name="entities", type="ints", default=(), minimum=1, flag="--entities", metavar="E",
                 label="Entities drawn", unit="entities", group="Experiments", limits=_entity_limit,
                 help=HELP["entities"])
ITERATIONS = Param(name="iterations", type="int", default=50, minimum=1, maximum=MAX_ITERATIONS, flag="--iter",
                   short="-i", metavar="N", label="Iterations", group="Experiments",
                   why_maximum="the running time", help=HELP["iterations"])
BOOTSTRAP = Param(name="bootstrap", type="int", default=1000, minimum=1, maximum=MAX_SAMPLES, flag="--boot",
                  short="-b", metavar="B", label="Bootstrap samples", unit="samples", group="Experiments",
                  why_maximum="the running time", limits=_bootstrap_limit, help=HELP["bootstrap"])
ERROR_RATES = Param(name="error_rates", type="bool", default=False, flag="--err", short="-e",
                    label="Error and tie rates", group="Experiments", help=HELP["error_rates"])
SWAP = Param(name="swap", type="bool", default=False, flag="--swap", short="-w",
             label="Significance by the swap method", group="Experiments", help=HELP["swap"])
SEED = Param(name="seed", type="int", default=42, minimum=0, maximum=2**32 - 1, flag="--seed", short="-s",
             label="Random seed", group="Experiments", help=HELP["seed"])
THREADS = Param(name="threads", type="int", default=1, minimum=1, maximum=MAX_THREADS, flag="--threads",
                short="-t", metavar="N", label="Processes", group="Experiments", advanced=True,
                why_maximum="memory: each process holds its own copy of the work", help=HELP["threads"])
COMPAT = Param(name="compat", type="choice", default=None, optional=True,
               choices=((COMPAT_MODES[0], "Dunaiski et al. 2018, bugs included"),), flag="--compat",
               label="Reproduce the published tool's output", group="Experiments", advanced=True,
               help=HELP["compat"])


class StabilityRequest(Request):
    WORKSPACE = "stability"
    PARAMS = (RANK_FILE, QRELS, RUNS, LEVEL, MISSING_RANK, MEASURES, TOTAL_RANKS, CUTOFFS, EXPERIMENTS, SPLITS,
              SIGS, SYSTEMS, ENTITIES, ITERATIONS, BOOTSTRAP, ERROR_RATES, SWAP, SEED, THREADS, COMPAT)

    def cross_problems(self, inputs=None) -> list[Problem]:
        problems = []
        mentions = tuple(self.param(n) for n in ("rank_file", "qrels", "runs"))
        if self.qrels:
            if self.rank_file:
                problems.append(Problem(None, "give {rank_file}, or {qrels} and the runs, not both",
                                        mentions=mentions))
            elif len(self.runs) < 2:
                problems.append(Problem(self.param("runs"), f"comparing systems needs at least two runs; "
                                                            f"{len(self.runs)} given"))
        elif not self.rank_file:
            problems.append(Problem(None, "give {rank_file}, or {qrels} and at least two {runs}", mentions=mentions))
        if self.missing_rank is not None and self.missing_rank == float("inf"):
            problems.append(Problem(self.param("missing_rank"), "must be a finite number of at least 1",
                                    self.missing_rank))
        problems += self._measure_problems()
        if self.total_ranks is not None and not self.total_ranks > 0:
            problems.append(Problem(self.param("total_ranks"), "must be a positive number of ranked entities",
                                    self.total_ranks))
        if any(not 0 < f < 1 for f in self.sigs) or not self.sigs:
            problems.append(Problem(self.param("sigs"), "the significance levels must lie between 0 and 1",
                                    self.sigs))
        if any(not c > 0 for c in self.cutoffs):
            problems.append(Problem(self.param("cutoffs"), "cut-offs must be positive numbers", self.cutoffs))
        if self.experiments and not self.splits:
            problems.append(Problem(self.param("splits"), "give the numbers of queries to split the entities into"))
        combinations = len(self.splits) * max(len(self.systems), 1) * max(len(self.entities), 1)
        if self.experiments and combinations * self.iterations > MAX_ITERATIONS:
            problems.append(Problem(None, f"{combinations:,} combinations of {{splits}}, {{systems}} and {{entities}}, "
                                          f"each run {self.iterations:,} times ({{iterations}}): at most "
                                          f"{MAX_ITERATIONS:,} iterations in all (a limit that protects the running "
                                          "time)",
                                    mentions=tuple(self.param(n) for n in ("splits", "systems", "entities",
                                                                           "iterations"))))
        return problems

    def _measure_problems(self) -> list[Problem]:
        from evalgui.core.rankfile.measures import parse_measure

        if not self.measures:
            return [Problem(self.param("measures"), "choose at least one measure")]
        specs = []
        for text in self.measures:
            try:
                specs.append(parse_measure(text))
            except EvalUsageError as exc:
                return [Problem(self.param("measures"), str(exc), text)]
        problems = []
        needing = [s.name for s in specs if s.needs_total]
        if needing and self.total_ranks is None:
            problems.append(Problem(self.param("total_ranks"),
                                    f"{_and(needing)} need{'s' if len(needing) == 1 else ''} the total number of "
                                    "ranked entities (how many the systems ranked)"))
        ranged = [s.name for s in specs if s.has_range]
        if ranged and not self.cutoffs:
            problems.append(Problem(self.param("cutoffs"), f"{_and(ranged)}: give the cut-offs (e.g. 10, 100)"))
        return problems

    def source(self, inputs: Inputs | None = None) -> str:
        """Where the ranks come from, in words ("testranks.txt", "qrels.txt, 3 runs")."""
        import os

        def named(path):
            return (inputs.name(path) if inputs is not None else None) or os.path.basename(path)

        if self.qrels:
            return f"{named(self.qrels)}, {len(self.runs)} runs"
        return named(self.rank_file) if self.rank_file else ""


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------- the ranks

def _derived_key(request: StabilityRequest) -> str:
    return f"<ranks of {request.qrels} {'|'.join(request.runs)} {request.level} {request.missing_rank}>"


def known_ranks(request: StabilityRequest, inputs: Inputs | None):
    """The RankFile, when it is a file or was derived already (None: it must be derived first)."""
    if inputs is None:
        return None
    if request.rank_file and not request.qrels:
        return inputs.get(request.rank_file, "rank file")
    key = _derived_key(request)
    return inputs.get(key, "rank file") if inputs.has(key) else None


def ranks_of(request: StabilityRequest, inputs: Inputs):
    """The RankFile the request names: read, or derived from the qrels and runs (and kept in ``inputs``)."""
    import dataclasses

    known = known_ranks(request, inputs)
    if known is not None:
        return known
    from evalgui.core.rankfile.ranks import ranks_from_trec

    from evalgui.core.ranked.evaluate import runs_sharing_no_query

    qrels = inputs.get(request.qrels, "qrels")
    runs = [inputs.get(path, "run") for path in request.runs]
    # A run sharing no query with the qrels ranks every relevant document "not retrieved": as evaluate, said.
    lonely = runs_sharing_no_query(qrels, runs)
    if len(lonely) == len(runs):
        raise EvalUsageError(f"no query has both results and relevance information ({request.qrels}; "
                             f"{', '.join(request.runs)})")
    inputs.add(_derived_key(request) + " notes",
               [f"{run.source} has no query in {request.qrels}; it ranks no relevant document" for run in lonely])
    ranks = ranks_from_trec(qrels, runs, relevance_level=request.level, missing_rank=request.missing_rank)
    if not ranks.entities:
        raise EvalUsageError(f"{request.qrels}: no document is judged relevant at level {request.level} or above, "
                             "so there is nothing to rank")
    names = [inputs.name(path) for path in request.runs]
    if all(names):
        ranks = dataclasses.replace(ranks, systems=list(names))
    inputs.add(_derived_key(request), ranks)
    return ranks


def settings_of(request: StabilityRequest):
    """The engine's Settings of a request."""
    from evalgui.core.rankfile.compat import preset
    from evalgui.core.rankfile.experiment import Settings

    return Settings(measures=tuple(request.measures), iterations=request.iterations, bootstrap=request.bootstrap,
                    splits=tuple(request.splits), systems=tuple(request.systems), entities=tuple(request.entities),
                    sigs=tuple(request.sigs), cutoffs=tuple(request.cutoffs), total_ranks=request.total_ranks,
                    error_rates=request.error_rates, swap=request.swap, experiments=request.experiments,
                    seed=request.seed, threads=request.threads, compat=preset(request.compat))


def plan_of(request: StabilityRequest, inputs: Inputs):
    """The request checked against its ranks (RequestError names each bad value) and expanded."""
    from evalgui.core.rankfile.experiment import plan

    request.check()                       # before any file is read
    ranks = ranks_of(request, inputs)
    request.check(inputs)                 # the bounds that depend on the ranks
    checked = plan(ranks, settings_of(request))
    if request.qrels:                     # what deriving the ranks found, said first
        checked.warnings[:0] = inputs.get(_derived_key(request) + " notes", "notes")
    return checked


def run_stability(request: StabilityRequest, state: JobState | None = None, inputs: Inputs | None = None) -> Outcome:
    """The ranks, then the experiments (as the original tool runs them); the tables are listed in the module's doc."""
    from evalgui.core.rankfile.experiment import run

    state = state_or_default(state)
    inputs = inputs or Inputs()
    share = 0.0
    if request.qrels and known_ranks(request, inputs) is None:
        state.progress(0.0, "Finding the relevant documents' ranks in the runs…")
        share = TREC_SHARE
    checked = plan_of(request, inputs)
    state.check()
    results = run(checked, state.scaled(share, 1.0))
    return stability_outcome(request, checked, results, request.source(inputs)).stamp()


def stability_outcome(request, checked, results, source: str) -> Outcome:
    import pandas as pd

    from evalgui.core.rankfile.measures import parse_measure

    ranks = checked.ranks
    tables = {
        "actual": results.actual,
        "significance": results.significance_table(),
        "methods": pd.DataFrame({"method": [m.id for m in checked.methods],
                                 "measure": [m.norm for m in checked.methods],
                                 "lower_better": [bool(parse_measure(m.norm).lower_better) for m in checked.methods]}),
        "legend": pd.DataFrame({"label": [label for label, _ in results.legend],
                                "level": [float(level) for _, level in results.legend]}),
        "ranks": pd.DataFrame({"source": [source], "systems": [len(ranks.systems)],
                               "entities": [len(ranks.entities)]}),
    }
    if results.evaluation is not None:
        tables["evaluation"] = results.evaluation
    outcome = Outcome("stability", request, tables, list(checked.warnings))
    outcome.source, outcome.plan, outcome.results, outcome.ranks = source, checked, results, ranks
    return outcome


WORKFLOWS = (
    Workflow("stability", "stability", "Measure stability", StabilityRequest, run_stability),
)
