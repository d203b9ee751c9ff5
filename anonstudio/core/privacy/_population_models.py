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

import numpy as np

from anonstudio.core.errors import ParameterError
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.privacy._models import POPULATION, SIZES, ClassStats, PrivacyModel, register

EPS = 1e-12

#: the population table's parameter of δ-presence and k-map (a path; a job's relative path is taken against the job)
POPULATION_PARAM = Param("population", "str", None, "the population table (a file with the quasi-identifier "
                         "columns, one record per person) the classes are counted in", browse="file",
                         filter="Tables (*.csv *.tsv *.txt *.parquet);;All files (*)", title="Population table")


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


class KMap(PrivacyModel):
    """k-map (L. Sweeney: Computational disclosure control, PhD thesis, MIT 2001, §4; K. El Emam, F. K. Dankar:
    Protecting privacy using k-anonymity. JAMIA 15(5), 2008, the k-map criterion): every published class matches
    at least ``k`` records of the population table, so a person known to be in the population is linked to at
    least k candidates."""

    name = "k-map"
    reference = "K. El Emam, F. K. Dankar: Protecting privacy using k-anonymity. JAMIA 15(5), 2008"
    needs = frozenset({SIZES, POPULATION})
    parameters = ParamSet((Param("k", "int", 5, "every class matches at least k people of the population table",
                                 low=1), POPULATION_PARAM))

    def score(self, stats):
        return stats.population.astype(float)

    def failing(self, stats):
        return np.flatnonzero(stats.population < self.params["k"])

    def measure(self, stats, i, of=""):
        return f"{int(stats.population[i])} matching record(s) in the population table, fewer than k = {self.params['k']}"


class AverageRisk(PrivacyModel):
    """Average re-identification risk threshold (K. El Emam: Guide to the de-identification of personal health
    information, CRC 2013, §"average risk"; ARX's ``AverageReidentificationRisk``): the prosecutor's average risk,
    ``(1/n) Σ_records 1/|E(record)| = classes / records``, is at most ``threshold``."""

    name = "average-risk"
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


class SampleUniqueness(PrivacyModel):
    """Sample uniqueness threshold (ARX's ``SampleUniqueness``; F. K. Dankar, K. El Emam, A. Neisa, T. Roffey:
    Estimating the re-identification risk of clinical data sets. BMC Med Inform Decis Mak 12:66, 2012, sample
    uniques): the share of records alone in their class is at most ``threshold``."""

    name = "sample-uniqueness"
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


POPULATION_MODELS = (DeltaPresence, KMap, AverageRisk, SampleUniqueness)
for _model in POPULATION_MODELS:
    register(_model)
