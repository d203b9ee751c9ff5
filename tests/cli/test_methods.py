"""`anonstudio methods` and `run --help` come from the registry: every method, its facts and parameters."""

from __future__ import annotations

import json

from anonstudio.cli.main import main
from anonstudio.core.algorithms import CONTRACT_NAMES, available


def test_methods_lists_every_registered_method_with_its_parameters(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    for cls in available():
        assert f"{cls.name} — " in out
        for p in cls.parameters:
            assert f"    {p.name} (" in out
    assert "max_suppression (float [0, 1]; default 0.1)" in out
    # every name of the contract is provided, so no "not available" line
    assert {c.name for c in available()} >= set(CONTRACT_NAMES)
    assert "not available in this version:" not in out


def test_methods_names_a_contract_method_this_build_lacks(capsys):
    from anonstudio.core import algorithms

    with algorithms.registered(None, name="cbmsa-baseline"):
        assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "not available in this version: cbmsa-baseline" in out


def test_every_method_declares_its_facts(capsys):
    assert main(["methods", "--json"]) == 0
    facts = {f["name"]: f for f in json.loads(capsys.readouterr().out)}
    assert set(facts) == {c.name for c in available()}
    for f in facts.values():
        assert f["description"] and f["output"] and f["privacy_models"] and f["reference"]
        assert f["input"] in ("table", "events", "fasta")
    # the pipeline's keys are the method's declaration: a method that suppresses nothing lists no budget
    suppressing = {n for n, f in facts.items() if [p["name"] for p in f["pipeline_parameters"]] == ["max_suppression"]}
    assert suppressing == {"mst", "mondrian", "kmember", "local", "global"}
    assert all(not facts[n]["pipeline_parameters"] for n in set(facts) - suppressing)


def test_run_help_names_the_methods(capsys):
    try:
        main(["run", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for cls in available():
        assert cls.name in out
    assert "anonstudio methods" in out
