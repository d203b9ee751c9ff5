"""``anonstudio experiment reproduce --paper 000|001|002|004|all --out DIR [--quick]``: every figure, table and
worked example of a paper run with the paper's settings (as far as our data and time allow, said per row), and
``REPRODUCTION.md``, the report of issue 33:

- per paper, a **data-comparability table**: the paper's data statistics (000 Table 1 and §5.1, 001 §7.1, 002
  Table 3, 004's generator settings) beside ours, computed, with what differs and what we did about it;
- the paper's **worked examples** recomputed by the engine (002 Figure 4, Table 2, Figure 5, Table 1(c) cell
  by cell; 004 Table 1 → Table 2; 001 Fig. 5's Pa), each with its verdict;
- every **claim part by part** (:mod:`anonstudio.core.experiments._claims`): what the paper says, our numbers,
  the test, whether it holds (on how many of the paper's points), and for a part that fails a reason computed
  from a control run or a statistic of the data — or "not explained"; one of three verdicts per claim:
  *reproduced*, *partly reproduced*, *differs*. Metrics are computed as the paper prints them (004's Eq. 1
  leaves removed sequences out; 002's Eqs. 8–9 count suppressed records as a class), ours beside them;
- running times as **ratios**, with both machines named.

Each paper's experiments are the ordinary ``anonstudio experiment`` commands, one sub-folder each
(``000/knn-I6/…``), so every number in the report is one the code computed, its CSV and figure beside it.
``--quick`` (``--scale quick``) runs every claim at reduced size in under three minutes on two cores (2 min 47 s
measured on the shared 2-core machine at load average 7), for tests and a first look; the full mode (``--scale paper``, the default) is the reference. ``--report-only``
writes the report again from the runs already in ``--out`` (nothing is rerun).

The paper modules: :mod:`._repro_000`, :mod:`._repro_001`, :mod:`._repro_002`, :mod:`._repro_004`.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from anonstudio.core.errors import InputError, ParameterError
from anonstudio.core.experiments import _repro_000, _repro_001, _repro_002, _repro_004
from anonstudio.core.experiments._claims import (
    LETTERS,
    VERDICTS,
    Claim,
    DataRow,
    cell,
    claims_table,
    counts,
)
from anonstudio.core.params import Command, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

PAPERS = ("000", "002", "001", "004")
MODULES = {"000": _repro_000, "001": _repro_001, "002": _repro_002, "004": _repro_004}
RUN_INFO = "run.json"


def _proteins(name: str) -> Path:
    from anonstudio.core.experiments._common import _REPO

    path = (_REPO / ".." / "shared" / "data" / "proteins" / name).resolve()
    if not path.is_file():
        raise ParameterError(f"protein data not found at {path}: paper 000's experiments read it", column="paper")
    return path


def _plan(paper: str) -> list[tuple]:
    """``(sub-folder, experiment, parameters at paper scale, overrides at quick scale, prepare or None)``."""
    if paper not in MODULES:
        raise ParameterError(f"unknown paper '{paper}' (known: {', '.join(PAPERS)}, all)", column="paper")
    steps = MODULES[paper].plan(_proteins) if paper == "000" else MODULES[paper].plan()
    return [tuple(s) + (None,) * (5 - len(s)) for s in steps]


def hardware() -> str:
    """This machine in one line: processor, cores, memory, system, Python and numba."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal")).split()[1])
        mem = f", {kb / 2**20:.0f} GB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    try:
        import numba

        jit = f", numba {numba.__version__}"
    except ImportError:  # pragma: no cover - numba is a dependency
        jit = ""
    return f"{cpu}, {os.cpu_count()} cores{mem} ({platform.system()}; Python {platform.python_version()}{jit})"


class Context:
    """What a paper module's row builders read: the runs' folders, parameters and CSVs, the mode, the machine,
    and statistics computed once (``stat``)."""

    def __init__(self, out: Path, paper: str, scale: str, machine: str):
        from anonstudio.core.experiments import EXPERIMENTS

        self.out, self.paper, self.quick, self.hardware = Path(out), paper, scale == "quick", machine
        self._params = {}
        for sub, name, params, quick, _ in _plan(paper):
            chosen = {**params, **(quick if self.quick else {})}
            self._params[sub] = (name, EXPERIMENTS[name].parameters.validate(chosen), chosen)
        self.stats: dict = {}

    def folder(self, sub: str) -> Path:
        return self.out / self.paper / sub

    def params(self, sub: str) -> dict:
        """Every parameter the run used (defaults included), as validated."""
        params = dict(self._params[sub][1])
        extra = self.folder(sub) / "prepared.json"
        if extra.is_file():
            params.update(json.loads(extra.read_text(encoding="utf-8")))
        return params

    def csv(self, sub: str, name: str) -> pd.DataFrame:
        path = self.folder(sub) / name
        if not path.is_file():
            raise InputError(f"no results of the run '{self.paper}/{sub}' (run reproduce without --report-only)",
                             file=path)
        return pd.read_csv(path)

    def stat(self, name: str) -> float:
        return float(self.stats[name])

    def stat_dict(self, name: str) -> dict:
        return self.stats[name]

    def settings(self, sub: str) -> str:
        """The run's parameters in one line (paths by file name; empty and zero 'rows' left out)."""
        name = self._params[sub][0]
        shown = {k: (Path(v).name if k in ("input", "hierarchies") and v else v) for k, v in self.params(sub).items()
                 if v not in ("", None) and not (k == "rows" and v == 0)}
        return f"`{name}` " + ", ".join(f"{k} = {','.join(v) if isinstance(v, list) else v}" for k, v in shown.items())


def _build(ctx: Context) -> tuple[list[Claim], list[DataRow]]:
    mod = MODULES[ctx.paper]
    if hasattr(mod, "statistics"):
        ctx.stats.update(mod.statistics(ctx))
    claims = []
    if ctx.paper == "002":
        claims += mod.worked_examples()
    claims += mod.claims(ctx)
    return claims, mod.data_rows(ctx)


# ---------------------------------------------------------------------------------------------------------
# the report
def reproduction_text(sections: dict, *, command: str, seconds: float, machine: str, load: str, quick: bool) -> str:
    """``REPRODUCTION.md`` from each paper's claims, comparability rows and runs."""
    took = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"
    lines = ["# Reproduction of the papers' experiments", "",
             f"Generated by `{command}` in {took} on {machine}{load}. "
             + ("**Quick mode**: every claim at reduced size (see each paper's runs); the full mode is the reference."
                if quick else "Full mode: the paper's sizes as far as our data and time allow (said per row)."), "",
             "Verdicts: **reproduced** — every part of the claim holds at every point the paper shows; **partly "
             "reproduced** — some parts hold, or every part holds on fewer points than the paper's (which parts and how "
             "many points is said beside it); **differs** — no part holds. A claim is split into the statements the "
             "paper makes (a, b, …); each is checked by the test beside it on the numbers beside it. Metrics are "
             "computed as the paper prints them, ours beside where they differ. Each reason is a measurement — a "
             "control run or a statistic of the data — or says *not explained*.", "",
             "| paper | claims: " + " / ".join(VERDICTS) + " | worked examples: " + " / ".join(VERDICTS) + " |",
             "|---|---|---|"]
    for paper, sec in sections.items():
        c = counts([x for x in sec["claims"] if x.kind == "claim"])
        e = counts([x for x in sec["claims"] if x.kind == "example"])
        lines.append(f"| {paper} | " + " / ".join(str(c[v]) for v in VERDICTS) + " | "
                     + (" / ".join(str(e[v]) for v in VERDICTS) if sum(e.values()) else "—") + " |")
    lines.append("")
    for paper, sec in sections.items():
        mod = MODULES[paper]
        claims = [c for c in sec["claims"] if c.kind == "claim"]
        examples = [c for c in sec["claims"] if c.kind == "example"]
        c = counts(claims)
        lines += [f"## {paper}: {mod.TITLE}", "",
                  f"Claims: {c['reproduced']} reproduced, {c['partly reproduced']} partly reproduced, "
                  f"{c['differs']} differ" + ("; worked examples: " + ", ".join(
                      f"{n} {v}" for v, n in counts(examples).items() if n) if examples else "") + ".", "",
                  "### The data: the paper's beside ours", "",
                  "| | the paper | ours | differs | what we did |", "|---|---|---|---|---|"]
        lines += [f"| {cell(r.item)} | {cell(r.theirs)} | {cell(r.ours)} | {cell(r.differs)} | {cell(r.action)} |"
                  for r in sec["data"]]
        lines.append("")
        if examples:
            lines += ["### Worked examples", ""] + claims_table(examples) + [""]
            for ex in examples:
                if ex.detail:
                    lines += [f"**{ex.figure}.** " + ex.detail[0], *ex.detail[1:], ""]
        lines += ["### Claims", ""] + claims_table(claims) + [""]
        lines += ["### Runs", "", "| sub-folder | settings | wall time | CPU time |", "|---|---|---|---|"]
        for r in sec["runs"]:
            lines.append(f"| `{paper}/{r['sub']}` | {cell(r['settings'])} | {r['seconds']:.0f} s | {r['cpu']:.0f} s |")
        lines.append("")
    return "\n".join(lines)


def write_report(out: Path, sections: dict, info: dict) -> list[Path]:
    """``REPRODUCTION.md``, ``reproduction.csv`` (one row per part of a claim) and ``comparability.csv``."""
    from anonstudio.core.io import atomic_write

    out = Path(out)
    md, csv, data = out / "REPRODUCTION.md", out / "reproduction.csv", out / "comparability.csv"
    with atomic_write(md) as fh:
        fh.write(reproduction_text(sections, command=info["command"], seconds=info["seconds"],
                                   machine=info["hardware"], load=info.get("load", ""), quick=info["quick"]))
    parts = []
    for paper, sec in sections.items():
        for c in sec["claims"]:
            for i, p in enumerate(c.parts):
                parts.append({"paper": paper, "figure": c.figure, "kind": c.kind, "verdict": c.verdict,
                              "which": c.which(), "part": LETTERS[i], "says": p.says, "ours": p.ours, "test": p.test,
                              "result": p.result, "holds": p.holds,
                              "points_checked": p.points[0] if p.points else "",
                              "points_paper": p.points[1] if p.points else "", "reason": p.reason,
                              "runs": " ".join(f"{paper}/{r}" for r in c.runs)})
    with atomic_write(csv) as fh:
        pd.DataFrame(parts).to_csv(fh, index=False)
    with atomic_write(data) as fh:
        pd.DataFrame([asdict(r) for sec in sections.values() for r in sec["data"]]).to_csv(fh, index=False)
    return [md, csv, data]


# ---------------------------------------------------------------------------------------------------------
# running
def _load() -> str:
    try:
        one, _, _ = os.getloadavg()
        return f", load average {one:.1f} at the start"
    except (OSError, AttributeError):
        return ""


def run_reproduce(out: Path, *, paper: str = "all", scale: str = "paper", report_only: bool = False,
                  progress: ProgressCallback | None = None) -> list[Path]:
    """Run the papers' experiments and write ``REPRODUCTION.md``, ``reproduction.csv`` and ``comparability.csv``
    (returned first, then every figure written)."""
    from anonstudio.core.experiments import EXPERIMENTS

    papers = list(PAPERS) if paper == "all" else [paper]
    plans = {p: _plan(p) for p in papers}  # every unknown paper or missing file before anything runs
    out = Path(out)
    info_path = out / RUN_INFO
    command = f"anonstudio experiment reproduce --paper {paper}" + (" --quick" if scale == "quick" else "")
    figures: list[Path] = []
    if report_only:
        if not info_path.is_file():
            raise InputError("no earlier run of reproduce in this folder (run it without --report-only first)",
                             file=info_path)
        info = json.loads(info_path.read_text(encoding="utf-8"))
        if info["quick"] != (scale == "quick"):
            raise ParameterError(f"the runs in {out} are {'quick' if info['quick'] else 'full'}-mode runs: give the "
                                 "same --scale", column="scale")
        missing = [p for p in papers if p not in info["papers"]]
        if missing:
            raise InputError(f"paper {', '.join(missing)} was not run in this folder", file=info_path)
    else:
        out.mkdir(parents=True, exist_ok=True)
        machine, load = hardware(), _load()
        start = time.perf_counter()
        total = sum(len(v) for v in plans.values())
        done, runs = 0, {}
        for p, plan in plans.items():
            runs[p] = []
            for sub, name, params, quick, prepare in plan:
                cmd = EXPERIMENTS[name]
                chosen = {**params, **(quick if scale == "quick" else {})}
                where = out / p / sub
                if prepare is not None:
                    where.mkdir(parents=True, exist_ok=True)
                    extra = prepare(where, cmd.parameters.validate(chosen))
                    chosen = {**chosen, **extra}
                    from anonstudio.core.io import atomic_write

                    with atomic_write(where / "prepared.json") as fh:
                        json.dump(extra, fh)
                step = subrange(progress, done / total, (done + 1) / total)
                report(step, 0.0, f"paper {p}: {name} ({sub})")
                t0, c0 = time.perf_counter(), time.process_time()
                paths = cmd.run(where, progress=step, **cmd.parameters.validate(chosen))
                runs[p].append({"sub": sub, "seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0})
                figures += [Path(x) for x in paths if Path(x).suffix == ".png"]
                done += 1
        info = {"command": command, "seconds": time.perf_counter() - start, "hardware": machine, "load": load,
                "quick": scale == "quick", "papers": papers, "runs": runs}
        from anonstudio.core.io import atomic_write

        with atomic_write(info_path) as fh:
            json.dump(info, fh, indent=1)
    report(progress, 0.97, "writing the report")
    sections = {}
    for p in papers:
        ctx = Context(out, p, scale, info["hardware"])
        claims, data = _build(ctx)
        sections[p] = {"claims": claims, "data": data,
                       "runs": [{**r, "settings": ctx.settings(r["sub"])} for r in info["runs"][p]]}
    paths = write_report(out, sections, info)
    if report_only:
        figures = sorted(out.glob("*/*/*.png"))
    report(progress, 1.0, f"wrote {paths[0]}")
    return [*paths, *figures]


def _command(out, *, paper, scale, report_only=False, progress=None):
    return run_reproduce(out, paper=paper, scale=scale, report_only=report_only, progress=progress)


REPRODUCE = Command(
    name="reproduce",
    help="every figure, table and worked example of a paper with its settings, and REPRODUCTION.md (the data "
         "beside the paper's, each claim part by part: reproduced / partly reproduced / differs, with reasons)",
    parameters=ParamSet((
        Param("paper", "choice", "all", help="which paper: 000, 001, 002, 004 or all",
              choices=("all", *sorted(PAPERS))),
        Param("scale", "choice", "paper", help="paper: the papers' sizes as far as our data and time allow (the "
              "reference; tens of minutes for all on two cores); quick: every claim at reduced size (under three "
              "minutes on two cores)", choices=("paper", "quick"), shortcuts=("quick",)),
        Param("report_only", "bool", False, help="write the report again from the runs already in the output "
              "folder (nothing is rerun)"),
    )),
    func=_command,
)
