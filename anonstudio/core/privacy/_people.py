"""People, not rows: the counts every privacy model judges when a table names a person column (``[input] person``).

Health data hold several records of one person (visits, prescriptions, claims). A class of k *records* may then be
one person's k visits, and whoever knows that person's quasi-identifiers knows the class's sensitive values are
theirs. With a person column, every model counts **distinct people** (the column's ids, compared as text; the
column is identifying and never published; ids are compared
by :func:`person_key`, so ``P999``, ``p999`` and ``' P999'`` are one person):

- **k-anonymity** (and every model that judges class sizes: k-map, average risk, sample and population
  uniqueness, (α,k)-anonymity's k): a class's size is the number of distinct people with at least one record in
  it. Every class holds records of at least k people.
- **l-diversity, t-closeness, δ-disclosure, β-likeness, recursive (c,l)-diversity**: a class's distribution
  counts, per sensitive value, the distinct people holding it in the class — a person counts once per distinct
  value they hold there, however many records carry it (one person's six visits with ``HIV`` are one ``HIV``,
  not six). Distinct l-diversity: at least l distinct values held by the class's people; entropy l-diversity:
  the entropy of those per-value person counts (normalized by their sum) at least ``log l``. The table's
  distribution that t-closeness, δ-disclosure and β-likeness compare a class with is counted the same way
  (per value, the distinct people holding it in the whole table).

This is the person-level reading of Wang & Fung, "Anonymizing sequential releases" (KDD 2006) and of
Gong et al. ("(k,l)-anonymity for multiple records per individual", 2011; "Anonymizing 1:M microdata with
high utility", Knowledge-Based Systems 2017), restricted to what a class shows: an attacker who knows *one* of a person's
quasi-identifier tuples finds a class of at least k people, and the person's sensitive value in it among at
least l values held by distinct people. ARX has no person-level model.

What it does not promise: an attacker who knows *several* of one person's tuples, which fell in different
classes, may intersect those classes' people (fewer than k may be in all of them). Publish one record per person
(aggregate first) when such knowledge is likely.

The functions here count; the verifiers (:mod:`._tables`, :mod:`._judge`), the methods' repair
(:mod:`anonstudio.core.algorithms._model_repair`) and the risk figures (:mod:`anonstudio.core.risk`) use them.
"""

from __future__ import annotations

import decimal
import re
import unicodedata
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonstudio.core.errors import InputError

if TYPE_CHECKING:
    from anonstudio.core.data import Table


#: characters a person's id may hold that show nothing: every whitespace (``\\s`` reads Unicode's, NBSP among them)
#: and the format characters (zero-width space and joiners, soft hyphen, directional marks, byte-order mark)
_INVISIBLE = re.compile("[\\s\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]+")
#: a number spelled without letters (after NFKC, which turns full-width digits into ASCII ones)
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def person_key(text: str) -> str:
    """The spelling a person's id is compared by: Unicode NFKC, every whitespace and invisible character removed,
    case folded, and a number in canonical decimal form (``0999``, ``+999``, ``999.0`` are ``999``). ``P999``,
    ``p999``, ``' P999'`` and ``P999`` followed by a no-break space are one person: a person column is filled by
    hand and by several systems, and ids told apart only by such spellings would count one person's visits as
    several people (a hunt passed k = 5 with one person's 8 visits so). Only merges ids: the people a class
    counts can only go down (the privacy-conservative direction). An empty key is a missing id."""
    if text.isascii():  # the common case, fast: NFKC leaves ASCII as it is, and ASCII's invisibles are spaces
        key = "".join(text.split()).lower()
        if key.isdigit():
            return key.lstrip("0") or "0"
    else:
        key = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()
    if _NUMBER.fullmatch(key):
        with decimal.localcontext() as ctx:
            ctx.prec = len(key) + 2
            number = decimal.Decimal(key)
            if number == 0:
                return "0"
            key = format(number.normalize(), "f")
    return key


def coded_people(series: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """``(codes, keys, raw)``: each record's person as a code into ``keys`` (the distinct :func:`person_key` of
    the ids; ``""``: no id) and the number of distinct ids as the file spells them (missing ones left out)."""
    from anonstudio.core.data import coded_cells

    cells = coded_cells(series, "")
    texts = [str(t) for t in cells.texts]
    merged, keys = pd.factorize(pd.Series([person_key(t) for t in texts], dtype=object))
    codes = np.asarray(merged, dtype=np.int64)[cells.codes] if len(texts) else np.asarray(cells.codes, np.int64)
    used = np.unique(cells.codes) if len(cells.codes) else np.zeros(0, dtype=np.int64)
    raw = len(used) - int(np.isin(np.flatnonzero(np.asarray(cells.texts, dtype=object) == ""), used).any())
    return codes, np.asarray(keys, dtype=object), raw


def check_person_column(table: Table) -> None:
    """Refuse (exit 2) a person column with a missing id, naming the first line: a record of no one cannot be
    counted among a class's people (it would be one person, or every one, and either reading may overstate k).
    An id of spaces or invisible characters only (:func:`person_key`) is missing too."""
    if table.person is None:
        return
    if table.person not in table.df.columns:
        raise InputError(f"input.person names '{table.person}', which is not a column of the file", file=table.source,
                         column=table.person)
    codes, keys, _ = coded_people(table.df[table.person])
    bad = np.flatnonzero(keys[codes] == "") if len(keys) else np.zeros(0, dtype=np.int64)
    if len(bad):
        row = int(bad[0])
        raise InputError(f"the person column '{table.person}' has no id in {len(bad):,} record(s), the first here: "
                         "every record must name its person (input.person)", file=table.source,
                         line=table.line_of(row) if table.source is not None else None,
                         record=None if table.source is not None else row + 1, column=table.person)


def person_codes(table: Table, rows: np.ndarray | None = None) -> np.ndarray:
    """Each record's person as a code ``0..P-1`` (ids compared by :func:`person_key`; ``rows``: those only). The
    methods' enforcement and the verifiers both count people by these codes."""
    if table.person is None:
        raise ValueError("the table names no person column")
    codes = coded_people(table.df[table.person])[0]
    return codes if rows is None else codes[rows]


def spelling_warnings(table: Table) -> list[str]:
    """With a person column: how many ids spelled differently (:func:`person_key`) were counted as one person. The
    ids themselves are not named (the column is identifying and the warning is written to the report)."""
    if table.person is None or table.person not in table.df.columns or not len(table.df):
        return []
    codes, keys, raw = coded_people(table.df[table.person])
    people = int(np.count_nonzero(keys[np.unique(codes)] != "")) if len(keys) else 0
    if raw <= people:
        return []
    from anonstudio.core.data import coded_cells

    cells = coded_cells(table.df[table.person], "")
    pairs = pd.DataFrame({"raw": cells.codes, "key": codes}).drop_duplicates()
    spellings = pairs.groupby("key").size()
    shared = spellings[spellings > 1]
    ids, merged = int(shared.sum()), len(shared)
    return [f"person ids spelled differently were counted as one person: {ids:,} distinct ids of the person column "
            f"'{table.person}' differ only in case, spaces, invisible characters or the spelling of a number and "
            f"were counted as {merged:,} {'person' if merged == 1 else 'people'} (ids are compared after Unicode "
            "NFKC, with whitespace removed, case folded and numbers in canonical form)"]


def distinct_people(classes: np.ndarray, people: np.ndarray, n_classes: int | None = None) -> np.ndarray:
    """Per class, the distinct people among its records (``classes[i]``: record ``i``'s class, ``-1`` none;
    ``people[i]``: its person's code). The count a class's size is with a person column: k-anonymity asks
    ``distinct_people(...) >= k``."""
    classes = np.asarray(classes, dtype=np.int64)
    people = np.asarray(people, dtype=np.int64)
    n = int(classes.max()) + 1 if n_classes is None and len(classes) else int(n_classes or 0)
    keep = classes >= 0
    if not keep.any():
        return np.zeros(n, dtype=np.int64)
    pairs = pd.unique(classes[keep] * (int(people.max()) + 1) + people[keep])
    return np.bincount(pairs // (int(people.max()) + 1), minlength=n).astype(np.int64)


def people_per_value(classes: np.ndarray, people: np.ndarray, values: np.ndarray,
                     present: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (class, value) pair held by a record (``present``), the distinct people holding that value in the class:
    ``(pair's class, pair's value code, people)``, pairs in order of first appearance."""
    c = np.asarray(classes, dtype=np.int64)[present]
    v = np.asarray(values, dtype=np.int64)[present]
    p = np.asarray(people, dtype=np.int64)[present]
    if not len(c):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    triples = pd.DataFrame({"c": c, "v": v, "p": p}).drop_duplicates()
    counts = triples.groupby(["c", "v"], sort=False).size()
    return (counts.index.get_level_values(0).to_numpy(dtype=np.int64),
            counts.index.get_level_values(1).to_numpy(dtype=np.int64), counts.to_numpy(dtype=np.int64))


def people_per_value_total(people: np.ndarray, values: np.ndarray, present: np.ndarray, n_values: int) -> np.ndarray:
    """Per value code, the distinct people holding it in the whole table (the distribution t-closeness compares
    a class with, counted over people)."""
    v = np.asarray(values, dtype=np.int64)[present]
    p = np.asarray(people, dtype=np.int64)[present]
    if not len(v):
        return np.zeros(n_values, dtype=np.int64)
    pairs = pd.unique(v * (int(p.max()) + 1) + p)
    return np.bincount(pairs // (int(p.max()) + 1), minlength=n_values).astype(np.int64)


#: a table without a person column whose records repeat a whole earlier record (every column but the identifying
#: ones equal) in more than this share gets a warning (:func:`repeated_record_share`): census-like tables of one
#: record per person repeat some by chance (the demo's Adult sample 5.7 %), visits and claims far more
REPEATED_RECORDS_SHARE = 0.10
#: an identifying column that names a person or a record (``patient_id``) holding an id of an earlier record in more
#: than this share of the records gets a warning (:func:`repeated_ids`)
REPEATED_IDS_SHARE = 0.05
#: words of a column name that names a person or a record (the workbench proposes such columns identifying)
ID_WORDS = ("id", "uuid", "guid", "ssn", "email", "mail", "phone", "telephone", "fullname", "surname", "firstname",
            "lastname", "mrn", "passport", "iban", "patient", "person", "customer", "member", "client", "subject",
            "participant", "individual", "beneficiary", "enrollee", "insured", "nhs", "pat", "holder",
            "policyholder", "cardholder", "accountholder", "insuree", "owner", "account", "resident", "employee",
            "student", "donor", "givenname", "familyname", "forename")

#: words of a column name that name part of a person's name: shared by chance (many people are called Smith), so
#: such a column is judged together with another (:func:`person_key_warnings`), not alone
NAME_PARTS = ("firstname", "lastname", "surname", "givenname", "familyname", "forename", "name")


#: abbreviations of person ids, read as one word
ID_ABBREVIATIONS = ("pid", "uid", "sid", "patid", "subjid", "subid", "custid", "persid", "memid", "clid", "pno",
                    "patno")


def repeated_record_share(frame: pd.DataFrame, leave_out: list[str]) -> tuple[int, float]:
    """``(records, share)``: the records equal in every column but ``leave_out`` (identifying ones) to an earlier
    record — the repeats a table of several records per person shows when no person column is named."""
    from anonstudio.core.data import coded_cells
    from anonstudio.core.data._chunks import row_classes

    columns = [c for c in frame.columns if c not in set(leave_out)]
    if not columns or not len(frame):
        return 0, 0.0
    key = row_classes([coded_cells(frame[c], "").codes for c in columns], len(frame))
    repeats = int(len(key) - len(np.unique(key)))
    return repeats, repeats / len(frame)


def _words(column: str) -> list[str]:
    import re

    return [w.lower() for w in re.split(r"[^0-9a-zA-Z]+|(?<=[a-z])(?=[A-Z])", str(column)) if w]


def is_name_part(column: str) -> bool:
    """Whether a column's name names part of a person's name (``first_name``, ``Surname``, ``name``)."""
    words = _words(column)
    return bool(words) and ("".join(words) in NAME_PARTS or "".join(words[-2:]) in NAME_PARTS)


def names_a_person(column: str) -> bool:
    """Whether a column's name names a person or a record (``patient_id``, ``PatientID``, ``member-no``)."""
    words = _words(column)
    # an id word or an id abbreviation (PID, UID, PatID, SubjID: a hunt dodged the warning with 'PID'), also as the
    # words run together ('first_name' is 'firstname'; 'policy_holder' is 'policyholder')
    joined = "".join(words)
    return any(w in ID_WORDS or w in ID_ABBREVIATIONS for w in [*words, joined])


#: an identifying column whose distinct values are at least this share of the records (and at least
#: :data:`ID_LIKE_MIN_VALUES` of them) is read as an id column whatever its name
ID_LIKE_SHARE = 0.05
ID_LIKE_MIN_VALUES = 20


def looks_like_ids(frame: pd.DataFrame, column: str) -> bool:
    """Whether an identifying column holds ids, whatever its name: many distinct values (not a category such as a
    country marked identifying to leave it out)."""
    distinct = int(frame[column].nunique(dropna=True))
    return distinct >= ID_LIKE_MIN_VALUES and distinct >= ID_LIKE_SHARE * len(frame)


def repeated_ids(frame: pd.DataFrame, column: str) -> tuple[int, float]:
    """``(records, share)``: the records whose ``column`` holds the id of an earlier record (missing ids left out)."""
    from anonstudio.core.data import coded_cells

    cells = coded_cells(frame[column], "")
    codes = cells.codes[cells.texts[cells.codes] != ""] if len(cells.texts) else cells.codes
    repeats = int(len(codes) - len(np.unique(codes)))
    return repeats, repeats / max(len(frame), 1)


def person_warnings(table: Table) -> list[str]:
    """Without a person column: a table whose records look like several per person (issue 39 item 2) — an
    identifying column naming a person that repeats its ids, or whole records repeated beyond
    :data:`REPEATED_RECORDS_SHARE`. Each warning names the share; the release verdict is then "NOT safe to publish"
    (:mod:`anonstudio.core.release_verdict`)."""
    if table.person is not None:
        return spelling_warnings(table)
    if not len(table.df):
        return []
    out = []
    for c in table.identifying:
        if (names_a_person(c) or looks_like_ids(table.df, c)) and not is_name_part(c):
            n, share = repeated_ids(table.df, c)
            if share > REPEATED_IDS_SHARE:
                out.append(f"several records per person: the identifying column '{c}' holds an id of another record "
                           f"in {n:,} records ({share:.1%}, more than {REPEATED_IDS_SHARE:.0%}), and k counts records, "
                           f"so one person's records pass as different people — name it input.person (every class "
                           "then holds k people)")
    out += person_key_warnings(table)
    n, share = repeated_record_share(table.df, table.identifying)
    if share > REPEATED_RECORDS_SHARE:
        out.append(f"several records per person: {n:,} records ({share:.1%}, more than "
                   f"{REPEATED_RECORDS_SHARE:.0%}) repeat an earlier record in every column but the identifying ones, "
                   "and k counts records, so one person's records may pass as different people — name the column "
                   "that identifies the person as input.person")
    return out


#: a person-like key: a combination of values held by 2..:data:`KEY_MAX_ROWS` records each, for at least
#: :data:`KEY_ROWS_SHARE` of the records, with at least :data:`ID_LIKE_MIN_VALUES` combinations (visits, claims: a
#: few records per person; a category's values hold many records each)
KEY_MAX_ROWS = 6
KEY_ROWS_SHARE = 0.5
#: the columns (in the table's order) whose singles and pairs are tried: 12 make 78 pairs, each one pass over the
#: rows
MAX_KEY_CANDIDATES = 12


def person_like_key(frame: pd.DataFrame, columns: list[str]) -> tuple[int, int, float] | None:
    """``(combinations, repeating records, their share)`` when the values of ``columns`` together look like a
    person's id held by a few records each (at least :data:`KEY_ROWS_SHARE` of the records in combinations of 2 to
    :data:`KEY_MAX_ROWS` records, at least :data:`ID_LIKE_MIN_VALUES` combinations, more than
    :data:`REPEATED_IDS_SHARE` of the records repeating one); ``None`` otherwise. Missing cells hold no id."""
    from anonstudio.core.data import coded_cells
    from anonstudio.core.data._chunks import row_classes

    cells = [coded_cells(frame[c], "") for c in columns]
    present = np.ones(len(frame), dtype=bool)
    for c in cells:
        if len(c.texts):
            present &= c.texts[c.codes] != ""
    if present.sum() < ID_LIKE_MIN_VALUES:
        return None
    key = row_classes([c.codes[present] for c in cells], int(present.sum()))  # ids 0..m-1 by first appearance
    sizes = np.bincount(key)
    few = int(sizes[(sizes >= 2) & (sizes <= KEY_MAX_ROWS)].sum())
    repeats = int(len(key) - len(sizes))
    share = repeats / len(frame)
    if len(sizes) < ID_LIKE_MIN_VALUES or few < KEY_ROWS_SHARE * len(frame) or share <= REPEATED_IDS_SHARE:
        return None
    return int(len(sizes)), repeats, share


def person_key_warnings(table: Table) -> list[str]:
    """Without a person column: a person's id the name-and-share test of :func:`person_warnings` does not see — one
    or two identifying columns (or columns published unchanged that are named like a person) whose values together
    repeat a few records each (:func:`person_like_key`): an id split over two columns (``ward`` + ``bed``,
    ``first_name`` + ``last_name``) or held by few distinct values. A hunt dodged the warning with both."""
    roled = set(table.quasi_identifiers) | set(_as_list(table.sensitive))
    candidates = [c for c in table.df.columns if c in set(table.identifying)
                  or (c not in roled and (names_a_person(c) or is_name_part(c)))][:MAX_KEY_CANDIDATES]
    # the columns person_warnings judged alone (and warned about if they repeat)
    said = {c for c in table.identifying if (names_a_person(c) or looks_like_ids(table.df, c)) and not is_name_part(c)}
    out = []
    for size in (1, 2):
        for i, first in enumerate(candidates):
            for second in ([None] if size == 1 else candidates[i + 1:]):
                columns = [first] if second is None else [first, second]
                if set(columns) & said or (second is None and is_name_part(first)):
                    continue  # judged alone already; a surname alone is shared by chance
                if second is not None and is_name_part(first) != is_name_part(second):
                    continue  # a surname refined by a category (race) is no id: names pair with names
                found = person_like_key(table.df, columns)
                if found is None:
                    continue
                combos, n, share = found
                named = " + ".join(f"'{c}'" for c in columns)
                which = "together look" if len(columns) == 2 else "looks"
                fix = ("combine them into one column and name it [input] person" if len(columns) == 2
                       else "name it [input] person")
                out.append(f"several records per person: {named} {which} like a person's id ({combos:,} values held "
                           f"by 1–{KEY_MAX_ROWS} records each, mostly), and {n:,} records ({share:.1%}) repeat one; k "
                           f"counts records, so one person's records pass as different people — {fix} (every class "
                           "then holds k people)")
                said.update(columns)
    return out


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)  # type: ignore[call-overload]

