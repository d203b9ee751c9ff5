"""Independent verifiers on hand-made cases: 002's worked example, l-diversity, anatomy, (k,c)-privacy of
event sequences, pseudo-strings, and the verify_output dispatcher."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.errors import NotAvailableError, ParameterError
from anonstudio.core.hierarchy import Hierarchy, masking
from anonstudio.core.privacy import (
    Verification,
    longest_shared_substrings,
    verify_anatomy,
    verify_k_anonymity,
    verify_kc_privacy,
    verify_l_diversity,
    verify_output,
    verify_pseudo_strings,
)

# --------------------------------------------------------------------------------------------------------
# Ramana & Kumari (002), Table 1 and the Figure 2 concept hierarchies
# (age 24 → [20-25] → [20-30] → [20-40]; gender → person; zip 535280 → 53528* → 5352**)
COLUMNS = ["ID", "Gender", "Age", "Zip-code", "Disease"]
TABLE_1A = [
    ["1", "Male", "21", "535280", "Flu"],
    ["2", "Male", "24", "535280", "HIV"],
    ["3", "Male", "25", "535280", "Heart Disease"],
    ["4", "Female", "26", "535280", "Heart Disease"],
    ["5", "Female", "26", "535285", "Cancer"],
    ["6", "Female", "32", "535288", "Flu"],
    ["7", "Female", "32", "535292", "Flu"],
    ["8", "Male", "36", "535292", "HIV"],
    ["9", "Male", "36", "535296", "Cancer"],
    ["10", "Male", "38", "535296", "Obesity"],
]
TABLE_1B_QI = [["Male" if i in (0, 1, 2, 7, 8, 9) else "Female", "[20-40]", "5352**"] for i in range(10)]
TABLE_1C_QI = (
    [["Male", "[20-25]", "535280"]] * 3 + [["Female", "[20-40]", "5352**"]] * 4 + [["Male", "[36-40]", "53529*"]] * 3
)


def _age_band(a: int) -> list[str]:
    lo = [(20, 25), (26, 30), (31, 35), (36, 40)]
    b1 = next(f"[{x}-{y}]" for x, y in lo if x <= a <= y)
    b2 = "[20-30]" if a <= 30 else "[31-40]"
    return [str(a), b1, b2, "[20-40]"]


def paper_hierarchies() -> dict[str, Hierarchy]:
    return {
        "Age": Hierarchy("Age", [_age_band(a) for a in range(20, 41)]),
        "Gender": Hierarchy("Gender", [["Male", "person"], ["Female", "person"]]),
        "Zip-code": Hierarchy("Zip-code", [[f"5352{d}", f"5352{d[0]}*", "5352**"] for d in map(str, range(80, 100))]),
    }


def paper_table(source=None) -> Table:
    df = pd.DataFrame(TABLE_1A, columns=COLUMNS, dtype=object)
    return Table(df, source=source).with_roles(["Gender", "Age", "Zip-code"], ["Disease"], ["ID"])


def published(qi_rows) -> pd.DataFrame:
    df = pd.DataFrame(TABLE_1A, columns=COLUMNS, dtype=object).drop(columns=["ID"])
    df[["Gender", "Age", "Zip-code"]] = qi_rows
    return df


def test_paper_figure2_hierarchy_matches_the_text_and_masking_builder():
    h = paper_hierarchies()
    assert h["Age"].ancestors_of("24") == ["24", "[20-25]", "[20-30]", "[20-40]"]
    assert masking("Zip-code", ["535280", "535285"], levels=2).ancestors_of("535280")[:3] == h[
        "Zip-code"
    ].ancestors_of("535280")


def test_paper_table_1c_is_3_anonymous_and_one_changed_cell_fails():
    table, hs = paper_table(source="table1a.csv"), paper_hierarchies()
    v = verify_k_anonymity(table, published(TABLE_1C_QI), hs, 3)
    assert v.passed, v.problems
    assert v.details["classes"] == 3 and v.details["smallest_class"] == 3 and v.details["suppressed"] == 0
    assert verify_k_anonymity(table, published(TABLE_1B_QI), hs, 3).passed  # Table 1(b), global recoding
    assert not verify_k_anonymity(table, published(TABLE_1C_QI), hs, 4).passed

    # record 1 (age 21) published as [26-30]: not one of 21's generalizations
    bad = published(TABLE_1C_QI)
    bad.loc[0, "Age"] = "[26-30]"
    v = verify_k_anonymity(table, bad, hs, 3)
    assert not v.passed
    assert "row 1 (table1a.csv:2), column 'Age': '[26-30]' is neither the original value '21'" in v.problems[0]
    assert v.details["invalid_cells"] == 1

    # record 8 recoded to [31-40]: a valid generalization, but its class now has 1 record
    bad = published(TABLE_1C_QI)
    bad.loc[7, "Age"] = "[31-40]"
    v = verify_k_anonymity(table, bad, hs, 3)
    assert not v.passed and v.details["classes_below_k"] == 2
    assert any(p.startswith("row 8 (table1a.csv:9): its equivalence class") and "fewer than k = 3" in p for p in v.problems)

    # a sensitive cell changed
    bad = published(TABLE_1C_QI)
    bad.loc[4, "Disease"] = "Flu"
    v = verify_k_anonymity(table, bad, hs, 3)
    assert not v.passed
    assert v.problems == ["row 5 (table1a.csv:6), column 'Disease' (not a quasi-identifier) was changed from 'Cancer' to 'Flu'"]


def test_k_anonymity_structure_checks_identifying_and_row_count():
    table, hs = paper_table(), paper_hierarchies()
    with_id = published(TABLE_1C_QI)
    with_id.insert(0, "ID", [r[0] for r in TABLE_1A])
    v = verify_k_anonymity(table, with_id, hs, 3)
    assert not v.passed and "identifying column 'ID' is still in the output" in v.problems
    v = verify_k_anonymity(table, published(TABLE_1C_QI).iloc[:9], hs, 3)
    assert not v.passed and "9 rows, the input 10" in v.problems[0]
    v = verify_k_anonymity(table, published(TABLE_1C_QI).drop(columns=["Disease"]), hs, 3)
    assert "column 'Disease' is missing from the output" in v.problems


def test_suppressed_records_are_exempt_and_counted():
    table, hs = paper_table(), paper_hierarchies()
    qi = [list(r) for r in TABLE_1C_QI]
    qi[9] = ["*", "*", "*"]  # record 10 suppressed: the remaining class of 8, 9 has 2 records
    # its 'Disease' published beside it: the suppressed block is a class of 1, and whoever is missing from the
    # published classes is that record (issue 39)
    v = verify_k_anonymity(table, published(qi), hs, 2)
    assert not v.passed and v.details["suppressed"] == 1
    assert [p["kind"] for p in v.details["first_violations"]] == ["suppressed block smaller than k"]
    assert v.problems[0].startswith("row 10 is fully suppressed, in a block of 1 fully suppressed record")
    assert "'Disease'" in v.problems[0]
    blanked = published(qi)
    blanked.loc[9, "Disease"] = "*"  # nothing but its count published: exempt
    v = verify_k_anonymity(table, blanked, hs, 2)
    assert v.passed and v.details["suppressed"] == 1 and v.details["suppressed_blanked"] == 1
    assert not verify_k_anonymity(table, blanked, hs, 3).passed
    # a block of k or more publishes its cells as they are; blanking it is a change no release makes
    blanked.loc[8, ["Gender", "Age", "Zip-code"]] = "*"
    blanked.loc[8, "Disease"] = "*"
    v = verify_k_anonymity(table, blanked, hs, 2)
    assert not v.passed and v.details["suppressed"] == 2 and v.details["suppressed_blanked"] == 0
    assert any("column 'Disease' (not a quasi-identifier) was changed from" in p for p in v.problems)
    qi[8] = ["*", "*", "*"]  # a block of 2 at k = 2 publishes its cells (record 8 is alone now: that fails)
    v = verify_k_anonymity(table, published(qi), hs, 2)
    assert [p["kind"] for p in v.details["first_violations"]] == ["class smaller than k"]
    qi[8] = ["person", "[20-40]", "5352**"]  # root labels count as suppressed too
    blanked = published(qi)
    blanked.loc[[8, 9], "Disease"] = "*"  # two blocks of 1 ('*' and the root labels read apart): both blanked
    v = verify_k_anonymity(table, blanked, hs, 2)
    assert not v.passed and v.details["suppressed"] == 2  # record 8 is alone now


def test_verification_summary_and_json():
    v = verify_k_anonymity(paper_table(), published(TABLE_1C_QI), paper_hierarchies(), 3)
    assert v.summary().startswith("k-anonymity (k=3): passed — records 10, classes 3, smallest class 3")
    d = json.loads(json.dumps(v.as_dict()))
    assert set(d) == {"passed", "model", "details", "problems"} and d["passed"] is True
    bad = published(TABLE_1C_QI)
    bad.loc[0, "Age"] = "99"
    v = verify_k_anonymity(paper_table(), bad, paper_hierarchies(), 3)
    assert "FAILED" in v.summary() and "row 1" in v.summary()
    json.dumps(v.as_dict())


def test_l_diversity_distinct_and_entropy():
    out = published(TABLE_1C_QI)
    qis = ["Gender", "Age", "Zip-code"]
    # classes: {Flu, HIV, Heart Disease}, {Heart Disease, Cancer, Flu, Flu}, {HIV, Cancer, Obesity}
    assert verify_l_diversity(out, qis, "Disease", 3, "distinct").passed
    v = verify_l_diversity(out, qis, "Disease", 4, "distinct")
    assert not v.passed and v.details["violations"] == 3
    assert verify_l_diversity(out, qis, "Disease", 2.8, "entropy").passed
    v = verify_l_diversity(out, qis, "Disease", 3, "entropy")  # class 2 entropy 1.04 < log 3
    assert not v.passed and len(v.problems) == 1 and v.problems[0].startswith("row 4:")
    with pytest.raises(ParameterError):
        verify_l_diversity(out, qis, "Disease", 2, "recursive")


def test_verify_output_k_with_l():
    table, hs = paper_table(), paper_hierarchies()
    model = {"model": "k-anonymity", "k": 3, "l": 3, "l_kind": "distinct"}
    v = verify_output(model, table, Table(published(TABLE_1C_QI)), hs)
    assert v.passed and v.details["l"] == 3
    v = verify_output({**model, "l_kind": "entropy"}, table, published(TABLE_1C_QI), hs)
    assert not v.passed and "entropy" in v.problems[0]
    with pytest.raises(ParameterError, match="needs 'k'"):
        verify_output({"model": "k-anonymity"}, table, published(TABLE_1C_QI), hs)
    with pytest.raises(NotAvailableError, match="'t-closeness'"):
        verify_output({"model": "t-closeness"}, table, published(TABLE_1C_QI), hs)


def test_anatomy_groups_must_be_l_diverse_on_the_original_sensitive_values():
    table = paper_table()
    qit = pd.DataFrame(TABLE_1A, columns=COLUMNS, dtype=object)[["Gender", "Age", "Zip-code"]]
    qit["group"] = ["1", "1", "1", "2", "2", "3", "3", "2", "2", "3"]
    # group 1: Flu HIV Heart; group 2: Heart Cancer HIV Cancer; group 3: Flu Flu Obesity
    v = verify_anatomy(table, qit, 2)
    assert v.passed is False and "row 6" in v.problems[0]  # Flu twice in a group of 3 > 1/2
    qit["group"] = ["1", "1", "1", "2", "2", "3", "2", "3", "3", "3"]
    assert verify_output({"model": "anatomy", "l": 2}, table, qit, {}).passed
    qit.loc[2, "Age"] = "[20-25]"
    assert "row 3, column 'Age' was changed" in verify_anatomy(table, qit, 2).problems[0]


def test_k_anonymity_is_fast_on_30k_rows():
    rng = np.random.default_rng(0)
    n = 30_000
    ages = rng.integers(17, 91, n)
    df = pd.DataFrame(
        {"age": ages.astype(str), "sex": rng.choice(["M", "F"], n), "income": rng.integers(0, 9, n).astype(str)},
        dtype=object,
    )
    table = Table(df).with_roles(["age", "sex"])
    from anonstudio.core.hierarchy import intervals

    hs = {"age": intervals("age", df["age"], [10, 20]), "sex": Hierarchy("sex", [["M", "*"], ["F", "*"]])}
    out = df.copy()
    out["age"] = [hs["age"].generalize(a, 1) for a in df["age"]]
    start = time.perf_counter()
    v = verify_k_anonymity(table, out, hs, 10)
    elapsed = time.perf_counter() - start
    assert v.passed, v.problems
    print(f"\nk-anonymity verified in {elapsed:.3f} s")  # timed on demand: tests/benchmarks/bench_verifiers.py


# --------------------------------------------------------------------------------------------------------
# (k,c)-privacy (Sehatkar & Matwin, 004)
def event_hierarchies() -> dict[str, Hierarchy]:
    years = Hierarchy("year", [[y, "[2007:2008]" if y < "2009" else "[2009:2012]", "*"] for y in ("2007", "2008", "2009", "2010")])
    return {"year": years, "zip": masking("zip", ["56117", "56103", "56107", "56942"], levels=3)}


def event_log() -> EventLog:
    rows = [
        ("P1", 1, "2007", "56103", "Flu"),
        ("P1", 2, "2009", "56107", "HIV"),
        ("P2", 1, "2008", "56117", "Fever"),
        ("P2", 2, "2010", "56103", "Flu"),
        ("P2", 3, "2010", "56942", "Flu"),
        ("P3", 1, "2009", "56117", "Fever"),
        ("P4", 1, "2010", "56117", "Flu"),
    ]
    df = pd.DataFrame(rows, columns=["PID", "VID", "year", "zip", "disease"]).astype(str)
    return EventLog(df, "PID", "VID", ["year", "zip"], "disease", source="visits.csv")


def good_events() -> pd.DataFrame:
    # {P1, P2}: <([2007:2008], 561**), ([2009:2012], 561**)>, P2's third event suppressed;
    # {P3, P4}: <([2009:2012], 56117)>
    rows = [
        ("P1", "1", "[2007:2008]", "561**", "Flu"),
        ("P1", "2", "[2009:2012]", "561**", "HIV"),
        ("P2", "1", "[2007:2008]", "561**", "Fever"),
        ("P2", "2", "[2009:2012]", "561**", "Flu"),
        ("P3", "1", "[2009:2012]", "56117", "Fever"),
        ("P4", "1", "[2009:2012]", "56117", "Flu"),
    ]
    return pd.DataFrame(rows, columns=["PID", "VID", "year", "zip", "disease"])


def test_kc_privacy_passes_on_a_compliant_output():
    v = verify_kc_privacy(event_log(), good_events(), event_hierarchies(), 2, 0.5, ["HIV"])
    assert v.passed, v.problems
    d = v.details
    assert d["groups"] == 2 and d["smallest_group"] == 2 and d["suppressed_events"] == 1
    assert d["highest_confidence"] == 0.5 and d["removed_sequences"] == 0
    v = verify_output({"model": "(k,c)-privacy", "k": 2, "c": 0.5, "highly_sensitive": ["HIV"]}, event_log(), good_events(), event_hierarchies())
    assert v.passed


def test_kc_privacy_fails_on_k_c_and_unfaithful_events():
    log, hs = event_log(), event_hierarchies()
    v = verify_kc_privacy(log, good_events(), hs, 3, 0.5, ["HIV"])
    assert not v.passed and v.details["groups_below_k"] == 2
    v = verify_kc_privacy(log, good_events(), hs, 2, 0.4, ["HIV"])
    assert not v.passed and "sequence 'P1'" in v.problems[0] and "share 0.500 > c = 0.4" in v.problems[0]
    # events out of order: P1's two events swapped
    swapped = good_events().iloc[[1, 0, 2, 3, 4, 5]].reset_index(drop=True)
    swapped.loc[[0, 1], "VID"] = ["2", "1"]
    v = verify_kc_privacy(log, swapped, hs, 2, 1.0, [])
    assert not v.passed
    # P3's zip replaced by a non-ancestor
    bad = good_events()
    bad.loc[4, "zip"] = "56107"
    v = verify_kc_privacy(log, bad, hs, 1 + 1, 1.0, [])
    assert not v.passed
    assert any("sequence 'P3', published event 1 (output row 5" in p for p in v.problems)
    # a changed sensitive value
    bad = good_events()
    bad.loc[1, "disease"] = "Flu"
    assert not verify_kc_privacy(log, bad, hs, 2, 0.5, ["HIV"]).passed
    # a sequence that is not in the input
    bad = good_events()
    bad.loc[5, "PID"] = "P9"
    v = verify_kc_privacy(log, bad, hs, 2, 1.0, [])
    assert not v.passed and "sequence 'P9' is not in the input" in v.problems
    with pytest.raises(ParameterError, match="'c'"):
        verify_kc_privacy(log, good_events(), hs, 2, 1.5, [])


def test_kc_privacy_removed_sequences_are_counted_not_faulted():
    out = good_events().iloc[:4]
    v = verify_kc_privacy(event_log(), out, event_hierarchies(), 2, 0.5, ["HIV"])
    assert v.passed and v.details["removed_sequences"] == 2


# --------------------------------------------------------------------------------------------------------
# pseudo-strings
def test_pseudo_strings_no_copies_and_longest_shared_substring():
    orig = SequenceSet.from_strings(["MKTAYIAKQR", "GGGSSSAAAW", "MKLLV"], ids=["P1", "P2", "P3"], alphabet="protein-25")
    out = SequenceSet.from_strings(["MKTAYWWWWW", "SSSAAAY", "CCCCC"], ids=["pseudo_1", "pseudo_2", "pseudo_3"], alphabet="protein-25")
    v = verify_pseudo_strings(orig, out)
    assert v.passed
    assert v.details["longest_shared_max"] == 6 and v.details["longest_shared_record"] == "pseudo_2"
    assert list(longest_shared_substrings(orig, out)) == [5, 6, 0]
    assert v.details["longest_shared_mean"] == pytest.approx(11 / 3, abs=1e-3)
    copied = SequenceSet.from_strings(["MKTAYWWWWW", "MKLLV"], ids=["pseudo_1", "pseudo_2"])
    v = verify_pseudo_strings(orig, copied)
    assert not v.passed
    assert v.problems == ["pseudo-string 2 ('pseudo_2') is an exact copy of input record 'P3'"]


def test_pseudo_strings_group_sizes_from_headers_and_leaked_ids():
    orig = SequenceSet.from_strings(["ACGT", "ACGA", "TTTT"], ids=["a", "b", "c"])
    out = SequenceSet.from_strings(
        ["ACGG", "ACGC", "TTTA"],
        ids=["pseudo_1", "pseudo_2", "pseudo_3"],
        headers=["pseudo_1 segment=1 group=1", "pseudo_2 segment=1 group=1", "pseudo_3 segment=1 group=2"],
    )
    v = verify_output({"model": "pseudo-strings", "k": 2}, orig, out, {})
    assert not v.passed and v.problems == ["group 2 has 1 pseudo-string(s), fewer than k = 2"]
    assert v.details["groups"] == 2 and v.details["smallest_group"] == 1
    assert verify_output({"model": "pseudo-strings", "k": 1}, orig, out, {}).passed
    out.extra["groups"] = [1, 1, 1]
    assert verify_pseudo_strings(orig, out, k=3).passed
    leaky = SequenceSet.from_strings(["ACGG"], ids=["pseudo_1"], headers=["pseudo_1 from b"])
    assert "names input record 'b'" in verify_pseudo_strings(orig, leaky).problems[0]


def test_verification_dataclass_summary_for_failures():
    v = Verification(False, "k-anonymity", {"k": 5, "violations": 2}, ["row 3: bad", "row 4: bad"])
    assert v.summary() == "k-anonymity (k=5): FAILED (2 violation(s)) — row 3: bad"
    assert v.as_dict()["problems"] == ["row 3: bad", "row 4: bad"]


def test_records_suppressed_to_the_root_label_are_exempt_from_k_but_not_from_l_diversity():
    """Issue 11 item 16: the suppressed block is one class for l-diversity (a block of records with one
    sensitive value would disclose it); for the k test it stays exempt, within max_suppression — as a block of at
    least k (issue 39: a smaller one publishes its other cells '*', and is then exempt from l-diversity too)."""
    table, hs = paper_table(), paper_hierarchies()
    qi = [list(r) for r in TABLE_1C_QI]
    qi[0] = ["person", "[20-40]", "5352**"]  # row 1 suppressed with root labels: class 1 keeps HIV, Heart Disease
    alone = published(qi)
    alone.loc[0, "Disease"] = "*"  # a block of 1: nothing but its count
    model = {"model": "k-anonymity", "k": 2, "l": 2, "l_kind": "distinct", "max_suppression": 0.2}
    assert verify_output(model, table, alone, hs).passed
    assert not verify_output(model, table, published(qi), hs).passed  # its 'Flu' published beside it
    qi[5] = ["person", "[20-40]", "5352**"]  # row 6 too: a block of 2 (Flu, Flu) at k = 2 publishes its cells
    k_only = verify_output({"model": "k-anonymity", "k": 2, "max_suppression": 0.2}, table, published(qi), hs)
    assert k_only.passed, k_only.problems
    assert k_only.details["suppressed"] == 2
    model = {"model": "k-anonymity", "k": 2, "l": 2, "l_kind": "distinct", "max_suppression": 0.2}
    v = verify_output(model, table, published(qi), hs)
    assert not v.passed
    assert any("'person'" in p and "1 distinct value(s)" in p for p in v.problems)
    assert not verify_output({"model": "k-anonymity", "k": 2, "max_suppression": 0.05}, table, published(qi), hs).passed
