"""Issue 30, the engine's side (no Qt): columns opened by hand start without a role and an identifier-looking one is
proposed identifying; the release verdict tells "the model holds" from "safe to publish"; a publication over
release risks needs them confirmed and records the confirmation; a reopened project's last release is re-verified
from its files; unexpected errors are logged where the About box says."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import Role
from anonstudio.core.demo import prepare_demo
from anonstudio.core.errors import InputError, JobError
from anonstudio.core.release_verdict import release_verdict, risk_kind
from anonstudio.core.workspace import Workspace, read_data, read_project, write_project


def _opened(tmp_path) -> Workspace:
    rng = np.random.default_rng(1)
    n = 50
    path = tmp_path / "people.csv"
    pd.DataFrame({"PatientID": [f"X{i}" for i in range(n)], "age": rng.integers(20, 70, n),
                  "zip": rng.choice([1, 2, 3], n), "remark": [f"note {i}" for i in range(n)]}).to_csv(path, index=False)
    ws = Workspace()
    ws.set_data(read_data(path, "table"), path)
    ws.propose_roles()
    return ws


def test_columns_opened_by_hand_start_without_a_role_and_fall_back_to_quasi_identifying(tmp_path):
    ws = _opened(tmp_path)
    assert ws.role("PatientID") is Role.IDENTIFYING and "names a person or a record" in ws.proposed["PatientID"]
    assert ws.role("remark") is Role.IDENTIFYING and ws.proposed["remark"] == "every value is distinct"
    assert ws.unroled_columns() == ["age", "zip"]
    ws.set_role("zip", "insensitive")  # chosen: no longer waiting, though the role is the same as before
    assert ws.unroled_columns() == ["age"]
    assert ws.apply_fallback_roles() == ["age"]
    assert ws.role("age") is Role.QUASI and ws.unroled_columns() == []


def test_a_job_states_its_roles_and_nothing_is_proposed(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mst.toml")
    assert ws.unroled_columns() == [] and ws.proposed == {}


def test_the_model_holding_is_not_the_release_being_safe(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mondrian.toml")
    assert ws.release_verdict().model_holds is None  # no run: no verdict either way
    ws.run()
    verdict = ws.release_verdict()
    assert verdict.model_holds and not verdict.safe_to_publish
    kinds = [risk_kind(r) for r in verdict.risks]
    # the demo publishes race, marital-status and native-country as they are: they make records unique
    assert kinds == ["columns published unchanged single out records", "rows keep the input's order"], kinds
    assert verdict.headline().startswith("the model holds — NOT safe")
    ws.set_release(shuffle_rows=True)  # the order risk is gone, the unroled one is not
    assert [risk_kind(r) for r in ws.release_verdict().risks] == ["columns published unchanged single out records"]
    # warnings that are no release risk (a hierarchy's) leave a release safe; a failed model is never safe
    quiet = release_verdict({"verification": {"passed": True}}, ["a hierarchy is given for 'x', which is not used"])
    assert quiet.safe_to_publish and quiet.headline() == "the model holds; safe to publish"
    assert not release_verdict({"verification": {"passed": False}}, []).safe_to_publish


def test_publishing_over_release_risks_needs_them_confirmed_and_records_it(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mondrian.toml")
    ws.run()
    risks = ws.release_verdict().risks
    out = tmp_path / "out" / "release.csv"
    out.parent.mkdir()
    with pytest.raises(JobError, match="not confirmed"):
        ws.publish(out, accepted_risks=[])
    assert not out.exists()
    ws.publish(out, accepted_risks=risks)
    report = json.loads(out.with_name("release.report.json").read_text(encoding="utf-8"))
    assert report["release_confirmation"]["accepted_risks"] == risks
    assert report["release_confirmation"]["confirmed_in"] and report["release_confirmation"]["time"]


def test_a_reopened_project_shows_its_last_release_re_verified(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mst.toml")
    ws.set_release(shuffle_rows=True)
    ws.run()
    out = demo / "published" / "adult-mst.csv"
    out.parent.mkdir()
    ws.publish(out)
    project = write_project(ws, demo / "study.anonstudio.json")
    back = read_project(project)
    assert back.outcome is not None and back.outcome_is_current() and back.stale_reason is None
    assert back.outcome.verification.passed and "re-verified" in back.outcome.report["notes"][-1]
    assert back.outcome.report["verification"]["model"] == "k-anonymity" and back.outcome.report["parameters"]["k"] == 5
    again = tmp_path / "again.csv"
    back.publish(again)  # export is available again, and publishes the same release
    assert again.read_bytes() == out.read_bytes()
    # its output altered: not vouched for, and the reason is given
    text = out.read_text(encoding="utf-8").splitlines()
    text[1] = text[1].replace("*", "Male", 1) if "*" in text[1] else text[1] + "x"
    out.write_text("\n".join(text) + "\n", encoding="utf-8")
    changed = read_project(project)
    assert changed.outcome is None and "adult-mst.csv" in changed.stale_reason
    shutil.move(out, tmp_path / "moved.csv")
    gone = read_project(project)
    assert gone.outcome is None and "is not there any more" in gone.stale_reason


def test_unexpected_errors_are_logged_where_the_about_box_says(tmp_path, monkeypatch):
    from anonstudio.core.error_log import error_log_path, is_unexpected, log_unexpected

    monkeypatch.setenv("ANONSTUDIO_ERROR_LOG", str(tmp_path / "e" / "errors.log"))
    assert error_log_path() == tmp_path / "e" / "errors.log"
    try:
        raise ValueError("generator already executing")
    except ValueError as exc:
        written = log_unexpected(exc, "The run failed")
    assert written == error_log_path()
    text = written.read_text(encoding="utf-8")
    assert "The run failed" in text and "ValueError: generator already executing" in text and "Traceback" in text
    assert is_unexpected(ValueError("x")) and not is_unexpected(InputError("bad cell", file="a.csv"))
    assert not is_unexpected(FileNotFoundError(2, "No such file", "a.csv"))
