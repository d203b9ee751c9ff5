"""Issue 34 item 6: importing anonstudio leaves numba and OpenMP as the host process set them (a notebook), while
anonstudio's kernels are still never cached beside the installed package; the command line and the workbench,
processes of their own, let idle OpenMP threads sleep; numba is pinned to the versions its internals were patched
on, and on any other version each patch steps aside for numba's own path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_MONDRIAN = """
from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
qis = ["age", "sex", "education"]
table = Table(adult_like_table(300, seed=1)).with_roles(qis)
assert jobs.anonymize(table, adult_hierarchies(qis), get("mondrian")(k=5)).verification.passed
"""


def _script(before: str, after: str = "") -> str:
    """``before``, the Mondrian run, then ``after`` (each dedented): one script."""
    return textwrap.dedent(before) + _MONDRIAN + textwrap.dedent(after)


def _python(code: str, tmp_path: Path, site: Path | None = None, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "OMP_WAIT_POLICY")}
    full.update(PYTHONPATH=str(site or ROOT), XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1",
                **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)


def test_the_pin_is_the_tested_range():
    from anonstudio.core.kernels import TESTED_NUMBA, numba_tested

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    spec = next(d for d in deps if d.startswith("numba"))
    low, high = re.fullmatch(r"numba>=(\d+\.\d+),<(\d+\.\d+)", spec.split("#")[0].strip()).groups()
    assert (tuple(map(int, low.split("."))), tuple(map(int, high.split(".")))) == TESTED_NUMBA
    assert numba_tested()  # the numba this suite runs on
    assert not numba_tested("0.99.0") and not numba_tested("0.67.1") and not numba_tested("nonsense")


def test_importing_anonstudio_changes_nothing_for_the_host_process(tmp_path):
    """A notebook: its environment and numba's settings stay as they were; a function of its own cached with
    numba goes where numba puts it (beside its file); anonstudio's kernels go to anonstudio's cache folder."""
    (tmp_path / "mine.py").write_text("from numba import njit\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    code = _script("""
        import os, sys
        before = dict(os.environ)
        import numba
        from numba.core import config
        cache_dir = config.CACHE_DIR
        import anonstudio
    """, f"""
        sys.path.insert(0, {str(tmp_path)!r})
        import mine
        assert mine.twice(21) == 42
        changed = {{k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k)}}
        assert not changed, changed
        assert config.CACHE_DIR == cache_dir, config.CACHE_DIR
        print("ok")
    """)
    done = _python(code, tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert list((tmp_path / "__pycache__").glob("mine.twice*.nbi")), "numba's own locator no longer decides"
    assert list((tmp_path / "cache" / "anonstudio" / "numba").rglob("*.nbi")), "anonstudio's kernels not cached"


def test_the_command_line_lets_idle_openmp_threads_sleep(tmp_path):
    code = textwrap.dedent("""
        import atexit, os, sys
        atexit.register(lambda: print("OMP_WAIT_POLICY", os.environ.get("OMP_WAIT_POLICY"), flush=True))
        sys.argv = ["anonstudio", "methods"]
        from anonstudio.cli.main import entry
        entry()
    """)
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "OMP_WAIT_POLICY PASSIVE" in done.stdout
    chosen = _python(code, tmp_path, OMP_WAIT_POLICY="ACTIVE")
    assert "OMP_WAIT_POLICY ACTIVE" in chosen.stdout  # the user's own setting wins


def test_an_untested_numba_gets_numbas_own_paths(tmp_path):
    """On a numba outside the tested range nothing of numba's is patched: its cache locators and its cache loading
    stay its own, the kernels run compiled for the process only (one warning), nothing is cached, neither in
    anonstudio's folder nor beside the package."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(ROOT / "anonstudio", site / "anonstudio", ignore=shutil.ignore_patterns("__pycache__", "*.nb?"))
    code = _script("""
        import numba
        numba.__version__ = "0.99.0"
        from numba.core import caching
        chain, load = list(caching.CacheImpl._locator_classes), caching.Cache.load_overload
        from anonstudio.core.kernels import lean_cache_loads
        lean_cache_loads()
    """, """
        assert caching.CacheImpl._locator_classes == chain, "a locator was installed"
        assert caching.Cache.load_overload is load, "numba's cache loading was replaced"
        print("ok")
    """)
    done = _python(code, tmp_path, site=site)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert done.stderr.count("is not a version anonstudio's kernel cache was tested on") == 1, done.stderr
    assert not list((tmp_path / "cache").rglob("*.nbi")) and not list(site.rglob("*.nbi"))


def test_a_tested_numba_gets_the_patches(tmp_path):
    code = _script("""
        from numba.core import caching
        load = caching.Cache.load_overload
        from anonstudio.core.kernels import lean_cache_loads
        lean_cache_loads()
    """, """
        assert caching.CacheImpl._locator_classes[0].__name__ == "AnonstudioCacheLocator"
        assert caching.Cache.load_overload is not load
        print("ok")
    """)
    done = _python(code, tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
