"""A limit of condensation (issue 39 item 10): the share of inputs whose own group an attacker holding the input finds.

Run:  python tests/benchmarks/bench_own_group.py [--data ../shared/data/proteins]

Condensation at k = 5, 10, 20 (defaults otherwise) on yeast 1,000 and mouse 1,000 of ``../shared/data/proteins`` and on
1,000 strings of ``generate.human_like`` (seed 0, a human Swiss-Prot-like set); per run the attack of
:func:`anonstudio.core.metrics.own_group_found` — every published group scored by the input's log-likelihood under
the group's positional profile and the distance of the lengths — and the share of inputs whose best-scoring group is
their own. A random guess finds it for 1 / (groups) of them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import SequenceSet  # noqa: E402
from anonstudio.core.generate import _proteins  # noqa: E402
from anonstudio.core.io import read_fasta  # noqa: E402
from anonstudio.core.metrics import own_group_found  # noqa: E402


def _human_like(n: int) -> SequenceSet:
    ids, sequences = _proteins.human_like(n, 0)
    return SequenceSet.from_strings(sequences, ids=ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "proteins")
    args = parser.parse_args()
    sets = {"yeast 1,000": lambda: read_fasta(args.data / "yeast_swissprot_1000.fasta"),
            "mouse 1,000": lambda: read_fasta(args.data / "mouse_string_1000.fasta"),
            "human-like 1,000": lambda: _human_like(1000)}
    for name, load in sets.items():
        data = load()
        for k in (5, 10, 20):
            result = get("condensation")(k=k).run(data)
            start = time.perf_counter()
            own = own_group_found(data, result.groups, result.output, result.output.extra["groups"])
            groups = len(set(result.output.extra["groups"]))
            print(f"{name}, k = {k}: {own['found']:,} of {own['inputs']:,} inputs find their own group "
                  f"({own['share']:.1%}; a random guess {1 / groups:.2%} of {groups} groups), "
                  f"attack {time.perf_counter() - start:.2f} s", flush=True)


if __name__ == "__main__":
    main()
