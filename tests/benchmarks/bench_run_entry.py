"""Count column profiles, hierarchy builds and coverage checks in one `anonstudio run` of each demo job named
(issue 44 item 4: the CLI profiles no column and completes each hierarchy once). Run on demand:
``python tests/benchmarks/bench_run_entry.py <folder> table-mst.toml table-global.toml``."""
from __future__ import annotations

import collections
import sys
import time
from pathlib import Path
import anonstudio.core.hierarchy as hmod
import anonstudio.core.io as io
from anonstudio.core.hierarchy import Hierarchy
import anonstudio.core.workspace._profiles as prof
from anonstudio.core.demo import prepare_demo
from anonstudio.cli.main import main

counts = collections.Counter()
def wrap(owner, name, label):
    real = getattr(owner, name)
    def counted(*a, **k):
        counts[label] += 1
        return real(*a, **k)
    setattr(owner, name, counted)


wrap(prof, "_profile", "column profiles")
wrap(hmod, "build_hierarchy", "hierarchies built from builder specs")
wrap(hmod, "default_numeric_hierarchy", "default bands built")
wrap(Hierarchy, "check_covers", "coverage checks")
wrap(io, "read_hierarchy", "hierarchy files read")


folder = prepare_demo(Path(sys.argv[1]))
for name in sys.argv[2:]:
    counts.clear()
    job = folder / name
    t = time.perf_counter()
    rc = main(["run", str(job)])
    print(f"{name}: exit {rc}, {time.perf_counter() - t:.2f} s, " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())), file=sys.stderr)
