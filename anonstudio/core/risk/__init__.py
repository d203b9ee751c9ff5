"""Re-identification risk of a table from the sizes of its equivalence classes (the figures of ARX's risk analysis).

An *equivalence class* is a set of records with equal cells on the quasi-identifiers; everything here is computed
from the class-size histogram ``c_j`` = number of classes of size ``j`` (``u = Σ c_j`` classes, ``n = Σ j c_j``
records, ``c_1`` sample uniques), vectorized over the distinct sizes — never per record.

Attacker models (El Emam & Dankar, "Protecting privacy using k-anonymity", JAMIA 15(5):627-637, 2008; El Emam,
*Guide to the De-Identification of Personal Health Information*, CRC 2013, "Measuring the probability of
re-identification"), as ARX's ``RiskModelSampleSummary`` computes them (the papers' equations are written out
here and at each function; we could not check their numbering against the papers, so none is quoted):

- *prosecutor* (the attacker knows the person is in the table): a record in a class of size ``f`` is re-identified
  with probability ``1/f``. ``highest`` = 1/min f, ``lowest`` = 1/max f, ``average`` = ``u/n`` (the share of records
  re-identified on average), ``records_at_risk`` = share of records with ``1/f > threshold``.
- *journalist* (the attacker does not know whether the person is in the table and matches against a population
  table holding the sample): the same with the class's size ``F`` in the population table; ``average`` =
  ``max(u / Σ F, Σ (f/F) / n)`` (the larger of the two average-risk forms, as ARX takes it). Without a population
  table ``F = f`` and the journalist figures are the prosecutor's (ARX does the same).
- *marketer* (re-identify as many as possible): ``Σ_classes (f/F) / n`` (``u/n`` without a population table).

Population uniqueness — the estimated number of people unique on the quasi-identifiers in a population of ``N``
(sampling fraction ``φ = n/N``; ARX's default population is the US, :data:`US_POPULATION`):

- :func:`pitman`: Pitman's two-parameter sampling formula (Pitman, "Exchangeable and partially exchangeable random
  partitions", PTRF 102:145-158, 1995: the exchangeable partition probability function) fitted by maximum
  likelihood, and the expected number of population uniques ``Γ(θ+1)/Γ(θ+α) · N^α`` (Hoshino, "Applying Pitman's
  sampling formula to microdata disclosure risk assessment", J. Official Statistics 17(4):499-520, 2001).
- :func:`zayatz`: Zayatz, "Estimation of the percent of unique population elements on a microdata file using the
  sample", US Census Bureau SRD report RR-91/08, 1991: the chance that a sample unique is a population unique,
  from hypergeometric draws of the sample classes, times ``c_1 / φ``.
- :func:`snb`: the shifted negative binomial model of Chen & Keller-McNulty, "Estimation of identification
  disclosure risk in microdata", J. Official Statistics 14(1):79-95, 1998: class sizes ``1 + NB(α, β)`` in the
  population, Bernoulli(φ) sampling; ``α, β`` by matching the expected counts of sample classes of size 1 and 2,
  the number ``K`` of population classes by the Shlosser-type estimator ``D_Sh3`` of Haas & Stokes ("Estimating
  the number of classes in a finite population", JASA 93(444):1475-1487, 1998) as ARX's code names and we read
  it; population uniques ``K β^α``.
- :func:`dankar`: Dankar, El Emam, Neisa & Roffey, "Estimating the re-identification risk of clinical data sets",
  BMC Medical Informatics and Decision Making 12:66, 2012: Pitman when ``φ ≤ 0.1`` (Zayatz if Pitman has no
  solution), otherwise the smaller of Zayatz and SNB (Zayatz if SNB has none) — the rule as ARX applies it.

Where ARX 3.9 (commit aacd487f) departs from these papers we say so and follow the papers, except where asked:
its SNB sums ``(1-φ)^j (1+φ)^j c_j - 1`` per size where ``D_Sh3`` has ``(1-φ)^j ((1+φ)^j - 1) c_j``, and its
second moment equation multiplies by ``(1-d)^(α+2)`` where the model divides by it (see :func:`snb_log_expected`); with
both, the equations have no solution on any table we tried, so ARX reports SNB as "not available" (0) and its
Dankar rule falls back to Zayatz above ``φ = 0.1``. ``snb(..., equations="arx")`` reproduces ARX's figures.
ARX's Pitman solver also requires ``θ ≥ 0`` where the model allows ``θ > -α`` (for α > 0).

Degenerate inputs never raise: no sample uniques → every estimate is 0 and available (ARX: 0); an estimator without
a solution (every record unique, no class of size 2 for SNB, a fit outside the model) → ``available = False`` and
``uniques = 0`` (ARX reports 0 and "not available"), with a ``note`` saying why.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.risk._histogram import Estimate, Histogram
from anonstudio.core.risk._uniqueness import (
    DANKAR_FRACTION,
    _Sums,
    dankar,
    pitman,
    population_uniqueness,
    shlosser_classes,
    snb,
    snb_log_expected,
    zayatz,
)
from anonstudio.core.population import US_POPULATION  # ARX's default population model (Region.USA)

#: the class-size histogram is in :mod:`._histogram`, the population-uniqueness estimators in :mod:`._uniqueness`;
#: their names are importable from here
__all__ = [
    "DANKAR_FRACTION", "DEFAULT_THRESHOLD", "RISK_BINS", "US_POPULATION", "Estimate", "Histogram", "_Sums", "dankar",
    "journalist_risk", "marketer_risk", "pitman", "population_uniqueness", "prosecutor_risk", "resolve_population",
    "risk_distribution", "risk_figures", "sample_uniques", "shlosser_classes", "snb", "snb_log_expected", "zayatz",
]

#: the re-identification risk above which a record counts as at risk, by default: 0.2 = classes under 5 (ARX's GUI)
DEFAULT_THRESHOLD = 0.2
#: upper ends (inclusive) of the risk bins of the record-level distribution, ARX's (0 is the first lower end)
RISK_BINS = np.array([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1,
                      0.125, 0.143, 0.167, 0.2, 0.25, 0.334, 0.5, 1.0])


# ---------------------------------------------------------------------------------------------- attacker models


def prosecutor_risk(h: Histogram, threshold: float = DEFAULT_THRESHOLD) -> dict:
    """Prosecutor risk from the sample's classes (El Emam & Dankar 2008): ``highest`` = 1/smallest class,
    ``lowest`` = 1/largest, ``average`` = classes/records, ``records_at_risk`` = share of records whose risk
    ``1/f`` exceeds ``threshold``, ``records_at_highest`` = share of records in the smallest classes.
    All 0 for no records (as ARX)."""
    n = h.records
    if n == 0:
        return {"highest": 0.0, "lowest": 0.0, "average": 0.0, "records_at_risk": 0.0, "records_at_highest": 0.0}
    in_class = h.sizes * h.counts
    return {
        "highest": 1.0 / h.sizes[0],
        "lowest": 1.0 / h.sizes[-1],
        "average": h.classes / n,
        "records_at_risk": float(in_class[1.0 / h.sizes > threshold].sum() / n),
        "records_at_highest": float(in_class[0] / n),
    }


def journalist_risk(sample_sizes, population_sizes, threshold: float = DEFAULT_THRESHOLD) -> dict:
    """Journalist risk: per sample class its size ``f`` and the size ``F ≥ f`` of the same class in the population
    table (El Emam 2013; ARX's ``RiskModelSampleSummary`` with a research subset): ``highest`` = 1/min F,
    ``lowest`` = 1/max F, ``average`` = max(classes / Σ F, Σ (f/F) / n), ``records_at_risk`` = share of the
    sample's records whose ``1/F`` exceeds ``threshold``, ``records_at_highest`` = share of records in classes of
    the smallest ``F``."""
    f = np.asarray(sample_sizes, dtype=np.float64)
    big = np.asarray(population_sizes, dtype=np.float64)
    n = f.sum()
    if n == 0:
        return prosecutor_risk(Histogram.of([]), threshold)
    smallest = big.min()
    return {
        "highest": 1.0 / smallest,
        "lowest": 1.0 / big.max(),
        "average": float(max(len(f) / big.sum(), (f / big).sum() / n)),
        "records_at_risk": float(f[1.0 / big > threshold].sum() / n),
        "records_at_highest": float(f[big == smallest].sum() / n),
    }


def marketer_risk(sample_sizes, population_sizes=None) -> float:
    """Marketer risk: the expected share of records re-identified when every record is matched, ``Σ (f/F) / n``
    (``classes / n`` when the population is the sample)."""
    f = np.asarray(sample_sizes, dtype=np.float64)
    n = f.sum()
    if n == 0:
        return 0.0
    big = f if population_sizes is None else np.asarray(population_sizes, dtype=np.float64)
    return float((f / big).sum() / n)


def sample_uniques(h: Histogram) -> float:
    """Share of records alone in their class."""
    return h.of_size(1) / h.records if h.records else 0.0


def risk_distribution(h: Histogram) -> np.ndarray:
    """Share of records per risk bin: bin ``i`` holds the records whose risk ``1/f`` lies in ``(RISK_BINS[i-1],
    RISK_BINS[i]]`` (the first bin from 0) — ARX's risk distribution."""
    out = np.zeros(len(RISK_BINS))
    if h.records:
        np.add.at(out, np.searchsorted(RISK_BINS, 1.0 / h.sizes, side="left"), h.sizes * h.counts / h.records)
    return out


# ------------------------------------------------------------------------------------------------- one table


def resolve_population(records: int, *, population: int | None = None,
                       sampling_fraction: float | None = None) -> tuple[int, str]:
    """``(size, source)`` of the population a table of ``records`` records is a sample of: ``population`` as
    given, ``round(records / sampling_fraction)`` (ARX's rule), or ARX's default, the US population. Raises
    :class:`ParameterError` for both given, a fraction outside (0, 1], or a population smaller than the table."""
    from anonstudio.core.errors import ParameterError

    if population is not None and sampling_fraction is not None:
        raise ParameterError("give the population size or the sampling fraction, not both", key="population")
    if sampling_fraction is not None:
        if not (0.0 < float(sampling_fraction) <= 1.0) or not np.isfinite(sampling_fraction):
            raise ParameterError(f"the sampling fraction must be in (0, 1], not {sampling_fraction}",
                                 key="sampling-fraction")
        return max(int(round(records / float(sampling_fraction))), 1), "--sampling-fraction"
    if population is not None:
        if int(population) < max(records, 1):
            raise ParameterError(f"the population ({population}) must hold at least the table's {records} records",
                                 key="population")
        return int(population), "--population"
    if records > US_POPULATION:
        raise ParameterError(f"the table has more records ({records}) than the default population (the US, "
                             f"{US_POPULATION}): give --population", key="population")
    return US_POPULATION, "default (USA, as ARX)"


def risk_figures(h: Histogram, population: int, *, threshold: float = DEFAULT_THRESHOLD,
                 population_sizes=None, sample_sizes=None, equations: str = "model") -> dict:
    """Every figure of one table from its class-size histogram, as the contract's keys (``records``, ``classes``,
    ``class_sizes`` (the histogram: ``sizes``, ``counts``), ``prosecutor``, ``journalist``, ``marketer``, ``sample_uniques``, ``population_uniques``, ``distribution``).
    ``sample_sizes``/``population_sizes``: per class its size in the table and in a population table (journalist
    and marketer risk); without them the population is the sample."""
    prosecutor = prosecutor_risk(h, threshold)
    if population_sizes is None:
        journalist, marketer = dict(prosecutor), prosecutor["average"]
    else:
        journalist = journalist_risk(sample_sizes, population_sizes, threshold)
        marketer = marketer_risk(sample_sizes, population_sizes)
    estimates = population_uniqueness(h, population, equations=equations)
    return {
        "records": h.records,
        "classes": h.classes,
        "class_sizes": {"sizes": h.sizes.tolist(), "counts": h.counts.tolist()},
        "prosecutor": prosecutor,
        "journalist": journalist,
        "marketer": {"average": marketer},
        "sample_uniques": sample_uniques(h),
        "population_uniques": {name: e.as_dict(population) for name, e in estimates.items()},
        "distribution": {"upper": RISK_BINS.tolist(), "records": risk_distribution(h).tolist()},
    }
