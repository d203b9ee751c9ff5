"""Writes the corpus cases of issue 39 item 4 (labels from a safe alphabet): one hierarchy per class of
character a label must not hold, and labels of one level that look alike. Run from this folder:
``python _make_label_cases.py``; the cases' lines are in cases.csv."""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).parent


def _table() -> str:
    rng = random.Random(39)
    rows = [f"{rng.choice(['Male', 'Female'])};{rng.randint(20, 44)};{rng.choice(['Flu', 'Cold', 'HIV'])}"
            for _ in range(40)]
    return "sex;age;disease\n" + "\n".join(rows) + "\n"


def _age(label_of) -> str:
    """An age hierarchy 20-44 in bands of 5; ``label_of(lo, hi, age)`` spells a band's label on age's row."""
    return "".join(f"{a};{label_of(a // 5 * 5, a // 5 * 5 + 4, a)};*\n" for a in range(20, 45))


def _plain(lo: int, hi: int, age: int) -> str:
    return f"{lo}-{hi}"


def _appended(suffix: str):
    # the hunt's form: the odd character on some rows of a band only, so the band splits in two classes
    return lambda lo, hi, age: f"{lo}-{hi}" + (suffix if age % 2 else "")


CASES = {
    "hierarchy-label-with-a-variation-selector": _age(_appended("\ufe0e")),
    "hierarchy-label-with-a-combining-grapheme-joiner": _age(_appended("\u034f")),
    "hierarchy-label-with-a-combining-mark-left-after-nfc": _age(_appended("\u0332")),
    "hierarchy-label-not-in-nfc": _age(lambda lo, hi, age: f"{lo}-{hi}" if lo != 30 else "30-34 ans e\u0301te\u0301"),
    "hierarchy-label-with-a-hangul-filler": _age(_appended("\u3164")),
    "hierarchy-label-with-a-braille-blank": _age(_appended("\u2800")),
    "hierarchy-label-with-a-no-break-space": _age(lambda lo, hi, age: f"{lo}-{hi}" if age % 2 else f"{lo}\u00a0-{hi}"),
    "hierarchy-label-with-a-tag-character": _age(_appended("\U000e0041")),
    "hierarchy-label-carrying-a-record": _age(
        lambda lo, hi, age: f"{lo}-{hi}" if age != 37 else f"{lo}-{hi}" + "." * 168),
    "hierarchy-labels-alike-by-a-dash": _age(lambda lo, hi, age: f"{lo}-{hi}" if age % 2 else f"{lo}\u2010{hi}"),
    "hierarchy-labels-alike-by-nfkc": _age(
        lambda lo, hi, age: f"{lo}-{hi}" if age % 2 else f"{lo}-{hi}".translate(str.maketrans("0123456789",
                                                                                              "０１２３４５６７８９"))),
    # hunt 2 (E_labels): characters no confusables subset lists; a label with characters outside ASCII is read with
    # each run of them as a wildcard, and refused when it can read as another label of its level
    "hierarchy-labels-alike-by-a-two-with-stroke": _age(
        lambda lo, hi, age: f"{lo}-{hi}" if age % 2 or lo != 20 else f"\u01bb{lo % 10}-{hi}"),
    "hierarchy-labels-alike-by-a-lao-zero": _age(
        lambda lo, hi, age: f"{lo}-{hi}" if age % 2 or lo != 20 else f"2\u0ed0-{hi}"),
    "hierarchy-labels-alike-by-a-script-g": _age(
        lambda lo, hi, age: f"{lo}-{hi}" if age % 2 or lo != 25 else f"{lo}-2\u0261"),
}


def main() -> None:
    for name, age in CASES.items():
        folder = HERE / name
        (folder / "h").mkdir(parents=True, exist_ok=True)
        (folder / "t.csv").write_text(_table(), encoding="utf-8")
        (folder / "h" / "age.csv").write_text(age, encoding="utf-8")
        (folder / "h" / "sex.csv").write_text("Female;*\nMale;*\n", encoding="utf-8")  # the project's own, not ARX's bytes
        (folder / "job.toml").write_text(
            '[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\n'
            '[hierarchies]\nage = "h/age.csv"\nsex = "h/sex.csv"\n[algorithm]\nname = "mondrian"\nk = 2\n'
            '[output]\npath = "out.csv"\n', encoding="utf-8")
    # a Cyrillic М in the sex hierarchy: 'Male' and 'Мale' look alike
    folder = HERE / "hierarchy-labels-alike-by-a-cyrillic-letter"
    (folder / "h").mkdir(parents=True, exist_ok=True)
    (folder / "t.csv").write_text(_table().replace("Male;2", "M;2").replace("Male;3", "m;3"), encoding="utf-8")
    (folder / "h" / "age.csv").write_text(_age(_plain), encoding="utf-8")
    (folder / "h" / "sex.csv").write_text("M;Male;*\nm;\u041cale;*\nFemale;Female;*\n", encoding="utf-8")
    (folder / "job.toml").write_text((HERE / "hierarchy-label-with-a-variation-selector" / "job.toml").read_text())
    # a job's own grouping: the builder's labels are checked as a file's are
    _job_grouping("job-grouping-label-with-a-variation-selector", '{ "person\ufe0f" = ["Male", "Female"] }')
    # hunt 2 (H_group_labels): groups 'any' and 'ɑny' (U+0251 LATIN SMALL LETTER ALPHA) published sex exactly
    _job_grouping("job-grouping-labels-alike-by-a-latin-alpha", '{ "any" = ["Male"], "\u0251ny" = ["Female"] }')


def _job_grouping(name: str, level: str) -> None:
    """A case whose job groups sex with one level ``level`` (a TOML inline table) of its own."""
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "t.csv").write_text(_table(), encoding="utf-8")
    (folder / "job.toml").write_text(
        '[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\n'
        f'[hierarchies]\nage = {{ intervals = [5, 10] }}\nsex = {{ groups = [{level}] }}\n'
        '[algorithm]\nname = "mondrian"\nk = 2\n[output]\npath = "out.csv"\n', encoding="utf-8")

if __name__ == "__main__":
    main()
