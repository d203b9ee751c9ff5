"""The papers' worked examples as data, typed from ``../shared/papers`` (the engine's copy; the tests and
``experiment reproduce`` both read them from here).

- 002 (Ramana & Kumari): Table 1(a) with the Figure 2 hierarchies, Table 1(c) (the 3-anonymous local recoding),
  Figure 4 (the hierarchical distance matrix, upper triangle as printed) and Table 2 (the priority queue).
- 004 (Sehatkar & Matwin): Table 1 (visits of ten patients), our reading of its Figure 1 hierarchies (the
  figure itself is missing from the text: years → 2-year → 4-year ranges, DSFC and LOS in week bands, ZIP
  masked one digit per level) and Table 2 (the (2, 0.5)-private release printed in the paper).
- 001 (Yang & Qiao): the value distributions of Figure 1's quasi-identifiers printed in §3 (Fig. 1 itself is an
  image) and the ``p_i = 1/3`` of the example, from which §6 says Fig. 5's probabilistic anonymity is
  "about 11 by Proposition 7".
"""

from __future__ import annotations

import io

import pandas as pd

from anonstudio.core.data import EventLog, Table
from anonstudio.core.hierarchy import Hierarchy

# ---------------------------------------------------------------------------------------------------------
# 002: Table 1(a), Figure 2, Table 1(c), Figure 4, Table 2
P002_AGE_ROWS = [
    ["21", "[20-25]", "[20-30]", "[20-40]"],
    ["24", "[20-25]", "[20-30]", "[20-40]"],
    ["25", "[20-25]", "[20-30]", "[20-40]"],
    ["26", "[26-30]", "[20-30]", "[20-40]"],
    ["32", "[31-35]", "[31-40]", "[20-40]"],
    ["36", "[36-40]", "[31-40]", "[20-40]"],
    ["38", "[36-40]", "[31-40]", "[20-40]"],
]
P002_GENDER_ROWS = [["Male", "Person"], ["Female", "Person"]]
P002_ZIP_ROWS = [
    ["535280", "53528*", "5352**"],
    ["535285", "53528*", "5352**"],
    ["535288", "53528*", "5352**"],
    ["535292", "53529*", "5352**"],
    ["535296", "53529*", "5352**"],
]
P002_QIS = ("Gender", "Age", "Zip-code")

P002_TABLE_1A = pd.DataFrame(
    {
        "ID": [str(i) for i in range(1, 11)],
        "Gender": ["Male"] * 3 + ["Female"] * 4 + ["Male"] * 3,
        "Age": ["21", "24", "25", "26", "26", "32", "32", "36", "36", "38"],
        "Zip-code": ["535280", "535280", "535280", "535280", "535285", "535288", "535292", "535292", "535296", "535296"],
        "Disease": ["Flu", "HIV", "Heart Disease", "Heart Disease", "Cancer", "Flu", "Flu", "HIV", "Cancer", "Obesity"],
    },
    dtype=object,
)

#: Table 1(c): the 3-anonymous view by local recoding, every column as printed
P002_TABLE_1C = pd.DataFrame(
    {
        "ID": [str(i) for i in range(1, 11)],
        "Gender": ["Male"] * 3 + ["Female"] * 4 + ["Male"] * 3,
        "Age": ["[20-25]"] * 3 + ["[20-40]"] * 4 + ["[36-40]"] * 3,
        "Zip-code": ["535280"] * 3 + ["5352**"] * 4 + ["53529*"] * 3,
        "Disease": ["Flu", "HIV", "Heart Disease", "Heart Disease", "Cancer", "Flu", "Flu", "HIV", "Cancer", "Obesity"],
    },
    dtype=object,
)

#: Figure 4, upper triangle (rows r1..r10), as printed
P002_FIGURE_4 = [
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

#: Table 2: the priority queue (edges between 1-based records, weight decreasing), as printed
P002_TABLE_2 = [((1, 4), 3.34), ((7, 8), 3.34), ((4, 6), 3.0), ((6, 7), 2.0), ((4, 5), 1.0), ((8, 9), 1.0),
                ((1, 2), 0.66), ((2, 3), 0.66), ((9, 10), 0.66)]

#: Figure 5(b): the edges removed for k = 3 (⌊10/3⌋ − 1 = 2 longest), and 5(c): the initial clusters
P002_FIGURE_5_REMOVED = {(1, 4), (7, 8)}
P002_FIGURE_5_CLUSTERS = [{1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10}]


def p002_hierarchies() -> dict[str, Hierarchy]:
    """002 Figure 2: Age, Gender and Zip-code."""
    return {
        "Age": Hierarchy("Age", P002_AGE_ROWS),
        "Gender": Hierarchy("Gender", P002_GENDER_ROWS),
        "Zip-code": Hierarchy("Zip-code", P002_ZIP_ROWS),
    }


def p002_table(source=None) -> Table:
    """002 Table 1(a) with Gender, Age, Zip-code quasi-identifying, Disease sensitive and ID identifying."""
    t = Table(P002_TABLE_1A.copy(), source=source)
    return t.with_roles(quasi_identifiers=list(P002_QIS), sensitive=["Disease"], identifying=["ID"])


# ---------------------------------------------------------------------------------------------------------
# 004: Table 1, Figure 1 (our reading), Table 2
P004_TABLE_1 = """PID,VID,AdmYr,ZIP,DSFC,LOS,Disease
1,1,2009,56117,0,3,Hepatitis
2,1,2007,56103,0,2,Infection
3,1,2008,56942,0,1,Fever
3,2,2010,56942,0,30,Infection
4,1,2008,56107,0,2,Fever
4,2,2010,56107,0,35,Flu
5,1,2009,56117,0,3,Fever
6,1,2009,56103,0,3,Flu
6,2,2009,56103,10,1,Fever
6,3,2010,56230,0,2,HIV
7,1,2008,56072,0,2,Flu
8,1,2007,56361,0,30,Hepatitis
8,2,2011,56107,0,3,HIV
9,1,2007,56230,0,35,Flu
9,2,2011,56107,0,3,HIV
10,1,2009,56072,0,2,Flu
10,2,2009,56103,13,35,Fever
10,3,2010,56043,0,30,Infection
"""

#: Table 2: "anonymized patient data satisfying (2, 0.5)-privacy", as printed
P004_TABLE_2 = """PID,VID,AdmYr,ZIP,DSFC,LOS,Disease
1,1,2009,56117,0,3,Hepatitis
2,1,[2007:2008],56***,0,2,Infection
3,1,[2007:2008],56***,0,[0:12],Fever
3,2,[2009:2012],56***,0,[0:12],Infection
4,1,[2007:2008],56***,0,[0:12],Fever
4,2,[2009:2012],56107,0,[0:12],Flu
5,1,2009,56117,0,3,Fever
6,1,2009,56***,0,[0:1],Flu
6,2,2009,56103,[1:2],[0:12],Fever
6,3,2010,56***,0,[0:12],HIV
7,1,[2007:2008],56***,0,2,Flu
8,1,[2007:2008],56***,0,[0:12],Hepatitis
8,2,[2009:2012],56107,0,[0:12],HIV
9,1,[2007:2008],56***,0,[0:12],Flu
9,2,[2009:2012],56***,0,[0:12],HIV
10,1,2009,56***,0,[0:1],Flu
10,2,2009,56103,[1:2],[0:12],Fever
10,3,2010,56***,0,[0:12],Infection
"""
P004_QIS = ("AdmYr", "ZIP", "DSFC", "LOS")
#: the highly-sensitive value of 004's examples (§1: "conclude that Bob has HIV")
P004_HIGHLY_SENSITIVE = ("HIV",)


def p004_frame(text: str = P004_TABLE_1) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), dtype=str)


def p004_hierarchies() -> dict[str, Hierarchy]:
    """Our reading of 004 Figure 1: years → 2-year → 4-year ranges, DSFC and LOS in days grouped by week bands
    (1, 4, 12 weeks for DSFC; 1, 2, 4 weeks for LOS), ZIP masked one digit per level."""
    from anonstudio.core.generate._common import interval_rows

    zips = sorted(set(p004_frame()["ZIP"]))
    return {
        "AdmYr": Hierarchy("AdmYr", interval_rows(range(2007, 2015), (2, 4), start=2007, style="arx")),
        "ZIP": Hierarchy("ZIP", [[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", "*"] for z in zips]),
        "DSFC": Hierarchy("DSFC", interval_rows(range(365), (7, 28, 84), style="arx")),
        "LOS": Hierarchy("LOS", interval_rows(range(91), (7, 14, 28), style="arx")),
    }


def p004_log(text: str = P004_TABLE_1) -> EventLog:
    """004 Table 1 (or another log in its columns) as an event log."""
    return EventLog(p004_frame(text), "PID", "VID", list(P004_QIS), "Disease")


def p004_table2_clusters() -> list[set[str]]:
    """The clusters of the paper's Table 2: patients whose published visit sequences are identical."""
    df = p004_frame(P004_TABLE_2)
    seqs = df.groupby("PID", sort=False)[list(P004_QIS)].apply(lambda g: tuple(map(tuple, g.to_numpy())))
    groups: dict[tuple, set[str]] = {}
    for pid, seq in seqs.items():
        groups.setdefault(seq, set()).add(str(pid))
    return sorted(groups.values(), key=lambda s: min(int(x) for x in s))


# ---------------------------------------------------------------------------------------------------------
# 001: Figure 1's distributions (§3) and the example's weights
P001_DISTRIBUTIONS = {
    "Age": {"[20-30]": 1, "[30-40]": 4, "[40-50]": 1, "[50-60]": 3, "[60-70]": 1},
    "Job": {"Doctor": 1, "Clerk": 4, "Trader": 2, "Engineer": 1, "Banker": 2},
    "Country": {"USA": 6, "Germany": 1, "UK": 2, "India": 1},
}
#: "Setting p1 = p2 = p3 = 1/3" (§3)
P001_WEIGHTS = (1 / 3, 1 / 3, 1 / 3)
#: §6: "In Fig. 5, the probabilistic anonymity Pa(D') of the anonymized data set is about 11 by Proposition 7"
P001_FIG5_PA = 11.0
