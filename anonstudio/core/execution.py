"""Where the engine's independent tasks run: in this process, or on a Dask cluster.

The contract's ``[execution]`` section (and ``anonstudio experiment … --engine``) chooses the engine::

    [execution]
    engine = "dask"                    # local (default) | dask
    scheduler = "tcp://host:8786"      # absent: a LocalCluster is started for the run (workers = 2)

Work that splits into independent tasks — the points and repetitions of an experiment sweep, the
partitions of a row-independent method — goes through one interface, :meth:`Executor.map`: the local
engine runs the tasks one after another in this process; the Dask engine (``dask.distributed``, an
existing scheduler rather than a home-made pool) submits them to the cluster, broadcasts the data they
share once, reports progress as tasks finish and cancels the outstanding ones when the progress callback
raises :class:`~anonstudio.core.progress.Cancelled`. Results come back in the order of the tasks, so the
files written from them are the same whichever engine ran them.

Dask is optional (``pip install anonstudio[dask]``): nothing here imports it until the Dask engine is used.
"""

from __future__ import annotations

import contextlib
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from anonstudio.core.errors import JobError, NotAvailableError, ResourceError
from anonstudio.core.progress import Cancelled, ProgressCallback, report, subrange

ENGINES = ("local", "dask")
_KEYS = {"engine", "scheduler", "workers"}


@dataclass(frozen=True)
class Execution:
    """The validated ``[execution]`` settings."""

    engine: str = "local"
    #: address of a running Dask scheduler (``tcp://host:8786``); None starts a LocalCluster
    scheduler: str | None = None
    #: worker processes of the LocalCluster started when no scheduler is given
    workers: int = 2

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None, *, file: str | None = None) -> Execution:
        """Validate a job's ``[execution]`` table (``None`` or empty: the local engine)."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise JobError("[execution] must be a table (engine = \"local\" | \"dask\")", file=file, key="execution")
        for key in raw:
            if key not in _KEYS:
                raise JobError(f"unknown key 'execution.{key}' (known: {', '.join(sorted(_KEYS))})", file=file,
                               key=f"execution.{key}")
        engine = raw.get("engine", "local")
        if engine not in ENGINES:
            raise JobError(f"execution.engine must be one of {', '.join(ENGINES)}, got {engine!r}", file=file,
                           key="execution.engine")
        scheduler = raw.get("scheduler")
        if scheduler is not None:
            if engine != "dask":
                raise JobError("execution.scheduler is only for engine = \"dask\"", file=file, key="execution.scheduler")
            if not isinstance(scheduler, str) or "://" not in scheduler:
                raise JobError(f"execution.scheduler must be an address like \"tcp://host:8786\", got {scheduler!r}",
                               file=file, key="execution.scheduler")
        workers = raw.get("workers", 2)
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
            raise JobError(f"execution.workers must be a whole number from 1 to 256, got {workers!r}", file=file,
                           key="execution.workers")
        return cls(engine=engine, scheduler=scheduler, workers=workers)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"engine": self.engine}
        if self.engine == "dask":
            out["scheduler"] = self.scheduler or f"LocalCluster ({self.workers} worker processes)"
        return out

    @contextlib.contextmanager
    def session(self) -> Iterator[Executor]:
        """The executor for this run; a LocalCluster started here is shut down on leaving."""
        if self.engine == "local":
            yield LocalExecutor()
            return
        distributed = _import_distributed()
        # sockets to the scheduler and workers, pipes to the worker processes: with too few file handles a
        # LocalCluster's nanny never starts (a hang with ulimit -n 16, exit 3 with 32 before)
        enough_open_files(DASK_OPEN_FILES + (0 if self.scheduler else DASK_OPEN_FILES_PER_WORKER * self.workers))
        if self.scheduler:
            try:
                client = distributed.Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise JobError(f"cannot reach the Dask scheduler at {self.scheduler}: {exc}",
                               key="execution.scheduler") from None
            with client:
                yield DaskExecutor(client)
            return
        with local_cluster(self.workers) as client:
            yield DaskExecutor(client)


#: open files (sockets, pipes) a process needs to use a Dask cluster, and per worker of a LocalCluster it starts
DASK_OPEN_FILES = 64
DASK_OPEN_FILES_PER_WORKER = 16


def enough_open_files(needed: int) -> None:
    """Make sure this process may open ``needed`` files: the soft limit is raised towards the hard one if it is
    lower (worker processes inherit it); a hard limit below ``needed`` is :class:`ResourceError` (exit 2)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: nothing to check
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    if soft < needed:
        raise ResourceError(f"the Dask engine needs at least {needed} open files, this process may open {soft} "
                            f"(ulimit -n; hard limit {hard}): raise the limit, or set execution.engine = \"local\"",
                            key="execution.engine")


@contextlib.contextmanager
def local_cluster(workers: int = 2) -> Iterator[Any]:
    """A client of a ``LocalCluster`` of ``workers`` processes started for one run (shut down on leaving).

    Worker processes, not threads: the kernels release the GIL, but pandas and Python-level bookkeeping do
    not. One thread each, so a worker's numba kernels do not fight over the cores. Each worker's statistical
    profiler (a thread sampling every stack every 10 ms, for the dashboard) is off: on two shared cores it
    cost the ``mst-adult`` sweep 4 % (sum of the tasks' compute 21.9 s with it, 21.0 s without; measured with
    Dask's task stream). Workers keep glibc's memory allocator defaults (below): 21.9 -> 19.2-20.0 s.

    The one-thread setting reaches numba when a worker first imports it. A script that imports numba (or a
    kernel module) at its top level has it imported in each worker before the setting (the workers re-import
    the script's main module as they start): such a script should set ``NUMBA_NUM_THREADS=1`` in the
    environment itself. The CLI, the workbench and the engine import numba only inside functions."""
    import dask

    distributed = _import_distributed()
    # set in each worker process as it starts (``pre-spawn-environ`` would be set in this process too)
    environ = dict(dask.config.get("distributed.nanny.environ", None) or {})
    environ["NUMBA_NUM_THREADS"] = "1"  # a worker's parallel kernels take one core, as its one task thread
    # Dask sets MALLOC_TRIM_THRESHOLD_ = 65536 in its workers to hand freed memory back sooner; setting it at
    # all also stops glibc's sliding mmap threshold, so every array over 128 KB is a new mapping, page-faulted
    # anew: the sweep's tasks took 10-15 % more compute. Our workers keep glibc's defaults (None: not set).
    # (A value already in this process's environment — another cluster started here leaves Dask's — is held
    # back while the workers start: they inherit this environment.)
    pre_spawn = dict(dask.config.get("distributed.nanny.pre-spawn-environ", None) or {})
    pre_spawn["MALLOC_TRIM_THRESHOLD_"] = None
    held = os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    try:
        with dask.config.set({"distributed.worker.profile.enabled": False,  # read by the workers as they start
                              "distributed.nanny.environ": environ,
                              "distributed.nanny.pre-spawn-environ": pre_spawn}):
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               dashboard_address=":0",  # any free port: None still tried 8787
                                               silence_logs=logging.CRITICAL)
    finally:
        if held is not None:
            os.environ["MALLOC_TRIM_THRESHOLD_"] = held
    with cluster, distributed.Client(cluster) as client:
        yield client


class Executor(ABC):
    """Runs independent tasks; results in task order."""

    name = ""

    @abstractmethod
    def map(self, func: Callable[..., Any], items: Sequence[Any], *, shared: Any = None,
            progress: ProgressCallback | None = None, label: str = "task", scatter: bool = False,
            cost: Callable[[Any], float] | None = None) -> list[Any]:
        """``[func(item, shared, task_progress) for item in items]``. ``func`` must be a module-level
        function (Dask sends it to other processes by reference). Progress is reported as tasks finish;
        ``task_progress`` is the task's own slice of it in this process (so a long task can be cancelled
        midway) and ``None`` on a cluster, where tasks are cancelled between tasks. ``scatter``: the items are
        data (row blocks, parts of a table): on a cluster each is sent to one worker ahead of its task rather
        than inside the task graph. ``cost``: an item's expected work (any scale); on a cluster the costliest
        tasks start first, so no long task is left for the end while the other workers idle (longest
        processing time first). Results are in the order of ``items`` either way."""

    def workers(self) -> int:
        """How many workers run the tasks at once."""
        return 1

    def describe(self) -> str:
        return self.name


class LocalExecutor(Executor):
    """This process, one task after another (the default; needs nothing extra)."""

    name = "local"

    def map(self, func, items, *, shared=None, progress=None, label="task", scatter=False, cost=None):
        results = []
        n = len(items)
        for i, item in enumerate(items):
            report(progress, i / max(n, 1), f"{label} {i + 1}/{n}")
            results.append(func(item, shared, subrange(progress, i / n, (i + 1) / n)))
        report(progress, 1.0, f"{n}/{n} {label}s done")
        return results


class DaskExecutor(Executor):
    """A ``dask.distributed`` client: tasks are futures, the shared data is broadcast once."""

    name = "dask"

    def __init__(self, client) -> None:
        self.client = client

    def describe(self) -> str:
        workers = len(self.client.scheduler_info().get("workers", {}))
        return f"dask ({workers} workers at {self.client.scheduler.address})"

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def map(self, func, items, *, shared=None, progress=None, label="task", scatter=False, cost=None):
        distributed = _import_distributed()
        n = len(items)
        if n == 0:
            return []
        # scattered inside a list: a dict would be scattered value by value under its own keys
        shared_ref = self.client.scatter([shared], broadcast=True, hash=False)[0] if shared is not None else None
        # data items go to the workers round robin, and each task runs where its item is
        refs = self.client.scatter(list(items), hash=False) if scatter else items
        # Dask runs ready tasks of higher priority first: the expected cost, as a rank
        rank = {i: r for r, i in enumerate(sorted(range(n), key=lambda i: cost(items[i])))} if cost else {}
        futures = [self.client.submit(func, item, shared_ref, None, pure=False, priority=rank.get(i, 0))
                   for i, item in enumerate(refs)]
        report(progress, 0.0, f"0/{n} {label}s done on {self.workers()} Dask workers")
        done = 0
        try:
            for future in distributed.as_completed(futures):
                if future.status == "error":
                    future.result()  # raises the task's own exception (an AnonStudioError stays one)
                done += 1
                report(progress, done / n, f"{done}/{n} {label}s done on Dask")
            return self.client.gather(futures)
        except (Cancelled, KeyboardInterrupt):
            self.client.cancel(futures)
            raise


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise NotAvailableError(
            "the Dask engine needs dask.distributed: pip install 'anonstudio[dask]'", key="execution.engine"
        ) from None
    return distributed
