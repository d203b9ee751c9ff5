"""Rule parameters within safe bounds (issue 39 item 5): a parameter that loosens a release rule beyond its safe
range gives a "NOT safe to publish" verdict naming the rule; beyond the bound where the rule checks nothing the
run (and verify) is refused."""

from __future__ import annotations

import pytest

from anonstudio.core import algorithms, jobs
from anonstudio.core.errors import ParameterError
from anonstudio.core.publication_rules import SAFE_RANGES, loosened_parameters, refused_parameter
from anonstudio.core.release_verdict import release_verdict


def test_every_safe_range_names_a_real_parameter_and_holds_its_default():
    for rng in SAFE_RANGES:
        params = {p.name: p for p in algorithms.get(rng.method).parameters}
        assert rng.parameter in params, (rng.method, rng.parameter)
        default = params[rng.parameter].default
        assert not rng.loosened(default) and not rng.refused(default), (rng.method, rng.parameter)


@pytest.mark.parametrize("method, params, rule", [
    ("condensation", {"order": 6}, "the pseudo-strings' independence from their inputs"),
    ("condensation", {"max_fragment": 30}, "the fragment rule"),
    ("condensation", {"near_copy_identity": 0.93}, "the near-copy rule"),
    ("condensation", {"near_copy_length": 64}, "the near-copy rule"),
    ("cbmsa", {"c": 1.0}, "the (k,c) confidence bound"),
])
def test_a_loosened_rule_is_a_release_risk_named_in_the_verdict(method, params, rule):
    warnings = loosened_parameters(method, params)
    assert len(warnings) == 1 and rule in warnings[0]
    verdict = release_verdict({"verification": {"passed": True}}, warnings)
    assert not verdict.safe_to_publish
    assert verdict.headline() == "the model holds — NOT safe to publish: a parameter loosens a release rule"
    assert loosened_parameters(method, {}) == [] and refused_parameter(method, params) is None


@pytest.mark.parametrize("params, name", [({"max_fragment": 1_000_000, "order": 8, "near_copy_identity": 1.0},
                                           "max_fragment"),
                                          ({"near_copy_identity": 0.96}, "near_copy_identity")])
def test_a_rule_switched_off_is_refused(params, name):
    refused = refused_parameter("condensation", params)
    assert refused is not None and refused[0] == name and "switches off" in refused[1]


def test_a_job_run_with_a_rule_switched_off_is_refused_naming_the_key(tmp_path):
    from anonstudio.core.generate import protein_like

    ids, seqs = protein_like(6, seed=3)
    (tmp_path / "p.fasta").write_text("".join(f">{i}\n{s}\n" for i, s in zip(ids, seqs)))
    (tmp_path / "job.toml").write_text('[input]\npath = "p.fasta"\n[algorithm]\nname = "condensation"\nk = 2\n'
                                       'near_copy_identity = 1.0\n[output]\npath = "out.fasta"\n')
    with pytest.raises(ParameterError, match="near_copy_identity' = 1 switches off the near-copy rule") as info:
        jobs.run_job(jobs.load_job(tmp_path / "job.toml"))
    assert info.value.key == "algorithm.near_copy_identity"
    assert not (tmp_path / "out.fasta").exists()
