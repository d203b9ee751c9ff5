"""A report as rows and figures: values formatted as the workbench shows them, the report as (section, name,
value) rows, its numeric metrics, and a sweep's points as series per method."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "n/a"
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.4g}"
        return f"{v:.4f}".rstrip("0").rstrip(".") if not v.is_integer() else f"{v:.0f}"
    if isinstance(value, (list, tuple)):
        if len(value) > 8:
            return ", ".join(format_value(v) for v in value[:8]) + f", … ({len(value)} values)"
        return ", ".join(format_value(v) for v in value)
    if value is None:
        return "—"
    return str(value)


def flatten_dict(d: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested dicts as ``("a.b.c", value)`` pairs in insertion order."""
    out: list[tuple[str, Any]] = []
    if not isinstance(d, dict):
        return [(prefix, d)] if prefix else []
    for key, value in d.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.extend(flatten_dict(value, name))
        else:
            out.append((name, value))
    return out


#: report sections in the order the metrics table shows them
REPORT_ORDER = (
    "algorithm", "parameters", "input", "output", "suppressed", "groups", "runtime_s", "verification", "metrics",
    "notes",
)


def report_rows(report: dict) -> list[tuple[str, str, str]]:
    """The report as ``(section, name, value)`` rows: contract keys first, in a fixed order."""
    rows: list[tuple[str, str, str]] = []
    keys = [k for k in REPORT_ORDER if k in report] + [k for k in report if k not in REPORT_ORDER]
    for key in keys:
        value = report[key]
        if key == "notes":
            for i, note in enumerate(value or []):
                rows.append(("notes", str(i + 1), str(note)))
        elif isinstance(value, dict):
            for name, v in flatten_dict(value):
                if key == "verification" and name.startswith("details."):
                    name = name[len("details."):]  # the verifier's figures, without the container's name
                rows.append((key, name, format_value(v)))
        else:
            rows.append((key, "", format_value(value)))
    return rows


def numeric_metrics(metrics: dict) -> dict[str, float]:
    """The finite numeric entries of a (nested) metrics dict, keyed by dotted name."""
    out: dict[str, float] = {}
    for name, value in flatten_dict(metrics):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            continue
        v = float(value)
        if math.isfinite(v):
            out[name] = v
    return out


@dataclass
class SweepState:
    """Points of a sweep: per method, ``(x, {metric: value})`` in arrival order."""

    x_name: str = "k"
    points: dict[str, list[tuple[float, dict[str, float]]]] = field(default_factory=dict)

    def add(self, method: str, x: float, metrics: dict) -> None:
        """Add a point; a second point of the same method at the same x replaces the first (a re-run)."""
        pts = self.points.setdefault(method, [])
        pts[:] = [p for p in pts if p[0] != float(x)]
        pts.append((float(x), numeric_metrics(metrics)))

    def clear(self, x_name: str | None = None) -> None:
        self.points.clear()
        if x_name is not None:
            self.x_name = x_name

    def metric_names(self) -> list[str]:
        names: list[str] = []
        for pts in self.points.values():
            for _, m in pts:
                names.extend(n for n in m if n not in names)
        return names

    def series(self, metric: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per method, ``(x, y)`` sorted by x, for the points that have ``metric``."""
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for method, pts in self.points.items():
            xy = sorted((x, m[metric]) for x, m in pts if metric in m)
            if xy:
                arr = np.array(xy, dtype=float)
                out[method] = (arr[:, 0], arr[:, 1])
        return out



def run_lines(report: dict) -> list[str]:
    """What ``anonstudio run`` prints about a run on standard output, from its report: records (sequences,
    strings) in and out, suppressed, groups by the method's word (:func:`~._units.counts_line`) and time; the verdict; the numeric metrics. (Notes and warnings go to standard error, one
    line each: the report's ``notes`` and ``warnings``.)"""
    from anonstudio.core.views._units import counts_line

    v = report.get("verification", {}) or {}
    lines = [f"{counts_line(report)}, {float(report.get('runtime_s', 0.0)):.2f} s",
             f"verification: {'passed' if v.get('passed') else 'FAILED'} ({v.get('model')})"]
    metrics = report.get("metrics") or {}
    # (metrics.NCP is NCP_total's old name, kept for scripts through 0.3: not printed twice)
    shown = {k: val for k, val in metrics.items() if isinstance(val, (int, float, bool)) and k != "NCP"}
    if shown:
        lines.append("metrics: " + ", ".join(f"{k}={val:.4g}" if isinstance(val, float) else f"{k}={val}"
                                             for k, val in shown.items()))
    return lines
