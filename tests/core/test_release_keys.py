"""Issue 39 items 1 and 9: secret draws come from a release key the user's machine made (never from a job file), and
the release log recognises an input that shares most of its records with a logged one."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from anonstudio.core import jobs, keys
from anonstudio.core.demo import prepare_demo
from anonstudio.core.errors import JobError


@pytest.fixture(autouse=True)
def _own_machine(tmp_path, monkeypatch):
    """Each test is a machine of its own: its release key and release log in its own data folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "machine-a"))
    monkeypatch.delenv(keys.KEY_ENV, raising=False)


def _demo(tmp_path: Path) -> Path:
    folder = prepare_demo(tmp_path / "demo")
    ra = folder / "table-ra.toml"
    # RA's bias reruns (20 whole runs) measure a figure; the keyed draws are what is tested here
    ra.write_text(ra.read_text().replace('weights = "entropy"', 'weights = "entropy"\nbias_runs = 0'))
    return folder


def _secret_hex(key_path: Path) -> str:
    return key_path.read_text().split()[1]


def test_the_key_is_made_owner_only_and_named_by_its_fingerprint_only(tmp_path):
    made = keys.load_key(create=True)
    assert made is not None
    path = keys.default_key_path()
    assert path == tmp_path / "machine-a" / "anonstudio" / "keys" / "release.key" and made.path == path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    secret = _secret_hex(path)
    assert len(secret) == 64 and secret not in repr(made) and made.fingerprint not in secret
    again = keys.load_key()
    assert again is not None and again.fingerprint == made.fingerprint and len(made.fingerprint) == 16
    # two purposes, two streams; the same purpose, the same seed
    assert made.seed("method draws", "ra") != made.seed("output order", "ra")
    assert made.seed("method draws", "ra") == again.seed("method draws", "ra") >= 2**62
    os.chmod(path, 0o644)
    with pytest.raises(JobError, match=r"may be read by others \(mode 0644\)"):
        keys.load_key()
    with pytest.raises(JobError, match="already exists"):
        keys.create_key(path)


def test_a_job_writing_a_secret_seed_is_refused(tmp_path):
    from anonstudio.cli.main import main

    folder = _demo(tmp_path)
    ra = folder / "table-ra.toml"
    ra.write_text(ra.read_text().replace("bias_runs = 0", "bias_runs = 0\nseed = 7265893423186452917"))  # the old demo's
    assert main(["run", str(ra), "--quiet"]) == 2
    assert not (folder / "results" / "adult-ra.csv").exists()
    anatomy = folder / "table-anatomy.toml"
    anatomy.write_text(anatomy.read_text().replace("l = 5", "l = 5\nseed = 1"))
    with pytest.raises(JobError, match="remove algorithm.seed"):
        jobs.run_job(jobs.load_job(anatomy))
    # a seed that only picks k-member's first record may be written (the demo ships none)
    kmember = folder / "table-kmember.toml"
    kmember.write_text(kmember.read_text().replace("k = 5", "k = 5\nseed = 1"))
    assert main(["run", str(kmember), "--quiet"]) == 0


def test_no_file_a_run_writes_holds_the_key_and_verify_needs_it(tmp_path, monkeypatch, capsys):
    from anonstudio.cli.main import main
    from anonstudio.core.workspace import Workspace

    folder = _demo(tmp_path)
    job = folder / "table-ra.toml"
    ws = Workspace.from_job(job)
    outcome = ws.run()
    ws.publish()
    key_path = keys.default_key_path()
    secret_hex = _secret_hex(key_path)
    secret = bytes.fromhex(secret_hex)
    fingerprint = keys.read_key(key_path).fingerprint
    assert outcome.report["key"] == {"fingerprint": fingerprint}
    assert "seed" not in outcome.report["parameters"]
    ws.save_project(folder / "ra.anonstudio.json")
    ws.save_job(folder / "saved.toml")
    saved = (folder / "saved.toml").read_text()
    assert f'key_fingerprint = "{fingerprint}"' in saved and "seed" not in saved
    written = [folder / "results" / "adult-ra.csv", folder / "results" / "adult-ra.report.json",
               tmp_path / "machine-a" / "anonstudio" / "releases.json", folder / "ra.anonstudio.json",
               folder / "saved.toml"]
    for path in written:
        data = path.read_bytes()
        assert secret not in data and secret_hex.encode() not in data and secret_hex.upper().encode() not in data, path
    # the key is here: verify re-derives the release byte for byte (the job and the saved job alike)
    assert main(["verify", str(job)]) == 0
    assert main(["verify", str(folder / "saved.toml")]) == 0
    verdict = jobs.verify_job(jobs.load_job(job))
    assert verdict.passed and verdict.details["rederived"] and verdict.details["key"] == fingerprint
    # another machine has no key: verify cannot re-derive (exit 2), --model-only checks the model and says so
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "machine-b"))
    capsys.readouterr()
    assert main(["verify", str(job)]) == 2
    assert "release key that is not on this machine" in capsys.readouterr().err
    assert main(["verify", "--model-only", str(job)]) == 0
    out = capsys.readouterr().out
    assert "not re-derived" in out and "release key the draws came from is not on this machine" in out
    assert not (tmp_path / "machine-b" / "anonstudio" / "keys" / "release.key").exists()  # verify makes no key


def test_two_machines_publish_two_releases_and_a_tampered_one_fails(tmp_path, monkeypatch):
    folder = _demo(tmp_path)
    job = folder / "table-ra.toml"
    jobs.run_job(jobs.load_job(job))
    first = (folder / "results" / "adult-ra.csv").read_bytes()
    jobs.run_job(jobs.load_job(job))  # the same key, input and job: the same release (no second draw)
    assert (folder / "results" / "adult-ra.csv").read_bytes() == first
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "machine-b"))
    jobs.run_job(jobs.load_job(job))
    second = (folder / "results" / "adult-ra.csv").read_bytes()
    assert second != first
    assert jobs.verify_job(jobs.load_job(job)).passed
    # machine b's verify of machine a's release: re-derived with b's key, it is not what b's key draws
    (folder / "results" / "adult-ra.csv").write_bytes(first)
    verdict = jobs.verify_job(jobs.load_job(job))
    assert not verdict.passed and any("is not what 'ra' publishes" in p for p in verdict.problems)


def test_a_named_key_file_and_its_fingerprint(tmp_path):
    folder = _demo(tmp_path)
    mine = keys.create_key(tmp_path / "secrets" / "team.key")
    job = folder / "table-anatomy.toml"
    text = job.read_text().replace("[output]", f'[output]\nkey_file = "{mine.path}"\nkey_fingerprint = "{mine.fingerprint}"')
    job.write_text(text)
    outcome = jobs.run_job(jobs.load_job(job))
    assert outcome.report["key"]["fingerprint"] == mine.fingerprint
    assert not keys.default_key_path().exists()  # the default key was never needed
    assert jobs.verify_job(jobs.load_job(job)).passed
    job.write_text(text.replace(mine.fingerprint, "0123456789abcdef"))
    with pytest.raises(JobError, match="written for the release key 0123456789abcdef"):
        jobs.run_job(jobs.load_job(job))
    job.write_text(text.replace("team.key", "typo.key"))
    with pytest.raises(JobError, match="does not exist"):
        jobs.run_job(jobs.load_job(job))


def _mondrian(folder: Path, data: str, stem: str) -> Path:
    job = folder / f"{stem}.toml"
    job.write_text((folder / "table-mondrian.toml").read_text().replace("adult-sample.csv", data)
                   .replace("adult-mondrian-k10", stem))
    return job


def test_an_overlapping_input_is_warned_about_and_an_unrelated_one_is_not(tmp_path):
    from anonstudio.core.release_verdict import release_verdict

    folder = _demo(tmp_path)
    rows = (folder / "adult-sample.csv").read_text().splitlines()
    jobs.run_job(jobs.load_job(_mondrian(folder, "adult-sample.csv", "first")))
    # one row added (a new record): a new input to the log, but 2,000 of its 2,001 records were published
    extra = rows[1].split(";")
    extra[5] = "Atlantis"  # native-country, published as it is: a record no one else has
    (folder / "plus-one.csv").write_text("\n".join([*rows, ";".join(extra)]) + "\n")
    outcome = jobs.run_job(jobs.load_job(_mondrian(folder, "plus-one.csv", "second")))
    overlap = [w for w in outcome.report["warnings"] if "overlaps a release published" in w]
    assert len(overlap) == 1 and "first.csv" in overlap[0]
    assert "share about 100 % of this input's records (100 % of that release's)" in overlap[0]
    verdict = release_verdict(outcome.report, outcome.report["warnings"])
    assert not verdict.safe_to_publish and "a release of an overlapping input" in verdict.headline()
    report = json.loads((folder / "results" / "second.report.json").read_text())
    assert "NOT safe to publish" in report["release_verdict"]
    # an unrelated table (other people): no overlap warning
    unrelated = _unrelated_outcome(folder)
    assert not any("overlaps a release published" in w for w in unrelated.report["warnings"])
    # the sketch holds no plaintext: no cell of the input is in the log, nor an unkeyed hash of a row
    log = (tmp_path / "machine-a" / "anonstudio" / "releases.json").read_text()
    entry = next(e for entries in json.loads(log).values() for e in entries if e["output"].endswith("first.csv"))
    assert entry["records"] == len(set(rows[1:])) and len(entry["sketch"]) == 256  # distinct records
    for cell in {c for r in rows[1:50] for c in r.split(";") if len(c) >= 3}:
        assert f'"{cell}"' not in log and cell not in " ".join(entry["sketch"])
    import pandas as pd

    unkeyed = pd.util.hash_pandas_object(pd.read_csv(folder / "adult-sample.csv", sep=";", dtype=str),
                                         index=False).to_numpy()
    assert not {f"{int(v):016x}" for v in unkeyed} & set(entry["sketch"])


def _unrelated_outcome(folder: Path):
    from anonstudio.core import generate

    table = generate.adult_like_table(500, 99)
    from anonstudio.core.io import write_table

    write_table(table, folder / "unrelated.csv", delimiter=";")
    return jobs.run_job(jobs.load_job(_mondrian(folder, "unrelated.csv", "fourth")))


def test_another_key_on_one_input_is_a_second_release(tmp_path, monkeypatch):
    # Anatomy's picks from another key are another release of the same input: warned about (three such releases
    # made occupation certain for 13 % of people)
    folder = _demo(tmp_path)
    job = folder / "table-anatomy.toml"
    jobs.run_job(jobs.load_job(job))
    first = jobs.run_job(jobs.load_job(job))  # the same key: the same release, nothing to warn about
    assert not any("published before" in w for w in first.report["warnings"])
    keys.rotate_key()
    again = jobs.run_job(jobs.load_job(job))
    assert any("this input was published before with other settings" in w for w in again.report["warnings"])


def test_reordered_columns_or_an_added_id_column_are_the_same_records(tmp_path):
    """An attacker hunt published one table twice, its columns reordered (or with an export-id column marked
    identifying), and the log saw no overlap: two Anatomy releases then made 209 of 1,000 occupations certain.
    Record hashes are of a row's cells whatever their order and name, identifying columns left out."""
    import pandas as pd

    folder = _demo(tmp_path)
    jobs.run_job(jobs.load_job(_mondrian(folder, "adult-sample.csv", "first")))
    frame = pd.read_csv(folder / "adult-sample.csv", sep=";", dtype=str, keep_default_na=False)
    reordered = frame[list(reversed(frame.columns))]
    reordered.to_csv(folder / "reordered.csv", sep=";", index=False)
    outcome = jobs.run_job(jobs.load_job(_mondrian(folder, "reordered.csv", "second")))
    warned = [w for w in outcome.report["warnings"] if "published before" in w or "overlaps a release" in w]
    assert warned, outcome.report["warnings"]
    with_id = frame.assign(export_id=[f"x{i}" for i in range(len(frame))])
    with_id.to_csv(folder / "with-id.csv", sep=";", index=False)
    job = _mondrian(folder, "with-id.csv", "third")
    job.write_text(job.read_text().replace("[input]\n", '[input]\nidentifying = ["export_id"]\n', 1)
                   if "identifying" not in job.read_text() else
                   job.read_text().replace("identifying = [", 'identifying = ["export_id", ', 1))
    outcome = jobs.run_job(jobs.load_job(job))
    warned = [w for w in outcome.report["warnings"] if "published before" in w or "overlaps a release" in w]
    assert warned, outcome.report["warnings"]
