"""Regenerate the bundled demo folder (``anonstudio/resources/demo``) from the seeded generators.

Run from the repository root::

    python anonstudio/resources/demo/make_demo.py            # rewrites anonstudio/resources/demo in place
    python anonstudio/resources/demo/make_demo.py --out DIR  # writes the same files into DIR

Every file it writes is a pure function of the seeds below, so the output is byte-for-byte the committed
demo (a test checks this). Nothing here is edited by hand: change this script and re-run it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from anonstudio.core import generate as gen  # noqa: E402
from anonstudio.core.io import atomic_write, write_events, write_fasta, write_hierarchy, write_table  # noqa: E402

SEED = 2026
ADULT_ROWS = 2000
PROTEINS_PER_CLASS = 150
PROTEIN_MEAN_LENGTH = 200
PROTEIN_MAX_LENGTH = 500
EVENT_SEQUENCES = 300
EVENT_MEAN = 5
QUEST_PER_CLASS = 150
QUEST_T, QUEST_I, QUEST_ITEMS = 20, 4, 20

TABLE_QIS = ["age", "workclass", "sex", "education", "occupation"]


def _toml_list(values) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def _job_text(title: str, comment: str, qis: list[str], sensitive: str, hierarchies: list[str], algorithm: list[str],
              stem: str) -> str:
    """A demo job on ``adult-sample.csv``: roles, hierarchy files (if any), the method and its outputs."""
    return "\n".join([
        f"# {title}",
        f"# Adult-like sample (make_demo.py); {comment}",
        "[input]",
        'path = "adult-sample.csv"',
        f"quasi_identifiers = {_toml_list(qis)}",
        f'sensitive = ["{sensitive}"]',
        "",
        *(["[hierarchies]", *hierarchies, ""] if hierarchies else []),
        "[algorithm]",
        *algorithm,
        "",
        "[output]",
        f'path = "results/{stem}.csv"',
        f'report = "results/{stem}.report.json"',
        "",
    ])


def _table_job(title: str, algorithm: list[str], stem: str) -> str:
    hier = [f'{c} = "hierarchies/adult_hierarchy_{c}.csv"' for c in TABLE_QIS]
    return _job_text(title, "quasi-identifiers and hierarchies as in the MST paper (002).", TABLE_QIS, "salary-class",
                     hier, algorithm, stem)


def _safepub_job() -> str:
    """SafePub publishes quasi-identifiers only, in a random row order: the other columns are identifying (left
    out) and the rows shuffled. No seed is written: the sampling and the order are drawn from the user's release
    key (made on first use), so ``anonstudio verify`` re-derives the release where that key is, and nobody else
    replays it."""
    others = [c for c in gen.ADULT_COLUMNS if c not in TABLE_QIS]
    text = _table_job(
        "(ε, δ)-differential privacy by random sampling and full-domain generalization, ε = 2, δ = 1e-4 (SafePub). "
        "On 2,000 records\n# the search (ε = 0.5 of the 2) is close to a random pick: the level floors, fixed "
        "without looking at the data,\n# keep it among transformations that publish most records.",
        ['name = "safepub"', "epsilon = 2.0", "delta = 1e-4", "epsilon_search = 0.5", "steps = 20",
         "min_level = { age = 2, education = 2, workclass = 1, occupation = 1 }"],
        "adult-safepub-e2")
    text = text.replace('sensitive = ["salary-class"]', f"identifying = {_toml_list(others)}")
    return text.replace("[output]\n", "[output]\nshuffle_rows = true\n")


def _unhierarchied_job(title: str, algorithm: list[str], stem: str) -> str:
    """A table job as paper 001 sets it up: occupation sensitive, every other column quasi-identifying; RA and
    Anatomy publish values as read, so no hierarchies."""
    qis = [c for c in gen.ADULT_COLUMNS if c != "occupation"]
    return _job_text(title, "occupation sensitive, the other columns quasi-identifiers (001, §7.1).", qis, "occupation",
                     [], algorithm, stem)


def _string_job(title: str, data: str, stem: str, algorithm: list[str]) -> str:
    return "\n".join([
        f"# {title}",
        "[input]",
        f'path = "{data}"',
        'alphabet = "protein-20"',
        'label_pattern = "class=([A-Z])"',
        "",
        "[algorithm]",
        *algorithm,
        "",
        "[output]",
        f'path = "results/{stem}.fasta"',
        f'report = "results/{stem}.report.json"',
        "",
    ])


def jobs() -> dict[str, str]:
    """The demo jobs: one per method family (cli-contract.md job format; outputs under results/)."""
    qis = list(gen.EVENT_QIS)
    events_hier = "\n".join(f'{c} = "hierarchies/events_hierarchy_{c}.csv"' for c in qis)
    return {
        "table-mst.toml": _table_job(
            "MST-based local recoding to 5-anonymity (Ramana & Kumari, 002).",
            ['name = "mst"', "k = 5"], "adult-mst-k5"),
        "table-mondrian.toml": _table_job(
            "Mondrian multidimensional partitioning to 10-anonymity (baseline of 002).",
            ['name = "mondrian"', "k = 10"], "adult-mondrian-k10"),
        "table-kmember.toml": _table_job(
            "Greedy k-member clustering to 5-anonymity (baseline of 002).",
            ['name = "kmember"', "k = 5"], "adult-kmember-k5"),
        "table-global.toml": _table_job(
            "Global (full-domain) recoding to 5-anonymity, the lattice optimum for ARX's Loss, at most 10 % "
            "suppressed (Flash / OLA).",
            ['name = "global"', "k = 5", 'quality = "loss"', "max_suppression = 0.1"], "adult-global-k5"),
        "table-safepub.toml": _safepub_job(),
        "table-ra.toml": _unhierarchied_job(
            "Random anonymization, one quasi-identifier per record redrawn, entropy weights (Yang & Qiao, 001).\n"
            "# NOT safe to publish, and the verdict says so: RA promises no k, and about 15 % of these records are\n"
            "# singled out by a near match (exactly one published record within one changed quasi-identifier of\n"
            "# their values, and it is theirs; issue 39), their occupations certain; the rows also keep the input's\n"
            "# order. It shows paper 001's method and its limits; publish with a partitioning job instead.",
            ['name = "ra"', 'weights = "entropy"'], "adult-ra"),
        "table-anatomy.toml": _unhierarchied_job(
            "Anatomy: quasi-identifiers and occupations in two tables linked by 5-diverse groups (baseline of 001).",
            ['name = "anatomy"', "l = 5"], "adult-anatomy-l5"),
        "proteins-condensation.toml": _string_job(
            "Condensation of protein-like strings, groups of 10, order-2 statistics (Aggarwal & Yu, 000).",
            "proteins.fasta", "proteins-condensation-k10",
            ['name = "condensation"', "k = 10", "epsilon = 1.5", "order = 2"]),
        "quest-condensation.toml": _string_job(
            "Condensation of two-class Quest item sequences V20.I4 (Aggarwal & Yu, 000 §5.1).",
            "quest.fasta", "quest-condensation-k10",
            ['name = "condensation"', "k = 10", "epsilon = 1.5", "order = 2"]),
        "events-cbmsa.toml": "\n".join([
            "# CBMSA: (5, 0.7)-privacy for HHP-like visit sequences (Sehatkar & Matwin, 004).",
            "[input]",
            'path = "events.csv"',
            'format = "events"',
            'sequence_id = "PID"',
            'event_order = "VID"',
            f"quasi_identifiers = {_toml_list(qis)}",
            'sensitive = ["Disease"]',
            "",
            "[hierarchies]",
            events_hier,
            "",
            "[algorithm]",
            'name = "cbmsa"',
            "k = 5",
            "c = 0.7",
            f"highly_sensitive = {_toml_list(gen.HIGHLY_SENSITIVE)}",
            "",
            "[output]",
            "# sequences in a random order (in the input's order they link to their persons); the order comes from your",
            "# release key (never written here), so `anonstudio verify` re-checks it and a rerun gives the same bytes",
            "shuffle_rows = true",
            'path = "results/events-cbmsa-k5.csv"',
            'report = "results/events-cbmsa-k5.report.json"',
            "",
        ]),
    }


README = """# anonstudio demo data

Generated by `make_demo.py` (seed {seed}) from `anonstudio.core.generate`; do not edit by hand.
`anonstudio demo` copies this folder and runs every `*.toml` job in it; results go to `results/`.

| file | what |
|---|---|
| `adult-sample.csv` | {rows} rows, `;`-separated, Adult-like (columns and joint structure of UCI Adult) |
| `hierarchies/adult_hierarchy_<column>.csv` | ARX hierarchies of every Adult column |
| `proteins.fasta` | {proteins} protein-like strings, two classes (`class=A` yeast-like, `class=B` more hydrophobic) |
| `events.csv` | {events} HHP-like patients (PID, VID, AdmYr, ZIP, DSFC, LOS, Disease), about {mean} visits each |
| `hierarchies/events_hierarchy_<column>.csv` | hierarchies of AdmYr, ZIP, DSFC, LOS |
| `quest.fasta` | {quest} Quest sequences V{t}.I{i}, two classes (two generator seeds), items as letters |
| `*.toml` | one job per method family |

No job here writes a seed. The draws whose secrecy a guarantee needs (RA's, SafePub's, Anatomy's, condensation's,
the row shuffle) come from your own release key, made on first use (`anonstudio key` shows its file and
fingerprint). k-member's seed only picks the record its first cluster starts from (its default, 1, is used).
"""


def make_demo(out: Path) -> list[Path]:
    """Write every demo file into ``out``; returns the paths written."""
    out = Path(out)
    written: list[Path] = []
    table = gen.adult_like_table(ADULT_ROWS, SEED)
    written.append(write_table(table, out / "adult-sample.csv", delimiter=";"))
    for col, h in gen.adult_hierarchies().items():
        written.append(write_hierarchy(h, out / "hierarchies" / f"adult_hierarchy_{col}.csv"))

    ids, seqs, labels = gen.labelled_proteins(
        PROTEINS_PER_CLASS, SEED, classes=2, mean_length=PROTEIN_MEAN_LENGTH, max_length=PROTEIN_MAX_LENGTH
    )
    headers = [f"{i} class={lab}" for i, lab in zip(ids, labels)]
    written.append(write_fasta(headers, seqs, out / "proteins.fasta"))

    events = gen.hhp_events(EVENT_SEQUENCES, EVENT_MEAN, len(gen.EVENT_QIS), SEED)
    written.append(write_events(events, out / "events.csv", delimiter=","))
    for col, h in gen.event_hierarchies().items():
        written.append(write_hierarchy(h, out / "hierarchies" / f"events_hierarchy_{col}.csv"))

    quest, qlabels = gen.labelled_quest(QUEST_PER_CLASS, QUEST_T, QUEST_I, QUEST_ITEMS, SEED, classes=2)
    qheaders = [f"q{i + 1} class={lab}" for i, lab in enumerate(qlabels)]
    written.append(write_fasta(qheaders, ["".join(s) for s in quest], out / "quest.fasta"))

    for name, text in jobs().items():
        with atomic_write(out / name, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        written.append(out / name)
    readme = README.format(
        seed=SEED, rows=ADULT_ROWS, proteins=2 * PROTEINS_PER_CLASS, events=EVENT_SEQUENCES, mean=EVENT_MEAN,
        quest=2 * QUEST_PER_CLASS, t=QUEST_T, i=QUEST_I,
    )
    with atomic_write(out / "README.md", "w", encoding="utf-8", newline="") as fh:
        fh.write(readme)
    written.append(out / "README.md")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write (default: this folder)")
    args = parser.parse_args(argv)
    paths = make_demo(args.out)
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files, {total / 1024:.0f} KiB, into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
