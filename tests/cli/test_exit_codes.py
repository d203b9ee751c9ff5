"""Issue 29, item 3: exit codes mean one thing each — 0 published, 1 the privacy model failed, 2 the user's input,
job or environment is wrong (one line naming it), 3 a defect only.

Closed or full standard streams never change the exit code of a run (stderr on /dev/full gave exit 1, "privacy
failed"; stdout closed gave exit 3 after publishing); running out of memory or open files is exit 2 with a
sentence; two runs publishing to one place each publish a whole release; a symlink loop as input is exit 2.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core.errors import ResourceError, environment_error

from tests.cli._small_job import JOB, write_small_job

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def job(tmp_path) -> Path:
    write_small_job(tmp_path, 400)
    return tmp_path


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path / "xdg"))


def _run(folder: Path, args: list[str], shell_redirect: str = "") -> subprocess.CompletedProcess:
    """``python -m anonstudio ARGS`` through a shell that redirects its streams (``>&-``, ``2>/dev/full``); the
    exit code goes to ``code.txt`` (:func:`_code`)."""
    command = " ".join([sys.executable, "-m", "anonstudio", *args]) + " " + shell_redirect
    return subprocess.run(["bash", "-c", f"{command}; echo $? > {folder / 'code.txt'}"], cwd=folder,
                          env=_env(folder), capture_output=True, text=True, timeout=600)


def _code(folder: Path) -> int:
    return int((folder / "code.txt").read_text())


@pytest.mark.parametrize("redirect", [">&-", ">/dev/full", "2>&-", "2>/dev/full", ">&- 2>&-", ">/dev/full 2>/dev/full"])
def test_closed_or_full_streams_never_change_the_exit_of_a_published_run(job, redirect):
    _run(job, ["run", "job.toml"], redirect)
    assert _code(job) == 0
    report = json.loads((job / "out" / "o.json").read_text())
    assert report["verification"]["passed"] and (job / "out" / "o.csv").stat().st_size > 0
    assert not [p for p in (job / "out").iterdir() if p.name.startswith(".anonstudio.")]


@pytest.mark.parametrize("redirect", ["2>/dev/full", "2>&-", ">&- 2>&-"])
def test_a_failed_run_keeps_its_exit_code_when_stderr_is_gone(job, redirect):
    (job / "job.toml").write_text(JOB.format(k=1))  # k = 1: exit 2
    _run(job, ["run", "job.toml"], redirect)
    assert _code(job) == 2
    (job / "job.toml").write_text(JOB.format(k=5))
    _run(job, ["run", "job.toml"])
    (job / "out" / "o.csv").write_text("sex,age,race\nMale,39,White\n")  # tampered: verify fails
    _run(job, ["verify", "job.toml"], redirect)
    assert _code(job) == 1


def test_verify_and_methods_exit_0_with_stdout_on_a_full_disk(job):
    _run(job, ["run", "job.toml", "--quiet"])
    _run(job, ["verify", "job.toml"], ">/dev/full")
    assert _code(job) == 0
    _run(job, ["methods"], ">/dev/full")
    assert _code(job) == 0


def test_a_closed_stdout_is_not_taken_by_an_output_file(job):
    """With fd 1 closed, the first file the run opened got its number: a stray print would have landed in it."""
    _run(job, ["run", "job.toml"], ">&-")
    assert _code(job) == 0
    text = (job / "out" / "o.csv").read_text()
    assert "verification:" not in text and "output:" not in text


def test_two_runs_to_one_place_each_publish_a_whole_release(job):
    """Run A (k = 5) and run B (k = 9) at once, to the same output and report: both exit 0 and the folder holds
    one of them whole — the report's k is the k of the output beside it (issue 29: B's output beside A's
    report, both exiting 0)."""
    (job / "job9.toml").write_text(JOB.format(k=9))
    reference = {}
    for name, k in (("job.toml", 5), ("job9.toml", 9)):
        _run(job, ["run", name, "--quiet"])
        reference[k] = (job / "out" / "o.csv").read_bytes()
    assert reference[5] != reference[9]
    env = _env(job)
    for _round in range(3):
        procs = [subprocess.Popen([sys.executable, "-m", "anonstudio", "run", name, "--quiet"], cwd=job, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for name in ("job.toml", "job9.toml")]
        for p in procs:
            _, err = p.communicate(timeout=600)
            assert p.returncode == 0, err
        k = json.loads((job / "out" / "o.json").read_text())["parameters"]["k"]
        assert (job / "out" / "o.csv").read_bytes() == reference[k]
        assert not [p for p in (job / "out").iterdir() if p.name.startswith(".anonstudio.")]


def test_a_symlink_loop_as_input_is_exit_2_naming_the_key(job):
    (job / "loop.csv").symlink_to("loop2.csv")
    (job / "loop2.csv").symlink_to("loop.csv")
    (job / "job.toml").write_text(JOB.format(k=5).replace('"t.csv"', '"loop.csv"'))
    done = _run(job, ["run", "job.toml"])
    assert _code(job) == 2
    assert "key 'input.path'" in done.stderr and "loop of symbolic links" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_symlink_loop_as_hierarchy_is_exit_2_naming_the_key(job):
    (job / "h.csv").symlink_to("h.csv")
    (job / "job.toml").write_text(JOB.format(k=5).replace('sex = "sex.csv"', 'sex = "h.csv"'))
    done = _run(job, ["run", "job.toml"])
    assert _code(job) == 2 and "key 'hierarchies.sex'" in done.stderr


# -- the machine's limits: exit 2 with a sentence
def test_an_address_space_limit_is_exit_2_saying_how_much_memory_there_was(job):
    """``ulimit -v``: a MemoryError with an empty message was exit 3."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))

    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=job, env=_env(job),
                          capture_output=True, text=True, timeout=600, preexec_fn=limit)
    assert done.returncode == 2, done.stderr
    assert "not enough memory" in done.stderr and "ulimit -v" in done.stderr and "B available" in done.stderr
    assert "0.0 GB" not in done.stderr
    assert "internal error" not in done.stderr


def test_a_failed_allocation_says_how_much_it_needed():
    try:
        np.empty((1 << 40, 1 << 10), dtype=np.float64)  # 2^53 bytes = 8,388,608 GB: numpy refuses at once
    except MemoryError as exc:
        problem = environment_error(exc)
    assert isinstance(problem, ResourceError) and problem.exit_code == 2
    assert "needs about 8,388,608.0 GB" in problem.message and "available" in problem.message


def test_a_compiler_that_cannot_be_mapped_is_a_memory_problem_not_a_missing_file():
    """Under ``ulimit -v`` numba's libllvmlite.so fails to map, and llvmlite says it "could not find" it."""
    try:
        try:
            raise OSError("libllvmlite.so: failed to map segment from shared object")
        except OSError as inner:
            raise OSError("Could not find/load shared object file 'libllvmlite.so'") from inner
    except OSError as exc:
        problem = environment_error(exc)
    assert problem is not None and "not enough memory to load the kernel compiler" in problem.message


@pytest.mark.parametrize(("exc", "words"), [
    (OSError(errno.EMFILE, "Too many open files"), "too many open files"),
    (RuntimeError("can't start new thread"), "cannot start a thread"),
])
def test_other_exhausted_limits_are_named(exc, words):
    problem = environment_error(exc)
    assert problem is not None and words in problem.message


def test_a_bug_is_still_a_bug():
    assert environment_error(ValueError("something else")) is None


def test_dask_with_few_file_handles_is_exit_2(job):
    pytest.importorskip("distributed")
    (job / "job.toml").write_text(JOB.format(k=5) + '[execution]\nengine = "dask"\nworkers = 2\n')

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))

    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=job, env=_env(job),
                          capture_output=True, text=True, timeout=300, preexec_fn=limit)
    assert done.returncode == 2, done.stderr
    assert "needs at least 96 open files" in done.stderr and "ulimit -n" in done.stderr
    assert not (job / "out" / "o.csv").exists()


def test_a_low_soft_limit_of_open_files_is_raised_for_dask(job):
    """The soft limit below what Dask needs, the hard one above: anonstudio raises its own soft limit."""
    pytest.importorskip("distributed")
    (job / "job.toml").write_text(JOB.format(k=5) + '[execution]\nengine = "dask"\nworkers = 1\n')
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 256:
        pytest.skip("the hard limit of open files is low here")

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (24, hard))

    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml", "--quiet"], cwd=job,
                          env=_env(job), capture_output=True, text=True, timeout=600, preexec_fn=limit)
    assert done.returncode == 0, done.stderr
    shutil.rmtree(job / "out")


def test_small_amounts_of_memory_are_said_in_mb_not_as_zero_gb(monkeypatch):
    """Issue 44 item 10: "needs about 0.0 GB, 0.0 GB available" said nothing; small amounts are in MB or kB."""
    import anonstudio.core.errors as errors

    monkeypatch.setattr(errors, "memory_available", lambda: (3 << 20, "the system's free memory"))
    exc = MemoryError()
    exc._total_size = 24 << 20
    problem = environment_error(exc)
    assert "needs about 24 MB, 3 MB available" in problem.message, problem.message
    monkeypatch.setattr(errors, "memory_available", lambda: (40 << 10, "the system's free memory"))
    exc._total_size = 1 << 31
    assert "needs about 2.0 GB, 40 kB available" in environment_error(exc).message
    assert "0.0 GB" not in environment_error(MemoryError()).message
