"""Local similarities, vectorised: one attribute's similarity for a block of queries against every case,
or for given (query, case) pairs.

Each attribute is encoded once for a pair of case bases (test = queries, train = cases):
numbers as float arrays, categories as codes over both case bases' values, sets and
words as sparse incidence matrices (scipy.sparse), vectors as unit rows, text as
strings for rapidfuzz. :meth:`Local.block` gives a (queries x cases) block,
:meth:`Local.pairs` the similarities of paired indices; both also return where both
cases have a value (None: everywhere).

The measures' descriptions and formulas are in :mod:`evalgui.core.cbr.catalogue`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from evalgui.core.cbr.catalogue import MEASURES_BY_TYPE

_WORD = re.compile(r"\w+")
# A dense query block of a set attribute costs queries x vocabulary numbers; above this
# vocabulary size the block is multiplied sparse.
_DENSE_VOCABULARY = 4096
# Sets over at most this many distinct members are also kept as bit sets.
_BIT_SET_MEMBERS = 256


# ---------------------------------------------------------------- parameters

def _number(params: dict, key: str, default, *, low: float | None = None, strict: bool = False):
    value = params.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"the parameter {key} must be a number, not {value!r}")
    if low is not None and (value <= low if strict else value < low):
        raise ValueError(f"the parameter {key} must be {'above' if strict else 'at least'} {low:g}, not {value!r}")
    return float(value)


def _flag(params: dict, key: str, default: bool) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"the parameter {key} must be true or false, not {value!r}")
    return value


def _table(params: dict) -> dict[str, dict[str, float]]:
    table = params.get("table")
    if not isinstance(table, dict) or not all(isinstance(row, dict) for row in table.values()):
        raise ValueError("the parameter table must be an object {query value: {case value: similarity}}")
    out = {}
    for a, row in table.items():
        for b, sim in row.items():
            if isinstance(sim, bool) or not isinstance(sim, (int, float)) or not 0 <= sim <= 1:
                raise ValueError(f"table['{a}']['{b}'] must be a similarity in [0, 1], not {sim!r}")
            out.setdefault(str(a), {})[str(b)] = float(sim)
    return out


# Each measure's parameters: name -> parser(params) of the checked value.
PARAMETERS = {
    "linear": {"range": lambda p: _number(p, "range", None, low=0, strict=True)},
    "exponential": {"alpha": lambda p: _number(p, "alpha", 1.0, low=0, strict=True)},
    "threshold": {"threshold": lambda p: _number(p, "threshold", 0.0, low=0)},
    "asymmetric": {"better": lambda p: _choice(p, "better", ("more", "less"), "more"),
                   "range": lambda p: _number(p, "range", None, low=0, strict=True)},
    "equality": {},
    "table": {"table": _table, "symmetric": lambda p: _flag(p, "symmetric", True),
              "default": lambda p: _number(p, "default", 0.0, low=0)},
    "token_jaccard_index": {},
    "normalized_levenshtein": {"case_sensitive": lambda p: _flag(p, "case_sensitive", True)},
    "jaccard_index": {},
    "cosine": {},
}


def _choice(params: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    value = params.get(key, default)
    if value not in choices:
        raise ValueError(f"the parameter {key} must be one of {', '.join(choices)}, not {value!r}")
    return value


def check_parameters(kind: str, measure: str, params: dict) -> dict:
    """The measure's parameters checked, defaults filled in. ValueError with a plain reason."""
    if measure not in MEASURES_BY_TYPE.get(kind, ()):
        raise ValueError(f"the measure '{measure}' does not fit a {kind} attribute (choose from "
                         f"{', '.join(MEASURES_BY_TYPE.get(kind, ()))})")
    known = PARAMETERS[measure]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"{measure} takes no parameter '{unknown[0]}'"
                         + (f" (it takes {', '.join(known)})" if known else ""))
    checked = {key: parse(params) for key, parse in known.items()}
    if measure == "table" and checked["default"] > 1:
        raise ValueError("the parameter default must be a similarity in [0, 1]")
    return checked


# ---------------------------------------------------------------- encoded attributes

class Local:
    """One attribute encoded for (test, train); subclasses compute the similarities."""

    def __init__(self, q_present: np.ndarray, c_present: np.ndarray):
        self.q_present, self.c_present = q_present, c_present
        self.complete = bool(q_present.all() and c_present.all())

    def present_block(self, q: np.ndarray) -> np.ndarray | None:
        return None if self.complete else self.q_present[q][:, None] & self.c_present[None, :]

    def present_pairs(self, qi: np.ndarray, ci: np.ndarray) -> np.ndarray | None:
        return None if self.complete else self.q_present[qi] & self.c_present[ci]

    def block(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        return self._sim(*self._block_operands(q)), self.present_block(q)

    def pairs(self, qi: np.ndarray, ci: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        return self._sim(*self._pair_operands(qi, ci)), self.present_pairs(qi, ci)


def with_range(measure: str, params: dict, test: np.ndarray, train: np.ndarray) -> dict:
    """The checked parameters of a numeric measure, with the range a linear or asymmetric measure takes
    from the values of both columns when it gives none (so a slice of the columns keeps it)."""
    if measure not in ("linear", "asymmetric") or params.get("range") is not None:
        return params
    values = np.concatenate((test[~np.isnan(test)], train[~np.isnan(train)]))
    return {**params, "range": float(values.max() - values.min()) if len(values) else 0.0}


class Numeric(Local):
    def __init__(self, measure: str, params: dict, test: np.ndarray, train: np.ndarray):
        super().__init__(~np.isnan(test), ~np.isnan(train))
        self.test, self.train, self.measure = test, train, measure
        params = with_range(measure, params, test, train)
        self.better = params.get("better", "more")
        self.alpha = params.get("alpha")
        self.threshold = params.get("threshold")
        self.range = params.get("range")

    def _block_operands(self, q):
        return self.test[q][:, None], self.train[None, :]

    def _pair_operands(self, qi, ci):
        return self.test[qi], self.train[ci]

    def _sim(self, a, b):
        d = np.subtract(b, a) if self.measure == "asymmetric" else np.subtract(a, b)
        if self.measure == "asymmetric":
            better = d >= 0 if self.better == "more" else d <= 0
            np.abs(d, out=d)
            sim = self._linear(d)
            sim[better] = 1.0
            return sim
        np.abs(d, out=d)
        if self.measure == "linear":
            return self._linear(d)
        if self.measure == "exponential":
            d *= -self.alpha
            return np.exp(d, out=d)
        return (d <= self.threshold).astype(np.float64)

    def _linear(self, d):
        if not self.range:                      # every value the same: only equal values are similar
            return (d == 0).astype(np.float64)
        d *= 1.0 / self.range
        np.subtract(1.0, d, out=d)
        return np.maximum(d, 0.0, out=d)


def _codes(test: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes over both columns' values (-1: missing), and the values by code."""
    import pandas as pd

    codes, values = pd.factorize(np.concatenate((test, train)), use_na_sentinel=True)
    return codes[:len(test)].astype(np.int32), codes[len(test):].astype(np.int32), np.asarray(values, dtype=object)


class Categorical(Local):
    def __init__(self, measure: str, params: dict, test: np.ndarray, train: np.ndarray):
        self.q, self.c, values = _codes(test, train)
        super().__init__(self.q >= 0, self.c >= 0)
        self.table = None
        if measure == "table":
            index = {v: i for i, v in enumerate(values.tolist())}
            table = np.full((len(values) + 1, len(values) + 1), params["default"])   # last row/column: missing
            np.fill_diagonal(table, 1.0)
            given = params["table"]
            for a, row in given.items():
                for b, sim in row.items():
                    if a in index and b in index:
                        table[index[a], index[b]] = sim
                        if params["symmetric"] and a not in given.get(b, {}):     # the other way, unless given
                            table[index[b], index[a]] = sim
            self.table = table

    def _block_operands(self, q):
        return self.q[q][:, None], self.c[None, :]

    def _pair_operands(self, qi, ci):
        return self.q[qi], self.c[ci]

    def _sim(self, a, b):
        if self.table is not None:
            return self.table[a, b]            # -1 (missing) reads the last row or column
        return (a == b).astype(np.float64)


def _incidence(members: list, vocabulary: dict) -> tuple[np.ndarray, np.ndarray]:
    """CSR row pointers and column indices of sets of members (None: no row entries); grows ``vocabulary``."""
    indptr = np.zeros(len(members) + 1, dtype=np.int64)
    indices = []
    for i, items in enumerate(members):
        if items:
            indices.extend(vocabulary.setdefault(m, len(vocabulary)) for m in items)
        indptr[i + 1] = len(indices)
    return indptr, np.asarray(indices, dtype=np.int32)


class Jaccard(Local):
    """|A ∩ B| / |A ∪ B| (sets, or the words of texts). A block's intersections are a product of
    sparse incidence matrices (scipy.sparse). FAC's scattered pairs would gather sparse rows; while
    the vocabulary is small they intersect bit sets (64 members a word) instead: thirty times faster."""

    def __init__(self, test: np.ndarray, train: np.ndarray):
        from scipy import sparse

        super().__init__(np.array([m is not None for m in test.tolist()], dtype=bool),
                         np.array([m is not None for m in train.tolist()], dtype=bool))
        vocabulary: dict = {}
        parts = [_incidence(column.tolist(), vocabulary) for column in (test, train)]
        self.vocabulary_size = max(len(vocabulary), 1)
        self.Q, self.C = (sparse.csr_matrix((np.ones(len(idx)), idx, ptr), shape=(len(ptr) - 1, self.vocabulary_size))
                          for ptr, idx in parts)
        self.q_size = np.diff(self.Q.indptr).astype(np.float64)
        self.c_size = np.diff(self.C.indptr).astype(np.float64)
        self.q_bits = self.c_bits = None
        if self.vocabulary_size <= _BIT_SET_MEMBERS:
            self.q_bits, self.c_bits = (self._bits(m) for m in (self.Q, self.C))

    def _bits(self, incidence) -> np.ndarray:
        words = -(-self.vocabulary_size // 64)
        bits = np.zeros((incidence.shape[0], words), dtype=np.uint64)
        rows = np.repeat(np.arange(incidence.shape[0]), np.diff(incidence.indptr))
        members = incidence.indices.astype(np.uint64)
        np.bitwise_or.at(bits, (rows, (members // 64).astype(np.int64)), np.uint64(1) << (members % np.uint64(64)))
        return bits

    def block(self, q):
        if self.vocabulary_size <= _DENSE_VOCABULARY:
            inter = np.ascontiguousarray((self.C @ self.Q[q].toarray().T).T)
        else:
            inter = (self.Q[q] @ self.C.T).toarray()
        union = self.q_size[q][:, None] + self.c_size[None, :]
        return self._ratio(inter, union), self.present_block(q)

    def pairs(self, qi, ci):
        if self.q_bits is not None:
            inter = np.bitwise_count(self.q_bits[qi] & self.c_bits[ci]).sum(axis=1, dtype=np.float64)
        else:
            inter = np.asarray(self.Q[qi].multiply(self.C[ci]).sum(axis=1), dtype=np.float64).ravel()
        return self._ratio(inter, self.q_size[qi] + self.c_size[ci]), self.present_pairs(qi, ci)

    @staticmethod
    def _ratio(inter, union):
        union -= inter
        empty = union == 0                      # two empty sets are alike
        np.divide(inter, union, out=inter, where=~empty)
        inter[empty] = 1.0
        return inter


def _words(texts: np.ndarray) -> np.ndarray:
    out = np.empty(len(texts), dtype=object)
    out[:] = [None if t is None else tuple(dict.fromkeys(_WORD.findall(t.lower()))) for t in texts.tolist()]
    return out


class Levenshtein(Local):
    """1 − lev / max length, by rapidfuzz (C++, both cores); each distinct string is compared once."""

    def __init__(self, params: dict, test: np.ndarray, train: np.ndarray):
        super().__init__(np.array([t is not None for t in test.tolist()], dtype=bool),
                         np.array([t is not None for t in train.tolist()], dtype=bool))
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein as lev

        # Imported here, not in the first block: a retriever's time should not include loading rapidfuzz.
        self.cdist, self.scorer = process.cdist, lev.normalized_similarity
        fold = (lambda t: t) if params.get("case_sensitive", True) else str.lower
        self.q_strings, self.q_index = self._distinct(test, fold)
        self.c_strings, self.c_index = self._distinct(train, fold)
        self.c_distinct = len(self.c_strings) == len(self.c_index)     # then c_index is 0, 1, 2...
        self.c_texts = np.array(self.c_strings, dtype=object)[self.c_index]

    @staticmethod
    def _distinct(texts: np.ndarray, fold) -> tuple[list[str], np.ndarray]:
        import pandas as pd

        codes, values = pd.factorize(np.array(["" if t is None else fold(t) for t in texts.tolist()], dtype=object))
        return list(values), codes.astype(np.int64)

    def block(self, q):
        wanted = np.unique(self.q_index[q])
        scores = self.cdist([self.q_strings[i] for i in wanted.tolist()], self.c_strings,
                            scorer=self.scorer, dtype=np.float64, workers=1)
        rows = np.searchsorted(wanted, self.q_index[q])
        scores = scores[rows]
        if not self.c_distinct:
            scores = scores[:, self.c_index]
        return scores, self.present_block(q)

    def pairs(self, qi, ci):
        # One cdist per query over its cases: cpdist converts both strings of every pair, three times slower.
        sims = np.empty(len(qi))
        order = np.argsort(qi, kind="stable")
        starts = np.flatnonzero(np.r_[True, qi[order][1:] != qi[order][:-1]]) if len(qi) else np.zeros(0, int)
        for a, b in zip(starts.tolist(), np.r_[starts[1:], len(qi)].tolist()):
            rows = order[a:b]
            sims[rows] = self.cdist([self.q_strings[self.q_index[qi[rows[0]]]]], self.c_texts[ci[rows]].tolist(),
                                    scorer=self.scorer, dtype=np.float64, workers=1)[0]
        return sims, self.present_pairs(qi, ci)


class Cosine(Local):
    def __init__(self, test: np.ndarray, train: np.ndarray):
        if test.shape[1] != train.shape[1] and len(test) and len(train):
            raise ValueError(f"the vectors have {test.shape[1]} numbers in the queries and {train.shape[1]} in the cases")
        super().__init__(~np.isnan(test).any(axis=1), ~np.isnan(train).any(axis=1))
        self.q, self.c = self._unit(test), self._unit(train)

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        vectors = np.nan_to_num(vectors)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

    # einsum, not BLAS: a BLAS product's last bit depends on the block's shape, and the ground
    # truth must not depend on how many queries share a block (nor differ from FAC's pairs).
    def block(self, q):
        return np.maximum(np.einsum("ij,kj->ik", self.q[q], self.c), 0.0), self.present_block(q)

    def pairs(self, qi, ci):
        return np.maximum(np.einsum("ij,ij->i", self.q[qi], self.c[ci]), 0.0), self.present_pairs(qi, ci)


def encode(kind: str, measure: str, params: dict, test_values, train_values) -> Local:
    """The attribute encoded for (test, train), from the columns as CaseBase.values parses them."""
    if kind == "numeric":
        return Numeric(measure, params, test_values, train_values)
    if measure in ("equality", "table"):
        return Categorical(measure, params, test_values, train_values)
    if measure == "token_jaccard_index":
        return Jaccard(_words(test_values), _words(train_values))
    if measure == "normalized_levenshtein":
        return Levenshtein(params, test_values, train_values)
    if measure == "jaccard_index":
        return Jaccard(test_values, train_values)
    if measure == "cosine":
        return Cosine(test_values, train_values)
    raise ValueError(f"no kernel for {kind} / {measure}")
