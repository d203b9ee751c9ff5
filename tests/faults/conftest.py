"""The fault suite (marker ``faults``): counts of the sweep's cases, printed at the end of the session."""

from __future__ import annotations

#: per sweep: [cases, held]; filled by the tests, printed by :func:`pytest_terminal_summary`
COUNTS: dict[str, list[int]] = {}


def record(name: str, cases: int, held: int) -> None:
    entry = COUNTS.setdefault(name, [0, 0])
    entry[0] += cases
    entry[1] += held


def pytest_terminal_summary(terminalreporter) -> None:
    if not COUNTS:
        return
    terminalreporter.section("fault sweep (issue 29)")
    total = [0, 0]
    for name, (cases, held) in COUNTS.items():
        terminalreporter.write_line(f"{name}: {cases} cases, {held} held")
        total[0] += cases
        total[1] += held
    terminalreporter.write_line(f"all: {total[0]} cases, {total[1]} held")
