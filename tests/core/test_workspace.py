"""Issue 34: one Qt-free workspace under both faces. ``anonstudio run`` is "load a job into a workspace, run,
publish"; the workbench is a view of a workspace. These tests drive workspaces without Qt: the whole demo (every
method), the refusals and warnings the two faces used to disagree on, export, saved jobs, projects and the
release log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anonstudio.core import jobs
from anonstudio.core.demo import prepare_demo
from anonstudio.core.errors import AnonStudioError, JobError
from anonstudio.core.release_log import release_log_path
from anonstudio.core.workspace import Workspace, read_data, read_project, write_project

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "bad_inputs"


def test_the_suite_never_touches_the_users_release_log():
    from tests.conftest import SESSION_DATA_HOME

    assert release_log_path().is_relative_to(SESSION_DATA_HOME)
    home = Path(os.path.expanduser("~")).resolve()
    assert not release_log_path().resolve().is_relative_to(home / ".local" / "share")
    seen = subprocess.run([sys.executable, "-c", "from anonstudio.core.release_log import release_log_path as p; "
                           "print(p())"], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          check=True).stdout.strip()
    assert Path(seen).is_relative_to(SESSION_DATA_HOME)  # a command the tests start inherits it


#: every registered method on the demo's data: (demo job, the method set in the workspace or None for the job's)
DEMO = [("table-mst.toml", None), ("table-mondrian.toml", None), ("table-kmember.toml", None),
        ("table-global.toml", None), ("table-global.toml", ("local", {"k": 5})), ("table-safepub.toml", None),
        ("table-anatomy.toml", None), ("table-ra.toml", None),
        ("table-ra.toml", ("ra-enhanced", {"attributes_per_record": 2})),
        ("events-cbmsa.toml", None), ("events-cbmsa.toml", ("cbmsa-baseline", {"k": 5, "c": 0.7, "seed": 1,
                                                                              "highly_sensitive": ["HIV"]})),
        ("quest-condensation.toml", None), ("proteins-condensation.toml", None)]


def test_the_demo_covers_every_registered_method():
    from anonstudio.core import algorithms

    covered = set()
    for job, change in DEMO:
        covered.add(change[0] if change else jobs.load_job(prepare_demo_once() / job).algorithm)
    assert covered == set(algorithms.names())


_DEMO_DIR: list[Path] = []


def prepare_demo_once() -> Path:
    if not _DEMO_DIR:
        import tempfile

        _DEMO_DIR.append(prepare_demo(Path(tempfile.mkdtemp(prefix="anonstudio-demo-"))))
    return _DEMO_DIR[0]


def test_the_whole_demo_runs_through_workspaces_without_qt(tmp_path):
    """Every demo job (and the two methods no demo job names) loaded into a workspace, run and published in a
    process that never imports Qt; each release equals the one ``jobs.run_job`` publishes for the same job."""
    ws_dir, ref_dir = prepare_demo(tmp_path / "ws"), prepare_demo(tmp_path / "ref")
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from anonstudio.core.workspace import Workspace
        folder = Path({str(ws_dir)!r})
        done = []
        for name, change in {DEMO!r}:
            ws = Workspace.from_job(folder / name)
            if change:
                ws.set_method(*change)  # a second method on the same job publishes beside its output
                ws.output_path = ws.output_path.with_name(change[0] + ws.output_path.suffix)
                ws.report_path = ws.output_path.with_name(change[0] + ".report.json")
            ws.run()
            ws.publish()
            done.append([name, ws.outcome.report["algorithm"], str(ws.output_path), str(ws.report_path)])
        assert not any(m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6") for m in sys.modules), "Qt imported"
        print(json.dumps(done))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QT_QPA_PLATFORM", None)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=3000)
    assert run.returncode == 0, run.stderr[-3000:]
    published = json.loads(run.stdout.strip().splitlines()[-1])
    assert [m for _, m, _, _ in published] == [change[0] if change else jobs.load_job(ref_dir / job).algorithm
                                               for job, change in DEMO]
    for (job, change), (_, method, output, report) in zip(DEMO, published):
        raw = jobs.load_job(ref_dir / job).raw
        if change:
            raw["algorithm"] = {"name": change[0], **change[1]}
            raw["output"] = {**raw.get("output", {}), "path": Path(output).name, "report": Path(report).name}
            jobs.save_job(raw, ref_dir / f"{method}.toml")
            ref = jobs.load_job(ref_dir / f"{method}.toml")
        else:
            ref = jobs.load_job(ref_dir / job)
        jobs.run_job(ref)
        assert Path(output).read_bytes() == ref.output_path.read_bytes(), method
        mine, theirs = json.loads(Path(report).read_text()), json.loads(ref.report_path.read_text())
        for rep in (mine, theirs):
            rep.pop("runtime_s")
            rep.pop("release_verdict")  # it follows the warnings below
            rep["warnings"] = [w for w in rep["warnings"] if not w.startswith("this input was published before")]
        assert mine == theirs, method


def _case(name: str, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(CORPUS / name, tmp_path / name)
    return tmp_path / name


def test_an_event_log_is_read_with_the_readers_checks(tmp_path):
    """``cbmsa-duplicate-event-order``: exit 2 on the command line; the workbench read it and ran CBMSA."""
    folder = _case("cbmsa-duplicate-event-order", tmp_path)
    job = jobs.load_job(folder / "job.toml")
    options = {"sequence_id": job.input.sequence_id, "event_order": job.input.event_order}
    with pytest.raises(AnonStudioError, match="sequence '6' has two events with order '1'"):
        read_data(job.input.path, "events", options)
    with pytest.raises(AnonStudioError, match="sequence '6' has two events with order '1'"):
        Workspace.from_job(folder / "job.toml")


def test_one_rule_for_default_bands(tmp_path):
    """An ``age`` column holding ``1_000``: an error on the command line, default intervals in the old workbench."""
    folder = _case("numeric-qi-spelled-with-underscores", tmp_path)
    ws = Workspace()
    ws.set_data(read_data(folder / "t.csv", "table"), folder / "t.csv")
    ws.set_role("age", "quasi-identifying")
    ws.set_hierarchy("sex", jobs.build_hierarchy_spec("sex", {"mask": "*"}, ws.data))
    ws.set_role("sex", "quasi-identifying")
    ws.set_method("mondrian", {"k": 2})
    assert not ws.gets_default_bands("age")
    with pytest.raises(JobError, match="quasi-identifier 'age' of t.csv is categorical and has no hierarchy"):
        ws.run()


def test_the_interval_label_warning_is_the_workspaces_before_and_after_a_run(tmp_path):
    folder = _case("hierarchy-interval-label-does-not-hold-its-value", tmp_path)
    ws = Workspace.from_job(folder / "job.toml")
    said = "age.csv:3: 20 is under '15-19'"
    assert any(said in w for w in ws.hierarchy_warnings("age"))
    assert any(said in w for w in ws.warnings())  # before a run: what the run will warn about
    ws.run()
    assert any(said in w for w in ws.warnings())
    ws.publish(folder / "out.csv", folder / "out.report.json")
    assert any(said in w for w in json.loads((folder / "out.report.json").read_text())["warnings"])


def test_export_names_its_files_and_a_saved_job_verifies_what_was_exported(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mondrian.toml")
    ws.run()
    rep = ws.report_for_export()
    assert rep["input"]["path"] == "adult-sample.csv" and rep["output"]["path"] is None  # not published yet
    assert "rows keep the input's order" in " ".join(ws.warnings())
    with pytest.raises(JobError, match="remove output.shuffle_seed"):  # a written order is no secret (issue 39)
        ws.set_release(shuffle_rows=True, shuffle_seed=2**62 + 12345)
    ws.set_release(shuffle_rows=True)  # the order is drawn from the release key
    assert "rows keep the input's order" not in " ".join(ws.warnings())  # as the export will publish it
    exported = tmp_path / "out" / "mine.csv"
    exported.parent.mkdir()
    ws.publish(exported)
    assert ws.output_path == exported and ws.report_path == exported.with_name("mine.report.json")
    written = json.loads(ws.report_path.read_text())
    assert written["output"]["path"] == "mine.csv" and written["input"]["path"] == "adult-sample.csv"
    assert ws.report_for_export() == written
    job = ws.save_job(tmp_path / "out" / "mine.toml")
    raw = jobs.load_job(job)
    assert raw.output_path == exported and raw.shuffle_rows and raw.shuffle_seed is None
    assert raw.key_fingerprint == written["key"]["fingerprint"]  # the key is named by its fingerprint only
    assert jobs.verify_job(raw).passed  # `anonstudio verify` on the saved job checks the file just exported


def test_release_options_notify_and_survive_a_project(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mst.toml")
    seen = []
    ws.subscribe(seen.append)
    ws.set_release(shuffle_rows=True, release_log=tmp_path / "log.json")
    assert seen == ["release", "dirty"]
    path = write_project(ws, demo / "study.anonstudio.json")
    back = read_project(path)
    assert back.release.shuffle_rows and back.release.release_log == tmp_path / "log.json"
    assert (back.output_path, back.report_path) == (ws.output_path, ws.report_path)


def test_a_jobs_hierarchy_for_a_column_that_is_not_a_quasi_identifier_warns_alike(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    job = demo / "table-mondrian.toml"
    text = job.read_text().replace('occupation = "hierarchies/adult_hierarchy_occupation.csv"',
                                   'occupation = "hierarchies/adult_hierarchy_occupation.csv"\n'
                                   'race = { mask = "*" }')
    job.write_text(text)
    ws = Workspace.from_job(job)
    assert "race" not in ws.hierarchies and ws.hierarchy_sources["race"] == {"mask": "*"}
    warning = "a hierarchy is given for 'race', which is not a quasi-identifier"
    assert any(w.startswith(warning) for w in ws.warnings())
    outcome = ws.run()
    assert any(w.startswith(warning) for w in outcome.report["warnings"])
    assert jobs.load_job(ws.save_job(demo / "again.toml")).hierarchies["race"] == {"mask": "*"}


def test_the_release_log_lives_where_the_job_says(tmp_path):
    demo = prepare_demo(tmp_path / "demo")
    job = demo / "table-mst.toml"
    job.write_text(job.read_text().replace('report = "results/adult-mst-k5.report.json"',
                                           'report = "results/adult-mst-k5.report.json"\nrelease_log = "my-log.json"'))
    before = release_log_path().read_bytes() if release_log_path().exists() else None
    loaded = jobs.load_job(job)
    assert loaded.release_log == demo / "my-log.json"
    jobs.run_job(loaded)
    log = json.loads((demo / "my-log.json").read_text())
    assert [e["output"] for entries in log.values() for e in entries] == [str(loaded.output_path)]
    assert (release_log_path().read_bytes() if release_log_path().exists() else None) == before
    job.write_text(job.read_text().replace('release_log = "my-log.json"', 'release_log = "adult-sample.csv"'))
    with pytest.raises(JobError, match="output.release_log"):
        jobs.load_job(job)


def test_a_method_that_suppresses_nothing_takes_no_suppression_budget(tmp_path):
    from anonstudio.core import algorithms

    assert "max_suppression" not in algorithms.get("anatomy").pipeline_parameters.names()
    assert "max_suppression" not in algorithms.get("ra").pipeline_parameters.names()
    demo = prepare_demo(tmp_path / "demo")
    job = demo / "table-anatomy.toml"
    job.write_text(job.read_text().replace("l = 5", "l = 5\nmax_suppression = 0.2"))
    with pytest.raises(AnonStudioError, match="unknown parameter 'max_suppression' for method 'anatomy'"):
        jobs.load_job(job)
    assert algorithms.get("mondrian").label("cut") != algorithms.get("mst").label("cut") == "Edge removal"


def test_an_exported_report_never_holds_the_seed(tmp_path):
    """Export report… writes what a publication writes: RA's draws come from the release key, named by its
    fingerprint; no seed anywhere (issue 39)."""
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-ra.toml")
    assert "seed" not in ws.params  # the demo job keeps none
    ws.run()
    assert "seed" not in ws.report_for_export()["parameters"] and "seed" not in ws.outcome.report["parameters"]
    assert len(ws.report_for_export()["key"]["fingerprint"]) == 16


def test_choosing_safepub_turns_row_shuffling_on_as_its_guarantee_needs(tmp_path):
    """An export of a safepub release in the input's order is refused; the workspace turns shuffling on when the
    method is chosen (the workbench's checkbox follows), and leaves it on when another method is chosen."""
    demo = prepare_demo(tmp_path / "demo")
    ws = Workspace.from_job(demo / "table-mondrian.toml")
    assert not ws.release.shuffle_rows
    seen = []
    ws.subscribe(seen.append)
    ws.set_method("safepub", {"epsilon": 1.0, "delta": 1e-2})
    assert ws.release.shuffle_rows and "release" in seen  # what the checkbox listens to
    ws.set_method("mondrian", {"k": 5})
    assert ws.release.shuffle_rows  # the user's release choice is not taken back


def test_the_run_history_is_bounded_and_forgotten_when_other_data_is_opened():
    """Issue 44 item 1: every run's whole outcome (its data, output, views) stayed in ``Workspace.outcomes`` for
    the life of the window, across new data. Now only the latest ``OUTCOMES_KEPT`` outcomes stay in memory (the
    history still lists every run's report), and opening other data forgets the runs of the old data."""
    import gc
    import weakref

    from anonstudio.core.views import samples

    state = Workspace()
    state.set_data(samples.sample_table())
    refs = []
    for seed in range(Workspace.OUTCOMES_KEPT + 3):
        outcome = samples.table_outcome(seed=seed)
        refs.append(weakref.ref(outcome))
        state.set_outcome(outcome)
    del outcome
    gc.collect()
    assert [e["number"] for e in state.history] == list(range(1, Workspace.OUTCOMES_KEPT + 4))
    assert sorted(state.outcomes) == list(range(4, Workspace.OUTCOMES_KEPT + 4))  # the latest five
    assert [r() is None for r in refs] == [True] * 3 + [False] * Workspace.OUTCOMES_KEPT
    seen = []
    state.subscribe(seen.append)
    state.set_data(samples.sample_table(seed=8))
    gc.collect()
    assert state.history == [] and state.outcomes == {} and all(r() is None for r in refs)
    assert "outcome" in seen  # the history pane lists runs again (none)
    state.set_outcome(samples.table_outcome(seed=1))
    assert [e["number"] for e in state.history] == [1]
