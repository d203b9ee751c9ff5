"""The headline of a run in two verdicts (issue 30 item 1): *the model holds* (the independent verifier passed the
privacy model on the output) and *safe to publish* (besides, no release-level risk the model does not cover crossed
its threshold). A run can pass the first and fail the second: a ``patient_id`` column without a role is published
as it is although every class is k-anonymous on the quasi-identifiers.

The release-level risks are the warnings :func:`anonstudio.core.jobs.release_warnings` and
:func:`anonstudio.core.publication.publication_warnings` give, each with its own threshold there:

- records in classes smaller than the job's k (unique, for a method without k) on the quasi-identifiers together
  with the columns published unchanged — no role, or set to insensitive: the same thing — (more than
  :data:`~anonstudio.core.jobs.UNIQUE_WARNING_SHARE` of them; issue 39: a column that pairs records inside each
  class leaves every record in a class of 2–3 although none is unique), or a column published unchanged that holds
  a different value in every record (it looks like an identifier);
- rows (sequences) in the input's order (``output.shuffle_rows`` off);
- a second release of the same input with other settings (the release log);
- several records per person and no person column named (:func:`anonstudio.core.privacy._people.person_warnings`).
- a release of an input that shares most of its records with one published before (the release log's keyed
  sketches, issue 39 item 9).
- records of a random-anonymization release singled out by a near match: exactly one published record within the
  quasi-identifiers RA may redraw of their own values, and it is theirs (more than
  :data:`~anonstudio.core.jobs.UNIQUE_WARNING_SHARE`; :func:`anonstudio.core.jobs._warnings.near_match_warning`).

The engine judges here; the workbench only shows the verdict (Summary, status bar, export dialog) and, when a user
publishes anyway, the export writes the confirmation into the report (:func:`confirmation_entry`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

#: what each release-level risk is called, and how its warning is recognised (the warnings' own words)
RISK_KINDS = (
    ("columns published unchanged single out records",
     "on the quasi-identifiers together with the columns published unchanged"),
    ("a column published unchanged looks like an identifier",
     "is published unchanged and holds a different value in every record"),
    ("rows keep the input's order", "rows keep the input's order"),
    ("sequences keep the input's order", "sequences keep the input's order"),
    ("a second release of this input", "this input was published before with other settings"),
    ("several records per person, counted as different people", "several records per person:"),
    ("a release of an overlapping input", "this input overlaps a release published"),
    # a keyed_draws method (condensation) run with a seed the job writes (secret_draws.written_seed_warning)
    ("the draws' seed is written in the job", "the job writes the seed of the method's draws"),
    # issue 39 item 5: a parameter outside its safe range (publication_rules.SAFE_RANGES, LOOSENED_WORDS)
    ("a parameter loosens a release rule", "loosens a release rule"),
    # issue 39: a random-anonymization release singles people out by a near match (jobs.near_match_warning)
    ("records are singled out by a near match", "are singled out by a near match:"),
)


def risk_kind(warning: str) -> str | None:
    """The release-level risk ``warning`` states (a name of :data:`RISK_KINDS`), or ``None`` for any other
    warning (hierarchies, a method's own notes)."""
    for name, words in RISK_KINDS:
        if words in warning:
            return name
    return None


@dataclass
class ReleaseVerdict:
    """``model_holds``: the verifier passed the model (``None``: no run); ``risks``: the release-level warnings
    that crossed their thresholds; ``safe_to_publish``: the model holds and no such risk is left."""

    model_holds: bool | None
    risks: list[str] = field(default_factory=list)

    @property
    def safe_to_publish(self) -> bool:
        return bool(self.model_holds) and not self.risks

    def headline(self) -> str:
        """One line: ``"the model holds; safe to publish"`` or ``"the model holds — NOT safe to publish: …"``."""
        if self.model_holds is None:
            return ""
        if not self.model_holds:
            return "the model does NOT hold: nothing may be published"
        if not self.risks:
            return "the model holds; safe to publish"
        kinds = []
        for w in self.risks:
            kind = risk_kind(w) or w
            if kind not in kinds:
                kinds.append(kind)
        return "the model holds — NOT safe to publish: " + "; ".join(kinds)


def release_verdict(report: dict[str, Any] | None, warnings: list[str]) -> ReleaseVerdict:
    """The two verdicts of a run's ``report`` with the ``warnings`` a publication with the current release options
    gives (:meth:`anonstudio.core.workspace.Workspace.warnings`)."""
    if not report:
        return ReleaseVerdict(None)
    passed = bool((report.get("verification") or {}).get("passed"))
    return ReleaseVerdict(passed, [w for w in warnings if risk_kind(w) is not None])


def confirmation_entry(risks: list[str], where: str = "the workbench's export dialog") -> dict[str, Any]:
    """What a report records when a user publishes although release-level risks crossed their thresholds: the
    risks accepted, where and when (UTC)."""
    return {"accepted_risks": list(risks), "confirmed_in": where,
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}
