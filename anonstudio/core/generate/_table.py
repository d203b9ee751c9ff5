"""Adult-like census tables: the columns, categories and joint structure of UCI Adult, any size.

The rows are drawn from a small Bayesian network whose conditional tables were measured from UCI Adult
(ARX's cleaned copy, 30,162 records; see ``anonstudio/resources/demo/derive_tables.py``)::

    sex → age → marital-status            (marital-status | sex, age band)
    sex, age band → education
    sex, education group → occupation → workclass
    race → native-country
    education group, married, age band → salary-class

so the familiar correlations hold: older people are more often married or widowed, education drives
occupation and salary, women are over-represented in clerical and service occupations, and married
people with a degree most often earn >50K. This is the data set of the RA paper (001) and of the MST paper
(002), which use age, workclass, sex, education and occupation as quasi-identifiers.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from anonstudio.core.data import is_number
from anonstudio.core.errors import ParameterError
from anonstudio.core.generate import _tables as T
from anonstudio.core.generate._common import (
    conditional_cdf,
    draw_conditional,
    hierarchies_of,
    int_strings,
    interval_rows,
    make_rng,
)
from anonstudio.core.hierarchy import Hierarchy

#: Column order of ARX's ``adult.csv``.
ADULT_COLUMNS = (
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
    "salary-class",
)

SEX = ("Male", "Female")
AGES = tuple(range(17, 91))
AGE_BAND_EDGES = (17, 25, 35, 45, 55, 65, 91)
RACE = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")
MARITAL = ("Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed", "Married-spouse-absent",
           "Married-AF-spouse")
EDUCATION = ("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
             "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate")
#: education → group used to condition occupation and salary (primary, some high school, HS-grad,
#: some college, associate, bachelors, graduate).
EDU_GROUP = (0, 0, 0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 5, 6, 6, 6)
COUNTRY = ("United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada", "India", "El-Salvador",
           "Cuba", "England", "Jamaica", "South", "Italy", "China", "Dominican-Republic", "Vietnam", "Guatemala",
           "Japan", "Poland", "Columbia", "Iran", "Taiwan", "Haiti", "Portugal", "Nicaragua", "Peru", "Greece",
           "Ecuador", "France", "Ireland", "Hong", "Cambodia", "Trinadad&Tobago", "Thailand", "Laos",
           "Yugoslavia", "Outlying-US(Guam-USVI-etc)", "Hungary", "Honduras", "Scotland", "Holand-Netherlands")
WORKCLASS = ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov",
             "Without-pay", "Never-worked")
OCCUPATION = ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
              "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
              "Priv-house-serv", "Protective-serv", "Armed-Forces")
SALARY = ("<=50K", ">50K")

# Category groupings of ARX's Adult hierarchies (level 1, then level 2 where there is one; root "*").
_EDUCATION_GROUPS = {
    "Bachelors": ("Undergraduate", "Higher education"), "Some-college": ("Undergraduate", "Higher education"),
    "Prof-school": ("Professional Education", "Higher education"),
    "Assoc-acdm": ("Professional Education", "Higher education"),
    "Assoc-voc": ("Professional Education", "Higher education"),
    "Masters": ("Graduate", "Higher education"), "Doctorate": ("Graduate", "Higher education"),
    "HS-grad": ("High School", "Secondary education"), "12th": ("High School", "Secondary education"),
    "11th": ("High School", "Secondary education"), "10th": ("High School", "Secondary education"),
    "9th": ("High School", "Secondary education"), "7th-8th": ("High School", "Secondary education"),
    "5th-6th": ("Primary School", "Primary education"), "1st-4th": ("Primary School", "Primary education"),
    "Preschool": ("Primary School", "Primary education"),
}
_MARITAL_GROUPS = {
    "Married-civ-spouse": "spouse present", "Married-AF-spouse": "spouse present",
    "Divorced": "spouse not present", "Never-married": "spouse not present", "Separated": "spouse not present",
    "Widowed": "spouse not present", "Married-spouse-absent": "spouse not present",
}
_REGIONS = {
    "North America": ("United-States", "Puerto-Rico", "Canada", "Outlying-US(Guam-USVI-etc)", "Cuba", "Honduras",
                      "Jamaica", "Mexico", "Dominican-Republic", "Haiti", "Guatemala", "El-Salvador"),
    "South America": ("Ecuador", "Columbia", "Nicaragua", "Trinadad&Tobago", "Peru"),
    "Europe": ("England", "Germany", "Greece", "Italy", "Poland", "Portugal", "Ireland", "France", "Hungary",
               "Scotland", "Yugoslavia", "Holand-Netherlands"),
    "Asia": ("Cambodia", "India", "Japan", "China", "Iran", "Philippines", "Vietnam", "Laos", "Taiwan",
             "Thailand", "Hong"),
    "Africa": ("South",),
}
_WORKCLASS_GROUPS = {
    "Private": "Non-Government", "Self-emp-not-inc": "Non-Government", "Self-emp-inc": "Non-Government",
    "Federal-gov": "Government", "Local-gov": "Government", "State-gov": "Government",
    "Without-pay": "Unemployed", "Never-worked": "Unemployed",
}
_OCCUPATION_GROUPS = {
    "Tech-support": "Technical", "Craft-repair": "Technical", "Prof-specialty": "Technical",
    "Machine-op-inspct": "Technical", "Sales": "Nontechnical", "Exec-managerial": "Nontechnical",
    "Handlers-cleaners": "Nontechnical", "Other-service": "Other", "Adm-clerical": "Other",
    "Farming-fishing": "Other", "Transport-moving": "Other", "Priv-house-serv": "Other",
    "Protective-serv": "Other", "Armed-Forces": "Other",
}


@lru_cache(maxsize=1)
def _cdfs() -> dict[str, np.ndarray]:
    return {
        "sex": conditional_cdf(T.ADULT_SEX),
        "age": conditional_cdf(T.ADULT_AGE_GIVEN_SEX),
        "marital": conditional_cdf(T.ADULT_MARITAL_GIVEN_SEX_BAND),
        "education": conditional_cdf(T.ADULT_EDUCATION_GIVEN_SEX_BAND),
        "occupation": conditional_cdf(T.ADULT_OCCUPATION_GIVEN_SEX_EDU),
        "workclass": conditional_cdf(T.ADULT_WORKCLASS_GIVEN_OCCUPATION),
        "race": conditional_cdf(T.ADULT_RACE),
        "country": conditional_cdf(T.ADULT_COUNTRY_GIVEN_RACE),
        "salary": conditional_cdf(T.ADULT_SALARY_GIVEN_EDU_MARRIED_BAND),
    }


def adult_like_table(n: int, seed: int | np.random.Generator = 0) -> pd.DataFrame:
    """An Adult-like table of ``n`` rows.

    Parameters
    ----------
    n:
        Number of rows (≥ 1).
    seed:
        Seed of the numpy generator; the same seed gives the same table.

    Returns
    -------
    pandas.DataFrame
        Columns ``sex;age;race;marital-status;education;native-country;workclass;occupation;salary-class``
        (ARX's ``adult.csv`` order), every cell a string, no missing values. Ages are 17–90, the range of
        Adult; categories are Adult's (``Never-worked`` is never drawn, as in the cleaned data).
    """
    n = int(n)
    if n < 1:
        raise ParameterError(f"the number of rows must be at least 1, got {n}", column="rows")
    rng = make_rng(seed)
    c = _cdfs()
    sex = draw_conditional(rng, c["sex"], None, n)
    age = np.asarray(AGES)[draw_conditional(rng, c["age"], sex, n)]
    band = np.searchsorted(AGE_BAND_EDGES, age, side="right") - 1
    marital = draw_conditional(rng, c["marital"], sex * 6 + band, n)
    education = draw_conditional(rng, c["education"], sex * 6 + band, n)
    edu_group = np.asarray(EDU_GROUP)[education]
    occupation = draw_conditional(rng, c["occupation"], sex * 7 + edu_group, n)
    workclass = draw_conditional(rng, c["workclass"], occupation, n)
    race = draw_conditional(rng, c["race"], None, n)
    country = draw_conditional(rng, c["country"], race, n)
    married = (marital == 0) | (marital == 6)
    salary = draw_conditional(rng, c["salary"], edu_group * 12 + married * 6 + band, n)

    def cat(values: tuple[str, ...], codes: np.ndarray) -> np.ndarray:
        return np.asarray(values, dtype=object)[codes]

    return pd.DataFrame(
        {
            "sex": cat(SEX, sex),
            "age": int_strings(age),
            "race": cat(RACE, race),
            "marital-status": cat(MARITAL, marital),
            "education": cat(EDUCATION, education),
            "native-country": cat(COUNTRY, country),
            "workclass": cat(WORKCLASS, workclass),
            "occupation": cat(OCCUPATION, occupation),
            "salary-class": cat(SALARY, salary),
        },
        columns=list(ADULT_COLUMNS),
    )


def adult_hierarchy_rows() -> dict[str, list[list[str]]]:
    """ARX-style hierarchy rows for every Adult column (leaf first, root ``*`` last).

    The structure is ARX's: age in 5-, 10- and 20-year bands (over 17–90, the generator's range),
    education → school level → education level, marital-status → spouse present / not present,
    native-country → continent, workclass → government / non-government / unemployed, occupation →
    technical / nontechnical / other; sex, race and salary-class go straight to ``*``. Rows are listed
    by leaf, sorted.
    """
    rows = {
        "sex": [[v, "*"] for v in SEX],
        "age": interval_rows(AGES, (5, 10, 20), style="arx"),
        "race": [[v, "*"] for v in RACE],
        "marital-status": [[v, _MARITAL_GROUPS[v], "*"] for v in MARITAL],
        "education": [[v, *_EDUCATION_GROUPS[v], "*"] for v in EDUCATION],
        "native-country": [[c, region, "*"] for region, members in _REGIONS.items() for c in members],
        "workclass": [[v, _WORKCLASS_GROUPS[v], "*"] for v in WORKCLASS],
        "occupation": [[v, _OCCUPATION_GROUPS[v], "*"] for v in OCCUPATION],
        "salary-class": [[v, "*"] for v in SALARY],
    }
    # leaves in sorted order (numbers numerically): the files are this generator's, not copies of ARX's
    return {c: sorted(r, key=lambda row: (0, float(row[0]), "") if is_number(row[0]) else (1, 0.0, row[0]))
            for c, r in rows.items()}


def adult_hierarchies(columns=None) -> dict[str, Hierarchy]:
    """:class:`Hierarchy` objects for the Adult-like columns (all of them by default).

    Every value :func:`adult_like_table` can produce is a leaf of its column's hierarchy.
    """
    return hierarchies_of(adult_hierarchy_rows(), columns, ADULT_COLUMNS, "Adult-like column")


#: the diagnoses of :func:`visits_table` (its sensitive column), most frequent first
DIAGNOSES = ("hypertension", "diabetes", "asthma", "influenza", "back pain", "depression", "migraine", "fracture")


def visits_table(people: int, max_visits: int = 6, seed: int | np.random.Generator = 0) -> pd.DataFrame:
    """A visits table: ``people`` Adult-like people (:func:`adult_like_table`), each with 1..``max_visits`` records
    (uniform), the person's quasi-identifiers repeated on every record — the shape of health data (visits,
    prescriptions, claims) that a count of records mistakes for many people (issue 39). Columns ``patient_id``
    (``p<n>``, the person), the Adult columns and ``diagnosis`` (one per visit; a person's visits tend to repeat
    theirs). Rows are grouped by person, people in order."""
    people, max_visits = int(people), int(max_visits)
    if people < 1 or max_visits < 1:
        raise ParameterError("a visits table needs at least one person and one visit each", column="rows")
    rng = make_rng(seed)
    base = adult_like_table(people, rng)
    visits = rng.integers(1, max_visits + 1, size=people)
    rows = np.repeat(np.arange(people), visits)
    own = rng.integers(0, len(DIAGNOSES), size=people)[rows]  # the person's usual diagnosis
    other = rng.integers(0, len(DIAGNOSES), size=len(rows))
    diagnosis = np.where(rng.random(len(rows)) < 0.6, own, other)
    out = base.iloc[rows].reset_index(drop=True)
    out.insert(0, "patient_id", np.array([f"p{i + 1}" for i in range(people)], dtype=object)[rows])
    out["diagnosis"] = np.asarray(DIAGNOSES, dtype=object)[diagnosis]
    return out
