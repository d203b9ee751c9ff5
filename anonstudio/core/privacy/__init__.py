"""Independent privacy verifiers: they re-check every output from scratch.

A verifier sees only the original data, the published output and the hierarchies — never an algorithm's
own groups or counters — so a bug in a method cannot vouch for itself. A method declares a spec
(``Algorithm.privacy_model()``); :func:`models_of` turns it into the privacy-model objects of ``_models`` (one
class per model, one judgement over classes or groups) and :func:`verify_output` runs the spec's verifier, which
checks the release is faithful to the input and lets each model judge it (:func:`combine` joins the parts)::

    v = verify_output({"model": "k-anonymity", "k": 5}, table, output_frame, hierarchies)
    v.passed, v.summary(), v.as_dict()

A privacy model of one's own is one :class:`PrivacyModel` subclass declaring its parameters and the statistics it
needs of each class, and one :func:`register` call; a spec then lists it under ``"models"``
(``{"model": "k-anonymity", "k": 5, "models": [{"name": "my model", ...}]}``) and :func:`verify_output` judges it
over the published table's classes beside the spec's own models (:mod:`._judge`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, Table
from anonstudio.core.errors import NotAvailableError, ParameterError
from anonstudio.core.privacy._events import verify_kc_privacy
from anonstudio.core.privacy._models import (
    FRAGMENTS,
    HIGHLY_SENSITIVE,
    MODELS,
    POPULATION,
    REQUIREMENTS,
    SENSITIVE,
    SIZES,
    ClassStats,
    CondensedGroups,
    FragmentRule,
    FrequencyLDiversity,
    KAnonymity,
    KCPrivacy,
    NearCopyRule,
    PrivacyModel,
    register,
    registered,
    table_models,
    unregister,
)
from anonstudio.core.privacy import _distribution_models, _population_models  # noqa: F401  (they register)
from anonstudio.core.privacy._strings import (
    DEFAULT_MAX_FRAGMENT,
    FragmentIndex,
    longest_shared_substrings,
    verify_pseudo_strings,
)
from anonstudio.core.privacy._near_copies import (
    DEFAULT_NEAR_COPY_IDENTITY,
    DEFAULT_NEAR_COPY_LENGTH,
    NearCopyIndex,
    near_copies,
)
from anonstudio.core.privacy._anatomy import verify_anatomy
from anonstudio.core.privacy._tables import (
    as_written,
    blanked_block,
    suppressed_rows,
    verify_k_anonymity,
    verify_l_diversity,
)
from anonstudio.core.privacy._random import verify_random_anonymization
from anonstudio.core.privacy._canonical import unshuffled_table, verify_release
from anonstudio.core.privacy._verification import Verification, as_coded, frame_of

__all__ = [
    "ClassStats",
    "FRAGMENTS",
    "HIGHLY_SENSITIVE",
    "POPULATION",
    "REQUIREMENTS",
    "SENSITIVE",
    "SIZES",
    "register",
    "registered",
    "unregister",
    "extra_models",
    "DEFAULT_MAX_FRAGMENT",
    "DEFAULT_NEAR_COPY_IDENTITY",
    "DEFAULT_NEAR_COPY_LENGTH",
    "NearCopyIndex",
    "near_copies",
    "FragmentIndex",
    "MODELS",
    "SIDE_OUTPUTS",
    "SPECS",
    "PrivacyModel",
    "combine",
    "models_of",
    "Verification",
    "longest_shared_substrings",
    "verify_anatomy",
    "verify_k_anonymity",
    "verify_kc_privacy",
    "suppressed_rows",
    "verify_l_diversity",
    "verify_output",
    "verify_pseudo_strings",
    "verify_random_anonymization",
    "verify_release",
    "unshuffled_table",
]

def _need(spec: dict[str, Any], key: str) -> Any:
    if spec.get(key) is None:
        raise ParameterError(f"privacy model '{spec.get('model')}' needs '{key}'", column=key)
    return spec[key]


def models_of(spec: dict[str, Any]) -> list[PrivacyModel]:
    """The privacy-model objects a method's declared ``spec`` names, parameters validated by each model."""
    name = spec.get("model")
    if name == "k-anonymity":
        return table_models(_need(spec, "k"), spec.get("l"), spec.get("l_kind", "entropy"))
    if name == "(k,c)-privacy":
        return [KCPrivacy(k=_need(spec, "k"), c=_need(spec, "c"))]
    if name == "pseudo-strings":
        k, length = spec.get("k"), spec.get("max_fragment")
        identity, window = spec.get("near_copy_identity"), spec.get("near_copy_length")
        return ([CondensedGroups(k=k)] if k is not None else []) + (
            [FragmentRule(k=k, max_fragment=length)] if k is not None and length else []) + (
            [NearCopyRule(k=k, near_copy_identity=identity, near_copy_length=window)]
            if k is not None and identity is not None and window is not None else [])
    if name == "anatomy":
        return [FrequencyLDiversity(l=_need(spec, "l"))]
    if name == "random-anonymization":
        return []  # RA's guarantee is a bound on redraws (001 §3), checked by its own verifier
    if name == "safepub":
        return []  # (ε, δ)-DP by sampling and k-anonymization: its own verifier recomputes k (._safepub)
    raise NotAvailableError(f"no independent verifier for privacy model '{name}' (known: {', '.join(SPECS)})")


def guessable_seed(seed: Any, model: str) -> Verification:
    """RA's draws are a function of its seed: a seed below :data:`~anonstudio.core.limits.MIN_SECRET_SEED` is found
    by trying every value, and the draws replayed put the records back (a genuine release made with seed 1 was
    undone record for record). A release drawn with such a seed protects nothing, so it fails — a publication and
    ``verify`` check it (:func:`verify_release`); an in-memory run (an experiment) may use any seed."""
    from anonstudio.core.limits import MIN_SECRET_SEED

    if seed is None or int(seed) >= MIN_SECRET_SEED:
        return Verification(True, model, {"seed_secret": True})
    sentence = ("the job's seed is below 2^48, so anyone can find it by trying every value and replay the draws, "
                "which puts the records back: leave algorithm.seed out (the draws then come from your release key)")
    return Verification(False, model, {"seed_secret": False, "violations": 1,
                                       "first_violations": [{"kind": "guessable seed"}]}, [sentence])


def extra_models(spec: dict[str, Any]) -> list[PrivacyModel]:
    """The registered models a spec lists under ``"models"`` (``[{"name": …, **parameters}]``), each built and its
    parameters validated by its declarations."""
    listed = spec.get("models") or []
    if not isinstance(listed, (list, tuple)):
        raise ParameterError("a privacy spec's 'models' is a list of {name, parameters…}", column="models")
    out = []
    for entry in listed:
        params = dict(entry) if isinstance(entry, dict) else {}
        name = params.pop("name", None)
        cls = MODELS.get(name) if isinstance(name, str) else None
        if cls is None:
            raise NotAvailableError(f"no privacy model named {name!r} is registered (known: {', '.join(MODELS)})")
        out.append(cls(**params))
    return out


def combine(parts: list[Verification], title: str) -> Verification:
    """One verdict from several checks of the same release: passes only if every part does."""
    if len(parts) == 1:
        return parts[0]
    details: dict[str, Any] = {}
    for part in parts:
        details.update({key: value for key, value in part.details.items() if key not in details})
    details["violations"] = sum(part.details.get("violations", 0) for part in parts)
    details["first_violations"] = [r for part in parts for r in part.details.get("first_violations", [])][:20]
    return Verification(all(part.passed for part in parts), title,
                        details, [p for part in parts for p in part.problems][:20])


def _check_table(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
           executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    if not isinstance(original, Table):
        raise TypeError(f"k-anonymity is verified on tables, got {type(original).__name__}")
    frame = frame_of(output)
    qis = spec.get("quasi_identifiers")
    person = spec.get("person")
    people = _people_of(original, person, len(frame))
    parts = []
    k = next((int(m.params["k"]) for m in models if isinstance(m, KAnonymity)), 1)
    for model in models:
        if isinstance(model, KAnonymity):  # also checks the release is a faithful generalization
            parts.append(verify_k_anonymity(original, output if isinstance(output, Table) else frame, hierarchies,
                                            model.params["k"], quasi_identifiers=qis,
                                            max_suppression=spec.get("max_suppression"), executor=executor,
                                            person=person))
        else:
            kind = model.name.split()[0]
            sensitive = spec.get("sensitive") or original.sensitive
            # fully suppressed records are one class ('*' everywhere) and are NOT exempt from l-diversity: a
            # large suppressed block whose sensitive values are all alike would disclose them; a block smaller
            # than k publishes its sensitive cells '*' (the k part checks it) and is exempt
            names = list(qis) if qis is not None else original.quasi_identifiers
            ld = verify_l_diversity(_as_written_qis(_as_read(frame, original, sensitive), output, names),
                                    names, sensitive, model.params["l"], kind=kind,
                                    suppressed=blanked_block(original, output, names, hierarchies, k, people),
                                    executor=executor, people=people)
            ld.details.update(l_kind=kind, l_violations=ld.details.get("violations", 0))
            parts.append(ld)
    if spec.get("full_domain") is not None:
        parts.append(_full_domain(spec["full_domain"], original, frame, hierarchies,
                                  list(qis) if qis is not None else original.quasi_identifiers))
    return combine(parts, " + ".join(m.name for m in models))


def _full_domain(bounds: dict[str, Any], original: Table, frame: pd.DataFrame, hierarchies: dict[str, Any],
                 qis: list[str]) -> Verification:
    """Global recoding's form: every published (not fully suppressed) cell of a quasi-identifier at one level of its
    hierarchy, within the job's ``min_level`` / ``max_level`` (:func:`._safepub.full_domain_levels`, as SafePub's
    verifier judges it)."""
    from anonstudio.core.privacy._safepub import full_domain_levels
    from anonstudio.core.privacy._tables import suppressed_rows
    from anonstudio.core.privacy._verification import Problems

    if len(frame) != len(original.df):  # the k-anonymity part fails a release of another length
        return Verification(True, "full-domain generalization", {})
    levels, problems = full_domain_levels(original, frame, hierarchies, qis, suppressed_rows(frame, qis, hierarchies))
    out = Problems()
    for sentence, record in zip(problems.sentences, problems.records):
        out.add(sentence.replace("the release is not full-domain", "'global' publishes one level per attribute "
                                 "(full-domain recoding)"), **record)
    for q, possible in levels.items():
        low = (bounds.get("min_level") or {}).get(q, 0)
        high = (bounds.get("max_level") or {}).get(q, getattr(hierarchies.get(q), "height", 0))
        if possible and not any(low <= lv <= high for lv in possible):
            out.add(f"'{q}' is published at level {possible[0]}, outside the job's levels {low}..{high} "
                    "(min_level / max_level)", kind="level outside the bounds", column=q)
    return Verification(not out.count, "full-domain generalization",
                        {"levels": levels, "violations": out.count, "first_violations": out.records}, out.sentences)


def _people_of(original: Any, person: str | None, rows: int) -> np.ndarray | None:
    """Each record's person code from the input's person column (``None`` without one); the release has the input's
    rows in its order (the k-anonymity part fails it otherwise), so row ``i`` of the output is the input's."""
    if person is None:
        return None
    if not isinstance(original, Table) or person not in original.df.columns:
        raise ParameterError(f"the person column '{person}' is not a column of the input", column=person)
    from anonstudio.core.privacy._people import person_codes

    codes = person_codes(original)
    if len(codes) != rows:  # the k-anonymity part fails a release of another length; count nothing here
        return np.zeros(rows, dtype=np.int64)
    return codes


def _as_written_qis(frame: pd.DataFrame, output: Any, qis: list[str]) -> pd.DataFrame:
    """``frame`` with the quasi-identifiers' missing cells told apart by the token the file spells them with
    (``?``, ``NA``), as the k-anonymity part classes them: the l part judges the classes a reader sees."""
    if not isinstance(output, Table) or not frame.columns.is_unique:
        return frame
    changed = {}
    for q in qis:
        if q in frame.columns and len(output.missing_text.get(q, ())):
            cells = as_written(output, q, as_coded(frame[q]))
            changed[q] = cells.array()
    return frame.assign(**changed) if changed else frame


def _as_read(frame: pd.DataFrame, original: Table, sensitive: str | list[str] | None) -> pd.DataFrame:
    """``frame`` with its sensitive columns as the input holds them: which cells are missing is the input's
    to say (its missing tokens: a published '-' or '?' is no value when the job reads '-' or '?' as missing),
    and the k-anonymity part checks that the published cells spell exactly the input's (else it fails)."""
    names = [sensitive] if isinstance(sensitive, str) else list(sensitive or [])
    names = [s for s in names if s in frame.columns and s in original.df.columns]
    if not names or len(frame) != len(original.df) or not frame.columns.is_unique:
        return frame
    return frame.assign(**{s: original.df[s].to_numpy() for s in names})


def _check_events(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
            executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    if not isinstance(original, EventLog):
        raise TypeError(f"(k,c)-privacy is verified on event logs, got {type(original).__name__}")
    model = models[0]
    return verify_kc_privacy(original, frame_of(output), hierarchies, model.params["k"], model.params["c"],
                             spec.get("highly_sensitive") or [])


def _check_strings(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
             executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    return verify_pseudo_strings(original, output, k=spec.get("k"), max_fragment=spec.get("max_fragment"),
                                 near_copy_identity=spec.get("near_copy_identity"),
                                 near_copy_length=spec.get("near_copy_length"))


def _check_anatomy(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
             executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    qit = output if isinstance(output, Table) else frame_of(output)  # a Table keeps its cells' spelling
    return verify_anatomy(original, qit, models[0].params["l"], quasi_identifiers=spec.get("quasi_identifiers"),
                          sensitive=spec.get("sensitive"), group_column=spec.get("group_column", "group"),
                          sensitive_table=(side_outputs or {}).get("sensitive"))


def _check_random(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
            executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    if not isinstance(original, Table):
        raise TypeError(f"random anonymization is verified on tables, got {type(original).__name__}")
    return verify_random_anonymization(
        original, output if isinstance(output, Table) else frame_of(output), hierarchies,
        _need(spec, "max_changed"), quasi_identifiers=spec.get("quasi_identifiers"), levels=spec.get("levels"),
        weights=spec.get("weights"), draws=spec.get("draws", "independent"))


def _check_safepub(spec: dict[str, Any], models: list[PrivacyModel], original: Any, output: Any, hierarchies: dict[str, Any],
             executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    from anonstudio.core.privacy._safepub import verify_safepub

    if not isinstance(original, Table):
        raise TypeError(f"SafePub releases are verified on tables, got {type(original).__name__}")
    return verify_safepub(spec, original, output if isinstance(output, Table) else frame_of(output), hierarchies)


#: The verifier of each declared spec: it checks that the release is faithful to the input and judges it
#: with the models :func:`models_of` builds from the spec.
SPECS: dict[str, Callable[..., Verification]] = {
    "k-anonymity": _check_table, "(k,c)-privacy": _check_events, "pseudo-strings": _check_strings,
    "anatomy": _check_anatomy, "random-anonymization": _check_random, "safepub": _check_safepub}

#: The side outputs (published beside the output, ``<stem>.<name><ext>``) each spec's verifier checks.
SIDE_OUTPUTS: dict[str, tuple[str, ...]] = {"anatomy": ("sensitive",)}


def verify_output(spec: dict[str, Any], original: Any, output: Any, hierarchies: dict[str, Any] | None = None, *,
                  executor: Any = None, side_outputs: dict[str, Any] | None = None) -> Verification:
    """Verify ``output`` against ``original`` under the privacy ``spec`` a method declared.

    ``spec["model"]`` names the spec; :func:`models_of` turns it into the privacy models judged:

    - ``"k-anonymity"``: ``k``; optional ``l`` with ``l_kind`` (``"entropy"`` default, or ``"distinct"``)
      and ``sensitive`` (default: the table's sensitive columns), optional ``quasi_identifiers``.
      With ``l`` the verdict passes only if both k-anonymity and l-diversity hold.
    - ``"(k,c)-privacy"``: ``k``, ``c``, ``highly_sensitive``.
    - ``"pseudo-strings"``: optional ``k`` (condensed groups of at least k), ``max_fragment`` (the
      fragment rule: no substring of that many symbols held by fewer than ``k`` inputs), and
      ``near_copy_identity`` with ``near_copy_length`` (the near-copy rule: no window of that many symbols
      within ``⌊(1 − identity)·length⌋`` edits of a stretch of fewer than ``k`` inputs).
    - ``"anatomy"``: ``l`` (frequency l-diversity); optional ``quasi_identifiers``, ``sensitive``,
      ``group_column``.
    - ``"safepub"``: ``epsilon_anon``, ``delta`` (k is recomputed from them), optional ``k`` (the method's claim,
      which must agree), ``quasi_identifiers``, ``seed`` (:mod:`._safepub`: k-anonymity with suppression,
      full-domain generalization, only quasi-identifiers published).
    - ``"random-anonymization"``: ``max_changed``; optional ``quasi_identifiers``, ``levels``, ``weights``
      (the job's chance of each quasi-identifier being redrawn: ``"entropy"``, ``"uniform"`` or a mapping;
      with ``max_changed = k > 1`` only ``"uniform"``, enhanced RA's k of m) and ``draws`` (``"independent"``
      or ``"shuffle"``), which bound how many records a real run keeps and give each column's expected share
      of changed cells (without ``weights`` that share test is not made; the independence test is).

    ``output`` may be a :class:`Table`, a DataFrame, an :class:`EventLog` or a :class:`SequenceSet`.

    ``executor`` (the Dask engine, an object with ``map`` and ``workers``): k-anonymity's and l-diversity's
    class counts are computed by its tasks and summed (:mod:`._counts`); the checks and the judgement are the
    same code either way, so is the verdict. The other specs run here whatever the engine.

    ``"models"`` (any spec): more registered privacy models, ``[{"name": …, **parameters}]``, judged over the
    published table's classes from the statistics each declares (``"population"``: the population table a model
    needing one counts in).

    ``side_outputs``: tables published beside the output (a method's ``Result.side_outputs``, e.g. anatomy's
    ``"sensitive"`` table); each is verified too, and one no verifier checks is refused — everything
    written must have passed.
    """
    check = SPECS.get(str(spec.get("model")))
    if check is None:
        raise NotAvailableError(f"no independent verifier for privacy model '{spec.get('model')}' "
                                f"(known: {', '.join(SPECS)})")
    unchecked = [name for name in side_outputs or {} if name not in SIDE_OUTPUTS.get(spec["model"], ())]
    if unchecked:
        raise NotAvailableError(f"no independent verifier checks the side output '{unchecked[0]}' of a "
                                f"'{spec['model']}' release: it cannot be published")
    if spec.get("person") is not None and spec.get("model") != "k-anonymity":
        raise NotAvailableError(f"a '{spec.get('model')}' release cannot be judged per person (input.person): only "
                                "the partitioning methods' k-anonymity counts people")
    extra = extra_models(spec)
    verdict = check(spec, models_of(spec), original, output, hierarchies or {}, executor=executor,
                    side_outputs=side_outputs or {})
    if not extra:
        return verdict
    from anonstudio.core.privacy._judge import PublishedClasses, verify_class_model

    if not isinstance(original, Table):
        raise NotAvailableError(f"privacy models listed under 'models' judge a table's classes; the input is "
                                f"{type(original).__name__}")
    qis = spec.get("quasi_identifiers") or original.quasi_identifiers
    sensitive = spec.get("sensitive") or original.sensitive
    published = output if isinstance(output, Table) else frame_of(output)
    people = _people_of(original, spec.get("person"), len(frame_of(published)))
    shared = PublishedClasses(published, list(qis), hierarchies, people=people)  # the classes found once for every model
    parts = [verdict] + [verify_class_model(model, published, qis, sensitive=sensitive, hierarchies=hierarchies,
                                            highly_sensitive=spec.get("highly_sensitive") or (),
                                            population=spec.get("population"), shared=shared)
                         for model in extra]
    return combine(parts, " + ".join([verdict.model, *(m.name for m in extra)]))
