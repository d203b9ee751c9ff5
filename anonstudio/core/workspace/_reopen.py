"""A reopened project's last outcome (issue 30 item 5): the release it published, read back from the saved output
and report and re-verified as ``anonstudio verify`` checks it, becomes the shown outcome again — so the Summary
shows it and Export is available — or the reason it cannot (the file moved, it fails verification now, its row
order was not kept) is given and nothing is vouched for.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from anonstudio.core.data import EventLog, SequenceSet, Table


def restored_outcome(state: Any) -> tuple[Any, str | None]:
    """``(outcome, None)`` for the release ``state`` (a :class:`~anonstudio.core.workspace.Workspace` just read
    from a project) last published — its output file read back and re-verified against the data, roles,
    hierarchies and method the project holds — or ``(None, why not)``."""
    from anonstudio.core import io, privacy
    from anonstudio.core.algorithms import Result
    from anonstudio.core.errors import AnonStudioError
    from anonstudio.core.jobs import Outcome, declared_model, load_hierarchies, make_algorithm, side_output_path
    from anonstudio.core.publication import unshuffled

    rep, out = state.last_report, state.output_path
    if not rep or out is None or state.data is None or not state.method:
        return None, "no release was published from this project"
    out = Path(out)
    if not out.exists():
        return None, f"its last output {out.name} is not there any more"
    if rep.get("algorithm") != state.method:
        return None, "the method changed since the last release"
    shuffled = state.release.shuffle_rows
    key = None
    if shuffled:
        from anonstudio.core.keys import load_key

        try:
            key = load_key(state.release.key_file, fingerprint=state.release.key_fingerprint)
        except AnonStudioError:
            key = None
        if key is None:
            return None, ("its rows were published in an order drawn from a release key that is not on this "
                          "machine, so it cannot be checked again")
    try:
        algorithm = make_algorithm(state.method, state.params)
        hierarchies, _ = load_hierarchies(state.hierarchy_specs(), state.data, required=algorithm.needs_hierarchies)
        spec = state.input_spec()
        model = declared_model(algorithm, state.data, spec, algorithm.pipeline.get("max_suppression"))
        sides = {name: side_output_path(out, name) for name in privacy.SIDE_OUTPUTS.get(str(model.get("model")), ())}
        seed = None
        if key is not None:
            from anonstudio.core.jobs import report_parameters
            from anonstudio.core.release_log import shuffle_seed_of

            seed = shuffle_seed_of(key, state.method, dict(report_parameters(state.method, algorithm, state.params),
                                                           **algorithm.pipeline), state.data, hierarchies)
        verification = privacy.verify_release(model, state.data, out, hierarchies, side_paths=sides,
                                              missing=spec.missing, shuffle_seed=seed)
        if not verification.passed:
            return None, f"its last output {out.name} fails verification now: {verification.summary()}"
        output = io.read_output_like(state.data, out, missing=spec.missing)
        side_outputs = {name: io.read_table(p, delimiter=getattr(state.data, "delimiter", None)).df
                        for name, p in sides.items() if p.exists()}
    except (AnonStudioError, OSError) as exc:  # the project still opens; its release is just not vouched for
        return None, f"its last output {out.name} could not be checked again: {exc}"
    if isinstance(output, Table) and seed is not None and len(output.df) == len(state.data.df):
        output = unshuffled(output, seed)  # row for row beside the input again, as the verifier compares them
    if isinstance(output, EventLog) and isinstance(state.data, EventLog):
        from anonstudio.core.privacy._canonical import release_of_sequences

        output = release_of_sequences(state.data, output, hierarchies, seed)  # ids 1..n back to the input's
    report = copy.deepcopy(rep)
    report["verification"] = verification.as_dict()
    report.setdefault("notes", []).append(f"re-verified when the project was opened: {out.name} as published")
    outcome = Outcome(Result(output, _groups(state.data, output, model), side_outputs=side_outputs), verification,
                      report, state.data, hierarchies, model=model)
    return outcome, None


def _groups(data: Any, output: Any, model: dict[str, Any]) -> np.ndarray:
    """Per input record its class in the published table (-1 suppressed); for other kinds, unknown (-1)."""
    if isinstance(data, Table) and isinstance(output, Table) and len(output.df) == len(data.df):
        from anonstudio.core.metrics._release_risk import class_ids

        qis = [q for q in (model.get("quasi_identifiers") or data.quasi_identifiers) if q in output.df.columns]
        if qis:
            return class_ids(output.df, qis)
    n = len(data) if isinstance(data, (EventLog, SequenceSet)) else len(getattr(data, "df", []))
    return np.full(n, -1, dtype=np.int64)
