"""Issue 30 items 4 and 7, issue 44 item 7: the documents a newcomer needs. The user guide and the job reference
(docs/guide.md, docs/jobs.md) are the workbench's user guide (F1), built from them by scripts/sync-guide; every
section, key and builder the job reader accepts is in it; its job examples — one per kind of data — run as printed
with ``anonstudio run`` on the demo data (exit 0, verified); every figure a report's metrics hold has its one-line
meaning on the Summary and in the guide; the Python example writes into a folder the user names, named by the k it
runs, never into the installed package; and the switch that makes the workbench quit after showing is documented as
it behaves."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core import algorithms
from anonstudio.core.demo import prepare_demo
from anonstudio.core.views import CHECKED, MEANINGS, summary_sections
from anonstudio.resources import demo_folder, guide_text

ROOT = Path(__file__).resolve().parents[1]


def sync_guide():
    """scripts/sync-guide as a module (it has no .py suffix: it is run as a command)."""
    loader = importlib.machinery.SourceFileLoader("sync_guide", str(ROOT / "scripts" / "sync-guide"))
    spec = importlib.util.spec_from_loader("sync_guide", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QT_QPA_PLATFORM", None)
    return env


def test_the_in_app_guide_is_built_from_the_docs_pages():
    """F1 shows docs/guide.md then docs/jobs.md, as scripts/sync-guide writes them into the package."""
    sync = sync_guide()
    want = sync.expected()
    stale = [str(path.relative_to(ROOT)) for path, text in want.items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"out of step with the code or the docs pages: {stale} — run scripts/sync-guide"
    guide = guide_text()
    for page in sync.GUIDE_PAGES:
        first = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and f"\n{first}\n" in guide, page
    assert "](jobs.md" not in guide and "](guide.md" not in guide  # one document: no links between pages


def test_every_section_key_and_builder_the_job_reader_accepts_is_documented():
    from anonstudio.core.execution import _KEYS as EXECUTION_KEYS
    from anonstudio.core.hierarchy._builders import _ALL_KEYS as BUILDER_KEYS
    from anonstudio.core.hierarchy._builders import DATE_PARTS
    from anonstudio.core.jobs._schema import _INPUT_KEYS, _OUTPUT_KEYS, _SECTIONS

    guide = guide_text()
    missing = [f"[{s}]" for s in _SECTIONS if f"`[{s}]`" not in guide]
    missing += [f"input.{k}" for k in _INPUT_KEYS if f"| `{k}` |" not in guide]
    missing += [f"output.{k}" for k in _OUTPUT_KEYS if f"`output.{k}`" not in guide]
    missing += [f"execution.{k}" for k in EXECUTION_KEYS if f"`execution.{k}`" not in guide]
    missing += [f"builder {k}" for k in BUILDER_KEYS if not re.search(rf"\{{ {k} = ", guide)
                and f"`{k} = " not in guide]
    missing += [f"date part {p}" for p in DATE_PARTS if f"`{p}`" not in guide]
    for cls in algorithms.available():
        row = next((line for line in guide.splitlines() if line.startswith("| ") and f"`{cls.name}`" in
                    line.split("|")[1]), None)
        if row is None:
            missing.append(f"method {cls.name}")
            continue
        own = [p.name for p in cls.parameters if p.name != "seed"]
        missing += [f"{cls.name}.{name}" for name in own if f"`{name}`" not in row]
        missing += [f"{cls.name}.{p.name}" for p in cls.pipeline_parameters if f"`{p.name}`" not in guide]
    assert not missing, missing
    assert "`identifying`" in guide and "**the identifying key**" in guide


def test_each_builders_example_builds_the_path_the_guide_shows():
    """The builder table's entries, read as TOML as a job would, build the leaf-to-root path printed beside them."""
    import tomllib

    from anonstudio.core.hierarchy import build_hierarchy

    rows = [line.split(" | ") for line in guide_text().splitlines()
            if line.startswith("| `") and " → " in line and "= {" in line.split(" | ")[0]]
    assert [r[0].split("=")[0].strip("| `") for r in rows] == ["age", "zip", "race", "admitted"]
    for entry, _, path in rows:
        attr, spec = next(iter(tomllib.loads(entry.strip("| `")).items()))
        shown = [step.strip() for step in path.strip(" |`").split("→")]
        values = {"race": ["White", "Black", "Other"]}.get(attr, [shown[0]])
        h = build_hierarchy(attr, spec, values)
        full = h.ancestors_of(shown[0])  # the value itself, then each coarser label up to the root
        if "…" in shown:  # the masked path is shortened in the middle
            cut = shown.index("…")
            assert full[:cut] == shown[:cut] and full[-1] == shown[-1], (attr, full)
        else:
            assert full == shown, (attr, full, shown)


def _write_dna(path: Path, n: int = 120, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="ascii") as fh:
        for i in range(n):
            fh.write(f">seq{i + 1}\n{''.join(rng.choice(list('ACGT'), size=int(rng.integers(250, 350))))}\n")


def test_the_guides_job_examples_run_as_printed_on_the_demo_data(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", guide_text(), re.S)
    formats = [re.search(r'^path = "[^"]+\.(\w+)"', b, re.M).group(1) for b in blocks]
    kinds = ["events" if 'format = "events"' in b else ("dna" if 'alphabet = "dna"' in b else f) for b, f in
             zip(blocks, formats)]
    assert kinds == ["csv", "events", "fasta", "dna"], kinds  # one per kind of data
    folder = prepare_demo(tmp_path / "demo")
    _write_dna(folder / "dna.fasta")
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        job = folder / f"readme-{i + 1}.toml"
        job.write_text(block, encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "anonstudio", "run", job.name], cwd=folder, capture_output=True,
                             text=True, env=_env(), timeout=600)
        assert run.returncode == 0, (block, run.stderr[-2000:])
        report_path = folder / re.search(r'^report = "([^"]+)"', block, re.M).group(1)
        report = json.loads(report_path.read_text())
        assert report["verification"]["passed"] is True
        seen |= {k for k, v in report["metrics"].items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if "risk" in report:  # every figure of the release's risk is named in the guide
            names = set()

            def walk(node, parent=""):
                for key, value in node.items():
                    if parent != "inference":  # its keys are the sensitive columns
                        names.add(key)
                    if isinstance(value, dict):
                        walk(value, key)

            walk(report["risk"])
            guide = guide_text()
            assert not [n for n in names if f"`{n}`" not in guide], sorted(n for n in names if f"`{n}`" not in guide)
        unexplained = [row[0] for row in summary_sections(report).checked if not row[2]]
        assert not unexplained, (report["algorithm"], unexplained)  # the verifier's figures too
    from anonstudio.core.views._summary import DEPRECATED  # old names kept for scripts, not shown

    assert seen and not seen - set(MEANINGS) - DEPRECATED, sorted(seen - set(MEANINGS) - DEPRECATED)


def test_every_metric_of_every_table_method_is_explained_on_the_summary_and_in_the_guide(tmp_path):
    """Each number a report's metrics hold, for every table method on the demo table (the example jobs above run
    the others), has its meaning on the Summary card and the same line in the guide's table."""
    from anonstudio.core.workspace import Workspace

    guide = guide_text()
    for key, meaning in [*MEANINGS.items(), *CHECKED.items()]:
        assert f"| `{key}` | {meaning} |" in guide, key
    folder = prepare_demo(tmp_path / "demo")
    for job, method, params in (("table-mst.toml", None, None), ("table-kmember.toml", None, None),
                                ("table-global.toml", None, None), ("table-anatomy.toml", None, None),
                                ("table-ra.toml", "ra", {"bias_runs": 3}),  # draws from the release key
                                ("table-ra.toml", "ra-enhanced", {"attributes_per_record": 2, "bias_runs": 3})):
        ws = Workspace.from_job(folder / job)
        if method:
            ws.set_method(method, params)
        ws.run()
        rep = ws.outcome.report
        assert all(row[2] for row in summary_sections(rep).checked), summary_sections(rep).checked
        shown = summary_sections(rep).utility
        for figure, value, meaning in shown:
            if "[" not in figure:  # the quality models carry their own meaning from the report
                assert meaning == MEANINGS.get(figure) and meaning, (rep["algorithm"], figure)
        if rep["algorithm"].startswith("ra"):
            rows = {figure: meaning for figure, _, meaning in shown}
            assert "Prop. 10" in rows["guess_probability_bound_max"]
            assert "§4.2.2" in rows["c_amplification_max"]


def test_the_python_example_writes_where_the_user_says_and_names_the_file_by_its_k(tmp_path):
    example = re.search(r"```python\n(.*?)```", guide_text(), re.S).group(1)
    assert "resources/demo" not in example
    package_demo = demo_folder()
    before = sorted(p.relative_to(package_demo) for p in package_demo.rglob("*"))
    run = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, env=_env(),
                         timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    k = int(re.search(r"^k = (\d+)$", example, re.M).group(1))
    out = tmp_path / "my-anonstudio-demo" / "results" / f"adult-mst-k{k}.csv"
    report = json.loads(out.with_name(f"adult-mst-k{k}.report.json").read_text())
    assert out.is_file() and report["parameters"]["k"] == k
    assert run.stdout.split()[0] == str(out.resolve()) or Path(run.stdout.split()[0]).resolve() == out.resolve()
    assert sorted(p.relative_to(package_demo) for p in package_demo.rglob("*")) == before  # nothing written there


def test_the_exit_after_show_switch_behaves_as_documented(tmp_path):
    from anonstudio.gui.app import EXIT_AFTER_SHOW

    guide = guide_text()
    assert f"{EXIT_AFTER_SHOW}=1 anonstudio gui" in guide and "shown after X.XXX s" in guide
    env = dict(_env(), QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path),
               **{EXIT_AFTER_SHOW: "1"})
    run = subprocess.run([sys.executable, "-m", "anonstudio", "gui"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0 and re.search(r"^shown after \d+\.\d{3} s$", run.stdout, re.M), (run.stdout, run.stderr)


@pytest.mark.parametrize("name", ["README.md", "docs/guide.md", "docs/jobs.md", "docs/cli-contract.md"])
def test_no_document_tells_a_script_to_write_into_the_package(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert 'load_job("anonstudio/resources/demo' not in text
