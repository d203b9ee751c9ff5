"""Issue 44 item 7: the docs are a site and the README its door. The MkDocs site builds with ``--strict`` (a broken
link or anchor fails it), the README stays short and every relative link in it resolves, and the pages that list
what the code registers (Methods, Design) list every method and privacy model the registries hold."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from anonstudio.core import algorithms, privacy

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_the_docs_site_builds_strictly(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    built = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    for page in ("guide", "jobs", "guarantees", "methods", "measured", "design", "architecture", "style",
                 "DEVELOPING", "cli-contract", "history"):
        assert f"{page}/index.html" in built, page


def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The check is real: a copy of the docs with one link to a page that does not exist does not build."""
    import shutil

    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("screenshots", "incoming"))
    (tmp_path / "docs" / "screenshots").mkdir()
    for image in (ROOT / "docs" / "screenshots").iterdir():
        (tmp_path / "docs" / "screenshots" / image.name).write_bytes(b"")
    shutil.copyfile(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "methods.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the missing page](no-such-page.md).\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "no-such-page.md" in run.stderr, run.stderr[-2000:]


def test_the_readme_is_a_door_of_at_most_250_lines_whose_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, len(text.splitlines())
    for said in ("./scripts/start", "./scripts/test", "## The workbench in six steps", "```toml"):
        assert said in text, said
    links = [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", target)]
    assert links
    broken = []
    for target in links:
        path, _, anchor = target.partition("#")
        file = (README.parent / path).resolve()
        if not file.exists():
            broken.append(target)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in headings}
            if anchor not in slugs:
                broken.append(target)
    assert not broken, broken


def test_methods_and_design_list_what_the_code_registers():
    methods = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    for cls in algorithms.available():
        section = re.search(rf"^## .*\(`{re.escape(cls.name)}`\)\n(.*?)(?=^## |\Z)", methods, re.M | re.S)
        assert section, f"docs/methods.md has no section for {cls.name}"
        assert " ".join(cls.reference.split()) in section.group(1), cls.name  # its paper
        assert f"(`{cls.name}`)" in design, cls.name
    for name in privacy.MODELS:
        assert f"(`{name}`)" in design, name
    assert f"{len(privacy.MODELS)} privacy models and {len(algorithms.available())} methods" in design


def test_history_replaces_hunt_and_the_design_cards_are_in_the_repository():
    assert not (ROOT / "HUNT.md").exists()
    assert "Hunt after issue 28" in (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
    developing = (ROOT / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    assert "shared/design" not in developing and "(architecture.md)" in developing and "(style.md)" in developing
