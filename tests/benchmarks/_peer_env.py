"""A peer whose pins clash with ours, in a virtual environment of its own (benchmarks only).

pycanon 1.3.6 pins numpy 2.0.2, pandas 2.3.3 and scipy 1.15.3 exactly, so it cannot share anonstudio's
environment (pandas 3) and is not in the ``bench`` extra. :func:`peer_python` makes a venv for such a peer
under the user's cache directory on first use (``python -m venv`` and ``pip install``, from whatever index pip
is configured with) and returns its interpreter; the benchmark then runs the peer there on the same files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "anonstudio" / "bench-peers"


def peer_python(name: str, requirement: str) -> Path | None:
    """The interpreter of a venv holding ``requirement`` (made on first use); None when it cannot be made,
    after printing why."""
    env = cache_dir() / name
    python = env / "bin" / "python"
    marker = env / "installed.txt"
    if marker.is_file() and marker.read_text() == requirement and python.exists():
        return python
    print(f"  (making a venv for {requirement} at {env}: first use only)", flush=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(env)
        subprocess.run([str(python), "-m", "pip", "install", "-q", requirement], check=True,
                       capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"  {requirement}: could not be installed ({detail.strip().splitlines()[-1] if detail else exc})")
        return None
    marker.write_text(requirement)
    return python


def run_peer(python: Path, script: str, *args: str) -> str:
    """Run ``script`` (Python source) in the peer's interpreter; its standard output."""
    done = subprocess.run([str(python), "-c", script, *args], check=True, capture_output=True, text=True)
    return done.stdout


if __name__ == "__main__":  # python tests/benchmarks/_peer_env.py NAME REQUIREMENT: make it now
    print(peer_python(sys.argv[1], sys.argv[2]))
