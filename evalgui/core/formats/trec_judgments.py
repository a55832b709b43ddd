"""trec_eval 10.0's other judgment files (``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg``) and its
z-score file (``-Z``).

- prefs: ``query  judgment_group  judgment_subgroup  docno  rel_level`` (rel_level a real number);
  within a subgroup a document with a higher rel_level is preferred to one with a lower rel_level.
- qrels_prefs: an ordinary qrels file read as preferences: ``query  judgment_group  docno  rel_level``
  (the second column, usually 0, is the judgment group; every group has one subgroup).
- qrels_jg: ``query  judgment_group  docno  grade``: one set of qrels per judgment group (user).
- z-scores: ``query  measure  mean  stddev``, the measure named as trec_eval prints it (P_5, map).

As trec_eval reads them, a line whose first character is ``#`` is a comment (a ``#`` later in a line
is data). These files are small (judged documents, not runs), so they are read line by line.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from evalgui.core.errors import EvalInputError
from evalgui.core.formats import _text

PREFS_LAYOUT = "query, judgment group, subgroup, document, relevance level"
QRELS_PREFS_LAYOUT = "query, judgment group, document, relevance level"
ZSCORES_LAYOUT = "query, measure, mean, standard deviation"


@dataclass
class PrefsJudgments:
    """Preference judgments, one row per input line (``-R prefs`` or ``-R qrels_prefs``)."""
    query: np.ndarray        # str objects
    group: np.ndarray        # judgment group (str)
    subgroup: np.ndarray     # judgment subgroup (str; "0" for qrels_prefs)
    doc: np.ndarray          # str
    level: np.ndarray        # float64 rel_level
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.level)

    @property
    def query_ids(self) -> list[str]:
        return _byte_sorted(set(self.query.tolist()))


@dataclass
class GroupQrels:
    """qrels with a judgment group per line (``-R qrels_jg``)."""
    query: np.ndarray
    group: np.ndarray
    doc: np.ndarray
    rel: np.ndarray          # int64
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.rel)


def _byte_sorted(items) -> list[str]:
    """Sorted as C's strcmp sorts (bytes of the UTF-8 text)."""
    return sorted(items, key=lambda s: s.encode())


def _real(token: bytes, source: str, lineno: int, what: str) -> float:
    text = token.decode()
    try:
        value = float(text)
    except ValueError:
        raise EvalInputError(source, f"the {what} '{text}' is not a number", lineno) from None
    if not math.isfinite(value):
        raise EvalInputError(source, f"the {what} '{text}' is not a finite number", lineno)
    return value


def _lines(path, n_columns: int, layout: str, comments: bool = True):
    source = os.fspath(path)
    data = _text.load_bytes(source)
    rows = []
    for lineno, tok in _text.iter_content_lines(data, source, comment_after_blanks=False) if comments else \
            _plain_lines(data, source):
        if len(tok) != n_columns:
            raise EvalInputError(source, f"expected {n_columns} columns ({layout}), found {len(tok)}", lineno)
        rows.append((lineno, tok))
    if not rows:
        raise EvalInputError(source, "no judgment lines (only comments or blank lines)")
    return source, rows


def _plain_lines(data: bytes, source: str):
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        tokens = raw.split()
        if tokens:
            _text.decode_line(raw, source, lineno)
            yield lineno, tokens


def _texts(rows, column: int) -> np.ndarray:
    return np.array([tok[column].decode() for _, tok in rows], dtype=object)


def read_trec_prefs(path: str | os.PathLike) -> PrefsJudgments:
    """Read a trec_eval prefs file (``-R prefs``)."""
    source, rows = _lines(path, 5, PREFS_LAYOUT)
    level = np.array([_real(tok[4], source, n, "relevance level") for n, tok in rows], dtype=np.float64)
    return PrefsJudgments(_texts(rows, 0), _texts(rows, 1), _texts(rows, 2), _texts(rows, 3), level, source)


def read_trec_qrels_prefs(path: str | os.PathLike) -> PrefsJudgments:
    """Read a qrels file as preferences (``-R qrels_prefs``): column 2 is the judgment group."""
    source, rows = _lines(path, 4, QRELS_PREFS_LAYOUT)
    level = np.array([_real(tok[3], source, n, "relevance level") for n, tok in rows], dtype=np.float64)
    return PrefsJudgments(_texts(rows, 0), _texts(rows, 1), np.full(len(rows), "0", dtype=object),
                          _texts(rows, 2), level, source)


def read_trec_qrels_jg(path: str | os.PathLike) -> GroupQrels:
    """Read qrels with judgment groups (``-R qrels_jg``). A document judged twice in one group is refused."""
    from evalgui.core.formats.trec import _INTEGER, grade_problem

    source, rows = _lines(path, 4, QRELS_PREFS_LAYOUT.replace("relevance level", "grade"))
    rels = []
    seen: dict[tuple[str, str, str], int] = {}
    for lineno, tok in rows:
        text = tok[3].decode()
        if not _INTEGER.fullmatch(text):
            raise EvalInputError(source, f"the relevance '{text}' is not an integer", lineno)
        problem = grade_problem(int(text))
        if problem:
            raise EvalInputError(source, problem, lineno)
        rels.append(int(text))
        key = (tok[0].decode(), tok[1].decode(), tok[2].decode())
        if key in seen:
            raise EvalInputError(source, f"document '{key[2]}' is judged twice for query '{key[0]}' in judgment "
                                         f"group '{key[1]}' (first on line {seen[key]})", lineno)
        seen[key] = lineno
    return GroupQrels(_texts(rows, 0), _texts(rows, 1), _texts(rows, 2), np.asarray(rels, dtype=np.int64), source)


def read_zscores(path: str | os.PathLike) -> dict[tuple[str, str], tuple[float, float]]:
    """Read a z-score file (``-Z``): (query, measure) -> (mean, standard deviation).

    trec_eval takes every line as data (no comments); blank lines are skipped here."""
    source, rows = _lines(path, 4, ZSCORES_LAYOUT, comments=False)
    out: dict[tuple[str, str], tuple[float, float]] = {}
    first: dict[tuple[str, str], int] = {}
    for lineno, tok in rows:
        key = (tok[0].decode(), tok[1].decode())
        if key in out:
            raise EvalInputError(source, f"measure '{key[1]}' of query '{key[0]}' is given twice "
                                         f"(first on line {first[key]})", lineno)
        out[key] = (_real(tok[2], source, lineno, "mean"), _real(tok[3], source, lineno, "standard deviation"))
        first[key] = lineno
    return out
