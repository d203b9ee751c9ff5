"""Declared algorithm parameters.

Each algorithm declares its parameters once (as scikit-learn's ``_parameter_constraints`` do); the same
declarations validate job files, build the GUI parameter panel and the CLI help, so the three never
drift. A declaration knows its type, default, range or choices and a one-line help text that cites the
paper where the parameter comes from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from anonstudio.core.errors import ParameterError
from anonstudio.core.limits import MAX_EXACT_INT_AS_FLOAT, MAX_INT


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: what the workbench calls each parameter (job files and the command line keep the names); a parameter whose
#: name is not here may declare ``title=`` itself, else its name is spelled out
TITLES = {
    "k": "k — smallest group size",
    "l": "l — sensitive values per group",
    "l_kind": "Kind of l-diversity",
    "c": "c — largest sensitive share",
    "cut": "Edge removal",
    "numeric_split": "Numeric cuts",
    "seed": "Random seed",
    "weights": "Which attribute is redrawn",
    "draws": "How values are redrawn",
    "bias_runs": "Reruns measuring bias",
    "level": "Publish at hierarchy level",
    "attributes_per_record": "Attributes redrawn per record",
    "highly_sensitive": "Highly sensitive values",
    "leftover": "Last cluster",
    "epsilon": "ε — length tolerance",
    "order": "Order of the statistics",
    "segmentation": "Length segmentation",
    "length": "Pseudo-string length",
    "max_fragment": "Longest fragment shared with few inputs",
    "max_suppression": "Most records suppressed (share)",
}


def label_of(name: str) -> str:
    """A parameter's name in plain words (:data:`TITLES`, else spelled out)."""
    return TITLES.get(name) or name.replace("_", " ").capitalize()


@dataclass(frozen=True)
class Param:
    """One parameter.

    ``kind`` is one of ``"int"``, ``"float"``, ``"choice"``, ``"bool"``, ``"str"``, ``"str_list"``,
    ``"weights"`` (a choice string or a mapping attribute → positive float), ``"levels"`` (a mapping
    attribute → hierarchy level, a whole number ≥ 0).
    ``low``/``high`` bound numbers (inclusive unless ``low_open``/``high_open``); ``None`` means unbounded.
    ``required`` parameters have no default. ``browse`` (``"file"`` or ``"folder"``, for ``"str"`` parameters
    that name a path) gives the parameter a *Browse…* button in the workbench; ``filter`` is the file dialog's
    filter. ``shortcuts`` (``"choice"`` parameters): choices that the command line also takes as a flag of their
    own (``--quick`` for ``--scale quick``).
    """

    name: str
    kind: str
    default: Any = None
    help: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    required: bool = False
    browse: str = ""
    filter: str = ""
    title: str = ""
    shortcuts: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The parameter in plain words, as the workbench labels it."""
        return self.title or label_of(self.name)

    def describe_range(self) -> str:
        if self.kind in ("int", "float"):
            lo = "-inf" if self.low is None else f"{self.low:g}"
            hi = "inf" if self.high is None else f"{self.high:g}"
            return f"{'(' if self.low_open else '['}{lo}, {hi}{')' if self.high_open else ']'}"
        if self.choices:
            return " | ".join(self.choices)
        return ""

    def validate(self, value: Any, *, file: str | None = None) -> Any:
        """Return ``value`` converted to this parameter's type, or raise :class:`ParameterError`."""

        def fail(why: str) -> ParameterError:
            return ParameterError(f"parameter '{self.name}' {why}", file=file, key=self.name)

        if self.kind == "int":
            # a string ("5") is refused, not coerced: a job that quotes a number has a mistake in it; a decimal
            # (1e3) is taken only where it is exact, and every whole number fits the kernels' 64-bit integers
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and (not value.is_integer() or abs(value) > MAX_EXACT_INT_AS_FLOAT)
            ):
                raise fail(f"must be a whole number, got {_short(value)}")
            value = int(value)
            if not -MAX_INT - 1 <= value <= MAX_INT:
                raise fail(f"must be a whole number of at most 19 digits (|value| ≤ {MAX_INT:,}), "
                           f"got {_short(value)}")
            self._check_range(value, fail)
            return value
        if self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise fail(f"must be a number, got {_short(value)}")
            try:
                value = float(value)
            except OverflowError:  # a whole number beyond any float
                raise fail(f"must be a finite number, got {_short(value)}") from None
            if not math.isfinite(value):
                raise fail(f"must be a finite number, got {value!r}")
            self._check_range(value, fail)
            return value
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise fail(f"must be true or false, got {value!r}")
        if self.kind == "choice":
            if value not in self.choices:
                raise fail(f"must be one of {', '.join(self.choices)}; got {value!r}")
            return value
        if self.kind == "str":
            if not isinstance(value, str):
                raise fail(f"must be a string, got {value!r}")
            return value
        if self.kind == "str_list":
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise fail(f"must be a list of strings, got {value!r}")
            return list(value)
        if self.kind == "weights":
            if isinstance(value, str):
                if value not in self.choices:
                    raise fail(f"must be one of {', '.join(self.choices)} or a table of weights; got {value!r}")
                return value
            if isinstance(value, dict):
                out = {}
                for key, w in value.items():
                    try:
                        w = float(w)
                    except (TypeError, ValueError, OverflowError):
                        raise fail(f"weight of '{key}' must be a number, got {w!r}") from None
                    if not (w >= 0 and math.isfinite(w)):
                        raise fail(f"weight of '{key}' must be non-negative, got {w!r}")
                    out[str(key)] = w
                return out
            raise fail(f"must be one of {', '.join(self.choices)} or a table of weights; got {value!r}")
        if self.kind == "levels":
            if value is None or value == {}:
                return {}
            if not isinstance(value, dict):
                raise fail(f"must be a table of attribute = hierarchy level, got {_short(value)}")
            out = {}
            for key, level in value.items():
                if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_INT:
                    raise fail(f"level of '{key}' must be a whole number ≥ 0, got {_short(level)}")
                out[str(key)] = level
            return out
        raise AssertionError(f"unknown parameter kind {self.kind!r}")

    def _check_range(self, value: float, fail) -> None:
        def shown(x: float) -> str:  # whole numbers in full (1000000, not 1e+06)
            return str(int(x)) if self.kind == "int" and float(x).is_integer() else f"{x:g}"

        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            raise fail(f"must be {'>' if self.low_open else '≥'} {shown(self.low)}, got {shown(value)}")
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            raise fail(f"must be {'<' if self.high_open else '≤'} {shown(self.high)}, got {shown(value)}")


@dataclass(frozen=True)
class ParamSet:
    """An ordered collection of :class:`Param` with whole-dict validation."""

    params: tuple[Param, ...] = field(default_factory=tuple)

    def __iter__(self):
        return iter(self.params)

    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def get(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params if not p.required}

    def validate(self, values: dict[str, Any], *, file: str | None = None, context: str = "") -> dict[str, Any]:
        """Validate a whole dict: unknown keys and missing required keys are errors; defaults filled in."""
        known = {p.name: p for p in self.params}
        for key in values:
            if key not in known:
                where = f" for {context}" if context else ""
                raise ParameterError(
                    f"unknown parameter '{key}'{where}; known: {', '.join(known) or 'none'}",
                    file=file,
                    key=key,
                )
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in values and values[p.name] is None and p.default is None and not p.required:
                out[p.name] = None  # an optional parameter left unset (e.g. Mondrian's l)
            elif p.name in values:
                out[p.name] = p.validate(values[p.name], file=file)
            elif p.required:
                raise ParameterError(f"parameter '{p.name}' is required", file=file, key=p.name)
            else:
                out[p.name] = p.default
        return out


@dataclass(frozen=True)
class Command:
    """A named engine entry point with declared parameters: a data generator or a paper's experiment.

    ``func(out, **params)`` (experiments also get ``progress=``) returns the paths it wrote. The CLI
    builds one ``--option`` per parameter; the GUI builds one widget per parameter. An experiment whose
    ``func`` takes ``executor=`` runs its sweep points as tasks of a
    :class:`~anonstudio.core.execution.Executor` (``--engine dask``).
    """

    name: str
    help: str
    parameters: ParamSet
    func: Callable[..., list]

    def run(self, out, **kwargs) -> list:
        return self.func(out, **kwargs)

    @property
    def distributable(self) -> bool:
        """Whether the sweep's points can run as tasks of an executor (local or Dask)."""
        import inspect

        return "executor" in inspect.signature(self.func).parameters


#: Default share of records that may be published fully suppressed (ARX's "suppression limit"). A tenth:
#: beyond it the suppressed block, exempt from the k test, outgrows the classes it protects and the release
#: withholds much of what it was made to publish; 0 forbids suppression, 1 allows any.
DEFAULT_MAX_SUPPRESSION = 0.10

#: The seed every method takes (``cli-contract.md``): a deterministic method records that it has no effect, but
#: it is checked as any seed is (a time of day or 1e308 as the seed of Mondrian was exit 3)
SEED = Param("seed", "int", 1, "random seed (no effect on a deterministic method)", low=0)

#: Parameters the pipeline (not the method) takes for every method of a data kind: job keys under
#: ``[algorithm]``, shown in the workbench's form after the method's own.
PIPELINE_PARAMETERS: dict[str, ParamSet] = {
    "table": ParamSet((
        Param("max_suppression", "float", DEFAULT_MAX_SUPPRESSION,
              "largest share of records that may be published fully suppressed (0–1; they are exempt from the "
              "k test, so the exemption is bounded)", low=0.0, high=1.0),
    )),
}
