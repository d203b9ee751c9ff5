"""Issue 40 item 3: the one rule saying which result tabs apply to a run (data kind × method)."""

from __future__ import annotations

from anonstudio.core import algorithms
from anonstudio.core.views.result_tabs import TAB_RULES, applicable_tabs, for_methods, tab_applies

EVERY_RUN = ["Summary", "Compare", "Metrics", "Privacy", "History"]


def test_a_methods_own_view_shows_for_it_and_for_no_other_method():
    views = {name: algorithms.get(name).result_view for name in algorithms.names()}
    for name, view in views.items():
        kind = algorithms.get(name).data_kind
        for tab in ("MST partition", "Clusters", "Randomization", "Anatomy", "Composition"):
            if tab == "Composition":
                assert tab_applies(tab, kind, name) == (kind == "fasta"), (tab, name)
            else:
                assert tab_applies(tab, kind, name) == (view == tab), (tab, name)
    assert tab_applies("Randomization", "table", "ra-enhanced") and tab_applies("Clusters", "events", "cbmsa-baseline")
    assert not tab_applies("MST partition", "table", "global") and not tab_applies("MST partition", "table", None)


def test_the_risk_tab_is_for_tables_and_the_general_tabs_for_every_run():
    assert tab_applies("Risk", "table", None) and not tab_applies("Risk", "events", "cbmsa")
    assert not tab_applies("Risk", "fasta", "condensation")
    for kind, method in (("table", "mst"), ("events", "cbmsa"), ("fasta", "condensation"), (None, None)):
        assert applicable_tabs(EVERY_RUN, kind, method) == EVERY_RUN


def test_a_new_view_plugs_in_with_one_rule_and_without_one_shows_for_every_run():
    assert tab_applies("Heatmap", "fasta", "condensation")  # no rule: every run
    TAB_RULES["Heatmap"] = for_methods("global")
    try:
        assert tab_applies("Heatmap", "table", "global") and not tab_applies("Heatmap", "table", "mst")
    finally:
        del TAB_RULES["Heatmap"]


def test_the_lattice_shows_for_global_only_and_the_utility_view_for_tables():
    assert tab_applies("Lattice", "table", "global")
    assert not tab_applies("Lattice", "table", "mondrian") and not tab_applies("Lattice", "events", "cbmsa")
    assert tab_applies("Utility", "table", "local") and not tab_applies("Utility", "fasta", "condensation")
