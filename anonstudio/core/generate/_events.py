"""HHP-like multidimensional event sequences (hospital visits), after Sehatkar & Matwin (004, §4).

004 evaluates CBMSA on synthetic data "inspired from the Heritage Health Prize (HHP) claims data set":
one sequence per patient, one event per claim/visit, with the quasi-identifiers admission year (AdmYr),
ZIP code, days since the first claim in that year (DSFC) and length of stay (LOS), and the sensitive
attribute Disease (004 Table 1). Data sets vary the number of sequences, the average number of events per
sequence (3, 5, 10) and the number of QIs per event (2, 3, 4). This module generates such data:

- events per sequence: ``1 + Poisson(mean_events - 1)`` (so every patient has at least one visit);
- visit days: a patient's visits are spread over the observation window (2007–2014) with exponential
  gaps (mean 120 days), so visits cluster within years; ``AdmYr`` is the visit's year, ``DSFC`` the days
  since the patient's first visit of that year (0 for the first, as in 004 Table 1);
- ``ZIP``: a home ZIP drawn from 64 codes in 8 three-digit areas (popularity falls off like Zipf); at each
  later visit the patient moves with probability 0.1, mostly within the same area (004: "ZIP code … is
  often updated at every visit");
- ``Disease``: 4 % of patients carry HIV and 5 % Hepatitis (the highly sensitive values of 004's
  examples; ``carriers`` sets other shares), shown in about a third of their visits (at least one visit
  each, unless a patient carrying both has a single visit); other visits draw from ten common
  diagnoses;
- ``LOS``: geometric with a disease-dependent mean (flu ≈ 2 days, cancer ≈ 12), capped at 90 days.

With ``n_qis`` < 4 the first ``n_qis`` of (AdmYr, ZIP, DSFC, LOS) are kept — the column order of 004
Table 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio.core.errors import ParameterError
from anonstudio.core.generate._common import hierarchies_of, int_strings, interval_rows, make_rng
from anonstudio.core.hierarchy import Hierarchy

#: Quasi-identifiers in 004 Table 1 order; ``n_qis`` keeps a prefix of this tuple.
EVENT_QIS = ("AdmYr", "ZIP", "DSFC", "LOS")
FIRST_YEAR = 2007
N_YEARS = 8
MAX_LOS = 90
#: Diagnoses; the first two are the highly sensitive ones of 004's examples.
DISEASES = ("HIV", "Hepatitis", "Flu", "Fever", "Infection", "Hypertension", "Asthma", "Diabetes", "Fracture",
            "Pneumonia", "Depression", "Cancer")
HIGHLY_SENSITIVE = ("HIV", "Hepatitis")
_COMMON_WEIGHTS = np.array([0.20, 0.15, 0.15, 0.10, 0.08, 0.08, 0.08, 0.06, 0.05, 0.05])
_MEAN_LOS = np.array([8.0, 6.0, 2.0, 2.0, 4.0, 2.5, 2.0, 3.0, 5.0, 7.0, 10.0, 12.0])
_ZIP_AREAS = tuple(range(560, 568))
_ZIP_SUFFIXES = ("03", "07", "17", "30", "42", "61", "72", "88")
#: Every ZIP code the generator can produce (area-major order).
ZIP_CODES = tuple(f"{a}{s}" for a in _ZIP_AREAS for s in _ZIP_SUFFIXES)
_MEAN_GAP_DAYS = 120.0
_P_MOVE = 0.1
_P_MOVE_SAME_AREA = 0.7
_P_SHOW = 0.35


def _zipf(n: int) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1)
    return w / w.sum()


def hhp_events(
    n_sequences: int,
    mean_events: float = 5.0,
    n_qis: int = 4,
    seed: int | np.random.Generator = 0,
    carriers: tuple[float, float] = (0.04, 0.05),
) -> pd.DataFrame:
    """HHP-like event sequences in long form (one row per visit).

    Parameters
    ----------
    n_sequences:
        Number of patients (sequences).
    mean_events:
        Average number of visits per patient (004 uses 3, 5 and 10); at least 1.
    n_qis:
        Number of quasi-identifier columns, 1–4 (004 uses 2, 3 and 4): a prefix of
        ``AdmYr, ZIP, DSFC, LOS``.
    seed:
        Seed of the numpy generator; the same seed gives the same data.
    carriers:
        Shares of patients carrying HIV and Hepatitis (each in [0, 1]).

    Returns
    -------
    pandas.DataFrame
        Columns ``PID, VID, <QIs>, Disease``, every cell a string; ``PID`` 1…n, ``VID`` 1…m within a
        patient, rows grouped by patient with visits in time order.
    """
    n = int(n_sequences)
    if n < 1:
        raise ParameterError(f"the number of sequences must be at least 1, got {n}", column="sequences")
    if not mean_events >= 1:
        raise ParameterError(f"the mean number of events must be at least 1, got {mean_events:g}", column="mean_events")
    if not 1 <= int(n_qis) <= len(EVENT_QIS):
        raise ParameterError(f"the number of QIs must be between 1 and {len(EVENT_QIS)}, got {n_qis}", column="qis")
    carriers = tuple(float(x) for x in carriers)
    if len(carriers) != len(HIGHLY_SENSITIVE) or not all(0.0 <= x <= 1.0 for x in carriers):
        raise ParameterError(f"carrier shares must be {len(HIGHLY_SENSITIVE)} numbers in [0, 1] "
                             f"({', '.join(HIGHLY_SENSITIVE)}), got {carriers}", column="carriers")
    rng = make_rng(seed)

    m = 1 + rng.poisson(mean_events - 1.0, n)
    total = int(m.sum())
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(m, out=offsets[1:])
    pid = np.repeat(np.arange(n), m)
    pos = np.arange(total) - offsets[pid]
    first = pos == 0

    # visit days: exponential gaps, the whole history placed (or squeezed) inside the window
    window = 365 * N_YEARS
    gaps = rng.exponential(_MEAN_GAP_DAYS, total)
    gaps[first] = 0.0
    csum = np.cumsum(gaps)
    rel = csum - csum[offsets[:-1]][pid]
    span = rel[offsets[1:] - 1]
    scale = np.where(span > window - 1, (window - 1) / np.maximum(span, 1e-9), 1.0)
    start = rng.random(n) * np.maximum(window - 1 - span * scale, 0.0)
    day = np.floor(start[pid] + rel * scale[pid]).astype(np.int64)
    year = day // 365
    run_start = first | (year != np.roll(year, 1))
    idx = np.where(run_start, np.arange(total), 0)
    np.maximum.accumulate(idx, out=idx)
    dsfc = day - day[idx]

    # ZIP: a home code, then occasional moves (mostly within the same 3-digit area)
    n_areas, per_area = len(_ZIP_AREAS), len(_ZIP_SUFFIXES)
    home_area = rng.choice(n_areas, size=n, p=_zipf(n_areas))
    home_zip = home_area * per_area + rng.choice(per_area, size=n, p=_zipf(per_area))
    same = rng.random(total) < _P_MOVE_SAME_AREA
    move_area = np.where(same, home_area[pid], rng.integers(0, n_areas, total))
    move_zip = move_area * per_area + rng.integers(0, per_area, total)
    moved = (rng.random(total) < _P_MOVE) & ~first
    zip_code = np.where(first, home_zip[pid], move_zip)
    idx = np.where(first | moved, np.arange(total), 0)
    np.maximum.accumulate(idx, out=idx)
    zip_code = zip_code[idx]

    # Disease: carriers of HIV / Hepatitis show it in some visits (at least one), others common diagnoses
    common = 2 + rng.choice(len(_COMMON_WEIGHTS), size=total, p=_COMMON_WEIGHTS / _COMMON_WEIGHTS.sum())
    disease = common
    for code, p_carrier in enumerate(carriers):
        carrier = rng.random(n) < p_carrier
        shown = (rng.random(total) < _P_SHOW) & carrier[pid]
        forced = offsets[:-1] + np.floor(rng.random(n) * m).astype(np.int64)
        shown[forced[carrier]] = True
        disease = np.where(shown & (disease >= 2), code, disease)
    los = np.minimum(rng.geometric(1.0 / _MEAN_LOS[disease]), MAX_LOS)

    columns = {
        "PID": lambda: int_strings(pid + 1),
        "VID": lambda: int_strings(pos + 1),
        "AdmYr": lambda: int_strings(FIRST_YEAR + year),
        "ZIP": lambda: np.asarray(ZIP_CODES, dtype=object)[zip_code],
        "DSFC": lambda: int_strings(dsfc),
        "LOS": lambda: int_strings(los),
    }
    keep = ["PID", "VID", *EVENT_QIS[: int(n_qis)]]
    df = pd.DataFrame({c: columns[c]() for c in keep})
    df["Disease"] = np.asarray(DISEASES, dtype=object)[disease]
    return df


def _mask_rows(codes) -> list[list[str]]:
    """ZIP masking: one more digit replaced by ``*`` per level, up to the 2-digit prefix, then ``*``."""
    rows = []
    for z in codes:
        rows.append([z, z[:4] + "*", z[:3] + "**", z[:2] + "***", "*"])
    return rows


def event_hierarchy_rows() -> dict[str, list[list[str]]]:
    """ARX-style rows for every quasi-identifier, over the generator's whole domain.

    Interval labels are inclusive ``lo-hi`` (``2007-2008``, ``7-13``), as ARX and the interval builder
    write them (004 writes ``[2007:2008]``).

    - ``AdmYr``: 2007–2014 → 2-year → 4-year intervals → ``*`` (004 Fig. 1a);
    - ``ZIP``: masking from the right (``56117 → 5611* → 561** → 56*** → *``, 004 Fig. 1c);
    - ``DSFC``: 0–364 days → 1, 4, 12 and 24-week bands → ``*`` (004 Fig. 1b counts in weeks);
    - ``LOS``: 1–90 days → 7, 14, 28 and 56-day bands → ``*``.
    """
    return {
        "AdmYr": interval_rows(range(FIRST_YEAR, FIRST_YEAR + N_YEARS), (2, 4), start=FIRST_YEAR, style="arx"),
        "ZIP": _mask_rows(ZIP_CODES),
        "DSFC": interval_rows(range(0, 365), (7, 28, 84, 168), style="arx"),
        "LOS": interval_rows(range(1, MAX_LOS + 1), (7, 14, 28, 56), style="arx"),
    }


def event_hierarchies(columns=None) -> dict[str, Hierarchy]:
    """:class:`Hierarchy` objects for the event quasi-identifiers (all four by default); every value
    :func:`hhp_events` can produce is a leaf."""
    return hierarchies_of(event_hierarchy_rows(), columns, EVENT_QIS, "event quasi-identifier")
