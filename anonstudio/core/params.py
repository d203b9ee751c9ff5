"""Declared algorithm parameters.

Each algorithm declares its parameters once (as scikit-learn's ``_parameter_constraints`` do); the same
declarations validate job files, build the GUI parameter panel and the CLI help, so the three never
drift. A declaration knows its type, default, range or choices and a one-line help text that cites the
paper where the parameter comes from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator
from typing import Any

from anonstudio.core.errors import ParameterError
from anonstudio.core.limits import MAX_EXACT_INT_AS_FLOAT, MAX_INT


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: what the workbench calls the parameters many methods share (job files and the command line keep the names); a
#: method names its own in its ``titles`` (:meth:`anonstudio.core.algorithms.Algorithm.label`), a parameter may
#: declare ``title=`` itself, else its name is spelled out
TITLES = {
    "k": "k — smallest group size",
    "l": "l — sensitive values per group",
    "l_kind": "Kind of l-diversity",
    "c": "c — largest sensitive share",
    "seed": "Random seed",
    "max_suppression": "Most records suppressed (share)",
    "quality": "Quality model minimized",
    "resplit": "Re-split merged classes",
}


def label_of(name: str) -> str:
    """A shared parameter's name in plain words (:data:`TITLES`, else spelled out)."""
    return TITLES.get(name) or name.replace("_", " ").capitalize()


@dataclass(frozen=True)
class Param:
    """One parameter.

    ``kind`` is one of ``"int"``, ``"float"``, ``"choice"``, ``"bool"``, ``"str"``, ``"str_list"``,
    ``"weights"`` (a choice string or a mapping attribute → positive float), ``"levels"`` (a mapping
    attribute → hierarchy level, a whole number ≥ 0), ``"models"`` (a mapping privacy model name → its
    parameters, each validated by the registered model's own declarations where a method takes it).
    ``low``/``high`` bound numbers (inclusive unless ``low_open``/``high_open``); ``None`` means unbounded.
    ``required`` parameters have no default. ``browse`` (``"file"`` or ``"folder"``, for ``"str"`` parameters
    that name a path) gives the parameter a *Browse…* button in the workbench; ``filter`` is the file dialog's
    filter (``"formats:<kind>"``: every registered format of that kind, from :mod:`anonstudio.core.io.formats`). ``shortcuts`` (``"choice"`` parameters): choices that the command line also takes as a flag of their
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
        if self.kind == "models":  # privacy model name = {its parameters}; each checked by the model's declarations
            if value is None or value == {}:
                return {}
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise fail(f"must be a table of privacy model = {{its parameters}}, got {_short(value)}")
            return {str(name): dict(params) for name, params in value.items()}
        raise AssertionError(f"unknown parameter kind {self.kind!r}")

    def _check_range(self, value: float, fail: Callable[[str], ParameterError]) -> None:
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

    def __iter__(self) -> Iterator[Param]:
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
    func: Callable[..., list[Any]]

    def run(self, out: Any, **kwargs: Any) -> list[Any]:
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

def suppression_budget(default: float = DEFAULT_MAX_SUPPRESSION) -> ParamSet:
    """The pipeline key ``max_suppression`` for a method that may publish records fully suppressed, with the
    method's own default: a method lists it among its ``pipeline_parameters`` (job key ``algorithm.max_suppression``,
    shown in the workbench's form after the method's own); a method that suppresses nothing does not."""
    return ParamSet((
        Param("max_suppression", "float", default,
              "largest share of records that may be published fully suppressed (0–1; they are exempt from the "
              "k test, so the exemption is bounded)", low=0.0, high=1.0),
    ))


# -------------------------------------------------------------------------------------------------------------
# parameters several table methods share: declared here once, each method lists them in its ParamSet

#: the quality models of :data:`anonstudio.core.metrics._quality.MODELS`, named here so that declaring a method
#: imports no numpy (a test checks the two lists agree)
QUALITY_MODELS = ("loss", "ncp", "dm", "aecs", "entropy", "precision")

#: the quality model a generalizing method minimizes; for every one of them it decides whether suppressing a
#: record (within max_suppression) costs less than generalizing it
QUALITY = Param(
    "quality", "choice", "loss",
    help="the quality model minimized: loss (ARX's Loss), ncp (mean cell share of the hierarchy), dm "
         "(discernibility), aecs (average class size), entropy (non-uniform entropy), precision (mean level / "
         "height); it also decides whether suppressing a record, within max_suppression, costs less than "
         "generalizing it (dm and aecs never find it does)",
    choices=QUALITY_MODELS)

#: per-attribute weights of the additive quality models
WEIGHTS = Param(
    "weights", "weights", "equal",
    help="how much each quasi-identifier's loss counts: equal, or attribute = weight (others weigh 1; loss, ncp, "
         "entropy and precision)", choices=("equal",), title="Attribute weights")

#: l-diversity of the one sensitive attribute, and its kind
L_DIVERSITY = Param(
    "l", "float", None, help="l-diversity of the sensitive attribute in every published class (optional; kind: "
    "l_kind)", low=1)
L_KIND = Param(
    "l_kind", "choice", "entropy",
    help="l-diversity kind: entropy (−Σ p log p ≥ log l) or distinct (at least l distinct values); missing "
         "sensitive values are not values", choices=("entropy", "distinct"))
