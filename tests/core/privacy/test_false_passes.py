"""Outputs the verifiers once reported as "passed" although they were unprotected or not what the job asked for.

Each case failed before its fix: a quasi-identifier named in the spec but absent from the input was skipped
(so nothing was checked), a duplicated output column crashed the verifier or hid an unprotected copy, the
anatomy side table (ST) was written without being checked, and a pseudo-string header could carry an input's
identifier glued to other text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import SequenceSet, Table
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.privacy import (
    verify_anatomy,
    verify_k_anonymity,
    verify_l_diversity,
    verify_output,
    verify_pseudo_strings,
    verify_random_anonymization,
)


def _table() -> Table:
    df = pd.DataFrame({"sex": ["M", "F", "M", "F", "M", "F"], "age": ["30", "31", "32", "33", "34", "35"],
                       "disease": ["Flu", "HIV", "Cold", "Flu", "HIV", "Cold"]}, dtype=object)
    return Table(df).with_roles(["sex", "age"], ["disease"])


SEX = {"sex": Hierarchy("sex", [["M", "*"], ["F", "*"]])}


@pytest.mark.parametrize("spec", [
    {"model": "k-anonymity", "k": 3, "quasi_identifiers": ["Age"]},
    {"model": "k-anonymity", "k": 3, "l": 2, "quasi_identifiers": ["sex", "Age"]},
    {"model": "random-anonymization", "max_changed": 1, "quasi_identifiers": ["Age"]},
    {"model": "anatomy", "l": 2, "quasi_identifiers": ["Age"], "sensitive": "disease"},
])
def test_a_quasi_identifier_that_is_no_column_of_the_input_is_refused_not_skipped(spec):
    """'Age' (a typo of 'age') was skipped: with no QI left the table was one class of 6 and passed k = 3,
    the unprotected ages published as they are."""
    table = _table()
    output = table.df.copy()
    if spec["model"] == "anatomy":
        output = output.drop(columns=["disease"]).assign(group="1")
    with pytest.raises(ParameterError, match="'Age' is not a column of the input"):
        verify_output(spec, table, output, SEX)


def test_verify_k_anonymity_refuses_an_unknown_quasi_identifier():
    table = _table()
    with pytest.raises(ParameterError, match="'Zip' is not a column of the input"):
        verify_k_anonymity(table, table.df, {}, 2, quasi_identifiers=["sex", "Zip"])
    with pytest.raises(ParameterError, match="'Zip' is not a column of the input"):
        verify_random_anonymization(table, table.df, {}, 1, quasi_identifiers=["Zip"])


def _with_duplicate(frame: pd.DataFrame, column: str, values) -> pd.DataFrame:
    extra = pd.DataFrame({column: list(values)}, dtype=object)
    return pd.concat([frame.reset_index(drop=True), extra], axis=1)


@pytest.mark.parametrize("column", ["age", "disease"])
def test_an_output_with_a_column_twice_fails_naming_it(column):
    """A second 'age' column holding the original ages beside the suppressed one crashed the verifier
    (exit 3); a second 'disease' column with 2 rows was compared by numpy broadcasting. Both now fail,
    naming the column."""
    table = _table()
    safe = table.df.copy()
    safe[["sex", "age"]] = "*"
    assert verify_output({"model": "k-anonymity", "k": 2}, table, safe, SEX).passed
    doubled = _with_duplicate(safe, column, table.df[column])
    for spec in ({"model": "k-anonymity", "k": 2}, {"model": "k-anonymity", "k": 2, "l": 2},
                 {"model": "random-anonymization", "max_changed": 2}):
        v = verify_output(spec, table, doubled, SEX)
        assert not v.passed
        assert any(f"column '{column}' appears 2 times in the output" in p for p in v.problems), v.problems
    two = Table(table.df.iloc[:2].reset_index(drop=True)).with_roles(["sex", "age"], ["disease"])
    out = two.df.copy()
    out[["sex", "age"]] = "*"
    out = _with_duplicate(out, "disease", ["Flu", "Flu"])
    assert not verify_k_anonymity(two, out, SEX, 1).passed


def test_l_diversity_and_anatomy_fail_on_a_column_twice():
    table = _table()
    frame = _with_duplicate(table.df, "disease", ["x"] * 6)
    v = verify_l_diversity(frame, ["sex"], "disease", 2)
    assert not v.passed and "column 'disease' appears 2 times in the output" in v.problems[0]
    qit = table.df.drop(columns=["disease"]).assign(group=["1", "1", "1", "2", "2", "2"])
    assert verify_anatomy(table, qit, 2).passed
    v = verify_anatomy(table, _with_duplicate(qit, "age", table.df["age"]), 2)
    assert not v.passed and "column 'age' appears 2 times in the QIT" in v.problems[0]


# ---------------------------------------------------------------------------------------------------------
# anatomy: the ST is published too, so it is verified too
def _anatomy_table() -> Table:
    df = pd.DataFrame({"sex": ["M", "F"] * 6, "age": [str(20 + i) for i in range(12)],
                       "disease": ["Flu", "HIV", "Cold", "Asthma"] * 3}, dtype=object)
    return Table(df).with_roles(["sex", "age"], ["disease"])


def _tampered_sts(st: pd.DataFrame) -> dict[str, pd.DataFrame]:
    g1 = st["group"] == st["group"].iloc[0]
    one_value = pd.concat([pd.DataFrame({"group": [st["group"].iloc[0]], "disease": ["HIV"],
                                         "count": [str(int(g1.sum()))]}), st[~g1]], ignore_index=True)
    return {
        "one value for a whole group": one_value,
        "a count changed": st.assign(count=["2"] + list(st["count"].iloc[1:])),
        "a row dropped": st.iloc[1:].reset_index(drop=True),
        "an extra column": st.assign(age="20"),
        "a value renamed": st.assign(disease=["Influenza"] + list(st["disease"].iloc[1:])),
        "a group that is not in the QIT": pd.concat([st, pd.DataFrame({"group": ["99"], "disease": ["Flu"],
                                                                       "count": ["1"]})], ignore_index=True),
        "a row twice": pd.concat([st, st.iloc[:1]], ignore_index=True),
    }


def test_the_anatomy_sensitive_table_is_verified_against_the_input():
    """The ST was written unchecked ("the verifier re-derives each group's sensitive values from the input
    rows, never from the ST"): an ST publishing one value for a whole group, or a row per record beside
    the ages, passed. Now it must hold exactly each QIT group's values and counts as the input has them."""
    table = _anatomy_table()
    result = get("anatomy")(l=3, seed=1).run(table, {})
    st = result.side_outputs["sensitive"]
    spec = {"model": "anatomy", "l": 3, "sensitive": "disease"}
    assert verify_output(spec, table, result.output, {}, side_outputs=result.side_outputs).passed
    for what, bad in _tampered_sts(st).items():
        v = verify_output(spec, table, result.output, {}, side_outputs={"sensitive": bad})
        assert not v.passed, what
        assert any("sensitive table" in p for p in v.problems), (what, v.problems)


def test_a_run_whose_anatomy_sensitive_table_is_wrong_writes_nothing(tmp_path, monkeypatch):
    from anonstudio.core.algorithms.anatomy import Anatomy

    honest = Anatomy.run

    def leaky(self, data, hierarchies, progress=None):
        result = honest(self, data, hierarchies, progress)
        st = result.side_outputs["sensitive"]
        first = st["group"].iloc[0]
        result.side_outputs["sensitive"] = pd.concat(
            [pd.DataFrame({"group": [first], "disease": ["HIV"], "count": [str(int((st["group"] == first).sum()))]}),
             st[st["group"] != first]], ignore_index=True)
        return result

    monkeypatch.setattr(Anatomy, "run", leaky)
    table = _anatomy_table()
    with pytest.raises(PrivacyError, match="sensitive table"):
        jobs.anonymize(table, {}, get("anatomy")(l=3, seed=1))


def test_anonstudio_verify_checks_the_anatomy_sensitive_table_file(tmp_path):
    from anonstudio.cli.main import main

    table = _anatomy_table()
    (tmp_path / "t.csv").write_text(table.df.to_csv(sep=";", index=False), encoding="utf-8")
    (tmp_path / "job.toml").write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\n'
                                       'sensitive = ["disease"]\n[algorithm]\nname = "anatomy"\nl = 3\n'  # its draws: the release key
                                       '[output]\npath = "out.csv"\n', encoding="utf-8")
    assert main(["run", str(tmp_path / "job.toml"), "--quiet"]) == 0
    assert main(["verify", str(tmp_path / "job.toml")]) == 0
    st = tmp_path / "out.sensitive.csv"
    lines = st.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].rsplit(";", 2)[0] + ";HIV;1"  # group 1 now lists HIV where the input has another value
    st.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verify", str(tmp_path / "job.toml")]) == 1


# ---------------------------------------------------------------------------------------------------------
# pseudo-strings: an input's identifier inside a header token
@pytest.mark.parametrize("header", ["pseudo_1 group=1 from=P12345", "pseudo_1 group=1 (P12345)",
                                    "pseudo_1 group=1 src:P12345,Q9", "P12345|pseudo_1 group=1"])
def test_an_input_identifier_glued_to_other_text_in_a_header_fails(header):
    """Only whole whitespace-separated tokens were compared with the input identifiers: 'from=P12345'
    passed, although the contract says no original identifier appears in the output."""
    original = SequenceSet.from_strings(["MKVLAAGIVALLLAAGCSS", "MKTAYIAKQRQISFVKSHF"], ids=["P12345", "Q67890"])
    fine = SequenceSet.from_strings(["MKVLAYIAKQRQISFGCSS"], ids=["pseudo_1"], headers=["pseudo_1 group=1"])
    assert verify_pseudo_strings(original, fine).passed
    leaky = SequenceSet.from_strings(["MKVLAYIAKQRQISFGCSS"], ids=["pseudo_1"], headers=[header])
    v = verify_pseudo_strings(original, leaky)
    assert not v.passed and "names input record 'P12345'" in v.problems[0]


def test_identifiers_are_matched_whole_not_as_parts_of_other_words():
    original = SequenceSet.from_strings(["MKVLAAGIVALLLAAGCSS", "MKTAYIAKQRQISFVKSHF"], ids=["1", "seg"])
    out = SequenceSet.from_strings(["MKVLAYIAKQRQISFGCSS"], ids=["pseudo_11"],
                                   headers=["pseudo_11 segment=0 group=1"])
    assert verify_pseudo_strings(original, out).passed  # 'group=1' is the output's own field, not input '1'
    named = SequenceSet.from_strings(["MKVLAYIAKQRQISFGCSS"], ids=["pseudo_1"], headers=["pseudo_1 group=2 id=1"])
    assert not verify_pseudo_strings(original, named).passed


# ---------------------------------------------------------------------------------------------------------
# l-diversity: suppressed records are records too
def test_verify_l_diversity_judges_fully_suppressed_records_by_default():
    """The public verify_l_diversity exempted records with every QI '*' unless told otherwise: three such
    records, all 'HIV', passed l = 2 although anyone reading the release learns that each of them has HIV
    (verify_output already judged them; now the function's default agrees)."""
    frame = pd.DataFrame({"sex": ["M", "M", "F", "F", "*", "*", "*"], "age": ["3*", "3*", "3*", "3*", "*", "*", "*"],
                          "disease": ["Flu", "HIV", "Cold", "Flu", "HIV", "HIV", "HIV"]}, dtype=object)
    v = verify_l_diversity(frame, ["sex", "age"], "disease", 2, kind="distinct")
    assert not v.passed and "row 5" in v.problems[0]
    exempt = np.array([False] * 4 + [True] * 3)
    assert verify_l_diversity(frame, ["sex", "age"], "disease", 2, kind="distinct", suppressed=exempt).passed


@pytest.mark.parametrize("check", [
    lambda t: verify_k_anonymity(t, t.df, {}, 3, quasi_identifiers=[]),
    lambda t: verify_output({"model": "k-anonymity", "k": 3, "quasi_identifiers": []}, t, t.df, {}),
    lambda t: verify_output({"model": "k-anonymity", "k": 3}, Table(t.df.copy()), t.df, {}),
])
def test_k_anonymity_over_no_quasi_identifier_fails_instead_of_passing_vacuously(check):
    """With no quasi-identifier every table is one class, so any output 'passed' — also a table published
    exactly as read, when the QI list was lost or empty."""
    v = check(_table())
    assert not v.passed and "no quasi-identifier" in v.problems[0]


# ---------------------------------------------------------------------------------------------------------
# sensitive values that read alike are one value
LOOK_ALIKE = [(" HIV", "leading space"), ("HIV ", "trailing space"), ("HIV\u200b", "zero-width space"),
              ("HIV\u00a0", "no-break space"), ("hiv", "lower case"), ("ＨＩＶ", "full-width letters")]


@pytest.mark.parametrize(("twin", "what"), LOOK_ALIKE)
@pytest.mark.parametrize("kind", ["distinct", "entropy"])
def test_sensitive_values_that_read_alike_do_not_make_a_class_diverse(twin, what, kind):
    """A class holding 'HIV' and ' HIV' passed distinct (and entropy) 2-diversity: two values to the verifier,
    one disease to anyone reading the release."""
    frame = pd.DataFrame({"sex": ["M", "M", "F", "F"], "disease": ["HIV", twin, "Flu", "Cold"]}, dtype=object)
    v = verify_l_diversity(frame, ["sex"], "disease", 2, kind=kind)
    assert not v.passed, what
    assert "row 1" in v.problems[0]
    frame.loc[1, "disease"] = "Flu"
    assert verify_l_diversity(frame, ["sex"], "disease", 2, kind=kind).passed


def test_accents_in_either_unicode_form_are_one_value():
    nfc, nfd = "H\u00e9patite", "He\u0301patite"
    frame = pd.DataFrame({"sex": ["M", "M"], "disease": [nfc, nfd]}, dtype=object)
    assert not verify_l_diversity(frame, ["sex"], "disease", 2, kind="distinct").passed


def test_anatomy_groups_count_look_alike_sensitive_values_as_one():
    df = pd.DataFrame({"sex": ["M", "F", "M", "F", "M", "F"], "age": [str(20 + i) for i in range(6)],
                       "disease": ["Flu", "flu ", "Cold", "HIV", "Cold", "Asthma"]}, dtype=object)
    table = Table(df).with_roles(["sex", "age"], ["disease"])
    qit = df.drop(columns=["disease"]).assign(group=["1", "1", "1", "2", "2", "2"])
    v = verify_anatomy(table, qit, 3)
    assert not v.passed and "row 1" in v.problems[0]


def test_a_highly_sensitive_value_spelled_with_spaces_still_counts_for_c():
    from anonstudio.core.data import EventLog
    from anonstudio.core.privacy import verify_kc_privacy

    df = pd.DataFrame({"pid": ["1", "1", "2", "3", "4"], "vid": ["1", "2", "1", "1", "1"],
                       "zip": ["*"] * 5, "disease": ["Flu", " HIV", "HIV", "Flu", "Cold"]}, dtype=object)
    log = EventLog(df.copy(), "pid", "vid", ["zip"], "disease")
    out = df[df.index != 0].reset_index(drop=True)  # pid 1 keeps its ' HIV' event only
    v = verify_kc_privacy(log, out, {}, 4, 0.25, ["HIV"])
    assert not v.passed and v.details["highest_confidence"] == 0.5  # pids 1 and 2 of 4 show HIV


def test_methods_count_sensitive_values_as_the_verifiers_read_them(tmp_path):
    """Mondrian (l-diversity), Anatomy (buckets) and CBMSA (highly-sensitive events) tell values apart as the
    verifiers do, so data with look-alike spellings still gives outputs that pass."""
    from anonstudio.core.data import EventLog

    rows = [("M", str(30 + i % 4), d) for i, d in enumerate(["HIV", " HIV", "hiv", "Flu", "HIV ", "Flu",
                                                               "Cold", "flu", "Cold", "Asthma", "Flu ", "Cold"])]
    df = pd.DataFrame(rows, columns=["sex", "age", "disease"], dtype=object)
    table = Table(df).with_roles(["sex", "age"], ["disease"])
    hs, _ = jobs.load_hierarchies({"sex": {"groups": [{"*": ["M"]}]}}, table)  # age: the default intervals
    for kind in ("distinct", "entropy"):
        outcome = jobs.anonymize(table, hs, get("mondrian")(k=2, l=2, l_kind=kind))
        assert outcome.verification.passed
    outcome = jobs.anonymize(table, {}, get("anatomy")(l=3, seed=1))
    assert outcome.verification.passed
    st = outcome.result.side_outputs["sensitive"]
    assert set(st["disease"]) == set(df["disease"])  # the ST publishes the values as spelled
    heavy = Table(df.assign(disease=["HIV", " HIV", "hiv", "HIV ", "HIV", "Flu", "Cold", "flu", "Cold", "Asthma",
                                     "Cold", "Flu"])).with_roles(["sex", "age"], ["disease"])
    with pytest.raises(PrivacyError, match="'HIV' is 5 of 12 records, more than 1/l"):  # 'HIV' read alike 5 times
        jobs.anonymize(heavy, {}, get("anatomy")(l=3, seed=1))
    events = pd.DataFrame({"pid": [str(i) for i in range(8)], "vid": ["1"] * 8, "zip": ["12345"] * 8,
                           "disease": ["HIV", " hiv", "Flu", "Cold", "Flu", "Cold", "Flu", "Cold"]}, dtype=object)
    log = EventLog(events, "pid", "vid", ["zip"], "disease")
    zips = {"zip": Hierarchy("zip", [["12345", "123**", "*"]])}
    outcome = jobs.anonymize(log, zips, get("cbmsa")(k=4, c=0.25, highly_sensitive=["HIV"], seed=1))
    assert outcome.verification.passed
    assert outcome.verification.details["highest_confidence"] <= 0.25


# ---------------------------------------------------------------------------------------------------------
# anatomy's QIT: only the input's columns (sensitive and identifying ones dropped) and the group, unchanged
def test_an_anatomy_qit_with_an_extra_or_changed_column_fails():
    """verify_anatomy compared only the quasi-identifiers: a QIT with the sensitive values under another name,
    or with the sensitive value written into a column without a role, passed."""
    df = pd.DataFrame({"sex": ["M", "F"] * 3, "age": [str(20 + i) for i in range(6)], "note": ["a"] * 6,
                       "disease": ["Flu", "HIV", "Cold", "Flu", "HIV", "Cold"]}, dtype=object)
    table = Table(df).with_roles(["sex", "age"], ["disease"])
    qit = df.drop(columns=["disease"]).assign(group=["1", "1", "1", "2", "2", "2"])
    assert verify_anatomy(table, qit, 3).passed
    v = verify_anatomy(table, qit.assign(dx=df["disease"]), 3)
    assert not v.passed and "the QIT has a column 'dx' the input does not have" in v.problems[0]
    v = verify_anatomy(table, qit.assign(note=df["disease"]), 3)
    assert not v.passed and "row 1, column 'note' (not a quasi-identifier) was changed from 'a' to 'Flu'" in v.problems[0]
    v = verify_anatomy(table, qit.drop(columns=["note"]), 3)
    assert not v.passed and "column 'note' is missing from the QIT" in v.problems[0]


def test_a_pseudo_string_in_lower_case_is_still_a_copy():
    """Letters were matched by exact symbol: an input published in lower case (as a list of strings or a
    SequenceSet built in memory; FASTA files are folded to upper case when read) shared nothing with any input
    and passed as no copy."""
    original = SequenceSet.from_strings(["MKVLAAGIVALLLAAGCSSA", "MKTAYIAKQRQISFVKSHFS"], ids=["P1", "P2"])
    v = verify_pseudo_strings(original, ["mkvlaagivalllaagcssa"])
    assert not v.passed and "exact copy of input record 'P1'" in v.problems[0]
    out = SequenceSet.from_strings(["mkvlaagivalllaagcsWW", "MKTAYIAKQRQISFVKSHFW"], ids=["x", "y"],
                                   headers=["x group=1", "y group=1"])
    v = verify_pseudo_strings(original, out, k=2, max_fragment=10)
    assert not v.passed and v.details["rare_fragment_strings"] == 2


@pytest.mark.parametrize("gap", ["-", ".", "X", "*"])
def test_a_copy_with_symbols_the_inputs_lack_sprinkled_in_is_still_a_copy(gap):
    """A symbol the inputs never hold (an alignment gap, X, a stop) matched nothing, so an input with one
    inserted every 10 residues was no copy and shared runs of 10 < max_fragment: it passed, although a
    reader deletes the gaps and has the protein."""
    seqs = ["MKVLAAGIVALLLAAGCSSAHHKTWQERDNPLIVMKVLAYIAKQR", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQ",
            "MSTNPKPQRKTKRNTNRRPQDVKFPGGGQIVGGVYLLPRRGPRLG"]
    original = SequenceSet.from_strings(seqs, ids=["P1", "P2", "P3"])
    sprinkled = gap.join(seqs[0][i:i + 10] for i in range(0, len(seqs[0]), 10))
    out = SequenceSet.from_strings([sprinkled, seqs[2][::-1]], ids=["x", "y"], headers=["x group=1", "y group=1"],
                                   alphabet="as-found")
    v = verify_pseudo_strings(original, out, k=2, max_fragment=20)
    assert not v.passed
    assert "exact copy of input record 'P1'" in v.problems[0]
    assert v.details["longest_shared_max"] == len(seqs[0])


def test_kc_privacy_with_highly_sensitive_values_but_no_sensitive_column_fails():
    """With no sensitive column declared, the c test counted no highly sensitive record: a group whose every
    sequence has HIV (published in the column without a role) passed c = 0.5 — `anonstudio verify` with such a
    job said "passed" where `run` refuses the job."""
    from anonstudio.core.data import EventLog
    from anonstudio.core.privacy import verify_kc_privacy

    df = pd.DataFrame({"pid": ["1", "2", "3", "4"], "vid": ["1"] * 4, "zip": ["*"] * 4,
                       "disease": ["HIV"] * 4}, dtype=object)
    log = EventLog(df.copy(), "pid", "vid", ["zip"], None)
    v = verify_kc_privacy(log, df, {}, 2, 0.5, ["HIV"])
    assert not v.passed and "no sensitive column" in v.problems[0]
    assert verify_kc_privacy(log, df, {}, 2, 0.5, []).passed  # no value named: nothing to count


def test_a_hierarchy_that_labels_a_group_star_under_another_root_is_refused():
    """'*' marks a suppressed cell, exempt from the k test; in a hierarchy whose root is 'Any', '56043;*;Any' makes
    '*' the group {56043}. A record published '*' passed as suppressed (1 of 20, within max_suppression) while a
    reader of the hierarchy reads its zip code: 56043."""
    h = Hierarchy("zip", [["56043", "*", "Any"], ["56072", "5607*", "Any"], ["56073", "5607*", "Any"]])
    zips = ["56043"] + ["56072", "56073"] * 9 + ["56072"]
    table = Table(pd.DataFrame({"zip": zips, "disease": ["Flu"] * 20}, dtype=object)).with_roles(["zip"], ["disease"])
    out = table.df.assign(zip=["*"] + ["5607*"] * 19)
    v = verify_output({"model": "k-anonymity", "k": 3, "max_suppression": 0.1}, table, out, {"zip": h})
    assert not v.passed and "hierarchy of 'zip'" in v.problems[0] and "'*'" in v.problems[0]
    # a root labelled '*' may share its label with a fully masked value ('0;*;*'): '*' then means any value
    masked = Hierarchy("zip", [["56043", "*", "*"], ["56072", "5607*", "*"], ["56073", "5607*", "*"]])
    # (the suppressed record is a block of 1 < k: its disease is published '*' too, issue 39)
    blanked = out.assign(disease=["*"] + ["Flu"] * 19)
    assert verify_output({"model": "k-anonymity", "k": 3, "max_suppression": 0.1}, table, blanked,
                         {"zip": masked}).passed


def test_kc_privacy_refuses_a_hierarchy_that_labels_a_group_star_under_another_root():
    """Not a k failure here (events exempt no suppressed record), but the same ambiguity: two sequences of zip
    56072 published '*' passed, under a label their hierarchy gives to 56043 — a label that is not theirs."""
    from anonstudio.core.data import EventLog
    from anonstudio.core.privacy import verify_kc_privacy

    h = {"zip": Hierarchy("zip", [["56043", "*", "Any"], ["56072", "5607*", "Any"]])}
    df = pd.DataFrame({"pid": ["1", "2", "3"], "vid": ["1"] * 3, "zip": ["56043", "56072", "56072"],
                       "disease": ["Flu"] * 3}, dtype=object)
    log = EventLog(df.copy(), "pid", "vid", ["zip"], "disease")
    v = verify_kc_privacy(log, df.assign(zip="*"), h, 3, 1.0, [])
    assert not v.passed and "hierarchy of 'zip'" in v.problems[0]


def test_verify_sees_the_index_columns_of_a_parquet_output(tmp_path):
    """pandas restores a Parquet file's stored index as the frame's index, not a column: an output whose index
    held every person's name passed `anonstudio verify` though the file publishes the names (any Parquet reader
    shows the column)."""
    from anonstudio.core.io import read_output_like

    df = pd.DataFrame({"name": [f"P{i}" for i in range(6)], "sex": ["M", "F"] * 3, "disease": ["Flu", "HIV", "Cold"] * 2},
                      dtype=object)
    (tmp_path / "t.csv").write_text(df.to_csv(index=False), encoding="utf-8")
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n", encoding="utf-8")
    (tmp_path / "job.toml").write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["sex"]\nsensitive = ["disease"]\n'
                                       'identifying = ["name"]\n[hierarchies]\nsex = "sex.csv"\n[algorithm]\n'
                                       'name = "mondrian"\nk = 2\n[output]\npath = "out.parquet"\n', encoding="utf-8")
    job = jobs.load_job(tmp_path / "job.toml")
    jobs.run_job(job)
    assert jobs.verify_job(job).passed
    out = pd.read_parquet(tmp_path / "out.parquet")
    out.index = pd.Index(df["name"], name="who")  # the names, published as the file's index column
    out.to_parquet(tmp_path / "out.parquet")
    table = jobs.load_data(job.input)
    assert "who" in read_output_like(table, tmp_path / "out.parquet").df.columns
    v = jobs.verify_job(job)
    assert not v.passed and any("column 'who'" in p for p in v.problems)


def test_an_event_log_read_back_from_parquet_keeps_its_index_columns(tmp_path):
    from anonstudio.core.data import EventLog
    from anonstudio.core.io import read_output_like

    df = pd.DataFrame({"pid": ["1", "2"], "vid": ["1", "1"], "zip": ["*", "*"]}, dtype=object)
    log = EventLog(df.copy(), "pid", "vid", ["zip"], None)
    df.set_index(pd.Index(["Ann", "Bob"], name="who")).to_parquet(tmp_path / "out.parquet")
    assert "who" in read_output_like(log, tmp_path / "out.parquet").df.columns


def test_missing_quasi_identifier_cells_are_classed_as_written():
    """A missing QI cell is written back as the input spelled it ('?', 'NA'): the verifier put every missing cell in
    one class, so an output (as `anonstudio verify` reads it) whose one '?' stands among 'NA's passed k = 3 and
    l = 2 although a reader of the file sees that record alone in its class."""
    df = pd.DataFrame({"zip": [pd.NA] * 4 + ["1000"] * 4, "disease": ["HIV", "Flu", "Cold", "Flu"] * 2}, dtype=object)
    spelled = {"zip": pd.Series(["?", "NA", "NA", "NA"], index=[0, 1, 2, 3], dtype=object)}
    table = Table(df.copy(), missing_text=dict(spelled)).with_roles(["zip"], ["disease"])
    out = Table(df.copy(), missing_text=dict(spelled)).with_roles(["zip"], ["disease"])
    v = verify_output({"model": "k-anonymity", "k": 3, "l": 2, "l_kind": "distinct", "max_suppression": 0.1},
                      table, out, {})
    assert not v.passed and v.details["smallest_class"] == 1
    assert any("row 1" in p and "fewer than k = 3" in p for p in v.problems)
    assert any("1 distinct value" in p for p in v.problems)  # the l part sees the same classes
    # respelling the lone '?' as 'NA' makes one class of four — but 'NA' is a token the input did not write there:
    # a missing QI cell is published as the input spells it (issue 28: whitelisted tokens), so that fails too
    same = {"zip": pd.Series(["NA"] * 4, index=[0, 1, 2, 3], dtype=object)}
    respelled = verify_output({"model": "k-anonymity", "k": 3, "l": 2, "l_kind": "distinct"}, table,
                              Table(df.copy(), missing_text=same).with_roles(["zip"], ["disease"]), {})
    assert not respelled.passed
    assert respelled.problems == ["row 1, column 'zip' is missing in both files but spelled apart: the output writes "
                                  "'NA', the input '?'"]



_RA_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]


def _demo_sample() -> Table:
    from pathlib import Path

    from anonstudio.core.io import read_table

    demo = Path(__file__).resolve().parents[3] / "anonstudio" / "resources" / "demo" / "adult-sample.csv"
    return read_table(demo).with_roles(_RA_QIS, ["occupation"])


@pytest.mark.parametrize("name, max_changed", [("ra", 1), ("ra-enhanced", 3)])
def test_random_anonymization_of_an_output_that_kept_every_record_fails(name, max_changed):
    """An output identical to its input passed the random-anonymization verifier: every value is one of
    the attribute's own and no record has more than max_changed changed values — nothing was randomized,
    and `anonstudio verify` said "passed"."""
    table = _demo_sample()
    verdict = verify_random_anonymization(table, table.df.copy(), {}, max_changed)
    assert not verdict.passed
    assert any("not randomized" in p and f"0 of {table.n_rows:,} records differ" in p for p in verdict.problems)
    # the method's own output passes, and so does one with a tenth of its records put back as they were
    run = get(name)(seed=3).run(table, {})
    out = run.output.df.copy()
    assert verify_random_anonymization(table, out, {}, max_changed).passed
    back = np.arange(0, table.n_rows, 10)
    out.iloc[back] = table.df.iloc[back][out.columns].to_numpy()
    assert verify_random_anonymization(table, out, {}, max_changed).passed


def test_a_small_or_nearly_constant_table_kept_as_it_was_is_not_refused_on_chance_alone():
    """Ten records, or quasi-identifiers whose redraw almost always hits the old value: an unchanged output
    is likely enough from a real randomization, so the check must not fail it."""
    table = _table()
    assert verify_random_anonymization(table, table.df.copy(), {}, 1).passed
    n = 2000
    df = pd.DataFrame({"flag": ["a"] * (n - 2) + ["b", "c"], "s": ["x"] * n}, dtype=object)
    constant = Table(df).with_roles(["flag"], ["s"])
    assert verify_random_anonymization(constant, df.copy(), {}, 1).passed


@pytest.mark.parametrize("name", ["ra", "ra-enhanced"])
def test_a_constant_or_skewed_quasi_identifier_no_longer_hides_an_unrandomized_output(name):
    """The check took the most repetitive quasi-identifier's chance of keeping a value: one constant column
    made it 1 and switched the check off, and one skewed column let an output with most records put back
    pass. It now weighs each column's chance by the job's chance of redrawing it (review of 414f95e)."""
    base = _demo_sample()
    df = base.df.assign(country="US")  # a constant quasi-identifier
    table = Table(df).with_roles([*_RA_QIS, "country"], ["occupation"])
    alg = get(name)(seed=2)
    spec = alg.privacy_model()
    run = alg.run(table, {})
    assert verify_output(spec, table, run.output.df, {}).passed
    assert not verify_output(spec, table, table.df.copy(), {}).passed
    out = run.output.df.copy()
    back = np.arange(len(out)) % 4 != 0  # three records in four put back as they were
    out.iloc[back] = table.df.iloc[back][out.columns].to_numpy()
    verdict = verify_output(spec, table, out, {})
    assert not verdict.passed and any("not randomized" in p for p in verdict.problems)


@pytest.mark.parametrize("name, rows, columns", [("ra", 80, 25), ("ra", 40, 20), ("ra-enhanced", 50, 15)])
def test_shuffled_redraws_on_a_small_wide_table_are_not_refused(name, rows, columns):
    """draws = "shuffle" permutes each column's redrawn cells, and a permutation leaves about one cell per
    column where it was: on 80 rows x 25 unique-valued quasi-identifiers 76 % of real runs were refused as
    "not randomized" (review of 414f95e). The run's own verification must pass for every seed."""
    rng = np.random.default_rng(columns)
    names = [f"q{i}" for i in range(columns)]
    df = pd.DataFrame({c: rng.integers(0, 10**6, rows).astype(str) for c in names}, dtype=object)
    df["s"] = "x"
    table = Table(df).with_roles(names, ["s"])
    extra = {"weights": "uniform"} if name == "ra" else {"attributes_per_record": 2}
    for seed in range(1, 21):
        outcome = jobs.anonymize(table, {}, get(name)(seed=seed, draws="shuffle", bias_runs=0, **extra))
        assert outcome.verification.passed, (seed, outcome.verification.problems)


def test_the_verifier_counts_at_least_as_many_shuffle_blocks_as_the_method_makes():
    import importlib

    ra = importlib.import_module("anonstudio.core.algorithms.ra")
    verifier = importlib.import_module("anonstudio.core.privacy._random")
    assert verifier._SHUFFLE_BLOCK_ROWS <= ra.BLOCK_ROWS
