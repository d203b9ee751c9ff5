"""The summary card (issue 15 item 7): verdict, what was checked, parameters in words, records, utility."""

from __future__ import annotations

import copy

import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.views import summary_sections
from anonstudio.gui.panes.summary import SummaryPane


@pytest.fixture(scope="module")
def outcome():
    frame = adult_like_table(1500, seed=3)
    qis = ["age", "sex", "education", "workclass"]
    table = Table(frame).with_roles(qis, ["occupation"])
    hs = {q: h for q, h in adult_hierarchies(qis).items()}
    return jobs.anonymize(table, hs, get("mondrian")(k=10, l=2))


def test_the_card_leads_with_the_verdict_and_shows_the_reports_figures(shown, outcome, screenshot):
    pane = shown(SummaryPane, 900, 650)
    pane.show_outcome(outcome)
    rep = outcome.report
    text = pane.text()
    assert pane.stack.currentIndex() == 1
    assert text.index("Mondrian multidimensional k-anonymity") < text.index("verified (k-anonymity + entropy l-diversity)")
    assert (text.index("verified") < text.index("Counts") < text.index("Utility") < text.index("Parameters")
            < text.index("What the verifier checked"))
    # parameters with what they mean, records as the report counts them, utility with one line each
    assert "k-anonymity: every partition holds at least k records" in text
    assert "records in" in text and f"{rep['input']['records']:,}" in text
    s = pane.summary
    assert ("records suppressed", f"{rep['suppressed']:,}") == s.records[2][:2] and "fully suppressed" in s.records[2][2]
    gcp = next(row for row in s.utility if row[0] == "GCP")
    assert gcp[1] == f"{rep['metrics']['GCP']:,.4g}" and "information lost" in gcp[2]
    assert s.utility[0][0] == "GCP"  # the headline figures first
    assert {row[0]: row[1] for row in s.checked}["k"] == "10" and all(row[2] for row in s.checked)
    screenshot(pane, "summary_card")


def test_the_card_lists_every_quality_model_the_report_measured(outcome):
    s = summary_sections(outcome.report)
    rows = {row[0]: row for row in s.utility}
    quality = outcome.report["metrics"]["quality"]
    assert set(quality) == {"loss", "ncp", "dm", "aecs", "entropy", "precision"}
    loss = rows["Loss (ARX) [loss]"]
    assert loss[1] == f"{quality['loss']['value']:,.4g}" and "geometric mean" in loss[2]
    dm = rows["Discernibility (DM) [dm]"]
    assert dm[1].startswith(f"{quality['dm']['value']:,.4g} (") and "normalized" in dm[1]


def test_a_refused_output_says_so_and_lists_the_problems(shown, outcome):
    report = copy.deepcopy(outcome.report)
    report["verification"].update(passed=False, problems=["row 3: its equivalence class has 2 record(s), fewer "
                                                          "than k = 10"])
    s = summary_sections(report)
    assert s.passed is False and s.verdict.startswith("NOT verified")
    assert s.problems == ["row 3: its equivalence class has 2 record(s), fewer than k = 10"]
    pane = shown(SummaryPane)
    pane.show_outcome(type(outcome)(outcome.result, outcome.verification, report, outcome.data, outcome.hierarchies))
    assert "NOT verified" in pane.text() and "fewer than k = 10" in pane.text()
    pane.show_outcome(None)
    assert pane.stack.currentIndex() == 0 and pane.summary is None
