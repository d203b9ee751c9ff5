"""Reader/writer timings on the real data (run on demand: ``python tests/benchmarks/bench_io.py``).

Prints the median of several runs for each reader and writer.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import io  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()


def median_time(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    adult = DATA / "adult" / "adult.csv"
    yeast = DATA / "proteins" / "yeast_swissprot_6049.fasta"
    table = io.read_table(adult)
    seqs = io.read_fasta(yeast)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows = [
            ("read_table adult.csv (30,162 x 9)", lambda: io.read_table(adult)),
            ("write_table adult.csv", lambda: io.write_table(table, out / "a.csv", delimiter=";")),
            ("read_fasta yeast 6049", lambda: io.read_fasta(yeast)),
            ("write_fasta yeast 6049", lambda: io.write_fasta(seqs, out / "y.fasta")),
            ("read_hierarchy age", lambda: io.read_hierarchy(DATA / "adult/hierarchies/adult_hierarchy_age.csv",
                                                             attribute="age")),
        ]
        for name, fn in rows:
            print(f"{name:40s} median {median_time(fn) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
