"""Count-query accuracy on anonymized tables (Yang & Qiao 2010, §7.2; the query form of Xiao & Tao 2006).

A query is ``select count(*) where Q_1 in R_1 and … and Q_j in R_j and S in R_s`` over ``j`` quasi-
identifiers chosen uniformly and the sensitive attribute, each ``R`` a random set of values of that attribute's
domain (a random number of them, chosen uniformly). It is answered

- on a table published cell for cell (the original, or random anonymization's output): directly;
- on a generalized table (Mondrian with l-diversity) by **Eq. 12**, per class ``p``:
  ``#p(R_s) · Π_i |R_i ∩ cover_p(Q_i)| / |cover_p(Q_i)|``, where ``cover_p(Q_i)`` is the set of domain
  values the class's published cell stands for (its hierarchy leaves, or all for ``*``) — values uniform
  within a generalized cell;
- on Anatomy's two tables by **Eq. 13**, per group ``p``: ``#p(R_s) · #p(records matching the QI
  conditions) / |p|`` — every QI-sensitive pairing in a group equally likely.

The relative error of an estimate is ``|Ans(D) − Ans(D')| / Ans(D)``; queries with ``Ans(D) = 0`` are not
drawn (their error is undefined). Everything works on integer codes of the original's domain: a query is a
boolean vector over each attribute's domain, an answer a few array products.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonstudio.core.hierarchy import Hierarchy

MISSING = "\x00NA"


def _text(series: pd.Series) -> np.ndarray:
    return series.astype("string").fillna(MISSING).to_numpy(dtype=object)


@dataclass(frozen=True)
class CountQuery:
    """``count(*) where attribute in values and …``; ``conditions`` maps each attribute (quasi-identifiers
    first, the sensitive one last) to the values it accepts (as text)."""

    conditions: tuple[tuple[str, frozenset], ...]

    @property
    def attributes(self) -> list[str]:
        return [a for a, _ in self.conditions]

    def describe(self) -> str:
        return " and ".join(f"{a} in ({', '.join(sorted(v))})" for a, v in self.conditions)


class Domain:
    """The original's distinct values per attribute, and any frame's cells as codes of them (-1: a value
    outside the domain, e.g. a generalized label)."""

    def __init__(self, original: pd.DataFrame, attributes: Sequence[str]) -> None:
        self.values = {a: pd.Index(pd.unique(_text(original[a]))) for a in attributes}

    def codes(self, frame: pd.DataFrame, attribute: str) -> np.ndarray:
        return self.values[attribute].get_indexer(_text(frame[attribute]))

    def indicator(self, attribute: str, accepted: frozenset) -> np.ndarray:
        return self.values[attribute].isin(list(accepted))


def random_queries(original: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str, j: int, count: int,
                   rng: np.random.Generator, max_tries: int = 100) -> list[CountQuery]:
    """``count`` random queries with ``j`` quasi-identifiers (chosen uniformly) and the sensitive attribute,
    each with a non-zero answer on ``original`` (redrawn otherwise, at most ``max_tries`` times per query)."""
    if not 1 <= j <= len(quasi_identifiers):
        raise ValueError(f"j = {j} must be between 1 and the {len(quasi_identifiers)} quasi-identifiers")
    domain = Domain(original, list(quasi_identifiers) + [sensitive])
    exact = PublishedTable(original, domain)
    out = []
    for _ in range(count):
        for _ in range(max_tries):
            attrs = list(rng.choice(list(quasi_identifiers), size=j, replace=False)) + [sensitive]
            conds = []
            for a in attrs:
                values = domain.values[a]
                size = int(rng.integers(1, len(values) + 1))
                conds.append((a, frozenset(rng.choice(np.asarray(values, dtype=object), size=size, replace=False))))
            q = CountQuery(tuple(conds))
            if exact.answer(q) > 0:
                out.append(q)
                break
        else:
            raise ValueError(f"no query with {j} attributes and a non-zero answer in {max_tries} tries")
    return out


class PublishedTable:
    """A table whose cells are published as they are (the original, or random anonymization's output):
    answers are exact counts."""

    def __init__(self, frame: pd.DataFrame, domain: Domain) -> None:
        self.domain = domain
        self.codes = {a: domain.codes(frame, a) for a in domain.values}

    def answer(self, query: CountQuery) -> float:
        hit = None
        for a, accepted in query.conditions:
            ok = np.append(self.domain.indicator(a, accepted), False)[self.codes[a]]  # code -1 → the False
            hit = ok if hit is None else hit & ok
        return float(hit.sum())


class GeneralizedTable:
    """Eq. 12 over a generalized table: per equivalence class, the sensitive counts and, per quasi-
    identifier, which domain values the class's cell covers (``cover(value, label)``)."""

    def __init__(self, frame: pd.DataFrame, domain: Domain, quasi_identifiers: Sequence[str], sensitive: str,
                 hierarchies: dict[str, Hierarchy]) -> None:
        self.domain = domain
        self.sensitive = sensitive
        cls = frame.groupby([frame[q].astype("string").fillna(MISSING) for q in quasi_identifiers],
                            sort=False).ngroup().to_numpy()
        first = pd.Series(np.arange(len(frame))).groupby(cls).first().to_numpy()
        n_cls = len(first)
        s_codes = domain.codes(frame, sensitive)
        s_size = len(domain.values[sensitive])
        self.sens = np.zeros((n_cls, s_size + 1))
        np.add.at(self.sens, (cls, s_codes), 1.0)  # code -1 lands in the last column, never queried
        self.sens = self.sens[:, :s_size]
        self.cover = {}
        for q in quasi_identifiers:
            labels = _text(frame[q].iloc[first])
            values = [str(v) for v in self.domain.values[q]]
            h = hierarchies.get(q)
            roots = {"*"} | ({h.root_label} if h is not None else set())
            mat = np.zeros((n_cls, len(values)), dtype=bool)
            for c, label in enumerate(labels):
                if label in roots:
                    mat[c] = True
                elif h is not None:
                    mat[c] = [v == label or (v in h.leaf_index and h.is_generalization(v, label)) for v in values]
                else:
                    mat[c] = [v == label for v in values]
            self.cover[q] = (mat.astype(float), np.maximum(mat.sum(axis=1), 1))

    def answer(self, query: CountQuery) -> float:
        est = None
        for a, accepted in query.conditions:
            vec = self.domain.indicator(a, accepted).astype(float)
            if a == self.sensitive:
                part = self.sens @ vec
            else:
                mat, size = self.cover[a]
                part = (mat @ vec) / size
            est = part if est is None else est * part
        return float(est.sum())


class AnatomyTables:
    """Eq. 13 over Anatomy's QIT (quasi-identifiers + group) and ST (group, sensitive value, count)."""

    def __init__(self, qit: pd.DataFrame, st: pd.DataFrame, domain: Domain, sensitive: str,
                 group_column: str = "group") -> None:
        self.domain = domain
        self.sensitive = sensitive
        groups, uniq = pd.factorize(qit[group_column].astype(str))
        self.groups = groups
        self.sizes = np.bincount(groups).astype(float)
        st_groups = pd.Index(uniq).get_indexer(st[group_column].astype(str))
        s_codes = domain.codes(st, sensitive)
        s_size = len(domain.values[sensitive])
        self.sens = np.zeros((len(uniq), s_size + 1))
        np.add.at(self.sens, (st_groups, s_codes), pd.to_numeric(st["count"]).to_numpy(dtype=float))
        self.sens = self.sens[:, :s_size]
        self.codes = {a: domain.codes(qit, a) for a in domain.values if a != sensitive}

    def answer(self, query: CountQuery) -> float:
        hit = np.ones(len(self.groups), dtype=bool)
        sens = None
        for a, accepted in query.conditions:
            vec = self.domain.indicator(a, accepted)
            if a == self.sensitive:
                sens = self.sens @ vec.astype(float)
            else:
                hit &= np.append(vec, False)[self.codes[a]]
        matching = np.bincount(self.groups[hit], minlength=len(self.sizes))
        return float((sens * matching / self.sizes).sum())


def relative_errors(queries: Sequence[CountQuery], original: PublishedTable, published) -> np.ndarray:
    """``|Ans(D) − Ans(D')| / Ans(D)`` per query (``published``: any of the three answerers)."""
    out = np.empty(len(queries))
    for i, q in enumerate(queries):
        truth = original.answer(q)
        out[i] = abs(truth - published.answer(q)) / truth
    return out
