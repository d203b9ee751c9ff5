"""Builds the corpus cases of covert channels in the bytes of a release (issue 28): each folder holds a small
input, a job and a *genuine* release of it (made by ``anonstudio run``) that was then tampered with the way an
attacker would hide something, so ``anonstudio verify job.toml`` must exit 1 naming the difference.

Run from the project root (it rewrites the ``verify-covert-*`` folders and prints the lines for cases.csv)::

    python tests/bad_inputs/_make_covert_channels.py
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parents[1] / "anonstudio" / "resources" / "demo"

TABLE_JOB = """[input]
path = "t.csv"
quasi_identifiers = ["age", "sex"]
sensitive = ["occupation"]
[hierarchies]
age = {{ intervals = [10, 20] }}
sex = "sex.csv"
[algorithm]
name = "{method}"
{params}
[output]
path = "{out}"
"""

EVENTS_JOB = """[input]
path = "e.csv"
format = "events"
sequence_id = "PID"
event_order = "VID"
quasi_identifiers = ["AdmYr"]
sensitive = ["Disease"]
[hierarchies]
AdmYr = {{ intervals = [2, 4] }}
[algorithm]
name = "cbmsa"
k = 3
c = 0.7
highly_sensitive = ["HIV"]
[output]
path = "out.csv"
"""

FASTA_JOB = """[input]
path = "p.fasta"
alphabet = "protein-20"
[algorithm]
name = "condensation"
k = 5
seed = 1
[output]
path = "out.fasta"
"""


def _run(folder: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml", "--quiet"], cwd=folder,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{folder.name}: the genuine run failed: {done.stderr}")


def _table_base(name: str, method: str = "mondrian", params: str = "k = 3\nmax_suppression = 0.5",
                out: str = "out.csv") -> Path:
    folder = HERE / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    rows = list(csv.reader(io.StringIO((DEMO / "adult-sample.csv").read_text(encoding="utf-8")), delimiter=";"))
    head = rows[0]
    keep = [head.index(c) for c in ("age", "sex", "education", "occupation")]
    lines = [";".join(r[j] for j in keep) for r in rows[:41]]
    (folder / "t.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "sex.csv").write_text("Female;*\nMale;*\n", encoding="utf-8")  # generated here, in our own order
    (folder / "job.toml").write_text(TABLE_JOB.format(method=method, params=params, out=out), encoding="utf-8")
    _run(folder)
    return folder


def _original_ages(folder: Path) -> list[str]:
    rows = (folder / "t.csv").read_text(encoding="utf-8").splitlines()[1:]
    return [r.split(";")[0] for r in rows]


def tables() -> list[str]:
    cases = []
    # 1. quoting encodes one bit per row: a QI cell quoted when the original age is even
    f = _table_base("verify-covert-table-quoting")
    lines = (f / "out.csv").read_text(encoding="utf-8").splitlines()
    ages = _original_ages(f)
    out = [lines[0]] + [
        (f'"{line.split(";")[0]}";' + ";".join(line.split(";")[1:])) if int(a) % 2 == 0 else line
        for line, a in zip(lines[1:], ages)]
    (f / "out.csv").write_text("\n".join(out) + "\n", encoding="utf-8")
    cases.append(f"{f.name},verify job.toml,1,is not in the canonical form")
    # 2. line endings encode one bit per row (CRLF when the original age is odd)
    f = _table_base("verify-covert-table-line-endings")
    lines = (f / "out.csv").read_bytes().split(b"\n")[:-1]
    ages = _original_ages(f)
    data = lines[0] + b"\n" + b"".join(line + (b"\r\n" if int(a) % 2 else b"\n") for line, a in zip(lines[1:], ages))
    (f / "out.csv").write_bytes(data)
    cases.append(f"{f.name},verify job.toml,1,is not in the canonical form")
    # 3. a byte-order mark and a trailing blank line the input did not have
    f = _table_base("verify-covert-table-bom-and-trailing-line")
    (f / "out.csv").write_bytes(b"\xef\xbb\xbf" + (f / "out.csv").read_bytes() + b"\n")
    cases.append(f"{f.name},verify job.toml,1,line 1, byte 1")
    # 4. columns in another order
    f = _table_base("verify-covert-table-column-order")
    rows = [r.split(";") for r in (f / "out.csv").read_text(encoding="utf-8").splitlines()]
    (f / "out.csv").write_text("".join(";".join([r[1], r[0], *r[2:]]) + "\n" for r in rows), encoding="utf-8")
    cases.append(f"{f.name},verify job.toml,1,in that order")
    # 5./6. Parquet: original ages in the schema's key-value metadata; in pandas attrs
    import pyarrow.parquet as pq

    for name, how in (("verify-covert-parquet-key-value-metadata", "metadata"), ("verify-covert-parquet-attrs", "attrs")):
        f = _table_base(name, out="out.parquet")
        table = pq.read_table(f / "out.parquet")
        ages = ",".join(_original_ages(f))
        if how == "metadata":
            table = table.replace_schema_metadata({b"note": ages.encode()})
            pq.write_table(table, f / "out.parquet", compression="snappy", write_statistics=False)
        else:
            frame = table.to_pandas()
            frame.attrs["ages"] = ages
            frame.to_parquet(f / "out.parquet", index=False)
        cases.append(f"{f.name},verify job.toml,1,is not in the canonical form")
    return cases


def anatomy() -> list[str]:
    cases = []
    # a target alone in group '?' beside a group 'NA': both read as missing, merged into one l-diverse group
    f = _table_base("verify-covert-anatomy-missing-group-ids", method="anatomy", params="l = 3\nseed = 1")
    lines = (f / "out.csv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split(";")
    g = head.index("group")
    rows = [r.split(";") for r in lines[1:]]
    target = rows[0][g]
    mates = [i for i, r in enumerate(rows) if r[g] == target]
    rows[mates[0]][g] = "?"
    for i in mates[1:]:
        rows[i][g] = "NA"
    (f / "out.csv").write_text("\n".join([lines[0]] + [";".join(r) for r in rows]) + "\n", encoding="utf-8")
    occ = [r.split(";")[3] for r in (f / "t.csv").read_text(encoding="utf-8").splitlines()[1:]]
    st = (f / "out.sensitive.csv").read_text(encoding="utf-8").splitlines()
    kept = [line for line in st[1:] if line.split(";")[0] != target]
    split = {}
    for i in mates:
        split[(rows[i][g], occ[i])] = split.get((rows[i][g], occ[i]), 0) + 1
    (f / "out.sensitive.csv").write_text("\n".join([st[0]] + [f"{gid};{v};{n}" for (gid, v), n in split.items()] + kept)
                                         + "\n", encoding="utf-8")
    cases.append(f"{f.name},verify job.toml,1,is not in the canonical form")
    # the sensitive table listing each group's values in the order its members appear in the QIT
    f = _table_base("verify-covert-anatomy-st-in-member-order", method="anatomy", params="l = 3\nseed = 1")
    qit = [r.split(";") for r in (f / "out.csv").read_text(encoding="utf-8").splitlines()[1:]]
    occ = [r.split(";")[3] for r in (f / "t.csv").read_text(encoding="utf-8").splitlines()[1:]]
    st = ["group;occupation;count"]
    seen = set()
    for r, value in zip(qit, occ):
        key = (r[-1], value)
        if key in seen:
            continue
        seen.add(key)
        count = sum(1 for q, v in zip(qit, occ) if q[-1] == r[-1] and v == value)
        st.append(f"{r[-1]};{value};{count}")
    groups = sorted({r[-1] for r in qit}, key=int)
    st = [st[0]] + [line for g in groups for line in st[1:] if line.split(";")[0] == g]
    (f / "out.sensitive.csv").write_text("\n".join(st) + "\n", encoding="utf-8")
    cases.append(f"{f.name},verify job.toml,1,out.sensitive.csv line")
    return cases


def events() -> list[str]:
    cases = []
    src = (DEMO / "events.csv").read_text(encoding="utf-8").splitlines()
    head = src[0].split(",")
    keep = [head.index(c) for c in ("PID", "VID", "AdmYr", "Disease")]
    rows = [[r.split(",")[j] for j in keep] for r in src[1:]]
    pids = []
    for r in rows:
        if r[0] not in pids:
            pids.append(r[0])
    chosen = set(pids[:30])
    text = "PID,VID,AdmYr,Disease\n" + "".join(",".join(r) + "\n" for r in rows if r[0] in chosen)
    for name, spell in (("verify-covert-events-zero-padded-numbers", lambda n: f"{n:03d}"),
                        ("verify-covert-events-numbers-spelled-apart", lambda n: (f"{n}.0", f"+{n}", f" {n}")[n % 3])):
        f = HERE / name
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
        (f / "e.csv").write_text(text, encoding="utf-8")
        (f / "job.toml").write_text(EVENTS_JOB.format(), encoding="utf-8")
        _run(f)
        lines = (f / "out.csv").read_text(encoding="utf-8").splitlines()
        out = [lines[0]]
        for line in lines[1:]:
            cells = line.split(",")
            cells[1] = spell(int(cells[1]))
            out.append(",".join(cells))
        (f / "out.csv").write_text("\n".join(out) + "\n", encoding="utf-8")
        cases.append(f"{f.name},verify job.toml,1,is not in the canonical form")
    return cases


def fasta() -> list[str]:
    cases = []
    records = (DEMO / "proteins.fasta").read_text(encoding="utf-8").split(">")[1:41]
    inputs = []
    for i, rec in enumerate(records):
        lines = rec.splitlines()
        acc = f"Q9{i:04d}"
        inputs.append((f"sp|{acc}|GENE{i}_HUMAN Protein {i} OS=Homo sapiens GN=LTB{i} PE=1", "".join(lines[1:])))
    text = "".join(f">{h}\n" + "".join(s[j:j + 60] + "\n" for j in range(0, len(s), 60)) for h, s in inputs)

    def case(name: str, tamper, message: str) -> None:
        f = HERE / name
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
        (f / "p.fasta").write_text(text, encoding="utf-8")
        (f / "job.toml").write_text(FASTA_JOB, encoding="utf-8")
        _run(f)
        (f / "out.fasta").write_text(tamper((f / "out.fasta").read_text(encoding="utf-8")), encoding="utf-8")
        cases.append(f"{f.name},verify job.toml,1,{message}")

    def first_header(fn):
        def tamper(out: str) -> str:
            lines = out.split("\n")
            lines[0] = fn(lines[0])
            return "\n".join(lines)
        return tamper

    case("verify-covert-fasta-description-in-header",
         first_header(lambda h: h + " Protein 3 OS=Homo sapiens"), "is not exactly 'pseudo_<n> segment=<s> group=<g>'")
    case("verify-covert-fasta-gene-name-in-header", first_header(lambda h: h + " GN=LTB3"),
         "is not exactly 'pseudo_<n> segment=<s> group=<g>'")
    case("verify-covert-fasta-accession-split-by-a-dot", first_header(lambda h: h + " Q9.0003"),
         "is not exactly 'pseudo_<n> segment=<s> group=<g>'")
    case("verify-covert-fasta-identifier-as-a-sequence-line",
         lambda out: out.replace("\n", "\nQ90003\n", 1), "are not in the inputs' alphabet")
    lookalike = str.maketrans({"A": "\u0391", "E": "\u0395", "K": "\u039a", "M": "\u041c", "P": "\u0420"})
    case("verify-covert-fasta-lookalike-letters",
         lambda out: "\n".join(line if line.startswith(">") else line.translate(lookalike) for line in out.split("\n")),
         "are not in the inputs' alphabet")
    case("verify-covert-fasta-zero-padded-number", first_header(lambda h: h.replace("pseudo_1 ", "pseudo_01 ")),
         "is not in the canonical form")

    def shorter_first(out: str) -> str:  # one residue less in the first pseudo-string: a length as a bit
        lines = out.split("\n")
        lines[1] = lines[1][:-1]
        return "\n".join(lines)

    case("verify-covert-fasta-length-of-one-string", shorter_first, "different lengths")
    case("verify-covert-fasta-group-numbers-offset",
         lambda out: "\n".join(line.replace(" group=", " group=4") if line.startswith(">") else line
                               for line in out.split("\n")), "is not in the canonical form")
    return cases


if __name__ == "__main__":
    lines = tables() + anatomy() + events() + fasta()
    print("\n".join(lines))
