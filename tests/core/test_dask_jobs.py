"""Single jobs on the Dask engine (issue 17): RA, enhanced RA and Mondrian run as tasks on a LocalCluster of two
worker processes and write the very bytes the local engine writes, with the same verdict; the verifier's
class counts on Dask equal the local ones; a method that does not run on Dask is refused (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonstudio.core.errors import NotAvailableError
from anonstudio.core.generate import _gen_table, hierarchy_path
from anonstudio.core.jobs import load_job, run_job

distributed = pytest.importorskip("distributed", reason="the Dask engine is an optional extra")

QIS = ["age", "workclass", "sex", "education", "occupation", "marital-status"]
ROWS = 12_000


@pytest.fixture(scope="module")
def cluster():
    import logging

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dask-jobs") / "adult.csv"
    _gen_table(out, rows=ROWS, seed=7, with_hierarchies=True)
    return out


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks and counting tasks small enough that a 12,000-row table spans several of each (the block size
    travels with the tasks, so the workers follow the parent's setting)."""
    from anonstudio.core.algorithms import ra
    from anonstudio.core.privacy import _counts

    monkeypatch.setattr(ra, "BLOCK_ROWS", 1000)
    monkeypatch.setattr(_counts, "BLOCK_ROWS", 2500)


def write_job(table: Path, folder: Path, algorithm: str, execution: str) -> Path:
    hierarchies = "\n".join(f'{q} = "{hierarchy_path(table, q).as_posix()}"' for q in QIS)
    job = folder / f"{folder.name}.toml"
    job.write_text(
        f'[input]\npath = "{table.as_posix()}"\nquasi_identifiers = {QIS!r}\nsensitive = ["salary-class"]\n'
        f"[hierarchies]\n{hierarchies}\n[algorithm]\n{algorithm}\n"
        f'[output]\npath = "out.csv"\nreport = "out.report.json"\n{execution}',
        encoding="utf-8")
    return job


def run_both(table: Path, tmp_path: Path, algorithm: str, scheduler: str):
    outcomes = {}
    for engine, execution in (("local", ""), ("dask", f'[execution]\nengine = "dask"\nscheduler = "{scheduler}"\n')):
        folder = tmp_path / engine
        folder.mkdir()
        outcomes[engine] = (run_job(load_job(write_job(table, folder, algorithm, execution))), folder)
    return outcomes


@pytest.mark.parametrize("algorithm", [
    'name = "ra"\nbias_runs = 0',
    'name = "ra"\ndraws = "shuffle"\nweights = "uniform"\nbias_runs = 0',
    'name = "ra-enhanced"\nattributes_per_record = 2\nbias_runs = 0',
    'name = "mondrian"\nk = 5',
    'name = "mondrian"\nk = 8\nl = 2\nl_kind = "distinct"',
], ids=["ra", "ra-shuffle", "ra-enhanced", "mondrian", "mondrian-l"])
def test_a_job_on_dask_writes_the_bytes_the_local_engine_writes(cluster, table, tmp_path, small_blocks, algorithm):
    both = run_both(table, tmp_path, algorithm, cluster)
    (local, local_dir), (dask, dask_dir) = both["local"], both["dask"]
    assert (local_dir / "out.csv").read_bytes() == (dask_dir / "out.csv").read_bytes()
    assert local.report["verification"] == dask.report["verification"]
    assert local.report["verification"]["passed"]
    assert local.report["execution"] == "local"
    assert dask.report["execution"].startswith("dask (2 workers at tcp://")
    assert local.report["metrics"] == dask.report["metrics"]


def test_ra_bias_reruns_are_tasks_on_the_cluster(cluster, table, tmp_path):
    """RA's empirical bias (reruns with the next seeds) runs on the workers, one task per rerun, and measures
    what the local reruns measure (default block size: a rerun on a worker draws with the worker's own)."""
    with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
        both = run_both(table, tmp_path, 'name = "ra"\nbias_runs = 4', cluster)
    assert both["local"][0].report["metrics"] == both["dask"][0].report["metrics"]
    assert both["dask"][0].report["metrics"]["bias_combinations"] > 0
    reruns = [t for t in stream.data if str(t["key"]).startswith("rerun_output")]
    assert len(reruns) == 4


def test_the_verifier_counts_classes_on_dask_with_the_local_verdict(cluster, table, small_blocks):
    """The verdict and every detail equal the local verifier's, passing or failing (the failing classes are
    still named by row)."""
    from anonstudio.core import algorithms, io, privacy
    from anonstudio.core.execution import DaskExecutor
    from anonstudio.core.generate import adult_hierarchies

    data = io.read_table(table).with_roles(QIS, ["salary-class"], [])
    hs = adult_hierarchies(QIS)
    output = algorithms.get("mondrian")(k=4).run(data, hs).output
    with distributed.Client(cluster) as client:
        ex = DaskExecutor(client)
        for spec in ({"model": "k-anonymity", "k": 4},
                     {"model": "k-anonymity", "k": 30, "max_suppression": 0.0},
                     {"model": "k-anonymity", "k": 4, "l": 2, "l_kind": "distinct", "sensitive": ["salary-class"]},
                     {"model": "k-anonymity", "k": 4, "l": 1.6, "l_kind": "entropy", "sensitive": ["salary-class"]}):
            local = privacy.verify_output(spec, data, output, hs)
            on_dask = privacy.verify_output(spec, data, output, hs, executor=ex)
            assert local.as_dict() == on_dask.as_dict(), spec
    assert not privacy.verify_output({"model": "k-anonymity", "k": 30}, data, output, hs).passed


def test_a_method_not_on_dask_is_refused_naming_it(table, tmp_path):
    from anonstudio.cli.main import main

    job = write_job(table, tmp_path, 'name = "kmember"\nk = 5', '[execution]\nengine = "dask"\n')
    with pytest.raises(NotAvailableError, match="method 'kmember' does not run on the Dask engine"):
        run_job(load_job(job))
    assert main(["run", str(job)]) == 2
    assert not (tmp_path / "out.csv").exists()


def test_methods_declare_their_engines():
    from anonstudio.core import algorithms

    on_dask = {cls.name for cls in algorithms.available() if "dask" in cls.facts()["engines"]}
    assert on_dask == {"ra", "ra-enhanced", "mondrian"}


def test_without_a_scheduler_a_local_cluster_is_started_for_the_run(table, tmp_path):
    job = write_job(table, tmp_path, 'name = "ra"\nbias_runs = 0',
                    '[execution]\nengine = "dask"\nworkers = 1\n')
    outcome = run_job(load_job(job))
    assert outcome.report["execution"].startswith("dask (1 workers at tcp://127.0.0.1:")
    assert outcome.report["verification"]["passed"] and (tmp_path / "out.csv").is_file()


def _slow_square(item, shared, progress=None):
    import time

    time.sleep(0.01 * item)  # the costliest item takes longest
    return item * item


def test_costliest_tasks_start_first_and_results_keep_the_items_order(cluster):
    import distributed

    from anonstudio.core.execution import DaskExecutor
    from anonstudio.core.experiments._mst_adult import point_cost

    items = [1, 5, 2, 8, 3]
    with distributed.Client(cluster) as client:
        assert DaskExecutor(client).map(_slow_square, items, cost=float) == [i * i for i in items]
    # k-member at 5 quasi-identifiers first, Mondrian at 3 last (what the sweep's order follows)
    points = [(3, 5, "mondrian"), (5, 5, "kmember"), (3, 5, "mst"), (5, 5, "mst")]
    assert sorted(points, key=point_cost, reverse=True)[0] == (5, 5, "kmember")
    assert sorted(points, key=point_cost)[0] == (3, 5, "mondrian")
