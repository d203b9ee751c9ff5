"""The shape every anonymization method has: declared parameters in, a :class:`Result` out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from anonstudio.core.params import Param, ParamSet, label_of
from anonstudio.core.progress import ProgressCallback

if TYPE_CHECKING:  # annotations only: importing the registry stays light (no numpy/pandas for --help)
    import numpy as np
    import pandas as pd


@dataclass
class Result:
    """What a method returns.

    Attributes
    ----------
    output:
        The anonymized data in the input's layout: a :class:`~anonstudio.core.data.Table`, an
        :class:`~anonstudio.core.data.EventLog` or a :class:`~anonstudio.core.data.SequenceSet`.
    groups:
        ``int64`` per input record (row, sequence or string): its equivalence class / group id, -1 when the
        record was suppressed or removed. For pseudo-strings, the group of each *input* string.
    suppressed:
        Records (strings, sequences; events for cbmsa) removed or fully suppressed.
    side_outputs:
        Extra tables written beside the main output, keyed by the suffix of their file name
        (anatomy: ``{"sensitive": st_frame}`` → ``<stem>.sensitive.csv``).
    metrics:
        Method-specific figures known only to the method (e.g. objective values); the report's metrics are
        computed from the output by :meth:`Algorithm.evaluate`.
    details:
        Data for the GUI panes (MST edges, removed edges, templates, segments …): plain numpy / python.
    notes:
        Sentences for the report (e.g. "age had no hierarchy: default intervals 5/10/20 used").
    warnings:
        Risks or surprises the user must see (the report's ``warnings``, the CLI's stderr, the privacy pane),
        e.g. a highly-sensitive value that does not occur.
    """

    output: Any
    groups: np.ndarray
    suppressed: int = 0
    side_outputs: dict[str, pd.DataFrame] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Algorithm(ABC):
    """Base class of the methods (scikit-learn estimator style).

    ``__init__`` only validates and stores keyword parameters against :attr:`parameters`; :meth:`run`
    does the work. Subclasses set the class attributes and implement :meth:`run`,
    :meth:`privacy_model` and usually :meth:`evaluate`.
    """

    #: job-file name (``[algorithm] name = ...``)
    name: ClassVar[str] = ""
    #: human title for menus
    title: ClassVar[str] = ""
    #: "table" | "events" | "fasta"
    data_kind: ClassVar[str] = "table"
    #: citation shown in Help and tooltips
    reference: ClassVar[str] = ""
    #: declared parameters
    parameters: ClassVar[ParamSet] = ParamSet()
    #: what the workbench calls this method's own parameters (``{"cut": "Edge removal"}``); shared ones (k, l, c,
    #: seed) have their titles in :data:`anonstudio.core.params.TITLES`
    titles: ClassVar[dict[str, str]] = {}
    #: keys the pipeline (not the method) takes for this method, with the method's defaults: job keys under
    #: ``[algorithm]``, kept apart in :attr:`pipeline` — ``suppression_budget()`` for a method that may publish
    #: records fully suppressed (the verifier allows that share); none for a method that suppresses nothing
    pipeline_parameters: ClassVar[ParamSet] = ParamSet()
    #: one sentence in plain words: what the method publishes (``anonstudio methods``, the method list)
    description: ClassVar[str] = ""
    #: what it writes: "table" | "events" | "fasta" (pseudo-strings) | "tables" (several tables)
    output_kind: ClassVar[str] = ""
    #: the privacy models its output must satisfy, as the verifier names them
    privacy_models: ClassVar[tuple[str, ...]] = ()
    #: the report's metrics it computes (names as in the papers)
    reported_metrics: ClassVar[tuple[str, ...]] = ()
    #: whether every quasi-identifier needs a hierarchy (generalizing methods); methods that publish values
    #: as they are (random anonymization, anatomy) use only the hierarchies a job names
    needs_hierarchies: ClassVar[bool] = True
    #: what one of the report's ``groups`` is called ("cluster", "partition"; ``None``: the method forms no groups,
    #: as random anonymization) — the Summary, the run pane and ``anonstudio run`` count them by this word
    group_unit: ClassVar[str | None] = "group"
    #: the workbench pane that shows what only this method produces ("" = the common panes suffice); the
    #: window brings it to the front after a run
    result_view: ClassVar[str] = ""
    #: whether the method draws random numbers with its ``seed`` parameter (so two seeds give two outputs); a
    #: method that takes a seed only for a variant of itself says False (CBMSA: its baseline draws, it does not)
    draws: ClassVar[bool] = True
    #: whether a known seed undoes the method's release (RA's redraws are replayed, SafePub's sampling gives the
    #: sampled rows away, Anatomy's picks test guesses of sensitive values): a job then may not write a seed — the
    #: draws come from the user's release key (:mod:`anonstudio.core.keys`, issue 39 item 1) through
    #: :meth:`use_key`; an in-memory run (an experiment, a test) may still give one
    secret_draws: ClassVar[bool] = False
    #: whether the method's draws come from the release key when the job writes no seed (condensation: its draws
    #: hide the group statistics and the fragment rule's redraws; a written seed still runs, for experiments, and
    #: the release is then NOT safe to publish): see :func:`anonstudio.core.secret_draws.draws_from_key`
    keyed_draws: ClassVar[bool] = False
    #: the engines a single job of this method runs on (``[execution] engine``): "local", and "dask" for the
    #: methods whose ``run`` takes ``executor=`` and splits its work into tasks with the same output
    engines: ClassVar[tuple[str, ...]] = ("local",)
    #: whether the guarantee needs the rows published in a random order (``output.shuffle_rows``): a job or an
    #: export without it is refused (SafePub: in the input's order a row's position names its record)
    random_row_order: ClassVar[bool] = False
    #: whether every column it publishes must be a quasi-identifier (other columns identifying, left out): a
    #: column published unchanged would break its guarantee (SafePub: it shows records that were never sampled)
    quasi_identifiers_only: ClassVar[bool] = False
    #: whether the method counts distinct people per class when the table names a person column
    #: (``[input] person``): the partitioning methods do; the others refuse it for :attr:`people_refusal`
    counts_people: ClassVar[bool] = False
    #: why a method that does not count people refuses a person column (one clause)
    people_refusal: ClassVar[str] = "it forms no classes whose people could be counted"

    @classmethod
    def facts(cls) -> dict[str, Any]:
        """Everything a user or a tool needs to know about the method, from its declarations."""
        return {
            "name": cls.name,
            "title": cls.title or cls.name,
            "description": cls.description,
            "input": cls.data_kind,
            "output": cls.output_kind or cls.data_kind,
            "privacy_models": list(cls.privacy_models),
            "metrics": list(cls.reported_metrics),
            "reference": cls.reference,
            "result_view": cls.result_view,
            "engines": list(cls.engines),
            # with a person column (``[input] person``): whether classes hold k distinct people, else why refused
            "counts_people": cls.counts_people,
            **({} if cls.counts_people else {"people_refusal": cls.people_refusal}),
            "parameters": [
                {"name": p.name, "kind": p.kind, "default": p.default, "range": p.describe_range(), "help": p.help,
                 "required": p.required, "title": cls.label(p.name)}
                for p in cls.parameters
            ],
            "pipeline_parameters": [
                {"name": p.name, "kind": p.kind, "default": p.default, "range": p.describe_range(), "help": p.help}
                for p in cls.pipeline_parameters
            ],
        }

    @classmethod
    def label(cls, name: str) -> str:
        """What the workbench calls parameter ``name`` of this method: the parameter's own ``title``, the method's
        :attr:`titles`, the shared :data:`~anonstudio.core.params.TITLES`, else the name spelled out."""
        for p in cls.parameters.params + cls.pipeline_parameters.params:
            if p.name == name and p.title:
                return p.title
        return str(cls.titles.get(name) or label_of(name))

    @classmethod
    def form_parameters(cls) -> ParamSet:
        """The method's parameters, then the pipeline's, each titled as :meth:`label` says: what the workbench's
        form shows."""
        from dataclasses import replace

        # a method with secret draws shows no seed: its draws come from the release key (issue 39); one whose draws
        # come from the key unless a seed is written (keyed_draws: condensation) shows its seed empty
        def shown(p: Param) -> Param:
            if getattr(cls, "keyed_draws", False) and p.name == "seed":
                return replace(p, title=cls.label(p.name), default=None,
                               help=p.help + " — leave it empty: the draws then come from your release key (a seed "
                                             "written in the job makes the release NOT safe to publish)")
            return replace(p, title=cls.label(p.name))

        return ParamSet(tuple(shown(p) for p in (*cls.parameters, *cls.pipeline_parameters)
                              if not (cls.secret_draws and p.name == "seed")))

    #: the seed derived from the release key for this release (:meth:`use_key`), ``None`` until a job run sets it
    keyed_seed: int | None = None

    def use_key(self, seed: int) -> None:
        """Draw with ``seed``, derived from the user's release key for this input (the pipeline's, for a method
        with :attr:`secret_draws`): it takes the place of any ``seed`` parameter's value."""
        self.keyed_seed = int(seed)

    def __init__(self, **params: Any) -> None:
        # keys the pipeline takes for this method (max_suppression): validated by their declarations, kept apart
        pipeline = self.pipeline_parameters.names()
        own = {k: v for k, v in params.items() if k not in pipeline}
        given = {k: v for k, v in params.items() if k in pipeline}
        self.pipeline: dict[str, Any] = self.pipeline_parameters.validate(given, context=f"method '{self.name}'")
        self.params = self.parameters.validate(own, context=f"method '{self.name}'")

    @abstractmethod
    def run(self, data: Any, hierarchies: dict[str, Any], progress: ProgressCallback | None = None) -> Result:
        """Anonymize ``data`` (already carrying its roles) with the given hierarchies."""

    def privacy_model(self) -> dict[str, Any]:
        """What the output must satisfy, for :func:`anonstudio.core.privacy.verify_output`:
        e.g. ``{"model": "k-anonymity", "k": 5}`` or ``{"model": "(k,c)-privacy", "k": 5, "c": 0.7, ...}``."""
        return {"model": "k-anonymity", "k": self.params.get("k")}

    def evaluate(self, data: Any, result: Result, hierarchies: dict[str, Any], progress: ProgressCallback | None = None,
                 *, executor: Any = None) -> dict[str, Any]:
        """The report's ``metrics``: computed from the input, the output and the hierarchies. ``executor`` is
        given only to methods whose ``engines`` name "dask", on that engine (RA spreads its reruns on it)."""
        return {}


class SecretSeed:
    """For a method drawing at random whose seed is secret (RA, SafePub): the seed derived from the release key
    (:meth:`Algorithm.use_key`, what a job's run sets), else an in-memory run's ``seed``, else one drawn once from
    the operating system and kept on the instance (for reruns and the workbench's measurements), never reported. A
    drawn seed is at least 2^62, so it is never mistaken for a typed one."""

    params: dict[str, Any]
    keyed_seed: int | None
    secret_draws: ClassVar[bool] = True
    _drawn_seed: int | None = None

    def effective_seed(self) -> int:
        if self.keyed_seed is not None:
            return int(self.keyed_seed)
        seed = self.params.get("seed")
        if seed is not None:
            return int(seed)
        if self._drawn_seed is None:
            import secrets

            self._drawn_seed = (1 << 62) | secrets.randbits(62)
        return int(self._drawn_seed)
