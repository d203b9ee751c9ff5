"""Hierarchy builders: intervals, masking, grouping, dates, job-file specs and the default numeric rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy import (
    Hierarchy,
    build_hierarchy,
    dates,
    default_numeric_hierarchy,
    grouping,
    intervals,
    masking,
    nice_widths,
)

AGES = [str(a) for a in range(17, 91)]


def test_intervals_integer_bands_nest_and_use_inclusive_labels():
    h = intervals("age", AGES, [5, 10, 20])
    assert h.ancestors_of("39") == ["39", "35-39", "30-39", "20-39", "*"]
    assert h.ancestors_of("17") == ["17", "15-19", "10-19", "0-19", "*"]
    assert h.height == 4
    assert h.lca(["36", "39"]) == (1, "35-39")
    assert h.lca(["31", "39"]) == (2, "30-39")
    assert h.lca(["17", "90"]) == (4, "*")


def test_intervals_explicit_start_and_decimal_data_use_half_open_labels():
    h = intervals("age", ["21", "24", "38"], [5, 10], start=1)
    assert h.ancestors_of("24") == ["24", "21-25", "21-30", "*"]
    neg = intervals("temp", ["-7", "3"], [5, 10])
    assert neg.ancestors_of("-7") == ["-7", "[-10, -6]", "[-10, -1]", "*"]
    assert neg.ancestors_of("3") == ["3", "[0, 4]", "[0, 9]", "*"]
    d = intervals("bmi", ["18.5", "22.1", "30"], [2.5, 5])
    assert d.ancestors_of("22.1") == ["22.1", "[20, 22.5)", "[20, 25)", "*"]
    assert d.ancestors_of("30") == ["30", "[30, 32.5)", "[30, 35)", "*"]


def test_intervals_reject_non_nesting_widths_and_non_numbers_naming_them():
    with pytest.raises(HierarchyError, match="width 15 is not a multiple of the previous width 10") as exc:
        intervals("age", AGES, [5, 10, 15], source="job.toml")
    assert "job.toml" in str(exc.value) and "'age'" in str(exc.value)
    with pytest.raises(HierarchyError, match="'forty' is not a number"):
        intervals("age", ["30", "forty"], [5])
    with pytest.raises(HierarchyError, match="'12' lies below the interval start 20"):
        intervals("age", ["12", "30"], [5], start=20)
    with pytest.raises(HierarchyError, match="greater than 0"):
        intervals("age", ["12"], [0])


def test_masking_one_more_character_per_level_and_short_values_fully_masked():
    h = masking("zip", ["535280", "535285", "535292", "12"])
    assert h.ancestors_of("535280") == ["535280", "53528*", "5352**", "535***", "53****", "5*****", "*"]
    # a shorter value is masked within its own length, then stays fully masked
    assert h.ancestors_of("12") == ["12", "1*", "**", "**", "**", "**", "*"]
    assert h.lca(["535280", "535285"]) == (1, "53528*")
    assert h.lca(["535280", "535292"]) == (2, "5352**")
    short = masking("zip", ["535280", "535281"], levels=2)
    assert short.ancestors_of("535281") == ["535281", "53528*", "5352**", "*"]
    with pytest.raises(HierarchyError, match="one character"):
        masking("zip", ["1"], char="**")


@given(st.lists(st.text(alphabet="0123ab", min_size=1, max_size=6), min_size=1, max_size=30, unique=True))
@settings(max_examples=60, deadline=None)
def test_masking_always_builds_a_valid_tree(values):
    h = masking("v", values)
    assert sorted(h.leaves) == sorted(set(values))
    for v in values:
        row = h.ancestors_of(v)
        assert row[-1] == "*"
        # every level masks one more character (within the value's own length)
        for j, label in enumerate(row[1:-1], start=1):
            m = min(j, len(v))
            assert label == v[: len(v) - m] + "*" * m


def test_masking_values_that_contain_the_mask_character_is_refused_when_labels_would_clash():
    """'000000' masked once is '00000*', which is also a value of the column: publishing it would put
    '000000' under another value's label (issue 11 item 4). A mask character the values do not use works."""
    with pytest.raises(HierarchyError, match="label '00000\\*' means two different things"):
        masking("v", ["000000", "00000*"])
    h = masking("v", ["000000", "00000*"], char="#")
    assert h.ancestors_of("000000")[1] == "00000#"


def test_grouping_levels_and_errors_name_the_value():
    levels = [
        {"respiratory": ["Flu", "Cold"], "blood": ["HIV", "Hepatitis"]},
        {"infectious": ["respiratory", "blood"]},
    ]
    h = grouping("disease", levels, ["Flu", "HIV"])
    assert h.ancestors_of("Hepatitis") == ["Hepatitis", "blood", "infectious", "*"]
    with pytest.raises(HierarchyError, match="'Flu' is in two groups of level 1"):
        grouping("disease", [{"a": ["Flu"], "b": ["Flu", "HIV"]}])
    with pytest.raises(HierarchyError, match="group 'blood' of level 1 is in no group of level 2"):
        grouping("disease", [levels[0], {"infectious": ["respiratory"]}])
    with pytest.raises(HierarchyError, match="value 'Cancer' is in no group of level 1"):
        grouping("disease", levels, ["Flu", "Cancer"])


def test_dates_month_year():
    h = dates("admitted", ["2020-03-17", "2020-11-02", "2019-03-17"])
    assert h.ancestors_of("2020-03-17") == ["2020-03-17", "2020-03", "2020", "*"]
    assert h.lca(["2020-03-17", "2020-11-02"]) == (2, "2020")
    q = dates("admitted", ["2020-03-17"], ("quarter", "decade"))
    assert q.ancestors_of("2020-03-17") == ["2020-03-17", "2020-Q1", "2020s", "*"]
    spans = dates("admitted", ["2019-12-31", "2020-01-01", "2024-06-30", "2025-01-01"], ("year", "5 years", "decade"))
    assert spans.ancestors_of("2019-12-31") == ["2019-12-31", "2019", "2015-2019", "2010s", "*"]
    assert spans.lca(["2020-01-01", "2024-06-30"]) == (2, "2020-2024")
    assert spans.lca(["2024-06-30", "2025-01-01"]) == (3, "2020s")
    with pytest.raises(HierarchyError, match="'17/03/2020x' is not a date"):
        dates("admitted", ["2020-03-17", "17/03/2020x"])
    with pytest.raises(HierarchyError, match="unknown date part 'week'"):
        dates("admitted", ["2020-03-17"], ["week"])


def test_build_hierarchy_dispatches_job_specs():
    assert build_hierarchy("zip", {"mask": "*"}, ["535280"]).ancestors_of("535280")[1] == "53528*"
    h = build_hierarchy("age", {"intervals": [5, 10], "start": 0}, ["23", "37"])
    assert h.ancestors_of("37") == ["37", "35-39", "30-39", "*"]
    g = build_hierarchy("d", {"groups": [{"resp": ["Flu", 1]}]}, ["Flu", "1"])
    assert g.ancestors_of("1") == ["1", "resp", "*"]
    assert build_hierarchy("t", {"date": ["year"]}, ["2001-01-01"]).ancestors_of("2001-01-01") == ["2001-01-01", "2001", "*"]


def test_build_hierarchy_unknown_or_conflicting_keys_are_named():
    with pytest.raises(HierarchyError, match="unknown hierarchy builder key 'widths'") as exc:
        build_hierarchy("age", {"widths": [5]}, ["1"], source="jobs/adult.toml")
    assert "jobs/adult.toml" in str(exc.value)
    with pytest.raises(HierarchyError, match="two builders"):
        build_hierarchy("age", {"mask": "*", "intervals": [5]}, ["1"])
    with pytest.raises(HierarchyError, match="key 'start' does not belong to a 'mask'"):
        build_hierarchy("zip", {"mask": "*", "start": 3}, ["1"])
    with pytest.raises(HierarchyError, match="must be a list of numbers"):
        build_hierarchy("age", {"intervals": ["5"]}, ["1"])


def test_default_numeric_hierarchy_covers_range_with_nice_doubling_widths():
    h, note = default_numeric_hierarchy("age", AGES)
    assert nice_widths(AGES) == [5, 10, 20, 40, 80, 160]
    assert "5/10/20/40/80/160" in note and "'age'" in note
    # the last band level covers every value: one node below the root
    assert len({row[-2] for row in h.rows}) == 1
    assert len({row[1] for row in h.rows}) == 16  # about range/20-sized bands
    assert nice_widths(["1000", "2500", "9000"]) == [500, 1000, 2000, 4000, 8000, 16000]
    assert nice_widths(["3", "9"]) == [1, 2, 4, 8, 16]
    small, note = default_numeric_hierarchy("los", ["0.2", "0.35", "0.9"])
    assert isinstance(small, Hierarchy) and small.ancestors_of("0.35")[1] == "[0.35, 0.4)"
    with pytest.raises(HierarchyError, match="'n/a' is not a number"):
        default_numeric_hierarchy("age", ["30", "n/a"])


def test_job_hierarchy_section_builds_every_quasi_identifier():
    import pandas as pd

    from anonstudio.core.data import Table
    from anonstudio.core.jobs import load_hierarchies

    df = pd.DataFrame(
        {"age": ["23", "37", "61"], "zip": ["535280", "535292", "47677"], "disease": ["Flu", "HIV", "Flu"]},
        dtype=object,
    )
    table = Table(df).with_roles(["age", "zip", "disease"])
    specs = {"zip": {"mask": "*"}, "disease": {"groups": [{"respiratory": ["Flu"], "blood": ["HIV"]}]}}
    hs, notes = load_hierarchies(specs, table)
    assert hs["zip"].ancestors_of("47677")[1] == "4767*"
    assert hs["disease"].ancestors_of("HIV") == ["HIV", "blood", "*"]
    assert hs["age"].ancestors_of("37") == ["37", "35-39", "30-39", "20-39", "0-39", "0-79", "*"]
    assert notes == ["'age' had no hierarchy: a default interval hierarchy with band widths 5/10/20/40/80 (then '*') was used."]
    with pytest.raises(HierarchyError, match="value 'Cold' is in no group of level 1") as exc:
        load_hierarchies(
            {"disease": {"groups": [{"respiratory": ["Flu"], "blood": ["HIV"]}]}},
            Table(df.assign(disease=["Flu", "Cold", "HIV"])).with_roles(["disease"]),
            source="jobs/visits.toml",
        )
    assert str(exc.value).startswith("jobs/visits.toml, column 'disease':")
