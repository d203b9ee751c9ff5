"""Issue 29, item 1 and 8: every filesystem step of a publication failed or signalled, one run each.

The job is Anatomy with a report: a release of three files (the QIT, its sensitive side table, the report).
In one scenario an older release (other settings) is in place, in the other the folder is empty. For every step
of a traced run (``_sweep.publication_steps``: staging files created and written, flushes, backups, the
journal, the swap's unlink and renames, the clean-up) the command is run again with that step failed (an I/O
error, a full disk, ``EPERM`` as for an immutable file), or with SIGKILL or SIGTERM delivered at it, and:

- the command never exits 1 or 3, and says why it stopped on one line;
- at that instant a report in the folder belongs to a complete release (old or new, with its side table);
- after ``anonstudio verify`` (which rolls an interrupted swap forward or back from its journal) the folder
  holds exactly the old release or exactly the new one, no journal and no staging file, and it verifies;
- the inputs are byte for byte what they were;
- the next run publishes the new release and leaves no staging file.

Needs ``strace`` (skipped with a notice without it). Counts: ``pytest tests/faults -m faults -ra`` prints
"fault sweep: N cases, M held".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults import _sweep
from tests.faults.conftest import record

pytestmark = pytest.mark.faults

NAMES = ["qit.csv", "qit.sensitive.csv", "qit.json"]
REPORT = "qit.json"
JOB = """[input]
path = "people.csv"
quasi_identifiers = ["sex", "age", "race"]
sensitive = ["occupation"]
[algorithm]
name = "anatomy"
l = {l}
[output]
path = "out/qit.csv"
report = "out/qit.json"
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    problem = _sweep.strace_problem()
    if problem:
        pytest.skip(f"fault sweep not run: {problem}")
    from anonstudio.core.generate import adult_like_table

    base = tmp_path_factory.mktemp("sweep")
    xdg = base / "xdg"
    seed = base / "seed"
    seed.mkdir()
    adult_like_table(300, seed=4).to_csv(seed / "people.csv", index=False)
    (seed / "job.toml").write_text(JOB.format(l=3))
    (seed / "job-old.toml").write_text(JOB.format(l=2))
    releases = {}
    for label, job in (("old", "job-old.toml"), ("new", "job.toml")):
        work = base / f"ref-{label}"
        shutil.copytree(seed, work)
        done = subprocess.run([sys.executable, "-m", "anonstudio", "run", job, "--quiet"], cwd=work,
                              env=_sweep.environment(xdg), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        releases[label] = _sweep.Release({n: (work / "out" / n).read_bytes() for n in NAMES}, label)
    templates = {"first release": seed, "old release in place": base / "ref-old"}
    steps = {}
    for scenario, template in templates.items():
        work = base / f"trace-{scenario.replace(' ', '-')}"
        shutil.copytree(template, work)
        log = base / f"{work.name}.strace"
        done = _sweep.run_traced(work, ["run", "job.toml", "--quiet"], log, xdg)
        assert done.returncode == 0, done.stderr
        steps[scenario] = _sweep.publication_steps(log, work / "out")
    return {"base": base, "xdg": xdg, "releases": releases, "templates": templates, "steps": steps}


def _one_case(sweep: dict, scenario: str, step: _sweep.Step, action: str, n: int) -> list[str]:
    """Run one faulted command and everything after it; the problems found (none: the case held)."""
    from anonstudio.core import jobs

    work = sweep["base"] / f"case-{n}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(sweep["templates"][scenario], work)
    out = work / "out"
    inputs = {name: (work / name).read_bytes() for name in ("people.csv", "job.toml", "job-old.toml")}
    old, new = (_sweep.release_state(sweep["releases"][k], NAMES, REPORT) for k in ("old", "new"))
    before = old if scenario == "old release in place" else {}
    problems: list[str] = []
    log = work.parent / f"case-{n}.strace"
    for _attempt in range(3):  # the step is found again in the faulted run's own trace
        done = _sweep.run_traced(work, ["run", "job.toml", "--quiet"], log, sweep["xdg"], step, action)
        if _sweep.injected_at(log, step, work):
            break
        shutil.rmtree(work)
        shutil.copytree(sweep["templates"][scenario], work)
    else:
        return [f"the fault could not be placed at {step} (the run took another path)"]
    expected = {"error": {0, 2}, "SIGKILL": {-9}, "SIGTERM": {143}}[action]
    if done.returncode not in expected:
        problems.append(f"exit {done.returncode} (expected {sorted(expected)}): {done.stderr.strip()[-300:]}")
    said = [line for line in done.stderr.splitlines() if line.startswith("anonstudio:") and "warning" not in line
            and "note" not in line]
    if done.returncode == 2 and len(said) != 1:
        problems.append(f"exit 2 without one line saying why: {done.stderr.strip()[-300:]}")
    if "internal error" in done.stderr or "Traceback" in done.stderr:
        problems.append(f"internal error: {done.stderr.strip()[-300:]}")
    # at this instant: a report beside outputs belongs to them
    now = _sweep.state_of(out, NAMES, REPORT)
    if REPORT in now and now not in (old, new):
        problems.append(f"a report beside files of another release right after the fault: {sorted(now)}")
    # `anonstudio verify` rolls an interrupted swap forward or back (then checks the new release)
    job = jobs.load_job(work / "job.toml")
    if (out / "qit.csv").exists():
        try:
            verdict = jobs.verify_job(job)
        except Exception as exc:  # noqa: BLE001 — reported as the case's problem
            verdict = None
            rolled_back_to_nothing = "output file does not exist" in str(exc) and not _sweep.state_of(out, NAMES, REPORT)
            if not rolled_back_to_nothing:  # (a first release rolled back: verify says there is no output)
                problems.append(f"verify after recovery failed: {type(exc).__name__}: {exc}")
    else:
        from anonstudio.core import io

        io.recover(job.output_path, job.report_path)
        verdict = None
    after = _sweep.state_of(out, NAMES, REPORT)
    if after not in (before, new):
        problems.append(f"after recovery neither the old nor the new release: {sorted(after)}")
    elif after == new and verdict is not None and not verdict.passed:
        problems.append(f"the new release does not verify: {verdict.summary()}")
    elif after == old and after:  # the old release verifies against its own job
        again = jobs.verify_job(jobs.load_job(work / "job-old.toml"))
        if not again.passed:
            problems.append(f"the old release does not verify: {again.summary()}")
    if _sweep.leftovers(out):
        problems.append(f"left after recovery: {_sweep.leftovers(out)}")
    for name, data in inputs.items():
        if (work / name).read_bytes() != data:
            problems.append(f"input {name} changed")
    # the next run publishes the new release and leaves nothing behind
    try:
        jobs.run_job(jobs.load_job(work / "job.toml"))
    except Exception as exc:  # noqa: BLE001
        problems.append(f"the next run failed: {type(exc).__name__}: {exc}")
    if _sweep.state_of(out, NAMES, REPORT) != new:
        problems.append("the next run did not publish the new release")
    if _sweep.leftovers(out):
        problems.append(f"left after the next run: {_sweep.leftovers(out)}")
    if not problems:
        shutil.rmtree(work)
        log.unlink()
    return problems


@pytest.mark.parametrize("action", _sweep.ACTIONS)
@pytest.mark.parametrize("scenario", ["old release in place", "first release"])
def test_every_step_of_a_publication_failed_or_signalled(sweep, scenario, action, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(sweep["xdg"]))
    steps = sweep["steps"][scenario]
    for kind in ("write", "fsync", "rename", "unlink" if scenario == "old release in place" else "rename"):
        assert any(s.syscall.startswith(kind) for s in steps), f"no {kind} step traced: {[str(s) for s in steps]}"
    if scenario == "old release in place":
        assert any(s.syscall.startswith("link") for s in steps), "no backup step: the old release was not kept"
    failed = {}
    for i, step in enumerate(steps):
        problems = _one_case(sweep, scenario, step, action, i)
        if problems:
            failed[str(step)] = problems
    record(f"publication, {scenario}, {action}", len(steps), len(steps) - len(failed))
    assert not failed, "\n".join(f"{step}: {'; '.join(p)}" for step, p in failed.items())


def test_the_sweep_covers_every_kind_of_step(sweep):
    """The traced publication has the steps the issue names: writes of the staging files, the backups (hard
    links), the journal, the report's unlink, the renames and the clean-up — at least 25 with an old release."""
    steps = sweep["steps"]["old release in place"]
    texts = " ".join(s.text for s in steps)
    assert len(steps) >= 25, [str(s) for s in steps]
    assert "journal" in texts and "qit.sensitive.csv" in texts and "qit.json" in texts
    assert sum(s.syscall.startswith("rename") for s in steps) >= 7  # 3 staged + journal + 3 in the swap
    assert sum(s.syscall.startswith("unlink") for s in steps) >= 5  # old report, 3 backups, the journal
    assert sum(s.syscall.startswith("link") for s in steps) == 3  # a backup of each old file
