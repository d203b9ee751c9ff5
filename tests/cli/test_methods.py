"""`anonstudio methods` and `run --help` come from the registry: every method, its facts and parameters."""

from __future__ import annotations

import json

from anonstudio.cli.main import main
from anonstudio.core.algorithms import available
from anonstudio.core.params import PIPELINE_PARAMETERS


def test_methods_lists_every_registered_method_with_its_parameters(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    for cls in available():
        assert f"{cls.name} — " in out
        for p in cls.parameters:
            assert f"    {p.name} (" in out
    assert "max_suppression (float [0, 1]; default 0.1)" in out
    assert "not available in this version:" in out  # the contract's names this build does not provide


def test_every_method_declares_its_facts(capsys):
    assert main(["methods", "--json"]) == 0
    facts = {f["name"]: f for f in json.loads(capsys.readouterr().out)}
    assert set(facts) == {c.name for c in available()}
    for f in facts.values():
        assert f["description"] and f["output"] and f["privacy_models"] and f["reference"]
        assert f["input"] in ("table", "events", "fasta")
    assert set(PIPELINE_PARAMETERS["table"].names()) == {"max_suppression"}


def test_run_help_names_the_methods(capsys):
    try:
        main(["run", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for cls in available():
        assert cls.name in out
    assert "anonstudio methods" in out
