"""Property tests (Hypothesis) of the verifiers added or changed this round, each against a brute-force
reference on random small tables: l-diversity of both kinds with missing sensitive values, Anatomy's
groups, and random anonymization's per-record bound and domain rule."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.data import Table
from anonstudio.core.privacy import verify_anatomy, verify_l_diversity, verify_random_anonymization

SENS = ["flu", "hiv", "cold", None]


@st.composite
def published(draw):
    n = draw(st.integers(2, 14))
    q = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from(SENS), min_size=n, max_size=n))
    return pd.DataFrame({"q": q, "s": s}, dtype="string")


def _brute_l(frame: pd.DataFrame, l: float, kind: str) -> bool:
    for _, group in frame.groupby("q"):
        present = [v for v in group["s"].tolist() if v is not pd.NA and v is not None]
        counts = Counter(present)
        if l <= 1:
            continue
        if kind == "distinct" and len(counts) < l:
            return False
        if kind == "entropy":
            total = sum(counts.values())
            h = -sum(c / total * math.log(c / total) for c in counts.values()) if total else 0.0
            if h < math.log(l) - 1e-9:
                return False
    return True


@given(published(), st.sampled_from([1, 1.5, 2, 3]), st.sampled_from(["distinct", "entropy"]))
@settings(max_examples=150, deadline=None)
def test_l_diversity_matches_brute_force_with_missing_values(frame, l, kind):
    verdict = verify_l_diversity(frame, ["q"], "s", l, kind=kind, suppressed=np.zeros(len(frame), dtype=bool))
    assert verdict.passed == _brute_l(frame, l, kind)


@st.composite
def anatomy_case(draw):
    n = draw(st.integers(4, 16))
    s = draw(st.lists(st.sampled_from(["flu", "hiv", "cold", "gout"]), min_size=n, max_size=n))
    groups = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    q = [f"v{i % 3}" for i in range(n)]
    original = Table(pd.DataFrame({"q": q, "s": s}, dtype=object)).with_roles(["q"], ["s"])
    qit = pd.DataFrame({"q": q, "group": [str(g) for g in groups]}, dtype=object)
    return original, qit


@given(anatomy_case(), st.integers(2, 3))
@settings(max_examples=150, deadline=None)
def test_anatomy_verdict_matches_brute_force(case, l):
    original, qit = case
    ok = all(max(Counter(members).values()) * l <= len(members)
             for _, members in pd.DataFrame({"g": qit["group"], "s": original.df["s"]}).groupby("g")["s"])
    assert verify_anatomy(original, qit, l, sensitive="s").passed == ok


@st.composite
def ra_case(draw):
    n = draw(st.integers(2, 10))
    a = draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    original = Table(pd.DataFrame({"a": a, "b": b, "s": ["z"] * n}, dtype=object)).with_roles(["a", "b"], ["s"])
    new_a = draw(st.lists(st.sampled_from(["1", "2", "3", "9"]), min_size=n, max_size=n))
    new_b = draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    keep = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))  # 0: both kept, 1: a new, 2: b new
    out_a = [na if k in (1,) or draw(st.booleans()) and k == 2 else oa for oa, na, k in zip(a, new_a, keep)]
    out_b = [nb if k == 2 else ob for ob, nb, k in zip(b, new_b, keep)]
    return original, pd.DataFrame({"a": out_a, "b": out_b, "s": ["z"] * n}, dtype=object)


@given(ra_case(), st.integers(1, 2))
@settings(max_examples=150, deadline=None)
def test_random_anonymization_verdict_matches_brute_force(case, max_changed):
    original, output = case
    changed = [(oa != pa) + (ob != pb) for oa, ob, pa, pb in
               zip(original.df["a"], original.df["b"], output["a"], output["b"])]
    domain_ok = set(output["a"]) <= set(original.df["a"]) and set(output["b"]) <= set(original.df["b"])
    expected = domain_ok and max(changed) <= max_changed
    assert verify_random_anonymization(original, output, {}, max_changed).passed == expected
