"""Builds the corpus cases of the attacker's hunt after issue 28 (``docs/history.md``): releases that ``anonstudio
verify`` PASSES (exit 0) although they disclose people. Each folder holds a small input derived from the bundled
demo data, a job, and a release that was crafted (or, for the seed-replay cases, genuinely produced by
``anonstudio run``) so that a reader can decode what the job's privacy model hides. Every case is listed in
``cases.csv`` with the exit code ``verify`` SHOULD give (1) and an empty message (the fix names it).

Run from the project root (it rewrites the ``verify-hunt-*`` folders, prints each case's measured disclosure
and the lines for cases.csv)::

    python tests/bad_inputs/_make_hunt_channels.py

``--full DIR`` builds the same releases from the whole demo data (2,000 records, 300 sequences, 300 proteins)
in ``DIR`` instead, and prints their figures (those of ``docs/history.md``) and two more: a shuffled RA release's seed
found from the release alone, and a default-seed RA release replayed without its report.

The decoders below read only the release (and, where said, the report or a key the publisher shares with the
reader); the input is read only to count how many decoded values are right.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parents[1] / "anonstudio" / "resources" / "demo"
HIER = DEMO / "hierarchies"
KEY = b"shared-with-the-reader"
TABLE_QIS = ["age", "workclass", "sex", "education", "occupation"]
RA_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
PROTEIN = "ACDEFGHIKLMNPQRSTVWY"
CASES: list[str] = []
FIGURES: list[str] = []
#: where the cases are built and how large their inputs are (``--full DIR``: the whole demo data, elsewhere)
OUT = HERE
SIZE = {"table": 300, "report": 200, "sequences": 150, "proteins": 30}


# ----------------------------------------------------------------------------------------------------------- helpers
def _run(folder: Path, job: str = "job.toml") -> None:
    env = dict(os.environ, XDG_DATA_HOME=tempfile.mkdtemp(prefix="hunt-xdg-"))
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", job, "--quiet"], cwd=folder,
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{folder.name}: the genuine run failed: {done.stderr}")


def _verify(folder: Path) -> int:
    done = subprocess.run([sys.executable, "-m", "anonstudio", "verify", "job.toml"], cwd=folder,
                          capture_output=True, text=True)
    return done.returncode


def _folder(name: str) -> Path:
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def _case(folder: Path, figure: str) -> None:
    code = _verify(folder)
    CASES.append(f"{folder.name},verify job.toml,1,")
    FIGURES.append(f"{folder.name}: verify exit {code} today; {figure}")


def _prf(*parts: object) -> float:
    digest = hashlib.sha256(KEY + b"|".join(str(p).encode() for p in parts)).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _rows(path: Path, delimiter: str = ";") -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8")), delimiter=delimiter))


def _write_rows(path: Path, rows: list[list[str]], delimiter: str = ";") -> None:
    path.write_text("".join(delimiter.join(r) + "\n" for r in rows), encoding="utf-8")


def _adult(folder: Path, n: int, hierarchies: bool = True) -> tuple[list[str], list[list[str]]]:
    rows = _rows(DEMO / "adult-sample.csv")[: n + 1]
    _write_rows(folder / "t.csv", rows)
    if not hierarchies:
        return rows[0], rows[1:]
    (folder / "h").mkdir(exist_ok=True)
    for q in TABLE_QIS:
        shutil.copy(HIER / f"adult_hierarchy_{q}.csv", folder / "h" / f"{q}.csv")
    return rows[0], rows[1:]


def _hierarchy(path: Path) -> dict[str, list[str]]:
    return {r[0]: r for r in _rows(path) if r}


TABLE_JOB = """[input]
path = "t.csv"
quasi_identifiers = ["age", "workclass", "sex", "education", "occupation"]
sensitive = ["salary-class"]
[hierarchies]
age = "h/age.csv"
workclass = "h/workclass.csv"
sex = "h/sex.csv"
education = "h/education.csv"
occupation = "h/occupation.csv"
[algorithm]
{algorithm}
[output]
path = "out.csv"
{report}"""


def _table_job(folder: Path, algorithm: str, report: bool = False) -> None:
    (folder / "job.toml").write_text(TABLE_JOB.format(algorithm=algorithm,
                                                      report='report = "out.report.json"\n' if report else ""),
                                     encoding="utf-8")


# -------------------------------------------------------------------------------------------------- tables
def ordered_classes(folder: Path, head: list[str], data: list[list[str]], diverse: str | None = None) -> int:
    """A k-anonymous release (k = 5) whose 'perfect' classes hold five records of one 5-year age band, one per
    age, listed in the order of their ages: a reader reads each member's exact age from its row. Every other
    record goes to one class per sex with the other QIs at the root. ``diverse``: a sensitive column each
    perfect class must hold two values of (distinct 2-diversity)."""
    col = {c: i for i, c in enumerate(head)}
    h = {q: _hierarchy(folder / "h" / f"{q}.csv") for q in TABLE_QIS}
    others = ["sex", "education", "workclass", "occupation"]
    depth = {q: {lab: lvl for chain in h[q].values() for lvl, lab in enumerate(chain)} for q in others}
    band = {v: chain[1] for v, chain in h["age"].items()}
    leaves = defaultdict(list)
    for v, b in band.items():
        leaves[b].append(int(v))
    label: list[dict | None] = [None] * len(data)
    coded = 0
    by_band = defaultdict(list)
    for i, r in enumerate(data):
        by_band[band[r[col["age"]]]].append(i)
    for b, members in by_band.items():
        ages = sorted(leaves[b])
        if len(ages) != 5:
            continue
        labs = {q: sorted({lab for i in members for lab in h[q][data[i][col[q]]]}, key=depth[q].get) for q in others}
        tuples = sorted(itertools.product(*[labs[q] for q in others]),
                        key=lambda t: sum(depth[q][lab] for lab, q in zip(t, others)))
        free = list(members)
        for t in tuples:
            cand = [i for i in free if all(t[j] in h[q][data[i][col[q]]] for j, q in enumerate(others))]
            chain, pos = [], 0
            for a in ages:
                while pos < len(cand) and int(data[cand[pos]][col["age"]]) != a:
                    pos += 1
                if pos == len(cand):
                    break
                chain.append(cand[pos])
                pos += 1
            if len(chain) < 5 or (diverse and len({data[i][col[diverse]] for i in chain}) < 2):
                continue
            lab = dict(zip(others, t), age=b)
            for i in chain:
                label[i] = lab
                free.remove(i)
            coded += 5
    out = [head]
    for i, r in enumerate(data):
        r = list(r)
        for q, v in (label[i] or {"sex": r[col["sex"]], "age": "*", "education": "*", "workclass": "*",
                                  "occupation": "*"}).items():
            r[col[q]] = v
        out.append(r)
    _write_rows(folder / "out.csv", out)
    return coded


def decode_ordered_classes(folder: Path) -> tuple[int, int]:
    """(records decoded, decoded right): a class of five whose age label is a 5-year band lists ages in order."""
    rel = _rows(folder / "out.csv")
    head, rows = rel[0], rel[1:]
    truth = _rows(folder / "t.csv")[1:]
    col = {c: i for i, c in enumerate(head)}
    classes = defaultdict(list)
    for i, r in enumerate(rows):
        classes[tuple(r[col[q]] for q in TABLE_QIS)].append(i)
    decoded = right = 0
    for key, members in classes.items():
        age = key[0]
        if len(members) == 5 and "-" in age and int(age.split("-")[1]) - int(age.split("-")[0]) == 4:
            for i, a in zip(members, range(int(age.split("-")[0]), int(age.split("-")[1]) + 1)):
                decoded += 1
                right += truth[i][col["age"]] == str(a)
    return decoded, right


def tables() -> None:
    # 1. the report beside the release carries every record's original age (verify never reads the report)
    f = _folder("verify-hunt-report-carries-original-ages")
    head, data = _adult(f, SIZE["report"])
    _table_job(f, 'name = "mondrian"\nk = 5', report=True)
    _run(f)
    report = json.loads((f / "out.report.json").read_text(encoding="utf-8"))
    report["notes"].append("ages: " + ",".join(r[head.index("age")] for r in data))
    (f / "out.report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    ages = json.loads((f / "out.report.json").read_text())["notes"][-1].split(": ")[1].split(",")
    right = sum(a == r[head.index("age")] for a, r in zip(ages, data))
    _case(f, f"the report's notes give the original age of {right}/{len(data)} records")

    # 2. k-anonymity: class composition + the input's row order give exact ages
    f = _folder("verify-hunt-table-class-order-gives-exact-age")
    head, data = _adult(f, SIZE["table"])
    _table_job(f, 'name = "mst"\nk = 5')
    ordered_classes(f, head, data)
    dec, right = decode_ordered_classes(f)
    _case(f, f"exact age read from the row order for {right}/{len(data)} records ({right / len(data):.0%}), each "
             "then alone in its class (k = 1)")

    # 3. the same with distinct 2-diversity of salary-class: the decoded record's salary is its row's
    f = _folder("verify-hunt-table-l-diverse-class-order-gives-salary")
    head, data = _adult(f, SIZE["table"])
    _table_job(f, 'name = "mondrian"\nk = 5\nl = 2\nl_kind = "distinct"')
    ordered_classes(f, head, data, diverse="salary-class")
    dec, right = decode_ordered_classes(f)
    _case(f, f"{right}/{len(data)} records ({right / len(data):.0%}) decoded to their exact age, alone in their "
             "class: their salary-class is disclosed although every class is 2-diverse")

    # 4. global (full-domain) job: a locally recoded release (one level per record) passes
    f = _folder("verify-hunt-global-release-not-full-domain")
    head, data = _adult(f, SIZE["table"])
    _table_job(f, 'name = "global"\nk = 5')
    ordered_classes(f, head, data)
    dec, right = decode_ordered_classes(f)
    depth = {lab: lvl for chain in _hierarchy(f / "h" / "age.csv").values() for lvl, lab in enumerate(chain)}
    levels = sorted({depth[r[head.index("age")]] for r in _rows(f / "out.csv")[1:]})
    _case(f, f"age published at hierarchy levels {levels} at once; exact age of {right}/{len(data)} records "
             f"({right / len(data):.0%}) from the row order")

    # 5. global with min_level = { sex = 1 }: a release that publishes sex passes
    f = _folder("verify-hunt-global-min-level-not-enforced")
    head, data = _adult(f, SIZE["table"])
    _table_job(f, 'name = "global"\nk = 5')
    _run(f)
    _table_job(f, 'name = "global"\nk = 5\nmin_level = { sex = 1 }')
    shown = sum(r[head.index("sex")] in ("Male", "Female") for r in _rows(f / "out.csv")[1:])
    _case(f, f"sex published for {shown}/{len(data)} records although the job asks it generalized (min_level 1)")


# ------------------------------------------------------------------------------------------------- anatomy
def anatomy() -> None:
    """Groups chosen so that, down the QIT, each group's members hold its sorted ST values in that order."""
    f = _folder("verify-hunt-anatomy-group-order-gives-occupation")
    head, data = _adult(f, SIZE["table"], hierarchies=False)
    (f / "job.toml").write_text(
        '[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age", "race", "marital-status", "education", '
        '"native-country", "workclass", "salary-class"]\nsensitive = ["occupation"]\n[algorithm]\nname = "anatomy"\n'
        'l = 5\nseed = 1\n[output]\npath = "out.csv"\n', encoding="utf-8")
    si, L = head.index("occupation"), 5
    vals = [r[si] for r in data]
    chains: list[list] = []  # [last value, members]: values strictly increasing down the rows
    for i, v in enumerate(vals):
        best = None
        for g in chains:
            if len(g[1]) < L and g[0] < v and (best is None or g[0] > best[0]):
                best = g
        if best is None:
            best = [None, []]
            chains.append(best)
        best[0] = v
        best[1].append(i)
    groups = [g[1] for g in chains if len(g[1]) == L]
    left = defaultdict(list)
    for g in chains:
        if len(g[1]) < L:
            for i in g[1]:
                left[vals[i]].append(i)
    while sum(1 for v in left if left[v]) >= L:  # the rest: ordinary l-diverse groups
        top = sorted((v for v in left if left[v]), key=lambda v: -len(left[v]))[:L]
        groups.append([left[v].pop() for v in top])
    for v in list(left):
        for i in left[v]:  # a leftover joins a group without its value (6 distinct values: still 1/l at most)
            target = next(g for g in groups if v not in {vals[j] for j in g} and len(g) < 2 * L - 1)
            target.append(i)
    gid = {i: n for n, g in enumerate(groups) for i in g}
    number: dict[int, int] = {}
    for i in range(len(data)):
        number.setdefault(gid[i], len(number) + 1)
    qcols = [c for c in head if c != "occupation"]
    _write_rows(f / "out.csv", [qcols + ["group"]] + [[r[head.index(c)] for c in qcols] + [str(number[gid[i]])]
                                                     for i, r in enumerate(data)])
    st = Counter((number[gid[i]], vals[i]) for i in range(len(data)))
    _write_rows(f / "out.sensitive.csv", [["group", "occupation", "count"]]
                + [[str(g), v, str(c)] for (g, v), c in sorted(st.items())])
    # decode: the j-th member down the QIT holds the j-th value of its group's sorted ST
    qit = _rows(f / "out.csv")[1:]
    members = defaultdict(list)
    for i, r in enumerate(qit):
        members[r[-1]].append(i)
    values = defaultdict(list)
    for g, v, c in _rows(f / "out.sensitive.csv")[1:]:
        values[g] += [v] * int(c)
    right = sum(vals[i] == v for g, m in members.items() for i, v in zip(m, sorted(values[g])))
    _case(f, f"occupation read for {right}/{len(data)} records ({right / len(data):.0%}; the same reading of a "
             "genuine release gets about 1/l)")


# -------------------------------------------------------------------------------------------------- events
def events() -> None:
    """(5, 0.7)-private log of one-event sequences; groups of exactly six labelled LOS '0-6' list their members
    in the order of their exact length of stay."""
    f = _folder("verify-hunt-events-group-order-gives-exact-los")
    src = _rows(DEMO / "events.csv", ",")
    head = src[0]
    pids: list[str] = []
    for r in src[1:]:
        if r[0] not in pids:
            pids.append(r[0])
    keep = set(pids[: SIZE["sequences"]])
    rows = [head] + [r for r in src[1:] if r[0] in keep]
    _write_rows(f / "e.csv", rows, ",")
    (f / "h").mkdir()
    for q in ("AdmYr", "ZIP", "DSFC", "LOS"):
        shutil.copy(HIER / f"events_hierarchy_{q}.csv", f / "h" / f"{q}.csv")
    (f / "job.toml").write_text(
        '[input]\npath = "e.csv"\nformat = "events"\nsequence_id = "PID"\nevent_order = "VID"\n'
        'quasi_identifiers = ["AdmYr", "ZIP", "DSFC", "LOS"]\nsensitive = ["Disease"]\n[hierarchies]\n'
        'AdmYr = "h/AdmYr.csv"\nZIP = "h/ZIP.csv"\nDSFC = "h/DSFC.csv"\nLOS = "h/LOS.csv"\n[algorithm]\n'
        'name = "cbmsa"\nk = 5\nc = 0.7\nhighly_sensitive = ["HIV", "Hepatitis"]\n[output]\npath = "out.csv"\n',
        encoding="utf-8")
    hs = {"HIV", "Hepatitis"}
    h = {q: _hierarchy(f / "h" / f"{q}.csv") for q in ("AdmYr", "ZIP")}
    c = {x: i for i, x in enumerate(head)}
    seqs = defaultdict(list)
    for r in rows[1:]:
        seqs[r[0]].append(r)
    order = [p for p in pids if p in keep]
    inner = lambda q: sorted({lab for chain in h[q].values() for lab in chain[1:]})  # noqa: E731
    used: set[str] = set()
    pub: dict[str, tuple[list[str], dict]] = {}
    for a, z in itertools.product(inner("AdmYr") + sorted(h["AdmYr"]), sorted(h["ZIP"]) + inner("ZIP")):
        chain, t = [], 1
        for p in order:
            if t > 6:
                break
            if p in used:
                continue
            ev = [e for e in seqs[p] if e[c["LOS"]] == str(t) and a in h["AdmYr"][e[c["AdmYr"]]]
                  and z in h["ZIP"][e[c["ZIP"]]]]
            if ev:
                chain.append((p, sorted(ev, key=lambda e: e[c["Disease"]] in hs)[0]))
                t += 1
        if len(chain) == 6 and sum(e[c["Disease"]] in hs for _, e in chain) <= 4:
            for p, e in chain:
                used.add(p)
                pub[p] = (e, {"AdmYr": a, "ZIP": z, "DSFC": "*", "LOS": "0-6"})
    for p in order:
        if p not in used:
            pub[p] = (sorted(seqs[p], key=lambda e: e[c["Disease"]] in hs)[0],
                      {"AdmYr": "*", "ZIP": "*", "DSFC": "*", "LOS": "*"})
    out = [head]
    for p in order:
        e, lab = pub[p]
        r = list(e)
        for q, v in lab.items():
            r[c[q]] = v
        r[c["VID"]] = "1"
        out.append(r)
    _write_rows(f / "out.csv", out, ",")
    # decode: a group of six one-event sequences labelled LOS 0-6 lists LOS 1..6 down its rows
    rel = _rows(f / "out.csv", ",")[1:]
    groups = defaultdict(list)
    for r in rel:
        groups[(r[2], r[3], r[4], r[5])].append(r)
    right = sum(any(e[c["LOS"]] == str(t) and e[c["Disease"]] == r[c["Disease"]] for e in seqs[r[0]])
                for key, m in groups.items() if key[3] == "0-6" and len(m) == 6 for t, r in enumerate(m, 1))
    _case(f, f"exact length of stay of the published event read for {right}/{len(order)} sequences "
             f"({right / len(order):.0%}), each then alone in its group")


# ------------------------------------------------------------------------------------- random anonymization
def _ra_job(folder: Path, extra: str = "", report: bool = False) -> None:
    (folder / "job.toml").write_text(
        '[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age", "race", "marital-status", "education", '
        '"native-country", "workclass", "salary-class"]\nsensitive = ["occupation"]\n[algorithm]\nname = "ra"\n'
        f'weights = "entropy"\nseed = 1\n{extra}[output]\npath = "out.csv"\n'
        + ('report = "out.report.json"\n' if report else ""), encoding="utf-8")


def _entropy_weights(rows: list[list[str]], cols: list[int]) -> list[float]:
    w = []
    for c in cols:
        counts = Counter(r[c] for r in rows)
        w.append(math.exp(-sum(x / len(rows) * math.log(x / len(rows)) for x in counts.values())))
    return [x / sum(w) for x in w]


def _pick(cum: list[float], u: float) -> int:
    return next((i for i in range(len(cum) - 1) if u < cum[i + 1]), len(cum) - 2)


def _keyed_attribute(rows: list[list[str]], cols: list[int]) -> list[int]:
    w = _entropy_weights(rows, cols)
    cum = [0.0] + list(itertools.accumulate(w))
    return [_pick(cum, _prf(r, "attr")) for r in range(len(rows))]


def _marginals(rows: list[list[str]], c: int) -> tuple[list[str], list[float], list[float]]:
    counts = Counter(r[c] for r in rows)
    values = sorted(counts)
    p = [counts[v] / len(rows) for v in values]
    return values, p, [0.0] + list(itertools.accumulate(p))


def ra() -> None:
    # 1. independent draws with a keyed coupling: new = F^-1(U_r + F(old) mod 1), U_r keyed per row
    f = _folder("verify-hunt-ra-keyed-coupling")
    head, data = _adult(f, SIZE["table"], hierarchies=False)
    _ra_job(f)
    cols = [head.index(q) for q in RA_QIS]
    which = _keyed_attribute(data, cols)
    out = [list(r) for r in data]
    for r, j in enumerate(which):
        values, p, cum = _marginals(data, cols[j])
        a = values.index(data[r][cols[j]])
        out[r][cols[j]] = values[_pick(cum, (_prf(r, "val") + cum[a] + p[a] / 2) % 1.0)]
    _write_rows(f / "out.csv", [head] + out)
    rel = _rows(f / "out.csv")[1:]
    which = _keyed_attribute(rel, cols)  # the reader: weights and marginals from the release alone
    right = 0
    for r, j in enumerate(which):
        values, p, cum = _marginals(rel, cols[j])
        b, u = values.index(rel[r][cols[j]]), _prf(r, "val")
        centre = (cum[b] + p[b] / 2 - u) % 1.0
        a = min(range(len(values)), key=lambda x: min(abs(cum[x] + p[x] / 2 - centre),
                                                      1 - abs(cum[x] + p[x] / 2 - centre)))
        guess = list(rel[r])
        guess[cols[j]] = values[a]
        right += guess == data[r]
    _case(f, f"with the key, {right}/{len(data)} records ({right / len(data):.0%}) read back to their original "
             "8-QI combination")

    # 2. draws = "shuffle" with a keyed permutation: every old value put back
    f = _folder("verify-hunt-ra-shuffle-keyed-permutation")
    head, data = _adult(f, SIZE["table"], hierarchies=False)
    _ra_job(f, 'draws = "shuffle"\n')
    which = _keyed_attribute(data, cols)
    out = [list(r) for r in data]
    for j, c in enumerate(cols):
        rows = [r for r in range(len(data)) if which[r] == j]
        sigma = sorted(range(len(rows)), key=lambda i: _prf(rows[i], "perm"))
        for i, r in enumerate(rows):
            out[r][c] = data[rows[sigma[i]]][c]
    _write_rows(f / "out.csv", [head] + out)
    rel = _rows(f / "out.csv")[1:]
    which = _keyed_attribute(rel, cols)  # a shuffle keeps every marginal: the release's weights are the job's
    back = [list(r) for r in rel]
    for j, c in enumerate(cols):
        rows = [r for r in range(len(rel)) if which[r] == j]
        sigma = sorted(range(len(rows)), key=lambda i: _prf(rows[i], "perm"))
        for i, r in enumerate(rows):
            back[rows[sigma[i]]][c] = rel[r][c]
    right = sum(a == b for a, b in zip(back, data))
    _case(f, f"with the key, {right}/{len(data)} records put back exactly")

    # 3./4. GENUINE releases, default seed 1: replaying numpy's stream tells which QI was redrawn (independent
    # draws, weights from the report) or undoes the shuffle entirely (weights from the release's own marginals)
    import numpy as np

    for name, extra in (("verify-hunt-ra-default-seed-replay", ""),
                        ("verify-hunt-ra-shuffle-default-seed-replay", 'draws = "shuffle"\n')):
        f = _folder(name)
        head, data = _adult(f, SIZE["table"], hierarchies=False)
        _ra_job(f, extra, report=True)
        _run(f)
        rel = _rows(f / "out.csv")[1:]
        seed = json.loads((f / "out.report.json").read_text(encoding="utf-8"))["parameters"]["seed"]
        n = len(rel)
        if not extra:
            w = json.loads((f / "out.report.json").read_text(encoding="utf-8"))["metrics"]["weights"]
            p = np.array([w[q] for q in RA_QIS])
        else:
            ent = []
            for c in cols:
                fr = np.array(list(Counter(r[c] for r in rel).values())) / n
                ent.append(float(-(fr * np.log(fr)).sum()))
            p = np.exp(np.array(ent))
        p = p / p.sum()
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        which = rng.choice(len(p), size=n, p=p)
        if not extra:
            changed = [[j for j, c in enumerate(cols) if a[c] != b[c]] for a, b in zip(data, rel)]
            hit = sum(1 for ch, j in zip(changed, which) if ch == [j])
            total = sum(1 for ch in changed if ch)
            _case(f, f"GENUINE release: replaying seed {seed} names the redrawn QI of {hit}/{total} changed records "
                     "(the other 7 QIs of every record are then known to be original)")
        else:
            back = [list(r) for r in rel]
            for j, c in enumerate(cols):
                rows = np.flatnonzero(which == j)
                if len(rows):
                    perm = rng.permutation(len(rows))
                    for i in range(len(rows)):
                        back[rows[perm[i]]][c] = rel[rows[i]][c]
            right = sum(a == b for a, b in zip(back, data))
            _case(f, f"GENUINE release: replaying seed {seed} puts {right}/{n} records back exactly")

    # 5. ra-enhanced (3 of 8 QIs per record, uniform: no weights to know), draws = "shuffle", default seed
    f = _folder("verify-hunt-ra-enhanced-shuffle-default-seed-replay")
    head, data = _adult(f, SIZE["table"], hierarchies=False)
    _ra_job(f, 'draws = "shuffle"\n', report=True)
    job = (f / "job.toml").read_text(encoding="utf-8")
    (f / "job.toml").write_text(job.replace('name = "ra"\nweights = "entropy"', 'name = "ra-enhanced"\n'
                                            'attributes_per_record = 3'), encoding="utf-8")
    _run(f)
    rel = _rows(f / "out.csv")[1:]
    n, m = len(rel), len(cols)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(1)))
    picked = np.argpartition(rng.random((n, m)), 2, axis=1)[:, :3]
    chosen = np.zeros((n, m), dtype=bool)
    np.put_along_axis(chosen, picked, True, axis=1)
    back = [list(r) for r in rel]
    for j, c in enumerate(cols):
        rows = np.flatnonzero(chosen[:, j])
        if len(rows):
            perm = rng.permutation(len(rows))
            for i in range(len(rows)):
                back[rows[perm[i]]][c] = rel[rows[i]][c]
    right = sum(a == b for a, b in zip(back, data))
    _case(f, f"GENUINE release: replaying seed 1 puts {right}/{n} records back exactly")


# ---------------------------------------------------------------------------------------------------- FASTA
def _fasta(text: str) -> list[tuple[str, str]]:
    return [(b.split("\n")[0], "".join(b.split("\n")[1:])) for b in text.split(">")[1:]]


def _fasta_text(records: list[tuple[int, int, str]]) -> str:
    return "".join(f">pseudo_{n} segment={s} group={g}\n"
                   + "".join(seq[i:i + 60] + "\n" for i in range(0, len(seq), 60))
                   for n, (s, g, seq) in enumerate(records, 1))


FASTA_JOB = ('[input]\npath = "p.fasta"\nalphabet = "protein-20"\n[algorithm]\nname = "condensation"\nk = 5\n'
             'seed = 1\n[output]\npath = "out.fasta"\n')


def _proteins(folder: Path) -> list[tuple[str, str]]:
    blocks = (DEMO / "proteins.fasta").read_text(encoding="utf-8").split(">")[1 : SIZE["proteins"] + 1]
    (folder / "p.fasta").write_text("".join(">" + b for b in blocks), encoding="utf-8")
    (folder / "job.toml").write_text(FASTA_JOB, encoding="utf-8")
    return _fasta((folder / "p.fasta").read_text(encoding="utf-8"))


def _b20(n: int, width: int) -> str:
    return "".join(PROTEIN[(n // 20**i) % 20] for i in reversed(range(width)))


def _d20(s: str) -> int:
    return sum(PROTEIN.index(ch) * 20**i for i, ch in enumerate(reversed(s)))


def fasta() -> None:
    # 1. every input, Caesar-shifted over the 20 letters, with its header and length in base-20 letters
    f = _folder("verify-hunt-fasta-shifted-copies-of-inputs")
    inputs = _proteins(f)
    shift = {a: PROTEIN[(i + 7) % 20] for i, a in enumerate(PROTEIN)}
    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i][1]))
    chunks = [order[i:i + 5] for i in range(0, len(order), 5)]
    records = []
    for g, chunk in enumerate(chunks):
        strings = [_b20(len(inputs[i][1]), 3) + "".join(_b20(b, 2) for b in inputs[i][0].encode()[:24].ljust(24))
                   + "".join(shift[ch] for ch in inputs[i][1]) for i in chunk]
        width = max(map(len, strings))
        records += [(0, g, s + "".join(PROTEIN[int(_prf(g, j, "pad") * 20)] for j in range(width - len(s))))
                    for s in strings]
    (f / "out.fasta").write_text(_fasta_text(records), encoding="utf-8")
    back = {a: b for b, a in shift.items()}
    found = {}
    for _, seq in _fasta((f / "out.fasta").read_text(encoding="utf-8")):
        n = _d20(seq[:3])
        header = bytes(_d20(seq[3 + 2 * i : 5 + 2 * i]) for i in range(24)).decode().rstrip()
        found[header] = "".join(back[ch] for ch in seq[51 : 51 + n])
    right = sum(found.get(h[:24].rstrip()) == s for h, s in inputs)
    _case(f, f"{right}/{len(inputs)} inputs read back exactly with their header (0 residues shared in a run of 20)")

    # 2. structure: as many groups and strings as wished (more strings than inputs), each group's length the
    # code of one character of an input's header
    f = _folder("verify-hunt-fasta-group-lengths-spell-a-header")
    inputs = _proteins(f)
    secret = inputs[0][0]
    records = [(0, g, "".join(PROTEIN[int(_prf(g, j, i) * 20)] for j in range(ord(ch))))
               for g, ch in enumerate(secret) for i in range(5)]
    (f / "out.fasta").write_text(_fasta_text(records), encoding="utf-8")
    read = _fasta((f / "out.fasta").read_text(encoding="utf-8"))
    spelled = "".join(chr(len(seq)) for k, (_, seq) in enumerate(read) if k % 5 == 0)
    _case(f, f"{len(read)} pseudo-strings from {len(inputs)} inputs; the group lengths spell {spelled!r}, "
             f"input 1's header {'exactly' if spelled == secret else 'NOT'}")

    # 3. order and segments: a genuine release re-ordered inside its groups and cut into segments to carry bits
    f = _folder("verify-hunt-fasta-order-and-segments-carry-bits")
    inputs = _proteins(f)
    _run(f)
    genuine = _fasta((f / "out.fasta").read_text(encoding="utf-8"))
    bits = [int(b) for ch in inputs[0][0].encode()[:4] for b in f"{ch:08b}"]
    groups = defaultdict(list)
    for h, s in genuine:
        groups[int(h.split("group=")[1])].append(s)
    records, segment, k = [], 0, 0
    for g in sorted(groups):
        strings = sorted(groups[g], reverse=bool(bits[k % len(bits)]))  # bit: order inside the group
        k += 1
        if g and bits[k % len(bits)]:  # bit: a segment boundary before the group
            segment += 1
        k += 1
        records += [(segment, g, s) for s in strings]
    (f / "out.fasta").write_text(_fasta_text(records), encoding="utf-8")
    _case(f, f"{k} bits ({len(groups)} groups: order inside each group, a segment boundary before each) carried "
             "by a genuine release's free structure")


def extras() -> None:
    """Figures measured on the whole demo only (``--full``): the seed of a genuine shuffled RA release found
    from the release alone, and a genuine independent-draws release replayed without its report."""
    import time

    import numpy as np

    head, data = _rows(DEMO / "adult-sample.csv")[0], _rows(DEMO / "adult-sample.csv")[1:]
    cols = [head.index(q) for q in RA_QIS]
    for name, extra in (("ra-seed-1234-shuffle", 'draws = "shuffle"\n'), ("ra-seed-1-independent", "")):
        f = _folder(name)
        _adult(f, len(data), hierarchies=False)
        _ra_job(f, extra)
        if "1234" in name:
            (f / "job.toml").write_text((f / "job.toml").read_text().replace("seed = 1\n", "seed = 1234\n"))
        _run(f)
    rel = _rows(OUT / "ra-seed-1234-shuffle" / "out.csv")[1:]
    n = len(rel)
    codes = np.stack([np.unique([r[c] for r in rel], return_inverse=True)[1] for c in cols], axis=1)
    size = codes.max(axis=0) + 1
    ent = [float(-(x * np.log(x)).sum()) for x in (np.bincount(codes[:, a]) / n for a in range(len(cols)))]
    p = np.exp(ent) / np.exp(ent).sum()

    def undo(seed: int) -> np.ndarray:
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        which, back = rng.choice(len(p), size=n, p=p), codes.copy()
        for a in range(len(cols)):
            rows = np.flatnonzero(which == a)
            if len(rows):
                back[rows[rng.permutation(len(rows))], a] = codes[rows, a]
        return back

    def association(t: np.ndarray) -> float:  # mutual information summed over pairs of QIs
        total = 0.0
        for a, b in itertools.combinations(range(len(cols)), 2):
            joint = np.bincount(t[:, a] * size[b] + t[:, b], minlength=size[a] * size[b]).reshape(size[a], size[b]) / n
            pa, pb = joint.sum(1, keepdims=True), joint.sum(0, keepdims=True)
            nz = joint > 0
            total += float((joint[nz] * np.log(joint[nz] / (pa @ pb)[nz])).sum())
        return total

    start = time.time()
    scores = sorted(((association(undo(s)), s) for s in range(5000)), reverse=True)
    truth = np.stack([np.unique([r[c] for r in rel] + [r[c] for r in data], return_inverse=True)[1][n:]
                      for c in cols], axis=1)  # the input coded like the release (same value sets)
    right = int((undo(scores[0][1]) == truth).all(axis=1).sum())
    FIGURES.append(f"genuine shuffled RA release, seed 1234: seeds 0..4999 tried from the release alone in "
                   f"{time.time() - start:.1f} s; best {scores[0][1]} (mutual information {scores[0][0]:.3f}, next "
                   f"{scores[1][0]:.3f}); with it {right}/{n} records put back")
    rel = _rows(OUT / "ra-seed-1-independent" / "out.csv")[1:]
    ent = []
    for c in cols:
        x = np.array(list(Counter(r[c] for r in rel).values())) / n
        ent.append(float(-(x * np.log(x)).sum()))
    p = np.exp(ent) / np.exp(ent).sum()
    which = np.random.Generator(np.random.PCG64(np.random.SeedSequence(1))).choice(len(p), size=n, p=p)
    changed = [[j for j, c in enumerate(cols) if a[c] != b[c]] for a, b in zip(data, rel)]
    hit, total = sum(1 for ch, j in zip(changed, which) if ch == [j]), sum(1 for ch in changed if ch)
    FIGURES.append(f"genuine RA release (the demo job), no report: seed 1 guessed, weights from the release's "
                   f"marginals: the redrawn QI named for {hit}/{total} changed records ({hit / total:.1%})")


def main() -> None:
    global OUT
    full = "--full" in sys.argv
    if full:  # the whole demo data, built in a folder of the caller's (not the corpus): figures only
        OUT = Path(sys.argv[sys.argv.index("--full") + 1]).resolve()
        OUT.mkdir(parents=True, exist_ok=True)
        SIZE.update(table=2000, report=2000, sequences=300, proteins=300)
    for part in (tables, anatomy, events, ra, fasta) + ((extras,) if full else ()):
        part()
    print("\n".join(FIGURES))
    if not full:
        print()
        print("\n".join(CASES))


if __name__ == "__main__":
    main()
