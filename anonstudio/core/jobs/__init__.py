"""Jobs: the TOML description of one anonymization run (see ``cli-contract.md``), and running it.

One entry runs every run (:mod:`._entry`): :func:`run` takes a :class:`Job` (the CLI, scripts) or a
:class:`RunRequest` (the workbench's worker, sweeps) and returns the verified :class:`Outcome`; publishing is
separate (:func:`publish_job`, :meth:`Workspace.publish <anonstudio.core.workspace.Workspace.publish>`)::

    job = load_job("adult-mst.toml", overrides=["algorithm.k=10"])
    outcome = run(job)                # read → anonymize → verify → evaluate (nothing written)
    publish_job(outcome, job)         # the output and report, re-verified as written; run_job does both
    outcome.report["verification"]["passed"]

Nothing is written unless the independent verifier passes (:class:`PrivacyError`, exit 1, otherwise).

One module per concern: :mod:`._entry` (the run entry), :mod:`._schema` (the job file: parse, validate, write back), :mod:`._pipeline` (load,
complete the hierarchies, run, verify, evaluate, report), :mod:`._warnings` (the release's risks the privacy
model does not cover); publishing is :mod:`anonstudio.core.publication`, the release log
:mod:`anonstudio.core.release_log`.
"""

from __future__ import annotations

from anonstudio.core.jobs._entry import RunRequest, request_for, run
from anonstudio.core.jobs._pipeline import (
    Outcome,
    anonymize,
    build_hierarchy_spec,
    check_engine,
    column_values,
    declared_model,
    execute,
    gets_default_bands,
    load_data,
    load_hierarchies,
    publish_job,
    run_job,
    verify_job,
    without_identifying,
)
from anonstudio.core.jobs._schema import (
    InputSpec,
    Job,
    apply_override,
    check_target_text,
    job_to_toml,
    load_job,
    make_algorithm,
    parse_job,
    read_text_file,
    refuse_written_secrets,
    report_parameters,
    save_job,
    seed_notes,
    short_repr,
)
from anonstudio.core.jobs._warnings import (
    IDS_WARNING,
    UNIQUE_WARNING_SHARE,
    hierarchy_attributes,
    hierarchies_used,
    hierarchy_warnings,
    release_warnings,
)
from anonstudio.core.publication import (
    ORDER_WARNING,
    SEQUENCE_ORDER_WARNING,
    shuffled,
    side_output_path,
    unshuffled,
    write_outputs,
)
from anonstudio.core.release_log import release_log_path

__all__ = [
    "IDS_WARNING", "InputSpec", "Job", "ORDER_WARNING", "Outcome", "RunRequest", "anonymize", "SEQUENCE_ORDER_WARNING", "UNIQUE_WARNING_SHARE",
    "apply_override", "build_hierarchy_spec", "check_engine", "check_target_text", "column_values",
    "declared_model", "execute", "gets_default_bands", "hierarchies_used", "hierarchy_attributes", "hierarchy_warnings",
    "job_to_toml", "load_data", "load_hierarchies", "load_job", "make_algorithm", "parse_job", "publish_job",
    "read_text_file", "refuse_written_secrets", "release_log_path", "request_for", "release_warnings", "report_parameters", "run", "run_job", "save_job",
    "seed_notes", "short_repr", "shuffled", "side_output_path", "unshuffled", "verify_job", "without_identifying",
    "write_outputs",
]
