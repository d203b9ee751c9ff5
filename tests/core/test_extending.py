"""Issue 34 item 4: a new method with a parameter of its own and a new privacy model are each one module and one
registration line. The two worked examples of ``docs/DEVELOPING.md`` are read from that page and run as printed:
registered through the public API, listed, titled in the workbench's form, run through a workspace, verified
(the toy model refusing a release it does not allow), saved as a job and run by ``anonstudio run`` to the same
bytes."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pandas as pd
import pytest

from anonstudio.core import algorithms, privacy
from anonstudio.core.errors import PrivacyError
from anonstudio.core.hierarchy import Hierarchy

DEVELOPING = Path(__file__).resolve().parents[2] / "docs" / "DEVELOPING.md"


def _example(title: str) -> str:
    text = DEVELOPING.read_text(encoding="utf-8")
    found = re.search(rf"<!-- worked example: {re.escape(title)} -->\s*```python\n(.*?)```", text, re.S)
    assert found, f"DEVELOPING.md has no worked example '{title}'"
    return found.group(1)


@pytest.fixture
def extended():
    """Both examples executed as modules of their own (each registers itself); unregistered afterwards."""
    modules = {}
    try:
        for title in ("privacy model", "method"):
            module = types.ModuleType(f"worked_example_{title.replace(' ', '_')}")
            exec(compile(_example(title), f"DEVELOPING.md ({title})", "exec"), module.__dict__)  # noqa: S102
            modules[title] = module
        yield modules
    finally:
        algorithms.unregister("fixed-level")
        privacy.unregister("few classes of exactly k")


def test_each_example_is_one_class_and_one_registration_line():
    for title, register in (("method", "algorithms.register(FixedLevel)"),
                            ("privacy model", "privacy.register(FewExactK)")):
        code = _example(title)
        assert code.count("\nclass ") == 1 and code.strip().endswith(register)


def _table(tmp_path: Path):
    """12 records: at age level 1 (5-year bands) four classes of exactly 3; at level 2 (10-year bands) two of 6."""
    ages = [21, 22, 23, 26, 27, 28, 31, 32, 33, 36, 37, 38]
    frame = pd.DataFrame({"age": [str(a) for a in ages], "sex": ["M"] * 12, "disease": ["flu", "hiv", "cold"] * 4})
    path = tmp_path / "people.csv"
    frame.to_csv(path, sep=";", index=False)
    rows = [[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)]
    return path, {"age": Hierarchy("age", rows), "sex": Hierarchy("sex", [["M", "*"], ["F", "*"]])}


def _workspace(tmp_path, level):
    from anonstudio.core.workspace import Workspace, read_data

    path, hierarchies = _table(tmp_path)
    ws = Workspace()
    ws.set_data(read_data(path, "table"), path)
    for column in ("age", "sex"):
        ws.set_role(column, "quasi-identifying")
    for attr, h in hierarchies.items():
        ws.set_hierarchy(attr, h)
    ws.set_method("fixed-level", {"k": 3, "level": level})
    return ws


def test_the_new_method_and_model_join_every_list(extended):
    cls = algorithms.get("fixed-level")
    assert cls in algorithms.available("table") and "fixed-level" in algorithms.names()
    assert "few classes of exactly k" in privacy.MODELS
    form = cls.form_parameters()
    assert [p.name for p in form] == ["k", "level", "max_suppression"]
    assert form.get("level").label == "Level of each attribute"  # the method titles its own parameter
    assert form.get("max_suppression").default == 0.0  # its own pipeline default
    from anonstudio.cli.main import methods_text

    assert "fixed-level — Fixed-level generalization" in methods_text()


def test_the_model_refuses_a_release_it_does_not_allow(extended, tmp_path):
    ws = _workspace(tmp_path, {"age": 1})
    with pytest.raises(PrivacyError, match="few classes of exactly k") as failed:
        ws.run()
    assert "exactly k = 3 records, one class of that size more than 2" in str(failed.value)


def test_a_release_the_model_allows_is_published_and_runs_from_the_command_line(extended, tmp_path):
    from anonstudio.cli.main import main

    ws = _workspace(tmp_path, {"age": 2})
    outcome = ws.run()
    assert outcome.report["verification"]["model"] == "k-anonymity + few classes of exactly k"
    assert outcome.report["parameters"] == {"name": "fixed-level", "k": 3, "level": {"age": 2}, "max_suppression": 0.0}
    (tmp_path / "gui").mkdir()
    (tmp_path / "cli").mkdir()
    ws.publish(tmp_path / "gui" / "out.csv")
    assert (tmp_path / "gui" / "out.csv").read_text().splitlines()[1:4] == ["20-29;*;flu", "20-29;*;hiv", "20-29;*;cold"]
    job = ws.save_job(tmp_path / "cli" / "job.toml", output_path=tmp_path / "cli" / "out.csv")
    assert main(["run", str(job), "--quiet"]) == 0
    assert (tmp_path / "cli" / "out.csv").read_bytes() == (tmp_path / "gui" / "out.csv").read_bytes()
    gui, cli = (json.loads((tmp_path / side / "out.report.json").read_text()) for side in ("gui", "cli"))
    gui.pop("runtime_s"), cli.pop("runtime_s")
    assert gui == cli


def test_a_model_needing_what_no_verifier_computes_is_refused():
    class Oracle(privacy.PrivacyModel):
        name = "oracle"
        needs = frozenset({"the attacker's notebook"})

        def score(self, stats):
            return stats.sizes

        def failing(self, stats):
            return stats.sizes[:0]

        def measure(self, stats, i, of=""):
            return ""

    with pytest.raises(ValueError, match="the verifiers compute only"):
        privacy.register(Oracle)
    assert "oracle" not in privacy.MODELS


def test_a_name_is_registered_once_unless_replaced(extended):
    with pytest.raises(ValueError, match="already registered"):
        algorithms.register("somewhere:Else", name="fixed-level")
    with pytest.raises(TypeError):
        algorithms.register(object)  # not a method
