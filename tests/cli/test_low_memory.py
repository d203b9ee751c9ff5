"""Issue 44 item 10, low memory: under ``ulimit -v`` a 200,000-row run was exit 3 (pandas' "out of memory") at
1.5 GB and exit 1 with only OpenBLAS's line at 1.7 GB. Now it is published whole (exit 0) or refused with one line
saying what needed the memory (exit 2, the contract's code for an environment that cannot do the run), and nothing
is written.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.core.errors import ResourceError, environment_error, failed_step

ROOT = Path(__file__).resolve().parents[2]
JOB = """[input]
path = "big.csv"
quasi_identifiers = ["age", "sex", "race"]
delimiter = ";"
[hierarchies]
age = "big_hierarchy_age.csv"
sex = "big_hierarchy_sex.csv"
race = "big_hierarchy_race.csv"
[algorithm]
name = "mondrian"
k = 5
[output]
path = "out/o.csv"
report = "out/o.json"
"""


@pytest.fixture(scope="module")
def big_job(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lowmem")
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(folder / "xdg"))
    subprocess.run([sys.executable, "-m", "anonstudio", "generate", "table", "--rows", "200000", "--out", "big.csv"],
                   cwd=folder, env=env, check=True, capture_output=True, timeout=300)
    (folder / "job.toml").write_text(JOB)
    return folder


def _limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


@pytest.mark.slow
@pytest.mark.parametrize("gigabytes", [1.5, 1.7])
def test_a_run_under_an_address_space_limit_publishes_whole_or_says_why_on_one_line(big_job, gigabytes):
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(big_job / "xdg"))
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        env.pop(name, None)  # the command itself must keep OpenBLAS within the limit
    out = big_job / "out"
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=big_job, env=env,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=_limited(int(gigabytes * 1000 * 1000 * 1024)))
    try:
        assert done.returncode in (0, 2), done.stderr
        assert "OpenBLAS" not in done.stderr and "Traceback" not in done.stderr
        if done.returncode == 2:
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("anonstudio: "), done.stderr
            assert "memory" in lines[0] or "thread" in lines[0], done.stderr
            assert not out.exists() or os.listdir(out) == []  # nothing written, no staging file
        else:
            assert sorted(os.listdir(out)) == ["o.csv", "o.json"]
    finally:
        for name in os.listdir(out) if out.exists() else []:
            os.unlink(out / name)


def test_the_command_keeps_openblas_to_one_thread_under_a_limit():
    code = ("import os, anonstudio.cli.main as m; m.prepare_process(['run']); "
            "print(os.environ.get('OPENBLAS_NUM_THREADS'))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENBLAS_NUM_THREADS", None)
    limited = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                             preexec_fn=_limited(4 << 30))
    free = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert limited.stdout.strip() == "1", limited.stderr
    assert free.stdout.strip() == "None", free.stderr


def _raised_in(module: str, function: str = "step") -> BaseException:
    scope: dict = {"__name__": module}
    exec(f"def {function}():\n    raise MemoryError()\n", scope)
    try:
        scope[function]()
    except MemoryError as exc:
        return exc
    raise AssertionError("not raised")


@pytest.mark.parametrize(("module", "function", "words"), [
    ("anonstudio.core.jobs._pipeline", "load_data", "reading the input"),
    ("anonstudio.core.algorithms.mondrian", "run", "the method's run"),
    ("anonstudio.core.privacy._judge", "judge", "the verification"),
    ("anonstudio.core.publication", "write_outputs", "publishing the release"),
])
def test_the_message_names_what_needed_the_memory(module, function, words):
    exc = _raised_in(module, function)
    assert failed_step(exc) == words
    problem = environment_error(exc)
    assert isinstance(problem, ResourceError) and problem.exit_code == 2
    assert f"not enough memory for {words}" in problem.message


def test_memory_outside_the_engine_is_the_run_s():
    assert failed_step(_raised_in("somewhere.else")) is None
    assert "not enough memory for this run" in environment_error(_raised_in("somewhere.else")).message


def test_pandas_running_out_of_memory_while_parsing_is_a_memory_message():
    """Issue 44 item 10: at 1.5 GB pandas' C parser said "out of memory" in a ParserError: exit 3."""
    import pandas as pd

    scope: dict = {"__name__": "anonstudio.core.io._table"}
    exec("def parse():\n    raise __import__('pandas').errors.ParserError("
         "'Error tokenizing data. C error: out of memory')\n", scope)
    try:
        scope["parse"]()
    except pd.errors.ParserError as exc:
        problem = environment_error(exc)
    assert problem is not None and problem.exit_code == 2
    assert "not enough memory for reading the input" in problem.message
