"""The execution engines: ``[execution]`` validation, and the same sweep on this process and on a Dask
LocalCluster of two worker processes (same rows, same order; cancel and task errors behave the same)."""

from __future__ import annotations

import pandas as pd
import pytest

from anonstudio.core.errors import AnonStudioError, InputError, JobError
from anonstudio.core.execution import Execution, LocalExecutor
from anonstudio.core.progress import Cancelled


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"engine": "spark"}, "execution.engine must be one of local, dask"),
        ({"engine": "local", "scheduler": "tcp://h:8786"}, "only for engine = \"dask\""),
        ({"engine": "dask", "scheduler": "h:8786"}, "an address like"),
        ({"engine": "dask", "workers": 0}, "execution.workers"),
        ({"engine": "dask", "workers": "2"}, "execution.workers"),
        ({"engine": "dask", "nodes": 3}, "unknown key 'execution.nodes'"),
    ],
)
def test_bad_execution_settings_are_refused_with_the_key(raw, fragment):
    with pytest.raises(JobError) as info:
        Execution.from_dict(raw, file="job.toml")
    assert fragment in str(info.value) and "job.toml" in str(info.value)


def test_no_execution_section_is_the_local_engine():
    assert Execution.from_dict(None) == Execution()
    assert Execution.from_dict({}).engine == "local"
    with Execution().session() as ex:
        assert isinstance(ex, LocalExecutor)


def square_plus(item, shared, progress=None):
    """A module-level task (Dask sends tasks to other processes by reference)."""
    if item == "bad":
        raise InputError("task input is bad", record=item)
    return item * item + shared["offset"]


@pytest.fixture(scope="module")
def dask_executor():
    pytest.importorskip("distributed", reason="the Dask engine is an optional extra")
    with Execution(engine="dask", workers=2).session() as executor:
        yield executor


def test_dask_runs_tasks_on_two_worker_processes_in_task_order(dask_executor):
    seen = []
    out = dask_executor.map(square_plus, list(range(20)), shared={"offset": 1}, progress=lambda f, m: seen.append(f))
    assert out == [i * i + 1 for i in range(20)]
    assert dask_executor.workers() == 2
    assert seen[-1] == 1.0 and len(seen) == 21  # one report per finished task, after the start


def worker_settings(item, shared, progress=None):
    """What a task sees of its worker: numba's thread count and whether Dask's stack profiler samples it."""
    import dask
    import numba

    import os

    return (numba.get_num_threads(), dask.config.get("distributed.worker.profile.enabled"),
            os.environ.get("MALLOC_TRIM_THRESHOLD_"))


def test_local_cluster_workers_take_one_core_each_and_leave_this_process_alone(dask_executor):
    """Two workers on two cores: a worker whose parallel kernels (k-member's distances) took both cores would
    run four threads on two cores; and no malloc tuning that costs the tasks page faults. The setting must not leak into the process that started the cluster, whose
    local runs keep both cores."""
    import os

    # glibc's allocator keeps its defaults: Dask's MALLOC_TRIM_THRESHOLD_ made every large array a new mapping
    assert dask_executor.map(worker_settings, [0, 1]) == [(1, False, None), (1, False, None)]
    assert os.environ.get("NUMBA_NUM_THREADS") != "1"


def test_a_task_error_reaches_the_caller_as_the_same_error(dask_executor):
    with pytest.raises(InputError, match="task input is bad"):
        dask_executor.map(square_plus, [1, "bad", 3], shared={"offset": 0})


def test_cancelling_stops_the_sweep(dask_executor):
    def cancel_after_first(fraction, message):
        if fraction > 0:
            raise Cancelled()

    with pytest.raises(Cancelled):
        dask_executor.map(square_plus, list(range(50)), shared={"offset": 0}, progress=cancel_after_first)


@pytest.mark.realdata
def test_mst_adult_sweep_on_dask_equals_the_local_sweep(dask_executor, shared_data, tmp_path):
    from anonstudio.core.experiments import run_mst_adult

    args = dict(k_values=[4, 9], qi_sizes=[2, 4], methods=["mst", "mondrian", "kmember"],
                data=str(shared_data / "adult"), rows=2000)
    run_mst_adult(tmp_path / "local", **args)
    run_mst_adult(tmp_path / "dask", executor=dask_executor, **args)
    local = pd.read_csv(tmp_path / "local" / "results.csv").drop(columns="runtime_s")
    dask = pd.read_csv(tmp_path / "dask" / "results.csv").drop(columns="runtime_s")
    assert len(local) == 12 and local["verified"].all()
    pd.testing.assert_frame_equal(local, dask)
    for name in ("gcp.png", "dm.png", "cavg.png"):  # drawn by the workers, written here: the same figures
        png = (tmp_path / "dask" / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
        assert png == (tmp_path / "local" / name).read_bytes()


def test_cli_refuses_an_unreachable_scheduler_with_exit_2(tmp_path, capsys):
    pytest.importorskip("distributed")
    from anonstudio.cli.main import main

    code = main(["experiment", "mst-adult", "--out", str(tmp_path), "--engine", "dask",
                 "--scheduler", "tcp://127.0.0.1:9", "--rows", "50", "--k-values", "2", "--qi-sizes", "1"])
    assert code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert not (tmp_path / "results.csv").exists()


def test_errors_are_anonstudio_errors():
    assert issubclass(JobError, AnonStudioError)
