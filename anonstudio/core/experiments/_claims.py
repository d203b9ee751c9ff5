"""The vocabulary of ``REPRODUCTION.md`` (issue 33): a paper's claim split into the parts it states, each part
checked on our numbers, and one of three verdicts taken from the parts.

- A :class:`Part` is one statement of the paper (quoted where the text allows), our numbers, the test we apply
  (in words, with its threshold), whether it holds, on how many of the paper's points it could be checked, and —
  when it fails or was checked on fewer points — the reason: a measurement (a control run, a statistic of the
  data) written from computed numbers, or :data:`NOT_EXPLAINED`.
- A :class:`Claim` is a figure, table or worked example: its parts and the runs its numbers came from.
  :func:`judge` gives *reproduced* (every part holds on every point the paper shows), *partly reproduced*
  (some part holds, or every part holds but on fewer points than the paper's: :meth:`Claim.which` says which)
  or *differs* (no part holds).
- A :class:`DataRow` is one line of a paper's data-comparability table: the paper's statistic beside ours, both
  computed where the paper's is printed, what differs and what we did about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

VERDICTS = ("reproduced", "partly reproduced", "differs")
#: the reason of a part whose failure no measurement of ours explains yet
NOT_EXPLAINED = "not explained"


@dataclass
class Part:
    """One statement of a claim, checked.

    ``holds``: ``True``/``False``, or ``None`` when it could not be checked at all. ``points``: ``(checked, the
    paper's)`` when the check covers fewer points (data sets, parameter values: ``unit``) than the paper's figure.
    """

    says: str
    ours: str
    test: str
    holds: bool | None
    points: tuple[int, int] | None = None
    reason: str = ""
    #: what ``points`` counts (data sets, l values, …)
    unit: str = "points"

    @property
    def full(self) -> bool:
        """Holds on every point the paper shows."""
        return self.holds is True and (self.points is None or self.points[0] >= self.points[1])

    @property
    def result(self) -> str:
        """``holds``, ``fails``, ``not checked``, or ``holds on 1 of 3 points``."""
        if self.holds is None:
            return "not checked"
        if not self.holds:
            return "fails"
        if self.points is not None and self.points[0] < self.points[1]:
            return f"holds on {self.points[0]} of {self.points[1]} {self.unit}"
        return "holds"


@dataclass
class Claim:
    """A figure, table or worked example of a paper, part by part."""

    paper: str
    figure: str
    parts: list[Part]
    runs: tuple[str, ...] = ()
    #: ``"claim"`` or ``"example"`` (a worked example of the paper's text)
    kind: str = "claim"
    #: Markdown lines shown under the claims table (a worked example's cell-by-cell table)
    detail: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return judge(self.parts)

    def which(self) -> str:
        """The parts that hold, hold on fewer points, fail or were not checked (letters as in the table)."""
        if len(self.parts) == 1:
            p = self.parts[0]
            return "" if p.full or p.holds is not True else p.result
        words = []
        for letter, p in zip(LETTERS, self.parts):
            words.append(f"({letter}) {p.result}")
        return "; ".join(words)


LETTERS = "abcdefghij"


def judge(parts: list[Part]) -> str:
    """*reproduced* if every part holds on every point, *differs* if none holds, else *partly reproduced*."""
    if parts and all(p.full for p in parts):
        return "reproduced"
    if not any(p.holds is True for p in parts):
        return "differs"
    return "partly reproduced"


def counts(claims: list[Claim]) -> dict[str, int]:
    """How many claims have each verdict."""
    return {v: sum(c.verdict == v for c in claims) for v in VERDICTS}


@dataclass
class DataRow:
    """One line of a paper's data-comparability table."""

    paper: str
    item: str
    theirs: str
    ours: str
    differs: str
    action: str


def claims_table(claims: list[Claim]) -> list[str]:
    """A Markdown table with one line per part; the figure and the claim's verdict on its first part's line."""
    lines = ["| figure / table | part | the paper | ours | test | result | verdict | reason |",
             "|---|---|---|---|---|---|---|---|"]
    for c in claims:
        for i, p in enumerate(c.parts):
            first = i == 0
            verdict = f"**{c.verdict}**" + (f" ({c.which()})" if c.verdict == "partly reproduced" and c.which() else "")
            same = [j for j in range(i) if p.reason and c.parts[j].reason == p.reason]
            reason = f"as ({LETTERS[same[0]]})" if same else cell(p.reason) or "—"
            lines.append(f"| {cell(c.figure) if first else ''} | {LETTERS[i] if len(c.parts) > 1 else ''} | "
                         f"{cell(p.says)} | {cell(p.ours)} | {cell(p.test)} | {cell(p.result)} | "
                         f"{verdict if first else ''} | {reason} |")
    return lines


# ---------------------------------------------------------------------------------------------------------
# small computations the row builders share
def rank_correlation(x, y) -> float:
    """Spearman rank correlation of ``y`` with ``x`` (0 when either is constant)."""
    rx, ry = pd.Series(list(x)).rank().to_numpy(), pd.Series(list(y)).rank().to_numpy()
    if len(rx) < 2 or rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def accuracy_se(accuracy: float, n: int) -> float:
    """Binomial standard error of an accuracy measured on ``n`` test strings."""
    return float(np.sqrt(max(accuracy * (1 - accuracy), 0.0) / max(n, 1)))


def cell(text) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def series(pairs, fmt: str = "{:.3f}", key: str = "k") -> str:
    """``k=5 0.961, k=10 0.944`` from ``(x, value)`` pairs."""
    return ", ".join(f"{key}={x:g} " + fmt.format(v) for x, v in pairs)


def times(ratio: float) -> str:
    """``6.2×``, ``417×``."""
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:,.0f}×"


def span(values, fmt: str = "{:.3f}") -> str:
    """``0.029–0.034`` (or one value)."""
    v = [float(x) for x in values]
    lo, hi = fmt.format(min(v)), fmt.format(max(v))
    return lo if lo == hi else f"{lo}–{hi}"
