"""Issues 12 and 34: the workbench and the command line are one pipeline. Driven through the window's own paths
(File ▸ Open, Run, Export — never the CLI's loader): the same job gives byte-identical output and the same report
(but for the run time) whichever face ran it, and every bad-input corpus case whose input the workbench can open
(``run job.toml`` without ``--set``) is refused by the workbench with the command line's message and exit code — or,
for a case the command line accepts, passes with every note and warning the command line prints."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from anonstudio.core import jobs
from anonstudio.core.demo import prepare_demo
from anonstudio.core.views import run_lines

CORPUS = Path(__file__).resolve().parents[1] / "bad_inputs"


def _open_run_export(window, qtbot, job: Path) -> list[BaseException]:
    """The workbench's own path: open the job (File ▸ Open), Run, then Export to the job's output. Returns the
    errors the window showed (each dialog's error), in order."""
    shown: list[BaseException] = []
    real = window.error

    def error(title, exc, **kwargs):
        shown.append(exc if isinstance(exc, BaseException) else RuntimeError(str(exc)))
        real(title, exc, **kwargs)

    window.error = error
    if not window.open_path(job):
        return shown
    with qtbot.waitSignal(window.runFinished, timeout=300_000) as finished:
        if window.start_run() is None:  # refused before a worker started: say so to the waitSignal
            window.runFinished.emit(shown[-1] if shown else None)
    if not shown and isinstance(finished.args[0], BaseException):
        shown.append(finished.args[0])
    if shown:
        return shown
    window.export_data(window.state.output_path)
    return shown


@pytest.mark.parametrize("job_name", ["table-mst.toml", "table-mondrian.toml", "table-kmember.toml",
                                      "table-anatomy.toml", "events-cbmsa.toml", "quest-condensation.toml"])
def test_cli_and_workbench_give_the_same_bytes(window, qtbot, tmp_path, job_name):
    cli_dir, gui_dir = prepare_demo(tmp_path / "cli"), prepare_demo(tmp_path / "gui")
    cli_job = jobs.load_job(cli_dir / job_name)
    jobs.run_job(cli_job)
    assert _open_run_export(window, qtbot, gui_dir / job_name) == []
    gui_job = jobs.load_job(gui_dir / job_name)
    assert gui_job.output_path.read_bytes() == cli_job.output_path.read_bytes()
    cli_report = json.loads(cli_job.report_path.read_text())
    gui_report = json.loads(gui_job.report_path.read_text())
    for report in (cli_report, gui_report):
        report.pop("runtime_s")
    assert gui_report == cli_report
    # what the Privacy pane and the Summary show is every warning the command line printed, each naming its fix
    # as the workbench applies it (issue 40 item 2: the Release checkbox, not `output.shuffle_rows`)
    from anonstudio.core.views.workbench_words import all_in_workbench_words

    shown = all_in_workbench_words(cli_report["warnings"])
    assert window.panes["Privacy"].warnings == shown
    assert window.panes["Summary"].summary.warnings == shown
    assert not any("output.shuffle_rows" in w for w in shown)


def _rows() -> list[dict]:
    with open(CORPUS / "cases.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _cases() -> list:
    return [pytest.param(r["case"], int(r["exit"]), r["message"], id=r["case"]) for r in _rows()
            if r["command"] in ("run job.toml", "run nothere.toml")]


def test_every_run_case_without_overrides_is_driven_through_the_workbench():
    """The cases left out are those the workbench has no way to give: ``--set`` overrides, and commands other
    than ``run`` (verify, risk, generate, experiment)."""
    left_out = [r["command"] for r in _rows() if r["command"] not in ("run job.toml", "run nothere.toml")]
    assert all("--set" in c or c.split()[0] != "run" for c in left_out), left_out
    assert len(_cases()) > 80


@pytest.mark.parametrize(("case", "code", "message"), _cases())
def test_the_workbench_refuses_what_the_command_line_refuses(window, qtbot, tmp_path, case, code, message):
    work = tmp_path / case
    if (CORPUS / case).is_dir():
        shutil.copytree(CORPUS / case, work)
    else:
        work.mkdir()
    job = work / ("nothere.toml" if case == "job-missing" else "job.toml")
    shown = _open_run_export(window, qtbot, job)
    if code == 0:
        assert shown == [], [str(e) for e in shown]
        rep = window.state.outcome.report
        said = run_lines(rep) + rep["notes"] + window.state.warnings()
        assert any(message in line for line in said), said
        return
    assert shown, "the workbench accepted what the command line refuses"
    exc = shown[0]
    assert message in str(exc), str(exc)  # the command line prints `anonstudio: {exc}`
    assert getattr(exc, "exit_code", None) == code
