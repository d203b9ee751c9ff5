"""Issue 29, item 7: long phases are bounded and cancellable. Condensation of 20,000 proteins sat in its k-NN
metric phase for 14 minutes and took 50 s to obey SIGTERM: the report now measures k-NN on a bounded sample,
and the distances are computed in blocks of bounded work with a progress report (a cancel point) between
blocks — Cancel and stop signals act within a second."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core.algorithms.condensation import (
    KNN_CELL_BUDGET,
    KNN_MAX_TEST,
    knn_original_vs_pseudo,
    knn_sample_sizes,
)
from anonstudio.core.data import SequenceSet
from anonstudio.core.generate import labelled_proteins
from anonstudio.core.metrics._strings import CELLS_PER_CALL, _subset, knn_accuracy, work_blocks
from anonstudio.core.progress import Cancelled

ROOT = Path(__file__).resolve().parents[2]


def _proteins(per_class: int, seed: int = 2) -> tuple[SequenceSet, np.ndarray]:
    ids, seqs, labels = labelled_proteins(per_class, seed)
    return SequenceSet.from_strings(seqs, ids=ids, alphabet="protein-25"), np.asarray(labels)


def test_work_blocks_cover_every_pair_once_within_the_budget():
    rng = np.random.default_rng(1)
    a, b = rng.integers(30, 900, 57), rng.integers(30, 900, 311)
    seen = np.zeros((len(a), len(b)), dtype=int)
    for rows, cols in work_blocks(a, b, 2_000_000):
        seen[np.ix_(rows, cols)] += 1
        assert a[rows].sum() * b[cols].sum() <= 2_000_000 or (len(rows) == 1 and len(cols) == 1)
    assert (seen == 1).all()


def test_knn_distances_obey_cancel_within_a_second():
    """k-NN of 400 test strings against 3,600 (1.2e11 alignment cells, minutes of work) cancelled after 3 s: it
    stops within a second, and progress is reported at least every second meanwhile."""
    data, labels = _proteins(2000)
    test, train = _subset(data, np.arange(400)), _subset(data, np.arange(400, 4000))
    asked: list[float] = []
    reports: list[float] = []

    def progress(fraction, message):
        reports.append(time.monotonic())
        if asked:
            raise Cancelled()

    timer = threading.Timer(3.0, lambda: asked.append(time.monotonic()))
    timer.start()
    with pytest.raises(Cancelled):
        knn_accuracy(train, labels[400:4000], test, labels[:400], progress=progress)
    latency = time.monotonic() - asked[0]
    assert latency < 1.0, latency
    gaps = np.diff(reports[1:])  # after the first block (which loads the kernel)
    assert len(gaps) and gaps.max() < 1.0, gaps.max()
    assert CELLS_PER_CALL <= 1e9


def test_the_report_measures_knn_on_a_bounded_sample():
    """20,000 proteins of mean length ~450: at most 100 test strings and ~490 training strings per classifier
    (the whole 90/10 split would be 740 times the work)."""
    data, _ = _proteins(10_000)
    test, train = knn_sample_sizes(data)
    mean = float(data.lengths.mean())
    assert test == KNN_MAX_TEST
    assert test * train * mean * mean <= KNN_CELL_BUDGET * 1.01
    assert 300 <= train <= 800


def test_a_sampled_knn_keeps_each_class_and_says_so():
    data, labels = _proteins(400)
    result = knn_original_vs_pseudo(data, labels, k=5, seed=3, max_test=40, max_train=120)
    assert result["sampled"] and result["test"] == 40
    assert 120 <= result["train"] <= 130  # in proportion, at least 2k of each class
    assert 0.0 <= result["accuracy_pseudo"] <= 1.0
    whole = knn_original_vs_pseudo(_subset(data, np.arange(200)), labels[:200], k=5, seed=3)
    assert not whole["sampled"]


_MARKED = r"""
import sys
from anonstudio.core.metrics import _strings
real = _strings.knn_accuracy
def marked(*args, **kwargs):
    print("k-NN phase", flush=True)
    return real(*args, **kwargs)
_strings.knn_accuracy = marked
from anonstudio.cli.main import main
sys.exit(main(["run", "job.toml", "--quiet"]))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129),
                                           (signal.SIGQUIT, 131), (signal.SIGUSR1, 138)])
def test_a_stop_signal_in_the_knn_phase_ends_the_run_within_a_second(tmp_path, sig, code):
    """SIGHUP, SIGQUIT and SIGUSR1 killed the process without its clean-up; now each stops it like SIGTERM:
    exit 128 + n, within a second, no output and no staging file left."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path / "xdg"))
    subprocess.run([sys.executable, "-m", "anonstudio", "generate", "proteins", "--out", "p.fasta", "--count",
                    "3000", "--classes", "2", "--seed", "3"], cwd=tmp_path, env=env, check=True, timeout=300,
                   capture_output=True)
    (tmp_path / "job.toml").write_text('[input]\npath = "p.fasta"\nlabel_pattern = "class=([A-Z])"\n'
                                       '[algorithm]\nname = "condensation"\nk = 10\n'
                                       '[output]\npath = "out.fasta"\nreport = "out.json"\n')
    proc = subprocess.Popen([sys.executable, "-c", _MARKED], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.strip() == "k-NN phase", proc.stderr.read()
    time.sleep(1.5)  # inside the distances
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == code, err
    assert took < 1.0, took
    assert not (tmp_path / "out.fasta").exists() and not list(tmp_path.glob(".anonstudio.*"))
