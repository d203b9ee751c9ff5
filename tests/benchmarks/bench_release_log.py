"""What the release log's sketches cost on a large table (issue 39, the leave-one-column-out sketches): the
sorted-cell record hashes (format 1, also the input's keyed digest) and the summed-cell sketches with each column
left out (format 2), on an Adult-like table of ``--rows`` rows (default 1,000,000, 9 columns). Prints seconds; no
assert on time.

    python tests/benchmarks/bench_release_log.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from anonstudio.core import generate, keys, release_log
from anonstudio.core.data import Table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    frame = generate.adult_like_table(args.rows, 1).astype(str)
    table, less = Table(frame), Table(frame.drop(columns=["race"]))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = tmp
        key = keys.load_key(create=True)
        t0 = time.perf_counter()
        hashes = release_log._record_hashes(table, key)
        t1 = time.perf_counter()
        columns = release_log.column_sketches(table, key)
        t2 = time.perf_counter()
        log = Path(tmp) / "releases.json"
        release_log.record_release(table, {"algorithm": "x", "parameters": {}}, {}, Path(tmp) / "a.csv", log, key=key)
        t3 = time.perf_counter()
        said = release_log.earlier_releases(less, {"algorithm": "x", "parameters": {}}, {}, Path(tmp) / "b.csv", log,
                                            key=key)
        t4 = time.perf_counter()
        assert hashes is not None and columns is not None and any(release_log.OVERLAP in w for w in said)
        print(json.dumps({"rows": args.rows, "columns": frame.shape[1],
                          "sorted_record_hashes_s": round(t1 - t0, 2),
                          "column_sketches_s": round(t2 - t1, 2),
                          "record_release_s": round(t3 - t2, 2),
                          "earlier_releases_one_column_less_s": round(t4 - t3, 2),
                          "log_entry_bytes": log.stat().st_size}))


if __name__ == "__main__":
    main()
