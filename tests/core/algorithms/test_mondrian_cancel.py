"""Cancel inside the Mondrian kernel (issue 15 item 10b): the nogil kernel polls a flag another thread sets,
stops within a segment, and counts the records it has labelled (the progress a watcher reports); Mondrian.run
raises Cancelled and never uses the partial labels."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from anonstudio.core.algorithms.mondrian import Mondrian
from anonstudio.core.data import Role, Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.kernels._mondrian import mondrian_partition, mondrian_partition_until
from anonstudio.core.progress import Cancelled, cancel_flag

QIS = ["age", "workclass", "education", "sex", "native-country"]


def _case(rows: int, k: int = 10):
    table = Table(adult_like_table(rows, 3).astype(object), roles={q: Role.QUASI for q in QIS})
    method = Mondrian(k=k)
    packed, leaf_nodes, _missing, idx = method.encoded(table, adult_hierarchies(QIS))
    sub = np.ascontiguousarray(leaf_nodes[idx])
    return (*method.kernel_arguments(sub, packed), np.zeros(len(sub), np.int32), 1, 0.0, 1, k, True)


@pytest.fixture(scope="module")
def large():
    return _case(300_000)


def test_the_kernel_counts_every_record_it_labels_and_gives_the_uncancellable_partition():
    args = _case(5000)
    flag = np.zeros(2, dtype=np.int64)
    labels = mondrian_partition_until(*args, flag)
    assert flag[0] == 0 and flag[1] == 5000 and labels.min() == 0
    np.testing.assert_array_equal(labels, mondrian_partition(*args))
    assert np.bincount(labels).min() >= 10


def test_a_flag_set_before_the_start_stops_the_kernel_before_its_first_split():
    args = _case(5000)
    flag = np.array([1, 0], dtype=np.int64)
    labels = mondrian_partition_until(*args, flag)
    assert (labels == -1).all() and flag[1] == 0


def test_a_flag_set_by_another_thread_stops_the_running_kernel_early(large):
    flag = np.zeros(2, dtype=np.int64)
    out: dict = {}
    worker = threading.Thread(target=lambda: out.setdefault("labels", mondrian_partition_until(*large, flag)))
    worker.start()
    deadline = time.monotonic() + 120
    while flag[1] == 0 and worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.0005)  # the kernel is running (it has labelled its first partition)
    flag[0] = 1
    worker.join(120)
    labels = out["labels"]
    # it stopped with most records unlabelled: the flag, not the end of the work, ended it
    assert 0 < flag[1] < len(labels) and (labels == -1).sum() == len(labels) - flag[1]


def test_cancel_flag_sets_the_flag_when_the_report_raises_and_raises_on_the_callers_thread():
    asked = threading.Event()
    reports: list[tuple[float, str, str]] = []

    def progress(fraction: float, message: str) -> None:
        reports.append((fraction, message, threading.current_thread().name))
        if asked.is_set():
            raise Cancelled("cancelled by the user")

    with pytest.raises(Cancelled), cancel_flag(progress, 0.1, "partitioning", total=100, end=0.9) as flag:
        flag[1] = 50  # a kernel halfway through
        deadline = time.monotonic() + 30
        while not any(abs(f - 0.5) < 1e-9 for f, _, _ in reports) and time.monotonic() < deadline:
            time.sleep(0.001)
        asked.set()
        while flag[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.001)  # what a kernel does: poll the flag
        assert flag[0] == 1
    assert reports[0][:2] == (0.1, "partitioning")
    assert any(name == "anonstudio-cancel-watch" and abs(f - 0.5) < 1e-9 for f, _, name in reports)


def test_cancel_flag_without_progress_starts_no_thread_and_never_sets_the_flag():
    before = threading.active_count()
    with cancel_flag(None, 0.0, "partitioning", total=10, end=1.0) as flag:
        assert threading.active_count() == before
    assert flag.tolist() == [0, 0]


def test_mondrian_run_cancelled_inside_the_kernel_raises_cancelled():
    rows = 300_000
    table = Table(adult_like_table(rows, 3).astype(object), roles={q: Role.QUASI for q in QIS})
    asked = threading.Event()
    seen: list[float] = []

    def progress(fraction: float, message: str) -> None:
        if message == "partitioning":
            seen.append(fraction)
            if fraction > 0:  # the kernel has labelled records: cancel now, inside it
                asked.set()
        if asked.is_set():
            raise Cancelled("cancelled by the user")

    with pytest.raises(Cancelled):
        Mondrian(k=10).run(table, adult_hierarchies(QIS), progress)
    assert asked.is_set() and max(seen) < 0.9  # cancelled while the kernel was partitioning
