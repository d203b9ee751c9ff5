"""Quasi-sensitive association rules and how many an anonymized table preserves (Yang & Qiao 2010, §5.1
Definition 11, §7.3).

A quasi-sensitive rule is ``q̂ → ŝ``: a set of quasi-identifier values implies one sensitive value; its
*length* is ``|q̂|``, the number of quasi-identifier values (Definition 11). Rules are mined with Apriori
(Agrawal & Srikant 1994) at the paper's thresholds — support ≥ 8 %, confidence ≥ 15 % — using mlxtend's
``apriori`` (a well-kept implementation over a one-hot frame) for the frequent itemsets; a rule's confidence
is ``supp(q̂ ∪ ŝ) / supp(q̂)``, both read from the frequent itemsets (``q̂`` is frequent whenever ``q̂ ∪ ŝ`` is).

On Anatomy's output the quasi-identifiers and the sensitive values sit in two tables; the paper's miner
joins them per group under uniform association (the reading of Eq. 13), so the support of ``q̂ ∪ ŝ`` is
estimated as ``Σ_p #p(q̂) · #p(ŝ) / |p| / n`` (:func:`anatomy_rules`).

The preservation measure is the paper's "relative percentage" ``|Asso_D ∩ Asso_D'| / |Asso_D|`` — per rule
length as well (Fig. 8b).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: the paper's thresholds (§7.3)
MIN_SUPPORT = 0.08
MIN_CONFIDENCE = 0.15
#: Rule = (antecedent items, consequent item), items spelled "attribute=value"
Rule = tuple[frozenset, str]


def one_hot(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """One boolean column per ``attribute=value`` (missing cells are an item of their own)."""
    parts = {}
    for c in columns:
        codes, uniques = pd.factorize(frame[c].astype("string").fillna("(missing)"))
        for i, u in enumerate(uniques):
            parts[f"{c}={u}"] = codes == i
    return pd.DataFrame(parts)


def _frequent(items: pd.DataFrame, min_support: float) -> dict[frozenset, float]:
    from mlxtend.frequent_patterns import apriori

    if items.empty:
        return {}
    found = apriori(items, min_support=min_support, use_colnames=True)
    return dict(zip(found["itemsets"], found["support"].astype(float)))


def _rules_from(supports: dict[frozenset, float], sensitive_items: set[str], min_confidence: float) -> dict[Rule, float]:
    rules = {}
    for itemset, support in supports.items():
        sens = [i for i in itemset if i in sensitive_items]
        if len(sens) != 1 or len(itemset) < 2:
            continue
        antecedent = itemset - {sens[0]}
        confidence = support / supports[antecedent]
        if confidence >= min_confidence:
            rules[(antecedent, sens[0])] = confidence
    return rules


def quasi_sensitive_rules(frame: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str,
                          min_support: float = MIN_SUPPORT, min_confidence: float = MIN_CONFIDENCE) -> dict[Rule, float]:
    """The rules ``q̂ → ŝ`` of a table published cell for cell, with their confidence."""
    items = one_hot(frame, list(quasi_identifiers) + [sensitive])
    sensitive_items = {c for c in items.columns if c.startswith(f"{sensitive}=")}
    return _rules_from(_frequent(items, min_support), sensitive_items, min_confidence)


def anatomy_rules(qit: pd.DataFrame, st: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: str,
                  group_column: str = "group", min_support: float = MIN_SUPPORT,
                  min_confidence: float = MIN_CONFIDENCE) -> dict[Rule, float]:
    """The rules mined from Anatomy's QIT and ST, supports of ``q̂ ∪ ŝ`` estimated under uniform association
    within each group (see the module)."""
    items = one_hot(qit, quasi_identifiers)
    supports = _frequent(items, min_support)
    groups, uniq = pd.factorize(qit[group_column].astype(str))
    sizes = np.bincount(groups).astype(float)
    st_groups = pd.Index(uniq).get_indexer(st[group_column].astype(str))
    s_values, s_codes = np.unique(st[sensitive].astype(str).to_numpy(), return_inverse=True)
    share = np.zeros((len(uniq), len(s_values)))
    np.add.at(share, (st_groups, s_codes), pd.to_numeric(st["count"]).to_numpy(dtype=float))
    share /= sizes[:, None]  # #p(ŝ) / |p|
    n = float(len(qit))
    cols = {c: items[c].to_numpy() for c in items.columns}
    joined = dict(supports)
    for antecedent in list(supports):
        hit = np.logical_and.reduce([cols[i] for i in antecedent])
        est = np.bincount(groups[hit], minlength=len(uniq)) @ share / n
        for s, value in zip(s_values, est):
            if value >= min_support:
                joined[antecedent | {f"{sensitive}={s}"}] = float(value)
    return _rules_from(joined, {f"{sensitive}={s}" for s in s_values}, min_confidence)


def recovered(original: dict[Rule, float], published: dict[Rule, float]) -> dict:
    """The relative percentage of the original rules found again, in all and per rule length, and how many
    rules the published table shows that the original does not (artificial ones)."""
    per_length, per_length_rules = {}, {}
    for length in sorted({len(a) for a, _ in original}):
        rules = [r for r in original if len(r[0]) == length]
        per_length[length] = 100.0 * sum(r in published for r in rules) / len(rules)
        per_length_rules[length] = len(rules)
    found = sum(r in published for r in original)
    return {"rules": len(original), "found": found, "percent": 100.0 * found / len(original) if original else float("nan"),
            "artificial": sum(r not in original for r in published), "per_length": per_length,
            "per_length_rules": per_length_rules}
