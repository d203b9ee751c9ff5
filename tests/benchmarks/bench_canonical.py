"""What the canonical-form check adds to ``anonstudio verify`` (issue 28: at most 20 %), on Adult and yeast 6,049.

    python tests/benchmarks/bench_canonical.py [--repeat 5]

For each release (Mondrian k = 10 on Adult with ARX's hierarchies, 8 QIs; condensation k = 20 on yeast 6,049,
both made here by ``run`` into a temporary folder) it times, in one process after a warm-up, the verify
pipeline without the canonical part (read the output, judge the model: what ``verify`` did before issue 28)
and ``verify_job(rederive=False)`` (read, canonical bytes and whitelist, judge the model: ``verify
--model-only``), and prints both medians and the ratio; then ``verify_job`` as ``verify`` runs by default, which
also runs the job's method again and compares bytes (the re-derivation after the hunt, not the canonical check). Whole-process times of ``anonstudio verify`` are printed too (the process start-up is
the same in both, so the whole-command ratio is smaller).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import algorithms, io, jobs, privacy  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
ADULT_QIS = ["age", "workclass", "sex", "education", "marital-status", "native-country", "race", "salary-class"]


def _paired(a, b, repeat: int) -> tuple[float, float]:
    """Medians of ``a`` and ``b`` run alternately (a shared machine's load then weighs on both alike)."""
    a(), b()
    ta, tb = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        a()
        ta.append(time.perf_counter() - t)
        t = time.perf_counter()
        b()
        tb.append(time.perf_counter() - t)
    return statistics.median(ta), statistics.median(tb)


def _without_canonical(job: jobs.Job):
    data = jobs.load_data(job.input)
    hs, _ = jobs.load_hierarchies(job.hierarchies, data, source=job.file,
                                  required=algorithms.get(job.algorithm).needs_hierarchies)
    output = io.read_output_like(data, job.output_path, missing=job.input.missing)
    model = jobs.declared_model(job.make_algorithm(), data, job.input, job.max_suppression)
    return privacy.verify_output(model, data, output, hs)


def _jobs(folder: Path) -> dict[str, Path]:
    hier = DATA / "adult" / "hierarchies"
    adult = folder / "adult.toml"
    adult.write_text(
        f'[input]\npath = "{DATA / "adult" / "adult.csv"}"\nquasi_identifiers = {ADULT_QIS!r}\n'
        f'sensitive = ["occupation"]\n[hierarchies]\n'
        + "".join(f'"{q}" = "{hier / f"adult_hierarchy_{q}.csv"}"\n' for q in ADULT_QIS)
        + '[algorithm]\nname = "mondrian"\nk = 10\n[output]\npath = "adult.csv"\n'.replace("'", '"'))
    adult.write_text(adult.read_text().replace("'", '"'))
    yeast = folder / "yeast.toml"
    yeast.write_text(f'[input]\npath = "{DATA / "proteins" / "yeast_swissprot_6049.fasta"}"\nalphabet = "protein-25"\n'
                     '[algorithm]\nname = "condensation"\nk = 20\nseed = 1\n[output]\npath = "yeast.fasta"\n')
    return {"Adult, Mondrian k=10, 8 QIs": adult, "yeast 6,049, condensation k=20": yeast}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for title, path in _jobs(folder).items():
            job = jobs.load_job(path)
            jobs.run_job(job)
            before, after = _paired(lambda: _without_canonical(job), lambda: jobs.verify_job(job, rederive=False),
                                    args.repeat)
            _, rederived = _paired(lambda: None, lambda: jobs.verify_job(job), args.repeat)
            assert jobs.verify_job(job).passed
            whole = []
            for _ in range(3):
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "anonstudio", "verify", str(path)], check=True,
                               capture_output=True)
                whole.append(time.perf_counter() - t)
            print(f"{title}: verify without the canonical check {before:.3f} s, with it {after:.3f} s "
                  f"(+{(after / before - 1) * 100:.0f} %, medians of {args.repeat}); with the re-derivation "
                  f"(verify's default: the method run again) {rederived:.3f} s ({rederived / before:.1f}x); "
                  f"whole 'anonstudio verify' {statistics.median(whole):.2f} s")


if __name__ == "__main__":
    main()
