"""The worked example of Ramana & Kumari (paper 002): Table 1(a) and the Figure 2 hierarchies."""

from __future__ import annotations

import pandas as pd

from anonstudio.core.data import Table
from anonstudio.core.hierarchy import Hierarchy

AGE_ROWS = [
    ["21", "[20-25]", "[20-30]", "[20-40]"],
    ["24", "[20-25]", "[20-30]", "[20-40]"],
    ["25", "[20-25]", "[20-30]", "[20-40]"],
    ["26", "[26-30]", "[20-30]", "[20-40]"],
    ["32", "[31-35]", "[31-40]", "[20-40]"],
    ["36", "[36-40]", "[31-40]", "[20-40]"],
    ["38", "[36-40]", "[31-40]", "[20-40]"],
]
GENDER_ROWS = [["Male", "Person"], ["Female", "Person"]]
ZIP_ROWS = [
    ["535280", "53528*", "5352**"],
    ["535285", "53528*", "5352**"],
    ["535288", "53528*", "5352**"],
    ["535292", "53529*", "5352**"],
    ["535296", "53529*", "5352**"],
]

TABLE_1A = pd.DataFrame(
    {
        "ID": [str(i) for i in range(1, 11)],
        "Gender": ["Male"] * 3 + ["Female"] * 4 + ["Male"] * 3,
        "Age": ["21", "24", "25", "26", "26", "32", "32", "36", "36", "38"],
        "Zip-code": ["535280", "535280", "535280", "535280", "535285", "535288", "535292", "535292", "535296", "535296"],
        "Disease": ["Flu", "HIV", "Heart Disease", "Heart Disease", "Cancer", "Flu", "Flu", "HIV", "Cancer", "Obesity"],
    },
    dtype=object,
)

# Table 1(c): the 3-anonymous view by local recoding
TABLE_1C = {
    "Gender": ["Male"] * 3 + ["Female"] * 4 + ["Male"] * 3,
    "Age": ["[20-25]"] * 3 + ["[20-40]"] * 4 + ["[36-40]"] * 3,
    "Zip-code": ["535280"] * 3 + ["5352**"] * 4 + ["53529*"] * 3,
}

# Figure 4 (upper triangle, rows r1..r10), as printed
FIGURE_4 = [
    [0, 0.66, 0.66, 3.34, 4.32, 5.0, 6.0, 4.0, 4.0, 4.0],
    [None, 0, 0.66, 3.34, 4.32, 5.0, 6.0, 4.0, 4.0, 4.0],
    [None, None, 0, 3.34, 4.32, 5.0, 6.0, 4.0, 4.0, 4.0],
    [None, None, None, 0, 1.0, 3.0, 4.0, 6.0, 6.0, 6.0],
    [None, None, None, None, 0, 3.0, 4.0, 6.0, 6.0, 6.0],
    [None, None, None, None, None, 0, 2.0, 5.34, 5.34, 5.34],
    [None, None, None, None, None, None, 0, 3.34, 4.32, 4.32],
    [None, None, None, None, None, None, None, 0, 1.0, 2.32],
    [None, None, None, None, None, None, None, None, 0, 0.66],
    [None, None, None, None, None, None, None, None, None, 0],
]

# Table 2: the priority queue (edges 1-based, weight decreasing)
TABLE_2 = [((1, 4), 3.34), ((7, 8), 3.34), ((4, 6), 3.0), ((6, 7), 2.0), ((4, 5), 1.0), ((8, 9), 1.0),
           ((1, 2), 0.66), ((2, 3), 0.66), ((9, 10), 0.66)]


def hierarchies() -> dict[str, Hierarchy]:
    return {
        "Age": Hierarchy("Age", AGE_ROWS),
        "Gender": Hierarchy("Gender", GENDER_ROWS),
        "Zip-code": Hierarchy("Zip-code", ZIP_ROWS),
    }


def table(source=None) -> Table:
    t = Table(TABLE_1A.copy(), source=source)
    return t.with_roles(quasi_identifiers=["Gender", "Age", "Zip-code"], sensitive=["Disease"], identifying=["ID"])
