"""Publishing a verified outcome: the release's files are written in their canonical form under hidden names,
re-verified *as written* by the same checker ``anonstudio verify`` runs (the gate), published as a pair, and
then recorded in the release log.

Both faces publish through :func:`write_outputs`: ``anonstudio run`` (``core.jobs.run_job``) and the
workbench's Export. Nothing reaches its final name unless the staged bytes passed
:func:`anonstudio.core.privacy.verify_release`: a release is the canonical form of what was verified, or it is
refused (issue 28).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core import algorithms, io
from anonstudio.core.data import EventLog, Table
from anonstudio.core.errors import OutputError, ParameterError, PrivacyError, ReadFailure
from anonstudio.core.publication_rules import SHUFFLE_REQUIRED
from anonstudio.core.io._canonical import permutation

#: tables published in the input's row order
ORDER_WARNING = ("rows keep the input's order: anyone who knows that order links every published row to its "
                 "person; set output.shuffle_rows = true")
#: event logs published with their sequences in the input's order
SEQUENCE_ORDER_WARNING = ("sequences keep the input's order: anyone who knows that order (admission order, a "
                          "record number) links every published sequence to its person; set output.shuffle_rows = "
                          "true")
#: a shuffle seed shorter than this many bits can be found by trying every value
STRONG_SEED_BITS = 48


def typed_seed_warning() -> str:
    """The warning for a short shuffle seed (it never names the seed: the report is published)."""
    return (f"the job's shuffle seed is below 2^{STRONG_SEED_BITS}, so it can be found by trying every value (a "
            "typed seed such as 4242 falls in seconds): anyone with the input can then undo the shuffle. Leave "
            "output.shuffle_seed out (a fresh seed from the operating system each run; the run still checks the order "
            "it publishes) or use a random 63-bit seed — python -c 'import secrets; print(secrets.randbits(63))' — "
            "and keep the job file private")


def side_output_path(output_path: Path, suffix: str) -> Path:
    """Where a side output goes: ``<stem>.<suffix><ext>`` beside the output (anatomy's ST table)."""
    return output_path.with_name(f"{output_path.stem}.{suffix}{output_path.suffix}")


def shuffled(table: Table, seed: int | None) -> Table:
    """``table`` with its rows in the order ``seed`` draws (:func:`~anonstudio.core.io._canonical.permutation`;
    ``None``: a seed from the operating system)."""
    seed = secrets.randbits(63) if seed is None else seed
    order = permutation(len(table.df), seed)
    return replace(table, df=table.df.iloc[order].reset_index(drop=True), types=dict(table.types),
                   missing_text={c: pd.Series(t.to_numpy(), index=_new_positions(order, t.index))
                                 for c, t in table.missing_text.items()})


def _new_positions(order: np.ndarray, old_index: Any) -> np.ndarray:
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order))
    return where[np.asarray(old_index, dtype=np.int64)]


def unshuffled(table: Table, seed: int) -> Table:
    """The inverse of :func:`shuffled` with the same seed."""
    from anonstudio.core.privacy import unshuffled_table

    return unshuffled_table(table, seed)


def shuffled_sequences(log: EventLog, seed: int) -> EventLog:
    """``log`` with its sequences in the order ``seed`` draws (each sequence's events together, in order)."""
    sid = log.df[log.sequence_id].astype(str).to_numpy(dtype=object)
    codes, uniques = pd.factorize(pd.Series(sid, dtype=object))
    order = permutation(len(uniques), seed)  # position i holds the i-th sequence of the log
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    rows = np.lexsort((np.arange(len(codes)), position[codes]))
    return replace(log, df=log.df.iloc[rows].reset_index(drop=True))


def shuffled_release(output: Any, side_outputs: dict[str, pd.DataFrame], seed: int) -> tuple[Any, dict[str, pd.DataFrame]]:
    """A release's output and side outputs as published with ``output.shuffle_rows``: a table's rows (an event
    log's sequences) in the order ``seed`` draws. Anatomy's group ids are then numbered again 1..G in order of
    first appearance down the *shuffled* rows, and its sensitive table follows them (issue 39 item 11): the
    canonical form numbers groups in order of first appearance as published, so ids kept from the input's order
    were refused by the gate (every shuffled Anatomy run ended with exit 1), and would have told the input
    order of each group's first record. The renumbering depends only on the published order, not on where
    ``seed`` came from. Used by :func:`write_outputs` and by re-derivation (``verify``), so both write the same
    bytes."""
    from anonstudio.core.io._canonical import COUNT_COLUMN, GROUP_COLUMN, canonical_groups, sensitive_table

    sides = dict(side_outputs)
    if isinstance(output, EventLog):
        return shuffled_sequences(output, seed), sides
    if not isinstance(output, Table):
        return output, sides
    output = shuffled(output, seed)
    st = sides.get("sensitive")
    if st is not None and GROUP_COLUMN in output.df.columns and list(st.columns)[0] == GROUP_COLUMN \
            and list(st.columns)[-1] == COUNT_COLUMN:
        written = output.df[GROUP_COLUMN].astype(str).to_numpy(dtype=object)
        ids = canonical_groups(written)
        renumber = dict(zip(written.tolist(), ids.tolist()))  # old id -> new id (a bijection)
        sens = str(st.columns[1])
        counts = st[COUNT_COLUMN].astype(np.int64).to_numpy()
        old = st[GROUP_COLUMN].astype(str).to_numpy(dtype=object)
        new = np.array([renumber[g] for g in old], dtype=np.int64)
        values = pd.Series(np.repeat(st[sens].to_numpy(dtype=object), counts), dtype=object)
        sides["sensitive"] = sensitive_table(np.repeat(new, counts), values, sens)
        output = replace(output, df=output.df.assign(**{GROUP_COLUMN: ids.astype(str)}))
    return output, sides


def renumbered_sequences(log: EventLog) -> EventLog:
    """``log`` as an event-log release publishes it: sequence ids renumbered 1..n in the order the sequences are
    published (issue 39 item 7: the input's ids left gaps where CBMSA removed sequences, and 17 of the 19 removed
    carried the highly-sensitive value). The canonical form the verifier demands (``privacy._canonical``)."""
    sid = log.sequence_id
    codes, _ = pd.factorize(log.df[sid].astype(str))
    return replace(log, df=log.df.assign(**{sid: (codes + 1).astype(str)}))


def _tokens(tokens: Any) -> list[str] | None:
    return None if tokens is None else list(tokens)


def _name_only(path: Any) -> str:
    return Path(str(path)).name


def publication_warnings(report: dict[str, Any], output: Any, *, shuffle_rows: bool = False,
                         shuffle_seed: int | None = None) -> list[str]:
    """The report's warnings as a publication with these release options gives them: the input-order warning
    when rows (sequences) keep the input's order, the typed-seed warning for a short seed — what the workbench
    shows before its Export and :func:`write_outputs` writes."""
    from anonstudio.core.release_log import EARLIER

    given = [w for w in report.get("warnings", []) if w not in (ORDER_WARNING, SEQUENCE_ORDER_WARNING)
             and w != typed_seed_warning()]
    warnings = [w for w in given if not w.startswith(EARLIER)]
    if isinstance(output, (Table, EventLog)):
        if not shuffle_rows:
            warnings.append(ORDER_WARNING if isinstance(output, Table) else SEQUENCE_ORDER_WARNING)
        elif shuffle_seed is not None and int(shuffle_seed).bit_length() < STRONG_SEED_BITS:
            warnings.append(typed_seed_warning())
    return warnings + [w for w in given if w.startswith(EARLIER)]  # an earlier release (known once published) last


def write_outputs(outcome: Any, output_path: Path, report_path: Path | None,
                  reads: dict[str, Path] | None = None, *, shuffle_rows: bool = False,
                  shuffle_seed: int | None = None, release_log: Path | None = None,
                  confirmation: dict[str, Any] | None = None, key_file: Path | None = None,
                  key_fingerprint: str | None = None) -> list[Path]:
    """Publish a verified outcome (:class:`~anonstudio.core.jobs.Outcome`): its output, side outputs and report
    as a pair; returns the paths written.

    Nothing is written if any target is a file in ``reads`` (what the run read), two targets coincide
    (compared as resolved real paths) or a target is a folder or device. The files are written in their
    canonical form under hidden names and re-verified as written (:func:`anonstudio.core.privacy.verify_release`,
    the check ``anonstudio verify`` makes); a release that fails is refused (:class:`PrivacyError`) and nothing
    is published. With ``shuffle_rows`` a table's rows (an event log's sequences) are published in the order
    drawn from the release key (``key_file``, default the user's key, made on first use; ``key_fingerprint``: the
    key the job names), the input and the settings (:func:`anonstudio.core.release_log.shuffle_seed_of`); a
    ``shuffle_seed`` written in a job is refused (exit 2: anyone who reads it undoes the order). The report names
    files without their folders and the key by its fingerprint only. The release log's entry rides in the
    publication's journal: written once the pair is published, or by the recovery of a run stopped before it was. ``confirmation``: a user published although release-level risks crossed their thresholds
    (:func:`anonstudio.core.release_verdict.confirmation_entry`): written into the report as
    ``release_confirmation``.
    """
    from anonstudio.core import privacy
    from anonstudio.core import release_log as releases
    from anonstudio.core.secret_draws import refuse_written_secrets
    from anonstudio.core.keys import load_key

    refuse_written_secrets(str(outcome.report.get("algorithm")), {}, shuffle_seed)
    sides = {suffix: side_output_path(output_path, suffix) for suffix in outcome.result.side_outputs}
    targets = {"output.path": output_path, **{f"output ({s} table)": p for s, p in sides.items()},
               "output.report": report_path}
    io.refuse_overwrites(targets, reads or {})
    for label, target in targets.items():
        if target is not None:
            io.check_target(target, label)
    output = outcome.result.output
    side_outputs = dict(outcome.result.side_outputs)
    rep = outcome.report
    method = rep.get("algorithm")
    if not shuffle_rows and isinstance(method, str) and method in algorithms.names() \
            and algorithms.get(method).random_row_order:
        raise ParameterError(SHUFFLE_REQUIRED.format(method=method), key="output.shuffle_rows")
    warnings = publication_warnings(rep, output, shuffle_rows=shuffle_rows, shuffle_seed=shuffle_seed)
    warnings = [w for w in warnings if not w.startswith((releases.EARLIER, releases.OVERLAP))]  # read again below
    notes = [n for n in rep.get("notes", []) if not n.startswith(("rows were published in a random order",
                                                                   "sequences were published in a random order"))]
    key = load_key(key_file, create=True, fingerprint=key_fingerprint)
    assert key is not None
    used = (rep.get("key") or {}).get("fingerprint") if isinstance(rep.get("key"), dict) else None
    if used is not None and used != key.fingerprint:
        raise ParameterError(f"the run drew from the release key {used}, the publication's key is {key.fingerprint}: "
                             "run again with the key you publish with", key="output.key_file")
    seed = None
    if isinstance(output, (Table, EventLog)) and shuffle_rows:
        seed = releases.shuffle_seed_of(key, str(method), rep.get("parameters") or {}, outcome.data,
                                        outcome.hierarchies)
        what = "rows" if isinstance(output, Table) else "sequences"
        output, side_outputs = shuffled_release(output, side_outputs, seed)
        notes.append(f"{what} were published in a random order after verification (drawn from the release key: "
                     "'anonstudio verify' re-derives it where the key is)")
        rep["key"] = {"fingerprint": key.fingerprint}
    if isinstance(output, EventLog):
        output = renumbered_sequences(output)
    # what an earlier, interrupted run left here is recovered first: a publication it completed is then in the release
    # log (its entry rode in its journal), so this release is warned about it
    protect = [*(reads or {}).values(), *_sources(outcome.data)]
    recovered = io.recover(*targets.values(), protect=protect)
    warnings += releases.earlier_releases(outcome.data, rep, outcome.hierarchies, output_path, release_log, key=key)
    rep["warnings"] = warnings
    rep["notes"] = notes
    from anonstudio.core.release_verdict import release_verdict

    rep["release_verdict"] = release_verdict(rep, warnings).headline()
    if confirmation is not None:
        rep["release_confirmation"] = dict(confirmation)
    else:
        rep.pop("release_confirmation", None)
    rep["output"]["path"] = output_path.name
    if rep["input"].get("path"):
        rep["input"]["path"] = _name_only(rep["input"]["path"])
    if not outcome.model:
        raise PrivacyError("this outcome carries no privacy model to re-check its release against: run it again")
    logged = releases.log_entry(outcome.data, rep, outcome.hierarchies, output_path, release_log, key=key)
    # published as a pair: everything written under hidden names, re-verified as written, then renamed
    with io.Publication(*targets.values(), protect=protect) as pub:  # folder locks, staging, journal, swap, report last
        rep["notes"].extend(recovered + pub.recovered)  # what an earlier, interrupted run left was recovered
        staged = pub.stage(output_path)
        io.write_output(output, staged)
        names = {staged: output_path.name}
        staged_sides = {}
        for suffix, frame in side_outputs.items():
            staged_sides[suffix] = pub.stage(sides[suffix])
            io.write_output(frame, staged_sides[suffix], like=outcome.result.output)
            names[staged_sides[suffix]] = sides[suffix].name
        try:
            gate = privacy.verify_release(outcome.model, outcome.data, staged, outcome.hierarchies,
                                          side_paths=staged_sides, shuffle_seed=seed,
                                          missing=_tokens(getattr(outcome.data, "missing_tokens", None)),
                                          names=names)
        except ReadFailure as exc:  # the disk failed reading back what was written: an I/O error, not a verdict
            target = pub.target_of(exc.file) or output_path
            raise OutputError(f"the release could not be read back to verify it as written: {exc.message}; nothing "
                              "was published", file=target) from None
        if not gate.passed:
            raise PrivacyError(f"the release failed verification as written ({gate.model}): {gate.summary()}; "
                               "nothing was published")
        rep["verification"] = gate.as_dict()
        if report_path is not None:
            # every setting but the seed: a seed is the key of a method's draws (RA's undo them), kept in the job
            # only (the outcome in memory keeps it, so the workbench knows what it ran)
            published = dict(rep, parameters={k: v for k, v in (rep.get("parameters") or {}).items() if k != "seed"})
            io.write_json(published, pub.stage(report_path))
        # the release log's entry rides in the journal: written after the swap, or by the recovery of a run
        # stopped before it was (a release is never published and missing from the log)
        done = pub.commit(last=report_path, after=logged)
    return done


def _sources(data: Any) -> list[Path]:
    """The files ``data`` was read from (a recovery in the output's folder never touches them)."""
    source = getattr(data, "source", None)
    if source is None:
        return []
    return [Path(s) for s in (source if isinstance(source, (list, tuple)) else [source]) if s]
