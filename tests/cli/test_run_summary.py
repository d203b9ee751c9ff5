"""The summary line of `anonstudio run` names what it counts (issues 30, 31): local recoding's groups are published classes,
``NCP_total`` (a sum over the cells) beside ``GCP`` (its share), the old ``NCP`` key in the report only."""

from __future__ import annotations

import json

import pytest

from anonstudio.cli.main import main
from tests.core.test_release_risks import _job


@pytest.fixture(autouse=True)
def _own_release_log(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def test_the_summary_line_counts_published_classes_and_names_the_ncp_sum(tmp_path, capsys):
    assert main(["run", str(_job(tmp_path, alg='name = "local"\nk = 4')), "--quiet"]) == 0
    rep = json.loads((tmp_path / "out.json").read_text())
    out = capsys.readouterr().out
    groups = rep["groups"]
    assert rep["metrics"]["classes"] == rep["verification"]["details"]["classes"] == groups["count"]
    assert f"{groups['count']:,} classes (sizes {groups['min_size']}–{groups['max_size']})" in out
    metrics = rep["metrics"]
    assert metrics["NCP"] == metrics["NCP_total"]  # the old name, kept in the report through 0.3
    assert f"NCP_total={metrics['NCP_total']:.4g}" in out and " NCP=" not in out and f"GCP={metrics['GCP']:.4g}" in out
