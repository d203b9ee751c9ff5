"""Calibration and cost of the near-copy rule for pseudo-strings (issue 28 item 3).

Run:  python tests/benchmarks/bench_near_copies.py [--quick | --only-verify] [--runs N] [--floor 0.8]

Prints, on the real protein sets of ``../shared/data/proteins`` (yeast 1,000, yeast 6,049, mouse 1,000; with
``--quick`` yeast 1,000 only):

(a) how near genuine pseudo-strings come to their inputs: condensation at k = 5, 10, 20 with the rule off
    (``near_copy_identity = 1.0``: only exact 60-residue copies are redrawn), every pseudo-string read forwards
    and reversed, windows of 60 residues; per identity θ (from ``--floor`` up; 0.85 up on yeast 6,049) how many
    genuine pseudo-strings a verifier set to θ would refuse had the method not repaired them, and the highest
    identity among the windows refused;
(b) the method at the defaults (identity 0.9, window 60): strings and symbols redrawn, verified, and CD and
    distance order beside the same run with the rule off;
(c) crafted near-copies (the channels of issue 28): per kind, how many of 200 are refused by the rule at the
    defaults (a false pass is one that is not);
(d) the verifier's cost on yeast 6,049 at k = 20 (a release the method made at the defaults, read from its file):
    the model alone and the canonical check with the model (``verify_release``, what ``anonstudio verify`` runs),
    each with and without the rule, in-process, interleaved, medians of ``--runs``; CPU against the model alone
    without the rule (``verify`` before issue 28).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import io  # noqa: E402
from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import SequenceSet  # noqa: E402
from anonstudio.core.privacy import FragmentIndex, near_copies, verify_output, verify_release  # noqa: E402
from anonstudio.core.privacy._readings import backward_readings  # noqa: E402
from anonstudio.core.privacy._strings import _translate  # noqa: E402

PROTEINS = next((p for p in (ROOT.parent / "shared" / "data" / "proteins",
                             ROOT.parent.parent / "shared" / "data" / "proteins") if p.exists()), None)
SETS = ("yeast_swissprot_1000.fasta", "yeast_swissprot_6049.fasta", "mouse_string_1000.fasta")
LEVELS = (0.8, 0.85, 0.9, 0.95)
LENGTH = 60


def readings(data: SequenceSet, out: SequenceSet) -> list:
    """The forwards and reversed readings of ``out`` as the verifier scans them (with each string's longest run
    shared with an input, which spares strings that cannot hold a near-copy)."""
    codes = _translate(data, out)[1]
    offsets = out.offsets.astype(np.int64)
    index = FragmentIndex.of(data)
    views = [("", codes)] + [(f" read {how}", v) for how, v in backward_readings(codes, offsets, data.alphabet.symbols)]
    return [(how, v, offsets, index.rare_fragments_of(v, offsets, None, 0)["shared"]) for how, v in views]


def refused(data: SequenceSet, out: SequenceSet, k: int, identity: float) -> np.ndarray:
    """Per pseudo-string, the identity of its window nearest an input among those held by 1..k-1 inputs at
    ``identity`` (0: none): what a verifier set to ``identity`` refuses. Each identity is its own scan, since a
    window's holders depend on it (within 9 edits a stretch may be held by k inputs, within 6 by fewer)."""
    best = np.zeros(len(out))
    for hit in near_copies(data, readings(data, out), k, identity, LENGTH):
        best[hit["string"]] = 1 - hit["edits"] / LENGTH
    return best


def part_a(sets: dict[str, SequenceSet], floor: float) -> None:
    print(f"(a) genuine pseudo-strings (rule off), windows of {LENGTH}: strings a verifier at each identity would "
          "refuse (a window held by 1..k-1 inputs, forwards or reversed), and the highest identity of those")
    print(f"    {'set':<28}{'k':>3}{'strings':>9}" + "".join(f"{'at ' + format(x, 'g'):>9}" for x in LEVELS)
          + f"{'highest':>9}{'s':>7}")
    for name, data in sets.items():
        for k in (5, 10, 20):
            t = time.perf_counter()
            out = get("condensation")(k=k, near_copy_identity=1.0).run(data, {}).output
            low = max(floor, 0.85) if len(data) > 2000 else floor  # below 0.85 the 6,049 scans take minutes
            counts, highest = [], 0.0
            for level in LEVELS:
                if level < low:
                    counts.append("-")
                    continue
                best = refused(data, out, k, level)
                counts.append(int((best > 0).sum()))
                highest = max(highest, float(best.max()))
            print(f"    {name:<28}{k:>3}{len(out):>9}" + "".join(f"{c:>9}" for c in counts)
                  + f"{highest:>9.3f}{time.perf_counter() - t:>7.1f}", flush=True)


def part_b(sets: dict[str, SequenceSet]) -> None:
    print("(b) the method at the defaults (identity 0.9, window 60) beside the rule off")
    print(f"    {'set':<28}{'k':>3}{'repaired':>9}{'symbols':>9}{'verified':>9}{'CD on/off':>19}{'order on/off':>16}")
    for name, data in sets.items():
        for k in (5, 10, 20):
            from anonstudio.core import jobs

            on = jobs.anonymize(data, {}, get("condensation")(k=k))
            off = jobs.anonymize(data, {}, get("condensation")(k=k, near_copy_identity=1.0))
            m, r = on.report["metrics"], on.result.metrics
            print(f"    {name:<28}{k:>3}{r['near_copy_strings_drawn']:>9}{r['near_copy_symbols_redrawn']:>9}"
                  f"{str(on.verification.passed):>9}{m['CD']:>10.5f}/{off.report['metrics']['CD']:.5f}"
                  f"{m['distance_order_preserved']:>9.3f}/{off.report['metrics']['distance_order_preserved']:.3f}",
                  flush=True)


def _every(s: str, step: int) -> str:
    out = list(s)
    for i in range(step - 1, len(out), step):
        out[i] = "G" if out[i] != "G" else "A"
    return "".join(out)


def part_c(data: SequenceSet) -> None:
    """Crafted copies of 200 inputs (of at least 120 residues) refused at the defaults, by kind."""
    rng = random.Random(28)
    strings = data.strings()
    pool = [i for i in range(len(data)) if len(strings[i]) >= 120]
    chosen = rng.sample(pool, 200)
    genuine = get("condensation")(k=5).run(data, {}).output.strings()
    long_genuine = [s for s in genuine if len(s) >= 200]

    def indels(s: str) -> str:
        a, b, c = sorted(rng.sample(range(5, len(s) - 5), 3))
        return _every(s[:a] + "W" + s[a:b] + s[b + 2:c] + "HK" + s[c:], 19)

    def window(s: str) -> str:
        host = list(rng.choice(long_genuine))
        at = rng.randrange(0, len(s) - 60)
        pos = rng.randrange(0, len(host) - 60)
        host[pos:pos + 60] = _every(s[at:at + 60], 19)
        return "".join(host)

    kinds = {"copy, a substitution every 19": lambda s: _every(s, 19),
             "copy, 3 insertions + 3 deletions + every 19": indels,
             "reversed copy, every 19": lambda s: _every(s, 19)[::-1],
             "60-residue near-copy inside a genuine pseudo-string": window,
             "copy, a substitution every 12": lambda s: _every(s, 12),
             "copy, a substitution every 8 (identity ≤ 0.88: not caught)": lambda s: _every(s, 8)}
    print("(c) crafted near-copies of 200 yeast inputs at the defaults (identity 0.9, window 60, k = 5): refused, "
          "passed because k or more inputs hold the stretch (it names none), false passes")
    for kind, make in kinds.items():
        crafted = SequenceSet.from_strings([make(strings[i]) for i in chosen], alphabet=data.alphabet)
        _tally(kind, data, crafted)
    dna_rng = np.random.default_rng(5)
    dna = ["".join("ACGT"[c] for c in dna_rng.integers(0, 4, 300)) for _ in range(400)]
    original = SequenceSet.from_strings(dna, alphabet="dna")
    comp = str.maketrans("ACGT", "TGCA")
    for kind, make in {"DNA complemented, every 19": lambda s: _every(s, 19).translate(comp),
                       "DNA reverse-complemented, every 19": lambda s: _every(s, 19).translate(comp)[::-1]}.items():
        crafted = SequenceSet.from_strings([make(dna[i]) for i in range(200)], alphabet="dna")
        _tally(kind, original, crafted)


def _tally(kind: str, data: SequenceSet, crafted: SequenceSet) -> None:
    """Refused at k = 5; of the rest, those a verifier with no k (every holder counts) would refuse with 5 or
    more holders are stretches k inputs share; what remains passes falsely."""
    refused = {hit["string"] for hit in near_copies(data, readings(data, crafted), 5, 0.9, LENGTH)}
    shared = {hit["string"] for hit in near_copies(data, readings(data, crafted), 10**9, 0.9, LENGTH)
              if hit["string"] not in refused and hit["holders"] >= 5}
    rest = len(crafted) - len(refused) - len(shared)
    print(f"    {kind:<58}{len(refused):>4} refused{len(shared):>4} held by ≥ k{rest:>5} false passes")


def part_d(runs: int) -> None:
    data = io.read_fasta(PROTEINS / "yeast_swissprot_6049.fasta")
    method = get("condensation")(k=20)
    path = _write(method.run(data, {}).output)
    spec = method.privacy_model()
    without = {key: value for key, value in spec.items() if not key.startswith("near_copy")}
    variants = {
        # what verify did before issue 28 (items 1 and 3): read the release, judge the model
        "read + model, no rule": lambda fresh: verify_output(without, fresh, io.read_output_like(fresh, path)),
        "read + model + rule": lambda fresh: verify_output(spec, fresh, io.read_output_like(fresh, path)),
        # verify_release: canonical bytes and whitelist, then the model (what `anonstudio verify` runs now)
        "canonical + model, no rule": lambda fresh: verify_release(without, fresh, path),
        "canonical + model + rule": lambda fresh: verify_release(spec, fresh, path),
    }
    times: dict[str, list] = {label: [] for label in variants}
    for _ in range(runs):
        for label, check in variants.items():
            fresh = io.read_fasta(PROTEINS / "yeast_swissprot_6049.fasta")  # no index or scan kept from before
            t, c = time.perf_counter(), time.process_time()
            verdict = check(fresh)
            times[label].append((time.perf_counter() - t, time.process_time() - c))
            assert verdict.passed, verdict.summary()
    print(f"(d) verifying yeast 6,049, k = 20 (a release made at the defaults, read from its file), in-process, "
          f"medians of {runs}, interleaved")
    base = statistics.median(v[1] for v in times["read + model, no rule"])
    for label, values in times.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(f"    {label:<28} {wall:6.2f} s wall  {cpu:6.2f} s CPU  ({(cpu / base - 1) * 100:+.0f} % CPU)")


def _write(out: SequenceSet) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "release.fasta"
    io.write_fasta(out, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="yeast 1,000 only, no verifier timing")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--floor", type=float, default=0.8, help="lowest identity searched in (a)")
    parser.add_argument("--only-verify", action="store_true", help="(d) alone")
    args = parser.parse_args()
    if PROTEINS is None:
        print("../shared/data/proteins is absent: nothing to calibrate on")
        return
    if args.only_verify:
        part_d(args.runs)
        return
    names = SETS[:1] if args.quick else SETS
    sets = {name: io.read_fasta(PROTEINS / name) for name in names}
    part_a(sets, args.floor)
    part_b(sets)
    part_c(sets[SETS[0]])
    if not args.quick:
        part_d(args.runs)


if __name__ == "__main__":
    main()
