"""Compile (or load from the cache) every numba kernel before a user's first run.

numba compiles a kernel on its first call and caches it in the user's cache folder
(:func:`anonstudio.core.kernels.cache_dir`); the first run after an install therefore pays the compile time
(seconds per method). :func:`warm_up` runs each bundled demo job once, on the bundled demo data in a
temporary folder — the same code paths and argument types as a user's run, so exactly the kernel
specialisations a run needs get compiled — and returns how long each method took. ``anonstudio warmup``
calls it (for servers and images), the workbench calls it on a background thread at start.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from anonstudio.core.errors import NotAvailableError
from anonstudio.core.progress import ProgressCallback, report


@dataclass(frozen=True)
class WarmedMethod:
    """One demo job run by :func:`warm_up`: the method, its seconds, and why it was skipped (or ``None``)."""

    job: str
    method: str
    seconds: float
    skipped: str | None = None


def demo_job_paths(folder: Path) -> list[Path]:
    """The demo's job files, in name order."""
    return sorted(folder.glob("*.toml"))


def kernel_cache_is_cold(cache_dir: str | None = None) -> bool:
    """True when anonstudio's kernel cache folder (:func:`anonstudio.core.kernels.cache_folder`) holds no compiled
    kernel of ``anonstudio/core/kernels`` yet: the first run would compile them (seconds per method)."""
    if cache_dir is None:
        from anonstudio.core.kernels import cache_folder

        cache_dir = cache_folder()
    folder = cache_dir
    if not folder or not os.path.isdir(folder):
        return True
    return not any(Path(folder).glob("kernels_*/*.nbi"))


def warm_up(progress: ProgressCallback | None = None, *, methods: set[str] | None = None) -> list[WarmedMethod]:
    """Run every bundled demo job (only those of ``methods`` if given) in a temporary copy of the demo;
    nothing is written anywhere else. Jobs whose method is not available in this version are skipped."""
    from anonstudio.core.jobs import load_job, run_job
    from anonstudio.resources import demo_folder

    done: list[WarmedMethod] = []
    with tempfile.TemporaryDirectory(prefix="anonstudio-warmup-") as tmp:
        work = Path(tmp) / "demo"
        shutil.copytree(demo_folder(), work, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        jobs = demo_job_paths(work)
        for i, path in enumerate(jobs):
            report(progress, i / max(len(jobs), 1), f"preparing kernels: {path.stem}")
            start = time.perf_counter()
            try:
                job = load_job(path)
            except NotAvailableError as exc:
                if methods is None:
                    done.append(WarmedMethod(path.stem, path.stem, 0.0, exc.message))
                continue
            if methods is not None and job.algorithm not in methods:
                continue
            run_job(job)
            done.append(WarmedMethod(path.stem, job.algorithm, time.perf_counter() - start))
    report(progress, 1.0, "kernels ready")
    return done
