"""Property tests: random small tables, hierarchies, event logs and strings; outputs built to comply must
verify, outputs with one planted violation must fail with a problem naming the row / record."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.hierarchy import Hierarchy, intervals, masking
from anonstudio.core.privacy import (
    longest_shared_substrings,
    verify_k_anonymity,
    verify_kc_privacy,
    verify_pseudo_strings,
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw):
    """A table with 1–3 quasi-identifiers (numeric bands or masked codes), a sensitive and a plain column,
    and a hierarchy for every quasi-identifier."""
    n = draw(st.integers(3, 30))
    n_qi = draw(st.integers(1, 3))
    data: dict[str, list[str]] = {}
    hierarchies: dict[str, Hierarchy] = {}
    for j in range(n_qi):
        name = f"q{j}"
        if draw(st.booleans()):
            values = [str(v) for v in draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))]
            w = draw(st.sampled_from([2, 5]))
            hierarchies[name] = intervals(name, values, [w, w * draw(st.sampled_from([2, 3]))])
        else:
            values = draw(st.lists(st.sampled_from(["101", "102", "111", "120", "205", "21"]), min_size=n, max_size=n))
            hierarchies[name] = masking(name, values)
        data[name] = values
    data["disease"] = draw(st.lists(st.sampled_from(["Flu", "HIV", "Cancer"]), min_size=n, max_size=n))
    data["note"] = [f"n{i}" for i in range(n)]
    df = pd.DataFrame(data, dtype=object)
    table = Table(df).with_roles(list(hierarchies), ["disease"])
    return table, hierarchies


def generalize_chunks(table: Table, hierarchies: dict, sizes: list[int], perm: list[int], lift: int) -> pd.DataFrame:
    """Partition rows (in ``perm`` order) into chunks of ``sizes``; give each chunk its QI values' lowest
    common ancestor, lifted ``lift`` levels further (capped at the root)."""
    out = table.df.copy()
    pos = 0
    for size in sizes:
        rows = perm[pos : pos + size]
        pos += size
        for q, h in hierarchies.items():
            level, _ = h.lca(table.df[q].iloc[rows])
            level = min(h.height, level + lift)
            label = h.generalize(table.df[q].iloc[rows[0]], level)
            out.loc[out.index[rows], q] = label
    return out


def v_suppressed(table, out, hs, k) -> int:
    return verify_k_anonymity(table, out, hs, k).details["suppressed"]


def chunk_sizes(n: int, draw, low: int, high: int) -> list[int]:
    sizes: list[int] = []
    while sum(sizes) < n:
        sizes.append(draw(st.integers(low, high)))
    sizes[-1] -= sum(sizes) - n
    return [s for s in sizes if s > 0]


@given(tables(), st.integers(1, 4), st.data())
@SETTINGS
def test_classes_of_at_least_k_verify(tab, k, data):
    table, hs = tab
    n = len(table.df)
    assume(n >= k)
    perm = data.draw(st.permutations(list(range(n))))
    sizes = chunk_sizes(n, data.draw, k, 2 * k + 1)
    if sizes[-1] < k and len(sizes) > 1:  # merge a short tail into the previous chunk
        tail = sizes.pop()
        sizes[-1] += tail
    out = generalize_chunks(table, hs, sizes, perm, data.draw(st.integers(0, 2)))
    v = verify_k_anonymity(table, out, hs, k)
    assert v.passed, v.problems
    assert v.details["smallest_class"] >= k or v.details["suppressed"] == n


@given(tables(), st.integers(2, 4), st.data())
@SETTINGS
def test_verdict_matches_brute_force_class_count(tab, k, data):
    table, hs = tab
    n = len(table.df)
    perm = data.draw(st.permutations(list(range(n))))
    sizes = chunk_sizes(n, data.draw, 1, 2 * k)
    out = generalize_chunks(table, hs, sizes, perm, 0)
    qis = list(hs)
    tuples = [tuple(out[q].iloc[i] for q in qis) for i in range(n)]
    suppressed = [all(cell in ("*", hs[q].root_label) for q, cell in zip(qis, t)) for t in tuples]
    counts = Counter(t for t, sup in zip(tuples, suppressed) if not sup)
    small_rows = {i + 1 for i, t in enumerate(tuples) if not suppressed[i] and counts[t] < k}
    assert v_suppressed(table, out, hs, k) == sum(suppressed)
    # the suppressed block is a class (issue 39 item 3): fully suppressed records with the same published cells,
    # fewer than k of them, must publish every other column '*' too
    others = [c for c in out.columns if c not in qis]
    blocks = Counter(t for t, sup in zip(tuples, suppressed) if sup)
    bad_block = any(sup and blocks[t] < k and any(str(out[c].iloc[i]) != "*" for c in others)
                    for i, (t, sup) in enumerate(zip(tuples, suppressed)))
    v = verify_k_anonymity(table, out, hs, k)
    assert v.passed == (not small_rows and not bad_block)
    if small_rows and not bad_block:
        named = {rec["row"] for rec in v.details["first_violations"]}
        assert named and named <= small_rows
        assert all(p.startswith(f"row {rec['row']}:") for p, rec in zip(v.problems, v.details["first_violations"]))


@given(tables(), st.data())
@SETTINGS
def test_a_non_ancestor_cell_fails_naming_row_and_column(tab, data):
    table, hs = tab
    n = len(table.df)
    out = generalize_chunks(table, hs, [n], list(range(n)), 0)
    i = data.draw(st.integers(0, n - 1))
    q = data.draw(st.sampled_from(sorted(hs)))
    h = hs[q]
    original = table.df[q].iloc[i]
    foreign = sorted({lab for row in h.rows for lab in row} - set(h.ancestors_of(original)) - {"*"})
    assume(foreign)
    out.loc[out.index[i], q] = data.draw(st.sampled_from(foreign))
    v = verify_k_anonymity(table, out, hs, 1)
    assert not v.passed
    assert any(p.startswith(f"row {i + 1}, column '{q}'") for p in v.problems)


@given(tables(), st.data())
@SETTINGS
def test_a_changed_non_qi_cell_fails_naming_row_and_column(tab, data):
    table, hs = tab
    n = len(table.df)
    out = generalize_chunks(table, hs, [n], list(range(n)), 1)
    assert verify_k_anonymity(table, out, hs, n).passed
    i = data.draw(st.integers(0, n - 1))
    col = data.draw(st.sampled_from(["disease", "note"]))
    out.loc[out.index[i], col] = "changed"
    v = verify_k_anonymity(table, out, hs, n)
    assert not v.passed
    assert any(p.startswith(f"row {i + 1}, column '{col}'") for p in v.problems)


# ---------------------------------------------------------------------------------------------------------
# strings
def brute_longest(q: str, texts: list[str]) -> int:
    best = 0
    for i in range(len(q)):
        for j in range(i + best + 1, len(q) + 1):
            if any(q[i:j] in t for t in texts):
                best = j - i
            else:
                break
    return best


strings = st.lists(st.text(alphabet="ACGT", min_size=1, max_size=12), min_size=1, max_size=6)


@given(strings, strings)
@SETTINGS
def test_longest_shared_substring_matches_brute_force(originals, pseudos):
    o = SequenceSet.from_strings(originals, alphabet="dna")
    p = SequenceSet.from_strings(pseudos, alphabet="dna")
    assert list(longest_shared_substrings(o, p)) == [brute_longest(q, originals) for q in pseudos]


@given(strings, strings, st.data())
@SETTINGS
def test_a_copied_string_fails_naming_the_record(originals, pseudos, data):
    pseudos = [s for s in pseudos if s not in originals]
    assume(pseudos)
    o = SequenceSet.from_strings(originals, ids=[f"in{i}" for i in range(len(originals))], alphabet="dna")
    assert verify_pseudo_strings(o, SequenceSet.from_strings(pseudos, alphabet="dna")).passed
    src = data.draw(st.integers(0, len(originals) - 1))
    at = data.draw(st.integers(0, len(pseudos)))
    planted = pseudos[:at] + [originals[src]] + pseudos[at:]
    v = verify_pseudo_strings(o, SequenceSet.from_strings(planted, alphabet="dna"))
    assert not v.passed
    assert v.details["exact_copies"] == 1
    assert v.problems[0].startswith(f"pseudo-string {at + 1} ('seq{at + 1}') is an exact copy of input record")
    assert v.details["longest_shared_max"] >= len(originals[src])


# ---------------------------------------------------------------------------------------------------------
# event sequences
YEARS = Hierarchy("year", [[str(y), f"{y // 2 * 2}-{y // 2 * 2 + 1}", "*"] for y in range(2006, 2012)])
ZIPS = ["56103", "56107", "56117", "56230"]


@st.composite
def event_logs(draw):
    n_seq = draw(st.integers(2, 8))
    rows = []
    for s in range(n_seq):
        for e in range(draw(st.integers(1, 4))):
            rows.append((f"S{s}", str(e + 1), str(draw(st.integers(2006, 2011))), draw(st.sampled_from(ZIPS)),
                         draw(st.sampled_from(["Flu", "HIV", "Fever"]))))
    df = pd.DataFrame(rows, columns=["PID", "VID", "year", "zip", "disease"])
    log = EventLog(df, "PID", "VID", ["year", "zip"], "disease")
    return log, {"year": YEARS, "zip": masking("zip", ZIPS)}


def anonymize_groups(log: EventLog, hs: dict, groups: list[list[str]]) -> pd.DataFrame:
    """Each group's sequences keep their first m events (m = the group's shortest length; the rest are
    suppressed) and every position is generalized to the lowest common ancestor within the group."""
    df = log.df
    parts = []
    for members in groups:
        seqs = {m: df[df["PID"] == m].reset_index(drop=True) for m in members}
        m_len = min(len(s) for s in seqs.values())
        kept = {m: s.iloc[:m_len].copy() for m, s in seqs.items()}
        for pos in range(m_len):
            for q, h in hs.items():
                _, label = h.lca([kept[m][q].iloc[pos] for m in members])
                for m in members:
                    kept[m].loc[pos, q] = label
        parts.extend(kept.values())
    return pd.concat(parts, ignore_index=True)


@given(event_logs(), st.integers(2, 3), st.data())
@SETTINGS
def test_kc_privacy_compliant_groups_verify_and_planted_violations_fail(lg, k, data):
    log, hs = lg
    ids = list(dict.fromkeys(log.df["PID"]))
    assume(len(ids) >= k)
    ids = data.draw(st.permutations(ids))
    groups = [ids[i : i + k] for i in range(0, len(ids), k)]
    if len(groups[-1]) < k:
        groups[-2].extend(groups.pop())
    out = anonymize_groups(log, hs, groups)
    v = verify_kc_privacy(log, out, hs, k, 1.0, ["HIV"])
    assert v.passed, v.problems
    assert v.details["smallest_group"] >= k

    # plant a zip no event of the sequence holds (the verifier lets a published event stand for any of the
    # sequence's events, in order, so a zip another event holds could be a legitimate suppression): the verdict
    # names that sequence
    r = data.draw(st.integers(0, len(out) - 1))
    sid = out["PID"].iloc[r]
    foreign = [z for z in ZIPS if z not in set(log.df.loc[log.df["PID"] == sid, "zip"])]
    if foreign:
        bad = out.copy()
        bad.loc[r, "zip"] = foreign[0]
        v = verify_kc_privacy(log, bad, hs, 1 + 1, 1.0, [])
        assert not v.passed
        assert any(p.startswith(f"sequence '{sid}'") for p in v.problems)

    # the c bound, against a brute-force share of HIV holders per published group (identical QI sequences)
    published: dict[tuple, list[bool]] = {}
    for _, seq in out.groupby("PID", sort=False):
        key = tuple(map(tuple, seq[["year", "zip"]].to_numpy()))
        published.setdefault(key, []).append(bool((seq["disease"] == "HIV").any()))
    worst = max(float(np.mean(flags)) for flags in published.values())
    if worst > 0:
        v = verify_kc_privacy(log, out, hs, k, worst * 0.99, ["HIV"])
        assert not v.passed and v.details["groups_above_c"] >= 1
    assert verify_kc_privacy(log, out, hs, k, max(worst, 0.01), ["HIV"]).passed


def test_property_helpers_are_sane():
    log = EventLog(pd.DataFrame({"PID": ["a", "a", "b"], "VID": ["1", "2", "1"], "year": ["2006", "2007", "2006"],
                                 "zip": ["56103", "56107", "56103"], "disease": ["Flu", "HIV", "Flu"]}),
                   "PID", "VID", ["year", "zip"], "disease")
    out = anonymize_groups(log, {"year": YEARS, "zip": masking("zip", ZIPS)}, [["a", "b"]])
    assert out.to_dict("list") == {"PID": ["a", "b"], "VID": ["1", "1"], "year": ["2006", "2006"],
                                   "zip": ["56103", "56103"], "disease": ["Flu", "Flu"]}
    assert np.array_equal(out["VID"].to_numpy(), np.array(["1", "1"], dtype=object))


@given(strings, strings, st.integers(1, 4), st.integers(1, 6))
@SETTINGS
def test_suffix_automaton_is_exact_whatever_its_dense_pool(originals, pseudos, dense_from, max_dense):
    """The kernel must give the same answer when states stay sparse, go dense early, or exhaust the pool."""
    from anonstudio.core.kernels._substring import build_suffix_automaton, longest_shared

    alpha = "ACGT"
    text = np.array([x for s in originals for x in [*map(alpha.index, s), 4]], dtype=np.int32)
    codes = np.array([alpha.index(ch) for s in pseudos for ch in s], dtype=np.int32)
    offsets = np.concatenate(([0], np.cumsum([len(s) for s in pseudos]))).astype(np.int64)
    automaton = build_suffix_automaton(text, 5, dense_from, max_dense)
    got = longest_shared(*automaton, codes, offsets)
    assert list(got) == [brute_longest(q, originals) for q in pseudos]
