"""Independent privacy verifiers: they re-check every output from scratch.

A verifier sees only the original data, the published output and the hierarchies — never an algorithm's
own groups or counters — so a bug in a method cannot vouch for itself. :func:`verify_output` picks the
verifier from the privacy model a method declares (``Algorithm.privacy_model()``)::

    v = verify_output({"model": "k-anonymity", "k": 5}, table, output_frame, hierarchies)
    v.passed, v.summary(), v.as_dict()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonstudio.core.data import EventLog, Table
from anonstudio.core.errors import NotAvailableError, ParameterError
from anonstudio.core.privacy._events import verify_kc_privacy
from anonstudio.core.privacy._strings import (
    DEFAULT_MAX_FRAGMENT,
    FragmentIndex,
    longest_shared_substrings,
    verify_pseudo_strings,
)
from anonstudio.core.privacy._tables import (
    suppressed_rows,
    verify_anatomy,
    verify_k_anonymity,
    verify_l_diversity,
)
from anonstudio.core.privacy._random import verify_random_anonymization
from anonstudio.core.privacy._verification import Verification, frame_of

__all__ = [
    "DEFAULT_MAX_FRAGMENT",
    "FragmentIndex",
    "MODELS",
    "Verification",
    "longest_shared_substrings",
    "verify_anatomy",
    "verify_k_anonymity",
    "verify_kc_privacy",
    "verify_l_diversity",
    "verify_output",
    "verify_pseudo_strings",
    "verify_random_anonymization",
]

#: The privacy models :func:`verify_output` knows.
MODELS = ("k-anonymity", "(k,c)-privacy", "pseudo-strings", "anatomy", "random-anonymization")


def _need(model: dict, key: str) -> Any:
    if model.get(key) is None:
        raise ParameterError(f"privacy model '{model.get('model')}' needs '{key}'", column=key)
    return model[key]


def verify_output(model: dict[str, Any], original: Any, output: Any, hierarchies: dict | None = None) -> Verification:
    """Verify ``output`` against ``original`` under the privacy ``model`` a method declared.

    ``model["model"]``:

    - ``"k-anonymity"``: ``k``; optional ``l`` with ``l_kind`` (``"entropy"`` default, or ``"distinct"``)
      and ``sensitive`` (default: the table's sensitive columns), optional ``quasi_identifiers``.
      With ``l`` the verdict passes only if both k-anonymity and l-diversity hold.
    - ``"(k,c)-privacy"``: ``k``, ``c``, ``highly_sensitive``.
    - ``"pseudo-strings"``: optional ``k`` (minimum condensed group size) and ``max_fragment`` (the
      fragment rule: no substring of that many symbols held by fewer than ``k`` inputs).
    - ``"anatomy"``: ``l``; optional ``quasi_identifiers``, ``sensitive``, ``group_column``.

    ``output`` may be a :class:`Table`, a DataFrame, an :class:`EventLog` or a :class:`SequenceSet`.
    """
    hierarchies = hierarchies or {}
    name = model.get("model")
    if name == "k-anonymity":
        if not isinstance(original, Table):
            raise TypeError(f"k-anonymity is verified on tables, got {type(original).__name__}")
        frame = frame_of(output)
        qis = model.get("quasi_identifiers")
        v = verify_k_anonymity(original, output if isinstance(output, Table) else frame, hierarchies,
                               _need(model, "k"), quasi_identifiers=qis, max_suppression=model.get("max_suppression"))
        if model.get("l") is None:
            return v
        qis = list(qis) if qis is not None else original.quasi_identifiers
        sens = model.get("sensitive") or original.sensitive
        kind = model.get("l_kind", "entropy")
        # fully suppressed records are one class ('*' everywhere) and are NOT exempt from l-diversity: a
        # large suppressed block whose sensitive values are all alike would disclose them
        ld = verify_l_diversity(frame, qis, sens, model["l"], kind=kind, suppressed=np.zeros(len(frame), dtype=bool))
        details = dict(v.details)
        details.update(l=model["l"], l_kind=kind, sensitive=ld.details.get("sensitive"))
        details["lowest_diversity"] = ld.details.get("lowest_diversity")
        details["l_violations"] = ld.details.get("violations", 0)
        details["violations"] = v.details.get("violations", 0) + ld.details.get("violations", 0)
        details["first_violations"] = (v.details.get("first_violations", []) + ld.details.get("first_violations", []))[:20]
        return Verification(v.passed and ld.passed, f"k-anonymity + {kind} l-diversity", details, (v.problems + ld.problems)[:20])
    if name == "(k,c)-privacy":
        if not isinstance(original, EventLog):
            raise TypeError(f"(k,c)-privacy is verified on event logs, got {type(original).__name__}")
        return verify_kc_privacy(
            original, frame_of(output), hierarchies, _need(model, "k"), _need(model, "c"), model.get("highly_sensitive") or []
        )
    if name == "pseudo-strings":
        return verify_pseudo_strings(original, output, k=model.get("k"), max_fragment=model.get("max_fragment"))
    if name == "anatomy":
        return verify_anatomy(
            original,
            frame_of(output),
            _need(model, "l"),
            quasi_identifiers=model.get("quasi_identifiers"),
            sensitive=model.get("sensitive"),
            group_column=model.get("group_column", "group"),
        )
    if name == "random-anonymization":
        if not isinstance(original, Table):
            raise TypeError(f"random anonymization is verified on tables, got {type(original).__name__}")
        return verify_random_anonymization(
            original, output if isinstance(output, Table) else frame_of(output), hierarchies,
            _need(model, "max_changed"), quasi_identifiers=model.get("quasi_identifiers"), levels=model.get("levels"))
    raise NotAvailableError(f"no independent verifier for privacy model '{name}' (known: {', '.join(MODELS)})")
