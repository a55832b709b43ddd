"""Compare systems: per measure, every pair (or every system against baselines) with a
significance test, a multiple-comparison correction and effect sizes.

The input is tidy per-query scores (run, query, measure, value), whether the
ranked engine just computed them or a file holds them. Which queries a test is
paired over is decided once per measure by :func:`align` and reported:

* ``shared`` (default): the queries of the universe (the qrels' topics, or every
  query in the scores table) that *every* compared run has; the others are
  dropped, and the report says which run lacked them.
* ``zero-filled`` (trec_eval's ``-c``): every query of the universe; a run that
  lacks one scores 0 there.

Every row of the result records how it was made (test, samples, seed,
correction, α, query policy, number of queries), so a CSV on its own says what
it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalgui.core import tidy
from evalgui.core.jobs import JobState, check_cap, state_or_default
from evalgui.core.stats import significance as sig
from evalgui.core.stats.catalogue import (CORRECTION_LABELS, DEFAULT_SAMPLES, MAX_SAMPLES, PREFERENCE_TESTS,
                                         RESAMPLING, TEST_LABELS, TESTS)
from evalgui.core.sums import query_mean

RUN_A, RUN_B = "run_a", "run_b"
COLUMNS = ("measure", RUN_A, RUN_B, "mean_a", "mean_b", "diff", "ci_low", "ci_high", "effect_size",
           "p_value", "p_adjusted", "significant", "wins", "ties", "losses", "n_queries")
PROVENANCE = ("test", "samples", "seed", "correction", "alpha", "queries")
CI_SAMPLES = 1_000       # bootstrap samples of the mean difference's CI (the bootstrap test's B when it runs)
SHARED, ZERO_FILLED = "shared", "zero-filled"


@dataclass(frozen=True)
class CompareOptions:
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    samples: int | None = None          # None: the test's default (randomization 10,000, bootstrap 1,000, ...)
    seed: int = 42
    baselines: tuple[str, ...] = ()     # empty: all pairs
    fill_missing: bool = False          # trec_eval's -c: a run's missing query scores 0
    tie_tolerance: float = 0.0          # |difference| within this is a tie in wins/ties/losses
    confidence: float = 0.95

    def __post_init__(self):
        sig.check_test(self.test)
        sig.check_correction(self.correction)
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be between 0 and 1, not {self.alpha}")
        if self.samples is not None and self.samples < 1:
            raise ValueError(f"the number of samples must be at least 1, not {self.samples}")
        if self.samples is not None:
            check_cap("the number of samples", self.samples, MAX_SAMPLES, "the running time")
        if not math.isfinite(self.tie_tolerance):
            raise ValueError(f"the tie tolerance must be a number, not {self.tie_tolerance}")
        if self.tie_tolerance < 0:
            raise ValueError("the tie tolerance cannot be negative")

    @property
    def resamples(self) -> int | None:
        """B of a resampling test (None for the others)."""
        if self.test not in RESAMPLING:
            return None
        return self.samples if self.samples is not None else DEFAULT_SAMPLES[self.test]

    @property
    def effective_correction(self) -> str:
        # Tukey's HSD already controls the family-wise error over all pairs.
        return "none" if TESTS[self.test].controls_family else self.correction

    @property
    def policy(self) -> str:
        return ZERO_FILLED if self.fill_missing else SHARED


@dataclass
class QuerySet:
    """The queries one measure's tests are paired over, and why others are not."""

    measure: str
    queries: list[str]
    policy: str
    universe: int                                  # queries that could have been compared
    missing: dict[str, list[str]] = field(default_factory=dict)   # run -> universe queries it has no value for

    @property
    def dropped(self) -> int:
        return 0 if self.policy == ZERO_FILLED else self.universe - len(self.queries)

    def describe(self) -> str:
        n = len(self.queries)
        if not self.missing:
            return f"{self.measure}: {n} queries, every run has all of them."
        lacking = "; ".join(f"{run} lacks {len(qs)}" for run, qs in self.missing.items())
        if self.policy == ZERO_FILLED:
            return f"{self.measure}: {n} queries; missing ones score 0 ({lacking})."
        return (f"{self.measure}: {n} of {self.universe} queries, those every run has; {self.dropped} dropped "
                f"({lacking}).")


def pairs_of(runs: list[str], baselines: tuple[str, ...] | list[str] = ()) -> list[tuple[int, int]]:
    """Indices (a, b) of the pairs to compare, in the order the runs were given.

    All pairs a < b; with baselines, each baseline (in the order given) against every
    other run, a baseline pair once."""
    index = {name: i for i, name in enumerate(runs)}
    unknown = [b for b in baselines if b not in index]
    if unknown:
        raise ValueError(f"baseline '{unknown[0]}' is not one of the compared runs ({', '.join(runs)})")
    if not baselines:
        return [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    out: list[tuple[int, int]] = []
    seen: set[frozenset] = set()
    for name in dict.fromkeys(baselines):
        a = index[name]
        for b in range(len(runs)):
            if b != a and frozenset((a, b)) not in seen:
                seen.add(frozenset((a, b)))
                out.append((a, b))
    return out


def align(scores: pd.DataFrame, runs: list[str], measure: str, universe: list[str] | None = None,
          fill_missing: bool = False) -> tuple[np.ndarray, QuerySet]:
    """Queries x runs matrix of one measure over the query set the policy gives."""
    rows = scores[scores[tidy.MEASURE] == measure]
    rows = rows[rows[tidy.QUERY] != tidy.ALL_QUERIES]
    wide = rows.pivot_table(index=tidy.QUERY, columns=tidy.RUN, values=tidy.VALUE, aggfunc="first")
    wide = wide.reindex(columns=runs)
    if universe is None:
        from evalgui.core.data import byte_sorted

        universe = byte_sorted(set(wide.index))
    wide = wide.reindex(index=universe)
    present = wide.notna()
    missing = {run: [q for q, ok in zip(universe, present[run].to_numpy()) if not ok]
               for run in runs if not present[run].all()}
    if fill_missing:
        kept = wide.fillna(0.0)
        policy = ZERO_FILLED
    else:
        kept = wide[present.all(axis=1)]
        policy = SHARED
    return kept.to_numpy(dtype=np.float64), QuerySet(measure, [str(q) for q in kept.index], policy,
                                                      len(universe), missing)


def one_query_warning(measure: str) -> str:
    return (f"{measure}: only one query to compare over; the p-values are undefined (left empty): "
            "a test needs two or more queries")


@dataclass
class Comparison:
    """What :func:`compare` returns: the tidy table, its query sets, and per-measure extras."""

    table: pd.DataFrame
    runs: list[str]
    measures: list[str]
    options: CompareOptions
    query_sets: dict[str, QuerySet]
    difference_required: dict[str, float] = field(default_factory=dict)   # bootstrap only: Sakai's estimate
    per_query: dict[str, pd.DataFrame] = field(default_factory=dict)      # measure -> queries x runs

    def rows(self, measure: str) -> pd.DataFrame:
        return self.table[self.table["measure"] == measure]

    @property
    def warnings(self) -> list[str]:
        """What the reader must know about the table: measures whose p-values are undefined."""
        return [one_query_warning(measure) for measure, query_set in self.query_sets.items()
                if len(query_set.queries) == 1]

    def matrix(self, measure: str, value: str = "diff") -> pd.DataFrame:
        """Runs x runs for one measure: ``diff`` (row − column), a p-value column (symmetric),
        ``wins`` (queries where the row beats the column) or any other column of the table."""
        out = pd.DataFrame(np.nan, index=self.runs, columns=self.runs)
        for row in self.rows(measure).itertuples(index=False):
            a, b = getattr(row, RUN_A), getattr(row, RUN_B)
            if value == "diff":
                out.loc[a, b], out.loc[b, a] = row.diff, -row.diff
            elif value in ("wins", "losses"):
                out.loc[a, b], out.loc[b, a] = (row.wins, row.losses) if value == "wins" else (row.losses, row.wins)
            elif value == "effect_size":
                out.loc[a, b], out.loc[b, a] = row.effect_size, -row.effect_size
            else:
                out.loc[a, b] = out.loc[b, a] = getattr(row, value)
        if value in ("diff", "effect_size", "wins", "losses"):
            for run in self.runs:
                out.loc[run, run] = 0.0
        return out

    def provenance(self) -> dict:
        o = self.options
        return {"test": o.test, "samples": o.resamples, "seed": o.seed if o.resamples else None,
                "correction": o.effective_correction, "alpha": o.alpha, "queries": o.policy}


def compare(scores: pd.DataFrame, runs: list[str], measures: list[str], options: CompareOptions = CompareOptions(),
            universe: list[str] | None = None, state: JobState | None = None) -> Comparison:
    """Compare ``runs`` on each of ``measures`` from tidy per-query ``scores``.

    ``universe``: the queries that could be compared (the qrels' topics); default, every
    query the scores have for that measure."""
    state = state_or_default(state)
    runs = list(dict.fromkeys(runs))
    if len(runs) < 2:
        raise ValueError("comparing needs at least two runs")
    known_runs = set(scores[tidy.RUN].unique())
    absent = [r for r in runs if r not in known_runs]
    if absent:
        raise ValueError(f"no scores for run '{absent[0]}'")
    known_measures = set(scores[tidy.MEASURE].unique())
    absent = [m for m in measures if m not in known_measures]
    if absent:
        raise ValueError(f"no scores for measure '{absent[0]}'")
    pairs = pairs_of(runs, options.baselines)
    first = np.array([a for a, _ in pairs], dtype=np.int64)
    second = np.array([b for _, b in pairs], dtype=np.int64)
    parts, query_sets, required, per_query = [], {}, {}, {}
    for m_index, measure in enumerate(measures):
        step = state.scaled(m_index / len(measures), (m_index + 1) / len(measures), f"{measure}: ")
        step.progress(0.0, f"testing {len(pairs)} pair(s)")
        matrix, query_set = align(scores, runs, measure, universe, options.fill_missing)
        query_sets[measure] = query_set
        per_query[measure] = pd.DataFrame(matrix, index=query_set.queries, columns=runs)
        part, estimate = _compare_measure(measure, matrix, first, second, runs, options, step)
        if estimate is not None:
            required[measure] = estimate
        parts.append(part)
        step.progress(1.0, "done")
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
    result = Comparison(table, runs, list(measures), options, query_sets, required, per_query)
    for column, value in result.provenance().items():
        table[column] = value
    return result


@dataclass
class PairTests:
    """The test of each compared pair: p-value, corrected p-value, significant at α."""

    p_value: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray
    difference_required: float | None = None    # bootstrap only: Sakai's estimate (largest over the pairs)


def pair_tests(diffs: np.ndarray, options: CompareOptions, state: JobState | None = None,
               matrix: np.ndarray | None = None, first: np.ndarray | None = None,
               second: np.ndarray | None = None) -> PairTests:
    """Test each row of a pairs x queries differences matrix under ``options`` and correct over the rows.

    Tukey's HSD tests the systems together, so it needs the queries x systems ``matrix`` and each
    row's columns (``first``, ``second``)."""
    state = state_or_default(state)
    n = diffs.shape[1]
    pairs = None if first is None else list(zip(first.tolist(), second.tolist()))
    out = sig.run_test(options.test, sig.TestInput(diffs, options.resamples, options.seed, options.alpha, state,
                                                   matrix, pairs))
    p = out.p
    estimate = None
    if out.difference_required is not None and len(diffs) and n >= 2:
        estimate = float(np.nanmax(out.difference_required))
    if n < 2:
        # One query (or none) cannot tell two systems apart: p is undefined, whatever the test.
        p = np.full(len(diffs), np.nan)
    adjusted = sig.correct(p, options.effective_correction)
    return PairTests(p, adjusted, adjusted < options.alpha, estimate)


def _pair_statistics(diffs: np.ndarray, options: CompareOptions, state: JobState, matrix: np.ndarray | None = None,
                     first: np.ndarray | None = None, second: np.ndarray | None = None) -> tuple[dict, PairTests]:
    """Per row of a pairs x queries matrix (differences, or preferences): the mean, its bootstrap CI,
    Cohen's d_z, the test under ``options``, wins / ties / losses and the number of queries."""
    n = diffs.shape[1]
    tests = pair_tests(diffs, options, state, matrix, first, second)
    ci_low, ci_high = sig.mean_ci(diffs, options.resamples if TESTS[options.test].ci_samples else CI_SAMPLES,
                                  options.seed, options.confidence, state=state)
    wins, ties, losses = sig.wins_ties_losses(diffs, options.tie_tolerance)
    return {"mean": query_mean(diffs.T, n) if n else np.nan, "ci_low": ci_low, "ci_high": ci_high,
            "effect_size": sig.cohens_dz(diffs), "p_value": tests.p_value, "p_adjusted": tests.p_adjusted,
            "significant": tests.significant, "wins": wins, "ties": ties, "losses": losses, "n_queries": n}, tests


def _compare_measure(measure: str, matrix: np.ndarray, first: np.ndarray, second: np.ndarray, runs: list[str],
                     options: CompareOptions, state: JobState) -> tuple[pd.DataFrame, float | None]:
    n = matrix.shape[0]
    diffs = (matrix[:, first] - matrix[:, second]).T          # pairs x queries
    means = query_mean(matrix, n) if n else np.full(len(runs), np.nan)
    statistics, tests = _pair_statistics(diffs, options, state, matrix, first, second)
    frame = pd.DataFrame({
        "measure": measure,
        RUN_A: [runs[i] for i in first], RUN_B: [runs[j] for j in second],
        "mean_a": means[first], "mean_b": means[second], "diff": statistics.pop("mean"), **statistics,
    }, columns=list(COLUMNS))
    return frame, tests.difference_required


# ---------------------------------------------------------------------------
# Preferences: the same tests, one-sample, on per-query preferences
# ---------------------------------------------------------------------------

# A per-query preference of run a over run b is already a paired quantity, antisymmetric (swapping the
# runs flips its sign), so "is the mean preference 0?" is what the paired tests ask of differences:
# the t-test is ttest_1samp(p, 0), Wilcoxon and the sign test read p's signs and ranks, the
# randomization test flips p's signs, the bootstrap resamples p. Tukey's HSD needs each system's own
# scores, which a preference has not (catalogue.PREFERENCE_TESTS).
PREFERENCE_COLUMNS = ("measure", RUN_A, RUN_B, "preference", "ci_low", "ci_high", "effect_size", "p_value",
                      "p_adjusted", "significant", "wins", "ties", "losses", "n_queries")
RANKING_COLUMNS = ("measure", "rank", tidy.RUN, "mean_preference", "win_rate", "wins", "ties", "losses",
                   "significant_wins", "significant_losses")
PREFERENCE_PROVENANCE = PROVENANCE + ("binary_threshold",)
# The queries of a preference: the qrels queries with a relevant document, a run without results there
# retrieving nothing (by the measures' definition; nothing is dropped).
WITH_RELEVANT = "with-relevant"


@dataclass
class PreferenceComparison:
    """What :func:`compare_preferences` returns: tidy frames, each with its provenance columns."""

    table: pd.DataFrame                  # PREFERENCE_COLUMNS: one row per tested pair and measure
    ranking: pd.DataFrame                # RANKING_COLUMNS: per measure, the runs from best to worst
    matrices: dict[str, pd.DataFrame]    # measure -> runs x runs mean preference of the row run over the column
    runs: list[str]
    measures: list[str]
    options: CompareOptions
    n_queries: int
    binary_threshold: int | None = None
    tested: bool = True                  # False: computed without a test (``table`` empty, no verdicts)

    def rows(self, measure: str) -> pd.DataFrame:
        return self.table[self.table["measure"] == measure]

    @property
    def warnings(self) -> list[str]:
        """Measures whose p-values are undefined (one query)."""
        return [one_query_warning(measure) for measure in self.measures] if self.n_queries == 1 else []

    def provenance(self) -> dict:
        o = self.options
        return {"test": o.test, "samples": o.resamples, "seed": o.seed if o.resamples else None,
                "correction": o.correction, "alpha": o.alpha, "queries": WITH_RELEVANT,
                "binary_threshold": self.binary_threshold}


def compare_preferences(result, options: CompareOptions = CompareOptions(),
                        state: JobState | None = None) -> PreferenceComparison:
    """Test each pair's per-query preferences (``result``: a :class:`~evalgui.core.ranked.preference.PreferenceResult`)
    under ``options``, correcting per measure over the pairs tested (all pairs, or against the
    baselines); and rank the runs from each measure's mean preference matrix.

    The ranking (:meth:`PreferenceResult.ranking_frame`: mean preference against the others, then
    win rate, the share of the others a run is preferred to) gains, per run, how many of its tested
    pairs it wins and loses significantly."""
    state = state_or_default(state)
    if options.test not in PREFERENCE_TESTS:
        raise ValueError(f"the {options.test} test compares each run's own scores, which a preference between "
                         f"two runs has not: choose {', '.join(PREFERENCE_TESTS[:-1])} or {PREFERENCE_TESTS[-1]}")
    runs, measures = list(result.run_names), list(result.measures)
    pairs = pairs_of(runs, options.baselines)
    # The result holds each unordered pair once: the tested pair (a, b) is that row, or its negation.
    stored = {(a, b): k for k, (a, b) in enumerate(zip(result.pair_a.tolist(), result.pair_b.tolist()))}
    rows = np.array([stored.get((a, b), stored.get((b, a))) for a, b in pairs], dtype=np.int64)
    signs = np.array([1.0 if (a, b) in stored else -1.0 for a, b in pairs])[:, None]
    first, second = [runs[a] for a, _ in pairs], [runs[b] for _, b in pairs]
    n = len(result.query_ids)
    parts, matrices = [], {}
    for index, measure in enumerate(measures):
        step = state.scaled(index / len(measures), (index + 1) / len(measures), f"{measure}: ")
        step.progress(0.0, f"testing {len(pairs)} pair(s)")
        preferences = result.per_query[measure][rows] * signs + 0.0       # + 0.0: no -0.0
        statistics, _ = _pair_statistics(preferences, options, step)
        parts.append(pd.DataFrame({"measure": measure, RUN_A: first, RUN_B: second,
                                   "preference": statistics.pop("mean"), **statistics},
                                  columns=list(PREFERENCE_COLUMNS)))
        matrices[measure] = result.matrix_frame(measure)
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(PREFERENCE_COLUMNS))
    comparison = PreferenceComparison(table, preference_ranking(result, table), matrices, runs, measures, options,
                                      n, result.binary_threshold)
    for frame in (comparison.table, comparison.ranking):
        for column, value in comparison.provenance().items():
            frame[column] = value
    state.progress(1.0, "Done")
    return comparison


def preference_ranking(result, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The runs ranked per measure (RANKING_COLUMNS); without the tests' ``table``, no significance columns."""
    columns = list(RANKING_COLUMNS) if table is not None else list(RANKING_COLUMNS[:-2])
    ranking = result.ranking_frame()
    if not len(ranking) or table is None:
        return ranking.reindex(columns=columns).reset_index(drop=True)
    # (a mean preference of exactly 0 wins nothing, even when its test says the preferences lean one way)
    significant = table[table["significant"].astype(bool) & (table["preference"] != 0)]
    winners = np.where(significant["preference"] > 0, significant[RUN_A], significant[RUN_B])
    losers = np.where(significant["preference"] > 0, significant[RUN_B], significant[RUN_A])
    measure = significant["measure"].to_numpy()

    def count(runs: np.ndarray) -> np.ndarray:
        counts = pd.Series(1, index=pd.MultiIndex.from_arrays([measure, runs])).groupby(level=[0, 1]).sum()
        keys = pd.MultiIndex.from_arrays([ranking["measure"], ranking[tidy.RUN]])
        return counts.reindex(keys, fill_value=0).to_numpy(dtype=np.int64)

    ranking["significant_wins"], ranking["significant_losses"] = count(winners), count(losers)
    return ranking[columns].reset_index(drop=True)


# ---------------------------------------------------------------------------
# The compact table for a paper: runs x measures, means with superscripts
# ---------------------------------------------------------------------------

PAPER_FORMATS = ("latex", "markdown")


def paper_table(comparison: Comparison, fmt: str = "latex", digits: int = 4, naming: str | None = None) -> str:
    """Runs x measures; each cell the mean, with the letters of the runs it beats significantly.
    ``naming``: the measures' heads in that naming (display.PAPER or TREC_EVAL); None: as named
    (HTML: as in papers).

    Runs are lettered a, b, c... in the order given; the best mean of a measure is bold. A note
    under the table says how significance was decided, so the table can be quoted on its own."""
    from evalgui.core.export import _latex_escape, markdown_escape

    if fmt not in PAPER_FORMATS and fmt != "html":
        raise ValueError(f"the paper table is written as {' or '.join(PAPER_FORMATS)}, not '{fmt}'")
    runs, measures = comparison.runs, comparison.measures
    letters = [_letter(i) for i in range(len(runs))]
    means = {m: _means(comparison, m) for m in measures}
    beats: dict[tuple[str, str], list[str]] = {(r, m): [] for r in runs for m in measures}
    for row in comparison.table[comparison.table["significant"]].itertuples(index=False):
        winner, loser = (row.run_a, row.run_b) if row.diff > 0 else (row.run_b, row.run_a)
        beats[(winner, row.measure)].append(letters[runs.index(loser)])
    latex, web = fmt == "latex", fmt == "html"

    def cell(run: str, measure: str) -> str:
        value = means[measure].get(run)
        if value is None or value != value:
            return "–"
        text = f"{value:.{digits}f}"
        shown = {r: f"{v:.{digits}f}" for r, v in means[measure].items() if v == v}
        best = max(shown.values(), key=float) if shown else None
        if text == best and list(shown.values()).count(best) == 1:
            text = f"\\textbf{{{text}}}" if latex else f"<strong>{text}</strong>" if web else f"**{text}**"
        marks = "".join(sorted(beats[(run, measure)], key=letters.index))
        if marks:
            text += f"$^{{{marks}}}$" if latex else f"<sup>{marks}</sup>"
        if web:
            return f'<td class="num" data-value="{value!r}">{text}</td>'
        return text

    note = _provenance_note(comparison, plain=fmt == "html")
    from evalgui.core.display import PAPER, measure_label

    def head(measure: str) -> str:
        return measure if naming is None else measure_label(measure, naming)

    if web:
        import html

        heads = "".join(f'<th scope="col">{html.escape(measure_label(m, naming or PAPER))}</th>' for m in measures)
        rows = "".join(f'<tr><th scope="row">({letters[i]}) {html.escape(run)}</th>'
                       + "".join(cell(run, m) for m in measures) + "</tr>" for i, run in enumerate(runs))
        return (f'<table class="paper"><thead><tr><th scope="col">Run</th>{heads}</tr></thead><tbody>{rows}</tbody>'
                f'</table><p class="footnote">{html.escape(note)}</p>\n')
    if latex:
        lines = ["\\begin{tabular}{l" + "r" * len(measures) + "}", "\\toprule",
                 "Run & " + " & ".join(_latex_escape(head(m)) for m in measures) + " \\\\", "\\midrule"]
        lines += [f"({letters[i]}) {_latex_escape(run)} & " + " & ".join(cell(run, m) for m in measures) + " \\\\"
                  for i, run in enumerate(runs)]
        lines += ["\\bottomrule", "\\end{tabular}", f"% {note}"]
    else:
        lines = ["| Run | " + " | ".join(markdown_escape(head(m)) for m in measures) + " |",
                 "|:---|" + "---:|" * len(measures)]
        lines += [f"| ({letters[i]}) {markdown_escape(run)} | " + " | ".join(cell(run, m) for m in measures) + " |"
                  for i, run in enumerate(runs)]
        lines += ["", note]
    return "\n".join(lines) + "\n"


def _letter(i: int) -> str:
    text = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def _means(comparison: Comparison, measure: str) -> dict[str, float]:
    frame = comparison.per_query[measure]
    if not len(frame):
        return {}
    return dict(zip(comparison.runs, query_mean(frame.to_numpy(), len(frame)).tolist()))


def _provenance_note(comparison: Comparison, plain: bool = False) -> str:
    """How significance was decided. ``plain``: in the window's words (a page for readers); else as the command
    line has always written it under LaTeX and Markdown tables."""
    p = comparison.provenance()
    counts = sorted({len(qs.queries) for qs in comparison.query_sets.values()})
    queries = "/".join(str(c) for c in counts)
    policy = "missing queries scored 0" if p["queries"] == ZERO_FILLED else "queries every run has"
    if plain:
        test = TEST_LABELS.get(p["test"], p["test"]) + (f" (B = {p['samples']:,}, seed {p['seed']})"
                                                         if p["samples"] else "")
        correction = CORRECTION_LABELS.get(p["correction"], p["correction"])
        correction = "no correction" if p["correction"] == "none" else f"{correction} correction"
        return (f"Superscripts: the runs this one beats significantly ({test}, {correction} for multiple "
                f"comparisons, α = {p['alpha']}; {queries} queries, {policy}).")
    test = p["test"] + (f" (B = {p['samples']:,}, seed {p['seed']})" if p["samples"] else "")
    return (f"Superscripts: runs this one beats significantly; {test}, correction {p['correction']}, "
            f"alpha = {p['alpha']}, {queries} queries ({policy}).")
