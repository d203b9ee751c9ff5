"""``anonstudio risk`` (issue 32 item 3): the contract's JSON keys, the summary a user reads, the options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.core.io import read_table
from anonstudio.core.metrics import table_risk

ROOT = Path(__file__).resolve().parents[2]

ROWS = [("Male" if i % 2 else "Female", str(30 + i % 5), "White" if i % 3 else "Black", ["Flu", "HIV", "Cold"][i % 3],
         f"z{i % 4}") for i in range(60)]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "anonstudio", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def table(tmp_path) -> Path:
    path = tmp_path / "t.csv"
    path.write_text("sex;age;race;disease;zip\n" + "".join(";".join(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_json_has_the_contract_keys_and_the_engines_figures(table, tmp_path):
    done = _cli("risk", "t.csv", "--qi", "sex,age", "--sensitive", "disease", "--identifying", "zip", "--json",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert {"table", "quasi_identifiers", "threshold", "population", "records", "suppressed", "classes", "prosecutor",
            "journalist", "marketer", "sample_uniques", "population_uniques", "distribution", "attacks"} <= set(r)
    assert set(r["population"]) == {"size", "sampling_fraction", "source"}
    assert r["population"]["size"] == 317_238_626 and r["population"]["source"].startswith("default")
    for side in ("prosecutor", "journalist"):
        assert set(r[side]) == {"highest", "lowest", "average", "records_at_risk", "records_at_highest"}
    for name in ("pitman", "zayatz", "snb", "dankar"):
        assert {"share", "uniques", "available", "note"} <= set(r["population_uniques"][name])
    assert r["population_uniques"]["dankar"]["model"] in ("pitman", "zayatz", "snb", "none")
    assert set(r["attacks"]["inference"]["disease"]) >= {"homogeneous_classes", "homogeneous_records",
                                                         "inference_rate", "base_rate"}
    # zip is identifying: not published, so the unique figure counts the race column only
    assert r["attacks"]["unique_with_unroled"]["columns"] == ["race"]
    expected = table_risk(read_table(table), ["sex", "age"], sensitive=["disease"], identifying=["zip"])
    assert r == json.loads(json.dumps(expected))
    # 10 classes of 6: every record's risk is 1/6, none above 0.2
    assert r["classes"] == 10 and r["prosecutor"]["highest"] == pytest.approx(1 / 6)
    assert r["prosecutor"]["records_at_risk"] == 0.0 and r["sample_uniques"] == 0.0


def test_summary_says_each_figure_in_words(table, tmp_path):
    done = _cli("risk", "t.csv", "--qi", "sex,age,race", "--sensitive", "disease", "--threshold", "0.1",
                "--sampling-fraction", "0.5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "60 records measured (0 suppressed left out), 20 classes on 3 quasi-identifiers" in out
    assert "population: 120 (--sampling-fraction), sampling fraction 0.5" in out
    assert "records above the threshold 0.1: 100 %" in out  # classes of 3: every risk is 1/3
    assert "journalist risk: the prosecutor's (no population table)" in out
    assert "population uniques: none estimated (no record is unique in the table)" in out
    assert "disease:" in out and "base rate of" in out


def test_population_table_gives_journalist_risk(table, tmp_path):
    bigger = tmp_path / "population.csv"
    bigger.write_text(table.read_text(encoding="utf-8") + "".join(";".join(r) + "\n" for r in ROWS[:30]),
                      encoding="utf-8")
    done = _cli("risk", "t.csv", "--qi", "sex,age,disease", "--population-table", "population.csv", "--json",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert r["population"] == {"size": 90, "sampling_fraction": 60 / 90, "source": "--population-table"}
    # 30 classes of 2 in the table, each of 3 in the population table
    assert r["prosecutor"]["highest"] == 0.5 and r["prosecutor"]["average"] == 0.5
    assert r["journalist"]["highest"] == pytest.approx(1 / 3) and r["journalist"]["lowest"] == pytest.approx(1 / 3)
    assert r["journalist"]["average"] == pytest.approx(1 / 3) and r["marketer"]["average"] == pytest.approx(1 / 3)


def test_snb_arx_reproduces_arxs_not_available(tmp_path):
    sizes = [1] * 30 + [2] * 12 + [3] * 6 + [5] * 3 + [9]
    (tmp_path / "c.csv").write_text("q;other\n" + "".join(f"v{c};x\n" for c, s in enumerate(sizes) for _ in range(s)),
                                    encoding="utf-8")
    model = json.loads(_cli("risk", "c.csv", "--qi", "q", "--sampling-fraction", "0.5", "--json", cwd=tmp_path).stdout)
    arx = json.loads(_cli("risk", "c.csv", "--qi", "q", "--sampling-fraction", "0.5", "--snb", "arx", "--json",
                          cwd=tmp_path).stdout)
    assert model["population_uniques"]["snb"]["available"] and not arx["population_uniques"]["snb"]["available"]
    assert arx["population_uniques"]["snb"]["share"] == 0.0
    assert arx["population_uniques"]["dankar"]["model"] == "zayatz"  # ARX's rule without SNB above 0.1
    assert model["population_uniques"]["pitman"] == arx["population_uniques"]["pitman"]
