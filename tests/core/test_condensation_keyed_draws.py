"""Issue 39 item 1 for condensation: its uniforms, replayed from a seed anyone can read, give each published
symbol's place in its group's distribution and which symbols the fragment and near-copy rules redrew (where a first
draw copied a run of fewer than k inputs). A job that writes no seed draws from the release key (the demo's jobs
no longer ship ``seed = 1``); a written seed still runs (experiments) and the release is NOT safe to publish."""

from __future__ import annotations

import pytest

from anonstudio.core import jobs, keys
from anonstudio.core.demo import prepare_demo
from anonstudio.core.release_verdict import release_verdict


@pytest.fixture(autouse=True)
def _own_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "machine"))
    monkeypatch.delenv(keys.KEY_ENV, raising=False)


def test_the_demo_condensation_draws_from_the_key_and_a_written_seed_is_not_safe(tmp_path):
    folder = prepare_demo(tmp_path / "demo")
    job = folder / "quest-condensation.toml"
    assert "seed" not in job.read_text()
    outcome = jobs.run_job(jobs.load_job(job))
    assert outcome.report["key"]["fingerprint"] == keys.load_key().fingerprint
    assert "seed" not in outcome.report["parameters"]
    assert release_verdict(outcome.report, outcome.report["warnings"]).safe_to_publish
    checked = jobs.verify_job(jobs.load_job(job))
    assert checked.passed and checked.details["rederived"] and checked.details["key"] == keys.load_key().fingerprint
    first = (folder / "results" / "quest-condensation-k10.fasta").read_bytes()
    seeded = folder / "seeded.toml"
    seeded.write_text(job.read_text().replace('order = 2', 'order = 2\nseed = 1').replace("k10", "seeded"))
    written = jobs.run_job(jobs.load_job(seeded))
    said = [w for w in written.report["warnings"] if w.startswith("the job writes the seed of the method's draws")]
    assert len(said) == 1 and "algorithm.seed = 1" in said[0]
    verdict = release_verdict(written.report, written.report["warnings"])
    assert not verdict.safe_to_publish and "the draws' seed is written in the job" in verdict.headline()
    assert (folder / "results" / "quest-condensation-seeded.fasta").read_bytes() != first  # other draws
    assert jobs.verify_job(jobs.load_job(seeded)).passed  # re-derived from the seed the job writes
