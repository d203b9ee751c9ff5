"""Privacy models over class sizes and a population (issue 32 item 1): δ-presence and k-map against a population
table the user gives, and the two whole-table thresholds of re-identification risk ARX offers.

δ-presence and k-map count, per published class, the records of the population table it covers
(:attr:`ClassStats.population`: records whose every quasi-identifier value is the class's published cell or lies
under it in the attribute's hierarchy). The two risk thresholds judge the table as a whole; the classes they name
when it fails are the fewest whose suppression brings it to the threshold (average risk: the smallest classes first;
sample uniqueness: classes of one record, the earlier first) — what a method suppresses to keep the model. Fully suppressed records are left out, as ARX leaves
out its outputs' suppressed records.
"""

from __future__ import annotations

import math
from typing import Any

from typing import TYPE_CHECKING

from anonstudio.core.errors import ParameterError
from anonstudio.core.models._base import LATTICE, POPULATION, REPAIR, SIZES, SPLIT, ClassStats, PrivacyModel, register
from anonstudio.core.params import Param, ParamSet

if TYPE_CHECKING:
    import numpy as np
else:  # numpy loads when a model first judges a class, not when the models are declared (issue 17)
    from anonstudio.core.models._lazy import numpy as np

#: every partitioning method keeps these when a job names them (Mondrian: by its split test's least part size, or,
#: for a model counting a population table, by merging the failing parts afterwards)
EVERY_METHOD = frozenset({SPLIT, LATTICE, REPAIR})

EPS = 1e-12

#: the population table's parameter of δ-presence and k-map (a path; a job's relative path is taken against the job)
POPULATION_PARAM = Param("population", "str", None, "the population table (a file with the quasi-identifier "
                         "columns, one record per person) the classes are counted in", browse="file",
                         filter="formats:table", title="Population table")


def population_table(model: PrivacyModel, given=None):
    """The population a model counts in: ``given`` (a table or frame), else the file its ``population`` names."""
    if given is not None:
        return given
    path = model.params.get("population")
    if not path:
        raise ParameterError(f"privacy model '{model.name}' needs a population table (its parameter 'population')",
                             key=f"algorithm.models.{model.name}.population")
    from anonstudio.core import io

    return io.read_table(path)


class DeltaPresence(PrivacyModel):
    """δ-presence (M. E. Nergiz, M. Atzori, C. Clifton: Hiding the presence of individuals from shared databases.
    SIGMOD 2007, Def. 3): for every published class E covering the population records P(E),
    ``δmin ≤ |E| / |P(E)| ≤ δmax`` — the chance that a person of the population matching the class is in the
    released table. The population table holds every published record's person (the table is a subset of it)."""

    name = "delta-presence"
    enforced_by = EVERY_METHOD
    title = "δ-presence"
    reference = "M. E. Nergiz, M. Atzori, C. Clifton: Hiding the presence of individuals. SIGMOD 2007, Def. 3"
    needs = frozenset({SIZES, POPULATION})
    parameters = ParamSet((
        Param("delta_min", "float", 0.0, "the least share of a class's population that may be in the table",
              low=0, high=1),
        Param("delta_max", "float", 0.5, "the largest share of a class's population that may be in the table",
              low=0, high=1),
        POPULATION_PARAM,
    ))

    def check_parameters(self, *, key=""):
        if self.params["delta_min"] > self.params["delta_max"]:
            raise ParameterError(f"δ-presence needs delta_min ≤ delta_max, got {self.params['delta_min']:g} > "
                                 f"{self.params['delta_max']:g}", key=f"{key}delta_min")

    def score(self, stats):
        return stats.sizes / np.maximum(stats.population, 1)

    def failing(self, stats):
        share = self.score(stats)
        return np.flatnonzero((stats.population < stats.sizes) | (share < self.params["delta_min"] - EPS)
                              | (share > self.params["delta_max"] + EPS))

    def measure(self, stats, i, of=""):
        if stats.population[i] < stats.sizes[i]:
            return f"only {int(stats.population[i])} matching record(s) in the population table (it must hold them all)"
        return (f"{int(stats.sizes[i])} of the {int(stats.population[i])} matching people of the population "
                f"(δ = {self.score(stats)[i]:.4f}, outside [{self.params['delta_min']:g}, {self.params['delta_max']:g}])")


#: how k-map learns each class's population size: counted in a population table, or estimated from the sample


register(DeltaPresence)


ESTIMATORS = ("none", "poisson", "zero-truncated-poisson")


def _poisson_log_pmf(c: int, lam: float) -> float:
    return -lam + c * math.log(lam) - math.lgamma(c + 1.0)


class _ExactSum:
    """A running sum rounded exactly as ``math.fsum`` of every term added (Shewchuk's non-overlapping partials,
    which ``fsum`` itself keeps): each :meth:`add` costs the few partials, not a new sum of every term."""

    def __init__(self) -> None:
        self.partials: list[float] = []

    def add(self, x: float) -> float:
        kept = []
        for y in self.partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                kept.append(lo)
            x = hi
        kept.append(x)
        self.partials = kept
        return math.fsum(kept)


def estimated_k(k: int, fraction: float, significance: float, estimator: str, records: int) -> int:
    """The least class size ``k'`` in the sample that k-map with an estimator asks for (K. El Emam, F. K. Dankar:
    Protecting privacy using k-anonymity. JAMIA 15(5), 2008: the estimators D3 — Poisson, after J. Pannekoek,
    Statistica Neerlandica 53(1), 1999 — and D4 — zero-truncated Poisson), derived as ARX's ``KMap`` derives it.

    A class holding exactly ``k`` people in a population sampled with fraction φ holds ``f ~ Poisson(λ = φ k)``
    records of the sample (D4: conditioned on ``f ≥ 1``, as only classes the sample holds are seen). With ``c*``
    the least count whose cumulative probability reaches ``1 − significance`` (D3: ``P(f ≤ c*)``; D4:
    ``P(1 ≤ f ≤ c*) / P(f ≥ 1)``), a sample class of ``k' = c* + 2`` records (D3) or ``c* + 1`` (D4) is taken
    to stand for at least ``k`` people: under ``F = k`` a class that large is seen with probability at most the
    significance level. ``k'`` is capped at ``k`` (a class of k sample records holds at least k people) and at
    the table's ``records``. The D3 offset is ARX's (its loop counts one past the quantile); we could not check it
    against the paper's text."""
    lam = fraction * k
    threshold = 1.0 - significance
    if lam <= 0.0:
        return min(k, max(records, 1))
    # k' is capped at the table's records: once the count passes them, the answer is min(k, records) whatever the
    # quantile (a k of 10^9 with a large fraction counted towards 10^8 and ran without end: issue 44 item 10)
    cap = min(k, max(records, 1) + 1)
    total = _ExactSum()  # the exactly rounded sum of the terms so far (math.fsum's), kept as it grows
    if estimator == "poisson":
        count, value = 0, 0.0
        while value < threshold and count + 1 <= cap:  # the k' it would give exceeds k from here: k' = k
            value = total.add(math.exp(_poisson_log_pmf(count, lam)))
            count += 1
        derived = count + 1 if value >= threshold else cap
    elif estimator == "zero-truncated-poisson":
        seen = -math.expm1(-lam)  # P(f ≥ 1)
        count, value = 1, 0.0
        while value < threshold and count <= cap:
            value = total.add(math.exp(_poisson_log_pmf(count, lam)) / seen)
            count += 1
        derived = count if value >= threshold else cap
    else:
        raise ParameterError(f"k-map has no estimator '{estimator}' (choose {', '.join(ESTIMATORS)})",
                             key="estimator")
    return max(1, min(k, derived, records))


class KMap(PrivacyModel):
    """k-map (L. Sweeney: Computational disclosure control, PhD thesis, MIT 2001, §4; K. El Emam, F. K. Dankar:
    Protecting privacy using k-anonymity. JAMIA 15(5), 2008, the k-map criterion): every published class matches
    at least ``k`` people of the population, so a person known to be in the population is linked to at least k
    candidates.

    With a population table (``population``; ``estimator = "none"``) the people a class matches are counted in
    it. Without one an ``estimator`` (``poisson`` or ``zero-truncated-poisson``) judges each class by its size in
    the release against :func:`estimated_k`'s ``k'``, from the sampling fraction (records / ``population_size``,
    default the US population as ARX's default population model, or ``sampling_fraction``) and the
    ``significance`` level: an estimate that holds with that confidence, not a count."""

    name = "k-map"
    phrase = "k-map with an estimator or a population table"
    enforced_by = EVERY_METHOD
    reference = "K. El Emam, F. K. Dankar: Protecting privacy using k-anonymity. JAMIA 15(5), 2008"
    needs = frozenset({SIZES, POPULATION})
    parameters = ParamSet((
        Param("k", "int", 5, "every class matches at least k people of the population", low=1),
        POPULATION_PARAM,
        Param("estimator", "choice", "none", "without a population table: estimate each class's people from its "
              "records in the sample — poisson (El Emam & Dankar's D3) or zero-truncated-poisson (D4); none: count "
              "them in the population table", choices=ESTIMATORS),
        Param("significance", "float", 0.01, "estimators: the chance allowed that a class judged to match k "
              "people matches fewer", low=0, high=1, low_open=True, high_open=True),
        Param("population_size", "int", None, "estimators: people in the population the table is a sample of "
              "(default: the US, 317,238,626, as ARX)", low=1),
        Param("sampling_fraction", "float", None, "estimators: records / population size, instead of "
              "population_size", low=0, high=1, low_open=True),
    ))

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["estimator"] != "none":
            self.needs = frozenset({SIZES})  # judged by its classes' sizes: no population table is read

    @property
    def estimates(self) -> bool:
        return self.params["estimator"] != "none"

    def check_parameters(self, *, key=""):
        p = self.params
        if self.estimates:
            if p.get("population"):
                raise ParameterError("k-map takes a population table or an estimator, not both: remove population "
                                     "or set estimator = \"none\"", key=f"{key}population")
            if p.get("population_size") is not None and p.get("sampling_fraction") is not None:
                raise ParameterError("give k-map's population_size or its sampling_fraction, not both",
                                     key=f"{key}sampling_fraction")
        else:
            for name in ("population_size", "sampling_fraction"):
                if p.get(name) is not None:
                    raise ParameterError(f"k-map's {name} sizes the population of an estimator: set estimator to "
                                         "poisson or zero-truncated-poisson, or count in a population table",
                                         key=f"{key}{name}")

    def sampling_fraction(self, records: int) -> float:
        """φ of a table of ``records`` records: ``sampling_fraction``, else records / ``population_size`` (default
        the US population, ARX's default population model)."""
        p = self.params
        if p.get("sampling_fraction") is not None:
            return float(p["sampling_fraction"])
        from anonstudio.core.population import US_POPULATION

        size = p.get("population_size") or US_POPULATION
        if size < records:
            raise ParameterError(f"k-map's population_size ({size:,}) is smaller than the table ({records:,} "
                                 "records), which is a sample of it", key="algorithm.models.k-map.population_size")
        return records / float(size)

    def derived_k(self, stats: ClassStats) -> int:
        """``k'`` for the table ``stats`` comes from (its records, suppressed ones included, as ARX counts them)."""
        records = int(stats.records if stats.records is not None else stats.sizes.sum())
        return stats.remember((self.name, "k'", records), lambda: estimated_k(
            self.params["k"], self.sampling_fraction(records), self.params["significance"],
            self.params["estimator"], records))

    def score(self, stats):
        return (stats.sizes if self.estimates else stats.population).astype(float)

    def failing(self, stats):
        if self.estimates:
            return np.flatnonzero(stats.sizes < self.derived_k(stats))
        return np.flatnonzero(stats.population < self.params["k"])

    def measure(self, stats, i, of=""):
        if self.estimates:
            return (f"{int(stats.sizes[i])} record(s), fewer than k' = {self.derived_k(stats)}, the records a class "
                    f"needs to match k = {self.params['k']} people by the {self.params['estimator']} estimate "
                    f"(significance {self.params['significance']:g})")
        return f"{int(stats.population[i])} matching record(s) in the population table, fewer than k = {self.params['k']}"

    def partition_limits(self):
        return {}

    def least_class_size(self, records: int) -> int:
        """With an estimator, ``k'`` for a table of ``records`` records: the least class size every part of a
        partitioning method keeps (0 against a population table, which a split test does not hold)."""
        if not self.estimates:
            return 0
        return int(estimated_k(self.params["k"], self.sampling_fraction(records), self.params["significance"],
                               self.params["estimator"], records))


register(KMap)


class AverageRisk(PrivacyModel):
    """Average re-identification risk threshold (K. El Emam: Guide to the de-identification of personal health
    information, CRC 2013, §"average risk"; ARX's ``AverageReidentificationRisk``): the prosecutor's average risk,
    ``(1/n) Σ_records 1/|E(record)| = classes / records``, is at most ``threshold``."""

    name = "average-risk"
    phrase = "average risk"
    enforced_by = EVERY_METHOD
    title = "average re-identification risk"
    reference = "K. El Emam: Guide to the de-identification of personal health information. CRC Press 2013"
    global_verdict = True
    needs = frozenset({SIZES})
    parameters = ParamSet((Param("threshold", "float", 0.1, "classes / records, the average chance of "
                                 "re-identifying a record, is at most this", low=0, high=1, low_open=True),))

    def average(self, stats: ClassStats) -> float:
        records = float(stats.sizes.sum())
        return len(stats.sizes) / records if records else 0.0

    def score(self, stats):
        return 1.0 / np.maximum(stats.sizes, 1)

    def failing(self, stats):
        """The fewest classes whose records, suppressed, bring the average to the threshold: the smallest classes
        first (ties: the earlier class), as many as it takes (none when the table keeps it)."""
        return stats.remember((self.name, self.params["threshold"]), lambda: self._excess(stats))

    def _excess(self, stats):
        t = self.params["threshold"] + EPS
        order = np.lexsort((np.arange(stats.n), stats.sizes))
        classes_left = stats.n - np.arange(stats.n + 1)
        records_left = stats.sizes.sum() - np.concatenate(([0], np.cumsum(stats.sizes[order])))
        with np.errstate(divide="ignore", invalid="ignore"):
            ok = (classes_left <= t * records_left) | (records_left == 0)
        return np.sort(order[:int(np.argmax(ok))])

    def measure(self, stats, i, of=""):
        return (f"risk 1/{int(stats.sizes[i])} per record, one of the smallest classes lifting the average risk to "
                f"{self.average(stats):.4f} > {self.params['threshold']:g}")

    def partition_limits(self):
        # a sufficient condition a partitioning method can keep part by part: every class of ⌈1/threshold⌉ records
        return {"min_size": int(np.ceil(1.0 / self.params["threshold"] - 1e-9))}


register(AverageRisk)


class SampleUniqueness(PrivacyModel):
    """Sample uniqueness threshold (ARX's ``SampleUniqueness``; F. K. Dankar, K. El Emam, A. Neisa, T. Roffey:
    Estimating the re-identification risk of clinical data sets. BMC Med Inform Decis Mak 12:66, 2012, sample
    uniques): the share of records alone in their class is at most ``threshold``."""

    name = "sample-uniqueness"
    enforced_by = EVERY_METHOD
    title = "sample uniqueness"
    reference = "F. K. Dankar et al.: Estimating the re-identification risk of clinical data sets. BMC MIDM 2012"
    global_verdict = True
    needs = frozenset({SIZES})
    parameters = ParamSet((Param("threshold", "float", 0.0, "the share of records unique in the table is at most "
                                 "this", low=0, high=1),))

    def share(self, stats: ClassStats) -> float:
        records = float(stats.sizes.sum())
        return float((stats.sizes == 1).sum()) / records if records else 0.0

    def score(self, stats):
        return (stats.sizes == 1).astype(float)

    def failing(self, stats):
        """The fewest classes of one record whose suppression brings the share to the threshold (the earlier ones
        first): ``j`` of the ``U`` uniques among ``R`` records, least with ``(U − j) ≤ threshold · (R − j)``."""
        t = self.params["threshold"]
        uniques = np.flatnonzero(stats.sizes == 1)
        records = float(stats.sizes.sum())
        if len(uniques) <= t * records + EPS:
            return np.zeros(0, dtype=np.int64)
        need = len(uniques) if t >= 1 else int(np.ceil((len(uniques) - t * records) / (1 - t) - 1e-9))
        return uniques[:min(max(need, 0), len(uniques))]

    def measure(self, stats, i, of=""):
        return f"one record only; {self.share(stats):.4f} of the records are unique, more than {self.params['threshold']:g}"

    def partition_limits(self):
        return {"min_size": 2} if self.params["threshold"] < 1 else {}


#: the population-uniqueness estimators a job may name (:mod:`anonstudio.core.risk`)


register(SampleUniqueness)


UNIQUENESS_ESTIMATORS = ("dankar", "pitman", "zayatz", "snb")


class PopulationUniqueness(PrivacyModel):
    """Population uniqueness threshold (ARX's ``PopulationUniqueness``; F. K. Dankar, K. El Emam, A. Neisa,
    T. Roffey: Estimating the re-identification risk of clinical data sets. BMC Med Inform Decis Mak 12:66, 2012):
    the share of the population estimated to be unique on the quasi-identifiers — from the release's class-size
    histogram by Pitman's, Zayatz's or the SNB estimator, or by Dankar's rule choosing among them
    (:func:`anonstudio.core.risk.population_uniqueness`, the figures ``anonstudio risk`` prints) — is at most
    ``threshold``. The population is ``population_size`` people (default the US, as ARX) or records /
    ``sampling_fraction``. Without sample uniques every estimator estimates none, so classes of two records keep
    it (a sufficient condition, Mondrian's split test). An estimator with no solution on the release fails it: no
    estimate is not a small one."""

    name = "population-uniqueness"
    enforced_by = EVERY_METHOD
    title = "population uniqueness"
    reference = "F. K. Dankar et al.: Estimating the re-identification risk of clinical data sets. BMC MIDM 2012"
    global_verdict = True
    needs = frozenset({SIZES})
    parameters = ParamSet((
        Param("threshold", "float", 0.01, "the share of the population estimated unique on the quasi-identifiers "
              "is at most this", low=0, high=1),
        Param("estimator", "choice", "dankar", "how the population uniques are estimated from the release's class "
              "sizes: dankar (Dankar et al.'s rule, ARX's default), pitman, zayatz or snb",
              choices=UNIQUENESS_ESTIMATORS),
        Param("population_size", "int", None, "people in the population the table is a sample of (default: the US, "
              "317,238,626, as ARX)", low=1),
        Param("sampling_fraction", "float", None, "records / population size, instead of population_size", low=0,
              high=1, low_open=True),
    ))

    def check_parameters(self, *, key=""):
        if self.params.get("population_size") is not None and self.params.get("sampling_fraction") is not None:
            raise ParameterError("give population uniqueness's population_size or its sampling_fraction, not both",
                                 key=f"{key}sampling_fraction")

    def population(self, records: int) -> int:
        """People in the population a table of ``records`` records is a sample of."""
        p = self.params
        if p.get("sampling_fraction") is not None:
            return max(int(round(records / float(p["sampling_fraction"]))), 1)
        from anonstudio.core.population import US_POPULATION

        size = int(p.get("population_size") or US_POPULATION)
        if size < records:
            raise ParameterError(f"population uniqueness's population_size ({size:,}) is smaller than the table "
                                 f"({records:,} records), which is a sample of it",
                                 key=f"algorithm.models.{self.name}.population_size")
        return size

    def estimate(self, sizes: np.ndarray, population: int):
        """The chosen estimator's :class:`~anonstudio.core.risk.Estimate` for classes of ``sizes``."""
        from anonstudio.core.risk import Histogram, population_uniqueness

        return population_uniqueness(Histogram.of(sizes), population)[self.params["estimator"]]

    def _passes(self, sizes: np.ndarray, population: int) -> bool:
        e = self.estimate(sizes, population)
        return e.available and e.uniques <= self.params["threshold"] * population + EPS

    def _records(self, stats: ClassStats) -> int:
        return int(stats.records if stats.records is not None else stats.sizes.sum())

    def share(self, stats: ClassStats) -> float:
        population = self.population(self._records(stats))
        return self.estimate(stats.sizes, population).uniques / population

    def score(self, stats):
        return (stats.sizes == 1).astype(float)

    def failing(self, stats):
        """None when the estimate keeps the threshold; else the fewest of the smallest classes (ties: the earlier)
        whose suppression brings it there — found size by size, then by bisection within the last size (the
        estimators are not monotone in general, so a bisection's answer is checked and the whole size taken when it
        does not hold) — or every class when none does."""
        return stats.remember((self.name, tuple(sorted(self.params.items(), key=lambda kv: kv[0]))),
                              lambda: self._excess(stats))

    def _excess(self, stats):
        sizes = np.asarray(stats.sizes, dtype=np.int64)
        population = self.population(self._records(stats))
        if self._passes(sizes, population):
            return np.zeros(0, dtype=np.int64)
        order = np.lexsort((np.arange(len(sizes)), sizes))
        ranked = sizes[order]
        for size in np.unique(ranked):
            upto = int(np.searchsorted(ranked, size, side="right"))
            if not self._passes(ranked[upto:], population):
                continue
            low = int(np.searchsorted(ranked, size, side="left"))  # removing [0, low) does not pass
            lo, hi = low, upto
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if self._passes(ranked[mid:], population) else (mid, hi)
            need = hi if self._passes(ranked[hi:], population) else upto
            return np.sort(order[:need])
        return np.sort(order)

    def measure(self, stats, i, of=""):
        e = self.estimate(stats.sizes, self.population(self._records(stats)))
        if not e.available:
            return (f"{int(stats.sizes[i])} record(s); the {self.params['estimator']} estimate has no solution on "
                    "this release, so population uniqueness cannot be judged (choose another estimator)")
        return (f"{int(stats.sizes[i])} record(s), one of the smallest classes; the {self.params['estimator']} "
                f"estimate puts {self.share(stats):.4%} of the population unique on the quasi-identifiers, more "
                f"than {self.params['threshold']:g}")

    def partition_limits(self):
        return {"min_size": 2}


register(PopulationUniqueness)
