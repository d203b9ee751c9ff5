"""Risk of a table and of a release: the figures of :mod:`anonstudio.core.risk` and :mod:`._attacks` computed from tables.

- :func:`table_risk` — one table, original or anonymized (``anonstudio risk``).
- :func:`release_risk` — the report's ``risk`` section: the input on its quasi-identifiers (``before``) and the
  release on the same columns (``after``), with the same population.
- :func:`record_risks`, :func:`risk_distribution_frame`, :func:`risk_comparison_frame` — plain arrays and frames
  for a view that plots the distribution before and after (no Qt here).

**The suppressed block is a class** (issue 39). A record whose every quasi-identifier cell is ``*`` and whose other
published cells are ``*`` too publishes nothing but its count: it is left out of the class figures and counted in
``suppressed`` (ARX leaves out every suppressed record). A fully suppressed record that publishes its sensitive value
or another column is in a class like any other — the records with every quasi-identifier ``*`` — since whoever is
missing from the published classes is one of them: a block of one is a risk of 1.

**Columns published unchanged** (issue 39 item 8): besides the figures on the quasi-identifiers (ARX's), each side
carries ``with_unchanged``: the prosecutor figures on the quasi-identifiers together with the columns published
unchanged (no role, or insensitive), which an attacker who knows those columns meets. Cells are compared as
published text (missing cells equal each other). Class sizes count records: the place a count of people per class
would replace.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import coded_cells, value_codes
from anonstudio.core.data._chunks import row_classes
from anonstudio.core.errors import InputError, ParameterError
from anonstudio.core.metrics._attacks import inference, unique_share
from anonstudio.core.risk import DEFAULT_THRESHOLD, RISK_BINS, Histogram, resolve_population, risk_figures

SUPPRESSED = "*"


def _frame(table: Any) -> pd.DataFrame:
    return table.df if hasattr(table, "df") else table


def _keys(frame: pd.DataFrame, columns: list[str], coded: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(key, suppressed)``: per record an id shared by the records with equal cells on ``columns`` (ids by first
    appearance), and whether every one of those cells is ``*`` (never with no columns). ``coded``: the columns'
    :func:`coded_cells`, computed here when missing and stored for the caller."""
    coded = {} if coded is None else coded
    n = len(frame)
    for c in columns:
        if c not in coded:
            coded[c] = coded_cells(frame[c], "")
    key = row_classes([coded[c].codes for c in columns], n) if columns else np.zeros(n, dtype=np.int64)
    star = np.zeros(n, dtype=bool)
    if columns:
        star[:] = True
        for c in columns:
            hit = np.flatnonzero(coded[c].texts == SUPPRESSED)
            star &= coded[c].codes == hit[0] if len(hit) else False
    return key, star


def class_ids(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Per record the id of its class on ``columns`` (records with equal cells share it), ``-1`` for a suppressed
    record (every cell ``*``; never with no columns)."""
    key, star = _keys(frame, columns)
    return np.where(star, -1, key)


def _sizes(ids: np.ndarray) -> np.ndarray:
    kept = ids[ids >= 0]
    return np.bincount(kept) if len(kept) else np.zeros(0, dtype=np.int64)


def record_risks(table: Any, quasi_identifiers: list[str]) -> np.ndarray:
    """Per record its prosecutor risk ``1 / (size of its class)``; ``NaN`` for a suppressed record."""
    ids = class_ids(_frame(table), list(quasi_identifiers))
    sizes = _sizes(ids).astype(np.float64)
    out = np.full(len(ids), np.nan)
    out[ids >= 0] = 1.0 / sizes[ids[ids >= 0]]
    return out


def _sensitive_codes(series: pd.Series) -> np.ndarray:
    codes, n_values = value_codes(series)
    return np.where(codes < 0, n_values, codes).astype(np.int64)  # a missing cell is a value of its own


def _attacks(frame: pd.DataFrame, ids: np.ndarray, class_key: np.ndarray, sensitive: list[str],
             unroled: list[str], coded: dict, anatomy: tuple[pd.DataFrame, str] | None = None) -> dict:
    """The attack measures of one side: ``unique_with_unroled`` and ``inference`` per sensitive column (from the
    side's own column, or for Anatomy's QIT from its ST: ``anatomy = (st, sensitive column)``). ``class_key``: the
    records' ids on the quasi-identifiers, suppressed records included."""
    key = row_classes([class_key, _keys(frame, list(unroled), coded)[0]], len(frame)) if unroled else class_key
    out: dict[str, Any] = {"unique_with_unroled": {"share": unique_share(key), "columns": list(unroled)},
                           "inference": {}}
    for column in sensitive:
        if column in frame.columns:
            out["inference"][column] = inference(ids, _sensitive_codes(frame[column]))
        elif anatomy is not None and anatomy[1] == column:
            st = anatomy[0]
            groups = pd.factorize(st["group"].astype(str))[0]
            counts = pd.to_numeric(st["count"]).to_numpy(dtype=np.int64)
            measured = inference(groups, _sensitive_codes(st[column]), counts)
            measured["classes_are"] = "groups of the sensitive table"
            out["inference"][column] = measured
    return out


def _blank(frame: pd.DataFrame, star: np.ndarray, published: list[str], coded: dict) -> np.ndarray:
    """The fully suppressed records (``star``) whose every other published cell (``published``) is ``*`` too: they
    publish nothing but their count. With no other published column, every fully suppressed record."""
    blank = star.copy()
    for c in published if blank.any() else []:
        if c not in coded:
            coded[c] = coded_cells(frame[c], "")
        hit = np.flatnonzero(coded[c].texts == SUPPRESSED)
        blank &= coded[c].codes == hit[0] if len(hit) else False
    return blank


def _with_unchanged(frame: pd.DataFrame, class_key: np.ndarray, blank: np.ndarray, unchanged: list[str],
                    coded: dict, threshold: float) -> dict:
    """The prosecutor figures on the quasi-identifiers together with the columns published ``unchanged`` (the
    records of ``blank`` left out): the classes an attacker who knows those columns meets."""
    keep = np.flatnonzero(~blank)
    key = row_classes([class_key, _keys(frame, list(unchanged), coded)[0]], len(frame)) if unchanged else class_key
    ids = pd.factorize(key[keep])[0] if len(keep) else np.zeros(0, dtype=np.int64)
    sizes = np.bincount(ids) if len(ids) else np.zeros(0, dtype=np.int64)
    per_record = sizes[ids].astype(np.float64) if len(ids) else np.zeros(0)
    n = max(len(ids), 1)
    h = Histogram.of(sizes)
    return {"columns": list(unchanged), "records": int(len(ids)), "classes": int(len(sizes)),
            "class_sizes": {"sizes": h.sizes.tolist(), "counts": h.counts.tolist()},
            "smallest_class": int(sizes.min()) if len(sizes) else 0,
            "highest": float(1.0 / sizes.min()) if len(sizes) else 0.0,
            "average": float(len(sizes) / n) if len(ids) else 0.0,
            "records_at_risk": float((1.0 / per_record > threshold).sum() / n) if len(ids) else 0.0,
            "unique": float((per_record == 1).sum() / n) if len(ids) else 0.0}


def _side(frame: pd.DataFrame, quasi_identifiers: list[str], population: int, *, threshold: float,
          sensitive: list[str], unroled: list[str], equations: str, anatomy=None, population_frame=None,
          source: Any = None, line_of=None, people: np.ndarray | None = None) -> dict:
    coded: dict = {}
    class_key, star = _keys(frame, quasi_identifiers, coded)
    published = [c for c in [*sensitive, *unroled] if c in frame.columns and c not in quasi_identifiers]
    blank = _blank(frame, star, published, coded)
    ids = np.where(blank, -1, class_key)  # the suppressed block is a class unless it publishes nothing else
    sizes = _sizes(ids)
    if people is not None:
        # a person column: a class's size is its distinct people, so each person's prosecutor risk in a class is
        # 1 / (the class's people) — one person's six visits are one person, not six records to hide among
        from anonstudio.core.privacy._people import distinct_people

        sizes = distinct_people(ids, people, len(sizes))
    h = Histogram.of(sizes)
    if population_frame is None:
        figures = risk_figures(h, population, threshold=threshold, equations=equations)
    else:
        big = _population_sizes(frame, ids, sizes, population_frame, quasi_identifiers, source, line_of)
        present = sizes > 0
        figures = risk_figures(h, population, threshold=threshold, equations=equations,
                               sample_sizes=sizes[present], population_sizes=big[present])
    figures["suppressed"] = int((ids < 0).sum())
    figures["counted"] = "people" if people is not None else "records"
    figures["with_unchanged"] = _with_unchanged(frame, class_key, blank, unroled, coded, threshold)
    figures["attacks"] = _attacks(frame, ids, class_key, sensitive, unroled, coded, anatomy)
    return figures


def _times(count: int) -> str:
    return f"{count} time" + ("" if count == 1 else "s")


def _population_sizes(frame: pd.DataFrame, ids: np.ndarray, sizes: np.ndarray, population_frame: pd.DataFrame,
                      quasi_identifiers: list[str], source: Any, line_of=None) -> np.ndarray:
    """Per class of ``frame`` (by id) the records of the same class in the population table; refuses a class
    the population table holds fewer times than the table (it is then not a sample of it)."""
    n = len(frame)
    both = pd.concat([frame[quasi_identifiers], population_frame[quasi_identifiers]], ignore_index=True)
    joint = class_ids(both, quasi_identifiers)
    mine, theirs = joint[:n], joint[n:]
    big_joint = _sizes(theirs[theirs >= 0]) if (theirs >= 0).any() else np.zeros(0, dtype=np.int64)
    big_joint = np.concatenate([big_joint, np.zeros(max(0, int(joint.max(initial=-1)) + 1 - len(big_joint)),
                                                    dtype=np.int64)])
    big = np.zeros(len(sizes), dtype=np.int64)
    kept = ids >= 0
    big[ids[kept]] = big_joint[mine[kept]]
    short = np.flatnonzero(kept & (big[np.maximum(ids, 0)] < sizes[np.maximum(ids, 0)]))
    if len(short):
        row = int(short[0])
        shown = ", ".join(f"{q}={frame[q].iloc[row]}" for q in quasi_identifiers[:4])
        where = {"line": line_of(row)} if line_of is not None else {"record": row + 1}
        raise InputError(f"the table is not a sample of the population table: {shown} occurs "
                         f"{_times(int(sizes[ids[row]]))} in the table and {_times(int(big[ids[row]]))} in the "
                         "population table", file=source, **where)
    return big


def _check_columns(frame: pd.DataFrame, names: dict[str, list[str]], source: Any) -> None:
    seen: dict[str, str] = {}
    for what, columns in names.items():
        for c in columns:
            if c not in frame.columns:
                shown = ", ".join(map(str, list(frame.columns)[:12]))
                raise InputError(f"no column '{c}' (given as {what}); the table's columns are {shown}",
                                 file=source, column=c)
            if c in seen:
                raise ParameterError(f"column '{c}' is given as {seen[c]} and as {what}")
            seen[c] = what


def _threshold(threshold: float) -> float:
    t = float(threshold)
    if not np.isfinite(t) or not 0.0 <= t <= 1.0:
        raise ParameterError(f"the risk threshold must be between 0 and 1, not {threshold}", key="threshold")
    return t


def table_risk(table: Any, quasi_identifiers: list[str], *, sensitive: list[str] = (), identifying: list[str] = (),
               population: int | None = None, sampling_fraction: float | None = None,
               threshold: float = DEFAULT_THRESHOLD, population_table: Any = None, equations: str = "model",
               person: str | None = None) -> dict:
    """Every risk figure of one table on ``quasi_identifiers`` (the contract's ``anonstudio risk --json`` keys).
    ``person``: the column naming each record's person (several records per person): classes are sized by their
    distinct people and the figures are per person in a class (``counted = "people"``); the column is identifying.
    Columns other than the quasi-identifiers, ``sensitive`` and ``identifying`` count as published without a
    role. ``population_table``: a table the given one is a sample of (journalist and marketer risk; its record
    count is the population size unless ``population``/``sampling_fraction`` say otherwise).

    Raises :class:`InputError` for an unknown column, an empty table, or a table that is not a sample of the
    population table, and :class:`ParameterError` for a column given twice or nonsense parameters."""
    frame = _frame(table)
    source = getattr(table, "source", None)
    qis = list(quasi_identifiers)
    if not qis:
        raise ParameterError("give at least one quasi-identifier", key="qi")
    if person is not None and person not in identifying:
        identifying = [*identifying, person]
    _check_columns(frame, {"quasi-identifier": qis, "sensitive": list(sensitive),
                           "identifying": list(identifying)}, source)
    people = None
    if person is not None:
        if population_table is not None:
            raise ParameterError("a population table is compared record by record: give --person or "
                                 "--population-table, not both", key="person")
        people = _person_codes(frame, person, source, getattr(table, "line_of", None))
    t = _threshold(threshold)
    if len(frame) == 0:
        raise InputError("the table has no records: there is no risk to measure", file=source)
    population_frame = None
    sized_by_table = False
    if population_table is not None:
        population_frame = _frame(population_table)
        _check_columns(population_frame, {"quasi-identifier": qis}, getattr(population_table, "source", None))
        if len(population_frame) < len(frame):
            raise InputError(f"the population table has fewer records ({len(population_frame)}) than the table "
                             f"({len(frame)}): the table must be a sample of it",
                             file=getattr(population_table, "source", None))
        if population is None and sampling_fraction is None:
            population, sized_by_table = len(population_frame), True
    size, origin = resolve_population(len(frame), population=population, sampling_fraction=sampling_fraction)
    origin = "--population-table" if sized_by_table else origin
    taken = set(qis) | set(sensitive) | set(identifying)
    unroled = [c for c in frame.columns if c not in taken]
    side = _side(frame, qis, size, threshold=t, sensitive=list(sensitive), unroled=unroled, equations=equations,
                 population_frame=population_frame, source=source, line_of=getattr(table, "line_of", None),
                 people=people)
    return {"table": str(source.name) if source is not None else None, "quasi_identifiers": qis,
            "threshold": t, "population": _population_entry(size, origin, side["records"]), **side}


def _person_codes(frame: pd.DataFrame, person: str, source: Any, line_of=None) -> np.ndarray:
    """Each record's person code, ids compared as the verifier compares them (:func:`~anonstudio.core.privacy.
    _people.person_key`); a record without an id is refused, naming its line."""
    from anonstudio.core.privacy._people import coded_people

    codes, keys, _ = coded_people(frame[person])
    bad = np.flatnonzero(keys[codes] == "") if len(keys) else np.zeros(0, dtype=np.int64)
    if len(bad):
        row = int(bad[0])
        where = {"line": line_of(row)} if line_of is not None else {"record": row + 1}
        raise InputError(f"the person column '{person}' has no id in {len(bad):,} record(s), the first here",
                         file=source, column=person, **where)
    return codes


def _population_entry(size: int, origin: str, records: int) -> dict:
    return {"size": int(size), "sampling_fraction": records / size if size else 0.0, "source": origin}


def release_risk(data: Any, output: Any, *, side_outputs: dict | None = None, population: int | None = None,
                 sampling_fraction: float | None = None, threshold: float = DEFAULT_THRESHOLD,
                 equations: str = "model") -> dict:
    """The report's ``risk`` section of a table release: ``before`` = the input on its quasi-identifiers (the
    columns the release publishes), ``after`` = the release on the same columns; the same population for both
    (sized from the input: the US population by default). Unroled columns: the input's insensitive ones (those
    the release publishes, for ``after``). Anatomy's release is judged by its groups' sensitive table."""
    frame_in, frame_out = _frame(data), _frame(output)
    qis = [q for q in data.quasi_identifiers if q in frame_out.columns]
    sensitive = list(data.sensitive)
    unroled = [c for c in frame_in.columns if data.role(c).value == "insensitive"]
    t = _threshold(threshold)
    size, origin = resolve_population(len(frame_in), population=population, sampling_fraction=sampling_fraction)
    anatomy = None
    st = (side_outputs or {}).get("sensitive")
    if st is not None and "group" in frame_out.columns and sensitive and sensitive[0] in _frame(st).columns:
        anatomy = (_frame(st), sensitive[0])
    common = {"threshold": t, "sensitive": sensitive, "equations": equations}
    person = getattr(data, "person", None)
    people = None if person is None else _person_codes(frame_in, person, getattr(data, "source", None))
    before = _side(frame_in, qis, size, unroled=unroled, people=people, **common)
    after = _side(frame_out, qis, size, unroled=[c for c in unroled if c in frame_out.columns], anatomy=anatomy,
                  people=people if people is not None and len(frame_out) == len(frame_in) else None, **common)
    return {"quasi_identifiers": qis, "sensitive": sensitive, "threshold": t,
            "population": _population_entry(size, origin, before["records"]), "before": before, "after": after}


# ------------------------------------------------------------------------------------------------ in words


def _pct(x: float) -> str:
    return f"{100.0 * x:.4g} %"


def risk_lines(figures: dict) -> list[str]:
    """One side's figures (a :func:`table_risk` result, or ``before``/``after`` of :func:`release_risk` with the
    section's ``population``/``threshold`` merged in) as lines of plain text, for the command line and summaries."""
    pop = figures["population"]
    p, j = figures["prosecutor"], figures["journalist"]
    lines = [
        *(["counted per person: a class's size is its distinct people, each person's risk in it 1 / those people"]
          if figures.get("counted") == "people" else []),
        f"{figures['records']} " + ("people-in-classes" if figures.get("counted") == "people" else "records")
        + f" measured ({figures['suppressed']} suppressed " + ("records " if figures.get("counted") == "people" else "")
        + "left out), "
        f"{figures['classes']} classes on {len(figures['quasi_identifiers'])} quasi-identifiers "
        f"({', '.join(figures['quasi_identifiers'])})",
        f"population: {pop['size']:,} ({pop['source']}), sampling fraction {pop['sampling_fraction']:.4g}",
        f"prosecutor risk: highest {_pct(p['highest'])}, average {_pct(p['average'])}, lowest {_pct(p['lowest'])}; "
        f"records above the threshold {figures['threshold']:g}: {_pct(p['records_at_risk'])}; "
        f"records at the highest risk: {_pct(p['records_at_highest'])}",
        ("journalist risk: the prosecutor's (no population table)" if j == p else
         f"journalist risk: highest {_pct(j['highest'])}, average {_pct(j['average'])}, records above the threshold "
         f"{_pct(j['records_at_risk'])}"),
        f"marketer risk: {_pct(figures['marketer']['average'])} of the records re-identified on average",
        f"sample uniques: {_pct(figures['sample_uniques'])} of the records",
    ]
    est = figures["population_uniques"]
    d = est["dankar"]
    if d.get("model") == "none":
        lines.append("population uniques: none estimated (no record is unique in the table)")
    else:
        shown = [f"{name.capitalize() if name != 'snb' else 'SNB'} "
                 + (f"{_pct(e['share'])} ({e['uniques']:,.0f} people)" if e["available"] else "not available")
                 for name, e in est.items() if name != "dankar"]
        lines.append("population uniques: " + ", ".join(shown) + f"; Dankar's rule takes {d.get('model', '?')}: "
                     + _pct(d["share"]))
        for name, e in est.items():
            if e["note"] and not (name == "dankar" and e["available"]):
                lines.append(f"  {name}: {e['note']}")
    bins = [(label, share) for label, share in zip(risk_distribution_frame(figures)["label"],
                                                   figures["distribution"]["records"]) if share > 0]
    lines.append("records by risk: " + ", ".join(f"{label} {_pct(share)}" for label, share in reversed(bins)))
    attacks = figures["attacks"]
    extra = attacks["unique_with_unroled"]["columns"]
    w = figures.get("with_unchanged")
    if w and extra:
        lines.append(f"with the columns published unchanged ({', '.join(extra)}) beside the quasi-identifiers: "
                     f"prosecutor risk highest {_pct(w['highest'])} (smallest class {w['smallest_class']}), average "
                     f"{_pct(w['average'])}; records above the threshold {figures['threshold']:g}: "
                     f"{_pct(w['records_at_risk'])}; unique: {_pct(w['unique'])}")
    else:
        lines.append(f"unique on the quasi-identifiers with the columns published unchanged "
                     f"({', '.join(extra) if extra else 'none'}): {_pct(attacks['unique_with_unroled']['share'])}")
    for column, m in attacks["inference"].items():
        lines.append(f"{column}: {_pct(m['homogeneous_classes'])} of the classes hold one value "
                     f"({_pct(m['homogeneous_records'])} of the records: certain and right); the class-majority guess "
                     f"is right for {_pct(m['inference_rate'])} against a base rate of {_pct(m['base_rate'])}")
    return lines


# ------------------------------------------------------------------------------------------- for a Risk view


def risk_distribution_frame(risk: dict) -> pd.DataFrame:
    """The record-level risk distribution of a report's ``risk`` section (or of one :func:`table_risk`), one row
    per bin: ``low`` (exclusive), ``high`` (inclusive), ``label``, and the share of records in it ``before`` and
    ``after`` (or ``records`` for one table) — what a bar chart of the two side by side needs."""
    upper = np.asarray(RISK_BINS)
    low = np.concatenate([[0.0], upper[:-1]])
    frame = pd.DataFrame({"low": low, "high": upper,
                          "label": [f"({lo:g}, {hi:g}]" for lo, hi in zip(low, upper)]})
    sides = ("before", "after") if "before" in risk else (None,)
    for side in sides:
        figures = risk[side] if side else risk
        frame[side or "records"] = np.asarray(figures["distribution"]["records"], dtype=np.float64)
    return frame


def risk_comparison_frame(risk: dict) -> pd.DataFrame:
    """The headline figures of a report's ``risk`` section as rows ``figure, before, after`` (shares)."""
    def flat(figures: dict) -> dict[str, float]:
        out = {f"prosecutor {k}": v for k, v in figures["prosecutor"].items()}
        out.update({f"journalist {k}": v for k, v in figures["journalist"].items()})
        out["marketer average"] = figures["marketer"]["average"]
        out["sample uniques"] = figures["sample_uniques"]
        out.update({f"population uniques ({k})": v["share"] for k, v in figures["population_uniques"].items()})
        out["unique with unroled columns"] = figures["attacks"]["unique_with_unroled"]["share"]
        w = figures.get("with_unchanged") or {}
        for key in ("highest", "average", "records_at_risk"):
            if key in w:
                out[f"with unchanged columns: prosecutor {key}"] = w[key]
        for column, m in figures["attacks"]["inference"].items():
            for key in ("homogeneous_classes", "homogeneous_records", "inference_rate", "base_rate"):
                out[f"{column}: {key.replace('_', ' ')}"] = m[key]
        return out

    before, after = flat(risk["before"]), flat(risk["after"])
    return pd.DataFrame({"figure": list(before), "before": list(before.values()),
                         "after": [after.get(k, np.nan) for k in before]})


__all__ = ["class_ids", "record_risks", "risk_lines", "release_risk", "risk_comparison_frame",
           "risk_distribution_frame", "table_risk"]
