"""The wheel and sdist: built from this checkout, installed into a fresh virtual environment outside the
repository, and used from an unrelated folder as a newcomer would (``pip install anonstudio-*.whl``).

Needs the build front end (``build``, in the ``test`` extra) and the package index for the dependencies;
set ``ANONSTUDIO_OFFLINE=1`` to skip it on a machine without one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from anonstudio import __version__

pytestmark = [pytest.mark.slow, pytest.mark.packaging]

ROOT = Path(__file__).resolve().parents[2]


def _clean_env(**extra) -> dict[str, str]:
    """The environment without this checkout on the path (a newcomer's shell)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(extra)
    return env


def _copy_of_the_checkout(dest: Path) -> Path:
    """The files a clone has (build writes ``*.egg-info`` into its source folder: never into ours)."""
    ignore = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "artifacts",
                                    ".pytest_cache", ".hypothesis", "results", "*.part")
    shutil.copytree(ROOT, dest / "anonstudio-src", ignore=ignore, symlinks=True)
    return dest / "anonstudio-src"


def _run(cmd, *, cwd, env=None, timeout=600) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    if os.environ.get("ANONSTUDIO_OFFLINE"):
        pytest.skip("ANONSTUDIO_OFFLINE is set: building and installing a wheel needs the package index")
    pytest.importorskip("build", reason="the build front end is not installed (pip install build)")
    out = tmp_path_factory.mktemp("dist")
    source = _copy_of_the_checkout(tmp_path_factory.mktemp("source"))
    _run([sys.executable, "-m", "build", "--outdir", out, source], cwd=source, env=_clean_env())
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> dict[str, Path]:
    home = tmp_path_factory.mktemp("newcomer")
    env_dir = home / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = _clean_env(QT_QPA_PLATFORM="offscreen", XDG_CACHE_HOME=str(home / "cache"), XDG_DATA_HOME=str(home / "data"))
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", built["wheel"]], cwd=home, env=env,
         timeout=900)
    work = home / "elsewhere"
    work.mkdir()
    return {"python": python, "exe": env_dir / "bin" / "anonstudio", "env": env, "cwd": work, "venv": env_dir}


def test_the_wheel_carries_the_demo_data_and_icons_but_not_the_generator_scripts(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert "anonstudio/resources/demo/table-mst.toml" in names
    assert "anonstudio/resources/demo/hierarchies/adult_hierarchy_age.csv" in names
    assert "anonstudio/resources/icons/anonstudio.svg" in names
    assert "anonstudio/resources/icons/anonstudio-256.png" in names
    assert not any(n.endswith("make_demo.py") or n.endswith("derive_tables.py") for n in names)
    assert not any(n.startswith("tests/") for n in names)


def test_installed_package_is_the_wheel_not_this_checkout(installed):
    done = _run([installed["python"], "-c", "import anonstudio, importlib.metadata as m; "
                 "print(anonstudio.__file__); print(m.version('anonstudio'))"], cwd=installed["cwd"], env=installed["env"])
    where, version = done.stdout.split()
    assert Path(where).is_relative_to(installed["venv"])
    assert version == __version__


def test_version_demo_and_run_from_an_unrelated_folder(installed):
    env, cwd, exe = installed["env"], installed["cwd"], installed["exe"]
    assert _run([exe, "--version"], cwd=cwd, env=env).stdout.strip() == f"anonstudio {__version__}"
    demo = _run([exe, "demo", "--out", "demo", "--quiet"], cwd=cwd, env=env)
    assert "verified" in demo.stdout
    job = cwd / "demo" / "table-mondrian.toml"
    raw = tomllib.loads(job.read_text())
    report = cwd / "demo" / raw["output"]["report"]
    report.unlink()
    done = _run([exe, "run", job, "--quiet"], cwd=cwd, env=env)
    assert "verification: passed" in done.stdout
    assert json.loads(report.read_text())["anonstudio_version"] == __version__


def test_the_workbench_starts_offscreen_for_two_seconds_and_exits_cleanly(installed):
    env = dict(installed["env"], ANONSTUDIO_EXIT_AFTER_SHOW="2")
    done = _run([installed["exe"], "gui", "--demo"], cwd=installed["cwd"], env=env, timeout=120)
    assert "shown after" in done.stdout


def test_the_desktop_entry_starts_this_installation(installed):
    env, cwd, exe = installed["env"], installed["cwd"], installed["exe"]
    _run([exe, "desktop-entry"], cwd=cwd, env=env)
    entry = Path(env["XDG_DATA_HOME"]) / "applications" / "anonstudio.desktop"
    fields = dict(line.split("=", 1) for line in entry.read_text().splitlines() if "=" in line)
    assert fields["Exec"] == f"{exe} gui %f"
    assert fields["Icon"] == "anonstudio" and fields["Type"] == "Application"
    assert (Path(env["XDG_DATA_HOME"]) / "icons/hicolor/256x256/apps/anonstudio.png").is_file()
    _run([exe, "desktop-entry", "--uninstall"], cwd=cwd, env=env)
    assert not entry.exists()
