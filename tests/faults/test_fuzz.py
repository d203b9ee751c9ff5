"""Issue 29, item 8: the fuzz generators of the fault sweep, with a fixed seed — job files and input files
mutated at random, each run through the command line's ``main``: never exit 3 (a defect), never a changed input,
never a staging file left behind; exit 2 says why on one line; exit 0 has published a whole release.

The mutations are those that found the exit-3 cases of issue 29 (values of every TOML type at every key —
times, huge and non-finite numbers, NUL characters, deep nesting —, and damaged input bytes); a new failure
prints the mutation that caused it, to be added to ``tests/bad_inputs/cases.csv``.
"""

from __future__ import annotations

import datetime
import random
import shutil
from pathlib import Path

import pytest
import tomli_w

from anonstudio.cli.main import main
from tests.faults.conftest import record

pytestmark = pytest.mark.faults

SEED = 29
JOBS = {
    "table": {"input": {"path": "t.csv", "quasi_identifiers": ["sex", "age"], "sensitive": ["occupation"]},
              "hierarchies": {"sex": {"groups": [{"*": ["Male", "Female"]}]}, "age": {"intervals": [5, 10, 20]}},
              "algorithm": {"name": "mondrian", "k": 3, "l": 2},
              "output": {"path": "out/o.csv", "report": "out/o.json"}},
    "anatomy": {"input": {"path": "t.csv", "quasi_identifiers": ["sex", "age"], "sensitive": ["occupation"]},
                "algorithm": {"name": "anatomy", "l": 2},  # its draws: the release key
                "output": {"path": "out/o.csv", "report": "out/o.json"}},
    "ra": {"input": {"path": "t.csv", "quasi_identifiers": ["sex", "age", "race"], "sensitive": ["occupation"]},
           "algorithm": {"name": "ra", "weights": "entropy", "bias_runs": 2},
           "output": {"path": "out/o.csv", "report": "out/o.json"}},
    "events": {"input": {"path": "e.csv", "format": "events", "sequence_id": "PID", "event_order": "VID",
                         "quasi_identifiers": ["AdmYr", "LOS"], "sensitive": ["Disease"]},
               "hierarchies": {"AdmYr": {"intervals": [2, 4]}, "LOS": {"intervals": [5, 10, 20, 40]}},
               "algorithm": {"name": "cbmsa", "k": 2, "c": 0.7, "highly_sensitive": ["HIV"]},
               "output": {"path": "out/o.csv", "report": "out/o.json"}},
    "fasta": {"input": {"path": "p.fasta"}, "algorithm": {"name": "condensation", "k": 3, "seed": 1},
              "output": {"path": "out/o.fasta", "report": "out/o.json"}},
}
KEYS = {"input": ["path", "format", "quasi_identifiers", "sensitive", "identifying", "encoding", "delimiter",
                  "missing", "sequence_id", "event_order", "label_pattern", "alphabet"],
        "algorithm": ["name", "k", "l", "c", "seed", "weights", "bias_runs", "max_fragment", "epsilon", "order",
                      "highly_sensitive", "max_suppression", "attributes_per_record", "level", "leftover"],
        "output": ["path", "report", "shuffle_rows", "shuffle_seed"],
        "hierarchies": ["sex", "age", "AdmYr", "LOS", "zip"],
        "execution": ["engine", "workers", "scheduler"]}


def _nested(depth: int) -> list:
    value = inner = []
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return value


#: TOML values of every type, many of them at a boundary
POOL = [
    0, 1, -1, 2, 7, 2**31, 2**63 - 1, 2**63, -(2**63), 10**30, 0.5, -0.0, 1e308, 1e-308, float("inf"), float("nan"),
    True, False, "", "x", "t.csv", "../t.csv", "/dev/zero", "job.toml", "out/o.json", "a\x00b", "é" * 300,
    "rot13", "base64", "utf-16", "\t", ";", "entropy", "uniform", "HIV", "*",
    datetime.time(7, 32), datetime.date(1979, 5, 27), datetime.datetime(1979, 5, 27, 7, 32),
    [], [1], ["sex"], ["age", "age"], [[1, [2]]], {}, {"mask": "*"}, {"intervals": [1] * 150},
    {"intervals": [5, 7]}, {"groups": []}, {"date": ["year"]}, {"sex": 2.0, "age": -1}, _nested(5), _nested(40),
]


def _value(rng: random.Random):
    return rng.choice(POOL)


def _every_value_at_every_key() -> list[tuple[str, dict, str]]:
    """Each value of :data:`POOL` at each key the five jobs have (and ``algorithm.seed``): the systematic half."""
    cases = []
    for kind, base in JOBS.items():
        keys = [(section, key) for section, values in base.items() for key in values] + [("algorithm", "seed")]
        for section, key in dict.fromkeys(keys):
            for value in POOL:
                job = {sec: dict(values) for sec, values in base.items()}
                job[section][key] = value
                cases.append((kind, job, f"{kind}: {section}.{key} = {value!r:.60}"))
    return cases


def _mutated_job(rng: random.Random) -> tuple[str, dict, str]:
    kind = rng.choice(sorted(JOBS))
    job = {section: dict(values) for section, values in JOBS[kind].items()}
    section = rng.choice(sorted(KEYS))
    key = rng.choice(KEYS[section])
    if rng.random() < 0.1 and key in job.get(section, {}):
        del job[section][key]
        what = f"{kind}: {section}.{key} removed"
    else:
        value = _value(rng)
        job.setdefault(section, {})[key] = value
        what = f"{kind}: {section}.{key} = {value!r:.60}"
    return kind, job, what


def _damaged(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Input bytes damaged one way."""
    cut = rng.randrange(1, max(2, len(data)))
    ways = {
        "truncated": lambda: data[:cut],
        "a NUL byte": lambda: data[:cut] + b"\x00" + data[cut:],
        "a byte that is no UTF-8": lambda: data[:cut] + b"\xff\xfe" + data[cut:],
        "a byte-order mark": lambda: b"\xef\xbb\xbf" + data,
        "CRLF line ends": lambda: data.replace(b"\n", b"\r\n"),
        "no header": lambda: data.split(b"\n", 1)[-1],
        "only the header": lambda: data.split(b"\n", 1)[0] + b"\n",
        "a ragged row": lambda: data + b"1,2\n",
        "a blank line inside": lambda: data[:cut] + b"\n\n" + data[cut:],
        "a quote left open": lambda: data[:cut] + b'"' + data[cut:],
        "empty": lambda: b"",
        "random bytes": lambda: bytes(rng.randrange(256) for _ in range(200)),
        "a duplicated header": lambda: data.split(b"\n", 1)[0] + b"\n" + data,
        "a 200 kB cell": lambda: data.replace(b"\n", b"," + b"9" * 200_000 + b"\n", 1),
    }
    how = rng.choice(sorted(ways))
    return ways[how](), how


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    from anonstudio.core.generate import adult_like_table, hhp_events, protein_like

    folder = tmp_path_factory.mktemp("fuzz-inputs")
    adult_like_table(60, seed=5).to_csv(folder / "t.csv", index=False)
    hhp_events(16, mean_events=3, n_qis=4, seed=5).to_csv(folder / "e.csv", index=False)
    ids, seqs = protein_like(24, seed=5, mean_length=60, min_length=30, max_length=120)
    (folder / "p.fasta").write_text("".join(f">{i}\n{s}\n" for i, s in zip(ids, seqs)))
    return folder


def _run_case(work: Path, job: dict, capsys, codes: dict) -> list[str]:
    out = job.get("output") or {}
    targets = {str(out.get(k)) for k in ("path", "report") if isinstance(out.get(k), str)}
    # every file of the folder but the job's own targets (a job may write over a file it does not read)
    before = {p.name: p.read_bytes() for p in work.iterdir() if p.is_file() and p.name not in targets}
    code = main(["run", "job.toml", "--quiet"])
    codes[code] = codes.get(code, 0) + 1
    err = capsys.readouterr().err
    problems = []
    if code not in (0, 1, 2):
        problems.append(f"exit {code}: {err.strip()[-400:]}")
    said = [line for line in err.splitlines() if line.startswith("anonstudio:") and ": warning:" not in line
            and ": note:" not in line]
    if code == 2 and len(said) != 1:
        problems.append(f"exit 2 with {len(said)} lines: {err.strip()[-400:]}")
    if "internal error" in err:
        problems.append(f"internal error: {err.strip()[-400:]}")
    for name, data in before.items():
        if (work / name).read_bytes() != data:
            problems.append(f"input {name} changed")
    left = [p.name for p in work.rglob(".anonstudio.*")]
    if left:
        problems.append(f"staging files left: {left}")
    if code == 0:
        published = [work / out["path"]] + ([work / out["report"]] if isinstance(out.get("report"), str) else [])
        if not all(p.is_file() and p.stat().st_size for p in published):
            problems.append("exit 0 without a whole release")
    return problems


SYSTEMATIC = _every_value_at_every_key()


@pytest.mark.parametrize(("generator", "count"), [("every value at every key", len(SYSTEMATIC)),
                                                  ("random job files", 600), ("damaged input files", 256)])
def test_fuzzed_inputs_never_exit_3_nor_change_an_input(inputs, tmp_path, monkeypatch, capsys, generator, count):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    rng = random.Random(f"{SEED}-{generator}")
    failed: dict[str, list[str]] = {}
    codes: dict[int, int] = {}
    ran = 0
    for i in range(count):
        work = tmp_path / f"case-{i}"
        shutil.copytree(inputs, work)
        kind, job, what = (SYSTEMATIC[i] if generator == "every value at every key" else
                           _mutated_job(rng) if generator == "random job files" else (None, None, None))
        if generator == "damaged input files":
            kind = rng.choice(sorted(JOBS))
            job = JOBS[kind]
            source = work / Path(job["input"]["path"]).name
            damaged, how = _damaged(source.read_bytes(), rng)
            source.write_bytes(damaged)
            what = f"{kind}: {source.name} with {how}"
        try:
            text = tomli_w.dumps(job)
        except (TypeError, ValueError):  # a value TOML cannot hold
            shutil.rmtree(work)
            continue
        (work / "job.toml").write_text(text, encoding="utf-8")
        monkeypatch.chdir(work)
        ran += 1
        problems = _run_case(work, job, capsys, codes)
        if problems:
            failed[f"{i} ({what})"] = problems
        else:
            shutil.rmtree(work)
    record(f"fuzzed {generator} (seed {SEED})", ran, ran - len(failed))
    assert ran >= 0.9 * count
    assert codes.get(0, 0) >= 0.05 * ran, codes  # the mutations leave some jobs valid: the generator is not vacuous
    assert not failed, "\n".join(f"{case}: {'; '.join(p)}" for case, p in failed.items())
