"""Development tool: measure the real data sets once and write the compact probability tables the
generators use (``anonstudio/core/generate/_tables.py``).

The generators never read ``../shared/data``; this script is how their hard-coded tables were made, so
they can be re-derived and checked. Run from the repository root with the development venv::

    /work/venv/bin/python anonstudio/resources/demo/derive_tables.py [--shared DIR] [--out FILE]

It reads ``adult/adult.csv`` (UCI Adult, ARX's cleaned copy) and
``proteins/yeast_swissprot_6049.fasta`` (Swiss-Prot yeast proteins) and stores only aggregate counts:
marginal and conditional frequency tables of Adult, amino-acid bigram counts and the log-length moments of
the yeast proteins. No record of either data set is copied.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "anonstudio" / "core" / "generate" / "_tables.py"

SEX = ["Male", "Female"]
AGES = list(range(17, 91))
AGE_BAND_EDGES = [17, 25, 35, 45, 55, 65, 91]
RACE = ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"]
MARITAL = ["Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
           "Married-spouse-absent", "Married-AF-spouse"]
EDUCATION = ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
             "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"]
EDU_GROUP = {"Preschool": 0, "1st-4th": 0, "5th-6th": 0, "7th-8th": 0, "9th": 0, "10th": 1, "11th": 1,
             "12th": 1, "HS-grad": 2, "Some-college": 3, "Assoc-voc": 4, "Assoc-acdm": 4, "Bachelors": 5,
             "Masters": 6, "Prof-school": 6, "Doctorate": 6}
COUNTRY = ["United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada", "India",
           "El-Salvador", "Cuba", "England", "Jamaica", "South", "Italy", "China", "Dominican-Republic",
           "Vietnam", "Guatemala", "Japan", "Poland", "Columbia", "Iran", "Taiwan", "Haiti", "Portugal",
           "Nicaragua", "Peru", "Greece", "Ecuador", "France", "Ireland", "Hong", "Cambodia",
           "Trinadad&Tobago", "Thailand", "Laos", "Yugoslavia", "Outlying-US(Guam-USVI-etc)", "Hungary",
           "Honduras", "Scotland", "Holand-Netherlands"]
WORKCLASS = ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov",
             "Without-pay", "Never-worked"]
OCCUPATION = ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
              "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
              "Priv-house-serv", "Protective-serv", "Armed-Forces"]
SALARY = ["<=50K", ">50K"]
AMINO = "ACDEFGHIKLMNPQRSTVWY"


def counts(df: pd.DataFrame, by: list[str], col: str, values: list, shape: tuple[int, ...]) -> np.ndarray:
    """Integer count array ``shape + (len(values),)`` of ``col`` given the integer-coded columns ``by``."""
    out = np.zeros(shape + (len(values),), dtype=np.int64)
    index = {v: i for i, v in enumerate(values)}
    key = tuple(df[b].to_numpy() for b in by)
    np.add.at(out, key + (df[col].map(index).to_numpy(),), 1)
    return out


def adult_tables(path: Path) -> dict[str, np.ndarray]:
    df = pd.read_csv(path, sep=";", dtype=str)
    df["_sex"] = df["sex"].map({v: i for i, v in enumerate(SEX)})
    df["_age"] = df["age"].astype(int)
    df["_band"] = np.searchsorted(AGE_BAND_EDGES, df["_age"], side="right") - 1
    df["_edu"] = df["education"].map(EDU_GROUP)
    df["_married"] = df["marital-status"].isin(["Married-civ-spouse", "Married-AF-spouse"]).astype(int)
    df["_occ"] = df["occupation"].map({v: i for i, v in enumerate(OCCUPATION)})
    df["_race"] = df["race"].map({v: i for i, v in enumerate(RACE)})
    return {
        "ADULT_SEX": counts(df, [], "sex", SEX, ()),
        "ADULT_AGE_GIVEN_SEX": counts(df, ["_sex"], "_age", AGES, (2,)),
        "ADULT_MARITAL_GIVEN_SEX_BAND": counts(df, ["_sex", "_band"], "marital-status", MARITAL, (2, 6)),
        "ADULT_EDUCATION_GIVEN_SEX_BAND": counts(df, ["_sex", "_band"], "education", EDUCATION, (2, 6)),
        "ADULT_OCCUPATION_GIVEN_SEX_EDU": counts(df, ["_sex", "_edu"], "occupation", OCCUPATION, (2, 7)),
        "ADULT_WORKCLASS_GIVEN_OCCUPATION": counts(df, ["_occ"], "workclass", WORKCLASS, (14,)),
        "ADULT_RACE": counts(df, [], "race", RACE, ()),
        "ADULT_COUNTRY_GIVEN_RACE": counts(df, ["_race"], "native-country", COUNTRY, (5,)),
        "ADULT_SALARY_GIVEN_EDU_MARRIED_BAND": counts(df, ["_edu", "_married", "_band"], "salary-class", SALARY, (7, 2, 6)),
    }


def read_fasta(path: Path) -> list[str]:
    seqs, cur = [], []
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            if cur:
                seqs.append("".join(cur))
            cur = []
        else:
            cur.append(line.strip())
    if cur:
        seqs.append("".join(cur))
    return seqs


def protein_tables(path: Path) -> dict:
    seqs = read_fasta(path)
    index = {a: i for i, a in enumerate(AMINO)}
    bigrams = np.zeros((20, 20), dtype=np.int64)
    first = np.zeros(20, dtype=np.int64)
    for s in seqs:
        codes = np.array([index.get(c, -1) for c in s])
        if codes[0] >= 0:
            first[codes[0]] += 1
        ok = (codes[:-1] >= 0) & (codes[1:] >= 0)
        np.add.at(bigrams, (codes[:-1][ok], codes[1:][ok]), 1)
    logs = np.log([len(s) for s in seqs])
    return {
        "AA_FIRST": first,
        "AA_BIGRAMS": bigrams,
        "YEAST_LOG_LENGTH_MEAN": round(float(logs.mean()), 4),
        "YEAST_LOG_LENGTH_SD": round(float(logs.std()), 4),
    }


def literal(value) -> str:
    if isinstance(value, np.ndarray):
        return repr(value.tolist()).replace("], [", "],\n    [")
    return repr(value)


def render(shared: Path) -> str:
    """The text of ``_tables.py`` measured from the data under ``shared``."""
    tables = {**adult_tables(shared / "adult" / "adult.csv"),
              **protein_tables(shared / "proteins" / "yeast_swissprot_6049.fasta")}
    lines = [
        '"""Aggregate frequency tables measured from public data (generated by anonstudio/resources/demo/derive_tables.py;',
        'do not edit by hand).',
        "",
        "ADULT_*: counts from UCI Adult (ARX's cleaned copy, 30,162 records); AA_*/YEAST_*: amino-acid bigram",
        "counts and log-length moments of the 6,049 reviewed Swiss-Prot S. cerevisiae proteins.",
        '"""',
        "",
        "# fmt: off",
    ]
    for name, value in tables.items():
        lines.append(f"{name} = {literal(value)}")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="measure the generators' tables from ../shared/data")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.write_text(render(args.shared))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
