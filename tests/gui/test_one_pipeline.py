"""Issue 12: the workbench and the command line run a job through the same pipeline — the same job gives
byte-identical output and the same report (but for the run time) whichever face ran it."""

from __future__ import annotations

import json

import pytest

from anonstudio.core import jobs
from anonstudio.core.demo import prepare_demo
from anonstudio.core import workspace as proj


@pytest.mark.parametrize("job_name", ["table-mst.toml", "table-mondrian.toml", "table-kmember.toml",
                                      "proteins-condensation.toml"])
def test_cli_and_workbench_give_the_same_bytes(tmp_path, monkeypatch, job_name):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    cli_dir, gui_dir = prepare_demo(tmp_path / "cli"), prepare_demo(tmp_path / "gui")
    cli_job = jobs.load_job(cli_dir / job_name)
    jobs.run_job(cli_job)
    # the workbench: open the job, run on its worker function, export output and report
    state = proj.state_from_job(gui_dir / job_name)
    outcome = proj.run_method(state.data, state.hierarchies, state.method, state.params)
    gui_job = jobs.load_job(gui_dir / job_name)
    jobs.write_outputs(outcome, gui_job.output_path, gui_job.report_path, reads=state.files_read())
    assert gui_job.output_path.read_bytes() == cli_job.output_path.read_bytes()
    cli_report = json.loads(cli_job.report_path.read_text())
    gui_report = json.loads(gui_job.report_path.read_text())
    for report in (cli_report, gui_report):
        report.pop("runtime_s")
    assert gui_report == cli_report
