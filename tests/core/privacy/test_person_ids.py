"""Person ids spelled differently are one person (hunt 2, B_person_id_variants): ``P999``, ``p999``, ``' P999'``,
``'P999 '`` and ``P999`` + NBSP were five people, so one 97-year-old woman's 8 HIV visits passed k = 5 under every
partitioning method and the verifier agreed. Ids are now compared by :func:`person_key` wherever people are counted
(the methods' enforcement and the verifier alike)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import privacy
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.errors import InputError
from anonstudio.core.hierarchy import grouping, intervals
from anonstudio.core.jobs import anonymize as run_in_memory
from anonstudio.core.jobs import release_warnings
from anonstudio.core.privacy._people import check_person_column, person_codes, person_key

SPELLINGS = {
    "mixed": ["P999", "p999", " P999", "P999 ", "P999\u00a0", "P999", "p999", "P999"],
    "case": ["pat999", "Pat999", "PAT999", "pAT999", "paT999", "pat999", "pat999", "pat999"],
    "numeric": ["999", "0999", "00999", "999.0", "+999", "999", "999", "999"],
    "invisible": ["P999", "P\u200b999", "\ufeffP999", "P999\u2009", "\uff30\uff19\uff19\uff19", "P999", "P999", "P999"],
}
PARTITIONING = ("global", "mondrian", "local", "kmember", "mst")


def _hunt_table(variant: str) -> tuple[Table, dict, np.ndarray]:
    """The hunt's table: 200 people with one visit each, and one person (97, F, HIV) with 8 visits whose id is
    spelled several ways; also each record's true person (``her``: her rows)."""
    rng = random.Random(1)
    rows = [{"pid": f"P{i:03d}", "age": rng.choice(range(30, 50)), "sex": rng.choice("MF"),
             "diagnosis": rng.choice(["flu", "asthma", "diabetes", "copd", "migraine"])} for i in range(200)]
    rows += [{"pid": pid, "age": 97, "sex": "F", "diagnosis": "HIV"} for pid in SPELLINGS[variant]]
    frame = pd.DataFrame(rows)
    table = replace(Table(frame).with_roles(["age", "sex"], sensitive=["diagnosis"], identifying=["pid"]),
                    person="pid")
    hs = {"age": intervals("age", frame["age"], [5, 10, 20]),
          "sex": grouping("sex", [{"any": ["M", "F"]}], frame["sex"])}
    her = np.arange(len(frame)) >= 200
    return table, hs, her


def test_person_key_merges_spellings_of_one_id_and_nothing_else():
    for spellings in SPELLINGS.values():
        assert len({person_key(s) for s in spellings}) == 1, spellings
    assert person_key("0.50") == person_key(".5") == "0.5" and person_key("-0") == person_key("0") == "0"
    # letters keep a number-like id apart; different ids stay different
    assert len({person_key(s) for s in ("1e3", "1000", "P1000", "P01000", "Zürich", "Zurich")}) == 6
    assert person_key("\u200b \u00a0") == ""


def test_an_id_of_invisible_characters_only_is_missing():
    frame = pd.DataFrame({"pid": ["a", "\u200b\u00a0"], "age": [1, 2]})
    table = replace(Table(frame).with_roles(["age"], identifying=["pid"]), person="pid")
    with pytest.raises(InputError) as caught:
        check_person_column(table)
    assert caught.value.exit_code == 2 and "no id in 1 record" in str(caught.value)


@pytest.mark.parametrize("variant", sorted(SPELLINGS))
def test_her_spellings_are_one_person_for_the_methods_and_the_verifier(variant):
    table, _, her = _hunt_table(variant)
    codes = person_codes(table)
    assert len(set(codes[her].tolist())) == 1 and len(set(codes.tolist())) == 201
    warned = [w for w in release_warnings(table, table) if "spelled differently" in w]
    distinct = len(set(SPELLINGS[variant]))
    assert len(warned) == 1 and f"{distinct} distinct ids" in warned[0] and "as 1 person" in warned[0]
    assert not any(s.strip() and s.strip() in warned[0] for s in SPELLINGS[variant])  # ids are never named


def _her_class_people(table: Table, output: Table, her: np.ndarray) -> list[int]:
    """The true distinct people of every published class holding one of her rows (fully suppressed rows left
    out): the pid column with her spellings replaced by one id, counted by pandas."""
    frame = output.df
    truth = np.where(her, "HER", table.df["pid"].to_numpy())
    keys = frame["age"].astype(str) + "|" + frame["sex"].astype(str)
    shown = ~((frame["age"].astype(str) == "*") & (frame["sex"].astype(str) == "*")).to_numpy()
    people = pd.Series(truth[shown]).groupby(keys.to_numpy()[shown]).nunique()
    return [int(people[k]) for k in set(keys.to_numpy()[her & shown])]


@pytest.mark.parametrize("method", PARTITIONING)
def test_every_partitioning_method_hides_her_among_five_people(method):
    table, hs, her = _hunt_table("mixed")
    outcome = run_in_memory(table, hs, get(method)(k=5))
    assert outcome.verification.passed
    assert all(n >= 5 for n in _her_class_people(table, outcome.result.output, her))


def test_the_verifier_refuses_the_release_that_counted_her_five_times():
    """The release a method makes when her ids are five people (here: made truly different) publishes her class
    of 8 visits; the verifier, counting by the normalized ids, refuses it."""
    table, hs, her = _hunt_table("mixed")
    apart = table.df.assign(pid=np.where(her, [f"X{i % 5}" for i in range(len(her))], table.df["pid"]))
    outcome = run_in_memory(replace(table, df=apart), hs, get("local")(k=5))
    assert outcome.verification.passed  # five "people" to the method
    spec = {**outcome.model, "person": "pid"}
    verdict = privacy.verify_output(spec, table, outcome.result.output, hs)
    assert not verdict.passed and "of 1 person(s) ('pid')" in " ".join(verdict.problems)


def test_the_cli_run_warns_with_a_count_and_writes_no_id(tmp_path):
    table, _, _ = _hunt_table("mixed")
    table.df.to_csv(tmp_path / "visits.csv", index=False)
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "visits.csv"\nquasi_identifiers = ["age", "sex"]\nsensitive = ["diagnosis"]\n'
        'person = "pid"\n[hierarchies]\nage = { intervals = [5, 10, 20] }\n'
        'sex = { groups = [ { any = ["M", "F"] } ] }\n[algorithm]\nname = "mst"\nk = 5\n'
        '[output]\npath = "out.csv"\nreport = "out.json"\nshuffle_rows = true\n', encoding="utf-8")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "5 distinct ids" in done.stderr and "counted as 1 person" in done.stderr
    again = subprocess.run([sys.executable, "-m", "anonstudio", "verify", "job.toml"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    release = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert ((release["age"] == "97") & (release["diagnosis"] == "HIV")).sum() == 0
    written = (tmp_path / "out.json").read_text(encoding="utf-8") + (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert "P999" not in written and "p999" not in written
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
